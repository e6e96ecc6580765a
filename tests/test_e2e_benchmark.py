"""The end-to-end fairness benchmark's harness works (not its timing): a tiny
cell on the GPIO path and on the virtual serial box plays through ``buzzer
run``'s loop, every pair gets a ruling, and the stamps the engine got are the
edge times the feeder chose."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "e2e_fairness.py"


@pytest.fixture(scope="module")
def e2e():
    spec = importlib.util.spec_from_file_location("bench_e2e_fairness", PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


def _play(e2e, cells, pairs=2):
    # a child process, as run.py runs it: the loop takes over its main thread
    res = e2e._run_child(cells, pairs, None, timeout=120)
    assert res["notes"] == []
    return e2e.summarise(cells, res["pairs"], throttled=False)


def test_gpio_cell_plays_through_the_loop_with_exact_edge_stamps(e2e):
    cells = [e2e.Cell("gpio", 100, 0.5, 0.01), e2e.Cell("gpio", 1, 3, 1)]
    rows = _play(e2e, cells)
    for row in rows:
        assert row["pairs"] == 2 and row["invalid"] == 0
        assert row["no_ruling"] == 0, row          # the loop named a holder every time
        assert 0.0 <= row["ours"] <= 1.0
        assert row["stamp_gap_error_max_us"] <= 0.01   # the ticks passed are the edges' times
        assert row["decision_p50_ms"] >= row["delay_ms"]  # the ruling cannot precede the delivery
    assert rows[1]["follow_measured_p50_ms"] >= 1.0      # δ follows the first callback


def test_virtual_box_cell_plays_through_the_loop(e2e):
    cells = [e2e.Cell("serial-virtual", 1000, 0, 0)]
    row = _play(e2e, cells)[0]
    assert row["pairs"] == 2 and row["no_ruling"] == 0
    assert row["stamp_gap_error_max_us"] <= 1.0          # the box's 1 MHz clock
    assert row["stamp_error_max_ms"] is not None


def test_gpiod_host_cell_plays_through_the_loop_with_the_kernel_order_and_stamps(e2e):
    """The gpiod backend on the presser's pipe: its real reader thread, the engine gets the
    presser's stamps exactly, and the stream names the true first presser at a 10 µs gap."""
    cells = [e2e.Cell("gpiod-host", 10, 0, 0)]
    res = e2e._run_child(cells, 3, None, timeout=120)
    assert res["notes"] == []
    row = e2e.host_rows(cells, res["pairs"], "plain", 5.0)[0]
    assert (row["path"], row["load"], row["pairs"], row["no_ruling"]) == ("gpiod-host", "plain", 3, 0)
    assert row["ours"] == 1.0 and row["gpio_tie_us"] == 5.0 and row["above_tie"]
    assert row["true_gap_min_us"] >= 10.0                # the presser spun the whole gap
    assert row["stamp_gap_error_max_us"] == 0.0          # the stamps reached the engine unchanged
    assert row["stamp_error_max_ms"] == 0.0
    assert row["decision_p50_ms"] > 0                    # the lamp after the later edge


def test_gpiod_host_quick_measure_has_the_results_keys(e2e):
    """The quick gpiod-host measure (plain and beside the hogs, one pair a cell): the rows
    ``e2e_fairness`` gets and the per-load decision p99."""
    res = e2e.measure(quick=True, pairs=1, paths=["gpiod-host"], throttle=False)
    assert res["e2e_paths"] == ["gpiod-host"] and "e2e_decision_p99_ms" not in res   # the other paths' keys stay
    rows = res["e2e_fairness"]
    assert {(r["load"], r["gap_us"]) for r in rows} == {(load, g) for load in ("plain", "hog") for g in (10, 1000)}
    for r in rows:
        assert r["path"] == "gpiod-host" and r["pairs"] == 1 and r["ours"] == 1.0 and r["gpio_tie_us"] == 5.0
    p99 = res["e2e_gpiod_host_decision_p99_ms"]
    assert set(p99) == {"plain", "hog"} and all(v > 0 for v in p99.values())
    assert "not measured" in res["e2e_gpiod_host_measured"].lower() and "interrupt" in res["e2e_gpiod_host_measured"]
    assert "not asked for" in res["e2e_gpiod_host_note"]


