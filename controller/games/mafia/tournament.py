"""The «Мафия» tournament table, computed from a folder of game protocols.

Points per game (regulations §4.2–4.7, every number from ``[mafia]``):

* a town win gives each town player (civilian, commissar, doctor)
  ``town_win_points`` (3); a mafia win gives each mafia player (mafia, don)
  ``mafia_win_points`` (4); a loss gives 0;
* a disqualification from the table adds ``disqualification_points`` (−1);
* the judges' extra points are added (checked: at most 3 players, 1 or 0.5
  each, 2 in total);
* every point of the final game is multiplied by ``final_multiplier`` (1.5).

Ranking: more points, then more extra points, then more wins, then more wins
as Don or Commissar, then a lot (§4.4).  The lot is a draw from a seeded
random generator; the seed is printed and written into the exports so that
anyone can repeat it.  The finalists are the top ``finalists`` (10) of the
ranking of the games before the final (§4.6).

``buzzer tournament FOLDER [--csv OUT] [--html OUT] [--seed N] [--finalists N]``
prints the table and exports it; ``buzzer protocol ...`` checks, prints and
adds protests to single protocol files.
"""

from __future__ import annotations

import argparse
import datetime as dt
import html
import io
import json
import random
import secrets
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Iterable, Mapping

from controller.core import cells, configs
from controller.games.mafia.protocol import (CSS, ProtocolError, Protocol, _f, _won, add_protest, check_extra_points,
                                       fmt_points, game_points, load, parse_time, render_html, save)
from controller.i18n import DEFAULT_LANG, LANGUAGES, Text, labels, t, tn
from controller.games.mafia.game import validate_settings
from controller.games.mafia import polemica
from controller.core.commandline import Command

__all__ = ["game_points", "validate_extra_points", "standings", "build_table", "load_folder",
           "to_csv", "to_html", "to_text", "tournament_command", "TOURNAMENT", "PROTOCOL"]

validate_extra_points = check_extra_points
"""§4.3 checks (re-exported: the protocol applies them when it is loaded)."""


@dataclass
class Standing:
    """One player's line of the tournament table."""

    name: str
    games: int = 0
    wins: int = 0
    wins_don_commissar: int = 0
    extra: Fraction = Fraction(0)
    disqualifications: int = 0
    qualifying: Fraction = Fraction(0)
    """Points of the games before the final."""
    final: Fraction = Fraction(0)
    """Points of the final game, multiplied."""
    lot: float = 0.0
    place: int = 0
    finalist: bool = False
    by_lot: bool = False
    """This player's place against a neighbour was decided by the lot."""

    @property
    def total(self) -> Fraction:
        return self.qualifying + self.final

    def chain(self, points: Fraction) -> tuple:
        return (-points, -self.extra, -self.wins, -self.wins_don_commissar)


def _key(name: str) -> str:
    return " ".join(name.split()).casefold()


def standings(protocols: Iterable[Protocol], settings: Mapping[str, Any] | None = None,
              seed: int = 0, *, final_games: bool = True) -> list[Standing]:
    """Rank the players of ``protocols``; ``final_games=False`` leaves the final out.

    Places are unique: a tie on points, extra points, wins and wins as Don or
    Commissar is broken by the seeded lot.
    """
    s = validate_settings(settings)
    rows: dict[str, Standing] = {}
    for protocol in protocols:
        if protocol.final and not final_games:
            continue
        points = game_points(protocol, s)
        for p in protocol.players:
            row = rows.setdefault(_key(p.name), Standing(p.name))
            row.games += 1
            if _won(protocol, p.role):
                row.wins += 1
                if p.role in ("don", "commissar"):
                    row.wins_don_commissar += 1
            row.extra += _f(p.extra)
            row.disqualifications += int(p.disqualified)
            if protocol.final:
                row.final += points[p.seat]
            else:
                row.qualifying += points[p.seat]
    rng = random.Random(seed)
    for key in sorted(rows):  # a fixed order, so the same seed draws the same lots
        rows[key].lot = rng.random()
    ranked = sorted(rows.values(), key=lambda r: (r.chain(r.total), r.lot))
    for i, row in enumerate(ranked):
        row.place = i + 1
        neighbours = ranked[max(0, i - 1):i] + ranked[i + 1:i + 2]
        row.by_lot = any(n.chain(n.total) == row.chain(row.total) for n in neighbours)
    return ranked


