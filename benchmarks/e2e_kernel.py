#!/usr/bin/env python3
"""End-to-end fairness on a real Linux kernel: press pairs through a real GPIO chip.

The rows ``gpiod-kernel`` and ``lgpio-kernel`` of ``e2e_fairness``.  The benchmark boots the
GPIO test guest (tests/kernel/guest.py: the project's own small kernel with gpio-sim, in
qemu, this checkout as its root) and, inside it, plays press pairs through the real loop of
``buzzer run`` exactly as benchmarks/e2e_fairness.py does (``controller.cli.main(["run",
...])``, a 1920x1080 window on SDL's dummy driver, the fsync'ed journal, a driver thread
playing the host through ``Loop.enqueue``), with one difference: the buttons are lines of a
gpio-sim chip, read by the backend under test from the kernel, and pressed by setting the
simulated line's pull from *another process* (the presser, unthrottled, real-time priority),
so the kernel stamps every edge when it happens and the gaps are true gaps.

Paths: ``gpiod-kernel`` (``buttons = "gpiod"``: one line request, the kernel's ordered
stream) and ``lgpio-kernel`` (``buttons = "gpio"`` with gpiozero's lgpio pin factory on the
same chip; only when gpiozero can be given a board there, else a note says why not).
Loads: ``plain``; ``hog`` (CPU-bound processes at normal priority beside the game, one per CPU of the guest);
``throttled`` (the game process in a cgroup with the quota of the e2e benchmark, 2.5 ms per
10 ms).  Gaps: 10 µs .. 10 ms between the two presses, the first presser alternating.

Each pair records whether the true first presser's lamp came on (``ours``) and the decision
latency: from the *later* edge's kernel stamp to the winner's lamp on (the Lamp effect carried
out), the time the program takes once the race is physically over.

    python benchmarks/e2e_kernel.py              # boots the guest, the whole grid (11 min on TCG, quiet host)
    python benchmarks/e2e_kernel.py --quick      # two gaps, 2 pairs per cell (~2 min)
    python benchmarks/e2e_kernel.py --in-guest --out F   # (inside the guest: what the host runs)

Timing under qemu's TCG emulation is not a Pi's: every instruction is translated, so the
loop, the frames and the reader thread are many times slower, and the edges come from a
simulated chip's irq_work instead of a GPIO bank's interrupt.  The order the kernel gives,
and what the program does with it, are the same.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "tests"))

import e2e_fairness as e2e  # noqa: E402

PATHS = ("gpiod-kernel", "lgpio-kernel")
LOADS = ("plain", "hog", "throttled")
GAPS_US = (10, 100, 1000, 10000)
QUICK_GAPS_US = (10, 1000)
PAIRS = {"plain": 30, "hog": 25, "throttled": 25}
"""Pairs per cell of the whole grid, at most: the pairs are played in rounds (one pair of every
cell, each load in turn), so a run cut short by its budget has about as many in every cell."""
QUICK_PAIRS = {"plain": 2, "hog": 2, "throttled": 2}
BUDGET_S = 1950.0
"""How long the guest may play pairs, both paths together (split evenly between the paths still
to come): the whole grid within 40 minutes with the guest's boot and the games' start-up, under
TCG emulation on a shared 2-core machine, where a pair takes from seconds (plain) to minutes
(throttled). Pairs not played by then are left out; each row says how many it has."""
LINES = {"A": 17, "B": 27}
PI4 = "c03111"
"""The board gpiozero's lgpio factory is given on the guest's chip (no Pi revision to read
there): a Raspberry Pi 4B, whose header's GPIO0..27 are the chip's lines 0..27."""
GUEST_TIMEOUT_S = 3600
MS, US = e2e.MS, e2e.US
STEP_S = 120.0
"""Longest wait for one step of a pair (the end of reading, a ruling): under TCG with CPU hogs
or the quota the loop takes seconds per frame."""


# ---------------------------------------------------------------------------
# the presser: another process's thread, setting the simulated pulls


class Presser:
    """Serves one game process over a pipe pair: ``{"press": [l1, l2], "gap_us": g}`` presses
    l1 then l2 ``g`` µs later; ``{"release": [...]}`` releases; ``{"load": L}`` starts or stops
    the CPU hogs.  Replies with the monotonic times just before and after each write."""

    def __init__(self, chip):
        self.chip = chip
        self.hogs: list[subprocess.Popen] = []
        self.to_game_r, self.to_game_w = os.pipe()
        self.from_game_r, self.from_game_w = os.pipe()
        self.thread = threading.Thread(target=self._serve, name="presser", daemon=True)
        self.thread.start()

    def load(self, load: str) -> None:
        """``hog``: CPU-bound processes beside the game, one per CPU; anything else: none."""
        if load == "hog" and not self.hogs:
            self.hogs = [subprocess.Popen([sys.executable, "-S", "-c", "while True: pass"])
                         for _ in range(os.cpu_count() or 2)]
        elif load != "hog" and self.hogs:
            for h in self.hogs:
                h.kill()
            for h in self.hogs:
                h.wait()
            self.hogs = []

    def fds(self) -> tuple[int, int]:
        """The game's ends: (read replies, write commands)."""
        return self.to_game_r, self.from_game_w

    def _serve(self) -> None:
        try:
            # the hogs are this thread's children: without SCHED_RESET_ON_FORK they would be
            # real-time too and take the CPUs from the game (and everything else) entirely
            os.sched_setscheduler(0, os.SCHED_FIFO | os.SCHED_RESET_ON_FORK, os.sched_param(20))
        except (OSError, AttributeError):
            pass
        with os.fdopen(self.from_game_r, "r") as cmds, os.fdopen(self.to_game_w, "w") as out:
            for line in cmds:
                cmd = json.loads(line)
                if "load" in cmd:
                    self.load(cmd["load"])
                    reply: dict = {"load": cmd["load"]}
                else:
                    if "press" in cmd:
                        a, b = cmd["press"]
                        edges = self.chip.sequence([(a, "press", 0), (b, "press", cmd["gap_us"])])
                    else:
                        edges = self.chip.sequence([(n, "release", 0) for n in cmd["release"]])
                    reply = {"before": [e.before_ns for e in edges], "after": [e.after_ns for e in edges]}
                out.write(json.dumps(reply) + "\n")
                out.flush()

    def close_game_ends(self) -> None:
        for fd in (self.to_game_r, self.from_game_w):
            try:
                os.close(fd)
            except OSError:
                pass


