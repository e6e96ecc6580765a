"""The audio shell, through SDL's real audio path (disk driver captures the output)."""

import array
import logging
import sys
import time
import wave
from pathlib import Path

import pytest

from controller.sound.audio import SOUND_NAMES, Audio, bundled_sounds_dir, sound_paths
from controller.core.effects import Flash, Sound

SOUNDS = Path(__file__).resolve().parents[1] / "sounds"


def _wav(path):
    with wave.open(str(path)) as w:
        pcm = array.array("h", w.readframes(w.getnframes()))
    if sys.byteorder != "little":
        pcm.byteswap()
    return pcm


def _captured(path):
    """Samples the disk driver wrote (S16 stereo), as (left, right)."""
    pcm = array.array("h", path.read_bytes())
    if sys.byteorder != "little":
        pcm.byteswap()
    return pcm[0::2], pcm[1::2]


@pytest.fixture
def disk(tmp_path, monkeypatch):
    """Route SDL audio to a file; yield the file's path."""
    out = tmp_path / "out.raw"
    monkeypatch.setenv("SDL_AUDIODRIVER", "disk")
    monkeypatch.setenv("SDL_DISKAUDIOFILE", str(out))
    monkeypatch.setenv("SDL_DISKAUDIODELAY", "1")  # write ahead fast: shorter tests
    yield out


def _play_and_capture(config, name, out, seconds=0.3):
    audio = Audio(config)
    try:
        assert audio.available, audio.problem
        time.sleep(0.02)
        audio.play(name)
        time.sleep(seconds)
    finally:
        audio.close()
    return _captured(out)


def _first_nonzero(samples):
    return next((i for i, x in enumerate(samples) if x), None)


def test_playing_right_writes_the_right_sound(disk):
    left, right = _play_and_capture({"sound": {"volume": 1.0}}, "right", disk)
    start = _first_nonzero(left)
    assert start is not None, "nothing was played"
    assert left == right  # mono file on both channels
    expected = _wav(SOUNDS / "right.wav")
    n = 4410  # the first 0.1 s, sample by sample
    got = left[start:start + n]
    # Samples before `start` that were too small to be non-zero are skipped.
    offset = _first_nonzero(expected)
    assert max(abs(a - b) for a, b in zip(got, expected[offset:offset + n])) <= 2


def test_every_sound_is_loaded(disk):
    audio = Audio()
    try:
        assert set(audio.loaded) == set(SOUND_NAMES)
    finally:
        audio.close()


def test_mute_writes_only_silence(disk):
    left, right = _play_and_capture({"sound": {"mute": True}}, "right", disk)
    assert len(left) > 4410  # the device ran
    assert not any(left) and not any(right)


def test_toggle_mute_stops_then_allows_sound(disk):
    audio = Audio()
    try:
        assert audio.toggle_mute() is True
        audio.play("press")
        time.sleep(0.1)
        assert audio.toggle_mute() is False
        time.sleep(0.05)
    finally:
        audio.close()
    left, _ = _captured(disk)
    assert not any(left)


def _peak(config, out):
    left, _ = _play_and_capture(config, "press", out, seconds=0.25)
    return max(abs(x) for x in left)


def test_volume_scales_the_output(disk, tmp_path, monkeypatch):
    file_peak = max(abs(x) for x in _wav(SOUNDS / "press.wav"))
    full = _peak({"sound": {"volume": 1.0}}, disk)
    monkeypatch.setenv("SDL_DISKAUDIOFILE", str(tmp_path / "quiet.raw"))
    quiet = _peak({"sound": {"volume": 0.4}}, tmp_path / "quiet.raw")
    assert full == pytest.approx(file_peak, rel=0.01)
    assert quiet == pytest.approx(0.4 * file_peak, rel=0.03)


def test_default_volume_is_0_8(disk):
    file_peak = max(abs(x) for x in _wav(SOUNDS / "press.wav"))
    assert _peak(None, disk) == pytest.approx(0.8 * file_peak, rel=0.03)


def test_handle_plays_sound_effects_only(disk):
    audio = Audio()
    try:
        audio.handle(Flash("right"))
        time.sleep(0.1)
        audio.handle(Sound("press"))
        time.sleep(0.2)
    finally:
        audio.close()
    left, _ = _captured(disk)
    start = _first_nonzero(left)
    assert start is not None
    assert start >= 0.08 * 44100  # nothing came out for the Flash


def test_unknown_sound_name_is_ignored(disk):
    audio = Audio()
    try:
        audio.play("no_such_sound")
    finally:
        audio.close()


