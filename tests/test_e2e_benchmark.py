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


def test_grid_and_tables(e2e):
    full, quick = e2e.grid(False), e2e.grid(True)
    assert len(full) == 75 + 12 + 4 and len(quick) < 10
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
