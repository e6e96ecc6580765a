"""``make bench`` (``benchmarks/run.py --quick``) must not overwrite the committed
full figures in ``benchmarks/results.json``: a quick run writes ``results-quick.json``
unless ``--out`` says otherwise."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PATH = ROOT / "benchmarks" / "run.py"


@pytest.fixture()
def run(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("bench_run_out", PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "HERE", tmp_path)  # the default output directory
    yield module
    sys.modules.pop(spec.name, None)


def _main(run, *args):
    # --only with no known measure: the run only writes its JSON (machine info)
    return run.main(["--only", "none", *args])


def test_quick_run_writes_results_quick_not_results(run, tmp_path):
    _main(run, "--quick")
    assert json.loads((tmp_path / "results-quick.json").read_text())["quick"] is True
    assert not (tmp_path / "results.json").exists()


def test_full_run_writes_results(run, tmp_path):
    _main(run)
    assert json.loads((tmp_path / "results.json").read_text())["quick"] is False
    assert not (tmp_path / "results-quick.json").exists()


def test_out_wins(run, tmp_path):
    _main(run, "--quick", "--out", str(tmp_path / "mine.json"))
    assert (tmp_path / "mine.json").exists()
    assert not (tmp_path / "results-quick.json").exists() and not (tmp_path / "results.json").exists()


def test_quick_results_are_not_committed():
    assert "/benchmarks/results-quick.json" in (ROOT / ".gitignore").read_text().splitlines()
    assert "benchmarks/run.py --quick" in (ROOT / "Makefile").read_text()


def test_an_e2e_run_keeps_the_kernel_measures_rows(run, tmp_path, monkeypatch):
    """``--only e2e`` replaces the e2e rows of ``e2e_fairness`` and keeps the gpiod-kernel /
    lgpio-kernel rows an earlier ``--only kernel`` run put there (and its other keys)."""
    out = tmp_path / "results.json"
    kernel_row = {"path": "gpiod-kernel", "load": "hog", "gap_us": 100, "pairs": 3, "ours": 1.0}
    out.write_text(json.dumps({"e2e_fairness": [{"path": "gpio", "gap_us": 1, "ours": 0.5}, kernel_row],
                               "e2e_kernel_decision_p99_ms": {"gpiod-kernel": {"hog": 900.0}}}))
    new_row = {"path": "gpio", "gap_us": 1, "ours": 1.0}
    monkeypatch.setattr(run, "MEASURES", [("e2e", lambda quick: {"e2e_fairness": [new_row]})])
    run.main(["--only", "e2e", "--out", str(out)])
    got = json.loads(out.read_text())
    assert got["e2e_fairness"] == [new_row, kernel_row]
    assert got["e2e_kernel_decision_p99_ms"] == {"gpiod-kernel": {"hog": 900.0}}


def test_an_e2e_run_of_some_paths_keeps_the_other_paths_rows(run, tmp_path, monkeypatch):
    """``--only e2e --e2e-paths gpiod-host`` replaces the gpiod-host rows only; the other e2e
    paths' rows, the kernel rows and the keys the run did not make stay."""
    out = tmp_path / "results.json"
    gpio_row = {"path": "gpio", "gap_us": 1, "ours": 0.5}
    kernel_row = {"path": "gpiod-kernel", "load": "hog", "gap_us": 100, "pairs": 3, "ours": 1.0}
    old_host = {"path": "gpiod-host", "load": "plain", "gap_us": 10, "ours": 0.0}
    out.write_text(json.dumps({"e2e_fairness": [gpio_row, old_host, kernel_row], "e2e_decision_p99_ms": 40.0}))
    new_host = {"path": "gpiod-host", "load": "plain", "gap_us": 10, "ours": 1.0}
    asked = []

    def e2e(quick):
        asked.append(run.E2E_PATHS)
        return {"e2e_fairness": [new_host], "e2e_paths": ["gpiod-host"],
                "e2e_gpiod_host_decision_p99_ms": {"plain": 4.0}}

    monkeypatch.setattr(run, "MEASURES", [("e2e", e2e)])
    run.main(["--only", "e2e", "--e2e-paths", "gpiod-host", "--out", str(out)])
    got = json.loads(out.read_text())
    assert asked == [["gpiod-host"]]
    assert got["e2e_fairness"] == [gpio_row, new_host, kernel_row]
    assert got["e2e_decision_p99_ms"] == 40.0 and got["e2e_gpiod_host_decision_p99_ms"] == {"plain": 4.0}
