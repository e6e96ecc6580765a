#!/usr/bin/env python3
"""Benchmarks of buzzer-controller: fairness, latency, storms, timers, start-up.

    python benchmarks/run.py            # the full set (about 15 minutes, most of it e2e)
    python benchmarks/run.py --quick    # the same measurements, smaller (< 2 min),
                                        # written to benchmarks/results-quick.json (not committed)
    python benchmarks/run.py --out FILE # where the JSON goes (default benchmarks/results.json,
                                        # or results-quick.json with --quick)
    python benchmarks/run.py --plot docs/img/fairness.png   # also draw the fairness sweep
    python benchmarks/run.py --only e2e --e2e-paths gpiod-host   # the gpiod path on the host only

Prints a table with PASS/MISS against the targets of docs/performance.md and
writes every figure to a JSON file.  Benchmarks are not tests: CI runs
``--quick`` only to check that this script works, never to judge timing.

What is measured (each function's docstring says how):

* ``fairness``     -- who wins a press pair: our engine vs first-delivered vs pin polling;
* ``arbiter``      -- engine time from a press to its ruling (Press + settle Tick);
* ``storm``        -- the edge rate 16 bouncing buttons may reach through
  debounce -> loop queue -> engine with nothing dropped and p99 < 1 ms;
* ``render``       -- 1920x1080 frame time (``benchmarks/render.py``);
* ``sound``        -- Sound effect -> first sample (``benchmarks/sound_latency.py``);
* ``drift``        -- countdown expiry vs its exact deadline over an hour of irregular ticks;
* ``serial``       -- firmware simulator -> engine (``benchmarks/serial_latency.py``);
* ``startup``      -- command to the first status line of ``buzzer run --headless``;
* ``journal``      -- ``Journal.append`` with fsync on this disk, vs group commit;
* ``e2e``          -- who wins a press pair through ``buzzer run``'s real loop, on each input
  path, plain and CPU-throttled (``benchmarks/e2e_fairness.py``); the gpiod backend natively on
  this machine (path ``gpiod-host``) also beside CPU hogs;
* ``phones``       -- phones as buttons through a delaying proxy: ours vs arrival order, random
  within 300 ms, client-measured reaction time, on the same traces; a phone against a wired
  button both ways; two wired buttons with a phone joined and without (``benchmarks/phones.py``);
* ``festival_day`` -- a 10-hour festival day, accelerated: every process's memory growth
  (``benchmarks/festival_day.py``).
"""

from __future__ import annotations

import argparse
import datetime
import gc
import importlib.util
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

import fairness as fairness_mod  # noqa: E402  (benchmarks/fairness.py)

from controller.app import config as config_mod  # noqa: E402
from controller.games import engine  # noqa: E402
from controller.inputs.clock import EngineClock  # noqa: E402
from controller.inputs.debounce import Debouncer  # noqa: E402
from controller.core.effects import Log  # noqa: E402
from controller.core.events import NS_PER_MS, NS_PER_S, Host, Press, Release, Tick  # noqa: E402

TARGETS = {
    "arbiter_p99_us": 50.0,
    "storm_edges_per_s": 20_000,
    "render_p50_ms": 4.0,
    "render_p99_ms": 8.0,
    "sound_latency_ms": 12.0,
    "timer_drift_ms_per_hour": 0.0,
    "startup_s": 2.0,
}


