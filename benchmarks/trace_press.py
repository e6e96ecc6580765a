#!/usr/bin/env python3
"""Where a press's time goes on the ``gpiod-host`` path: a timeline of the slowest pairs.

Plays ``--pairs`` pairs at gaps of 10 µs and 1 ms through ``benchmarks/e2e_fairness.py``'s
``gpiod-host`` session (the real loop of ``buzzer run``, the gpiod backend on a pipe fed by a
real-time presser process), unthrottled, in this process, with the loop's steps, the reader
thread's deliveries and the window front end's calls timed (their start and length, and the
thread).  Prints a summary -- the decision (later edge -> the winner's lamp), the later edge's
delivery -> the loop's next drain, the window front end's ``present`` on the loop's thread --
and the timeline around the ``--show`` slowest pairs, in ms from the later edge.

    python benchmarks/trace_press.py                      # 40 pairs a gap, the window in its own process
    python benchmarks/trace_press.py --window-in-loop     # the window drawn on the loop's thread, as before
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import e2e_fairness as ef  # noqa: E402

MS = 1e6


def _timed(log: list, owner, name: str, label: str | None = None) -> None:
    real = getattr(owner, name)

    def call(*a, **kw):
        t = time.monotonic_ns()
        try:
            return real(*a, **kw)
        finally:
            log.append((t, time.monotonic_ns(), label or name, threading.current_thread().name))
    setattr(owner, name, call)


def _pct(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pairs", type=int, default=40, help="pairs per gap (10 µs and 1 ms)")
    p.add_argument("--show", type=int, default=3, help="timelines of this many slowest pairs")
    p.add_argument("--window-in-loop", action="store_true",
                   help="draw the window in the loop's process ([display] separate_process = false)")
    args = p.parse_args(argv)
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    if args.window_in_loop:
        os.environ[ef.WINDOW_IN_LOOP_ENV] = "1"
    import controller.app.loop as loop_mod
    import controller.app.runner as runner_mod
    import controller.screens.window as window_mod
    import controller.screens.window_process as process_mod

    log: list = []
    for cls in (window_mod.Window, process_mod.WindowProcess):
        _timed(log, cls, "present", f"{cls.__name__}.present")
    for name in ("drain", "tick_if_due", "enqueue"):
        _timed(log, loop_mod.Loop, name)
    _timed(log, runner_mod, "model")
    presses: list = []
    real_press = ef.Presser.press

    def press(self, *a):
        edges = real_press(self, *a)
        presses.append(edges)
        return edges
    ef.Presser.press = press
    cells = [ef.Cell(ef.GPIOD_HOST, 10, 0, 0), ef.Cell(ef.GPIOD_HOST, 1000, 0, 0)]
    res = ef.run_cells(cells, args.pairs)
    pairs = res["pairs"]
    log.sort()
    edges = presses[-len(pairs):]   # (the warm-up pairs' come first)
    decisions = [pr.decision_ns / MS for pr in pairs if pr.decision_ns is not None]
    waits = []
    for _, t1, _ in edges:
        delivered = next((a for a, _, n, th in log if n == "enqueue" and th == "gpiod-edges" and a >= t1), None)
        drained = next((a for a, _, n, _ in log if n == "drain" and delivered is not None and a >= delivered), None)
        if drained is not None:
            waits.append((drained - delivered) / MS)
    frames = [(b - a) / MS for a, b, n, th in log if n.endswith(".present") and th == "MainThread"]
    print(f"window: {'in the loop' if args.window_in_loop else 'its own process'}; "
          f"{len(pairs)} pairs; {res.get('notes') or ''}")
    for what, values in (("decision (later edge -> lamp)", decisions),
                         ("later edge delivered -> the loop's next drain", waits),
                         ("present() on the loop's thread", frames)):
        print(f"  {what}: p50 {_pct(values, 0.5):.2f}  p95 {_pct(values, 0.95):.2f}  "
              f"max {max(values, default=float('nan')):.2f} ms  (n {len(values)})")
    longest = sorted(((b - a) / MS, k) for k, (a, b, n, th) in
                     enumerate([e for e in log if e[2].endswith(".present") and e[3] == "MainThread"]))[-3:]
    print("  the longest present() calls (ms, which call):", ", ".join(f"{d:.2f} (#{k + 1})" for d, k in longest))
    order = sorted(range(len(pairs)), key=lambda i: -(pairs[i].decision_ns or 0))[:args.show]
    for i in order:
        t0, t1, _ = edges[i]
        d = (pairs[i].decision_ns or 0) / MS
        print(f"--- gap {(t1 - t0) / 1e3:.0f} µs, decision {d:.2f} ms (ms from the later edge, length, thread)")
        for a, b, n, th in log:
            if t0 - 2 * MS <= a <= t1 + (d + 1) * MS:
                print(f"  {(a - t1) / MS:8.3f} {(b - a) / MS:7.3f}  {n:28s} {th}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
