"""The projector's window drawn in a process of its own (``[display] separate_process``).

Drawing a 1080p frame holds the interpreter for milliseconds at a time (pygame's fills and
blits do not let other threads run): in the loop's process a press read during a frame waited
for that frame to end before the loop could apply it, and the winner's lamp waited with it
(docs/performance.md «The window in its own process»).  Here the loop's process only builds the
frame's model (as for every front end) and hands it to a child process, which draws it with the
same :class:`~controller.screens.window.Window`; the child's keys come back over the same socket.

:class:`WindowProcess` is the front end the runner drives (controller/screens/frontend.py):

* :meth:`~WindowProcess.fileno` is the socket: the runner waits on it with the loop's own
  wake-up, so a key of the window reaches the loop at once (no polling);
* :meth:`~WindowProcess.present` never waits for the child: one frame is in flight at a time,
  and while the child draws, a newer frame replaces the one waiting (a slow or hung window
  never slows the game loop: the game goes on, the projector shows the latest frame when it
  can);
* the child asks for a SIGame package's pictures by member name; a thread of the loop's process
  reads them from the package (the loop's thread never reads the archive for the window);
* a child that dies is started again, once a second at most, and the host is told (one line);
  closing the window ends the program, as in the loop's process.

The wire: parent -> child, a 4-byte length and a pickle (the parent is the trusted side);
child -> parent, one JSON object a line (keys, text, picture requests, "drawn"), each checked.
"""

from __future__ import annotations

import json
import os
import pickle
import queue
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import replace
from typing import Any

from controller.inputs import priority
from controller.screens.frontend import Frame, FrontEnd, Pictures, Shell

HEADER = struct.Struct("!I")
MAX_LINE = 64 * 1024
"""The longest line the child may send (a key's names, a text, a member name)."""
RESTART_S = 1.0
"""A child that died is started again at most this often."""
GIVE_UP_AFTER = 3
"""After this many children in a row died within :data:`EARLY_S` of their start, no more are
started (the host is told: the game goes on, on the host page and the terminal)."""
EARLY_S = 5.0
NICE = 5
"""The child's niceness over the program's: when the loop or an input thread wakes while a frame
is drawn on a busy machine, the scheduler lets it run first (a press is not kept waiting behind a
frame by the CPU, as it was by the interpreter in one process); under full load the window
still gets about a quarter of a core beside two busy processes, enough for its frames."""


_spare: "tuple[socket.socket, int] | None" = None
"""The window's process forked by :func:`prefork` and not yet taken: (the parent's socket, pid)."""


class _Forked:
    """A forked child as much of :class:`subprocess.Popen` as :class:`WindowProcess` uses."""

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode: int | None = None

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            os.kill(self.pid, sig)

    def wait(self, timeout: float | None = None) -> int:
        end = None if timeout is None else time.monotonic() + timeout
        while self.returncode is None:
            pid, status = os.waitpid(self.pid, 0 if end is None else os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
                break
            if time.monotonic() >= end:
                raise subprocess.TimeoutExpired(["window"], timeout)
            time.sleep(0.005)
        return self.returncode

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def prefork() -> bool:
    """Start the window's process now, by a fork of this one, while the program has no thread yet
    (``buzzer run`` calls it before its inputs start): the child has the drawing modules and
    pygame imported already (imported here first), so the window costs the machine little CPU to
    start -- under a CPU quota the two processes share it.  With a thread running (a test, a
    library's) nothing is forked and the window's process is started afresh when it opens.
    True when a child was forked."""
    global _spare
    if _spare is not None or threading.active_count() > 1 or not hasattr(os, "fork"):
        return False
    import controller.screens.window  # noqa: F401  (the drawing modules, shared with the child)
    from controller.sdl import pygame  # noqa: F401
    parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:   # the child: never returns into the program's stack
        code = 1
        try:
            parent.close()
            fd = child.detach()
            # nothing of the program's open files stays open here (the journal, its lock)
            os.closerange(3, fd)
            os.closerange(fd + 1, os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 4096)
            os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"
            code = child_main(fd)
        except KeyboardInterrupt:   # a Ctrl+C before child_main could ignore it: the program ends
            code = 0
        except BaseException:   # noqa: BLE001  (reported below, then gone)
            import traceback
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    child.close()
    _spare = (parent, pid)
    return True


def discard_spare() -> None:
    """End a child :func:`prefork` made that no window took (its socket's end tells it)."""
    global _spare
    if _spare is None:
        return
    sock, pid = _spare
    _spare = None
    sock.close()
    try:
        _Forked(pid).wait(timeout=5)
    except subprocess.TimeoutExpired:
        os.kill(pid, signal.SIGKILL)
        _Forked(pid).wait()


def _message(*payload: Any) -> bytes:
    body = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(body)) + body


