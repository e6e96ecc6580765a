"""A hall's publisher: every journaled event to the broker, nothing lost.

The journal is the outbox.  The loop hands the publisher events it has already
journaled (:meth:`Publisher.offer`: a put on a queue, never a wait); the
publisher's own thread numbers them (``seq`` = the event's record number in the
journal, 1 = the first event after the header), publishes each with QoS 1 and
keeps, per game, how far the broker has acknowledged them without a hole (the
*watermark*, in ``<journal dir>/festival/<game>.acked``).  After a restart the
hall hands the publisher its journal again (:meth:`Publisher.begin_game`) and
exactly the events past the watermark are sent again; while the process lives,
paho keeps every unacknowledged message and sends it again after a reconnect.
A board may receive an event twice: it de-duplicates by (hall, game, seq).

The standings are computed here, off the game loop, from a replica of the game:
the engine is pure, so the same events from the same config and seed give the
same state the loop has.  They go out retained, at most every
``standings_interval_ms``, and again after every reconnect (a broker restarted
without persistence has forgotten its retained messages).

A hall with a key (:mod:`controller.festival.auth`) signs every message and answers
only replay requests its key signed.  Replays are bounded: ``replay_max_events`` per
request, ``replay_requests_per_minute`` per board, ``replay_window_events`` per minute
in all.  A replay goes out paced by the broker's acknowledgements: at most
``REPLAY_IN_FLIGHT`` messages unacknowledged at once, so that a board started late
(which asks for every game of the day) never has the hall hold thousands of messages
in paho's queue.  A game the hall has left (another game is being played) whose events the
broker has all acknowledged, and whose last standings went out, is forgotten: its
events stay in its journal file, which answers a replay request for it.
"""

from __future__ import annotations

import collections
import hashlib
import logging
import os
import queue
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from controller.games import engine
from controller.festival import auth, link
from controller.sessions.journal import decode_event, encode_event

log = logging.getLogger(__name__)

REPLAY_MAX = 2000
"""Events one replay request re-sends at most (``[festival] replay_max_events``)."""
REPLAY_WINDOW_EVENTS = 5000
"""Events re-sent per minute for every request together (``[festival] replay_window_events``)."""
REPLAY_REQUESTS = 120
"""Replay requests one board may make per minute (``[festival] replay_requests_per_minute``)."""
REPLAY_WINDOW_S = 60.0
REQUESTERS_MAX = 256
"""Boards whose requests are counted (the oldest is forgotten past this)."""
FORGOTTEN_MAX = 1000
"""Games left whose journal file is remembered for replays."""
REPLAY_IN_FLIGHT = 64
"""Replayed messages the broker has not acknowledged yet, at most (a replay waits for room)."""
ACK_SAVE_S = 0.2
"""The watermark file is rewritten at most this often (a lost update only means re-sending)."""


def game_id_of(data: bytes) -> str:
    """A game's id: a hash of what identifies it (a journal's header line)."""
    return hashlib.sha1(data).hexdigest()[:16]


@dataclass
class _Game:
    id: str
    info: dict
    records: list[dict] = field(default_factory=list)
    watermark: int = 0
    acked: set[int] = field(default_factory=set)
    state: Any = None
    broken: bool = False
    dirty: bool = True
    saved: int = -1
    last_standings: float = 0.0
    cost: float = 0.0
    path: str | None = None


