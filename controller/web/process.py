"""The web pages in a process of their own (docs/web.md, «Architecture»).

:class:`WebProcess` is what ``buzzer run`` holds: it binds the listening socket itself (so a
busy port is the same one-line error, or the next free port, and the addresses are known
at once), then starts ``python -m controller.web.child`` with that socket and three pipes.
The game's process keeps only the small end of the work:

* :meth:`WebProcess.publish` (the loop thread) serialises a view model once and writes it to
  a non-blocking pipe; when the pipe is full (the web process is stuck), the snapshot waits
  and only the newest one goes when the pipe has room (:meth:`pump`): viewers resync by
  ``seq``.  It never blocks and never raises.
* a reader thread takes the host actions the web process passed on (``POST /api/host``
  with a good token, our Origin, within the rate limit), checks them against the game as
  the web thread used to (``check``) and enqueues each as the keypad's
  :class:`~controller.core.events.HostKey` through the loop's one sink; the answer goes
  back to the web process (202, or 422 with the problem).
* the host token is made here and passed on (rotated through the control pipe).

A crash of the web process is logged and the game goes on; it is started again after
1, 2, 4 ... 30 s.  Its end while the game itself stops (a signal to the whole process group,
``systemctl stop``) is no crash and is not logged.  :meth:`stop` ends it by its pid (also from ``atexit``); if the game's
process dies without a word, the web process sees its control pipe close and ends too.
"""

from __future__ import annotations

import atexit
import fcntl
import json
import logging
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Callable, Mapping

from controller.core.events import HostKey
from controller.inputs import priority
from controller.web.net import bind_socket, new_token, ports_to_try

log = logging.getLogger(__name__)

PIPE_BYTES = 1 << 20
"""The size asked for the view-model pipe (Linux; 64 KiB elsewhere)."""

RESTART_DELAYS_S = (1, 2, 4, 8, 15, 30)

STOP_GRACE_S = 0.5
"""How long after the web process's end the game may still say it is stopping (then the end
was the game's own, not a crash): part of the first restart delay."""

_F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)


