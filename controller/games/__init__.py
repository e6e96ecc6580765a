"""Game modes.  Each is a module with the same pure functions:

``initial(config, seed) -> state``, ``step(state, event) -> (state, effects)``,
``wakeup(state) -> int | None``, ``view(state, now) -> dict``,
``summary(state) -> dict`` and a ``HOST_ACTIONS`` mapping.
"""
