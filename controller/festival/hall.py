"""A hall on the festival: ``buzzer run`` with ``[festival] broker`` set, and
``buzzer simulate SCRIPT --festival URL --hall NAME`` (a rehearsal of the same).

The loop journals every event before it takes effect; :class:`OutboxJournal`
wraps the loop's journal so that each event, once written, is handed on for
publishing: in ``buzzer run`` to :class:`~controller.festival.outbox.OutboxProcess`
(a child process that reads the journal file and runs the
:class:`~controller.festival.publisher.Publisher`; the loop only counts and nudges
it), in ``simulate --festival`` to a Publisher thread (a queue put).  The loop
never waits for the network.  The link's state comes back to the loop as an
:class:`~controller.core.events.InputStatus` with source ``festival`` through the
loop's one input sink: the screen's status corner shows it, and a refused
password or an unreachable broker is one line for the host.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

from controller.sessions import journal as journal_mod
from controller.sessions import script as script_mod
from controller.core.errors import BuzzerError, ConfigError
from controller.core.events import InputStatus
from controller.core.part import Part
from controller.festival import auth, link
from controller.festival.outbox import OutboxProcess
from controller.festival.publisher import Publisher, game_id_of
from controller.i18n import t, tn

log = logging.getLogger(__name__)

CLOSE_TIMEOUT_S = 5.0
"""At the end of ``buzzer run``, how long the hall waits for the broker's last acknowledgements
(what is left is sent after the next start, from the journal)."""


def broker_of(fest: dict, url: str | None = None, option: str | None = None) -> link.Broker:
    """The broker, with the user name and password of the environment, the credentials file or
    the config (:func:`controller.festival.auth.credentials`).  ``option``: ``url`` came from
    the command line (``--broker``, ``--festival``): a password in it is refused."""
    if option:
        problem = auth.cli_url_problem(option, url)
        if problem:
            raise ConfigError(option, problem)
    username, password = auth.credentials(fest)
    try:
        return link.parse_url(url or fest["broker"], username, password)
    except ValueError as exc:
        raise ConfigError("festival.broker", str(exc)) from None


def publisher_options(fest: dict, hall: str) -> dict:
    """The hall's key and its replay bounds, for the Publisher."""
    return {"key": auth.hall_key(fest, hall), "replay_max": fest["replay_max_events"],
            "replay_window_events": fest["replay_window_events"],
            "replay_requests": fest["replay_requests_per_minute"]}


def state_dir(cfg: dict) -> Path:
    """Where the acknowledged watermarks live: next to the journals."""
    return Path(cfg["journal"]["dir"]) / "festival"


class OutboxJournal:
    """The loop's journal, and every event written to it handed on to the publisher."""

    def __init__(self, inner, publisher: Publisher):
        self._inner = inner
        self._publisher = publisher

    def append(self, event: Any) -> None:
        self._inner.append(event)
        self._publisher.offer([event])

    def append_many(self, events) -> None:
        events = list(events)
        self._inner.append_many(events)
        if events:
            self._publisher.offer(events)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def info_of(header: dict) -> dict:
    """What the ``info`` topic says of a game: its mode, config (without ``[festival]``: the
    broker's password stays in the hall) and seed -- what a board needs to replay it."""
    config = {k: v for k, v in (header.get("config") or {}).items() if k != "festival"}
    return {"mode": config.get("mode", ""), "config": config,
            "seed": header.get("seed", 0), "started": str(header.get("started", ""))}


def begin_from_journal(publisher: Publisher, path: Path) -> str:
    """Hand the publisher the game in the journal at ``path``: its id (a hash of the header
    line), its header, every event already journaled (those the broker has not
    acknowledged are sent again)."""
    contents = journal_mod.read(path)
    with open(path, "rb") as f:
        first = f.readline()
    game = game_id_of(first)
    if isinstance(publisher, OutboxProcess):   # the child reads the journal itself
        publisher.begin_journal(game, info_of(contents.header), path, len(contents.events))
    else:
        publisher.begin_game(game, info_of(contents.header),
                             [journal_mod.encode_event(e) for e in contents.events], str(path))
    return game


def attach(loop, cfg: dict) -> OutboxProcess | None:
    """Start publishing the loop's game (and every new game the host starts); None when
    ``[festival] broker`` is not set.  The publisher runs in a child process that reads
    the journal (:mod:`controller.festival.outbox`): the loop shares no GIL with it."""
    fest = cfg.get("festival") or {}
    if not fest.get("broker"):
        return None
    broker = broker_of(fest)
    options = publisher_options(fest, fest["hall"])

    def on_status(connected: bool, text: str) -> None:
        loop.enqueue(InputStatus("festival", connected, text))

    publisher = OutboxProcess(broker, fest["hall"], fest["competition"], state_dir(cfg), prefix=fest["prefix"],
                              standings_interval_s=fest["standings_interval_ms"] / 1000.0,
                              ca_file=fest["ca_file"], on_status=on_status, **options)
    publisher.start()
    loop.add_part(FestivalPart(publisher))
    return publisher


