"""The README's commands work as written in a fresh clone after ``make run``.

``make run`` installs ``buzzer`` into ``.venv/``, not onto PATH, so a command
the reader types is ``.venv/bin/buzzer …`` (or ``make run ARGS="…"``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
TOUCHED_DOCS = ["README.md", "docs/cli.md", "docs/mafia.md", "docs/modes.md", "docs/config.md"]


def _spans(text: str) -> list[str]:
    """Inline code and the lines of code blocks."""
    blocks = re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S)
    rest = re.sub(r"```[a-z]*\n.*?```", "", text, flags=re.S)
    return [line.strip() for b in blocks for line in b.splitlines()] + re.findall(r"`([^`\n]+)`", rest)


def test_the_readme_starts_with_the_two_setup_commands():
    first = re.match(r"# [^\n]+\n\n```sh\n(.*?)```", README, flags=re.S)
    assert first, "README must open with a code block"
    assert [line.split("#")[0].strip() for line in first.group(1).splitlines()] == ["make run", "make test"]


@pytest.mark.parametrize("doc", TOUCHED_DOCS)
def test_commands_are_typed_as_the_venv_has_them(doc):
    """`buzzer run -c …` gives "command not found" after `make run`: commands name .venv/bin/buzzer."""
    bare = [s for s in _spans((ROOT / doc).read_text(encoding="utf-8"))
            if re.match(r"(buzzer|python) \S+ \S", s)]
    assert not bare, f"{doc}: commands that are not on PATH after make run: {bare}"


def _runnable(span: str) -> bool:
    """A concrete command (no FILE / [options] / a|b placeholders)."""
    return span.startswith(".venv/bin/buzzer ") and not re.search(r"[\[\]|…]|\b[A-Z]{2,}\b", span)


README_COMMANDS = sorted({s for s in _spans(README) if _runnable(s)})


def test_the_readme_has_concrete_commands_to_try():
    assert len(README_COMMANDS) >= 4, README_COMMANDS


@pytest.mark.parametrize("command", README_COMMANDS)
def test_every_concrete_readme_command_runs(tmp_path, command):
    """Run each one as written (from the repository's folder layout), with --headless and a
    time limit where it would wait for a person."""
    for name in ("config", "examples"):
        (tmp_path / name).symlink_to(ROOT / name)
    argv = command.split()[1:]
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONPATH=str(ROOT))
    if argv[0] == "run":
        argv += ["--headless", "--new", "--seconds", "0.3"]
    if argv[0] == "test-buttons":  # on a Pi: the real pins; here gpiozero's mock pins
        argv += ["--seconds", "0.3", "--no-lamps"]
        env["GPIOZERO_PIN_FACTORY"] = "mock"
    buzzer = Path(sys.executable).with_name("buzzer")
    prog = [str(buzzer)] if buzzer.exists() else [sys.executable, "-m", "controller.cli"]
    proc = subprocess.run(prog + argv, cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"{command}: {proc.stderr}"


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_make_run_passes_args_to_buzzer_run():
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}  # under make test
    proc = subprocess.run(["make", "--no-print-directory", "-n", "run", 'ARGS=-c config/own-game.toml'], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == ".venv/bin/buzzer run -c config/own-game.toml"


@pytest.mark.skipif(shutil.which("make") is None or shutil.which("git") is None, reason="no make or git")
def test_make_venv_in_a_fresh_clone_prints_no_setuptools_warning(tmp_path):
    """#23 item 17: the first thing a new host runs prints what it does, not setuptools' warning
    about an editable install («BuildBackendWarning: Editable installation ... !!»)."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=120)
    shutil.copy(ROOT / "Makefile", clone / "Makefile")   # the checkout's own, committed or not
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "VIRTUAL_ENV")}
    proc = subprocess.run(["make", "--no-print-directory", "venv"], cwd=clone, env=env, capture_output=True,
                          text=True, timeout=900)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert (clone / ".venv" / "bin" / "buzzer").exists()
    # pip's own words about this machine's package index (a folder it skips) are not the project's
    lines = [line for line in out.splitlines() if not line.startswith("WARNING: Location 'file://")]
    # a Python warning names its class (BuildBackendWarning, SetuptoolsDeprecationWarning ...)
    assert not [line for line in lines if re.search(r"[a-z]Warning\b|!!", line)], out
