"""Shared by the mode tests: the engine-wide property that ticks carry no information."""

from controller.games import engine
from controller.core.events import Host, Press, Tick

MS = 1_000_000


def play(state, events, with_ticks: bool, end_ns: int):
    """Play ``events`` -- (ms since the previous, button id "B…" or host action, delivery delay ms) --
    from ``state``; with ``with_ticks`` the shell's Tick at every wakeup is sent too.
    Returns (summary, view) after a final Tick at the last event + ``end_ns``."""
    t = 0
    for dt_ms, what, delay_ms in events:
        t += dt_ms * MS
        if with_ticks:
            while (due := engine.wakeup(state)) is not None and due <= t:
                state, _ = engine.step(state, Tick(due))
        if what.startswith("B"):
            state, _ = engine.step(state, Press(what, t, t + delay_ms * MS))
        else:
            state, _ = engine.step(state, Host(what, t + delay_ms * MS, {}))
    state, _ = engine.step(state, Tick(t + end_ns))
    return engine.summary(state), engine.view(state)
