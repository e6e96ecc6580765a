"""A stop signal in ``buzzer run``'s first moments, before the game's own handlers are in place.

``buzzer run`` ends on SIGTERM (``systemctl stop``, ``timeout``), SIGINT (Ctrl-C) and SIGHUP
like the quit key: the journal is closed, the web pages' process stopped and the line naming
the command that continues the game printed (controller/app/startup.py ``_stop_on_signals``).
Those handlers need the loop, which exists only after the slow part of the start (the game's
modules, the config, the journal, the backend, the sound, the web pages).  :func:`hold` is
called first thing (controller/cli.py, before any of that is imported): a stop signal that
comes before the loop is kept, and the loop, once built, stops at once through the same tidy
end as a stop signal during the game (:func:`pending`).  Two signals, or one while the start
waits for the host's answer (the resume question, :func:`asking`), end the start at once as
Ctrl-C does (``KeyboardInterrupt``: nothing has changed yet or the ``finally`` blocks undo it).

Imports nothing of the program: it runs before the rest is loaded.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Callable, Iterator

STOP_SIGNALS = ("SIGTERM", "SIGINT", "SIGHUP")
"""The signals that end ``buzzer run`` like the quit key."""

_received: list[int] = []
_asking = False


def _early(signum, frame) -> None:
    if _received or _asking:
        raise KeyboardInterrupt   # a second signal, or the start is waiting for the host: out now
    _received.append(signum)


def hold() -> Callable[[], None]:
    """Keep a stop signal that comes before the game's own handlers (see the module's words).
    Returns what puts the handlers before it back (and forgets a kept signal): the command's end."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None   # (a test running the command on a thread of its own)
    old = {}
    for name in STOP_SIGNALS:
        sig = getattr(signal, name, None)
        if sig is not None:
            old[sig] = signal.signal(sig, _early)

    def release() -> None:
        for sig, handler in old.items():
            signal.signal(sig, handler)
        _received.clear()
    return release


def pending() -> int | None:
    """The stop signal that came during the start (None: none came)."""
    return _received[0] if _received else None


@contextlib.contextmanager
def asking() -> Iterator[None]:
    """While the start waits for the host's answer: a stop signal ends it at once (a signal kept
    until then does too)."""
    global _asking
    if _received:
        raise KeyboardInterrupt
    _asking = True
    try:
        yield
    finally:
        _asking = False