class WindowProcess(FrontEnd):
    """The window front end whose drawing runs in a child process (see the module's text)."""

    max_wait_s = 0.1   # the window's keys come on the socket the runner waits on

    def __init__(self, cfg: dict):
        self.cfg = cfg
        self.fps = cfg["display"]["fps"]
        self.shell: Shell | None = None
        self.proc: subprocess.Popen | None = None
        self.sock: socket.socket | None = None
        self._in = b""
        self._out = bytearray()
        self._send_lock = threading.Lock()
        self._in_flight = False          # a frame sent and not yet drawn
        self._waiting: Frame | None = None
        self._changed = False            # a frame replaced while waiting asked to be drawn
        self._started = 0.0
        self._stopping = False
        self.restarts = 0
        self.holds = 0
        self._held = False
        self.early_deaths = 0
        self.saved: list[str] = []
        self.frames_sent = 0
        self.frames_drawn = 0
        self.last_sent: Frame | None = None
        self._pictures: Pictures | None = None
        self._reads: queue.Queue = queue.Queue()
        self._reader: threading.Thread | None = None

    # -- the child -------------------------------------------------------------

    def open(self, shell: Shell) -> None:
        self.shell = shell
        self._pictures = shell.pictures
        shell.set_screen(self)   # not headless: the host's notices are drawn on the projector
        self._start()

    def _start(self) -> None:
        global _spare
        if _spare is not None:   # forked at the program's start (prefork)
            self.sock, pid = _spare
            _spare = None
            self.proc = _Forked(pid)
            self._begin()
            return
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            with priority.children_normal():   # (opened again by the loop's real-time thread)
                self.proc = subprocess.Popen(
                    [sys.executable, "-m", "controller.screens.window_process", str(child.fileno())],
                    pass_fds=(child.fileno(),), stdin=subprocess.DEVNULL, close_fds=True,
                    env=dict(os.environ, PYGAME_HIDE_SUPPORT_PROMPT="1"))
        finally:
            child.close()
        self.sock = parent
        self._begin()

    def _begin(self) -> None:
        self._in, self._out = b"", bytearray()
        self._in_flight = False
        self._started = time.monotonic()
        pics = self._pictures
        try:
            self.sock.sendall(_message("hello", self.cfg, None if pics is None else pics.cache_bytes))
        except OSError:   # it died before its first word (killed, a display not ready): as any death
            self._child_ended()
            return
        self.sock.setblocking(False)   # from now on the loop's thread never waits for the child
        if pics is not None and self._reader is None:
            self._reader = threading.Thread(target=self._read_pictures, name="window-pictures", daemon=True)
            self._reader.start()

    def fileno(self) -> int | None:
        return None if self.sock is None else self.sock.fileno()

    def _send(self, data: bytes) -> None:
        """Queue ``data`` for the child (sent by :meth:`_flush`, never waiting)."""
        with self._send_lock:
            self._out += data

    def _flush(self) -> None:
        with self._send_lock:
            if self.sock is None or not self._out:
                return
            try:
                n = self.sock.send(self._out)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                return   # the child is gone: poll() sees the end of its socket
            del self._out[:n]

    # -- input from the child ---------------------------------------------------

    def poll(self) -> None:
        if self.sock is None:
            self._maybe_restart()
            return
        try:
            data = self.sock.recv(1 << 16)
        except (BlockingIOError, InterruptedError):
            data = None
        except OSError:
            data = b""
        if data == b"":
            self._child_ended()
            return
        if data:
            self._in += data
            if len(self._in) > MAX_LINE and b"\n" not in self._in:
                self._child_ended()   # not our child's talk: start a new one
                return
            *lines, self._in = self._in.split(b"\n")
            for line in lines:
                self._take(line)
        self._flush()
        if not self._in_flight and self._waiting is not None:
            frame, self._waiting = self._waiting, None
            self._post(frame, self._changed)

    def _take(self, line: bytes) -> None:
        try:
            msg = json.loads(line)
        except ValueError:
            return
        if not isinstance(msg, dict):
            return
        kind, shell = msg.get("k"), self.shell
        names = msg.get("names")
        if kind in ("down", "up") and isinstance(names, list) and all(isinstance(n, str) for n in names):
            (shell.key_down if kind == "down" else shell.key_up)(names[:4])
        elif kind == "text" and isinstance(msg.get("text"), str):
            shell.text_input(msg["text"][:64])
        elif kind == "drawn":
            self._in_flight = False
            self.frames_drawn += 1
        elif kind == "picture" and isinstance(msg.get("member"), str) and isinstance(msg.get("id"), int):
            self._reads.put((msg["id"], msg["member"]))
        elif kind == "saved" and isinstance(msg.get("path"), str):
            self.saved.append(msg["path"])
        elif kind == "stop":
            self._stopping = True
            shell.stop()

    def _read_pictures(self) -> None:
        """The child's picture requests, read from the package here (never on the loop's thread)."""
        while True:
            ident, member = self._reads.get()
            if ident is None:
                return
            pics = self._pictures
            data = pics.read(member) if pics is not None else None
            try:
                self._send(_message("picture", ident, data))
                self._flush_all()
            except OSError:
                pass

    def _flush_all(self, timeout: float = 5.0) -> None:
        """Send everything waiting, waiting for the socket meanwhile (the picture thread only: a
        picture is larger than the socket's buffer; the loop's thread never waits here)."""
        end = time.monotonic() + timeout
        while self._out and time.monotonic() < end:
            self._flush()
            sock = self.sock
            if self._out and sock is not None:
                try:
                    select.select([], [sock], [], 0.1)
                except (OSError, ValueError):
                    return

    def _child_ended(self) -> None:
        code = None
        if self.proc is not None:
            try:
                code = self.proc.wait(timeout=0.05)   # it closed its end: it is ending
            except subprocess.TimeoutExpired:
                self.proc.kill()   # (the loop does not wait for a window that does not end)
                code = self.proc.wait()
        if self.sock is not None:
            self.sock.close()
        self.sock, self.proc = None, None
        self._held = False
        if self._stopping or code == 0:
            self._stopping = True
            self.shell.stop()   # the window was closed
            return
        self.early_deaths = self.early_deaths + 1 if time.monotonic() - self._started < EARLY_S else 1
        if self.early_deaths >= GIVE_UP_AFTER:
            self._stopping = True   # no more windows; the program goes on without one
            self.shell.notice("window.lost", code=code)
            return
        self.shell.notice("window.restarted", code=code)
        self._maybe_restart()

    def _maybe_restart(self) -> None:
        if self._stopping or time.monotonic() - self._started < RESTART_S:
            return
        self.restarts += 1
        self._start()

    # -- frames -------------------------------------------------------------------

    def hold(self, on: bool) -> None:
        """A race's decision is near: the child is stopped (SIGSTOP) until it is carried out, so
        that the frame it may be drawing takes no CPU (nor the CPU quota the program may share
        with it) from the input threads and the loop; then it goes on (SIGCONT)."""
        if on == self._held or self.proc is None:
            return
        try:
            self.proc.send_signal(signal.SIGSTOP if on else signal.SIGCONT)
        except OSError:
            return
        self._held = on
        if on:
            self.holds += 1

    def present(self, frame: Frame) -> bool:
        self._flush()   # what the socket could not take before
        if self.sock is None:
            self._maybe_restart()
            if self.sock is None:
                self._waiting, self._changed = frame, True
                return True
        if self._in_flight:
            # the child still draws the last one: this one waits, a newer one replaces it
            self._changed = self._changed or frame.changed
            self._waiting = frame
            return True
        self._post(frame, frame.changed)
        return True

    def _post(self, frame: Frame, changed: bool) -> None:
        self._changed = False
        self._in_flight = True
        self.frames_sent += 1
        self.last_sent = frame
        self._send(_message("frame", frame if frame.changed == changed else replace(frame, changed=changed)))
        self._flush()

    def test_events(self, events: list[tuple[str, dict]]) -> None:
        """Post pygame events in the child (tests: ``("KEYDOWN", {"key": ...})``)."""
        self._send(_message("events", events))
        self._flush()

    def save(self, path: str) -> None:
        """Ask the child to save the screen as drawn now to ``path`` (tests, a look at the window)."""
        self._send(_message("save", str(path)))
        self._flush()

    def close(self) -> None:
        self._reads.put((None, None))
        self._stopping = True
        self.hold(False)
        if self.sock is not None:
            try:
                self.sock.setblocking(True)
                self.sock.settimeout(1.0)
                with self._send_lock:
                    self.sock.sendall(bytes(self._out) + _message("quit"))
                    self._out.clear()
            except OSError:
                pass
        if self.proc is not None:
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.sock is not None:
            self.sock.close()
        self.sock, self.proc = None, None


