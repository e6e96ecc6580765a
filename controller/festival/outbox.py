"""The hall's publisher in a process of its own: the game loop shares no GIL with it.

``buzzer run`` with ``[festival] broker`` set starts one child process
(:class:`OutboxProcess`).  The child runs the :class:`~controller.festival.publisher.Publisher`
(its thread, paho's network thread, the replica of the game, the standings, the JSON
encoding) and reads the events *from the journal file itself*: the journal is the
outbox, literally.  The game loop's only extra work per journal write is one byte
written to a non-blocking pipe (a nudge that wakes the child; if the pipe is full
the child is awake anyway) and a counter: it never waits for the child, the broker
or the GIL the child's threads would hold (docs/performance.md «Festival»: with the
publisher as a thread of the hall's process the decision's p99 grew by 1.3-2.2 ms).

The guarantees are those of the publisher: an event is read (and published) only
after it is in the journal; the broker's acknowledgements move the watermark in
``<journal dir>/festival/<game>.acked``; after a restart exactly the events past it
are sent again.  When the hall's process dies (SIGKILL, power cut) the child sees
its pipe close and exits at once, as the publisher's thread would have died with
it; the next start sends what was not acknowledged.

Messages (the control pipe, a :class:`multiprocessing.connection.Connection`):

* hall -> child: ``("game", game_id, info, path, events_before)``: read and publish
  the journal at ``path``, then follow it; ``("pending", n)``: report;
  ``("stop", timeout)``: send what is left, wait for acknowledgements, exit;
* child -> hall: ``("status", connected, text)``; ``("pending", n, taken, pending)``;
  ``("closed", all_acked, taken, pending, published, resent)``.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import queue
import select
import threading
import time
from pathlib import Path
from typing import Callable

from controller.festival import link
from controller.inputs import priority

log = logging.getLogger(__name__)

POLL_S = 0.05
"""The child looks at the journal at least this often (a nudge wakes it at once)."""
REPLY_TIMEOUT_S = 5.0
"""How long :meth:`OutboxProcess.pending` waits for the child's answer."""
READ_CHUNK = 1 << 20


