"""Crash soak: kill the controller's loop with SIGKILL at N random points.

    python tests/soak/crash_soak.py --kills 1000

Each kill point: start a scripted game through the real loop and journal
(`python -m controller.app.drill`), SIGKILL it at a random moment, check that the
journal replays to exactly the state the process had reached, resume it and
check that the game ends exactly like the same game played without a crash.
Prints the counts.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from crashgame import make_game  # noqa: E402

from controller.games import engine
from controller.sessions import journal as journal_mod, script as script_mod  # noqa: E402
from controller.app.drill import digest, feed  # noqa: E402


def reference(script_path: Path) -> dict:
    run = script_mod.run(script_mod.load(script_path))
    return comparable(engine.summary(run.state))


def comparable(summary: dict) -> dict:
    return {k: summary[k] for k in ("scores", "standings", "questions", "stage")}


def drill_cmd(journal: Path, script: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "controller.app.drill", "--journal", str(journal), "--script", str(script), *extra]


def one_kill(workdir: Path, script: Path, ref: dict, delay_s: float) -> dict:
    """``delay_s`` counts from the moment the process applied its first event."""
    """Run, kill after ``delay_s``, verify, resume, verify.  Returns what happened."""
    jdir = workdir / "journal"
    digests = workdir / "digests.txt"
    for p in (journal_mod.current_path(jdir), digests):
        if p.exists():
            p.unlink()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(drill_cmd(jdir, script, "--digests", str(digests)), cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while not digests.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.0005)
    time.sleep(delay_s)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    killed = proc.returncode == -signal.SIGKILL
    jpath = journal_mod.current_path(jdir)
    if not jpath.exists():
        return {"killed": killed, "before_journal": True}
    contents = journal_mod.read(jpath)
    lines = [ln.split() for ln in digests.read_text().splitlines() if ln.strip()] if digests.exists() else []
    lines = [ln for ln in lines if len(ln) == 2]
    reached = int(lines[-1][0]) if lines else 0
    n = len(contents.events)
    cfg = script_mod.config_for(script_mod.load(script))
    fed = feed(script_mod.load(script), cfg)
    # nothing lost, nothing invented: the journal is a prefix of what was fed ...
    assert contents.events == fed[:n], "journal is not a prefix of the fed events"
    # ... holding every event the process had applied (and at most the one it was applying)
    assert n in (reached, reached + 1), f"journal has {n} events, process had applied {reached}"
    if reached:
        state, _, _, _ = journal_mod.replay(journal_mod.Contents(contents.header, contents.events[:reached]))
        assert digest(state) == lines[-1][1], "replayed state differs from the state before the kill"
    out = subprocess.run(drill_cmd(jdir, script, "--resume"), cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    final = json.loads(out.stdout)
    assert comparable(final) == ref, "resumed game ended differently from the uninterrupted one"
    return {"killed": killed, "events_at_kill": n, "torn": contents.dropped, "total": len(fed)}


def soak(kills: int, seed: int = 1, workdir: Path | None = None) -> dict:
    rng = random.Random(seed)
    tmp = Path(workdir or tempfile.mkdtemp(prefix="crash-soak-"))
    script = make_game(tmp / "game.jsonl", seed=seed)
    ref = reference(script)
    # how long an uninterrupted run takes, to spread the kill points over it
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t0 = time.monotonic()
    digests = tmp / "full-digests.txt"
    proc = subprocess.Popen(drill_cmd(tmp / "full", script, "--digests", str(digests)), cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not digests.exists() and proc.poll() is None:
        time.sleep(0.0005)
    t0 = time.monotonic()
    proc.wait()
    full = time.monotonic() - t0  # the feeding part only, without interpreter start-up
    stats = {"kill_points": 0, "finished_before_kill": 0, "before_journal": 0, "torn_tails": 0,
             "full_run_s": round(full, 3), "events": 0}
    while stats["kill_points"] < kills:
        r = one_kill(tmp, script, ref, rng.uniform(0.0, full * 1.05))
        if r.get("before_journal"):
            stats["before_journal"] += 1
        elif r["killed"] and r["events_at_kill"] < r["total"]:
            stats["kill_points"] += 1
            stats["torn_tails"] += r["torn"]
        else:
            stats["finished_before_kill"] += 1
        stats["events"] = r.get("total", stats["events"])
    return stats


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--kills", type=int, default=1000)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    t0 = time.monotonic()
    stats = soak(args.kills, args.seed)
    stats["seconds"] = round(time.monotonic() - t0, 1)
    print(json.dumps(stats, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
