"""What a festival board knows: every hall's games, each event counted once.

:class:`Festival` takes the messages of the festival topics (:meth:`Festival.handle`)
and keeps, per (competition, hall, game):

* the game's header (``info``: mode, config, seed) -- retained on the broker;
* its events, de-duplicated by seq and applied in seq order to a replica of the
  game (the engine is pure: the same events give the hall's state); an event
  past a hole waits, and the hole is asked for again (:meth:`Festival.requests`,
  a replay request the hall answers from its journal);
* the latest standings message (retained): what a board started late, or a
  board whose hall has gone home, shows.

A game's result is the replica's when it has every event up to the standings the
hall last published, else those standings as published.  A malformed or foreign
message is logged and ignored (:class:`~controller.festival.link.BadMessage`):
it changes nothing.
"""

from __future__ import annotations

import collections
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from controller.core import engine
from controller.core.errors import GameError
from controller.festival import link
from controller.app.journal import decode_event

log = logging.getLogger(__name__)

MAX_GAMES = 10000
"""Games a board keeps at most (a flood of foreign game ids cannot exhaust it)."""
MAX_PENDING = 200000
"""Events past a hole one game keeps waiting at most."""
REQUEST_EVERY_S = 1.0
BEHIND_S = 0.5
"""A game behind its standings this long (no event filled it) asks for a replay."""


@dataclass
class Game:
    competition: str
    hall: str
    id: str
    info: dict | None = None
    pending: dict[int, dict] = field(default_factory=dict)
    contiguous: int = 0
    state: Any = None
    broken: bool = False
    snapshot: dict | None = None
    duplicates: int = 0
    behind_since: float | None = None
    last_request: float = 0.0
    first_seen: float = 0.0
    _summary: dict | None = None

    @property
    def known(self) -> bool:
        """Whether the board can show anything of it (header or standings seen)."""
        return self.info is not None or self.snapshot is not None

    @property
    def target(self) -> int:
        """The highest seq the board knows exists."""
        return max(self.snapshot["seq"] if self.snapshot else 0, max(self.pending, default=0))

    @property
    def complete(self) -> bool:
        """Every event up to the hall's last standings is here and applied."""
        return (self.info is not None and not self.broken and self.state is not None
                and self.contiguous >= self.target)

    def summary(self) -> dict | None:
        if self.complete and self.contiguous > 0:
            if self._summary is None:
                try:
                    self._summary = engine.summary(self.state)
                except Exception as exc:
                    log.warning("festival: game %s/%s/%s: no summary: %s", self.competition, self.hall, self.id, exc)
                    self.broken = True
                    return self.snapshot.get("summary") if self.snapshot else None
            return self._summary
        return self.snapshot.get("summary") if self.snapshot else None