class OutboxProcess:
    """The hall's side: the same calls as :class:`~controller.festival.publisher.Publisher`
    (``start``, ``offer``, ``pending``, ``close``; ``begin_journal`` instead of ``begin_game``); ``on_status`` is
    called from a reader thread of this process that sleeps in ``recv`` (it holds no GIL
    while it waits)."""

    def __init__(self, broker: link.Broker, hall: str, competition: str, state_dir: str | Path,
                 prefix: str = link.DEFAULT_PREFIX, standings_interval_s: float = 0.2, ca_file: str = "",
                 on_status: Callable[[bool, str], None] | None = None, **more):
        # (handed to the child through its pipe, never its command line: the key and password stay out of ps)
        self.args = {"broker": broker, "hall": hall, "competition": competition, "state_dir": str(state_dir),
                     "prefix": prefix, "standings_interval_s": standings_interval_s, "ca_file": ca_file, **more}
        self.on_status = on_status
        self._offered = 0      # events journaled since the start (the loop thread writes it)
        self._taken = 0        # of the offered ones, read by the child (its last report)
        self._pending = 0      # the child's publisher's unacknowledged events (its last report)
        self.published = 0
        self.resent = 0
        self._replies: queue.SimpleQueue = queue.SimpleQueue()
        self._send_lock = threading.Lock()
        self._closed: tuple | None = None
        self._process = None
        self._conn = None
        self._nudge = None
        self._nudge_w: int | None = None
        self._reader: threading.Thread | None = None
        self._serial = 0

    def start(self) -> None:
        ctx = multiprocessing.get_context("spawn")   # no fork of a process with threads
        here, there = ctx.Pipe(duplex=True)
        nudge_r, nudge_w = ctx.Pipe(duplex=False)   # (a Connection: spawn passes its fd on)
        os.set_blocking(nudge_w.fileno(), False)
        process = ctx.Process(target=_child, args=(there, nudge_r, self.args), name="festival-outbox", daemon=True)
        try:
            with priority.children_normal():   # the game's real-time level is not the publisher's
                process.start()
        except OSError as exc:   # no process to be had (memory, limits): the game goes on unpublished
            for end in (here, there, nudge_r, nudge_w):
                end.close()
            log.warning("festival: cannot start the publisher: %s", exc)
            if self.on_status is not None:
                self.on_status(False, f"cannot start the publisher: {exc.strerror or exc}")
            return
        self._process = process
        there.close()
        nudge_r.close()
        self._conn = here
        self._nudge = nudge_w
        self._nudge_w = nudge_w.fileno()
        self._reader = threading.Thread(target=self._read, name="festival-outbox-reader", daemon=True)
        self._reader.start()

    # -- the loop's thread -----------------------------------------------------------
    def begin_journal(self, game_id: str, info: dict, path: str | Path, events_before: int) -> None:
        """A game (new or resumed) is journaled at ``path``; ``events_before`` of its events are
        there already (those the broker has not acknowledged are sent again)."""
        self._send(("game", game_id, info, str(path), int(events_before)))

    def offer(self, events: list) -> None:
        """Events just journaled (:class:`~controller.festival.hall.OutboxJournal`): the child
        reads them from the journal itself."""
        self.offered(len(events))

    def offered(self, n: int) -> None:
        """``n`` events were just journaled: count them, wake the child; never waits."""
        self._offered += n
        try:
            os.write(self._nudge_w, b"\0")
        except (BlockingIOError, OSError, TypeError):
            pass   # the pipe is full (the child is awake anyway) or gone (closing)

    # -- any thread ---------------------------------------------------------------------
    def pending(self) -> int:
        """Events journaled and not yet acknowledged by the broker (asks the child)."""
        if self._closed is None and self._process is not None and self._process.is_alive():
            self._serial += 1
            serial = self._serial
            self._send(("pending", serial))
            deadline = time.monotonic() + REPLY_TIMEOUT_S
            while time.monotonic() < deadline:
                try:
                    reply = self._replies.get(timeout=0.1)
                except queue.Empty:
                    if self._closed is not None:
                        break
                    continue
                if reply[0] == "pending" and reply[1] == serial:
                    break
        return max(0, self._offered - self._taken) + self._pending

    def close(self, timeout: float = 5.0) -> bool:
        """Send what is left, wait up to ``timeout`` s for the broker's acknowledgements, end
        the child.  True if everything was acknowledged."""
        if self._process is None:
            return False
        if self._closed is None:
            self._send(("stop", float(timeout)))
            self._process.join(timeout + 10.0)
        if self._process.is_alive():
            log.warning("festival: the publisher's process did not stop; ended")
            self._process.kill()
            self._process.join(2.0)
        if self._reader is not None:
            self._reader.join(2.0)
        self._nudge_w = None
        self._nudge.close()
        try:
            self._conn.close()
        except OSError:
            pass
        return bool(self._closed and self._closed[1]) and self.pending() == 0

    def _send(self, msg: tuple) -> None:
        with self._send_lock:
            try:
                self._conn.send(msg)
            except (OSError, ValueError, AttributeError):
                log.warning("festival: the publisher's process is gone")

    def _read(self) -> None:
        """The reader thread: the child's status lines and answers."""
        while True:
            try:
                msg = self._conn.recv()
            except (EOFError, OSError):
                return
            kind = msg[0]
            if kind == "status":
                if self.on_status is not None:
                    try:
                        self.on_status(msg[1], msg[2])
                    except Exception:
                        log.exception("festival status")
            elif kind == "pending":
                self._taken, self._pending = msg[2], msg[3]
                self._replies.put(msg)
            elif kind == "closed":
                _, done, self._taken, self._pending, self.published, self.resent = msg
                self._closed = msg
                self._replies.put(msg)
                return


# ---------------------------------------------------------------------------
# the child

