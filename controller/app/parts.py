"""The loop's own parts (controller/core/part.py): the sounds, the players' lamps, a package's media.

Each carries out the effects of the types it declares; the loop hands them out through one
table (:meth:`controller.app.loop.Loop.add_part`).  They read the loop's ``audio`` and
``backend`` when an effect comes (a test may give the loop other ones), never assign them.
The web pages' part is in controller/web/attach.py, the festival's in controller/festival/hall.py.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

from controller.core.effects import Lamp, PackSound, PackStop, Sound
from controller.core.part import Part
from controller.screens.frontend import Pictures
from controller.sound.pack_sounds import PackSounds

log = logging.getLogger(__name__)


class Speakers(Part):
    """A sound on the speakers: a press with a team's own sound (``Audio.handle``); a plain
    player just plays the name."""

    effects = (Sound,)

    def __init__(self, audio: Callable[[], Any]):
        self.audio = audio

    def effect(self, f: Sound, now: int) -> None:
        audio = self.audio()
        if audio is not None:
            handle = getattr(audio, "handle", None)
            handle(f) if handle is not None else audio.play(f.name)


class Buttons(Part):
    """The players' buttons' own outputs: a beep (a box with a buzzer) and the lamps."""

    effects = (Sound, Lamp)

    def __init__(self, backend: Callable[[], Any]):
        self.backend = backend

    def effect(self, f, now: int) -> None:
        backend = self.backend()
        if backend is None:
            return
        if isinstance(f, Sound):
            backend.beep(f.name)
            return
        try:
            backend.set_lamp(f.button, f.state)
        except Exception as exc:  # a lamp must never stop the game
            log.warning("lamp %s: %s", f.button, exc)


PICTURE_CACHE_KEY = "pack_picture_cache_mb"
"""The config key a game that plays packages declares for the memory of their decoded pictures."""

PICTURE_CACHE_MB = 48.0
"""That memory when the game declares no such key."""


def picture_cache_bytes(game: Any, cfg: dict) -> int:
    """The memory a screen may keep a package's pictures decoded in: the :data:`PICTURE_CACHE_KEY`
    of the section of ``game``'s declared settings that has it (its value in ``cfg``)."""
    for section in getattr(game, "sections", ()):
        for key in section.keys:
            if key.name == PICTURE_CACHE_KEY:
                mb = (cfg.get(section.name) or {}).get(key.name, key.default)
                return int(float(mb) * 1024 * 1024)
    return int(PICTURE_CACHE_MB * 1024 * 1024)


class PackMedia(Part):
    """The extracted media of a SIGame package being played (controller/content/packs.py):
    its sounds, one after another (controller/sound/pack_sounds.py); the screens read its
    pictures (:meth:`pictures`) within ``cache_bytes`` (:func:`picture_cache_bytes`)."""

    effects = (PackSound, PackStop)

    def __init__(self, audio: Callable[[], Any], unplayed: Callable[[str], None],
                 cache_bytes: int = int(PICTURE_CACHE_MB * 1024 * 1024)):
        self.media = None
        self.cache_bytes = cache_bytes
        self.sounds = PackSounds(audio, self._path, unplayed)
        self._pending: list | None = None   # this step's sounds, played one after another

    def pictures(self) -> Pictures | None:
        """The package's pictures for a screen, when a package is played."""
        return None if self.media is None else Pictures(self.media.data, self.cache_bytes)

    def _path(self, member: str) -> str | None:
        """A package sound as a file for the mixer (written out of the archive when first played)."""
        return self.media.path(member) if self.media is not None else None

    def effect(self, f, now: int) -> None:
        if isinstance(f, PackStop):   # its question is over
            self.sounds.stop()
            self._pending = None
        else:
            self._pending = (self._pending or []) + [(f.member, f.seconds)]

    def stepped(self, now: int) -> None:
        if self._pending:
            self.sounds.start(self._pending, now)
        self._pending = None

    def beat(self, now: int) -> None:
        if self.sounds.waiting:
            self.sounds.poll(now)

    def next_look(self, now: int) -> int | None:
        return self.sounds.next_look(now)   # the next of a question's sounds

    def stop(self) -> None:
        if self.media is not None:
            self.media.close()