class PresserLink:
    """The game process's end of the presser."""

    def __init__(self, spec: str):
        r, w = (int(x) for x in spec.split(","))
        self.replies = os.fdopen(r, "r")
        self.cmds = os.fdopen(w, "w")

    def call(self, cmd: dict) -> dict:
        self.cmds.write(json.dumps(cmd) + "\n")
        self.cmds.flush()
        return json.loads(self.replies.readline())


# ---------------------------------------------------------------------------
# one game: buzzer run on the chip


class KernelSession(e2e.Session):
    """e2e_fairness's Session with the buttons on the gpio-sim chip; its cells' paths are
    ``<path>/<load>``, played in order, the load switched as the cells' change."""

    chip_name: str = ""
    presser: PresserLink | None = None
    load: str = "plain"
    throttle_procs: str | None = None
    home_procs: str | None = None
    ready_timeout_s = 600.0   # a fresh Python importing pygame under TCG: minutes when loaded

    def _config_text(self, tmp: str, port: str | None) -> str:
        lines = [f'buttons = "{"gpiod" if self.path == "gpiod-kernel" else "gpio"}"',
                 "", "[display]", "width = 1920", "height = 1080", "fullscreen = false",
                 "", "[journal]", f"dir = {json.dumps(str(Path(tmp) / 'journal'))}", "fsync = true",
                 "", "[gpio]", f'chip = "{self.chip_name}"']   # the default pins: A GPIO17, B GPIO27 ...
        if self.path == "lgpio-kernel":
            lines += ['pin_factory = "lgpio"', f'board_revision = "{PI4}"']
        return "\n".join(lines) + "\n"

    def _debounce_ns(self, loop) -> int:
        return int(float(loop.cfg["gpio"]["debounce_ms"]) * MS)

    deadline: float = float("inf")
    """time.monotonic() after which no pair is begun (the run's budget)."""

    def _pair(self, loop, box, feeder, pins, cell, first, second, lamps, cond, wait, debounce_ns):
        if time.monotonic() > self.deadline:
            raise BudgetOver()
        load = cell.path.split("/")[1]
        if load != self.load:
            self._switch_load(load)
        state = lambda: loop.state  # noqa: E731
        n_lamps = self._open_question(loop, lamps, cond, wait, timeout=STEP_S)
        edges = self.presser.call({"press": [LINES[first], LINES[second]], "gap_us": cell.gap_us})
        t0, t1 = edges["before"]
        got = wait(lambda: len(lamps) > n_lamps, timeout=STEP_S)
        with cond:
            won, lamp_ns = lamps[n_lamps] if got else (None, None)
        wait(lambda: {first, second} <= set(self._pressed_at), timeout=STEP_S, what="both presses")
        # the decision latency: from the later edge's kernel stamp (as the engine got it)
        later = max(self._pressed_at[first], self._pressed_at[second])
        decision = None if lamp_ns is None else lamp_ns - later
        loop.enqueue(e2e.HostKey("withdraw"))
        rel = self.presser.call({"release": [LINES[first], LINES[second]]})
        first_kind, stamp_gap = self._outcome(loop, first, second)
        released = lambda: not ({first, second} & state().held) and not state().question.open  # noqa: E731
        if not wait(released, timeout=STEP_S):
            raise RuntimeError(f"timed out waiting for the releases: held {sorted(state().held)}")
        e2e.wait_until(max(rel["after"]) + debounce_ns + 2 * MS)
        _progress(f"{cell.path} {cell.gap_us:g} us: first {first}, won {won}, "
                  f"decision {None if decision is None else round(decision / MS, 1)} ms")
        # follow_ns: the true gap, write to write (the presser's clock is the kernel's);
        # skew: the first press's stamp - the write that made its edge
        return e2e.Pair(cell, first, won, decision, None, t1 - t0, self._pressed_at[first] - t0,
                        stamp_gap, None, first_kind)

    def _switch_load(self, load: str) -> None:
        """The next cells' load: the hogs are the presser's to start; the quota is this whole
        process's (cgroup v2 moves every thread with the pid)."""
        self.presser.call({"load": load})
        if load == "throttled" and self.throttle_procs:
            # a CPU quota holds only normal-priority threads: the game's real-time ones
            # ([process] realtime_priority) would escape it (no real-time group scheduling in
            # the test kernel), so under the quota they run as a slow machine's would
            self._policies = _threads_normal()
            Path(self.throttle_procs).write_text(str(os.getpid()))
        elif self.load == "throttled" and self.home_procs:
            Path(self.home_procs).write_text(str(os.getpid()))
            _threads_back(self._policies)
        self.load = load

    _policies: dict = {}


