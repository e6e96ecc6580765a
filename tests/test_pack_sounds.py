"""A question's sounds from a SIGame package, one after another as SIGame plays a question's
content items (controller/sound/pack_sounds.py): each starts when the one before has ended,
or after the package's own time of it (v5 ``duration``, v4 ``time``); all of them stop when
the question is over.  Played through the real loop and the real mixer (SDL's dummy driver,
or its disk driver when what the hall hears is checked sample by sample); the packages are
tests/packs/make_packs.py's ``sounds.siq`` / ``sounds4.siq``."""

from __future__ import annotations

import array
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "packs"))
import make_packs  # noqa: E402
from test_pack_content import MS, S, Hall  # noqa: E402


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    return make_packs.make(tmp_path_factory.mktemp("packs"))


def _played(hall) -> list[str]:
    """The package sounds the mixer was given, in order, by their names in the package."""
    by_path = {path: member.split("/", 1)[-1] for member, path in hall.loop.pack_media.store.files.items()}
    return [by_path.get(e[1], e[1]) for e in hall.loop.audio.played if e[0] == "play"]


def _until(hall, cond, seconds=5.0):
    """Run the loop (its clock at a standstill) until ``cond()``, at most ``seconds`` of real time:
    the mixer plays in real time."""
    end = time.monotonic() + seconds
    while not cond():
        assert time.monotonic() < end, f"not within {seconds} s: {_played(hall)}"
        hall.loop.tick_if_due()
        time.sleep(0.005)


@pytest.fixture
def hall(made, tmp_path, request):
    h = Hall(made, getattr(request, "param", "sounds"), tmp_path)
    yield h
    h.close()


@pytest.mark.parametrize("hall", ["sounds", "sounds4"], indirect=True)
def test_the_second_sound_follows_when_the_first_has_ended(hall):
    hall.keys("1", "1")                        # two short sounds
    assert _played(hall) == ["низкий.wav"]     # one at a time: the second waits for the first
    _until(hall, lambda: len(_played(hall)) == 2)
    assert _played(hall) == ["низкий.wav", "высокий.wav"]
    hall.later(10 * S)
    _until(hall, lambda: not hall.loop.audio.audio.file_playing())
    assert _played(hall) == ["низкий.wav", "высокий.wav"]   # played once each, nothing after them


@pytest.mark.parametrize("hall", ["sounds", "sounds4"], indirect=True)
def test_a_sound_with_its_own_time_gives_way_after_that_time(hall):
    hall.keys("1", "2")                        # a 3 s sound the package plays for 1 s, then a short one
    hall.later(900 * MS)
    assert _played(hall) == ["долгий.wav"] and hall.loop.audio.audio.file_playing()
    hall.later(100 * MS)                       # its own second is over (the track is not)
    assert _played(hall) == ["долгий.wav", "высокий.wav"]


def test_sounds_still_to_come_never_play_once_the_question_is_answered(hall):
    hall.keys("1", "2")
    hall.right()                               # answered while the first sound plays
    assert _played(hall) == ["долгий.wav", "ответ.wav"]     # then the answer's own sound
    assert ("stop",) in hall.loop.audio.played[1:]
    hall.later(1500 * MS)                      # past the first one's own time: nothing more of the question
    _until(hall, lambda: not hall.loop.audio.audio.file_playing())
    assert _played(hall) == ["долгий.wav", "ответ.wav"]


def test_sounds_still_to_come_never_play_once_the_question_is_withdrawn(hall):
    hall.keys("1", "2")
    hall.keys("x")
    hall.later(2 * S)
    _until(hall, lambda: not hall.loop.audio.audio.file_playing())
    assert _played(hall) == ["долгий.wav"] and hall.loop.audio.played[-1] == ("stop",)


def _tone(samples, rate=44_100) -> float:
    """The pitch of a run of samples, from its zero crossings."""
    crossings = sum(1 for a, b in zip(samples, samples[1:]) if (a < 0) != (b < 0))
    return crossings / 2 / (len(samples) / rate)


def test_the_hall_hears_the_low_tone_then_the_high_one(made, tmp_path, monkeypatch):
    """What reaches the speakers (SDL's disk driver writes it to a file): 440 Hz, then 880 Hz."""
    out = tmp_path / "out.raw"
    monkeypatch.setenv("SDL_AUDIODRIVER", "disk")
    monkeypatch.setenv("SDL_DISKAUDIOFILE", str(out))
    h = Hall(made, "sounds", tmp_path)
    try:
        h.keys("1", "1")
        _until(h, lambda: len(_played(h)) == 2)
        _until(h, lambda: not h.loop.audio.audio.file_playing())
    finally:
        h.loop.audio.audio.close()
        h.close()
    pcm = array.array("h", out.read_bytes())
    if sys.byteorder != "little":
        pcm.byteswap()
    left = pcm[0::2]
    window = 4410                                   # 0.1 s
    tones = [round(_tone(left[i:i + window]), -1) for i in range(0, len(left) - window, window)
             if max(map(abs, left[i:i + window])) > 2000]
    assert tones, "nothing was heard"
    low = [i for i, f in enumerate(tones) if abs(f - 440) <= 20]
    high = [i for i, f in enumerate(tones) if abs(f - 880) <= 20]
    assert low and high and max(low) < min(high), tones
