"""The names of the bundled sounds (pure: the config checks a team's ``sound`` with them
without importing the mixer)."""

from __future__ import annotations

from controller.i18n import Text

SOUND_NAMES = ("press", "right", "wrong", "time_up", "warning", "false_start", "start", "tick")
"""Every sound the engine may ask for (``sounds/make_sounds.py`` makes them)."""

TEAM_SOUND_NAMES = tuple(f"press-{k}" for k in range(1, 9))
"""The bundled teams' own press sounds (``[[teams]] sound``; ``sounds/make_sounds.py``)."""


def team_sound_problem(value: str) -> Text | None:
    """Why ``value`` cannot be a team's press sound (None: it can): a bundled sound's name
    or a WAV file."""
    if value.lower().endswith(".wav") or value in TEAM_SOUND_NAMES or value in SOUND_NAMES:
        return None
    return Text("config.team_sound_name", names=", ".join(TEAM_SOUND_NAMES), value=repr(value))