def _threads_normal() -> dict[int, tuple]:
    """Every thread of this process at the normal policy; returns what each had."""
    had = {}
    for tid in map(int, os.listdir("/proc/self/task")):
        try:
            policy, param = os.sched_getscheduler(tid), os.sched_getparam(tid)
            if policy != os.SCHED_OTHER:
                os.sched_setscheduler(tid, os.SCHED_OTHER, os.sched_param(0))
                had[tid] = (policy, param)
        except OSError:
            pass   # a thread that just ended
    return had


def _threads_back(had: dict[int, tuple]) -> None:
    for tid, (policy, param) in had.items():
        try:
            os.sched_setscheduler(tid, policy, param)
        except OSError:
            pass


def _progress(line: str) -> None:
    """One line in the guest's results folder (progress.log), to follow a long run from the host."""
    folder = os.environ.get("BUZZER_GUEST_RESULTS")
    if folder:
        with open(Path(folder) / "progress.log", "a") as f:
            f.write(f"{time.strftime('%H:%M:%S')} {line}\n")


class BudgetOver(Exception):
    """The run's time is up: no further pair is begun."""


def _child_main(spec_path: str, out_path: str) -> int:
    spec = json.loads(Path(spec_path).read_text())
    s = KernelSession(spec["path"], [e2e.Cell(**c) for c in spec["cells"]], 1)
    s.deadline = time.monotonic() + spec["budget_s"]
    s.throttle_procs, s.home_procs = spec.get("throttle_procs"), spec.get("home_procs")
    s.chip_name = spec["chip"]
    s.presser = PresserLink(os.environ["E2E_PRESSER_FDS"])
    notes = []
    try:
        s.run()
    except BudgetOver:
        notes.append(f"{spec['path']}: the budget ({spec['budget_s']:.0f} s) was over after "
                     f"{len(s.results)} of {len(s.cells)} pairs")
    except Exception as exc:
        notes.append(f"{spec['path']}: {type(exc).__name__}: {exc}")
    pairs = [{**p.__dict__, "cell": p.cell.__dict__} for p in s.results]
    Path(out_path).write_text(json.dumps({"pairs": pairs, "notes": notes + s.notes}))
    return 0


