"""What ``buzzer run``'s own process needs of the web pages, without aiohttp: the listening
socket (:func:`bind_socket`), the host token (:func:`new_token`), the LAN address.  The pages
themselves (:mod:`controller.web.server`, aiohttp) run in the web process; loading aiohttp
in the game's process would only slow its start (docs/performance.md «Start-up»)."""

from __future__ import annotations

import secrets
import socket
from typing import Any, Mapping

TOKEN_BYTES = 18


class WebError(Exception):
    """The web server cannot start (the port is taken ...): one line for the host."""


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


LOCAL_BINDS = ("127.0.0.1", "localhost", "::1")
"""``[web] bind`` values that listen on this computer only: no phone can open the pages."""


def local_only(bind: str) -> bool:
    """The pages listen on this computer only (the default bind): no phone can open their links."""
    return bind in LOCAL_BINDS


def lan_address() -> str:
    """The address other machines on the LAN reach this one at (the interface of the default
    route; no packet is sent), or 127.0.0.1."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("192.0.2.1", 9))
        return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        s.close()


def bind_socket(bind: str, port: int, tries: int) -> socket.socket:
    """A listening socket on ``bind``: ``port``, else (``tries`` > 1) the next free one.

    Raises :class:`WebError` naming the port when none is free."""
    family = socket.AF_INET6 if ":" in bind else socket.AF_INET
    last: OSError | None = None
    for p in range(port, port + max(tries, 1)):
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((bind, p))
            sock.listen(128)
            sock.setblocking(False)
            return sock
        except OSError as exc:
            sock.close()
            last = exc
            if exc.errno not in (98, 48, 10048, 13):  # in use / permission: try the next one
                break
    span = f"{port}" if tries <= 1 else f"{port}-{port + tries - 1}"
    raise WebError(f"web: cannot listen on {bind}:{span}: {last.strerror if last else 'unknown error'}")


def ports_to_try(settings: Mapping[str, Any]) -> int:
    """How many ports from ``[web] port`` on a busy port moves to (``next_free_port``)."""
    return 20 if settings.get("next_free_port", True) else 1