class Festival:
    """The aggregated festival (a board's model); not thread-safe: one thread handles it."""

    def __init__(self, prefix: str = link.DEFAULT_PREFIX, clock=time.monotonic):
        self.prefix = prefix
        self.clock = clock
        self.games: dict[tuple[str, str, str], Game] = {}
        self.online: dict[tuple[str, str], bool] = {}
        self.ignored = 0
        self.accepted = 0
        self.duplicates = 0
        self.latencies: collections.deque = collections.deque(maxlen=200000)
        self.changed = True

    # -- input --------------------------------------------------------------------------
    def handle(self, topic: str, payload: bytes, received: float | None = None) -> bool:
        """One message; False (logged) if it was malformed or foreign and ignored."""
        try:
            competition, hall, game_id, kind, body = link.parse(self.prefix, topic, payload)
            if kind == "replay":
                return True   # another board's request
            if kind == "status":
                self.online[(competition, hall)] = body["online"]
                self.changed = True
                return True
            g = self._game(competition, hall, game_id)
            if kind == "info":
                self._info(g, body)
            elif kind == "events":
                self._event(g, body, received)
            else:
                self._standings(g, body)
        except link.BadMessage as exc:
            self.ignored += 1
            log.info("festival: ignored a message on %r: %s", topic[:80], exc)
            return False
        self.accepted += 1
        self.changed = True
        return True

    def _game(self, competition: str, hall: str, game_id: str) -> Game:
        key = (competition, hall, game_id)
        g = self.games.get(key)
        if g is None:
            if len(self.games) >= MAX_GAMES:
                raise link.BadMessage("too many games")
            g = self.games[key] = Game(competition, hall, game_id, first_seen=self.clock())
        return g

    def _info(self, g: Game, body: dict) -> None:
        if g.info is not None:
            return   # a game's header does not change (sent again after each reconnect)
        try:
            state = engine.new_game(body["config"], body["seed"])
        except Exception as exc:   # a config this program cannot play: the standings as published
            log.warning("festival: game %s/%s/%s cannot be replayed: %s", g.competition, g.hall, g.id, exc)
            g.broken = True
            state = None
        g.info = {k: body[k] for k in ("mode", "config", "seed", "started") if k in body}
        g.state = state
        self._advance(g)

    def _event(self, g: Game, body: dict, received: float | None) -> None:
        seq = body["seq"]
        if seq <= g.contiguous or seq in g.pending:
            g.duplicates += 1
            self.duplicates += 1
            return
        try:
            decode_event(body["event"])
        except (KeyError, ValueError, TypeError) as exc:
            raise link.BadMessage(f"not an event: {exc}") from None
        if len(g.pending) >= MAX_PENDING:
            raise link.BadMessage("too many events past a hole")
        g.pending[seq] = body["event"]
        sent = body.get("t")
        if isinstance(sent, (int, float)) and not isinstance(sent, bool):
            self.latencies.append((received if received is not None else time.time()) - sent)
        self._advance(g)

    def _standings(self, g: Game, body: dict) -> None:
        if g.snapshot is not None and body["seq"] < g.snapshot["seq"]:
            return   # an older one (sent again after a reconnect, or delayed)
        g.snapshot = {k: body[k] for k in ("seq", "mode", "finished", "standings", "summary", "view", "t")
                      if k in body}
        g._summary = None

    def _advance(self, g: Game) -> None:
        if g.state is None or g.broken:
            return
        while g.contiguous + 1 in g.pending:
            record = g.pending.pop(g.contiguous + 1)
            g.contiguous += 1
            try:
                g.state, _ = engine.step(g.state, decode_event(record))
            except GameError:
                pass   # refused at the hall too: the state did not change
            except Exception as exc:
                log.warning("festival: game %s/%s/%s: replay stopped at %d: %s",
                            g.competition, g.hall, g.id, g.contiguous, exc)
                g.broken = True
                return
            g._summary = None

    # -- replay requests --------------------------------------------------------------
    def requests(self) -> list[tuple[str, bytes]]:
        """Replay requests due now: (topic, payload) for each game missing events for a while."""
        now = self.clock()
        out = []
        for g in self.games.values():
            if g.info is None or g.broken or g.contiguous >= g.target:
                g.behind_since = None
                continue
            if g.behind_since is None:
                g.behind_since = now
            hole = bool(g.pending) and min(g.pending) > g.contiguous + 1
            if (now - g.behind_since >= BEHIND_S or hole) and now - g.last_request >= REQUEST_EVERY_S:
                g.last_request = now
                upto = min(g.pending) - 1 if hole else g.target
                body = {"hall": g.hall, "competition": g.competition, "game": g.id,
                        "from": g.contiguous + 1, "to": upto}
                out.append((link.topic(self.prefix, g.competition, g.hall, "replay"), link.encode(body)))
        return out

    # -- output -------------------------------------------------------------------------
    def ordered(self) -> list[Game]:
        games = [g for g in self.games.values() if g.known]
        return sorted(games, key=lambda g: (g.competition, g.hall, (g.info or {}).get("started", ""),
                                            g.first_seen, g.id))

    def results(self) -> dict:
        """``{"competitions": [{"name", "hall", "game", "finished", "standings", ...}]}``."""
        out = []
        for g in self.ordered():
            summary = g.summary()
            if summary is None:
                continue
            out.append({"name": g.competition, "hall": g.hall, "game": g.id,
                        "finished": link.finished_of(summary), "standings": link.standings_of(summary),
                        "mode": summary.get("mode", (g.info or {}).get("mode", "")),
                        "seq": g.contiguous if g.complete else (g.snapshot or {}).get("seq", 0),
                        "from": "events" if g.complete else "standings"})
        return {"competitions": out}

    def settled(self) -> bool:
        """Every game seen has its events up to its standings (nothing to wait for)."""
        return all(g.complete or g.broken or (g.info is None and g.snapshot is None) for g in self.games.values()
                   if g.known)

    def finished_games(self) -> int:
        n = 0
        for g in self.games.values():
            s = g.summary() if g.known else None
            if s is not None and link.finished_of(s) and g.complete:
                n += 1
        return n

    def finished_by_standings(self) -> int:
        """Games finished by their hall's standings, but not complete: their events did not
        all come (a board started after the hall went away), so ``--games`` does not count them."""
        n = 0
        for g in self.games.values():
            s = g.summary() if g.known else None
            if s is not None and link.finished_of(s) and not g.complete:
                n += 1
        return n

    def halls(self) -> list[dict]:
        """The board's line per hall: its latest game, that game's headline, online or not."""
        latest: dict[tuple[str, str], Game] = {}
        for g in self.ordered():
            latest[(g.competition, g.hall)] = g
        out = []
        for (competition, hall), g in sorted(latest.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            summary = g.summary() or {}
            out.append({"competition": competition, "hall": hall, "game": g.id,
                        "mode": summary.get("mode", (g.info or {}).get("mode", "")),
                        "finished": link.finished_of(summary), "headline": link.headline(summary),
                        "standings": link.standings_of(summary), "complete": g.complete,
                        "online": self.online.get((competition, hall))})
        return out


# ---------------------------------------------------------------------------
# a board's connection: every festival topic into a Festival

class Listener:
    """Subscribes to every festival topic; :meth:`pump` (the board's thread) hands the
    messages to :attr:`festival` and sends the replay requests it has due.

    ``client_id``: a fixed id keeps the board's session on the broker (QoS 1 events
    are queued for it while it is away); None: a fresh session."""

    def __init__(self, broker: link.Broker, prefix: str = link.DEFAULT_PREFIX, ca_file: str = "",
                 client_id: str | None = None):
        import queue

        self.broker = broker
        self.prefix = prefix
        self.festival = Festival(prefix)
        self.inbox: queue.SimpleQueue = queue.SimpleQueue()
        self.connected = False
        self.subscribed = False
        self.problem = ""
        self.last_message = 0.0
        self.subscribed_at = 0.0
        self.client = link.client(broker, client_id=client_id, clean=client_id is None, ca_file=ca_file)
        self.client.on_connect = self._on_connect
        self.client.on_connect_fail = self._on_connect_fail
        self.client.on_disconnect = self._on_disconnect
        self.client.on_subscribe = self._on_subscribe
        self.client.on_message = self._on_message

    def _on_connect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if reason_code.is_failure:
            self.problem = f"{self.broker.url}: {link.reason_text(reason_code)}"
            self.connected = False
            return
        self.connected = True
        self.problem = ""
        client.subscribe(self.prefix + "/#", qos=1)

    def _on_connect_fail(self, client, userdata) -> None:
        self.problem = f"{self.broker.url}: unreachable"

    def _on_disconnect(self, client, userdata, flags, reason_code, properties=None) -> None:
        self.connected = False
        self.subscribed = False
        if not self.problem:
            self.problem = f"{self.broker.url}: connection lost"

    def _on_subscribe(self, client, userdata, mid, reason_codes, properties=None) -> None:
        self.subscribed_at = time.monotonic()
        self.subscribed = True

    def _on_message(self, client, userdata, msg) -> None:
        self.inbox.put((msg.topic, msg.payload, time.time()))

    def start(self) -> None:
        try:
            self.client.connect_async(self.broker.host, self.broker.port, keepalive=10)
        except (OSError, ValueError) as exc:
            self.problem = f"{self.broker.url}: {exc}"
        self.client.loop_start()

    def pump(self, wait_s: float = 0.0, limit: int = 100000) -> int:
        """Take the messages that came (waiting up to ``wait_s`` for the first); send due requests."""
        import queue

        n = 0
        try:
            item = self.inbox.get(timeout=wait_s) if wait_s > 0 else self.inbox.get_nowait()
        except queue.Empty:
            item = None
        while item is not None and n < limit:
            self.festival.handle(*item)
            n += 1
            try:
                item = self.inbox.get_nowait()
            except queue.Empty:
                item = None
        if n:
            self.last_message = time.monotonic()
        if self.connected:
            for topic_name, payload in self.festival.requests():
                self.client.publish(topic_name, payload, qos=1)
        return n

    def close(self) -> None:
        try:
            self.client.disconnect()
        except (RuntimeError, OSError, ValueError):
            pass
        self.client.loop_stop()

    def collect(self, wait_s: float, games: int = 0, quiet_s: float = 0.5) -> "Waited | None":
        """Listen until every game is settled (its events up to its standings, or nothing
        more to expect) and at least ``games`` games are finished, or ``wait_s`` passed.
        Returns None when it was so before the time ran out, else what it had then (:class:`Waited`).
        Raises BuzzerError if the broker cannot be reached or refuses."""
        from controller.core.errors import BuzzerError

        start = time.monotonic()
        deadline = start + wait_s
        while time.monotonic() < deadline:
            self.pump(0.05)
            now = time.monotonic()
            if not self.subscribed:
                if self.problem and not self.subscribed_at and now - start > min(3.0, wait_s):
                    raise BuzzerError(f"festival: {self.problem}")
                continue
            if (now - max(self.last_message, self.subscribed_at) >= quiet_s and self.festival.settled()
                    and self.festival.finished_games() >= games):
                return None
        if not self.subscribed_at:
            raise BuzzerError(f"festival: {self.problem or self.broker.url + ': no answer'}")
        return Waited(wait_s=wait_s, games=games, finished=self.festival.finished_games(),
                      by_standings=self.festival.finished_by_standings(),
                      problem="" if self.subscribed else (self.problem or f"{self.broker.url}: connection lost"))


@dataclass(frozen=True)
class Waited:
    """What :meth:`Listener.collect` had when its time ran out."""

    wait_s: float
    games: int
    """Finished games asked for (``--games``; 0: none)."""
    finished: int
    """Finished games with every event (what ``--games`` counts)."""
    by_standings: int
    """Games finished by their hall's retained standings whose events did not all come."""
    problem: str
    """The broker link's problem at the end ("" while connected)."""
