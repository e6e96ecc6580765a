"""``buzzer festival`` (the board), ``buzzer festival results``, ``buzzer festival export``;
and the ``--festival`` options of ``buzzer simulate`` (:func:`add_simulate_options`)."""

from __future__ import annotations

import argparse
import sys

from controller.core import configs
from controller.core.errors import ConfigError


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("festival", help="the festival board: every hall's game live, every result "
                       "(docs/festival.md)")
    _common(p)
    p.add_argument("--headless", action="store_true", help="no window: the board as text in the terminal")
    p.add_argument("--fullscreen", action="store_true", help="full screen on the projector")
    p.add_argument("--seconds", type=float, default=None, help=argparse.SUPPRESS)
    p.add_argument("--png", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_board)
    fsub = p.add_subparsers(dest="festival_command", metavar="COMMAND")

    r = fsub.add_parser("results", help="print every competition's results as published")
    _common(r)
    r.add_argument("--json", action="store_true", help="JSON: {\"competitions\": [...]}")
    r.add_argument("--wait", type=float, default=5.0, help="listen at most this many seconds (default 5)")
    r.add_argument("--games", type=int, default=0, help="wait until this many games are finished and complete")
    r.add_argument("--session", help="keep a session of this name on the broker: events published while "
                   "this board is away are kept for it")
    r.set_defaults(func=cmd_results)

    k = fsub.add_parser("keys", help="make a key per hall (the board's file and one file per hall, mode 0600)")
    k.add_argument("dir", help="folder to write the key files into (created if missing; nothing is overwritten)")
    k.add_argument("--hall", action="append", required=True, help="a hall's name (once per hall)")
    k.set_defaults(func=cmd_keys)

    e = fsub.add_parser("export", help="write each competition's final table (CSV or JSON) into DIR; "
                        "`export rating FILE.xlsx`: the ЧГК and Брейн-ринг results as the rating site's sheet")
    _common(e)
    e.add_argument("dir", help="folder to write the tables into (created if missing); or the word rating")
    e.add_argument("file", nargs="?", metavar="FILE.xlsx", help="after `rating`: the sheet to write")
    e.add_argument("--event", metavar="FILE", help="rating: the teams' rating IDs and cities from this event file "
                   "(besides those each game was played with)")
    e.add_argument("--format", choices=("csv", "json"), default="csv", help="file format (default csv)")
    e.add_argument("--wait", type=float, default=5.0, help="listen at most this many seconds (default 5)")
    e.set_defaults(func=cmd_export)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", "-c", help="config file with a [festival] section")
    p.add_argument("--broker", help="broker URL, mqtt://host:1883 or mqtts://host:8883 (default: [festival] broker)")


def add_simulate_options(p: argparse.ArgumentParser) -> None:
    """``buzzer simulate SCRIPT --festival URL --hall NAME [--competition NAME]``."""
    p.add_argument("--festival", metavar="URL", help="also publish the session to this broker as a hall would "
                   "(docs/festival.md)")
    p.add_argument("--hall", help="with --festival: the hall's name")
    p.add_argument("--competition", help="with --festival: the competition (default: [festival] competition, "
                   "else the mode)")
    p.add_argument("--pace", type=float, default=0.0, help=argparse.SUPPRESS)
    p.add_argument("--festival-timeout", type=float, default=10.0, help=argparse.SUPPRESS)


def festival_config(args) -> dict:
    cfg = configs.load(args.config) if args.config else configs.load(None)
    fest = cfg["festival"]
    url = args.broker or fest["broker"]
    if not url:
        raise ConfigError("festival.broker", "no broker: give --broker mqtt://host:1883 or set [festival] broker")
    return cfg


def listener(args, cfg: dict):
    from controller.festival.hall import broker_of
    from controller.festival.results import Listener

    fest = cfg["festival"]
    session = getattr(args, "session", None)
    if session is None and args.func is cmd_board:
        import socket
        session = f"board-{socket.gethostname()}"   # the board's events are kept while it is away
    client_id = f"buzzer-{session}" if session else None
    return Listener(broker_of(fest, args.broker, "--broker" if args.broker else None), fest["prefix"],
                    fest["ca_file"], client_id=client_id, **board_options(fest))