def test_no_audio_device_one_warning_and_silent(monkeypatch, caplog):
    monkeypatch.setenv("SDL_AUDIODRIVER", "nonexistent")
    with caplog.at_level(logging.WARNING):
        audio = Audio()
        audio.play("right")
        audio.handle(Sound("wrong"))
        audio.set_volume(0.5)
        audio.toggle_mute()
        audio.close()
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1
    assert "игра идёт без звука" in warnings[0].getMessage()   # in the game's language (ru by default)
    assert audio.available is False
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        Audio({"language": "en"}).close()
    assert "the game goes on without sound" in caplog.records[-1].getMessage()


def test_no_audio_device_is_said_in_the_game_language(monkeypatch, caplog):
    """«Звука нет: …» names the reason in Russian; SDL's English words stay out of the host's line
    (only the driver's name, short, in parentheses)."""
    import re

    import pygame

    def no_device(*args, **kwargs):
        raise pygame.error("ALSA: Couldn't open audio device: No such file or directory")

    monkeypatch.setattr(pygame.mixer, "init", no_device)
    with caplog.at_level(logging.WARNING):
        audio = Audio()
    line = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING][-1]
    assert line == "Звука нет: не найдено звуковое устройство (ALSA); игра идёт без звука"
    assert not re.search(r"[A-Za-z]{3,}", line.replace("ALSA", ""))   # no English words
    assert audio.available is False
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        Audio({"language": "en"}).close()
    assert caplog.records[-1].getMessage() == "no audio device (ALSA): the game goes on without sound"


def test_configured_dir_overrides_some_sounds(tmp_path, disk):
    custom = tmp_path / "mysounds"
    custom.mkdir()
    with wave.open(str(custom / "press.wav"), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(44100)
        w.writeframes(array.array("h", [1000] * 2000).tobytes())
    paths = sound_paths(custom)
    assert paths["press"] == custom / "press.wav"
    assert paths["right"] == bundled_sounds_dir() / "right.wav"
    left, _ = _play_and_capture({"sound": {"dir": str(custom), "volume": 1.0}}, "press", disk,
                                seconds=0.15)
    start = _first_nonzero(left)
    assert set(left[start:start + 1900]) == {1000}


def test_missing_configured_dir_warns_and_uses_bundled(tmp_path, disk, caplog):
    with caplog.at_level(logging.WARNING):
        audio = Audio({"sound": {"dir": str(tmp_path / "nowhere")}})
        loaded = audio.loaded
        audio.close()
    assert set(loaded) == set(SOUND_NAMES)
    assert any("sound.dir" in r.getMessage() for r in caplog.records)


def test_bundled_sounds_are_the_repository_sounds():
    assert (bundled_sounds_dir() / "press.wav").read_bytes() == (SOUNDS / "press.wav").read_bytes()


# --- each team's own press sound (#15 item 6) ---------------------------------------------------

def _dominant_hz(samples, rate=44100):
    """The strongest frequency of a stretch of samples (zero crossings are enough for our blips)."""
    crossings = sum(1 for a, b in zip(samples, samples[1:]) if (a < 0) != (b < 0))
    return crossings / 2 / (len(samples) / rate)


def test_a_teams_press_plays_its_own_sound_and_others_the_common_one(disk, tmp_path, monkeypatch):
    from controller.app import config as config_mod
    cfg = config_mod.build({"sound": {"volume": 1.0},
                            "teams": [{"name": "Альфа", "button": "A", "sound": "press-1"},
                                      {"name": "Бета", "button": "B"}]})
    audio = Audio(cfg)
    try:
        assert audio.available, audio.problem
        time.sleep(0.02)
        audio.handle(Sound("press", "A"))
        time.sleep(0.3)
    finally:
        audio.close()
    left, _ = _captured(disk)
    start = _first_nonzero(left)
    window = left[start:start + 2000]
    own = _wav(SOUNDS / "press-1.wav")
    assert _dominant_hz(window) == pytest.approx(_dominant_hz(own[:2000]), rel=0.05)
    assert _dominant_hz(window) == pytest.approx(523.25, rel=0.05)          # C5, not the common 1320 Hz
    monkeypatch.setenv("SDL_DISKAUDIOFILE", str(tmp_path / "b.raw"))
    audio = Audio(cfg)
    try:
        time.sleep(0.02)
        audio.handle(Sound("press", "B"))                                   # Бета has none: the common one
        time.sleep(0.3)
    finally:
        audio.close()
    left, _ = _captured(tmp_path / "b.raw")
    start = _first_nonzero(left)
    assert _dominant_hz(left[start:start + 2000]) == pytest.approx(1320, rel=0.05)


def test_the_team_sounds_differ_in_pitch_and_stay_short():
    pitches = []
    for k in range(1, 9):
        pcm = _wav(SOUNDS / f"press-{k}.wav")
        assert 0.15 <= len(pcm) / 44100 <= 0.25
        assert _first_nonzero(pcm) is not None and _first_nonzero(pcm) < 44
        pitches.append(_dominant_hz(pcm[:1500]))
    assert all(b > a * 1.05 for a, b in zip(pitches, pitches[1:])), pitches