def percentile(values, p: float) -> float:
    """Nearest-rank percentile (p in 0..100)."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(1, min(len(ordered), -(-len(ordered) * p // 100)))
    return ordered[int(rank) - 1]


# ---------------------------------------------------------------------------
# fairness

def fairness(quick: bool) -> dict:
    """The sweep of benchmarks/fairness.py: 400 pairs per cell (quick: 100)."""
    pairs = 100 if quick else 400
    rows = fairness_mod.sweep(pairs=pairs)
    settle = fairness_mod.settle_ms_of()
    ok = all(r["ours"] == 1.0 for r in rows if r["jitter_ms"] <= settle)
    return {"fairness": rows, "fairness_pairs_per_cell": pairs, "settle_ms": settle,
            "fairness_ours_perfect_within_settle": ok,
            "fairness_breaks": {m: fairness_mod.where_it_breaks(rows, m) for m in fairness_mod.METHODS}}


# ---------------------------------------------------------------------------
# arbiter latency

def arbiter(quick: bool) -> dict:
    """Wall time of engine.step(Press) + engine.step(Tick at the settle deadline).

    Every sample starts from the same armed state (4 teams, a question just
    announced); the press's button cycles through the teams.  The garbage
    collector stays on, as in the program.
    """
    n = 20_000 if quick else 100_000
    cfg = config_mod.load(None)
    armed = fairness_mod.armed_state(cfg)
    settle = int(round(cfg["arbiter"]["settle_ms"] * NS_PER_MS))
    buttons = [t["button"] for t in cfg["teams"]]
    step = engine.step
    wall, cpu = time.perf_counter_ns, time.thread_time_ns
    walls, cpus = [], []
    for i in range(n + 1000):
        at = NS_PER_S + i * 1000
        press = Press(buttons[i % len(buttons)], at, at + 50_000)
        c0, t0 = cpu(), wall()
        s, _ = step(armed, press)
        s, fx = step(s, Tick(at + settle))
        t1, c1 = wall(), cpu()
        if i >= 1000:  # warm-up
            walls.append(t1 - t0)
            cpus.append(c1 - c0)
        if i == 0:
            assert any(isinstance(f, Log) and f.kind == "answer_right" for f in fx), "no ruling"
    return {"arbiter_p50_us": round(percentile(walls, 50) / 1000, 2),
            "arbiter_p99_us": round(percentile(walls, 99) / 1000, 2),
            "arbiter_max_us": round(max(walls) / 1000, 2),
            "arbiter_cpu_p50_us": round(percentile(cpus, 50) / 1000, 2),
            "arbiter_cpu_p99_us": round(percentile(cpus, 99) / 1000, 2),
            "arbiter_events": n,
            "arbiter_note_cpu": "cpu = this thread's CPU time (excludes time the OS gave other processes)"}


# ---------------------------------------------------------------------------
# storm: 16 bouncing buttons through debounce, the loop's queue and the engine

STORM_BUTTONS = 16
STORM_CYCLE_MS = 50       # each button is pressed 20 times a second (mashing)
STORM_HOLD_MS = 25        # release burst this long after the press burst
STORM_BURST_MS = 2.0      # a bounce burst lasts 2 ms (< the 5 ms debounce window)


def _storm_schedule(rate: float, seconds: float, rng: random.Random) -> tuple[list, int]:
    """Raw edges (t_ns, button, level) for ``rate`` edges/s over ``seconds``,
    sorted by time, and the number of transitions the debounce must accept.

    Each press and each release is a burst of an odd number of edges (the
    contact ends in the new state) spread over STORM_BURST_MS; the bounce
    density sets the edge rate."""
    bursts_per_s = STORM_BUTTONS * 2 * 1000 / STORM_CYCLE_MS
    per_burst = max(1, int(round(rate / bursts_per_s)))
    if per_burst % 2 == 0:
        per_burst += 1
    spacing = int(STORM_BURST_MS * NS_PER_MS / per_burst)
    edges = []
    transitions = 0
    cycle = STORM_CYCLE_MS * NS_PER_MS
    end = int(seconds * NS_PER_S)
    for b in range(STORM_BUTTONS):
        t = rng.randrange(cycle)
        while t + cycle <= end:
            for start, level in ((t, True), (t + STORM_HOLD_MS * NS_PER_MS, False)):
                for k in range(per_burst):
                    edges.append((start + k * spacing + rng.randrange(max(spacing // 4, 1)),
                                  b, level if k % 2 == 0 else not level))
                transitions += 1
            t += cycle
    edges.sort()
    return edges, transitions


def _storm_config() -> dict:
    base = config_mod.load(None)
    teams = [{"name": f"T{i + 1}", "button": f"B{i + 1}", "players": 4} for i in range(STORM_BUTTONS)]
    return config_mod.build({"teams": teams, "erudite": {"max_teams": STORM_BUTTONS}}, base=base)


def storm_step(rate: float, seconds: float, seed: int = 7, journal_dir: str | None = None) -> dict:
    """Offer ``rate`` raw edges/s for ``seconds``; return what came through.

    A producer thread plays the part of the GPIO callback thread: it takes
    each raw edge when its time comes (stamped with that time, as the kernel
    stamps it), runs it through the button's :class:`Debouncer` and puts the
    accepted transitions on the loop's queue.  It sleeps while no edge is due
    (releasing the GIL, as a thread blocked on the GPIO chip would).  The
    loop thread runs ``Loop.step_once`` with no journal.  Every 200 ms the
    host withdraws the question and announces a new one, so presses keep
    meeting an open question.  Latency: from the edge's stamp to the end of
    the engine step that took it.  With ``journal_dir`` the loop journals
    every event with fsync first, as ``buzzer run`` does by default.
    """
    from controller.app.loop import Loop

    cfg = _storm_config()
    rng = random.Random(seed)
    edges, expected = _storm_schedule(rate, seconds, rng)
    names = [t["button"] for t in cfg["teams"]]
    clock = EngineClock()
    state = engine.new_game(cfg, 1)
    latencies: list[int] = []

    class TimedLoop(Loop):
        def apply(self, event, journaled=False):
            fx = super().apply(event, journaled)
            if isinstance(event, (Press, Release)):
                latencies.append(self.clock.now() - event.at)
            return fx

    devnull = open(os.devnull, "w")
    jr = None
    if journal_dir is not None:
        from controller.sessions.journal import Journal
        jr = Journal(Path(journal_dir) / "storm.jsonl", header={"config": {}, "seed": 1}, fsync=True)
    loop = TimedLoop(cfg, state, clock, journal=jr, out=devnull)
    loop.enqueue(Host("question", clock.now()))
    stop = threading.Event()

    def consume():
        while not stop.is_set():
            loop.step_once(0.005)

    consumer = threading.Thread(target=consume, name="storm-loop", daemon=True)
    consumer.start()
    debs = [Debouncer(int(cfg["gpio"]["debounce_ms"] * NS_PER_MS), at=0) for _ in names]
    start = clock.now() + 20 * NS_PER_MS
    next_host = start + 200 * NS_PER_MS
    i, n = 0, len(edges)
    while i < n:
        now = clock.now()
        while i < n and edges[i][0] + start <= now:
            t, b, level = edges[i]
            transitions = debs[b].edge(start + t, level)
            if transitions:
                delivered = clock.now()
                for tr in transitions:
                    loop.enqueue((Press if tr.pressed else Release)(names[b], tr.at, delivered))
            i += 1
        if now >= next_host:
            loop.enqueue(Host("withdraw", now))
            loop.enqueue(Host("question", now))
            next_host += 200 * NS_PER_MS
        if i < n:
            wait = edges[i][0] + start - clock.now()
            if wait > 0:
                time.sleep(min(wait, NS_PER_MS) / NS_PER_S)
    deadline = time.monotonic() + 1.0
    while len(latencies) < expected and time.monotonic() < deadline:
        time.sleep(0.005)
    stop.set()
    consumer.join(1.0)
    devnull.close()
    if jr is not None:
        jr.close()
    accepted = sum(d.transitions for d in debs)
    got = len(latencies)
    return {"offered_edges_per_s": round(n / seconds), "edges": n, "transitions_expected": expected,
            "transitions_accepted": accepted, "transitions_applied": got,
            "dropped": max(0, expected - got), "extra": max(0, got - expected),
            "p50_us": round(percentile(latencies, 50) / 1000, 1) if latencies else None,
            "p99_us": round(percentile(latencies, 99) / 1000, 1) if latencies else None,
            "max_us": round(max(latencies) / 1000, 1) if latencies else None}


def handoff_floor(n: int, period_ns: int = NS_PER_MS) -> dict:
    """The storm's path with nothing in it: a thread sleeps until an item is
    due, puts it on a SimpleQueue, another thread blocked on ``get`` takes it.
    Its latency is what the OS scheduler and the GIL alone cost; the storm's
    p99 cannot be better than this."""
    q: Any = __import__("queue").SimpleQueue()
    lat: list[int] = []

    def consume():
        while (t := q.get()) is not None:
            lat.append(time.perf_counter_ns() - t)

    th = threading.Thread(target=consume, daemon=True)
    th.start()
    due = time.perf_counter_ns() + NS_PER_MS
    for _ in range(n):
        while (wait := due - time.perf_counter_ns()) > 0:
            time.sleep(min(wait, NS_PER_MS) / NS_PER_S)
        q.put(due)
        due += period_ns
    q.put(None)
    th.join(2.0)
    return {"p50_us": round(percentile(lat, 50) / 1000, 1), "p99_us": round(percentile(lat, 99) / 1000, 1),
            "max_us": round(max(lat) / 1000, 1), "samples": len(lat)}


def storm(quick: bool) -> dict:
    """Step the offered edge rate up (x2).  The figure is the highest rate at
    which that step and every lower one passed (nothing dropped, p99 < 1 ms).
    Steps go on after a miss (unless events were dropped), so that a miss
    caused by another process on the machine shows as an isolated one."""
    seconds = 1.0 if quick else 3.0
    rates = [5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 320_000]
    steps = []
    best = 0
    all_passed = True
    for rate in rates:
        r = storm_step(rate, seconds)
        r["pass"] = r["dropped"] == 0 and r["extra"] == 0 and r["p99_us"] is not None and r["p99_us"] < 1000
        steps.append(r)
        all_passed = all_passed and r["pass"]
        if all_passed:
            best = r["offered_edges_per_s"]
        if r["dropped"]:
            break
    highest = max((r["offered_edges_per_s"] for r in steps if r["pass"]), default=0)
    with tempfile.TemporaryDirectory(dir=REPO, prefix=".bench-storm-") as tmp:
        journaled = storm_step(20_000, seconds, journal_dir=tmp)
    return {"storm_edges_per_s": best, "storm_highest_passing_step": highest,
            "storm_steps": steps, "storm_seconds_per_step": seconds,
            "storm_handoff_floor": handoff_floor(1000 if quick else 3000),
            "storm_20k_with_fsync_journal": journaled}


# ---------------------------------------------------------------------------
# colleagues' measurements: imported if present

def _import_bench(name: str):
    path = HERE / f"{name}.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    module = sys.modules.get(spec.name)
    if module is None:
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
    return module


def render(quick: bool) -> dict:
    """benchmarks/render.py measure(quick): 1920x1080 frame time."""
    mod = _import_bench("render")
    if mod is None:
        return {"render_p50_ms": None, "render_p99_ms": None, "render_note": "benchmarks/render.py missing"}
    r = dict(mod.measure(quick))
    r.setdefault("render_p50_ms", None)
    r.setdefault("render_p99_ms", None)
    return r


def sound(quick: bool) -> dict:
    """benchmarks/sound_latency.py measure(): effect -> first non-zero sample, disk driver."""
    mod = _import_bench("sound_latency")
    if mod is None:
        return {"sound_latency_ms": None, "sound_note": "benchmarks/sound_latency.py missing"}
    return mod.measure(trials=10) if quick else mod.measure()


def serial(quick: bool) -> dict:
    """benchmarks/serial_latency.py measure(quick): firmware simulator -> engine."""
    mod = _import_bench("serial_latency")
    if mod is None:
        return {"serial_sim_p50_ms": None, "serial_sim_p99_ms": None,
                "serial_note": "benchmarks/serial_latency.py missing"}
    r = dict(mod.measure(quick))
    r.setdefault("serial_sim_p50_ms", None)
    r.setdefault("serial_sim_p99_ms", None)
    return r


# ---------------------------------------------------------------------------
# end-to-end fairness through the real loop

def web(quick: bool) -> dict:
    """benchmarks/web.py run(quick): press -> audience page update, 200 viewers, a fuzz of
    10,000 malformed or unauthorised requests (the web pages, #14)."""
    mod = _import_bench("web")
    if mod is None:
        return {"web_note": "benchmarks/web.py missing"}
    return mod.run(quick)


E2E_PATHS: list[str] | None = None
"""``--e2e-paths``: the e2e measure's paths (None: all of them)."""


def e2e(quick: bool) -> dict:
    """benchmarks/e2e_fairness.py measure(quick): press pairs through ``buzzer
    run``'s loop (journal, 1920x1080 window) on each real input path, plain
    and under a cgroup CPU quota (each in a child process); ``gpiod-host`` also
    beside CPU hogs.  ``--e2e-paths`` picks the paths (the others' rows and keys stay)."""
    mod = _import_bench("e2e_fairness")
    if mod is None:
        return {"e2e_fairness": [], "e2e_note": "benchmarks/e2e_fairness.py missing"}
    if E2E_PATHS is not None:
        return mod.measure(quick, paths=E2E_PATHS)
    return mod.measure(quick)


def kernel(quick: bool) -> dict:
    """benchmarks/e2e_kernel.py measure(quick): press pairs through a real kernel's GPIO chip
    (gpio-sim in the test guest, qemu) on the gpiod and lgpio paths, plain, beside CPU hogs and
    under the CPU quota.  Its rows join ``e2e_fairness`` (paths gpiod-kernel, lgpio-kernel)."""
    mod = _import_bench("e2e_kernel")
    if mod is None:
        return {"e2e_kernel_rows": [], "e2e_kernel_note": "benchmarks/e2e_kernel.py not importable"}
    return mod.measure(quick)


KERNEL_PATHS = ("gpiod-kernel", "lgpio-kernel")


def _join_kernel_rows(results: dict) -> None:
    """The kernel measure's rows in ``e2e_fairness``, replacing older ones of those paths."""
    rows = results.pop("e2e_kernel_rows", None)
    if rows is None:
        return
    kept = [r for r in results.get("e2e_fairness", []) if r.get("path") not in KERNEL_PATHS]
    results["e2e_fairness"] = kept + rows


def merge_partial(old: dict, new: dict, only) -> dict:
    """A partial run's (``--only``) figures over the file's: its own keys replace theirs, the
    others stay; the e2e measure's rows in ``e2e_fairness`` replace its own rows, never the
    kernel measure's (which :func:`_join_kernel_rows` then puts back)."""
    new = dict(new)
    if "e2e_fairness" in new and "e2e_kernel_rows" not in new:
        new["e2e_kernel_rows"] = [r for r in old.get("e2e_fairness", []) if r.get("path") in KERNEL_PATHS]
        if new.get("e2e_paths"):
            # only some e2e paths were run (--e2e-paths): the other paths' rows stay
            ran = set(new["e2e_paths"])
            new["e2e_fairness"] = [r for r in old.get("e2e_fairness", [])
                                   if r.get("path") not in ran and r.get("path") not in KERNEL_PATHS] \
                + new["e2e_fairness"]
    merged = {**old, **new}
    merged["command"] = "python benchmarks/run.py (with --only runs merged: " + ",".join(sorted(only)) + ")"
    return merged


# ---------------------------------------------------------------------------
# timer drift

def drift(quick: bool, seed: int = 11) -> dict:
    """A 60 s thinking countdown restarted back to back for an hour of fake
    engine time, ticked every 1-50 ms at random.

    Each countdown is started (question + end of reading) at the tick that saw
    the previous one expire.  Its exact expiry is start + 60 s + settle (the
    engine waits one settle window after the deadline for a last late edge);
    the engine's ``time_up`` log says when it fired.  Drift is the sum of
    (fired - exact) over the hour.  The tick that *observes* an expiry comes
    up to 50 ms later; that lag is reported apart (it does not accumulate).
    """
    cfg = config_mod.build({"erudite": {"think_time_s": 60.0, "fights": 1000}}, base=config_mod.load(None))
    settle = int(round(cfg["arbiter"]["settle_ms"] * NS_PER_MS))
    think = int(cfg["erudite"]["think_time_s"] * NS_PER_S)
    rng = random.Random(seed)
    state = engine.new_game(cfg, 1)
    hour = 3600 * NS_PER_S
    t = 0
    total_drift = 0
    max_lag = 0
    countdowns = 0
    ticks = 0

    def start_at(now):
        nonlocal state
        state, _ = engine.step(state, Host("question", now))
        state, _ = engine.step(state, Host("reading_done", now))
        return now

    started = start_at(0)
    while t < hour:
        t += rng.randint(1, 50) * NS_PER_MS
        state, fx = engine.step(state, Tick(t))
        ticks += 1
        fired = [f.at for f in fx if isinstance(f, Log) and f.kind == "time_up"]
        if fired:
            total_drift += fired[0] - (started + think + settle)
            max_lag = max(max_lag, t - fired[0])
            countdowns += 1
            started = start_at(t)
    return {"timer_drift_ms_per_hour": total_drift / NS_PER_MS, "timer_countdowns": countdowns,
            "timer_ticks": ticks, "timer_max_observe_lag_ms": max_lag / NS_PER_MS}


# ---------------------------------------------------------------------------
# start-up

_WINDOW_RUN = (
    "import sys, controller.app.startup as L\n"
    "L.display_available = lambda: True  # SDL's dummy driver reads as 'no display'\n"
    "from controller.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def _first_line(argv: list[str], marker: str | None, env: dict, cgroup_procs: str | None = None,
                cwd: str | None = None) -> tuple[float | None, str]:
    """Start ``argv`` in a temp cwd (its journal goes there); seconds until a
    stdout line containing ``marker`` (``None``: until it exits with status 0),
    and the tail of stderr.  With ``cgroup_procs`` the child joins that cgroup
    (the e2e benchmark's CPU quota) before it runs the program: its whole
    start-up is throttled, as on a busy Pi."""
    def join():
        with open(cgroup_procs, "w") as f:
            f.write(str(os.getpid()))

    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd or tmp, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, preexec_fn=join if cgroup_procs else None)
        first = None
        if marker is None:
            proc.stdout.read()
            if proc.wait() == 0:
                first = time.perf_counter() - t0
        else:
            for line in proc.stdout:
                if marker in line:
                    first = time.perf_counter() - t0
                    break
        try:
            _, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
    return first, (err or "")[-300:]