# ---------------------------------------------------------------------------
# inside the guest: every load and path


def rows_of(path: str, loads, gaps, pairs: list, tie_us: float) -> tuple[list[dict], dict]:
    """The ``e2e_fairness`` rows of one path (e2e_fairness.summarise's, per load and gap) and
    its decision p99 per load (ms)."""
    cells = [e2e.Cell(f"{path}/{load}", g, 0, 0) for load in loads for g in gaps]
    rows = []
    for row, cell in zip(e2e.summarise(cells, pairs, False), cells):
        mine = [p for p in pairs if p.cell.key() == cell.key()]
        true_gaps = [p.follow_ns for p in mine if p.follow_ns is not None]
        row["path"], row["load"] = path, cell.path.split("/")[1]
        row["throttled"] = row["load"] == "throttled"
        # the presser's write-to-write gaps: what each cell's presses really were
        row["true_gap_min_us"] = round(min(true_gaps) / US, 1) if true_gaps else None
        row["true_gap_max_us"] = round(max(true_gaps) / US, 1) if true_gaps else None
        # the kernel stamps' gap against the true one (summarise's is against the asked gap)
        errs = [abs(p.stamp_gap_ns - p.follow_ns) for p in mine if p.stamp_gap_ns is not None and p.follow_ns]
        row["stamp_gap_error_max_us"] = round(max(errs) / US, 1) if errs else None
        row["gpio_tie_us"] = tie_us
        row["above_tie"] = row["gap_us"] > tie_us
        for k in ("follow_measured_p50_ms", "follow_measured_max_ms", "lost_follow_ms",
                  "after_delivery_p50_ms", "after_delivery_p99_ms"):
            row.pop(k)
        rows.append(row)
    p99 = {load: e2e._ms(e2e.percentile([p.decision_ns for p in pairs if p.cell.path == f"{path}/{load}"
                                         and p.decision_ns is not None], 99)) for load in loads}
    return rows, p99


def rounds(cells: list, pairs_of: dict) -> list:
    """The order the pairs are played in: round r plays one pair of every cell that has more
    than r pairs to play, load by load."""
    return [c for r in range(max(pairs_of.values(), default=0)) for c in cells
            if r < pairs_of[c.path.split("/")[1]]]


