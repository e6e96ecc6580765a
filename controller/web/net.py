"""What ``buzzer run``'s own process needs of the web pages, without aiohttp: the listening
socket (:func:`bind_socket`), the host token (:func:`new_token`), the LAN address.  The pages
themselves (:mod:`controller.web.server`, aiohttp) run in the web process; loading aiohttp
in the game's process would only slow its start (docs/performance.md «Start-up»)."""

from __future__ import annotations

import errno
import json
import secrets
import socket
from typing import Any, Mapping

from controller.i18n import t

TOKEN_BYTES = 18


class WebError(Exception):
    """The web server cannot start (the port is taken ...): one line for the host.

    ``str()`` is the log's English line; :meth:`words` the host's, in ``lang``: the address and
    the ports tried (``[web] bind``, ``[web] port`` and the ports after it) and why, from the
    errno (``reason``: ``unknown_host``, ``not_here``, ``busy``, ``denied``; "" for another,
    told in the system's words, ``detail``)."""

    def __init__(self, message: str, bind: str = "", ports: str = "", reason: str = "", detail: str = "",
                 section: str = "[web] bind"):
        super().__init__(message)
        self.bind, self.ports, self.reason, self.detail, self.section = bind, ports, reason, detail, section

    def words(self, lang: str) -> str:
        if not self.ports:
            return str(self)
        why = t(f"web.reason.{self.reason}" + ("_all" if self.reason == "busy" and "-" in self.ports else ""),
                lang) if self.reason else self.detail
        where = t("web.where_ports" if "-" in self.ports else "web.where_port", lang, key=self.section,
                  bind=json.dumps(self.bind, ensure_ascii=False), ports=self.ports)
        return f"{where}: {why}"


REASONS = {errno.EADDRNOTAVAIL: "not_here", errno.EADDRINUSE: "busy", errno.EACCES: "denied"}
"""The errnos of a bind the host is told in their words (:meth:`WebError.words`)."""


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
    detail = (last.strerror or str(last)) if last else "unknown error"
    reason = "unknown_host" if isinstance(last, socket.gaierror) else REASONS.get(getattr(last, "errno", None), "")
    raise WebError(f"web: cannot listen on {bind}:{span}: {detail}", bind, span, reason, detail)


def ports_to_try(settings: Mapping[str, Any]) -> int:
    """How many ports from ``[web] port`` on a busy port moves to (``next_free_port``)."""
    return 20 if settings.get("next_free_port", True) else 1
