"""The GPIO paths on a real Linux kernel with a real GPIO chip (gpio-sim), in qemu.

The session fixture builds the test kernel if it is not cached (tests/kernel/build.py,
once: minutes), boots it in qemu with this checkout as the guest's root, and runs
the in-guest tests (tests/kernel/guest_tests/test_*.py) there with pytest. Each
in-guest test is one test here: it fails with the guest's own report when the test
failed (or never ran) in the guest. Without qemu or a kernel these tests FAIL, they
never skip: `sh .ci/install-system-deps` installs qemu, `make test` builds the kernel.

Only this file:  .venv/bin/python -m pytest -q -p no:cacheprovider tests/test_kernel_gpio.py
"""

from __future__ import annotations

import ast
import os
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from kernel import guest

ROOT = Path(__file__).resolve().parent.parent
GUEST_TESTS = ROOT / "tests" / "kernel" / "guest_tests"
TIMEOUT_S = float(os.environ.get("BUZZER_GUEST_TIMEOUT", "1200"))


def guest_test_ids() -> list[str]:
    """``file::Class::test`` / ``file::test`` of every in-guest test, read from the files."""
    ids = []
    for path in sorted(GUEST_TESTS.glob("test_*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
                ids.append(f"{path.stem}::{node.name}")
            elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                for sub in node.body:
                    if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)) and sub.name.startswith("test"):
                        ids.append(f"{path.stem}::{node.name}::{sub.name}")
    return ids


def _key(case: ET.Element) -> str:
    """The id of a junit <testcase> as guest_test_ids() spells it (parameters folded)."""
    parts = case.get("classname", "").split(".")
    # classname: kernel.guest_tests.test_x[.TestClass]
    name = case.get("name", "").split("[", 1)[0]
    tail = parts[parts.index("guest_tests") + 1:] if "guest_tests" in parts else parts[-1:]
    return "::".join([*tail, name])


class GuestReport:
    def __init__(self, result: guest.GuestResult):
        self.result = result
        self.cases: dict[str, list[tuple[str, str]]] = {}
        junit = result.results / "junit.xml"
        if junit.is_file():
            for case in ET.parse(junit).getroot().iter("testcase"):
                outcome, text = "passed", ""
                for child in case:
                    if child.tag in ("failure", "error"):
                        outcome = child.tag
                        text = (child.get("message") or "") + "\n" + (child.text or "")
                    elif child.tag == "skipped":
                        outcome, text = "skipped", child.get("message") or ""
                self.cases.setdefault(_key(case), []).append((f"{case.get('name')}: {outcome}", text))


@pytest.fixture(scope="session")
def guest_report() -> GuestReport:
    argv = [guest.venv_python(), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:hypothesispytest",
            "-o", "addopts=", "--durations=0",
            "--confcutdir", str(ROOT / "tests" / "kernel"), "-rfE",
            "--junitxml", "/run/results/junit.xml", str(GUEST_TESTS)]
    try:
        result = guest.run(argv, timeout=TIMEOUT_S, cwd="/tmp/work")
    except guest.GuestError as exc:
        pytest.fail(f"the GPIO test guest did not run: {exc}", pytrace=False)
    sys.stderr.write(f"\n[kernel guest: booted in {result.boot_s:.1f} s, whole run "
                     f"{result.elapsed_s:.1f} s, exit {result.returncode}]\n")
    return GuestReport(result)


@pytest.mark.parametrize("test_id", guest_test_ids())
def test_in_guest(guest_report: GuestReport, test_id: str):
    runs = guest_report.cases.get(test_id)
    out_tail = "\n".join(guest_report.result.output.splitlines()[-60:])
    if not runs:
        pytest.fail(f"{test_id} did not run in the guest (exit {guest_report.result.returncode}); "
                    f"guest output:\n{out_tail}", pytrace=False)
    bad = [(name, text) for name, text in runs if not name.endswith(": passed")]
    if bad:
        pytest.fail("in the guest:\n" + "\n".join(f"{name}\n{text}" for name, text in bad), pytrace=False)


def test_guest_tests_exist():
    """The parametrisation above must not silently become empty."""
    assert len(guest_test_ids()) >= 3, guest_test_ids()