def in_guest(quick: bool, out: Path, paths=PATHS, loads=LOADS, pairs: dict | None = None,
             budget_s: float = BUDGET_S) -> dict:
    from kernel import gpiosim
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    gaps = QUICK_GAPS_US if quick else GAPS_US
    pairs_of = {**(QUICK_PAIRS if quick else PAIRS), **(pairs or {})}
    rows: list[dict] = []
    notes: list[str] = []
    decision: dict[str, dict[str, float | None]] = {}
    t_start = time.perf_counter()
    from controller.app import config as config_mod
    tie_us = config_mod.build({})["gpio"]["tie_us"]
    for path in paths:
        # one game process per path (a fresh Python costs half a minute in the guest): the
        # loads follow each other in it, each cell's pairs one after another
        cells = [e2e.Cell(f"{path}/{load}", g, 0, 0) for load in loads for g in gaps]
        played = rounds(cells, pairs_of)
        left = budget_s - (time.perf_counter() - t_start)
        gpiosim.remove_all()
        chip = gpiosim.Chip()   # gpiochip0: the chip gpiozero's lgpio factory opens on a Pi 4
        presser = Presser(chip)
        throttle = None
        t0 = time.perf_counter()
        try:
            spec_d = {"path": path, "cells": [c.__dict__ for c in played], "chip": chip.chip_name,
                      "budget_s": max(left / (len(paths) - paths.index(path)), 0.0)}
            if "throttled" in loads:
                try:
                    throttle = e2e.Throttle().__enter__()
                    spec_d["throttle_procs"], spec_d["home_procs"] = throttle.procs, throttle.home_procs
                except e2e.ThrottleUnavailable as exc:
                    notes.append(f"{path} throttled: {exc}")
            env = dict(os.environ, E2E_PRESSER_FDS="%d,%d" % presser.fds())
            with tempfile.TemporaryDirectory(prefix="buzzer-kernel-") as tmp:
                spec, res = Path(tmp) / "spec.json", Path(tmp) / "out.json"
                spec.write_text(json.dumps(spec_d))
                _progress(f"{path}: a game of {len(played)} pairs on {chip.chip_name}")
                proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child",
                                       str(spec), str(res)], env=env, pass_fds=presser.fds(),
                                      stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                      timeout=GUEST_TIMEOUT_S)
                if proc.returncode != 0 or not res.exists():
                    notes.append(f"{path}: child exited {proc.returncode}: {proc.stderr[-600:]}")
                    continue
                data = json.loads(res.read_text())
            notes += data["notes"]
            got = [e2e.Pair(**{**p, "cell": e2e.Cell(**p["cell"])}) for p in data["pairs"]]
            path_rows, decision[path] = rows_of(path, loads, gaps, got, tie_us)
            rows += [r for r in path_rows if r["pairs"]]
        finally:
            presser.load("plain")
            if throttle is not None:
                notes.append(f"{path} throttled: {throttle.stat_delta()}")
                throttle.__exit__(None, None, None)
            presser.close_game_ends()
            chip.remove()
            notes.append(f"{path}: {round(time.perf_counter() - t0)} s in the guest")
    result = {"e2e_kernel_rows": rows, "gpio_tie_us": tie_us, "e2e_kernel_decision_p99_ms": decision,
              "e2e_kernel_pairs_per_cell": pairs_of, "e2e_kernel_budget_s": budget_s,
              "e2e_kernel_in_guest_s": round(time.perf_counter() - t_start, 1),
              "e2e_kernel_note": "; ".join(notes) or None}
    out.write_text(json.dumps(result, ensure_ascii=False, indent=1))
    return result


# ---------------------------------------------------------------------------
# on the host: boot the guest


MEASURED = ("gpiod-kernel / lgpio-kernel: press pairs made by setting a gpio-sim line's pull from an "
            "unthrottled real-time process, inside qemu on the project's test kernel "
            "(tests/kernel/), through controller.cli.main(['run', ...]) with the fsync'ed journal and a "
            "1920x1080 window (SDL dummy); ours = fraction won by the true first presser; decision = the "
            "later edge's kernel stamp -> the winner's Lamp 'on' carried out; gap_us = the asked gap "
            "(true_gap_min/max_us: the presser's write-to-write gaps); loads: plain, hog (one CPU-bound "
            "process per guest CPU), throttled (2.5 ms per 10 ms cgroup quota, the game's threads at normal priority: a quota holds no real-time thread); timing under TCG "
            "emulation is not a Pi's")


def measure(quick: bool = False, paths=PATHS, loads=LOADS, pairs: dict | None = None,
            budget_s: float = BUDGET_S) -> dict:
    """Boot the guest and run :func:`in_guest` there; the results keys for run.py."""
    from kernel import guest
    t0 = time.perf_counter()
    argv = [guest.venv_python(), str(Path(__file__).resolve()), "--in-guest", "--out",
            "/run/results/kernel.json", "--paths", ",".join(paths), "--loads", ",".join(loads),
            "--budget-s", str(budget_s)] \
        + (["--quick"] if quick else []) + (["--pairs", _pairs_arg(pairs)] if pairs else [])
    try:
        res = guest.run(argv, timeout=GUEST_TIMEOUT_S, cwd="/tmp/work")
    except Exception as exc:  # no qemu, no kernel: the rows are missing, and the note says why
        return {"e2e_kernel_rows": [], "e2e_kernel_note": f"the kernel guest did not run: {exc}",
                "e2e_kernel_measured": MEASURED}
    out = res.results / "kernel.json"
    if res.returncode != 0 or not out.exists():
        return {"e2e_kernel_rows": [], "e2e_kernel_measured": MEASURED,
                "e2e_kernel_note": f"the guest's run exited {res.returncode}: {res.output[-800:]}"}
    data = json.loads(out.read_text())
    data["e2e_kernel_s"] = round(time.perf_counter() - t0, 1)
    data["e2e_kernel_guest"] = f"qemu {res.accel}, booted in {res.boot_s:.1f} s"
    data["e2e_kernel_measured"] = MEASURED
    return data


