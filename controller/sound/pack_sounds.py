"""A question's sounds from a SIGame package, played one after another.

SIGame plays a question's content items in turn: a sound waits for the one before it to end,
or, when the package gives that one a time of its own (v5 ``duration``, v4 atom ``time``),
for that time (a longer track is cut there, a shorter one leaves silence until then).  The
game says which sounds a question has (``PackSound(MEMBER, seconds=…)`` effects, in order,
from one step); only the shell can know when a track has ended, so the order is kept here.

Each sound is streamed by the mixer's music channel (:meth:`Audio.play_file`), which holds
one track; :meth:`PackSounds.poll`, called by the loop on every round
(:meth:`controller.app.loop.Loop.tick_if_due`), starts the next one when the current one is
over.  A sound's file is asked for (written out of the archive) only when it starts.
:meth:`stop` -- the question is answered, exhausted, withdrawn -- stops the one playing and
drops the rest.
"""

from __future__ import annotations

from typing import Any, Callable

NS_PER_S = 1_000_000_000
POLL_NS = 20_000_000
"""How often the loop looks whether the track playing has ended (the most silence between two sounds)."""


class PackSounds:
    """The package sounds of the question in play, in order.

    :param audio: returns the player (:class:`controller.sound.audio.Audio`, or None), asked
        at each use (the loop's player may be set after the loop is made)
    :param resolve: archive member -> a file to play (None: the package has no such file)
    :param unplayed: told the member of a sound that cannot be played (the host's notice)
    """

    def __init__(self, audio: Callable[[], Any], resolve: Callable[[str], str | None],
                 unplayed: Callable[[str], None]):
        self._audio = audio
        self._resolve = resolve
        self._unplayed = unplayed
        self._waiting: list[tuple[str, float]] = []
        self._until: int | None = None      # the current sound's own time ends (None: at its end)

    @property
    def waiting(self) -> bool:
        """True while sounds of the question are still to come."""
        return bool(self._waiting)

    def start(self, sounds: list[tuple[str, float]], now: int) -> None:
        """Play ``sounds`` ((member, seconds) in order) from ``now``, instead of any playing."""
        self._waiting = list(sounds)
        self._until = None
        self._next(now)

    def stop(self) -> None:
        """The question is over: the sound playing stops, the ones to come are dropped."""
        self._waiting = []
        self._until = None
        stop = getattr(self._audio(), "stop_file", None)
        if stop is not None:
            stop()

    def poll(self, now: int) -> None:
        """Start the next sound if the current one is over (its own time, or its track)."""
        if not self._waiting:
            return
        audio = self._audio()
        if audio is None or getattr(audio, "muted", False):
            self._waiting = []      # muted (the host's key) or gone: nothing more of this question
            return
        if self._until is not None:
            if now >= self._until:
                self._next(now)
            return
        playing = getattr(audio, "file_playing", None)
        if playing is None or not playing():
            self._next(now)

    def next_look(self, now: int) -> int | None:
        """When :meth:`poll` should run next (None: nothing to wait for)."""
        if not self._waiting:
            return None
        return self._until if self._until is not None else now + POLL_NS

    def _next(self, now: int) -> None:
        while self._waiting:
            member, seconds = self._waiting.pop(0)
            audio = self._audio()
            path = self._resolve(member)
            play = getattr(audio, "play_file", None)
            if path is not None and play is not None and play(path):
                self._until = now + int(seconds * NS_PER_S) if seconds > 0 and self._waiting else None
                return
            self._unplayed(member)
            if audio is None or getattr(audio, "muted", False) or not getattr(audio, "available", True):
                self._waiting = []     # no sound at all here: said once, for the first
                return
            # this one cannot be played (not in the archive, a format the mixer cannot read): the next
        self._until = None
