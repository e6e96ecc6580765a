"""The fairness benchmark's behaviour (not its timing): the real engine names
the true first presser whenever delivery jitter stays within the settle
window, while first-delivered-wins and index-order polling do not."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "fairness.py"


@pytest.fixture(scope="module")
def fairness():
    spec = importlib.util.spec_from_file_location("bench_fairness", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def rows(fairness):
    return fairness.sweep(gaps_us=(1, 100, 1000), jitters_ms=(0.0, 2.0, 10.0), pairs=40)


def cell(rows, gap_us, jitter_ms):
    return next(r for r in rows if r["gap_us"] == gap_us and r["jitter_ms"] == jitter_ms)


def test_ours_always_names_the_true_first_presser_within_the_settle_window(rows, fairness):
    settle = fairness.settle_ms_of()
    assert settle == 2.0
    within = [r for r in rows if r["jitter_ms"] <= settle]
    assert len(within) == 6
    assert all(r["ours"] == 1.0 for r in within), within


def test_first_delivered_loses_small_gaps_under_big_jitter(rows):
    r = cell(rows, 1, 10.0)
    assert r["first_delivered"] < 1.0
    assert r["first_delivered"] < 0.8  # about a coin toss


def test_polling_loses_presses_inside_one_poll_period_even_without_jitter(rows):
    r = cell(rows, 1, 0.0)
    assert r["ours"] == 1.0
    assert r["poll_1ms"] < 0.8 and r["poll_10ms"] < 0.8


def test_ours_breaks_when_jitter_exceeds_a_shorter_settle_window(fairness):
    rows = fairness.sweep(gaps_us=(1,), jitters_ms=(5.0,), pairs=40, settle_ms=0.5)
    assert rows[0]["ours"] < 1.0


def test_one_poll_scan_credits_the_lower_index(fairness):
    ms = 1_000_000
    # B pressed first, but both land before the same scan: A (index 0) wins
    assert fairness.poll_winner({"A": 5 * ms + 300, "B": 5 * ms + 100}, period_ns=ms, phase_ns=500) == "A"
    # a scan falls between them: B is seen first
    assert fairness.poll_winner({"A": 5 * ms + 700, "B": 5 * ms + 100}, period_ns=ms, phase_ns=500) == "B"