def board_options(fest: dict) -> dict:
    """The board's keys (every hall's) and its memory caps, for the Festival."""
    from controller.festival.auth import board_keys
    from controller.festival.results import MB

    return {"keys": board_keys(fest), "accept_unsigned": fest["accept_unsigned"],
            "game_bytes": int(fest["board_game_mb"] * MB), "total_bytes": int(fest["board_total_mb"] * MB)}


def cmd_results(args) -> int:
    from controller.cli import print_json

    cfg = festival_config(args)
    lst = listener(args, cfg)
    lst.start()
    try:
        waited = lst.collect(args.wait, games=args.games)
    finally:
        lst.close()
    _say_waited(waited, cfg["language"])
    res = lst.festival.results()
    if args.json:
        print_json(res)
    else:
        sys.stdout.write(text_table(res, cfg["language"]))
    return 0


def waited_line(waited, lang: str) -> str:
    """Why listening stopped short, in one line ("" when there is nothing to say): the
    finished games asked for (``--games``) had not all come when ``--wait`` ran out, or the
    link to the broker was lost.  The results printed are what had come by then."""
    from controller.i18n import t

    if waited is None:
        return ""
    parts = []
    if waited.games and waited.finished < waited.games:
        parts.append(t("festival.waited_games", lang, games=waited.games, wait=f"{waited.wait_s:g}",
                       finished=waited.finished))
        if waited.by_standings:
            parts.append(t("festival.waited_by_standings", lang, n=waited.by_standings))
    if waited.problem:
        from controller.festival.link import status_words as link_words
        parts.append(t("festival.waited_link", lang, problem=link_words(waited.problem, lang)))
    return "; ".join(parts)


def _say_waited(waited, lang: str) -> None:
    line = waited_line(waited, lang)
    if line:
        print(f"buzzer: {line}", file=sys.stderr, flush=True)


def text_table(res: dict, lang: str = "ru") -> str:
    """``buzzer festival results`` as text, in the config's language: per game a line
    (competition, hall, game, finished or going on), then its standings."""
    from controller.festival.board import row_line, table_rows
    from controller.i18n import t
    from controller.screens.common import mode_title

    lines = []
    for c in res["competitions"]:
        state = t("board_finished" if c["finished"] else "board_playing", lang)
        mode = mode_title(c["mode"], lang) if c["mode"] else ""
        lines.append(" · ".join(x for x in (c["name"], c["hall"], mode, t("results_game", lang, game=c["game"])) if x)
                     + f" ({state})")
        for row in table_rows(c):
            lines.append("  " + row_line(row, lang))
    if not lines:
        lines.append(t("board_no_games", lang))
    return "\n".join(lines) + "\n"


def cmd_export(args) -> int:
    from controller.festival import export

    if args.file is not None and args.dir != "rating":
        raise ConfigError("", f"unexpected {args.file!r}: `export DIR` writes tables, `export rating FILE.xlsx` the sheet")
    cfg = festival_config(args)
    lst = listener(args, cfg)
    lst.start()
    try:
        waited = lst.collect(args.wait)
    finally:
        lst.close()
    _say_waited(waited, cfg["language"])
    if args.file is not None:
        warn = export.write_rating(lst.festival, args.file, args.event)
        if warn:
            print(f"buzzer: warning: {warn}", file=sys.stderr)
        print(args.file)
        return 0
    written = export.write(lst.festival, args.dir, args.format, cfg)
    for path in written:
        print(path)
    if not written:
        from controller.i18n import t
        print(t("board_no_games", cfg["language"]), file=sys.stderr)
    return 0


def cmd_keys(args) -> int:
    from controller.festival.auth import make_keys

    for path in make_keys(args.dir, args.hall):
        print(path)
    return 0


def cmd_board(args) -> int:
    from controller.festival import board

    from controller.festival import web

    cfg = festival_config(args)
    lst = listener(args, cfg)
    page = web.start(cfg, sys.stderr)    # the board's read-only web page ([festival] web_port)
    try:
        return board.run(args, cfg, lst, page)
    finally:
        if page is not None:
            page.server.stop()
