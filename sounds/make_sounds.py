#!/usr/bin/env python3
"""Synthesize the controller's sounds into WAV files.

Every sound is made here from sine partials and envelopes (no recorded or
downloaded audio), with the standard library only, so the committed WAV files
can be rebuilt and checked byte for byte (``tests/test_sounds.py``)::

    python sounds/make_sounds.py            # rewrite sounds/*.wav
    python sounds/make_sounds.py OUTDIR     # write them elsewhere

Format: 44.1 kHz, 16-bit, mono (the mixer duplicates mono into both
channels).  Every sound starts with a non-zero sample within its first
millisecond, so the sound-latency benchmark can find its start in the output,
fades in and out (no clicks) and peaks below full scale (no clipping).

The sounds and what they mean:

============  =======================================================  =======
name          what                                                     length
============  =======================================================  =======
press         a short bright blip: a button took the answer right      0.18 s
right         a rising two-tone chime                                  0.75 s
wrong         a low, slightly beating buzz                             0.55 s
time_up       a horn chord with a falling tail                         1.1 s
warning       a short beep (10 seconds left)                           0.2 s
false_start   a harsh double buzz                                      0.38 s
start         a clear high tone: the clock is running                  0.4 s
tick          a short wood-block click for the last seconds            0.06 s
press-1 … 8   a team's own press sound: each its own pitch, odd ones   0.2 s
              one blip, even ones two (``[[teams]] sound``)
============  =======================================================  =======
"""

from __future__ import annotations

import math
import sys
import wave
from array import array
from pathlib import Path
from typing import Callable, Iterable, Sequence

RATE = 44_100
FULL_SCALE = 32_767

Partial = tuple[float, float]
"""(frequency in Hz, relative amplitude)."""


# --- building blocks -------------------------------------------------------------------

def _samples(seconds: float) -> int:
    return int(round(seconds * RATE))


def _fade(i: int, n: int) -> float:
    """Raised-cosine ramp from 0 to 1 over ``n`` samples; sample 0 is already
    slightly above zero so that every sound starts audibly at once."""
    if i >= n:
        return 1.0
    return 0.5 - 0.5 * math.cos(math.pi * (i + 1) / (n + 1))


def _envelope(n: int, attack: float, release: float,
              decay: float | None = None) -> list[float]:
    """Attack ramp, optional exponential decay (time constant ``decay`` s),
    release ramp to zero at the end."""
    a, r = _samples(attack), _samples(release)
    out = []
    for i in range(n):
        level = _fade(i, a) * _fade(n - 1 - i, r)
        if decay is not None:
            level *= math.exp(-i / (decay * RATE))
        out.append(level)
    return out


def _partials(n: int, partials: Sequence[Partial], phase: float = math.pi / 2,
              vibrato: tuple[float, float] | None = None) -> list[float]:
    """Sum of sine partials; cosine phase by default so the first samples are
    at their largest.  ``vibrato`` is (rate Hz, depth as a frequency ratio)."""
    out = [0.0] * n
    for freq, amp in partials:
        if freq >= RATE / 2:
            continue  # above Nyquist: would alias
        w = 2 * math.pi * freq / RATE
        for i in range(n):
            ph = w * i
            if vibrato is not None:
                rate, depth = vibrato
                # Phase of a frequency-modulated sine (integral of the frequency).
                ph += depth * freq / rate * (1 - math.cos(2 * math.pi * rate * i / RATE))
            out[i] += amp * math.sin(ph + phase)
    return out


def _harmonics(fundamental: float, count: int, tilt: float = 1.0,
               odd_only: bool = False) -> list[Partial]:
    """Harmonic series with amplitudes 1/k**tilt (a band-limited saw or square)."""
    ks = range(1, 2 * count, 2) if odd_only else range(1, count + 1)
    return [(fundamental * k, 1 / k ** tilt) for k in ks]


def _mul(a: Sequence[float], b: Sequence[float]) -> list[float]:
    return [x * y for x, y in zip(a, b)]


def _mix(length: int, *parts: tuple[int, Sequence[float]]) -> list[float]:
    """Place each (offset in samples, signal) into a buffer of ``length``."""
    out = [0.0] * length
    for offset, signal in parts:
        for i, x in enumerate(signal):
            if offset + i < length:
                out[offset + i] += x
    return out


def _normalize(signal: Sequence[float], peak: float) -> list[float]:
    top = max(abs(x) for x in signal)
    return [x * peak / top for x in signal]


def _note(seconds: float, partials: Sequence[Partial], attack: float, release: float,
          decay: float | None = None, **kw) -> list[float]:
    n = _samples(seconds)
    return _mul(_partials(n, partials, **kw), _envelope(n, attack, release, decay))


def _bell(freq: float, seconds: float) -> list[float]:
    """A soft chime note: fundamental plus a few decaying overtones."""
    return _note(seconds, [(freq, 1.0), (freq * 2, 0.35), (freq * 3, 0.12), (freq * 4.2, 0.05)],
                 attack=0.001, release=0.08, decay=0.22)


# --- the sounds ------------------------------------------------------------------------

def press() -> list[float]:
    s = _note(0.18, [(1320, 1.0), (2640, 0.3), (3960, 0.08)],
              attack=0.0008, release=0.03, decay=0.05)
    return _normalize(s, 0.7)