class Publisher:
    """Publishes one hall's games; start with :meth:`start`, feed with :meth:`begin_game`
    and :meth:`offer`, end with :meth:`close`.

    :param on_status: ``on_status(connected, text)`` when the link changes (any thread)
    """

    def __init__(self, broker: link.Broker, hall: str, competition: str, state_dir: str | Path,
                 prefix: str = link.DEFAULT_PREFIX, standings_interval_s: float = 0.2, ca_file: str = "",
                 on_status: Callable[[bool, str], None] | None = None, key: auth.HallKey | None = None,
                 replay_max: int = REPLAY_MAX, replay_window_events: int = REPLAY_WINDOW_EVENTS,
                 replay_requests: int = REPLAY_REQUESTS, clock: Callable[[], float] = time.monotonic):
        self.broker = broker
        self.key = key
        self.replay_max = replay_max
        self.replay_window_events = replay_window_events
        self.replay_requests = replay_requests
        self.clock = clock
        self._replayed: collections.deque = collections.deque()    # (time, events) re-sent in the window
        self._requests: collections.OrderedDict = collections.OrderedDict()   # requester -> deque of times
        self.forgotten: collections.OrderedDict = collections.OrderedDict()   # game id -> journal path
        self.replayed = 0
        """Events granted to replay requests (queued; sent as the broker's acknowledgements allow)."""
        self._replays: collections.deque = collections.deque()   # [game id, next seq, last seq, records]
        self._replay_waiting = 0      # events of _replays not sent yet
        self._replay_mids: set[int] = set()   # replayed messages not acknowledged yet
        self.replays_refused: collections.Counter = collections.Counter()
        self.hall = hall
        self.competition = competition
        self.prefix = prefix
        self.state_dir = Path(state_dir)
        self.interval = standings_interval_s
        self.on_status = on_status
        self.queue: queue.SimpleQueue = queue.SimpleQueue()
        self._offered = 0     # events offered (the loop thread writes it)
        self._taken = 0       # of them, taken from the queue (the publisher's thread writes it)
        self.games: dict[str, _Game] = {}
        self.current: _Game | None = None
        self._mids: dict[int, tuple[str, int]] = {}
        self._lock = threading.Lock()
        self._acks: collections.deque = collections.deque()   # paho's thread appends, ours takes
        self._orphans: set[int] = set()   # acknowledged before their mid was recorded
        self._status: tuple[bool, str] | None = None
        self._reconnected = threading.Event()
        self._thread = threading.Thread(target=self._run, name="festival-publisher", daemon=True)
        self._stop_deadline: float | None = None
        self._closing = False
        self.published = 0
        self.resent = 0
        hall_key = hashlib.sha1(f"{competition}/{hall}".encode()).hexdigest()[:12]
        self.client = link.client(broker, client_id=f"buzzer-hall-{hall_key}", clean=True, ca_file=ca_file)
        self.client.will_set(self._topic("status"), self._signed(self._topic("status"),
                             link.encode(self._base(online=False))), qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_connect_fail = self._on_connect_fail
        self.client.on_disconnect = self._on_disconnect
        self.client.on_publish = self._on_publish
        self.client.on_message = self._on_message

    # -- any thread ---------------------------------------------------------------------
    def start(self) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        try:
            self.client.connect_async(self.broker.host, self.broker.port, keepalive=10)
        except (OSError, ValueError) as exc:
            self._set_status(False, f"{self.broker.url}: {exc}")
        self.client.loop_start()
        self._thread.start()

    def begin_game(self, game_id: str, info: dict, records: list[dict] | None = None,
                   path: str | None = None) -> None:
        """A game starts (or is resumed): its header values and the events already journaled
        (``path``: its journal file, which answers replays once the game is forgotten)."""
        self.queue.put(("game", game_id, info, list(records or ()), path))

    def offer(self, events: list) -> None:
        """Events just journaled (engine events or their records): queued, never waited for."""
        events = list(events)
        self._offered += len(events)     # the loop thread's own counter: no lock on its path
        self.queue.put(("events", events, time.time()))

    def close(self, timeout: float = 5.0) -> bool:
        """Send what is left, wait up to ``timeout`` s for the broker's acknowledgements,
        disconnect.  True if everything was acknowledged."""
        self.queue.put(("stop", time.monotonic() + timeout))
        self._thread.join(timeout + 2.0)
        done = self.pending() == 0
        self._closing = True
        try:
            if self.client.is_connected():
                info = self.client.publish(self._topic("status"), self._signed(
                    self._topic("status"), link.encode(self._base(online=False))), qos=1, retain=True)
                info.wait_for_publish(1.0)
            self.client.disconnect()
        except (RuntimeError, ValueError, OSError):
            pass
        self.client.loop_stop()
        return done

    def pending(self) -> int:
        """Events published (or still on the queue to this thread) and not yet acknowledged."""
        waiting = self._offered - self._taken
        with self._lock:
            self._take_acks()
            return waiting + sum(len(g.records) - g.watermark for g in self.games.values())

    # -- paho's thread ------------------------------------------------------------------
    def _set_status(self, connected: bool, text: str) -> None:
        if self._status == (connected, text):
            return
        self._status = (connected, text)
        log.info("festival: %s", text)
        if self.on_status is not None:
            try:
                self.on_status(connected, text)
            except Exception:  # the screen's problem must not stop publishing
                log.exception("festival status")

    def _on_connect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if reason_code.is_failure:
            self._set_status(False, f"{self.broker.url}: {link.reason_text(reason_code)}")
            return
        client.subscribe(self._topic("replay"), qos=1)
        self._reconnected.set()
        self._set_status(True, f"{self.broker.url}: connected")

    def _on_connect_fail(self, client, userdata) -> None:
        self._set_status(False, f"{self.broker.url}: unreachable")

    def _on_disconnect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if self._status and self._status[0] and not self._closing:
            self._set_status(False, f"{self.broker.url}: connection lost")

    def _on_publish(self, client, userdata, mid, reason_code=None, properties=None) -> None:
        self._acks.append(mid)   # (paho may hold its own locks here: take none of ours)

    def _on_message(self, client, userdata, msg) -> None:
        payload = msg.payload
        try:
            if len(payload) > 4096:
                raise auth.Refused("too_large", f"{len(payload)} bytes")
            if self.key is not None:   # only the board, which holds this hall's key, may ask
                payload, _ = auth.verify({self.key.id: self.key}, msg.topic, self.hall, payload)
            _, _, _, kind, body = link.parse(self.prefix, msg.topic, payload)
        except (link.BadMessage, auth.Refused) as exc:
            reason = getattr(exc, "reason", "malformed")
            self.replays_refused[reason] += 1
            if self.replays_refused[reason] in (1, 10, 100, 1000) or self.replays_refused[reason] % 10000 == 0:
                log.warning("festival: refused a replay request on %s (%s, %d so far): %s", msg.topic[:80],
                            reason, self.replays_refused[reason], exc)
            return
        if kind == "replay":
            requester = body.get("board") if isinstance(body.get("board"), str) else ""
            self.queue.put(("replay", body["game"], body["from"], body["to"], requester[:64]))

    # -- the publisher's thread ---------------------------------------------------------
    def _topic(self, *rest: str) -> str:
        return link.topic(self.prefix, self.competition, self.hall, *rest)

    def _base(self, **more) -> dict:
        return {"hall": self.hall, "competition": self.competition, **more}

    def _take_acks(self) -> None:
        """(under the lock) move acknowledged mids into their games' watermarks."""
        while self._acks:
            mid = self._acks.popleft()
            if mid not in self._mids:
                self._orphans.add(mid)
                continue
            self._replay_mids.discard(mid)
            self._ack(self._mids.pop(mid))

    def _ack(self, where: tuple[str, int] | None) -> None:
        if where is None:
            return   # a retained message's acknowledgement: nothing to keep
        g = self.games.get(where[0])
        if g is None or where[1] <= g.watermark:
            return
        g.acked.add(where[1])
        while g.watermark + 1 in g.acked:
            g.watermark += 1
            g.acked.discard(g.watermark)

    def _ack_path(self, game_id: str) -> Path:
        return self.state_dir / f"{game_id}.acked"

    def _save_acks(self, force: bool = False) -> None:
        with self._lock:
            self._take_acks()
            todo = [(g.id, g.watermark) for g in self.games.values() if g.watermark != g.saved]
        for gid, mark in todo:
            path = self._ack_path(gid)
            tmp = path.with_name(path.name + ".tmp")
            try:
                tmp.write_text(f"{mark}\n")
                os.replace(tmp, path)
            except OSError as exc:
                log.warning("festival: cannot save %s: %s", path, exc.strerror)
                continue
            self.games[gid].saved = mark

    def _load_acks(self, game_id: str) -> int:
        try:
            return max(0, int(self._ack_path(game_id).read_text().strip() or 0))
        except (OSError, ValueError):
            return 0

    def _signed(self, topic: str, payload: bytes) -> bytes:
        return auth.sign(self.key, topic, payload) if self.key is not None else payload

    def _publish(self, topic: str, payload: bytes, retain: bool = False,
                 where: tuple[str, int] | None = None, replay: bool = False) -> None:
        """Publish with QoS 1 (signed with the hall's key, if it has one); ``where`` (game, seq)
        is marked acknowledged when the broker says so."""
        payload = self._signed(topic, payload)
        try:
            info = self.client.publish(topic, payload, qos=1, retain=retain)
        except (ValueError, RuntimeError) as exc:
            log.warning("festival: cannot publish on %s: %s", topic, exc)
            return
        if info.rc == link.QUEUE_FULL:
            log.warning("festival: paho's queue is full; %s will be sent after a restart", where)
            return
        with self._lock:
            if info.mid in self._orphans:   # acknowledged already (paho's thread was quicker)
                self._orphans.discard(info.mid)
                self._ack(where)
            else:
                self._mids[info.mid] = where
                if replay:
                    self._replay_mids.add(info.mid)

    def _publish_event(self, g: _Game, seq: int, sent: float | None = None, record: dict | None = None,
                       replay: bool = False) -> None:
        body = self._base(game=g.id, seq=seq, event=record if record is not None else g.records[seq - 1])
        if sent is not None:
            body["t"] = sent
        self._publish(self._topic(g.id, "events"), link.encode(body), where=(g.id, seq), replay=replay)
        self.published += 1

    def _publish_info(self, g: _Game) -> None:
        self._publish(self._topic(g.id, "info"), link.encode(self._base(game=g.id, **g.info), large=True),
                      retain=True)

    def _publish_standings(self, g: _Game) -> None:
        if g.state is None:
            return
        began = time.monotonic()
        try:
            summary = engine.summary(g.state)
        except Exception as exc:  # a replica that cannot summarise: say so once, keep the events going
            log.warning("festival: no standings for game %s: %s", g.id, exc)
            g.dirty = False
            return
        body = self._base(game=g.id, seq=len(g.records), mode=g.info.get("mode", ""),
                          finished=link.finished_of(summary), standings=link.standings_of(summary),
                          view=link.headline(summary), summary=summary, t=time.time())
        table = link.table_of_state(g.state, (g.info.get("config") or {}).get("language") or "ru")
        if table is not None:
            body["table"] = table
        self._publish(self._topic(g.id, "standings"), link.encode(body, large=True), retain=True)
        g.dirty = False
        g.last_standings = time.monotonic()
        # a long game's summary costs more: keep this thread's share of the CPU (and of the
        # GIL the game loop needs) under about 5 %
        g.cost = g.last_standings - began

    def _step(self, g: _Game, record: dict) -> None:
        if g.broken:
            return
        try:
            g.state, _ = engine.step(g.state, decode_event(record))
        except Exception as exc:
            if type(exc).__name__ != "GameError":
                log.warning("festival: the replica of game %s stopped: %s", g.id, exc)
                g.broken = True
            # a GameError was refused live too: the state did not change

    def _begin(self, game_id: str, info: dict, records: list, path: str | None = None) -> None:
        g = self.games.get(game_id)
        self.forgotten.pop(game_id, None)
        if g is None:
            g = _Game(game_id, dict(info), path=path)
            g.watermark = g.saved = self._load_acks(game_id)
            with self._lock:
                self.games[game_id] = g
            try:
                g.state = engine.new_game(info["config"], info["seed"])
            except Exception as exc:
                log.warning("festival: game %s: %s", game_id, exc)
                g.broken = True
        self.current = g
        self._publish_info(g)
        new = [r if isinstance(r, dict) else encode_event(r) for r in records[len(g.records):]]
        for rec in new:
            g.records.append(rec)
            self._step(g, rec)
        g.watermark = min(g.watermark, len(g.records))
        for seq in range(g.watermark + 1, len(g.records) + 1):
            self._publish_event(g, seq)
            self.resent += 1
        g.dirty = True

    def _events(self, events: list, sent: float) -> None:
        g = self.current
        if g is None:
            log.warning("festival: %d events before any game; not published", len(events))
            return
        for ev in events:
            rec = ev if isinstance(ev, dict) else encode_event(ev)
            g.records.append(rec)
            self._step(g, rec)
            self._publish_event(g, len(g.records), sent)
        g.dirty = True

    def _allowed(self, requester: str, wanted: int) -> int:
        """How many of ``wanted`` events a replay request of ``requester`` may re-send now."""
        now = self.clock()
        while self._replayed and now - self._replayed[0][0] >= REPLAY_WINDOW_S:
            self._replayed.popleft()
        times = self._requests.pop(requester, None) or collections.deque()
        while times and now - times[0] >= REPLAY_WINDOW_S:
            times.popleft()
        self._requests[requester] = times       # the newest at the end
        while len(self._requests) > REQUESTERS_MAX:
            self._requests.popitem(last=False)
        if len(times) >= self.replay_requests:
            self.replays_refused["rate"] += 1
            return 0
        times.append(now)
        room = self.replay_window_events - max(sum(n for _, n in self._replayed), self._replay_waiting)
        n = max(0, min(wanted, self.replay_max, room))
        if n < wanted:
            self.replays_refused["bounded"] += 1
        if n:
            self._replayed.append((now, n))
        return n

    def _replay(self, game_id: str, first: int, last: int, requester: str = "") -> None:
        """A replay request: what the bounds allow of it is queued (:meth:`_send_replays` sends it)."""
        g = self.games.get(game_id)
        first = max(first, 1)
        records = None
        if g is not None:
            last = min(last, len(g.records))
        else:
            path = self.forgotten.get(game_id)
            if path is None:
                return
            records = _journal_records(path, game_id)
            last = min(last, len(records))
        if last < first:
            return
        # what is still waiting counts against the window too: a stalled link queues no more
        last = first + self._allowed(requester, last - first + 1) - 1
        if last < first:
            return
        if records is not None:      # a forgotten game: only the events asked for are kept
            records = records[first - 1:last]
        self._replays.append([game_id, first, last, records, first])
        self._replay_waiting += last - first + 1
        self.replayed += last - first + 1

    def _send_replays(self) -> None:
        """Send queued replays while fewer than REPLAY_IN_FLIGHT of them are unacknowledged."""
        while self._replays:
            with self._lock:
                self._take_acks()
                room = REPLAY_IN_FLIGHT - len(self._replay_mids)
            if room <= 0:
                return
            job = self._replays[0]
            game_id, seq, last, records, first = job
            g = self.games.get(game_id) if records is None else None
            if records is None and g is None:   # (forgotten meanwhile: its journal answers next time)
                self._replay_waiting -= last - seq + 1
                self._replays.popleft()
                continue
            stub = g or _Game(game_id, {})
            while seq <= last and room > 0:
                rec = records[seq - first] if records is not None else None
                self._publish_event(stub, seq, record=rec, replay=True)
                self._replay_waiting -= 1
                seq += 1
                room -= 1
            job[1] = seq
            if seq > last:
                self._replays.popleft()
                if not self._replays:
                    _trim()

    def _forget(self) -> None:
        """Let go of every game left whose events the broker acknowledged and whose last
        standings went out: its journal answers replays (:data:`forgotten`)."""
        with self._lock:
            self._take_acks()
            done = [g for g in self.games.values() if g is not self.current and not g.dirty
                    and g.watermark >= len(g.records) and g.saved == g.watermark]
            for g in done:
                del self.games[g.id]
                if g.path:
                    self.forgotten[g.id] = g.path
                    while len(self.forgotten) > FORGOTTEN_MAX:
                        self.forgotten.popitem(last=False)
        if done:
            _trim()


    def _run(self) -> None:
        while True:
            try:
                item = self.queue.get(timeout=0.05)
            except queue.Empty:
                item = None
            while item is not None:
                kind = item[0]
                try:
                    if kind == "game":
                        self._begin(*item[1:])
                    elif kind == "events":
                        self._events(*item[1:])
                        self._taken += len(item[1])
                    elif kind == "replay":
                        self._replay(*item[1:])
                    elif kind == "stop":
                        self._stop_deadline = item[1]
                except Exception:  # never let the publisher's thread die: log it, go on
                    log.exception("festival publisher")
                time.sleep(0)   # hand the GIL over between batches: the game loop comes first
                try:
                    item = self.queue.get_nowait()
                except queue.Empty:
                    item = None
            if self._reconnected.is_set():
                self._reconnected.clear()
                with self._lock:      # (a new connection: what paho re-sends is acknowledged anew)
                    self._replay_mids.clear()
                self._publish(self._topic("status"), link.encode(self._base(online=True)), retain=True)
                for g in self.games.values():
                    self._publish_info(g)
                    g.dirty = True
            now = time.monotonic()
            for g in self.games.values():
                if g.dirty and (now - g.last_standings >= max(self.interval, 20 * g.cost)
                                or self._stop_deadline is not None):
                    self._publish_standings(g)
            self._send_replays()
            if now - getattr(self, "_saved_at", 0.0) >= ACK_SAVE_S:
                self._saved_at = now
                self._save_acks()
                self._forget()
            if self._stop_deadline is not None and (self.pending() == 0 or now >= self._stop_deadline):
                self._save_acks()
                return


def find_journal(path: str | Path, game_id: str) -> Path | None:
    """A game's journal file: ``path`` if its header line is the game's, else the file of the
    ``archive/`` beside it that is (the loop archives a game's journal when a new one starts,
    maybe before the publisher has read it)."""
    candidates = [Path(path)]
    archive = Path(path).parent / "archive"
    if archive.is_dir():
        candidates += sorted(archive.glob("*.jsonl"), reverse=True)
    for p in candidates:
        try:
            with open(p, "rb") as f:
                if game_id_of(f.readline()) == game_id:
                    return p
        except OSError:
            continue
    return None


def _journal_records(path: str, game_id: str) -> list[dict]:
    """The events of a game the hall has forgotten, from its journal file (:func:`find_journal`)."""
    from controller.sessions import journal as journal_mod

    found = find_journal(path, game_id)
    if found is None:
        return []
    try:
        return [encode_event(e) for e in journal_mod.read(found).events]
    except (OSError, journal_mod.JournalError):
        return []


def _trim() -> None:
    """Hand the memory a forgotten game used back to the system (glibc keeps freed pages
    otherwise: a day of games would show as growth); nothing where there is no glibc."""
    global _libc
    if _libc is None:
        try:
            import ctypes
            _libc = ctypes.CDLL("libc.so.6")
            _libc.malloc_trim.argtypes = [ctypes.c_size_t]
        except (OSError, AttributeError):
            _libc = False
    if _libc:
        _libc.malloc_trim(0)


_libc = None

