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

With the organiser's keys (``keys``, :mod:`controller.festival.auth`) only messages a
hall's own key signed are taken; every other one is refused, counted by reason
(:attr:`Festival.refused`) and changes nothing.  The messages a board keeps are bounded
in bytes (``game_bytes`` per game, ``total_bytes`` in all): past them a message is
refused the same way (``memory``).  A finished game with every event keeps its
summary and header only (its replica is let go), and so does a game its hall *left*
unfinished (the host started another game: the hall's latest new event is a later game's)
once it has every event and has been quiet :data:`SETTLE_QUIET_S`; an event past the
standings it was settled on (the journal goes on after the finish) has it played again
from its header, its events asked for again from the hall.
"""

from __future__ import annotations

import collections
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from controller.games import engine
from controller.core.errors import GameError
import json

from controller.festival import auth, link
from controller.sessions.journal import decode_event

log = logging.getLogger(__name__)

MAX_GAMES = 10000
"""Games a board keeps at most (a flood of foreign game ids cannot exhaust it)."""
MAX_PENDING = 200000
"""Events past a hole one game keeps waiting at most."""
MB = 1024 * 1024
TOO_LARGE = "too_large"
MEMORY = "memory"
MALFORMED = "malformed"
REQUEST_EVERY_S = 1.0
BEHIND_S = 0.5
"""A game behind its standings this long (no event filled it) asks for a replay."""
SETTLE_QUIET_S = 5.0
"""A finished game with every event (or one its hall left for another) lets its replica go
once nothing came for it this long (the events a hall journals after the finish, which may
come after the finished standings, are then applied at once, with no replay)."""


@dataclass
class Game:
    competition: str
    hall: str
    id: str
    info: dict | None = None
    pending: dict[int, bytes] = field(default_factory=dict)
    """Events past a hole: the message's canonical bytes (what they cost is what is counted)."""
    contiguous: int = 0
    state: Any = None
    broken: bool = False
    snapshot: dict | None = None
    duplicates: int = 0
    behind_since: float | None = None
    last_request: float = 0.0
    first_seen: float = 0.0
    _summary: dict | None = None
    _table: dict | None = None
    info_bytes: int = 0
    snapshot_bytes: int = 0
    """The latest standings message's bytes; once the game is settled (:attr:`done`), its summary's."""
    pending_bytes: int = 0
    done: bool = False
    """Settled (finished, or left by its hall, with every event): its summary is kept, its replica let go."""
    changed_at: float = 0.0
    """When its latest event or standings came (the board's clock)."""

    @property
    def bytes(self) -> int:
        return self.info_bytes + self.snapshot_bytes + self.pending_bytes

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
        return (self.info is not None and not self.broken and (self.state is not None or self.done)
                and self.contiguous >= self.target)

    def summary(self) -> dict | None:
        if self.done:
            return self._summary
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

    def table(self) -> dict | None:
        """The game's table as a board draws it (:func:`controller.festival.link.table_of`): the
        replica's when it has every event (as :meth:`summary`), else the one its hall published
        last; None from a hall older than the table, which publishes its standings only."""
        if not self.done and self.complete and self.contiguous > 0 and self.state is not None:
            if self._table is None:
                lang = ((self.info or {}).get("config") or {}).get("language") or "ru"
                self._table = link.table_of_state(self.state, lang)
            if self._table is not None:
                return self._table
        if self.done and self._table is not None:
            return self._table
        return self.snapshot.get("table") if self.snapshot else None