class WebProcess:
    """The web server in its own process; the same interface ``buzzer run`` used on the thread
    (:class:`~controller.web.server.WebServer`): ``start``, ``stop``, ``publish``,
    ``rotate_token``, ``token``, ``bind``, ``port``, ``settings``, ``alive``."""

    def __init__(self, settings: Mapping[str, Any], lang: str, enqueue: Callable[[Any], None],
                 check: Callable[[str, dict], str | None] | None = None,
                 page_labels: Mapping[str, str] | None = None, token: str | None = None,
                 restart: bool = True, phones: Any = None, game_stopping: Callable[[], bool] | None = None):
        self.phones = phones
        self.game_stopping = game_stopping or (lambda: False)
        """Whether the game is stopping (its loop has been told to end): the web process's end
        then is the game's own (a signal to the whole process group, ``systemctl stop``), no crash."""
        """The game's side of the phones (:class:`controller.web.attach.PhoneBridge`), or None."""
        self.settings = dict(settings)
        self.lang = lang
        self.enqueue = enqueue
        self.check = check
        self.labels = dict(page_labels or {})
        self.token = token or new_token()
        self.bind = self.settings["bind"]
        self.port = 0
        self.restart = restart
        self.proc: subprocess.Popen | None = None
        self.sock: socket.socket | None = None
        self.actions = 0
        self.dropped = 0
        self.restarts = 0
        self.backlog = False
        self._vm_w = -1
        self._ctl_w = -1
        self._partial = b""
        self._waiting: bytes | None = None
        self._latest: bytes | None = None
        self._vm_lock = threading.Lock()
        self._ctl_lock = threading.Lock()
        self._stopping = False
        self._stopped = threading.Event()
        self._reader: threading.Thread | None = None

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None and not self._stopping

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    # -- start and stop ------------------------------------------------------------
    def start(self) -> None:
        """Bind (raises :class:`~controller.web.server.WebError` naming the port) and start the
        web process; returns at once (connections wait in the socket's backlog meanwhile)."""
        self.sock = bind_socket(self.bind, int(self.settings["port"]), ports_to_try(self.settings))
        self.port = self.sock.getsockname()[1]
        act_r = self._spawn()
        atexit.register(self.stop)
        self._reader = threading.Thread(target=self._read_actions, args=(act_r,), name="buzzer-web-actions",
                                        daemon=True)
        self._reader.start()

    def _spawn(self) -> int:
        """Start the web process; the read end of its action pipe."""
        vm_r, vm_w = os.pipe()
        ctl_r, ctl_w = os.pipe()
        act_r, act_w = os.pipe()
        try:
            fcntl.fcntl(vm_w, _F_SETPIPE_SZ, PIPE_BYTES)
        except OSError:
            pass
        os.set_blocking(vm_w, False)
        os.set_blocking(ctl_w, False)
        root = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ)
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        fds = (self.sock.fileno(), vm_r, ctl_r, act_w)
        try:
            with priority.children_normal():   # below the game: never at the buttons' level
                self.proc = subprocess.Popen([sys.executable, "-m", "controller.web.child", *map(str, fds)],
                                             pass_fds=fds, stdin=subprocess.DEVNULL, env=env)
        finally:
            for fd in (vm_r, ctl_r, act_w):
                os.close(fd)
        init = {"t": "init", "settings": self.settings, "lang": self.lang, "labels": self.labels,
                "token": self.token}
        if self.phones is not None:
            init["phones"] = self.phones.init(self)
        with self._vm_lock:
            old = (self._vm_w, self._ctl_w)
            self._vm_w, self._ctl_w = vm_w, ctl_w
            self._partial, self._waiting, self.backlog = b"", None, False
            self._control(init)
            if self._latest is not None:
                self._send(self._latest)
        for fd in old:
            if fd >= 0:
                os.close(fd)
        return act_r

    def stop(self) -> None:
        """End the web process by its pid (SIGTERM, then SIGKILL) and wait for it."""
        if self._stopping:
            return
        self._stopping = True
        self._stopped.set()
        proc = self.proc
        if proc is not None and proc.poll() is None:
            try:
                proc.terminate()
                proc.wait(3)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(3)
            except OSError:
                pass
        with self._vm_lock:
            for fd in (self._vm_w, self._ctl_w):
                if fd >= 0:
                    try:
                        os.close(fd)
                    except OSError:
                        pass
            self._vm_w = self._ctl_w = -1
        if self.sock is not None:
            self.sock.close()
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(2)
        try:
            atexit.unregister(self.stop)
        except Exception:
            pass

    # -- the game loop's side --------------------------------------------------------
    def publish(self, vm: dict) -> None:
        """Hand the newest view model to the web process; never blocks, never raises."""
        try:
            frame = json.dumps(vm, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        except (TypeError, ValueError):
            log.exception("web: a view model that is not JSON")
            return
        with self._vm_lock:
            self._latest = frame
            if self._partial and not self._flush():
                if self._waiting is not None:
                    self.dropped += 1
                self._waiting = frame   # the pipe is full: only the newest goes when it has room
                self.backlog = True
                return
            self._send(frame)

    def pump(self) -> None:
        """Send what a full pipe held back (the loop thread, after a step, when ``backlog``)."""
        with self._vm_lock:
            if self._partial and not self._flush():
                return
            frame, self._waiting = self._waiting, None
            self.backlog = False
            if frame is not None:
                self._send(frame)

    def _send(self, frame: bytes) -> None:
        self._partial = frame
        if not self._flush():
            self.backlog = True

    def _flush(self) -> bool:
        """Write what is left of the current frame; whether it is all written."""
        while self._partial:
            try:
                n = os.write(self._vm_w, self._partial)
            except BlockingIOError:
                return False
            except OSError:   # the web process is gone (or stopped): nothing to wait for
                self._partial = b""
                return True
            self._partial = self._partial[n:]
        return True

    def rotate_token(self) -> str:
        """A new host token, passed on: the old link stops working."""
        self.token = new_token()
        self._control({"t": "token", "token": self.token})
        return self.token

    def _control(self, msg: dict) -> None:
        data = json.dumps(msg, ensure_ascii=False).encode("utf-8") + b"\n"
        with self._ctl_lock:
            try:
                while data:
                    try:
                        data = data[os.write(self._ctl_w, data):]
                    except BlockingIOError:
                        # 64 KiB of control messages unread: the web process is stuck
                        log.warning("web: the pages' process does not read; a message is lost")
                        return
            except OSError:
                pass

    # -- the reader thread -----------------------------------------------------------
    def _read_actions(self, fd: int) -> None:
        delay = 0
        while True:
            buf = b""
            while True:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    break
                buf += chunk
                *lines, buf = buf.split(b"\n")
                for line in lines:
                    self._action(line)
            os.close(fd)
            if self._stopping:
                return
            code = self.proc.wait() if self.proc is not None else None
            # a signal to the whole process group (systemctl stop, Ctrl-C) ends the web process
            # and the game at once, the web process's end often seen first: a moment for the
            # game's own stop (its signal handler, then stop()) before it counts as a crash
            if self._stopped.wait(STOP_GRACE_S) or self.game_stopping():
                return
            log.error("web: the pages' process ended (exit code %s); the game goes on", code)
            if not self.restart:
                return
            if self._stopped.wait(max(RESTART_DELAYS_S[min(delay, len(RESTART_DELAYS_S) - 1)] - STOP_GRACE_S, 0)):
                return
            delay += 1
            if self._stopping:
                return
            try:
                fd = self._spawn()
                self.restarts += 1
            except OSError:
                log.exception("web: the pages' process cannot start again")
                return

    def _action(self, line: bytes) -> None:
        try:
            msg = json.loads(line)
            if isinstance(msg, dict) and "t" in msg:   # the phones' messages
                if self.phones is not None:
                    self.phones.message(msg)
                return
            n, action, params = msg["id"], msg["action"], msg["params"]
            if not isinstance(action, str) or not isinstance(params, dict):
                raise ValueError("not an action")
        except (ValueError, KeyError, TypeError):
            log.warning("web: a message from the pages' process that is not an action")
            return
        try:
            problem = self.check(action, params) if self.check is not None else None
            if not problem:
                self.enqueue(HostKey(action, params, confirmed=True))   # the page asked for its second tap
                self.actions += 1
        except Exception:
            log.exception("web: host action %s", action[:40])
            problem = f"{action[:40]}: the game cannot take it"
        self._control({"t": "reply", "id": n, "problem": problem})