class _Follower:
    """Follows one journal file: complete records past ``offset``."""

    def __init__(self, path: str, offset: int):
        self.path = path
        self.offset = offset
        self.fd: int | None = None

    def read(self) -> list[dict]:
        from controller.sessions.journal import parse_line

        if self.fd is None:
            try:
                self.fd = os.open(self.path, os.O_RDONLY)
            except OSError:
                return []
        out: list[dict] = []
        while True:
            try:
                data = os.pread(self.fd, READ_CHUNK, self.offset)
            except OSError:
                return out
            end = data.rfind(b"\n")
            if end < 0:
                return out
            for raw in data[:end + 1].splitlines(keepends=True):
                rec = parse_line(raw)
                if rec is None:
                    log.warning("festival: a damaged record in %s; not followed further", self.path)
                    self.offset = 1 << 62
                    return out
                self.offset += len(raw)
                if rec.get("type") not in ("end", "header"):
                    out.append(rec)
            if len(data) < READ_CHUNK:
                return out

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _child(conn, nudge, args: dict) -> None:
    """The child process: a Publisher fed from the journal files the hall names."""
    from controller.sessions import journal as journal_mod
    from controller.festival.publisher import Publisher, find_journal

    logging.basicConfig(level=logging.WARNING, format="buzzer festival: %(message)s")
    send_lock = threading.Lock()
    nudge_r = nudge.fileno()

    def send(msg: tuple) -> None:
        with send_lock:
            try:
                conn.send(msg)
            except (OSError, ValueError):
                pass

    more = {k: v for k, v in args.items() if k not in ("broker", "hall", "competition", "state_dir", "prefix",
                                                        "standings_interval_s", "ca_file")}
    pub = Publisher(args["broker"], args["hall"], args["competition"], args["state_dir"], prefix=args["prefix"],
                    standings_interval_s=args["standings_interval_s"], ca_file=args["ca_file"],
                    on_status=lambda connected, text: send(("status", connected, text)), **more)
    pub.start()
    follower: _Follower | None = None
    taken = 0        # records read past those journaled before each game was followed

    def follow() -> None:
        nonlocal taken
        if follower is None:
            return
        recs = follower.read()
        if recs:
            pub.offer(recs)
            taken += len(recs)

    while True:
        try:
            ready, _, _ = select.select([conn, nudge_r], [], [], POLL_S)
        except (OSError, ValueError):
            ready = []
        if nudge_r in ready:
            try:
                os.read(nudge_r, 4096)
            except OSError:
                pass
        follow()
        if conn not in ready:
            continue
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            # the hall is gone (killed): stop as its thread would have; the journal keeps the rest
            pub._save_acks()
            os._exit(0)
        kind = msg[0]
        if kind == "game":
            _, game_id, info, path, before = msg
            follow()
            if follower is not None:
                follower.close()
            # the hall may have started another game since (its journal archived): the game's own file
            path = str(find_journal(path, game_id) or path)
            try:
                contents = journal_mod.read(path)
            except journal_mod.JournalError as exc:
                log.warning("festival: %s", exc)
                follower = None
                continue
            records = [journal_mod.encode_event(e) for e in contents.events]
            # events journaled after the hall counted `before` were offered: count them as taken
            taken += max(0, len(records) - before)
            pub.begin_game(game_id, info, records, path)
            follower = _Follower(path, contents.valid_bytes)
            # until the publisher's thread has taken the game, its pending() would not count it
            deadline = time.monotonic() + REPLY_TIMEOUT_S
            while time.monotonic() < deadline and not (
                    game_id in pub.games and len(pub.games[game_id].records) >= len(records)):
                time.sleep(0.002)
        elif kind == "pending":
            follow()
            send(("pending", msg[1], taken, pub.pending()))
        elif kind == "stop":
            follow()
            done = pub.close(msg[1])
            if follower is not None:
                follower.close()
            send(("closed", done, taken, pub.pending(), pub.published, pub.resent))
            conn.close()
            return