class Festival:
    """The aggregated festival (a board's model); not thread-safe: one thread handles it."""

    def __init__(self, prefix: str = link.DEFAULT_PREFIX, clock=time.monotonic,
                 keys: dict[str, auth.HallKey] | None = None, accept_unsigned: bool = False,
                 game_bytes: int = 16 * MB, total_bytes: int = 128 * MB):
        self.prefix = prefix
        self.clock = clock
        self.keys = keys
        self.accept_unsigned = accept_unsigned
        self.game_bytes = int(game_bytes)
        self.total_bytes = int(total_bytes)
        self.bytes = 0
        """The bytes of every message kept (headers, standings, events waiting past a hole)."""
        self.refused: collections.Counter = collections.Counter()
        """Messages refused, by reason (auth.UNSIGNED ..., TOO_LARGE, MEMORY, MALFORMED)."""
        self.last_refused: tuple[str, str, str] | None = None
        """(reason, hall, topic) of the latest refusal."""
        self.games: dict[tuple[str, str, str], Game] = {}
        self.latest: dict[tuple[str, str], Game] = {}
        """Per (competition, hall): the game its latest new event was for."""
        self.online: dict[tuple[str, str], bool] = {}
        self.ignored = 0
        self.accepted = 0
        self.duplicates = 0
        self.latencies: collections.deque = collections.deque(maxlen=20000)
        self.changed = True
        self.requester = ""
        """The board's name in its replay requests (a hall counts its requests per board)."""

    # -- input --------------------------------------------------------------------------
    def handle(self, topic: str, payload: bytes, received: float | None = None) -> bool:
        """One message; False (logged, counted in :attr:`refused`) if it was refused: malformed,
        foreign, not signed by its hall's key, too large, past the memory caps."""
        hall = ""
        try:
            competition, hall, game_id, kind = link.split_topic(self.prefix, topic)
            if kind == "replay":
                return True   # a board's request (signed with the hall's key: not ours to check)
            if len(payload) > link.MAX_PAYLOAD or (kind == "events" and len(payload) > link.EVENT_MAX):
                raise auth.Refused(TOO_LARGE, f"{len(payload)} bytes")
            if self.keys is not None:
                payload, _ = auth.verify(self.keys, topic, hall, payload, self.accept_unsigned)
            competition, hall, game_id, kind, body = link.parse(self.prefix, topic, payload)
            if kind == "status":
                self.online[(competition, hall)] = body["online"]
                self.changed = True
                return True
            g = self._game(competition, hall, game_id)
            if kind == "info":
                self._info(g, body, len(payload))
            elif kind == "events":
                self._event(g, body, received, payload)
            else:
                self._standings(g, body, len(payload))
        except (link.BadMessage, auth.Refused) as exc:
            reason = getattr(exc, "reason", MALFORMED)
            self.ignored += 1
            self.refused[reason] += 1
            self.last_refused = (reason, hall, topic)
            self.changed = True
            (log.warning if reason != MALFORMED else log.info)(
                "festival: refused a message on %r (%s): %s", topic[:80], reason, exc)
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

    def _room(self, g: Game, more: int, less: int = 0) -> None:
        """Refuse a message that would keep the game's or the board's bytes past their caps."""
        if g.bytes - less + more > self.game_bytes or self.bytes - less + more > self.total_bytes:
            raise auth.Refused(MEMORY, f"{more} bytes more: past the memory caps ({g.bytes} of "
                               f"{self.game_bytes} for the game, {self.bytes} of {self.total_bytes} in all)")

    def _info(self, g: Game, body: dict, size: int) -> None:
        if g.info is not None:
            return   # a game's header does not change (sent again after each reconnect)
        self._room(g, size)
        g.info_bytes = size
        self.bytes += size
        try:
            state = engine.new_game(body["config"], body["seed"])
        except Exception as exc:   # a config this program cannot play: the standings as published
            log.warning("festival: game %s/%s/%s cannot be replayed: %s", g.competition, g.hall, g.id, exc)
            g.broken = True
            state = None
        g.info = {k: body[k] for k in ("mode", "config", "seed", "started") if k in body}
        g.state = state
        self._advance(g)

    def _event(self, g: Game, body: dict, received: float | None, raw: bytes) -> None:
        seq = body["seq"]
        if seq <= g.contiguous or seq in g.pending:
            g.duplicates += 1
            self.duplicates += 1
            return
        try:
            decode_event(body["event"])
        except (KeyError, ValueError, TypeError) as exc:
            raise link.BadMessage(f"not an event: {exc}") from None
        if g.done:
            self._reopen(g)   # an event after the finish the game was settled on
        if len(g.pending) >= MAX_PENDING:
            raise auth.Refused(MEMORY, "too many events past a hole")
        self._room(g, len(raw))
        self._changed(g, event=True)
        g.pending[seq] = raw
        g.pending_bytes += len(raw)
        self.bytes += len(raw)
        sent = body.get("t")
        if isinstance(sent, (int, float)) and not isinstance(sent, bool):
            self.latencies.append((received if received is not None else time.time()) - sent)
        self._advance(g)

    def _standings(self, g: Game, body: dict, size: int) -> None:
        if g.snapshot is not None and body["seq"] < g.snapshot["seq"]:
            return   # an older one (sent again after a reconnect, or delayed)
        if g.done:
            if body["seq"] <= g.contiguous:
                return   # finished with every event: the replica's summary is the result
            self._reopen(g)   # the hall went on past the standings the game was settled on
        self._room(g, size, g.snapshot_bytes)
        self._changed(g)
        self.bytes += size - g.snapshot_bytes
        g.snapshot_bytes = size
        g.snapshot = {k: body[k] for k in ("seq", "mode", "finished", "standings", "summary", "view", "table",
                                            "t") if k in body}
        g._summary = None
        g._table = None
        self._settle(g)

    def _changed(self, g: Game, event: bool = False) -> None:
        g.changed_at = self.clock()
        if event:   # (not standings: a left game's last ones may come after the next game's first event)
            self.latest[(g.competition, g.hall)] = g

    def left(self, g: Game) -> bool:
        """Whether ``g``'s hall has gone on to another game: the latest new event it sent is another
        game's, one started after ``g`` (a replay of an older game's events moves nothing on).
        A hall plays one game at a time."""
        other = self.latest.get((g.competition, g.hall))
        return other is not None and other is not g and _order(other) > _order(g)

    def _advance(self, g: Game) -> None:
        if g.state is None or g.broken:
            return
        while g.contiguous + 1 in g.pending:
            raw = g.pending.pop(g.contiguous + 1)
            g.pending_bytes -= len(raw)
            self.bytes -= len(raw)
            g.contiguous += 1
            try:
                g.state, _ = engine.step(g.state, decode_event(json.loads(raw)["event"]))
            except GameError:
                pass   # refused at the hall too: the state did not change
            except Exception as exc:
                log.warning("festival: game %s/%s/%s: replay stopped at %d: %s",
                            g.competition, g.hall, g.id, g.contiguous, exc)
                g.broken = True
                return
            g._summary = None
            g._table = None
        self._settle(g)

    def _settle(self, g: Game) -> None:
        """A game finished with every event up to its final standings, or left unfinished by its
        hall (:meth:`left`) with every event up to its last standings, quiet for SETTLE_QUIET_S,
        keeps its summary and header only: its replica and standings message are let go (a day
        of games stays small)."""
        if (g.done or not g.complete or g.contiguous == 0 or not g.snapshot or g.pending
                or self.clock() - g.changed_at < SETTLE_QUIET_S):
            return
        left = self.left(g)
        if not (g.snapshot.get("finished") or left):
            return
        summary = g.summary()
        if summary is None or g.broken or not (link.finished_of(summary) or left):
            return
        g._summary = summary
        g._table = g.table()
        g.done = True
        g.state = None
        # the header (config, seed) stays: an event past these standings replays the game (_reopen)
        g.snapshot = {k: g.snapshot[k] for k in ("seq", "mode", "finished", "view", "table", "t")
                      if k in g.snapshot}
        # what it keeps is counted as well, its summary as JSON (about 8 KB for a 30-question game,
        # which holds some 60 KB of Python objects with its header): the caps bound a whole day
        kept = len(json.dumps([summary, g._table], ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
        self.bytes += kept - g.snapshot_bytes
        g.snapshot_bytes = kept

    def _reopen(self, g: Game) -> None:
        """A settled game gets an event (or standings) past the seq it was settled on: the hall's
        journal goes on after a game's finish (the host's end of the game, a clock record), and
        after a broker outage the finished standings may come before those events.  Its replica
        was let go, so it is played again from its header: the hall is asked for its events from
        the first (a replay); meanwhile the board shows the summary it had."""
        old, summary = g.contiguous, g._summary
        try:
            state = engine.new_game(g.info["config"], g.info["seed"])
        except Exception as exc:   # it was playable when it was settled; say so, keep the standings
            log.warning("festival: game %s/%s/%s cannot be replayed again: %s", g.competition, g.hall, g.id, exc)
            g.broken = True
            state = None
        g.done = False
        g.state = state
        g.contiguous = 0
        g._summary = None
        table, g._table = g._table, None
        g.behind_since = None
        g.snapshot = dict(g.snapshot or {}, seq=old)
        if table is not None:
            g.snapshot["table"] = table
        if summary is not None:
            g.snapshot.update(summary=summary, standings=link.standings_of(summary),
                              finished=link.finished_of(summary))

    # -- replay requests --------------------------------------------------------------
    def requests(self) -> list[tuple[str, bytes]]:
        """Replay requests due now: (topic, payload) for each game missing events for a while."""
        now = self.clock()
        out = []
        for g in self.games.values():
            self._settle(g)   # a finished game quiet long enough lets its replica go
            if g.info is None or g.broken or g.done or g.contiguous >= g.target:
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
                if self.requester:
                    body["board"] = self.requester
                name = link.topic(self.prefix, g.competition, g.hall, "replay")
                out.append((name, self.sign(g.hall, name, link.encode(body))))
        return out

    def sign(self, hall: str, name: str, payload: bytes) -> bytes:
        """A request to ``hall`` signed with its key (the hall answers only those), when the board has it."""
        mine = [k for k in (self.keys or {}).values() if k.hall == hall]
        return auth.sign(mine[-1], name, payload) if mine else payload

    # -- output -------------------------------------------------------------------------
    def ordered(self) -> list[Game]:
        games = [g for g in self.games.values() if g.known]
        return sorted(games, key=lambda g: (g.competition, g.hall, *_order(g)))

    def results(self) -> dict:
        """``{"competitions": [{"name", "hall", "game", "finished", "standings", ..., "table"}]}``
        (``table``: :meth:`Game.table`, None from a hall older than the table)."""
        out = []
        for g in self.ordered():
            summary = g.summary()
            if summary is None:
                continue
            out.append({"name": g.competition, "hall": g.hall, "game": g.id,
                        "finished": link.finished_of(summary), "standings": link.standings_of(summary),
                        "mode": summary.get("mode", (g.info or {}).get("mode", "")),
                        "seq": g.contiguous if g.complete else (g.snapshot or {}).get("seq", 0),
                        "from": "events" if g.complete else "standings", "table": g.table()})
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
                        "standings": link.standings_of(summary), "table": g.table(), "complete": g.complete,
                        "online": self.online.get((competition, hall))})
        return out


def _order(g: Game) -> tuple:
    """A hall's games in the order it played them: its start (the journal header's), then when
    the board first saw it."""
    return (g.info or {}).get("started", ""), g.first_seen, g.id


# ---------------------------------------------------------------------------
# a board's connection: every festival topic into a Festival

class Listener:
    """Subscribes to every festival topic; :meth:`pump` (the board's thread) hands the
    messages to :attr:`festival` and sends the replay requests it has due.

    ``client_id``: a fixed id keeps the board's session on the broker (QoS 1 events
    are queued for it while it is away); None: a fresh session."""

    def __init__(self, broker: link.Broker, prefix: str = link.DEFAULT_PREFIX, ca_file: str = "",
                 client_id: str | None = None, **festival):
        import queue

        self.broker = broker
        self.prefix = prefix
        self.festival = Festival(prefix, **festival)
        self.festival.requester = (client_id or "")[:64]
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
