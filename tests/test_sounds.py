"""The bundled sounds: reproducible from the script, well-formed, click-free."""

import array
import importlib.util
import sys
import wave
from pathlib import Path

import pytest

SOUNDS_DIR = Path(__file__).resolve().parents[1] / "sounds"
RATE = 44_100

# name -> (min seconds, max seconds), from the description of each sound
LENGTHS = {
    "press": (0.05, 0.25),
    "right": (0.3, 1.0),
    "wrong": (0.3, 0.8),
    "time_up": (0.8, 1.5),
    "warning": (0.08, 0.3),
    "false_start": (0.2, 0.6),
    "start": (0.3, 0.5),
    "tick": (0.02, 0.1),
}


def _load_script():
    spec = importlib.util.spec_from_file_location("make_sounds", SOUNDS_DIR / "make_sounds.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_sounds"] = module
    spec.loader.exec_module(module)
    return module


def _read(name):
    with wave.open(str(SOUNDS_DIR / f"{name}.wav")) as w:
        params = w.getparams()
        pcm = array.array("h", w.readframes(w.getnframes()))
    if sys.byteorder != "little":
        pcm.byteswap()
    return params, pcm


def test_script_reproduces_committed_files_byte_for_byte(tmp_path):
    script = _load_script()
    written = script.write_all(tmp_path)
    assert {p.name for p in written} == {p.name for p in SOUNDS_DIR.glob("*.wav")}
    for path in written:
        assert path.read_bytes() == (SOUNDS_DIR / path.name).read_bytes(), path.name


def test_every_effect_sound_exists():
    script = _load_script()
    assert set(LENGTHS) == set(script.SOUNDS)
    for name in LENGTHS:
        assert (SOUNDS_DIR / f"{name}.wav").is_file()


@pytest.mark.parametrize("name", sorted(LENGTHS))
def test_format_and_length(name):
    params, pcm = _read(name)
    assert params.framerate == RATE
    assert params.sampwidth == 2
    assert params.nchannels == 1
    low, high = LENGTHS[name]
    assert low <= len(pcm) / RATE <= high


@pytest.mark.parametrize("name", sorted(LENGTHS))
def test_starts_within_one_millisecond(name):
    _, pcm = _read(name)
    first = next(i for i, x in enumerate(pcm) if x != 0)
    assert first < RATE // 1000


@pytest.mark.parametrize("name", sorted(LENGTHS))
def test_no_clipping_and_audible(name):
    _, pcm = _read(name)
    peak = max(abs(x) for x in pcm)
    assert peak < 0.9 * 32767
    assert peak > 0.4 * 32767


@pytest.mark.parametrize("name", sorted(LENGTHS))
def test_fades_in_and_out_without_clicks(name):
    _, pcm = _read(name)
    assert abs(pcm[0]) < 0.02 * 32767  # no step at the start
    assert pcm[-1] == 0  # ends at silence
    tail = pcm[-RATE // 1000:]
    assert max(abs(x) for x in tail) < 0.02 * 32767


def _zero_crossings(pcm):
    return sum(1 for a, b in zip(pcm, pcm[1:]) if (a < 0) != (b < 0))


def test_right_is_a_rising_chime():
    _, pcm = _read("right")
    window = RATE // 10
    first = _zero_crossings(pcm[:window])
    second = _zero_crossings(pcm[int(0.3 * RATE):int(0.3 * RATE) + window])
    assert second > first * 1.2


def test_wrong_is_lower_than_right():
    _, wrong = _read("wrong")
    _, right = _read("right")
    window = RATE // 10
    assert _zero_crossings(wrong[:window]) < _zero_crossings(right[:window]) / 2