def _grid(rows: list[dict]):
    """Per path with rows: (path, its gaps, [(load, {gap: row})] for each load measured)."""
    for path in PATHS:
        rs = [r for r in rows if r["path"] == path]
        if rs:
            loads = [(load, {r["gap_us"]: r for r in rs if r.get("load") == load}) for load in LOADS]
            yield path, sorted({r["gap_us"] for r in rs}), [(lo, c) for lo, c in loads if c]


def _value(row: dict | None, fmt: str) -> str:
    return "-" if row is None or row["ours"] is None else fmt.format(**row)


def table(rows: list[dict]) -> list[str]:
    """Per path: one line per load, one column per gap: ours (decision p99 ms)."""
    lines = []
    for path, gaps, loads in _grid(rows):
        lines.append(f"{path}: ours (pairs), decision p99 ms (later edge -> lamp)")
        lines.append(f"{'load':>10} " + "".join(f"{f'{g:g} µs':>22}" for g in gaps))
        for load, cell in loads:
            vals = [_value(cell.get(g), "{ours:.2f} ({pairs}) {decision_p99_ms}") for g in gaps]
            lines.append(f"{load:>10} " + "".join(f"{v:>22}" for v in vals))
    return lines


def markdown_table(rows: list[dict]) -> list[str]:
    lines = []
    for path, gaps, loads in _grid(rows):
        lines += ["", f"`{path}`: fraction won by the true first presser (pairs), decision p99 "
                  "(later edge's kernel stamp -> winner's lamp)", "",
                  "| load | " + " | ".join(f"{g:g} µs" for g in gaps) + " |", "|---|" + "---|" * len(gaps)]
        for load, cell in loads:
            lines.append(f"| {load} | " + " | ".join(
                _value(cell.get(g), "{ours:.2f} ({pairs}), {decision_p99_ms} ms") for g in gaps) + " |")
    return lines


def _pairs_arg(pairs: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in pairs.items())


def _parse_pairs(text: str | None) -> dict | None:
    """``plain=4,hog=3`` (or ``N``: every load) -> {load: pairs}."""
    if not text:
        return None
    if "=" not in text:
        return {load: int(text) for load in LOADS}
    return {k: int(v) for k, v in (item.split("=") for item in text.split(","))}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        return _child_main(argv[1], argv[2])
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="two gaps, a few pairs (~2 min)")
    p.add_argument("--in-guest", action="store_true", help="(inside the guest) run the cells here")
    p.add_argument("--paths", default=",".join(PATHS))
    p.add_argument("--loads", default=",".join(LOADS))
    p.add_argument("--pairs", help=f"pairs per cell: N, or per load ({_pairs_arg(PAIRS)}, the default)")
    p.add_argument("--budget-s", type=float, default=BUDGET_S,
                   help=f"seconds the guest may play pairs, both paths together (default {BUDGET_S:g})")
    p.add_argument("--out", help="write the results keys as JSON here")
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    paths, loads, pairs = args.paths.split(","), args.loads.split(","), _parse_pairs(args.pairs)
    if args.in_guest:
        res = in_guest(args.quick, Path(args.out or "/run/results/kernel.json"), paths, loads, pairs,
                       args.budget_s)
    else:
        res = measure(args.quick, paths, loads, pairs, args.budget_s)
        if args.out:
            Path(args.out).write_text(json.dumps(res, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    for line in table(res.get("e2e_kernel_rows", [])):
        print(line)
    for k in ("gpio_tie_us", "e2e_kernel_decision_p99_ms", "e2e_kernel_note"):
        print(f"{k}: {res.get(k)}")
    print(f"({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