class FestivalPart(Part):
    """The festival link as a part of the loop: the loop's journal is written through the
    outbox (every event handed on to the publisher), a new game begins a new game on the
    link, and the publisher is closed with the program (before the journal is)."""

    def __init__(self, publisher: OutboxProcess):
        self.publisher = publisher
        self.loop: Any = None

    def start(self, loop: Any) -> None:
        self.loop = loop
        begin_from_journal(self.publisher, loop.journal.path)
        loop.wrap_journal(lambda jr: OutboxJournal(jr, self.publisher))

    def new_game(self) -> None:
        if self.loop.journal is not None:   # (the loop wrapped the new game's journal already)
            begin_from_journal(self.publisher, self.loop.journal.path)

    def stop(self) -> None:
        self.publisher.close()
        self.loop.unwrap_journal()


# ---------------------------------------------------------------------------
# buzzer simulate SCRIPT --festival URL --hall NAME [--competition NAME]

def simulate(args, out=sys.stdout, err=sys.stderr) -> int:
    """Play the script as ``buzzer simulate`` does (the same JSON on stdout), journal its
    events as a hall would and publish them; a restart of the same command sends again
    only what the broker has not acknowledged."""
    from controller.cli import print_json

    script = script_mod.load(args.script)
    stepped: list = []
    run = script_mod.run(script, args.config, until=args.until, stepped=stepped)
    cfg = run.config
    fest = cfg["festival"]
    hall = args.hall or fest["hall"]
    competition = args.competition or fest["competition"] or cfg["mode"]
    for key, value in (("--hall", hall), ("--competition", competition)):
        problem = link.name_problem(value or "")
        if problem:
            raise ConfigError(key, problem if value else "needed with --festival")
    broker = broker_of(fest, args.festival, "--festival")
    options = publisher_options(fest, hall)
    records = [journal_mod.encode_event(e) for e in stepped]
    ident = json.dumps({"hall": hall, "competition": competition, "config": cfg, "seed": run.seed,
                        "records": records}, sort_keys=True, ensure_ascii=False).encode("utf-8")
    game = game_id_of(ident)
    folder = state_dir(cfg)
    path = folder / f"simulate-{game}.jsonl"
    header = {"config": cfg, "config_path": args.config, "seed": run.seed, "started": f"simulate {game}"}
    done = 0
    if path.exists():
        contents = journal_mod.read(path)
        done = len(contents.events)
        if [journal_mod.encode_event(e) for e in contents.events] != records[:done]:
            raise BuzzerError(f"{path}: another game's journal under this game's name; move it away")
    jr = journal_mod.Journal(path, header=header, fsync=cfg["journal"]["fsync"],
                             truncate_to=journal_mod.read(path).valid_bytes if path.exists() else None)
    link_state = {"connected_once": False, "problem": ""}
    lang = cfg["language"]

    def on_status(connected: bool, text: str) -> None:
        if connected:
            link_state["connected_once"] = True
            return
        link_state["problem"] = text
        if link_state["connected_once"]:   # a link lost mid-way: said when it happens
            print(f"buzzer: festival: {link.status_words(text, lang)}", file=err, flush=True)
        # never connected (refused, unreachable): said once, in the closing line

    publisher = Publisher(broker, hall, competition, folder, prefix=fest["prefix"],
                          standings_interval_s=fest["standings_interval_ms"] / 1000.0, ca_file=fest["ca_file"],
                          on_status=on_status, **options)
    publisher.start()
    publisher.begin_game(game, info_of(header), records[:done], str(path))
    pace = max(0.0, float(getattr(args, "pace", 0.0) or 0.0))
    for rec in records[done:]:
        ev = journal_mod.decode_event(rec)
        jr.append(ev)          # journaled first: the journal is the outbox
        publisher.offer([rec])
        if pace:
            time.sleep(pace)
    jr.close()
    all_acked = publisher.close(timeout=getattr(args, "festival_timeout", None) or 10.0)
    print_json(script_mod.result(run))
    left = publisher.pending()
    from controller.festival.board import competition_words   # a mode's id is said as its title

    # in the host's language, as every other line of the program (the config's language)
    said = {"game": game, "hall": hall, "competition": competition_words(competition, lang),
            "events": tn("events_n", len(records), lang)}
    if not link_state["connected_once"]:
        # the broker never took the connection: nothing went out, whatever paho queued
        problem = link.status_words(link_state["problem"] or f"{broker.url}: no answer", lang)
        rest = t("festival.sim.kept", lang, n=left) if left else t("festival.sim.acked_before", lang)
        print("buzzer: festival: " + t("festival.sim.none_sent", lang, problem=problem, rest=rest, **said),
              file=err, flush=True)
        return 1
    acked = t("festival.sim.all_acked", lang) if all_acked else t("festival.sim.not_acked", lang, n=left)
    print("buzzer: festival: " + t("festival.sim.sent", lang, sent=publisher.published, resent=publisher.resent,
                                   acked=acked, **said), file=err, flush=True)
    return 0 if all_acked else 1