@dataclass
class TournamentTable:
    tournament: str
    rows: list[Standing]
    seed: int
    finalists: list[str]
    winners: list[str]
    """The winning side of the final game, by seat (§5.1–5.2); empty before the final."""
    games: int
    final_played: bool
    multiplier: float


def build_table(protocols: list[Protocol], settings: Mapping[str, Any] | None = None,
                seed: int = 0) -> TournamentTable:
    s = validate_settings(settings)
    qualifying = standings(protocols, s, seed, final_games=False)
    finalists = [r.name for r in qualifying[:s["finalists"]]]
    chosen = {_key(n) for n in finalists}
    rows = standings(protocols, s, seed)
    for row in rows:
        row.finalist = _key(row.name) in chosen
    finals = [p for p in protocols if p.final]
    winners = []
    if finals:
        last = finals[-1]
        winners = [p.name for p in last.players if _won(last, p.role)]
    name = protocols[0].tournament if protocols else ""
    return TournamentTable(name, rows, seed, finalists, winners, len(protocols), bool(finals),
                           s["final_multiplier"])


def load_folder(folder: str | Path, settings: Mapping[str, Any] | None = None) -> list[Protocol]:
    """Every ``*.json`` protocol of ``folder`` (sorted by file name), validated.

    The same game at the same table in two files is refused.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise ProtocolError("", Text("protocols.folder_not_found") if not folder.exists() else Text("protocols.not_a_folder"), str(folder))
    files = sorted(folder.glob("*.json"))
    if not files:
        raise ProtocolError("", Text("protocols.no_files", folder=str(folder)))
    protocols = []
    seen: dict[tuple, Path] = {}
    for path in files:
        protocol = load(path, settings)
        key = (protocol.final, protocol.stage, protocol.game, protocol.table)
        if key in seen:
            raise ProtocolError("game", f"game {protocol.game} at table {protocol.table} ({protocol.stage}) "
                                        f"is also in {seen[key].name}", str(path))
        seen[key] = path
        protocols.append(protocol)
    protocols.sort(key=lambda p: (p.final, p.date, p.game, p.table))
    return protocols


# --------------------------------------------------------------------------
# output

COLUMNS = ("place", "name", "games", "wins", "wins_don_commissar", "extra", "disqualifications",
           "qualifying", "final", "total", "finalist", "lot")




def _labels(lang: str, table: TournamentTable) -> dict[str, str]:
    L = labels("tournament", lang)
    L["final"] = L["final"].format(m=fmt_points(table.multiplier, lang == "ru"))
    return L


def _cells(row: Standing, table: TournamentTable, L: Mapping[str, str], comma: bool) -> list[str]:
    return [str(row.place), row.name, str(row.games), str(row.wins), str(row.wins_don_commissar),
            fmt_points(row.extra, comma), str(row.disqualifications), fmt_points(row.qualifying, comma),
            fmt_points(row.final, comma) if table.final_played else "", fmt_points(row.total, comma),
            L["yes"] if row.finalist else "", str(table.seed) if row.by_lot else ""]


def lot_line(table: TournamentTable, L: Mapping[str, str]) -> str:
    """What the lot did, in the host's words: which number decided tied places and how to draw
    the same again; or that no lot was needed (the drawn number then changes nothing)."""
    if any(row.by_lot for row in table.rows):
        return L["seed"].format(seed=table.seed)
    return L["seed_unused"]


def to_csv(table: TournamentTable, lang: str = "ru") -> str:
    """The table as CSV (comma-separated, a header row of labels).  The "lot"
    column holds the lot's seed on the rows whose place the lot decided."""
    L = _labels(lang, table)
    buf = io.StringIO()
    writer = cells.writer(buf, lineterminator="\n")
    writer.writerow([L[c] for c in COLUMNS])
    for row in table.rows:
        writer.writerow(_cells(row, table, L, comma=False))
    return buf.getvalue()