STARTUP_SIMULATE_SCRIPT = REPO / "examples" / "erudite-light.jsonl"


def startup(quick: bool) -> dict:
    """Command to first frame: ``buzzer run --new`` (i.e. ``controller.cli.main``)
    in a temp cwd with a fresh journal, SDL_VIDEODRIVER=dummy, until the
    window has flipped its first frame (BUZZER_EXIT_AFTER_FIRST_FRAME=1 makes
    controller/screens/window.py print "first frame" and stop).  ``buzzer run``
    takes the dummy driver for "no display" and would go headless, so the
    child forces display detection on.  Also: ``buzzer run --headless`` to its
    first status line, ``buzzer --version`` and ``buzzer simulate
    examples/erudite-light.jsonl`` to their exit.  Each plain and (``*_throttled_s``)
    with the child in the e2e benchmark's cgroup CPU quota (25 % of one core,
    benchmarks/e2e_fairness.py ``Throttle``) from its first instruction.
    Median of 3 runs each (quick: 1).
    """
    runs = 1 if quick else 3
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1",
               PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""), PYTHONUNBUFFERED="1",
               BUZZER_EXIT_AFTER_FIRST_FRAME="1")
    # the bytecode of a second start (a first one writes it), in a folder of its own: the
    # checkout stays clean, and PYTHONDONTWRITEBYTECODE in the caller's environment does not
    # make every run compile the program again
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = pycache = tempfile.mkdtemp(prefix="buzzer-startup-pyc-")
    out: dict[str, Any] = {"startup_runs": runs}
    cases = (
        ("startup_s", [sys.executable, "-c", _WINDOW_RUN, "run", "--new", "--seconds", "10"], "first frame", None),
        ("startup_headless_s", [sys.executable, "-m", "controller.cli", "run", "--headless", "--new",
                                "--seconds", "1"], " · ", None),  # the status line lists the scores
        ("startup_version_s", [sys.executable, "-m", "controller.cli", "--version"], None, None),
        ("startup_simulate_s", [sys.executable, "-m", "controller.cli", "simulate", STARTUP_SIMULATE_SCRIPT.name],
         None, str(STARTUP_SIMULATE_SCRIPT.parent)),
    )

    def measure_all(suffix: str, procs: str | None) -> None:
        for key, argv, marker, cwd in cases:
            key = key[:-2] + suffix
            out[f"{key[:-2]}_note"] = None   # (None replaces an older run's note when merged)
            times = []
            _first_line(argv, marker, env, cwd=cwd)   # writes the bytecode; not counted
            for _ in range(runs):
                first, err = _first_line(argv, marker, env, cgroup_procs=procs, cwd=cwd)
                if first is None:
                    out[f"{key[:-2]}_note"] = f"{key}: no {(marker or 'exit 0').strip() or 'status'} line: {err}"
                    break
                times.append(first)
            out[key] = round(statistics.median(times), 3) if times else None

    measure_all("_s", None)
    e2e_mod = _import_bench("e2e_fairness")
    try:
        if e2e_mod is None:
            raise RuntimeError("benchmarks/e2e_fairness.py missing")
        with e2e_mod.Throttle() as throttle:
            out["startup_throttle"] = throttle.describe().split(", group")[0]
            measure_all("_throttled_s", throttle.procs)
    except (RuntimeError, OSError, getattr(e2e_mod, "ThrottleUnavailable", RuntimeError)) as exc:
        out["startup_throttle"] = f"unavailable: {exc}"
    finally:
        import shutil
        shutil.rmtree(pycache, ignore_errors=True)
    out["startup_measured"] = ("startup_s: command to the first window frame (pygame, dummy driver, 1280x720); "
                               "startup_headless_s: to the first status line of --headless; "
                               "startup_version_s: buzzer --version to its exit; "
                               "startup_simulate_s: buzzer simulate examples/erudite-light.jsonl to its exit; "
                               "*_throttled_s: the same under startup_throttle; "
                               "each after one uncounted run that wrote the bytecode")
    return out


