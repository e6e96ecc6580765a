"""The audio shell: plays the engine's :class:`~controller.core.effects.Sound` effects.

The engine says *which* sound (``Sound("press")``); this module owns the
mixer and the preloaded samples and starts the sound at once, without
blocking the loop.  It is thin on purpose: no decisions, no timing of its own.

Latency: the mixer is opened with a small buffer (``[sound] buffer_frames``,
256 frames = 5.8 ms at 44.1 kHz) and every sound is decoded at start-up, so
:meth:`Audio.play` only hands a ready buffer to SDL's mixing thread.  Call it
from the loop thread right when the effect is handled; the sound then starts
within about one buffer (``benchmarks/sound_latency.py`` measures it).

No audio device (a Pi without a sound card, a CI box): one warning line is
logged and :meth:`Audio.play` does nothing; the game goes on silently.

Where the sounds come from: ``[sound] dir`` if set (a file missing there is
taken from the bundled set), else the bundled ``controller/data/sounds``,
which in a checkout is a link to the repository's ``sounds/`` folder and in
an installed wheel holds copies of its WAV files.
"""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path
from typing import Any, Iterable, Mapping

from controller.core.effects import Sound
from controller.i18n import DEFAULT_LANG, t

log = logging.getLogger(__name__)

from controller.sound.names import SOUND_NAMES, TEAM_SOUND_NAMES, team_sound_problem  # noqa: F401  (re-exported)

RATE = 44_100
DEFAULTS: Mapping[str, Any] = {"mute": False, "volume": 0.8, "buffer_frames": 256, "dir": ""}
"""The ``[sound]`` section's defaults (the schema in controller/app/config.py is authoritative)."""

_PACKAGE_DIR = Path(__file__).resolve().parent.parent


def bundled_sounds_dir() -> Path:
    """The folder of the sounds shipped with the package.

    ``controller/data/sounds`` (a link to ``sounds/`` in a checkout, real
    files in an installed wheel); failing that, ``sounds/`` next to the
    package (a checkout whose link was not kept, e.g. copied without links).
    """
    candidates = (_PACKAGE_DIR / "data" / "sounds", _PACKAGE_DIR.parent / "sounds")
    for folder in candidates:
        if (folder / "press.wav").is_file():
            return folder
    return candidates[0]


def sound_paths(configured_dir: str | os.PathLike = "",
                names: Iterable[str] = SOUND_NAMES) -> dict[str, Path]:
    """Map each sound name to its WAV file: the configured folder first,
    then the bundled one.  Names with no file anywhere are left out."""
    folders = []
    if configured_dir:
        folders.append(Path(configured_dir).expanduser())
    folders.append(bundled_sounds_dir())
    found = {}
    for name in names:
        for folder in folders:
            path = folder / f"{name}.wav"
            if path.is_file():
                found[name] = path
                break
    return found


def _short_detail(exc: BaseException) -> str:
    """The audio driver a library error names, for the host's line: ``" (ALSA)"`` from
    "ALSA: Couldn't open audio device: ..."; nothing when it names none."""
    head = str(exc).split(":", 1)[0].strip()
    if ":" in str(exc) and head and len(head) <= 16 and " " not in head:
        return f" ({head})"
    return ""


@contextlib.contextmanager
def _quiet_stderr():
    """Silence C libraries writing to fd 2 while the mixer opens.

    Without a sound card, libasound prints a dozen "ALSA lib ..." lines before
    SDL gives up; the user should see our one warning instead.  The failure
    itself still arrives as a ``pygame.error``.
    """
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 2)
        os.close(null)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