def to_text(table: TournamentTable, lang: str = "ru") -> str:
    """The table for the terminal, aligned columns, plus finalists and seed."""
    L = _labels(lang, table)
    comma = lang == "ru"
    head = [L[c] for c in COLUMNS]
    body = [_cells(r, table, L, comma) for r in table.rows]
    widths = [max(len(x) for x in col) for col in zip(head, *body)]
    lines = [f"{L['title']}: {table.tournament}", L["games_n"].format(n=table.games), ""]
    for cells in [head] + body:
        lines.append("  ".join(c.ljust(w) if i == 1 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip())
    lines += ["", L["finalists"].format(n=len(table.finalists), names=", ".join(table.finalists))]
    if table.winners:
        lines.append(L["winners"].format(names=", ".join(table.winners)))
    lines.append(lot_line(table, L))
    return "\n".join(lines) + "\n"


def to_html(table: TournamentTable, lang: str = "ru") -> str:
    """A printable HTML page of the table, every value escaped."""
    L = _labels(lang, table)
    e = html.escape
    comma = lang == "ru"
    out = [f'<!DOCTYPE html>\n<html lang="{e(lang)}">\n<head>\n<meta charset="utf-8">',
           f"<title>{e(L['title'])} — {e(table.tournament)}</title>",
           f"<style>{CSS}\ntr.finalist td {{ font-weight: bold; }}</style>\n</head>\n<body>",
           f"<h1>{e(L['title'])}</h1>", f"<p>{e(table.tournament)}</p>",
           f"<p>{e(L['games_n'].format(n=table.games))}</p>",
           "<table>\n<thead><tr>" + "".join(f"<th>{e(L[c])}</th>" for c in COLUMNS) + "</tr></thead>\n<tbody>"]
    for row in table.rows:
        cells = _cells(row, table, L, comma)
        cls = ' class="finalist"' if row.finalist else ""
        out.append(f"<tr{cls}>" + "".join(
            (f"<td>{e(c)}</td>" if i == 1 else f'<td class="num">{e(c)}</td>') for i, c in enumerate(cells))
            + "</tr>")
    out.append("</tbody>\n</table>")
    out.append(f"<p>{e(L['finalists'].format(n=len(table.finalists), names=', '.join(table.finalists)))}</p>")
    if table.winners:
        out.append(f"<p><strong>{e(L['winners'].format(names=', '.join(table.winners)))}</strong></p>")
    out.append(f"<p>{e(lot_line(table, L))}</p>\n</body>\n</html>\n")
    return "\n".join(out)


# --------------------------------------------------------------------------
# command line


def _settings(args) -> dict:
    if getattr(args, "config", None):

        raw = dict(configs.load(args.config)["mafia"])
    else:
        raw = {}
    if getattr(args, "finalists", None) is not None:
        raw["finalists"] = args.finalists
    return validate_settings(raw)


def _write(path: str, text: str) -> None:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ProtocolError("", f"cannot write {path}: {exc.strerror}") from None


def tournament_command(args) -> int:
    """``buzzer tournament FOLDER``: print the table, export CSV/HTML."""
    settings = _settings(args)
    protocols = load_folder(args.folder, settings)
    seed = args.seed if args.seed is not None else secrets.randbelow(10**6)
    table = build_table(protocols, settings, seed)
    sys.stdout.write(to_text(table, args.lang))
    if args.csv:
        _write(args.csv, to_csv(table, args.lang))
    if args.html:
        _write(args.html, to_html(table, args.lang))
    if args.polemica:
        rows = polemica.table_json(protocols, [r.name for r in table.rows], settings)
        _write(args.polemica, json.dumps(rows, ensure_ascii=False, indent=1) + "\n")
    return 0


def protocol_command(args) -> int:
    """``buzzer protocol check|html|protest``.  What it prints is in ``--lang``, else the
    language of ``--config``, else Russian; ``FILE: ok`` of ``check`` stays as it is for scripts."""
    settings = _settings(args)
    if args.lang is None:
        args.lang = configs.load(args.config)["language"] if getattr(args, "config", None) else DEFAULT_LANG
    lang = args.lang
    if args.action == "check":
        for path in args.files:
            p = load(path, settings)
            words = ", ".join([t("protocol_cli.game", lang, game=p.game), t("protocol_cli.table", lang, table=p.table),
                               tn("check.seats_n", p.seats, lang), p.stage,
                               t("town_wins" if p.winner == "town" else "mafia_wins", lang)])
            print(f"{path}: ok ({words})")
        return 0
    if args.action == "polemica":
        path = args.files[0]
        out = args.output or str(Path(path).with_suffix(".polemica.json"))
        game = polemica.game_json(load(path, settings), settings, source=str(path))
        _write(out, json.dumps(game, ensure_ascii=False, indent=1) + "\n")
        print(out)
        return 0
    if args.action == "html":
        path = args.files[0]
        out = args.output or str(Path(path).with_suffix(".html"))
        _write(out, render_html(load(path, settings), args.lang, settings))
        print(out)
        return 0
    # protest
    if not args.text:
        raise ProtocolError("--text", "a protest needs its text")
    path = args.files[0]
    protocol = load(path, settings)
    if args.at:

        at = parse_time(args.at, "--at")
    else:
        at = dt.datetime.now()
        if protocol.ended_at and dt.datetime.fromisoformat(protocol.ended_at).tzinfo is not None:
            at = at.astimezone()
    try:
        entered = add_protest(protocol, args.text, at, args.seat, settings)
    except ProtocolError as exc:
        if exc.source is not None:
            raise
        # the protest is refused by what the protocol says (its end time, its seats): name the file
        raise ProtocolError(exc.field, exc.problem, str(path), reason=exc.reason, params=exc.params) from None
    save(entered, path)
    print(t("protocol_cli.protest_entered", lang, path=path, at=at.isoformat(timespec="seconds")))
    return 0


def _tournament_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("folder", help="folder of protocol JSON files")
    p.add_argument("--csv", metavar="OUT", help="also write the table as CSV")
    p.add_argument("--html", metavar="OUT", help="also write the table as a printable HTML page")
    p.add_argument("--polemica", metavar="OUT", help="also write the table as the Polemica platform's JSON "
                   "(docs/exports.md)")
    p.add_argument("--seed", type=int, help="seed of the lot for full ties (default: drawn and printed)")
    p.add_argument("--finalists", type=int, help="number of finalists (default: mafia.finalists, 10)")
    p.add_argument("--config", "-c", metavar="FILE", help="config file with a [mafia] section (its "
                   "seats: the table of a protocol that does not record its own)")
    p.add_argument("--lang", choices=LANGUAGES, default="ru", help="language of labels (default ru)")


def _protocol_arguments(q: argparse.ArgumentParser) -> None:
    q.add_argument("action", choices=("check", "html", "protest", "polemica"))
    q.add_argument("files", nargs="+", metavar="FILE", help="protocol JSON file(s)")
    q.add_argument("-o", "--output", help="html, polemica: output file (default: FILE with .html, "
                   ".polemica.json)")
    q.add_argument("--text", help="protest: its text")
    q.add_argument("--seat", type=int, help="protest: seat of the player who enters it")
    q.add_argument("--at", help="protest: time of the entry, ISO 8601 (default: now)")
    q.add_argument("--config", "-c", metavar="FILE", help="config file with a [mafia] section (its "
                   "seats: the table of a protocol that does not record its own)")
    q.add_argument("--lang", choices=LANGUAGES, help="language of the output and the page "
                   "(default: the --config's, else ru)")
    q.set_defaults(finalists=None)


TOURNAMENT = Command("tournament", "«Мафия»: the tournament table from a folder of game protocols",
                     _tournament_arguments, tournament_command)
PROTOCOL = Command("protocol", "«Мафия»: check a game protocol, print it as HTML, enter a protest, "
                   "export it to Polemica's JSON", _protocol_arguments, protocol_command)
