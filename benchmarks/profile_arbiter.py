"""Where the arbiter's time goes: cProfile of press + ruling pairs through the engine.

    python benchmarks/profile_arbiter.py [--pairs 20000] [--top 12]

The same work as the ``arbiter`` measure of ``benchmarks/run.py`` (an armed
Эрудит-квартет question, one press, the Tick at its settle deadline), printed
as the functions that take the most time, with their calls per pair.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import fairness  # noqa: E402

from controller.app import config
from controller.games import engine  # noqa: E402
from controller.core.events import Press, Tick  # noqa: E402


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pairs", type=int, default=20_000)
    p.add_argument("--top", type=int, default=12)
    args = p.parse_args(argv)
    cfg = config.load(None)
    armed = fairness.armed_state(cfg)
    settle = int(cfg["arbiter"]["settle_ms"] * 1_000_000)
    buttons = [t["button"] for t in cfg["teams"]]

    def run():
        for i in range(args.pairs):
            at = 1_000_000_000 + i * 1000
            s, _ = engine.step(armed, Press(buttons[i % len(buttons)], at, at + 50_000))
            engine.step(s, Tick(at + settle))

    prof = cProfile.Profile()
    prof.runcall(run)
    stats = pstats.Stats(prof)
    total = stats.total_tt
    rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)[: args.top]
    print(f"{args.pairs} press + ruling pairs, {total * 1e6 / args.pairs:.1f} µs each under the profiler")
    print(f"{'function':<48} {'calls/pair':>10} {'own time':>9}")
    for (path, line, name), (_cc, ncalls, tottime, _ct, _callers) in rows:
        where = f"{Path(path).name}:{name}" if line else name
        print(f"{where:<48} {ncalls / args.pairs:>10.1f} {100 * tottime / total:>8.0f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
