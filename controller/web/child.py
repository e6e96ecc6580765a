"""The web process: ``python -m controller.web.child SOCK VM CTL ACT`` (started by
:class:`controller.web.process.WebProcess`, never by hand).

It serves the pages with a :class:`~controller.web.server.WebServer` on the listening
socket ``SOCK`` that ``buzzer run`` bound, so no viewer, slow client or attacker can take
the game loop's GIL.  It reads (all file descriptors inherited, one JSON object a line):

* ``VM`` -- the game's view models, the newest wins;
* ``CTL`` -- ``{"t": "init", ...}`` first (settings, language, labels, token), then
  ``{"t": "token", "token": ...}`` (a new host token) and ``{"t": "reply", "id": ..,
  "problem": ..}`` (the game's answer to a host action);

and writes host actions to ``ACT`` (``{"id": .., "action": .., "params": {..}}``) and, with phones
(``init["phones"]``), what the game must know of them: ``{"t": "press", "button", "at", "unc",
"flags"}`` (a phone's press, ``at`` on ``CLOCK_MONOTONIC``), ``{"t": "wait", "ns"}`` (how long a
race waits for the phones), ``{"t": "joined", "buttons"}`` (the teams with a phone joined),
``{"t": "team_token", "button", "token"}`` (a team's renewed link).  The end
of ``CTL`` (the game's process has ended, however) ends this process.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import os
import socket
import sys

from controller.web.phones import Hub
from controller.web.server import WebServer

log = logging.getLogger("controller.web")

ANSWER_TIMEOUT_S = 5.0


class Lines:
    """Whole lines from a pipe's file descriptor (non-blocking reads)."""

    def __init__(self, fd: int):
        self.fd = fd
        self.buf = b""
        self.eof = False

    def read(self) -> list[bytes]:
        out = []
        while True:
            try:
                chunk = os.read(self.fd, 1 << 20)
            except BlockingIOError:
                break
            if not chunk:
                self.eof = True
                break
            self.buf += chunk
        if b"\n" in self.buf:
            *out, self.buf = self.buf.split(b"\n")
        return out


def read_init(fd: int) -> dict:
    buf = b""
    while b"\n" not in buf:
        chunk = os.read(fd, 65536)
        if not chunk:
            raise SystemExit(0)
        buf += chunk
    line, rest = buf.split(b"\n", 1)
    init = json.loads(line)
    init["rest"] = rest
    return init


def newest_vm(lines: list[bytes]) -> dict | None:
    for line in reversed(lines):
        try:
            return json.loads(line)
        except ValueError:
            log.warning("web: a view model that is not JSON")
    return None


def main(argv: list[str]) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    sock_fd, vm_fd, ctl_fd, act_fd = (int(a) for a in argv)
    init = read_init(ctl_fd)
    try:   # lower than the game: a crowd of viewers never takes the CPU from the buttons
        os.nice(int(init["settings"].get("nice", 0)))
    except OSError as exc:
        log.warning("web: could not lower this process's priority: %s", exc)
    sock = socket.socket(fileno=sock_fd)
    for fd in (vm_fd, ctl_fd):
        os.set_blocking(fd, False)
    vm_lines, ctl_lines = Lines(vm_fd), Lines(ctl_fd)
    ctl_lines.buf = init.pop("rest")
    pending: dict[int, asyncio.Future] = {}
    ids = itertools.count(1)
    server: WebServer

    async def submit(action: str, params: dict) -> str | None:
        """A host action to the game's process; its answer (a problem or None)."""
        n = next(ids)
        fut = asyncio.get_running_loop().create_future()
        pending[n] = fut
        try:
            os.write(act_fd, json.dumps({"id": n, "action": action, "params": params},
                                        ensure_ascii=False).encode("utf-8") + b"\n")
            return await asyncio.wait_for(fut, ANSWER_TIMEOUT_S)
        except (asyncio.TimeoutError, OSError):
            return f"{action}: the game did not answer"
        finally:
            pending.pop(n, None)

    server = WebServer(init["settings"], init["lang"], enqueue=lambda ev: None,
                       page_labels=init["labels"], token=init["token"], submit=submit)
    phones = init.get("phones")
    if phones:   # phones as the teams' buttons: what the game's process must know goes on ACT

        def tell(msg: dict) -> None:
            try:
                os.write(act_fd, json.dumps(msg).encode("utf-8") + b"\n")
            except OSError:
                log.warning("web: the game's process does not read the phones' messages")

        server.hub = Hub(phones["settings"], phones["tokens"],
                         send_press=lambda button, at, unc, flags: tell(
                             {"t": "press", "button": button, "at": at, "unc": unc, "flags": list(flags)}),
                         send_wait=lambda ns: tell({"t": "wait", "ns": ns}),
                         send_joined=lambda buttons: tell({"t": "joined", "buttons": buttons}))
        server.play_base = phones["base"]
        server.phone_teams = set(phones.get("phone_teams") or ())
        server.tie_rule = phones.get("tie_rule", server.tie_rule)
        server.on_team_token = lambda button, token: tell({"t": "team_token", "button": button, "token": token})
    vm = newest_vm(vm_lines.read())   # what the game published before this process started
    if vm is not None:
        server.snapshot = vm

    def on_vm() -> None:
        vm = newest_vm(vm_lines.read())
        if vm is not None:
            server._set_snapshot(vm)
        if vm_lines.eof:
            aloop.remove_reader(vm_fd)

    def on_ctl() -> None:
        for line in ctl_lines.read():
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if msg.get("t") == "token":
                server.token = msg["token"]
                server._demote_hosts()
            elif msg.get("t") == "reply":
                fut = pending.get(msg.get("id"))
                if fut is not None and not fut.done():
                    fut.set_result(msg.get("problem"))
        if ctl_lines.eof:   # the game's process has ended: so does this one
            aloop.remove_reader(ctl_fd)
            server._stopped.set()
            aloop.stop()

    # the control messages are read on the server's own loop, before any request that came
    # after them (a rotated token holds for the very next request)
    aloop = None

    def readers(loop) -> None:
        nonlocal aloop
        aloop = loop
        aloop.add_reader(vm_fd, on_vm)
        aloop.add_reader(ctl_fd, on_ctl)
        on_vm()
        on_ctl()

    server.start(sock=sock, before_serve=readers)
    if not server.alive:
        return 1
    server._thread.join()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
