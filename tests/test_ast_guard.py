"""The suite no longer stops with ``INTERNALERROR … SystemError: AST constructor recursion
depth mismatch`` (issue 23, item 19; the cause is in tests/ast_guard.py).

A pytest run in a subprocess on a test that fails while a finalizer formats a traceback --
what an abandoned asyncio future does when the collector frees it -- ends as a plain
failure with the guard; without it, on an affected Python, pytest itself breaks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import ast_guard

HERE = Path(__file__).resolve().parent

FAILING_TEST = '''
import gc
import traceback


class Abandoned:
    """Stands for a future whose exception nobody retrieved: freed by the collector (it
    is in a cycle), it formats its traceback, as asyncio's exception handler does."""

    def __init__(self):
        self.me = self

    def __del__(self):
        try:
            {}["missing"] + 1
        except KeyError:
            traceback.format_exc()


def more_abandoned(phase, info):
    if phase == "stop":   # each collection leaves some for the next one, as a busy program does
        for _ in range(20):
            Abandoned()


def test_fails_while_futures_are_collected():
    gc.set_threshold(50)
    gc.callbacks.append(more_abandoned)
    assert 1 + 1 == 3, "an ordinary failure, reported with its source"
'''


def _pytest(tmp_path, *plugins: str) -> subprocess.CompletedProcess:
    test = tmp_path / "test_probe.py"
    test.write_text(FAILING_TEST, encoding="utf-8")
    (tmp_path / "none.ini").write_text("[pytest]\n", encoding="utf-8")   # not the project's settings
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(tmp_path),
            "-c", str(tmp_path / "none.ini")]
    for p in plugins:
        args += ["-p", p]
    return subprocess.run(args + [str(test)], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(HERE)})


def test_a_failure_with_finalizers_at_work_is_reported_not_an_internal_error(tmp_path):
    run = _pytest(tmp_path, "ast_guard")
    out = run.stdout + run.stderr
    assert "INTERNALERROR" not in out, out[-3000:]
    assert "1 failed" in out, out[-3000:]
    assert "an ordinary failure, reported with its source" in out


@pytest.mark.skipif(not ast_guard.AFFECTED, reason="this Python has CPython's fix (3.11.8+)")
def test_without_the_guard_this_python_breaks_pytest(tmp_path):
    run = _pytest(tmp_path)
    out = run.stdout + run.stderr
    assert "AST constructor recursion depth mismatch" in out, out[-3000:]