class Audio:
    """Plays named sounds through pygame's mixer.

    :param config: the whole configuration (its ``[sound]`` section is read;
        missing keys take :data:`DEFAULTS`), or ``None`` for the defaults.

    Create it before ``pygame.init()`` if you can: the mixer must be opened
    with our buffer size, and a mixer that ``pygame.init()`` already opened
    with other settings is closed and reopened.
    """

    def __init__(self, config: Mapping[str, Any] | None = None):
        options = dict(DEFAULTS)
        options.update((config or {}).get("sound", {}) or {})
        self.muted: bool = bool(options["mute"])
        self.volume: float = min(1.0, max(0.0, float(options["volume"])))
        self.buffer_frames: int = int(options["buffer_frames"])
        self.sounds_dir: str = str(options["dir"] or "")
        self.lang: str = str((config or {}).get("language") or DEFAULT_LANG)
        self.available = False
        """True when a device was opened and sounds can play."""
        self.problem: str | None = None
        """Why there is no sound, when :attr:`available` is false."""
        self._mixer = None
        self._sounds: dict[str, Any] = {}
        self.team_sounds: dict[str, str] = {t["button"]: t["sound"] for t in (config or {}).get("teams", ())
                                            if t.get("sound")}
        """Button -> its team's own press sound (a bundled name or a WAV file)."""
        self._team: dict[str, Any] = {}
        self._open()

    # --- setup ---------------------------------------------------------------------------

    def _open(self) -> None:
        try:
            from controller.sdl import pygame
            import pygame.mixer as mixer
        except (ImportError, NotImplementedError) as exc:  # pygame built without SDL_mixer
            self._give_up(t("no_sound_mixer", self.lang), exc)
            return
        try:
            if mixer.get_init():
                mixer.quit()
            mixer.pre_init(RATE, -16, 2, self.buffer_frames)
            with _quiet_stderr():
                mixer.init(RATE, -16, 2, self.buffer_frames)
            mixer.set_num_channels(16)
        except (pygame.error, NotImplementedError) as exc:
            self._give_up(t("no_sound_device", self.lang) + _short_detail(exc), exc)
            return
        self._mixer = mixer
        self.available = True
        self._load()

    def _load(self) -> None:
        if self.sounds_dir and not Path(self.sounds_dir).expanduser().is_dir():
            log.warning("sound.dir: folder not found: %s; using the bundled sounds", self.sounds_dir)
        paths = sound_paths(self.sounds_dir)
        missing = [n for n in SOUND_NAMES if n not in paths]
        bad = []
        for name, path in paths.items():
            try:
                sound = self._mixer.Sound(str(path))
            except Exception as exc:  # pygame.error for a broken file; keep going
                bad.append(f"{path.name} ({exc})")
                continue
            sound.set_volume(self.volume)
            self._sounds[name] = sound
        for button, spec in self.team_sounds.items():
            path = Path(spec).expanduser() if spec.lower().endswith(".wav") else \
                sound_paths(self.sounds_dir, (spec,)).get(spec)
            try:
                if path is None or not Path(path).is_file():
                    raise FileNotFoundError(spec)
                sound = self._mixer.Sound(str(path))
            except Exception as exc:  # the team's sound is missing or broken: the common press
                bad.append(f"{spec} ({exc.__class__.__name__})")
                continue
            sound.set_volume(self.volume)
            self._team[button] = sound
        if missing or bad:
            log.warning("sounds not loaded: %s", ", ".join(missing + bad))

    def _give_up(self, problem: str, exc: BaseException | None = None) -> None:
        """No sound: one line in the game's language (``problem``); the library's own words
        (``exc``) only in the debug log."""
        self.available = False
        self.problem = problem
        log.warning("%s", t("no_sound", self.lang, problem=problem))
        if exc is not None:
            log.debug("sound: %s", exc)

    # --- playing -------------------------------------------------------------------------

    def play(self, name: str) -> None:
        """Start the sound ``name`` now and return at once.

        Does nothing when muted, without a device or for an unknown name.
        """
        if self.muted:
            return
        sound = self._sounds.get(name)
        if sound is not None:
            sound.play()

    def play_file(self, path: str) -> bool:
        """Play a sound file once (a question's audio from a package): streamed by the mixer's
        music channel, so a long track is never decoded whole into memory, and it replaces any
        package sound still playing; False when it cannot be played (no device, muted, not a
        sound SDL_mixer reads).  A question's sounds one after another:
        :mod:`controller.sound.pack_sounds`."""
        if self.muted or self._mixer is None or not self.available:
            return False
        try:
            self._mixer.music.load(str(path))
            self._mixer.music.set_volume(self.volume)
            self._mixer.music.play()
        except Exception as exc:  # pygame.error: a format SDL_mixer cannot read
            log.warning("cannot play %s: %s", path, exc)
            return False
        return True

    def file_playing(self) -> bool:
        """True while a package sound (:meth:`play_file`) is still playing."""
        if self._mixer is None or not self.available:
            return False
        try:
            return bool(self._mixer.music.get_busy())
        except Exception as exc:  # pygame.error: the mixer is gone
            log.debug("file_playing: %s", exc)
            return False

    def stop_file(self) -> None:
        """Stop the package sound (its question has ended or was withdrawn) and let go of its file."""
        if self._mixer is not None and self.available:
            try:
                self._mixer.music.stop()
                self._mixer.music.unload()
            except Exception as exc:  # pygame.error: the mixer is gone
                log.debug("stop_file: %s", exc)

    def handle(self, effect: Any) -> None:
        """Carry out an effect if it is a :class:`~controller.core.effects.Sound`: a press
        by a team with its own sound plays that one, so the hall hears who pressed."""
        if isinstance(effect, Sound):
            if effect.button is not None and effect.name == "press" and effect.button in self._team:
                if not self.muted:
                    self._team[effect.button].play()
                return
            self.play(effect.name)

    def stop(self) -> None:
        """Silence every sound that is playing."""
        if self._mixer is not None and self.available:
            self._mixer.stop()
            self.stop_file()

    # --- settings ------------------------------------------------------------------------

    def set_mute(self, muted: bool) -> None:
        self.muted = bool(muted)
        if self.muted:
            self.stop()

    def toggle_mute(self) -> bool:
        """Flip mute (the host's key); return the new state."""
        self.set_mute(not self.muted)
        return self.muted

    def set_volume(self, volume: float) -> None:
        """Set the volume of every sound, 0..1."""
        self.volume = min(1.0, max(0.0, float(volume)))
        for sound in (*self._sounds.values(), *self._team.values()):
            sound.set_volume(self.volume)

    @property
    def loaded(self) -> tuple[str, ...]:
        """Names of the sounds ready to play."""
        return tuple(self._sounds)

    def close(self) -> None:
        """Stop playing and close the mixer."""
        self._sounds.clear()
        self._team.clear()
        if self._mixer is not None and self.available:
            self._mixer.quit()
        self.available = False
        self._mixer = None

    def __enter__(self) -> "Audio":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
