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
Loads: ``plain``; ``hog`` (CPU-bound processes beside the game, one per CPU of the guest);
``throttled`` (the game process in a cgroup with the quota of the e2e benchmark, 2.5 ms per
10 ms).  Gaps: 10 µs .. 10 ms between the two presses, the first presser alternating.

Each pair records whether the true first presser's lamp came on (``ours``) and the decision
latency: from the *later* edge's kernel stamp to the winner's lamp on (the Lamp effect carried
out), the time the program takes once the race is physically over.

    python benchmarks/e2e_kernel.py              # boots the guest, the whole grid (~10 min on TCG)
    python benchmarks/e2e_kernel.py --quick      # a few cells (~2 min)
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
PAIRS = {"plain": 12, "hog": 10, "throttled": 6}
QUICK_PAIRS = {"plain": 2, "hog": 2, "throttled": 2}
LINES = {"A": 17, "B": 27}
GUEST_TIMEOUT_S = 1500
MS, US = e2e.MS, e2e.US
STEP_S = 120.0
"""Longest wait for one step of a pair (the end of reading, a ruling): under TCG with CPU hogs
or the quota the loop takes seconds per frame."""


# ---------------------------------------------------------------------------
# the presser: another process's thread, setting the simulated pulls


class Presser:
    """Serves one game process over a pipe pair: ``{"press": [l1, l2], "gap_us": g}`` presses
    l1 then l2 ``g`` µs later; ``{"release": [...]}`` releases.  Replies with the monotonic
    times just before and after each write."""

    def __init__(self, chip):
        self.chip = chip
        self.to_game_r, self.to_game_w = os.pipe()
        self.from_game_r, self.from_game_w = os.pipe()
        self.thread = threading.Thread(target=self._serve, name="presser", daemon=True)
        self.thread.start()

    hogs: list = []

    def load(self, load: str) -> None:
        """``hog``: CPU-bound processes beside the game, one per CPU; anything else: none."""
        if load == "hog" and not self.hogs:
            self.hogs = _hogs(os.cpu_count() or 2)
        elif load != "hog" and self.hogs:
            _stop(self.hogs)
            self.hogs = []

    def fds(self) -> tuple[int, int]:
        """The game's ends: (read replies, write commands)."""
        return self.to_game_r, self.from_game_w

    def _serve(self) -> None:
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(20))
        except (OSError, AttributeError):
            pass
        with os.fdopen(self.from_game_r, "r") as cmds, os.fdopen(self.to_game_w, "w") as out:
            for line in cmds:
                cmd = json.loads(line)
                if "load" in cmd:
                    self.load(cmd["load"])
                    out.write(json.dumps({"load": cmd["load"]}) + "\n")
                    out.flush()
                    continue
                if "press" in cmd:
                    a, b = cmd["press"]
                    edges = self.chip.sequence([(a, "press", 0), (b, "press", cmd["gap_us"])])
                else:
                    edges = self.chip.sequence([(n, "release", 0) for n in cmd["release"]])
                out.write(json.dumps({"before": [e.before_ns for e in edges],
                                      "after": [e.after_ns for e in edges]}) + "\n")
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
    """e2e_fairness's Session with the buttons on the gpio-sim chip."""

    chip_name: str = ""
    presser: PresserLink | None = None

    def _config_text(self, tmp: str, port: str | None) -> str:
        lines = [f'buttons = "{"gpiod" if self.path == "gpiod-kernel" else "gpio"}"',
                 "", "[display]", "width = 1920", "height = 1080", "fullscreen = false",
                 "", "[journal]", f"dir = {json.dumps(str(Path(tmp) / 'journal'))}", "fsync = true",
                 "", "[gpio]", f'chip = "{self.chip_name}"']   # the default pins: A GPIO17, B GPIO27 ...
        if self.path == "lgpio-kernel":
            lines.append('pin_factory = "lgpio"')
        return "\n".join(lines) + "\n"

    def _pair(self, loop, box, feeder, pins, cell, first, second, lamps, cond, wait, debounce_ns):
        from controller.core.events import HostKey as Key
        load = cell.path.split("/")[1]
        if load != self.load:
            self._switch_load(load)
        state = lambda: loop.state  # noqa: E731
        self._pressed_at.clear()
        q0 = state().question
        announced = q0.announced_at if q0 is not None else -1
        loop.enqueue(Key("question"))
        loop.enqueue(Key("reading_done"))
        wait(lambda: state().question is not None and state().question.announced_at > announced
             and state().question.open and state().question.reading_done, timeout=STEP_S,
             what="the end of reading")
        with cond:
            n_lamps = len(lamps)
        e2e.wait_until(loop.clock.origin_ns + state().question.armed_at + e2e.ARM_MARGIN_NS)
        got_edges = self.presser.call({"press": [LINES[first], LINES[second]], "gap_us": cell.gap_us})
        t0, t1 = got_edges["before"]
        got = wait(lambda: len(lamps) > n_lamps, timeout=STEP_S)
        with cond:
            won, lamp_ns = lamps[n_lamps] if got else (None, None)
        wait(lambda: {first, second} <= set(self._pressed_at), timeout=STEP_S, what="both presses")
        later = max(self._pressed_at.get(first, 0), self._pressed_at.get(second, 0))
        decision = None if lamp_ns is None or not later else lamp_ns - later
        loop.enqueue(Key("withdraw"))
        rel = self.presser.call({"release": [LINES[first], LINES[second]]})
        q = state().question
        first_kind = next((r.kind for r in q.presses if r.button == first and r.wave == q.wave), None)
        released = lambda: not ({first, second} & state().held) and not state().question.open  # noqa: E731
        if not wait(released, timeout=STEP_S):
            raise RuntimeError(f"timed out waiting for the releases: held {sorted(state().held)}")
        e2e.wait_until(max(rel["after"]) + debounce_ns + 2 * MS)
        skew = self._pressed_at.get(first)
        stamp_gap = None
        if first in self._pressed_at and second in self._pressed_at:
            stamp_gap = self._pressed_at[second] - self._pressed_at[first]
        # follow_ns: the true gap, write to write (the presser's clock is the kernel's)
        return e2e.Pair(cell, first, won, decision, None, t1 - t0,
                        None if skew is None else skew - t0, stamp_gap, None, first_kind)


    load: str = "plain"
    throttle_procs: str | None = None
    home_procs: str | None = None

    def _switch_load(self, load: str) -> None:
        """The next cells' load: the hogs are the presser's to start; the quota is this whole
        process's (cgroup v2 moves every thread with the pid)."""
        self.presser.call({"load": load})
        if load == "throttled" and self.throttle_procs:
            Path(self.throttle_procs).write_text(str(os.getpid()))
        elif self.load == "throttled" and self.home_procs:
            Path(self.home_procs).write_text(str(os.getpid()))
        self.load = load


