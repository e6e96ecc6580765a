"""``buzzer journal races|rating JOURNAL``: what a game's journal proves, by pure replay.

* ``races``: the race record (docs/exports.md): for every race of the game, each press with
  its edge stamp, its input path and what that path declared about its stamps, and the rule
  that decided it (first, tie and lot with its seed, early, late ...), as JSON Lines (one race
  a line) or CSV (one press a row).  The record is the games' own (``host.race`` of their
  view, :func:`controller.games.race.race_record`), taken after every event of the replay: the
  host page's last race and this command can never disagree.
* ``rating``: the game's results in the rating site's sheet (:mod:`controller.games.rating`).

Both read the journal only (its header holds the config, the seed and the event file's game).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from typing import Any, Iterable, Mapping

from controller.core import cells
from controller.core.errors import BuzzerError, GameError

CSV_COLUMNS = ("question", "seq", "wave", "winner", "order", "team", "button", "input", "at_ns", "delivered_ns",
               "gap_ms", "resolution_us", "reorder_ms", "kind", "rule", "tie_rule", "seed", "salt")


def input_path(cfg: Mapping[str, Any], button: str, stream: bool) -> str:
    """The input a press came by, from the game's config: ``gpio:GPIO17``, ``box`` (the serial
    box, or any other ordered stream), ``keyboard:a``."""
    backend = cfg.get("buttons", "")
    if backend in ("gpio", "gpiod"):
        pin = (cfg.get("gpio") or {}).get("pins", {}).get(button, "")
        return f"{backend}:{pin}" if pin else str(backend)
    if backend.startswith("serial") or stream:
        return "box"
    if backend == "keyboard":
        key = next((t.get("key") for t in cfg.get("teams") or () if t.get("button") == button), None)
        return f"keyboard:{key}" if key else "keyboard"
    return str(backend or "unknown")


def races(contents) -> list[dict]:
    """Every race of a journal's game, in the order they were run (pure replay)."""
    from controller.games import engine

    cfg, seed = contents.header["config"], contents.header["seed"]
    try:
        state = engine.new_game(cfg, seed)
    except BuzzerError as exc:
        raise BuzzerError(f"the journal's game cannot be replayed: {exc}") from None
    except (KeyError, TypeError, ValueError) as exc:   # a header config this version cannot read
        raise BuzzerError(f"the journal's game cannot be replayed: its config lacks or mistypes "
                          f"{exc.args[0] if isinstance(exc, KeyError) else exc}") from None
    found: dict[tuple, dict] = {}
    for ev in contents.events:
        try:
            state, _ = engine.step(state, ev)
        except GameError:
            continue   # refused live too
        race = (engine.view(state).get("host") or {}).get("race")
        if race is not None:
            found[(race["seq"], race["question"], race["wave"])] = race   # the latest is the decided one
    out = []
    for race in found.values():
        race = dict(race, seed=seed)
        race["presses"] = [dict(p, input=input_path(cfg, p["button"], p["stream"])) for p in race["presses"]]
        out.append(race)
    return out


def to_jsonl(records: Iterable[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in records)


def to_csv(records: Iterable[dict]) -> str:
    buf = io.StringIO()
    w = cells.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in records:
        tie = r.get("tie") or {}
        for k, p in enumerate(r["presses"], start=1):
            w.writerow([r["question"], r["seq"], r["wave"], r["winner"] or "", k, p["team"], p["button"], p["input"],
                        p["at_ns"], p["delivered_ns"], p["gap_ms"], p["resolution_us"], p["reorder_ms"], p["kind"],
                        p["rule"], r["tie_rule"], r["seed"], tie.get("salt", "")])
    return buf.getvalue()


def _read(path: str):
    from controller.sessions import journal
    from pathlib import Path

    if not Path(path).exists():
        raise BuzzerError(f"{path}: file not found")
    if Path(path).is_dir():
        raise BuzzerError(f"{path}: is a folder; give a journal file (journal/current.jsonl or one in journal/archive/)")
    c = journal.read(path)
    header = c.header
    if not isinstance(header.get("config"), dict) or not isinstance(header.get("seed"), int) \
            or not isinstance(header["config"].get("mode"), str):
        raise BuzzerError(f"{path}: its header holds no game (config and seed); is it a buzzer journal?")
    if c.damaged_at:
        print(f"buzzer: {path}: damaged at record {c.damaged_at}; the records before it are used", file=sys.stderr)
    return c


def cmd_races(args) -> int:
    records = races(_read(args.journal))
    text = to_csv(records) if args.csv else to_jsonl(records)
    if args.output:
        _write(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


def cmd_rating(args) -> int:
    from controller.games import rating
    from controller.games import engine

    c = _read(args.journal)
    from controller.sessions import journal

    try:
        state, cfg, _seed, _last = journal.replay(c)
    except BuzzerError as exc:
        raise BuzzerError(f"{args.journal}: the journal's game cannot be replayed: {exc}") from None
    except (KeyError, TypeError, ValueError) as exc:
        raise BuzzerError(f"{args.journal}: the journal's game cannot be replayed: its config lacks or mistypes "
                          f"{exc.args[0] if isinstance(exc, KeyError) else exc}") from None
    override = {}
    if args.event:
        from controller.content import event
        override = rating.event_team_info(event.parse_file(args.event))
    got = rating.rows_of(engine.summary(state), rating.team_list(cfg), override)
    if got is None:
        raise BuzzerError(f"{args.journal}: its game keeps no per-question results (the rating sheet is "
                          "for ЧГК and Брейн-ринг)")
    n, rows = got
    rating.write(args.file, [(cfg.get("event", {}).get("title") or "Results", n, rows)])
    warn = rating.missing_ids(rows)
    if warn:
        print(f"buzzer: warning: {warn}", file=sys.stderr)
    print(args.file)
    return 0


def _write(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    except OSError as exc:
        raise BuzzerError(f"{path}: cannot write: {exc.strerror}") from None


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("journal", help="what a game's journal proves: its race record, its results for the "
                       "rating site (docs/exports.md)")
    jsub = p.add_subparsers(dest="journal_command", metavar="COMMAND", required=True)
    r = jsub.add_parser("races", help="every race of the game: each press, its stamps, input and the rule "
                        "that decided it (JSON Lines; --csv)")
    r.add_argument("journal", metavar="JOURNAL", help="a journal file (journal/current.jsonl, journal/archive/...)")
    r.add_argument("--csv", action="store_true", help="CSV, one press a row (default: JSON Lines, one race a line)")
    r.add_argument("-o", "--output", help="write to this file (default: stdout)")
    r.set_defaults(func=cmd_races)
    g = jsub.add_parser("rating", help="the game's results as the rating site's sheet (Team ID | Название | "
                        "Город | 1 … N), an .xlsx file")
    g.add_argument("journal", metavar="JOURNAL", help="a journal file")
    g.add_argument("file", metavar="FILE.xlsx", help="the sheet to write")
    g.add_argument("--event", metavar="FILE", help="take the teams' rating IDs and cities from this event file "
                   "(default: the event file the game was played with)")
    g.set_defaults(func=cmd_rating)