def right() -> list[float]:
    # E6 then A6: a rising fourth, the second note overlapping the first's tail.
    n = _samples(0.75)
    s = _mix(n, (0, _bell(1318.5, 0.45)), (_samples(0.15), _bell(1760.0, 0.6)))
    return _normalize(s, 0.7)


def wrong() -> list[float]:
    # Two detuned band-limited saws an octave below A3 beat against each other.
    n = _samples(0.55)
    partials = _harmonics(110.0, 30, tilt=1.2) + [
        (f * 1.027, a * 0.8) for f, a in _harmonics(110.0, 30, tilt=1.2)]
    s = _mul(_partials(n, partials), _envelope(n, attack=0.001, release=0.08, decay=0.9))
    return _normalize(s, 0.72)


def time_up() -> list[float]:
    # A horn chord (A3 + E4 + A4, soft saw timbre) with a slight vibrato, then
    # a long fade: about one second of sound a hall cannot miss.
    n = _samples(1.1)
    partials: list[Partial] = []
    for root, gain in ((220.0, 1.0), (329.63, 0.7), (440.0, 0.5)):
        partials += [(f, a * gain) for f, a in _harmonics(root, 16, tilt=1.6)]
    s = _mul(_partials(n, partials, vibrato=(5.0, 0.004)),
             _envelope(n, attack=0.012, release=0.35))
    return _normalize(s, 0.75)


def warning() -> list[float]:
    s = _note(0.2, [(1000.0, 1.0), (3000.0, 0.1)], attack=0.001, release=0.03)
    return _normalize(s, 0.6)


def false_start() -> list[float]:
    # Two short bursts of a detuned square wave: rough and urgent.
    burst_n = _samples(0.15)
    partials = _harmonics(185.0, 25, odd_only=True) + [
        (f * 1.06, a * 0.9) for f, a in _harmonics(185.0, 25, odd_only=True)]
    burst = _mul(_partials(burst_n, partials),
                 _envelope(burst_n, attack=0.001, release=0.015))
    s = _mix(_samples(0.38), (0, burst), (_samples(0.22), burst))
    return _normalize(s, 0.72)


def start() -> list[float]:
    s = _note(0.4, [(1760.0, 1.0), (3520.0, 0.12), (5280.0, 0.03)],
              attack=0.0008, release=0.08, decay=0.6)
    return _normalize(s, 0.7)


def tick() -> list[float]:
    s = _note(0.06, [(1900.0, 1.0), (2850.0, 0.5), (5100.0, 0.2)],
              attack=0.0005, release=0.01, decay=0.012)
    return _normalize(s, 0.55)


SOUNDS: dict[str, Callable[[], list[float]]] = {
    "press": press,
    "right": right,
    "wrong": wrong,
    "time_up": time_up,
    "warning": warning,
    "false_start": false_start,
    "start": start,
    "tick": tick,
}
"""Every sound the controller plays, by the name a Sound effect uses."""

TEAM_PITCHES = (523.25, 659.25, 783.99, 1046.5, 1174.66, 1567.98, 1760.0, 2093.0)
"""The fundamentals of the teams' press sounds (C5 E5 G5 C6 D6 G6 A6 C7): far enough apart
that the hall tells one team's from another's, none the same as the common ``press``."""


def team_press(number: int) -> list[float]:
    """Team ``number``'s (1-based) press sound: one blip (odd numbers) or two quick ones
    (even), at its own pitch."""
    f = TEAM_PITCHES[number - 1]
    blip = _note(0.09 if number % 2 == 0 else 0.2, [(f, 1.0), (f * 2, 0.25), (f * 3, 0.06)],
                 attack=0.0008, release=0.02, decay=0.06)
    n = _samples(0.2)
    s = _mix(n, (0, blip), (_samples(0.105), blip)) if number % 2 == 0 else _mix(n, (0, blip))
    return _normalize(s, 0.7)


TEAM_SOUNDS: dict[str, Callable[[], list[float]]] = {
    f"press-{k}": (lambda k=k: team_press(k)) for k in range(1, len(TEAM_PITCHES) + 1)}
"""The teams' own press sounds (``[[teams]] sound = "press-3"``)."""


# --- output ----------------------------------------------------------------------------

def to_pcm(signal: Iterable[float]) -> bytes:
    """Float samples in [-1, 1] to 16-bit little-endian PCM."""
    pcm = array("h", (max(-FULL_SCALE, min(FULL_SCALE, int(round(x * FULL_SCALE))))
                      for x in signal))
    if sys.byteorder != "little":
        pcm.byteswap()
    return pcm.tobytes()


def write_wav(path: Path, signal: Iterable[float]) -> None:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(to_pcm(signal))


def write_all(directory: Path) -> list[Path]:
    """Render every sound into ``directory``/<name>.wav; return the paths."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, make in {**SOUNDS, **TEAM_SOUNDS}.items():
        path = directory / f"{name}.wav"
        write_wav(path, make())
        paths.append(path)
    return paths


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    directory = Path(argv[0]) if argv else Path(__file__).resolve().parent
    for path in write_all(directory):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