def _child_main(spec_path: str, out_path: str) -> int:
    spec = json.loads(Path(spec_path).read_text())
    cells = [e2e.Cell(**c) for c in spec["cells"]]
    s = KernelSession(spec["path"], cells, 1)
    s.throttle_procs, s.home_procs = spec.get("throttle_procs"), spec.get("home_procs")
    s.chip_name = spec["chip"]
    s.presser = PresserLink(os.environ["E2E_PRESSER_FDS"])
    notes = []
    try:
        s.run()
    except Exception as exc:
        notes.append(f"{spec['path']}: {type(exc).__name__}: {exc}")
    pairs = [{**p.__dict__, "cell": p.cell.__dict__} for p in s.results]
    tie_us = None
    Path(out_path).write_text(json.dumps({"pairs": pairs, "notes": notes + s.notes, "tie_us": tie_us}))
    return 0


# ---------------------------------------------------------------------------
# inside the guest: every load and path


def _hogs(n: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def _stop(procs) -> None:
    for p in procs:
        p.kill()
    for p in procs:
        p.wait()


def _lgpio_problem() -> str | None:
    """Why gpiozero's lgpio factory cannot run on the guest's chip, or None."""
    try:
        import lgpio  # noqa: F401
    except ImportError as exc:
        return f"no lgpio module ({exc})"
    try:
        from gpiozero.pins.lgpio import LGPIOFactory
        f = LGPIOFactory()
        f.close()
    except Exception as exc:  # PinUnknownPi off a Pi, chip not found ...
        return f"gpiozero's LGPIOFactory: {type(exc).__name__}: {exc}"
    return None


def in_guest(quick: bool, out: Path, paths=PATHS, loads=LOADS) -> dict:
    from kernel import gpiosim
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    gaps = QUICK_GAPS_US if quick else GAPS_US
    pairs_of = QUICK_PAIRS if quick else PAIRS
    rows: list[dict] = []
    notes: list[str] = []
    decision: dict[str, dict[str, float | None]] = {}
    t_start = time.perf_counter()
    from controller.app import config as config_mod
    tie_us = config_mod.build({})["gpio"]["tie_us"]
    for path in paths:
        if path == "lgpio-kernel":
            why = _lgpio_problem()
            if why:
                notes.append(f"lgpio-kernel not measured: {why}")
                continue
        # one game process per path (a fresh Python costs half a minute in the guest): the
        # loads follow each other in it, each cell's pairs one after another
        cells = [e2e.Cell(f"{path}/{load}", g, 0, 0) for load in loads for g in gaps]
        played = [c for c in cells for _ in range(pairs_of[c.path.split("/")[1]])]
        chip = gpiosim.Chip()
        presser = Presser(chip)
        throttle = None
        try:
            spec_d = {"path": path, "cells": [c.__dict__ for c in played], "chip": chip.chip_name}
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
                t0 = time.perf_counter()
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
            for row in e2e.summarise(cells, got, False):
                row["path"], row["load"] = row["path"].split("/")
                row["throttled"] = row["load"] == "throttled"
                mine = [p for p in got if p.cell.path == f"{path}/{row['load']}" and p.cell.gap_us == row["gap_us"]]
                # what each cell's presses really were: the presser's write-to-write gap
                gaps_true = [p.follow_ns for p in mine if p.follow_ns]
                row["true_gap_min_us"] = round(min(gaps_true) / US, 1) if gaps_true else None
                row["true_gap_max_us"] = round(max(gaps_true) / US, 1) if gaps_true else None
                row["tie_us"] = tie_us
                row["above_tie"] = row["gap_us"] > tie_us
                for k in ("follow_measured_p50_ms", "follow_measured_max_ms", "lost_follow_ms",
                          "after_delivery_p50_ms", "after_delivery_p99_ms"):
                    row.pop(k, None)
                rows.append(row)
            for load in loads:
                dec = [p.decision_ns for p in got if p.cell.path == f"{path}/{load}" and p.decision_ns is not None]
                decision.setdefault(path, {})[load] = e2e._ms(e2e.percentile(dec, 99))
            notes.append(f"{path}: {round(time.perf_counter() - t0)} s in the guest")
        finally:
            presser.load("plain")
            if throttle is not None:
                notes.append(f"{path} throttled: {throttle.stat_delta()}")
                throttle.__exit__(None, None, None)
            presser.close_game_ends()
            chip.remove()
    result = {"e2e_kernel_rows": rows, "gpio_tie_us": tie_us, "e2e_kernel_decision_p99_ms": decision,
              "e2e_kernel_pairs_per_cell": pairs_of, "e2e_kernel_in_guest_s": round(time.perf_counter() - t_start, 1),
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
            "process per guest CPU), throttled (2.5 ms per 10 ms cgroup quota); timing under TCG "
            "emulation is not a Pi's")


def measure(quick: bool = False) -> dict:
    """Boot the guest and run :func:`in_guest` there; the results keys for run.py."""
    from kernel import guest
    t0 = time.perf_counter()
    argv = [guest.venv_python(), str(Path(__file__).resolve()), "--in-guest", "--out",
            "/run/results/kernel.json"] + (["--quick"] if quick else [])
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


def table(rows: list[dict]) -> list[str]:
    """Per path: one line per load, one column per gap: ours (decision p99 ms)."""
    lines = []
    for path in PATHS:
        rs = [r for r in rows if r["path"] == path]
        if not rs:
            continue
        gaps = sorted({r["gap_us"] for r in rs})
        lines.append(f"{path}: ours (decision p99 ms, later edge -> lamp)")
        lines.append(f"{'load':>10} " + "".join(f"{f'{g:g} µs':>18}" for g in gaps))
        for load in LOADS:
            cell = {r["gap_us"]: r for r in rs if r.get("load") == load}
            if not cell:
                continue
            vals = ["-" if cell.get(g) is None or cell[g]["ours"] is None else
                    f"{cell[g]['ours']:.2f} ({cell[g]['decision_p99_ms']})" for g in gaps]
            lines.append(f"{load:>10} " + "".join(f"{v:>18}" for v in vals))
    return lines


def markdown_table(rows: list[dict]) -> list[str]:
    lines = []
    for path in PATHS:
        rs = [r for r in rows if r["path"] == path]
        if not rs:
            continue
        gaps = sorted({r["gap_us"] for r in rs})
        lines += ["", f"`{path}`: fraction won by the true first presser (pairs), decision p99 "
                  "(later edge's kernel stamp -> winner's lamp)", "",
                  "| load | " + " | ".join(f"{g:g} µs" for g in gaps) + " |", "|---|" + "---|" * len(gaps)]
        for load in LOADS:
            cell = {r["gap_us"]: r for r in rs if r.get("load") == load}
            if cell:
                lines.append(f"| {load} | " + " | ".join(
                    "-" if cell.get(g) is None or cell[g]["ours"] is None else
                    f"{cell[g]['ours']:.2f} ({cell[g]['pairs']}), {cell[g]['decision_p99_ms']} ms"
                    for g in gaps) + " |")
    return lines


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        return _child_main(argv[1], argv[2])
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="two gaps, a few pairs (~2 min)")
    p.add_argument("--in-guest", action="store_true", help="(inside the guest) run the cells here")
    p.add_argument("--paths", default=",".join(PATHS))
    p.add_argument("--loads", default=",".join(LOADS))
    p.add_argument("--out", help="write the results keys as JSON here")
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    if args.in_guest:
        res = in_guest(args.quick, Path(args.out or "/run/results/kernel.json"),
                       args.paths.split(","), args.loads.split(","))
    else:
        res = measure(args.quick)
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