def test_grid_and_tables(e2e):
    full, quick = e2e.grid(False), e2e.grid(True)
    assert len(full) == 75 + 12 + 4 + 4 and len(quick) < 10
    host = [{"path": "gpiod-host", "load": load, "gap_us": g, "pairs": 4, "ours": 1.0, "decision_p99_ms": 3.5,
             "throttled": load == "throttled"} for load in ("plain", "hog", "throttled") for g in (10, 1000)]
    assert any(line.split()[0] == "hog" and "1.00 (4) 3.5" in line for line in e2e.table(host))
    assert "| throttled | 1.00 (4), 3.5 ms | 1.00 (4), 3.5 ms |" in e2e.markdown_table(host)
    assert {c.gap_us for c in full if c.path != "gpio"} == {10, 100, 1000, 10000}
    rows = [{"path": c.path, "gap_us": c.gap_us, "delay_ms": c.delay_ms, "follow_ms": c.follow_ms,
             "throttled": th, "ours": 1.0} for c in quick for th in (False, True)]
    assert any("1.00 / 1.00" in line for line in e2e.table(rows))
    assert any("1.00 / 1.00" in line for line in e2e.markdown_table(rows))


def test_throttle_makes_a_cgroup_or_says_why(e2e):
    try:
        with e2e.Throttle() as th:
            assert Path(th.procs).exists()
            assert "25 %" in th.describe()
            group = th.dir
    except e2e.ThrottleUnavailable as exc:
        assert str(exc)
        return
    assert not group.exists()  # removed after use


def test_kernel_rows_carry_the_results_keys():
    """benchmarks/e2e_kernel.py's rows (made in the guest from e2e_fairness's summary): each
    cell has path, load, gap_us, pairs, ours and gpio_tie_us; the decision p99 is per load."""
    sys.path.insert(0, str(PATH.parent))
    sys.path.insert(0, str(PATH.parents[1] / "tests"))
    import e2e_fairness
    import e2e_kernel
    ms = e2e_fairness.MS

    def pair(load, gap_us, first, won, decision_ms, true_gap_us):
        cell = e2e_fairness.Cell(f"gpiod-kernel/{load}", gap_us, 0, 0)
        gap = int(true_gap_us * 1000)
        return e2e_fairness.Pair(cell, first, won, int(decision_ms * ms), None, gap, 2000, gap + 500, None,
                                 "answer" if won == first else "lockout")

    pairs = [pair("plain", 10, "A", "A", 5, 600), pair("plain", 10, "B", "B", 7, 900),
             pair("plain", 1000, "A", "A", 6, 1100), pair("hog", 10, "A", "B", 40, 700),
             pair("hog", 10, "B", "B", 30, 800)]
    rows, p99 = e2e_kernel.rows_of("gpiod-kernel", ("plain", "hog"), (10, 1000), pairs, 5.0)
    by = {(r["load"], r["gap_us"]): r for r in rows}
    assert set(by) == {("plain", 10), ("plain", 1000), ("hog", 10), ("hog", 1000)}
    for r in rows:
        assert r["path"] == "gpiod-kernel" and r["gpio_tie_us"] == 5.0 and r["above_tie"]
    assert (by["plain", 10]["pairs"], by["plain", 10]["ours"]) == (2, 1.0)
    assert (by["hog", 10]["pairs"], by["hog", 10]["ours"]) == (2, 0.5)
    assert by["hog", 1000]["pairs"] == 0 and by["hog", 1000]["ours"] is None
    assert (by["plain", 10]["true_gap_min_us"], by["plain", 10]["true_gap_max_us"]) == (600.0, 900.0)
    assert by["plain", 10]["stamp_gap_error_max_us"] == 0.5
    assert p99 == {"plain": 7.0, "hog": 40.0}
    lines = e2e_kernel.table(rows)
    assert any(line.split()[0] == "hog" and "0.50 (2) 40.0" in line for line in lines)