# -- the child process ---------------------------------------------------------------


class _ChildShell:
    """What the child's :class:`~controller.screens.window.Window` may do: send it to the parent."""

    typing = False

    def __init__(self, conn: "_Conn", cache_bytes: int | None):
        self.conn = conn
        self.pictures = None if cache_bytes is None else Pictures(conn.picture, cache_bytes)
        self.stopped = False

    def _say(self, **msg) -> None:
        self.conn.write(msg)

    def key_down(self, names: list[str]) -> None:
        self._say(k="down", names=names)

    def key_up(self, names: list[str]) -> None:
        self._say(k="up", names=names)

    def text_input(self, text: str) -> None:
        self._say(k="text", text=text)

    def stop(self) -> None:
        self.stopped = True
        self._say(k="stop")

    def set_screen(self, screen: Any) -> None:
        pass

    def use(self, out: Any = None, scrollback: Any = None) -> None:
        pass

    def notice(self, key: str, /, **params) -> None:
        pass


class _Conn:
    """The child's end of the socket: messages from the parent, lines to it."""

    def __init__(self, fd: int):
        self.sock = socket.socket(fileno=fd)
        self.buf = b""
        self.later: deque = deque()
        self.next_id = 0

    def write(self, msg: dict) -> None:
        self.sock.sendall(json.dumps(msg, ensure_ascii=False).encode() + b"\n")

    def _read_one(self, timeout: float | None):
        while len(self.buf) < HEADER.size or len(self.buf) < HEADER.size + HEADER.unpack_from(self.buf)[0]:
            if timeout is not None:
                ready, _, _ = select.select([self.sock], [], [], timeout)
                if not ready:
                    return None
            data = self.sock.recv(1 << 20)
            if not data:
                raise EOFError
            self.buf += data
            timeout = None if timeout is None else 0.5   # the rest of a message follows at once
        n = HEADER.unpack_from(self.buf)[0]
        body, self.buf = self.buf[HEADER.size:HEADER.size + n], self.buf[HEADER.size + n:]
        return pickle.loads(body)

    def messages(self, timeout: float) -> list:
        """Whatever the parent sent (waiting at most ``timeout`` for the first)."""
        out = list(self.later)
        self.later.clear()
        msg = self._read_one(0.0 if out else timeout)
        while msg is not None:
            out.append(msg)
            msg = self._read_one(0.0)
        return out

    def picture(self, member: str | None) -> bytes | None:
        if not member:
            return None
        self.next_id += 1
        ident = self.next_id
        self.write({"k": "picture", "id": ident, "member": member})
        while True:
            msg = self._read_one(None)
            if msg[0] == "picture" and msg[1] == ident:
                return msg[2]
            self.later.append(msg)


