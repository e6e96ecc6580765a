#!/usr/bin/env python3
"""Sound latency: from a Sound effect to its first sample leaving the mixer.

The clock starts when :meth:`controller.sound.audio.Audio.play` is called (the loop
does that the moment it handles a ``Sound`` effect) and stops when the mixer
hands the sound's first non-zero sample to the audio device.  The device is
SDL's *disk* driver (``SDL_AUDIODRIVER=disk``): its audio thread mixes one
buffer, writes it to a file and sleeps about one buffer's time, as a sound
card would pace it.  A watcher thread polls the file every 0.2 ms and keeps a
timeline of (time, bytes written).

The file only grows in 4 KiB steps: SDL writes through C stdio, which
flushes its 4 KiB buffer when the *next* device buffer is written, so a
growth to size P at time t means "the buffer starting at byte P was mixed
at t".  Between growths the mixer runs at a steady pace, so the figure is
computed on that timeline, not read off a single instant:

* the *write position* at ``play()`` is interpolated on the timeline;
* the sound's first non-zero sample is found exactly in the file (it always
  starts a device buffer: the mixer adds a new sound at the next callback);
* ``latency`` = (first sample - write position) / the driver's pace: the wall
  time from the effect until the mixer hands the sound to the device.  With a
  buffer of N frames it lies between 0 and one callback period (the disk
  driver sleeps int(N*1000/44100) ms per buffer, a little less than a sound
  card's N/44100 s).  ``audio`` is the same distance in frames / 44100, i.e.
  at a sound card's pace.
* ``seen`` is the plain wall time from ``play()`` until the watcher saw the
  sample in the file: an upper bound that includes the stdio hold-up.

A real sound card adds its own buffering (about one to two more buffers);
this measures our part: the shell and the mixer.

Run ``python benchmarks/sound_latency.py`` for a table (``--buffers
128,256,512`` to compare buffer sizes); ``measure()`` returns a dict for
``benchmarks/run.py``.  Each measurement runs in a child process so that the
SDL environment variables and the mixer never leak into the caller.
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RATE = 44_100
FRAME_BYTES = 4  # S16 stereo
SOUND = "press"


def _percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), -(-len(ordered) * p // 100)))
    return ordered[int(rank) - 1]


class _Watcher(threading.Thread):
    """Follows the disk driver's output file: keeps the (time, size) timeline
    and finds the first non-zero byte written after :meth:`arm`."""

    def __init__(self, path: Path, poll_s: float = 0.0002):
        super().__init__(daemon=True)
        self.path = path
        self.poll_s = poll_s
        self.times: list[int] = []  # perf_counter_ns when the file was seen to grow
        self.sizes: list[int] = []  # its size then
        self._lock = threading.Lock()
        self._armed_at: int | None = None
        self._found = threading.Event()
        self.hit: tuple[int, int] | None = None  # (perf_counter_ns seen, byte offset)
        self._halt = threading.Event()

    @property
    def written(self) -> int:
        return self.sizes[-1] if self.sizes else 0

    def arm(self) -> int:
        """Look for the next sound from the file's current end; return that end."""
        with self._lock:
            self._found.clear()
            self.hit = None
            self._armed_at = self.written
            return self._armed_at

    def wait(self, timeout: float) -> tuple[int, int] | None:
        self._found.wait(timeout)
        return self.hit

    def position_at(self, t_ns: int) -> float | None:
        """File size at ``t_ns``, interpolated between the growths around it."""
        with self._lock:
            i = bisect.bisect_right(self.times, t_ns)
            if i == 0 or i >= len(self.times):
                return None
            t_a, t_b = self.times[i - 1], self.times[i]
            p_a, p_b = self.sizes[i - 1], self.sizes[i]
        return p_a + (t_ns - t_a) * (p_b - p_a) / (t_b - t_a)

    def pace(self) -> float:
        """Bytes per ns the driver wrote over the run (its wall-clock pace)."""
        with self._lock:
            return (self.sizes[-1] - self.sizes[1]) / (self.times[-1] - self.times[1])

    def stop(self) -> None:
        self._halt.set()

    def run(self) -> None:
        while not self.path.exists() and not self._halt.is_set():
            time.sleep(self.poll_s)
        with open(self.path, "rb") as f:
            while not self._halt.is_set():
                chunk = f.read()
                now = time.perf_counter_ns()
                if not chunk:
                    time.sleep(self.poll_s)
                    continue
                with self._lock:
                    start = self.written
                    self.times.append(now)
                    self.sizes.append(start + len(chunk))
                    if self._armed_at is not None and self.hit is None:
                        skip = max(0, self._armed_at - start)
                        part = chunk[skip:]
                        zeros = len(part) - len(part.lstrip(b"\0"))
                        if zeros < len(part):
                            self.hit = (now, start + skip + zeros)
                            self._armed_at = None
                            self._found.set()