# ---------------------------------------------------------------------------
# journal

def journal(quick: bool) -> dict:
    """Journal.append per event with fsync on this disk, without fsync, and
    append_many (group commit of 16) per event.  The journal lives in a temp
    folder next to the repository (the disk a game's journal would use)."""
    from controller.sessions.journal import Journal

    n = 300 if quick else 3000
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(dir=REPO, prefix=".bench-journal-") as tmp:
        for label, fsync in (("fsync", True), ("nofsync", False)):
            j = Journal(Path(tmp) / f"{label}.jsonl", header={"config": {}, "seed": 0}, fsync=fsync)
            samples = []
            for i in range(n):
                ev = Press("A", i * 1000, i * 1000 + 10)
                t0 = time.perf_counter_ns()
                j.append(ev)
                samples.append(time.perf_counter_ns() - t0)
            j.close()
            out[f"journal_{label}_p50_us"] = round(percentile(samples, 50) / 1000, 1)
            out[f"journal_{label}_p99_us"] = round(percentile(samples, 99) / 1000, 1)
        j = Journal(Path(tmp) / "group.jsonl", header={"config": {}, "seed": 0}, fsync=True)
        per_event = []
        for i in range(max(n // 16, 10)):
            batch = [Press("A", k, k + 10) for k in range(i * 16, i * 16 + 16)]
            t0 = time.perf_counter_ns()
            j.append_many(batch)
            per_event.append((time.perf_counter_ns() - t0) / 16)
        j.close()
        out["journal_group16_per_event_p50_us"] = round(percentile(per_event, 50) / 1000, 1)
    out["journal_events"] = n
    return out


# ---------------------------------------------------------------------------
# the machine, the table

def machine() -> dict:
    """CPU model, cores, Python, OS, date and load: what the figures depend on."""
    cpu = platform.processor() or platform.machine()
    try:
        info = {}
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            info.setdefault(key.strip().lower(), value.strip())
        cpu = info.get("model name") or info.get("model") or info.get("hardware") or cpu
    except OSError:
        pass
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = None
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "platform": platform.platform(), "date": datetime.datetime.now().isoformat(timespec="seconds"),
            "loadavg_at_start": load, **sleep_overshoot()}


def sleep_overshoot(n: int = 400) -> dict:
    """How late ``time.sleep(0.001)`` returns: the OS scheduler's noise floor,
    which bounds every tail latency of a thread that waits for input."""
    late = []
    for _ in range(n):
        t0 = time.perf_counter_ns()
        time.sleep(0.001)
        late.append(time.perf_counter_ns() - t0 - 1_000_000)
    return {"sleep_1ms_overshoot_p50_us": round(percentile(late, 50) / 1000, 1),
            "sleep_1ms_overshoot_p99_us": round(percentile(late, 99) / 1000, 1)}


def _fmt(v, unit="") -> str:
    if v is None:
        return "null"
    if isinstance(v, float):
        return f"{v:,.3g}{unit}" if abs(v) < 1000 else f"{v:,.0f}{unit}"
    return f"{v:,}{unit}" if isinstance(v, int) else f"{v}{unit}"


def _verdict(ok) -> str:
    return "—" if ok is None else ("PASS" if ok else "MISS")


def table_rows(r: dict) -> list[tuple[str, str, str, str]]:
    """(measure, value, target, verdict) rows of the summary table."""
    def le(key, target):
        v = r.get(key)
        return None if v is None else v <= target

    rows = [
        ("fairness: ours = 1.0 when jitter <= settle",
         {True: "yes", False: "no"}.get(r.get("fairness_ours_perfect_within_settle"), "null"),
         f"every gap >= 1 µs, jitter <= {r.get('settle_ms')} ms",
         _verdict(r.get("fairness_ours_perfect_within_settle"))),
        ("arbiter p50", _fmt(r.get("arbiter_p50_us"), " µs"), "", ""),
        ("arbiter p99", _fmt(r.get("arbiter_p99_us"), " µs"), "<= 50 µs", _verdict(le("arbiter_p99_us", 50))),
        ("arbiter CPU time p50 / p99", f"{_fmt(r.get('arbiter_cpu_p50_us'))} / {_fmt(r.get('arbiter_cpu_p99_us'), ' µs')}",
         "", ""),
        ("storm (16 bouncing buttons)", _fmt(r.get("storm_edges_per_s"), " edges/s"), ">= 20,000 edges/s",
         _verdict(None if r.get("storm_edges_per_s") is None else r["storm_edges_per_s"] >= 20_000)),
        ("storm: highest passing step", _fmt(r.get("storm_highest_passing_step"), " edges/s"), "", ""),
        ("storm: p50 / p99 at the 20k step",
         " / ".join(_fmt(x.get(k)) for x in (r.get("storm_steps") or [{}, {}, {}])[2:3] for k in ("p50_us", "p99_us"))
         + " µs", "p99 < 1,000 µs", ""),
        ("thread handoff alone (the floor): p50 / p99",
         f"{_fmt((r.get('storm_handoff_floor') or {}).get('p50_us'))} / "
         f"{_fmt((r.get('storm_handoff_floor') or {}).get('p99_us'), ' µs')}", "", ""),
        ("storm 20k edges/s with fsync journal: p99",
         _fmt((r.get("storm_20k_with_fsync_journal") or {}).get("p99_us"), " µs"), "", ""),
        ("render 1920×1080 p50", _fmt(r.get("render_p50_ms"), " ms"), "<= 4 ms", _verdict(le("render_p50_ms", 4))),
        ("render 1920×1080 p99", _fmt(r.get("render_p99_ms"), " ms"), "<= 8 ms", _verdict(le("render_p99_ms", 8))),
        ("sound: effect -> first sample (median)", _fmt(r.get("sound_latency_ms"), " ms"), "<= 12 ms",
         _verdict(le("sound_latency_ms", 12))),
        ("sound p99", _fmt(r.get("sound_latency_p99_ms"), " ms"), "", ""),
        ("timer drift over an hour", _fmt(r.get("timer_drift_ms_per_hour"), " ms"), "0 ms",
         _verdict(None if r.get("timer_drift_ms_per_hour") is None else r["timer_drift_ms_per_hour"] == 0)),
        ("serial sim p50", _fmt(r.get("serial_sim_p50_ms"), " ms"), "", ""),
        ("serial sim p99", _fmt(r.get("serial_sim_p99_ms"), " ms"), "", ""),
        ("start-up: command to first frame", _fmt(r.get("startup_s"), " s"), "<= 2 s", _verdict(le("startup_s", 2))),
        ("start-up: to first status line (--headless)", _fmt(r.get("startup_headless_s"), " s"), "", ""),
        ("start-up: command to first frame, throttled", _fmt(r.get("startup_throttled_s"), " s"), "<= 2 s",
         _verdict(le("startup_throttled_s", 2))),
        ("start-up: --headless status line, throttled", _fmt(r.get("startup_headless_throttled_s"), " s"), "", ""),
        ("start-up: buzzer --version / throttled",
         f"{_fmt(r.get('startup_version_s'))} / {_fmt(r.get('startup_version_throttled_s'), ' s')}", "<= 0.3 s",
         _verdict(le("startup_version_s", 0.3))),
        ("start-up: buzzer simulate (a 5-question script) / throttled",
         f"{_fmt(r.get('startup_simulate_s'))} / {_fmt(r.get('startup_simulate_throttled_s'), ' s')}", "", ""),
        ("OS wake-up lateness (sleep 1 ms) p50 / p99",
         f"{_fmt((r.get('machine') or {}).get('sleep_1ms_overshoot_p50_us'))} / "
         f"{_fmt((r.get('machine') or {}).get('sleep_1ms_overshoot_p99_us'), ' µs')}", "", ""),
        ("journal append + fsync p50", _fmt(r.get("journal_fsync_p50_us"), " µs"), "", ""),
        ("journal append + fsync p99", _fmt(r.get("journal_fsync_p99_us"), " µs"), "", ""),
        ("journal append, no fsync p50", _fmt(r.get("journal_nofsync_p50_us"), " µs"), "", ""),
        ("journal group commit (16) per event", _fmt(r.get("journal_group16_per_event_p50_us"), " µs"), "", ""),
    ]
    if "stall_mark_p50_us" in r:
        rows.append(("GPIO stall mark (before each press is queued) p50 / p99",
                     f"{_fmt(r.get('stall_mark_p50_us'))} / {_fmt(r.get('stall_mark_p99_us'), ' µs')}", "", ""))
        rows.append(("GPIO stall read (at a due decision) p50 / p99",
                     f"{_fmt(r.get('stall_since_mark_p50_us'))} / {_fmt(r.get('stall_since_mark_p99_us'), ' µs')}",
                     "", ""))
    if "e2e_fairness" in r:
        won = r.get("e2e_cells_won") or {}
        for label in ("plain", "throttled"):
            w = won.get(label) or [0, 0]
            rows.append((f"e2e fairness, {label}: cells where the true first always wins",
                         f"{w[0]} / {w[1]}" if w[1] else "null", "all: serial gaps >= 10 µs, GPIO >= 1 µs, "
                         "D <= 50 ms, δ <= 10 ms", _verdict(None if not w[1] else w[0] == w[1])))
        rows += [
            ("e2e decision (edge -> winner's lamp) p50 / p99",
             f"{_fmt(r.get('e2e_decision_p50_ms'))} / {_fmt(r.get('e2e_decision_p99_ms'), ' ms')}",
             "includes D (up to 50 ms)", ""),
            ("e2e decision beyond the delivery delay D p50 / p99",
             f"{_fmt(r.get('e2e_decision_beyond_delay_p50_ms'))} / "
             f"{_fmt(r.get('e2e_decision_beyond_delay_p99_ms'), ' ms')}", "includes δ (up to 10 ms)", ""),
            ("e2e decision after the last delivery p50 / p99",
             f"{_fmt(r.get('e2e_decision_after_delivery_p50_ms'))} / "
             f"{_fmt(r.get('e2e_decision_after_delivery_p99_ms'), ' ms')}", "p99 <= 20 ms",
             _verdict(le("e2e_decision_after_delivery_p99_ms", 20))),
            ("e2e decision throttled p50 / p99",
             f"{_fmt(r.get('e2e_decision_throttled_p50_ms'))} / {_fmt(r.get('e2e_decision_throttled_p99_ms'), ' ms')}",
             "", ""),
            ("e2e throttle", str(r.get("e2e_throttle", "null")).split(", group")[0], "", ""),
        ]
    if "phones_fairness" in r:
        above = r.get("phones_above_unc") or {}
        rows += [
            ("phones: right calls, gap > both uncertainties (the rest: declared ties)",
             f"{above.get('right')} / {above.get('pairs')}" if above.get("pairs") else "null", ">= 99.9 %",
             _verdict(None if not above.get("pairs") else above["right"] >= 0.999 * above["pairs"])),
            ("phones: right calls where no tie is possible (gap > 2 × both uncertainties)",
             f"{(r.get('phones_beyond_tie') or {}).get('right')} / {(r.get('phones_beyond_tie') or {}).get('pairs')}",
             ">= 99.9 %", _verdict(None if not (r.get("phones_beyond_tie") or {}).get("pairs") else
                                   r["phones_beyond_tie"]["right"] >= 0.999 * r["phones_beyond_tie"]["pairs"])),
            ("phones: a winner named wrongly without a tie (all races)", _fmt(r.get("phones_wrong_calls")), "0",
             _verdict(None if r.get("phones_wrong_calls") is None else r["phones_wrong_calls"] == 0)),
            ("phones: touches outside their declared uncertainty", _fmt(r.get("phones_outside_unc")), "0",
             _verdict(None if r.get("phones_outside_unc") is None else r["phones_outside_unc"] == 0)),
            ("phones: decision after the last press p50 / p99",
             f"{_fmt(r.get('phones_decision_p50_ms'))} / {_fmt(r.get('phones_decision_p99_ms'), ' ms')}",
             f"includes the wait (up to {_fmt(r.get('phones_wait_ms_max'), ' ms')})", ""),
            ("phones: decision beyond the race's phone wait p99", _fmt(r.get("phones_decision_beyond_wait_p99_ms"), " ms"),
             "<= 20 ms", _verdict(le("phones_decision_beyond_wait_p99_ms", 20))),
            ("phones: 40 joined, wired decision p99 delta (beyond the wait)",
             _fmt(r.get("phones_wired_decision_p99_delta_ms"), " ms"), "<= 1 ms",
             _verdict(le("phones_wired_decision_p99_delta_ms", 1))),
            ("phones: 40 joined, wired decision p99 delta with the wait",
             _fmt(r.get("phones_wired_decision_p99_delta_with_wait_ms"), " ms"),
             f"the wait: {_fmt(r.get('phones_wired_wait_ms'), ' ms')}", ""),
        ]
    if "phones_mixed_fairness" in r:
        m_beyond = r.get("phones_mixed_beyond_tie") or {}
        m_above = r.get("phones_mixed_above_unc") or {}
        m_wired = r.get("phones_mixed_wired_pairs") or {}
        m_exact = r.get("phones_mixed_wired_exact") or {}
        rows += [
            ("phones vs wired: a winner named wrongly without a tie", _fmt(r.get("phones_mixed_wrong_calls")), "0",
             _verdict(None if r.get("phones_mixed_wrong_calls") is None else r["phones_mixed_wrong_calls"] == 0)),
            ("phones vs wired: right calls, gap > the phone's uncertainty (the rest: declared ties)",
             f"{m_above.get('right')} / {m_above.get('pairs')}" if m_above.get("pairs") else "null", "", ""),
            ("phones vs wired: right calls where no tie is possible (gap > 2 × its uncertainty)",
             f"{m_beyond.get('right')} / {m_beyond.get('pairs')}" if m_beyond.get("pairs") else "null", ">= 99.9 %",
             _verdict(None if not m_beyond.get("pairs") else m_beyond["right"] >= 0.999 * m_beyond["pairs"])),
            ("phones vs wired: phone touches outside their declared uncertainty",
             _fmt(r.get("phones_mixed_outside_unc")), "0",
             _verdict(None if r.get("phones_mixed_outside_unc") is None else r["phones_mixed_outside_unc"] == 0)),
            ("phones vs wired: wired presses kept exact (µs stamp, no uncertainty)",
             f"{m_exact.get('exact')} / {m_exact.get('presses')}" if m_exact.get("presses") else "null", "all",
             _verdict(None if not m_exact.get("presses") else m_exact["exact"] == m_exact["presses"])),
            ("a phone and two wired buttons 5 ms apart inside its uncertainty: the second named first",
             f"{(r.get('phones_mixed_three_way') or {}).get('second_wired')} of "
             f"{(r.get('phones_mixed_three_way') or {}).get('races')} races" if (r.get("phones_mixed_three_way") or {})
             .get("races") else "null", "0",
             _verdict(None if not (r.get("phones_mixed_three_way") or {}).get("races") else
                      r["phones_mixed_three_way"]["second_wired"] == 0
                      and r["phones_mixed_three_way"]["wired_order_kept"] == r["phones_mixed_three_way"]["races"])),
            ("two wired buttons, a phone joined: the same decisions as without",
             f"{m_wired.get('same_decisions')} / {m_wired.get('compared')}" if m_wired.get("compared") else "null",
             "all, no tie", _verdict(None if not m_wired.get("compared") else
                                     m_wired["same_decisions"] == m_wired["compared"]
                                     and not (m_wired.get("with_phone") or {}).get("tie"))),
        ]
    kernel_p99 = r.get("e2e_kernel_decision_p99_ms") or {}
    for path, loads in kernel_p99.items():
        rows_k = [x for x in r.get("e2e_fairness", []) if x.get("path") == path and x.get("ours") is not None
                  and x.get("above_tie")]
        won = sum(1 for x in rows_k if x["ours"] == 1.0)
        rows.append((f"{path}: cells above the tie resolution the true first always wins",
                     f"{won} / {len(rows_k)}" if rows_k else "null", "all (gpiod)",
                     _verdict(None if not rows_k else won == len(rows_k))))
        rows.append((f"{path}: decision p99 (later kernel stamp -> lamp) plain / hog / throttled",
                     " / ".join(_fmt(loads.get(k)) for k in ("plain", "hog", "throttled")) + " ms",
                     "settle + 3 ms unthrottled, 20 ms throttled (on a Pi; TCG is slower)", ""))
    host_p99 = r.get("e2e_gpiod_host_decision_p99_ms") or {}
    if host_p99:
        rows_h = [x for x in r.get("e2e_fairness", []) if x.get("path") == "gpiod-host" and x.get("ours") is not None
                  and x.get("gap_us", 0) > (x.get("gpio_tie_us") or 0)]
        won = sum(1 for x in rows_h if x["ours"] == 1.0)
        rows.append(("gpiod-host: cells above the tie resolution the true first always wins",
                     f"{won} / {len(rows_h)}" if rows_h else "null", "all",
                     _verdict(None if not rows_h else won == len(rows_h))))
        settle = r.get("e2e_gpiod_host_settle_ms") or 2.0
        unthrottled = [host_p99.get(k) for k in ("plain", "hog") if host_p99.get(k) is not None]
        ok = None
        if unthrottled or host_p99.get("throttled") is not None:
            ok = all(v <= settle + 3 for v in unthrottled) and \
                (host_p99.get("throttled") is None or host_p99["throttled"] <= 20)
        rows.append(("gpiod-host: decision p99 (later edge's stamp -> lamp) plain / hog / throttled",
                     " / ".join(_fmt(host_p99.get(k)) for k in ("plain", "hog", "throttled")) + " ms",
                     f"<= settle + 3 = {settle + 3:g} ms unthrottled, <= 20 ms throttled", _verdict(ok)))
    return rows


def fairness_table(rows: list[dict]) -> list[str]:
    """The sweep as text: one line per gap, per jitter the four fractions."""
    jitters = sorted({r["jitter_ms"] for r in rows})
    gaps = sorted({r["gap_us"] for r in rows})
    cell = {(r["gap_us"], r["jitter_ms"]): r for r in rows}
    out = ["ours / first-delivered / poll 1 ms / poll 10 ms: fraction won by the true first presser",
           "gap µs \\ jitter ms " + "".join(f"{j:>22g}" for j in jitters)]
    for g in gaps:
        line = f"{g:>18g} "
        for j in jitters:
            r = cell[(g, j)]
            line += f"  {r['ours']:.2f} {r['first_delivered']:.2f} {r['poll_1ms']:.2f} {r['poll_10ms']:.2f}"
        out.append(line)
    return out


def markdown(r: dict) -> str:
    """The summary and the fairness sweep as Markdown tables (for docs/performance.md)."""
    lines = ["| measure | value | target | result |", "|---|---:|---|---|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in table_rows(r)]
    rows = r.get("fairness", [])
    if rows:
        jitters = sorted({x["jitter_ms"] for x in rows})
        cell = {(x["gap_us"], x["jitter_ms"]): x for x in rows}
        lines += ["", "Fraction of pairs won by the true first presser: ours / first-delivered / "
                  "poll 1 ms / poll 10 ms.", "",
                  "| gap \\ jitter | " + " | ".join(f"{j:g} ms" for j in jitters) + " |",
                  "|---:|" + "---|" * len(jitters)]
        for g in sorted({x["gap_us"] for x in rows}):
            cells = []
            for j in jitters:
                c = cell[(g, j)]
                cells.append(" / ".join(f"{c[m]:.2f}" for m in fairness_mod.METHODS))
            lines.append(f"| {g / 1000:g} ms |" if g >= 1000 else f"| {g:g} µs |")
            lines[-1] += " " + " | ".join(cells) + " |"
    if r.get("e2e_fairness"):
        mod = _import_bench("e2e_fairness")
        if mod is not None:
            lines += ["", *mod.markdown_table(r["e2e_fairness"])]
        kmod = _import_bench("e2e_kernel")
        if kmod is not None and any(x.get("path") in KERNEL_PATHS for x in r["e2e_fairness"]):
            lines += ["", f"On a real kernel's GPIO chip (gpio-sim, {r.get('e2e_kernel_guest')}); "
                      f"tie resolution {r.get('gpio_tie_us')} µs:", *kmod.markdown_table(r["e2e_fairness"])]
    if r.get("phones_fairness"):
        pmod = _import_bench("phones")
        if pmod is not None:
            lines += ["", "Phones (benchmarks/phones.py): fraction of pairs won by the true first presser.", "",
                      *pmod.markdown_table(r["phones_fairness"])]
            if r.get("phones_mixed_fairness"):
                lines += ["", "A phone against a wired button: fraction of pairs won by the true first presser.", "",
                          *pmod.markdown_table(r["phones_mixed_fairness"])]
    return "\n".join(lines) + "\n"


def print_table(r: dict) -> None:
    rows = table_rows(r)
    w = [max(len(x[i]) for x in rows) for i in range(4)]
    print()
    print(f"{'measure':<{w[0]}}  {'value':>{w[1]}}  {'target':<{w[2]}}  result")
    for name, value, target, verdict in rows:
        print(f"{name:<{w[0]}}  {value:>{w[1]}}  {target:<{w[2]}}  {verdict}")
    notes = [v for k, v in r.items() if k.endswith("_note") and v]
    for n in notes:
        print(f"note: {n}")
    print()
    for line in fairness_table(r.get("fairness", [])):
        print(line)
    if r.get("e2e_fairness"):
        print()
        mod = _import_bench("e2e_fairness")
        for line in mod.table(r["e2e_fairness"]) if mod else []:
            print(line)
        kmod = _import_bench("e2e_kernel")
        for line in kmod.table(r["e2e_fairness"]) if kmod else []:
            print(line)
    if r.get("phones_fairness"):
        print()
        pmod = _import_bench("phones")
        for line in pmod.table(r["phones_fairness"]) if pmod else []:
            print(line)
        if r.get("phones_mixed_fairness") and pmod is not None:
            print()
            for line in pmod.table(r["phones_mixed_fairness"], pmod.MIXED_TITLE):
                print(line)


def festival(quick: bool) -> dict:
    """The festival over a real mosquitto (benchmarks/festival.py): event -> board latency,
    messages per second, the board's CPU, the hall's decision p99 with publishing on vs off."""
    mod = _import_bench("festival")
    if mod is None:
        return {"festival_note": "benchmarks/festival.py not importable"}
    return mod.measure(quick)


def festival_day(quick: bool) -> dict:
    """A 10-hour festival day, accelerated (benchmarks/festival_day.py): 3 halls x 600 questions
    through the real loop, journal and publisher process, signed, over a mosquitto with the ACL
    file, and the real board: every process's memory growth, journal bytes per question, the
    board's status output.  (Quick: 120 questions.)"""
    mod = _import_bench("festival_day")
    if mod is None:
        return {"festival_day_note": "benchmarks/festival_day.py not importable"}
    return mod.run(quick)


def stall(quick: bool) -> dict:
    """What counting the GPIO quiet period in the threads' own time costs on the press path:
    ``CpuStall.mark()`` (the callback thread, before each press is queued) and
    ``since_mark()`` (the loop, once a race's deadline has come), with as many idle Python
    threads as ``buzzer run`` has on GPIO with the window and the pages (8)."""
    from controller.inputs.stall import CpuStall

    stop = threading.Event()
    idle = [threading.Thread(target=stop.wait, daemon=True) for _ in range(7)]
    for t in idle:
        t.start()
    n = 300 if quick else 5000
    s = CpuStall(window_ns=10 ** 12)
    marks, reads = [], []
    try:
        for _ in range(n):
            t0 = time.perf_counter_ns()
            s.mark()
            t1 = time.perf_counter_ns()
            s.since_mark()
            t2 = time.perf_counter_ns()
            marks.append(t1 - t0)
            reads.append(t2 - t1)
    finally:
        stop.set()
        s.close()
    return {"stall_mark_p50_us": round(percentile(marks, 50) / 1000, 1),
            "stall_mark_p99_us": round(percentile(marks, 99) / 1000, 1),
            "stall_since_mark_p50_us": round(percentile(reads, 50) / 1000, 1),
            "stall_since_mark_p99_us": round(percentile(reads, 99) / 1000, 1),
            "stall_threads": len(idle) + 1, "stall_available": bool(s.available)}


def phones(quick: bool) -> dict:
    """benchmarks/phones.py run(quick): simulated phones (the /play protocol, their own drifting
    clocks) behind a loopback proxy that delays and jitters each direction, through the real web
    process and loop; each race decided by ours and by the peers' rules on the same trace; a
    phone against a wired button; the wired buttons' decision with 40 phones joined vs none."""
    mod = _import_bench("phones")
    if mod is None:
        return {"phones_note": "benchmarks/phones.py not importable"}
    return mod.run(quick)


def pack_media(quick: bool) -> dict:
    """A ~100 MB SIGame package with 500 pictures played through: load time and peak memory,
    plain and under the e2e benchmark's CPU quota (benchmarks/pack_media.py)."""
    mod = _import_bench("pack_media")
    e2e_mod = _import_bench("e2e_fairness")
    return mod.measure(quick, getattr(e2e_mod, "Throttle", None))


MEASURES: list[tuple[str, Callable[[bool], dict]]] = [
    ("fairness", fairness), ("arbiter", arbiter), ("storm", storm), ("render", render),
    ("sound", sound), ("drift", drift), ("serial", serial), ("startup", startup), ("journal", journal),
    ("stall", stall),
    ("e2e", e2e), ("kernel", kernel), ("web", web), ("festival", festival), ("festival_day", festival_day),
    ("pack_media", pack_media), ("phones", phones),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller samples: the whole run in under 2 minutes")
    parser.add_argument("--out", help="JSON file to write (default benchmarks/results.json, "
                        "or benchmarks/results-quick.json with --quick)")
    parser.add_argument("--only", help="comma-separated measures to run: " + ",".join(m for m, _ in MEASURES))
    parser.add_argument("--skip", help="comma-separated measures to leave out (CI leaves out kernel: its guest "
                        "runs under emulation, its figures are taken by hand)")
    parser.add_argument("--e2e-paths", help="with e2e: comma-separated paths of benchmarks/e2e_fairness.py "
                        "(e.g. gpiod-host); the other paths' rows and keys in the file stay")
    parser.add_argument("--plot", help="also draw the fairness sweep to this PNG (pygame, headless)")
    parser.add_argument("--markdown", help="also write the tables as Markdown to this file")
    args = parser.parse_args(argv)
    if args.out is None:
        # a quick run must not overwrite the committed full figures
        args.out = str(HERE / ("results-quick.json" if args.quick else "results.json"))
    only = set(args.only.split(",")) if args.only else None
    global E2E_PATHS
    E2E_PATHS = args.e2e_paths.split(",") if args.e2e_paths else None
    results: dict[str, Any] = {"quick": args.quick, "machine": machine(),
                               "command": "python benchmarks/run.py" + (" --quick" if args.quick else "")}
    failures = 0
    t_all = time.perf_counter()
    for name, fn in MEASURES:
        if only is not None and name not in only:
            continue
        if args.skip and name in args.skip.split(","):
            continue
        t0 = time.perf_counter()
        print(f"{name} ...", end=" ", flush=True)
        try:
            gc.collect()
            results.update(fn(args.quick))
            print(f"{time.perf_counter() - t0:.1f} s", flush=True)
        except Exception as exc:  # one broken measure must not hide the others
            failures += 1
            results[f"{name}_note"] = f"{name} failed: {type(exc).__name__}: {exc}"
            print(f"failed: {exc}", flush=True)
    results["elapsed_s"] = round(time.perf_counter() - t_all, 1)
    try:
        results["machine"]["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        pass
    results["machine"].update({f"{k}_at_end": v for k, v in sleep_overshoot().items()})
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if only is not None and out.exists():
        try:
            merged = json.loads(out.read_text(encoding="utf-8"))
        except (ValueError, OSError):
            merged = {}
        results = merge_partial(merged, results, only)
    _join_kernel_rows(results)
    out.write_text(json.dumps(results, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print_table(results)
    print(f"\nwritten: {args.out} ({results['elapsed_s']} s)")
    if args.markdown:
        Path(args.markdown).write_text(markdown(results), encoding="utf-8")
        print(f"markdown: {args.markdown}")
    if args.plot and results.get("fairness"):
        from plot import fairness_png
        fairness_png(results["fairness"], args.plot, results.get("settle_ms", 2.0), results["machine"])
        print(f"plot: {args.plot}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