def _die_with_parent() -> None:
    """The child ends when the program does, even stopped (Linux: PR_SET_PDEATHSIG)."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def child_main(fd: int) -> int:
    _die_with_parent()
    # Ctrl+C in the terminal reaches the whole process group: the program decides to end (and
    # then closes this window); a SIGTERM to the group ends this one quietly
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    try:
        os.nice(NICE)
    except OSError:
        pass
    conn = _Conn(fd)
    try:
        hello = conn._read_one(None)
    except EOFError:
        return 0
    _, cfg, cache_bytes = hello
    from controller.sdl import pygame
    from controller.screens.window import Window

    shell = _ChildShell(conn, cache_bytes)
    window = Window(cfg)
    window.open(shell)
    try:
        while not shell.stopped:
            window.poll()
            try:
                msgs = conn.messages(window.max_wait_s)
            except EOFError:
                return 0   # the program ended
            frame, saves = None, []
            for msg in msgs:
                if msg[0] == "frame":   # the latest is drawn; "changed" if any of them said so
                    frame = msg[1] if frame is None or not frame.changed else replace(msg[1], changed=True)
                elif msg[0] == "events":
                    for name, attrs in msg[1]:
                        pygame.event.post(pygame.event.Event(getattr(pygame, name), **attrs))
                elif msg[0] == "save":
                    saves.append(msg[1])
                elif msg[0] == "quit":
                    return 0
            if frame is not None:
                window.present(frame)
                conn.write({"k": "drawn"})
            for path in saves:   # the screen as drawn after the frames sent before
                pygame.image.save(window.surface, path)
                conn.write({"k": "saved", "path": path})
    except (BrokenPipeError, ConnectionResetError, EOFError):
        return 0
    finally:
        window.close()
    return 0


if __name__ == "__main__":
    sys.exit(child_main(int(sys.argv[1])))