def _child(buffer_frames: int, trials: int, gap_s: float) -> dict:
    """Runs inside the child process (SDL environment already set)."""
    sys.path.insert(0, str(REPO))
    from controller.sound.audio import Audio

    out = Path(os.environ["SDL_DISKAUDIOFILE"])
    audio = Audio({"sound": {"buffer_frames": buffer_frames, "volume": 0.8}})
    if not audio.available:
        return {"error": audio.problem}
    watcher = _Watcher(out)
    watcher.start()
    trials_out = []
    jitter = random.Random(1)  # sample every phase of the mixer's period
    try:
        time.sleep(0.3)  # let the device start
        for i in range(trials + 2):  # two warm-ups
            time.sleep(gap_s + jitter.uniform(0, 0.03))  # previous sound over: silence
            watcher.arm()
            t0 = time.perf_counter_ns()
            audio.play(SOUND)
            hit = watcher.wait(2.0)
            if hit is None:
                return {"error": f"trial {i}: no sound seen within 2 s"}
            if i >= 2:
                trials_out.append((t0, hit[0], hit[1]))
        time.sleep(0.1)  # a few more flushes after the last hit, for interpolation
    finally:
        watcher.stop()
        audio.close()
        watcher.join(1.0)
    pace = watcher.pace()
    latencies, walls, seen = [], [], []
    for t0, t_seen, first in trials_out:
        pos = watcher.position_at(t0)
        if pos is None:
            continue
        distance = max(0.0, first - pos)
        walls.append(distance / pace / 1e6)
        latencies.append(distance / FRAME_BYTES / RATE * 1000)
        seen.append((t_seen - t0) / 1e6)
    return {"audio_ms": latencies, "wall_ms": walls, "seen_ms": seen,
            "pace_bytes_per_s": pace * 1e9}


def measure(trials: int = 30, buffer_frames: int = 256, gap_s: float = 0.2) -> dict:
    """Measure sound latency; return figures in milliseconds.

    ``sound_latency_ms`` / ``sound_latency_p99_ms``: median / 99th percentile
    wall time from ``play()`` until the mixer hands the sound's first sample
    to the (disk) audio device; ``sound_latency_audio_ms``: the median of the
    same distance in output frames / 44100 (a sound card's pace);
    ``sound_seen_ms``: median wall time until the sample was visible in the
    driver's file (an upper bound, includes stdio's 4 KiB hold-up).
    """
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ)
        env.update(SDL_AUDIODRIVER="disk", SDL_DISKAUDIOFILE=str(Path(tmp) / "out.raw"),
                   SDL_VIDEODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1")
        env.pop("SDL_DISKAUDIODELAY", None)  # default: paced like a sound card
        proc = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--child",
             f"--trials={trials}", f"--buffers={buffer_frames}", f"--gap={gap_s}"],
            env=env, capture_output=True, text=True, timeout=60 + trials * (gap_s + 1))
    if proc.returncode != 0:
        raise RuntimeError(f"sound latency child failed: {proc.stderr.strip()[-500:]}")
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    if "error" in data:
        raise RuntimeError(f"sound latency: {data['error']}")
    wall, audio, seen = data["wall_ms"], data["audio_ms"], data["seen_ms"]
    return {
        "sound_latency_ms": round(statistics.median(wall), 3),
        "sound_latency_p99_ms": round(_percentile(wall, 99), 3),
        "sound_latency_max_ms": round(max(wall), 3),
        "sound_latency_audio_ms": round(statistics.median(audio), 3),
        "sound_latency_audio_p99_ms": round(_percentile(audio, 99), 3),
        "sound_seen_ms": round(statistics.median(seen), 3),
        "sound_seen_p99_ms": round(_percentile(seen, 99), 3),
        "buffer_frames": buffer_frames,
        "buffer_ms": round(buffer_frames / RATE * 1000, 3),
        "trials": len(wall),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--buffers", default="256", help="comma-separated buffer sizes in frames")
    parser.add_argument("--gap", type=float, default=0.2, help="seconds between trials")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    buffers = [int(b) for b in args.buffers.split(",")]
    if args.child:
        print(json.dumps(_child(buffers[0], args.trials, args.gap)))
        return 0
    print("Sound latency: Audio.play() -> first sample handed to the device (SDL disk driver), ms")
    print(f"{'buffer':>7} {'buf ms':>7} {'median':>7} {'p99':>7} {'max':>7} "
          f"{'audio':>7} {'audio p99':>9} {'seen':>7} {'seen p99':>8} {'n':>4}")
    for frames in buffers:
        r = measure(args.trials, frames, args.gap)
        print(f"{frames:>7} {r['buffer_ms']:>7.2f} {r['sound_latency_ms']:>7.2f} "
              f"{r['sound_latency_p99_ms']:>7.2f} {r['sound_latency_max_ms']:>7.2f} "
              f"{r['sound_latency_audio_ms']:>7.2f} {r['sound_latency_audio_p99_ms']:>9.2f} "
              f"{r['sound_seen_ms']:>7.2f} {r['sound_seen_p99_ms']:>8.2f} {r['trials']:>4}")
    print("median/p99/max: wall time to the device; audio: same distance in frames/44100; "
          "seen: until visible in the file (upper bound). A sound card adds its own buffering.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
