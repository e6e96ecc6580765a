"""Each ``buzzer`` command loads only what it needs (issue 23, item 18): ``--version`` prints at
once, ``simulate`` and ``pack show`` draw nothing and serve no page, and ``buzzer run`` in the
game's own process loads no web server, MQTT client or keypad driver (the pages run in a
process of their own, the festival and the keypad only when configured).  The times are in
docs/performance.md («Start-up»); here: which modules a real command has loaded when it is
done, read from ``sys.modules`` in the command's own process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

# runs the command as the ``buzzer`` script does, and writes the modules it loaded when it ends
PROBE = r"""
import atexit, json, sys
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
if sys.argv[1] == "--window":   # SDL's dummy driver reads as "no display": say there is one
    del sys.argv[1]
    import controller.app.startup as startup
    startup.display_available = lambda: True
from controller.cli import main
sys.exit(main(sys.argv[1:]))
"""

HEAVY = {
    "pygame": "the window and the sounds (pygame, SDL)",
    "aiohttp": "the pages' web server",
    "paho": "the festival's MQTT client",
    "evdev": "the host keypad's driver",
    "pkg_resources": "setuptools' scan of every installed package",
    "asyncio": "the web server's event loop",
    "ssl": "TLS (a festival broker over TLS only)",
    "multiprocessing": "the festival's outbox process",
}


def loaded(cwd: Path, *argv: str, env: dict | None = None) -> tuple[set[str], subprocess.CompletedProcess]:
    out = cwd / "modules.json"
    proc = subprocess.run([sys.executable, "-c", PROBE, str(out), *argv], cwd=cwd, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=180,
                          env=dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy",
                                   PYTHONPATH=str(ROOT), BUZZER_EXIT_AFTER_FIRST_FRAME="1", **(env or {})))
    assert out.exists(), proc.stderr[-2000:]
    return {m.split(".")[0] for m in json.loads(out.read_text())} | set(json.loads(out.read_text())), proc


def heavy(modules: set[str]) -> dict[str, str]:
    return {m: why for m, why in HEAVY.items() if m in modules}


def test_buzzer_version_loads_no_command_at_all(tmp_path):
    modules, proc = loaded(tmp_path, "--version")
    assert proc.stdout.startswith("buzzer-controller "), proc.stdout + proc.stderr
    assert heavy(modules) == {}
    assert not {m for m in modules if m.startswith(("controller.app", "controller.games", "controller.screens",
                                                    "controller.web", "controller.festival"))}


def test_simulate_draws_nothing_and_serves_no_page(tmp_path):
    modules, proc = loaded(tmp_path, "simulate", str(EXAMPLES / "erudite-light.jsonl"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout)["scores"], proc.stdout[:500]
    assert heavy(modules) == {}


def test_pack_show_draws_nothing(tmp_path):
    modules, proc = loaded(tmp_path, "pack", "show", str(EXAMPLES / "own-game.siq"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip()
    assert heavy(modules) == {}


def test_run_to_its_first_frame_loads_the_window_but_no_server_client_or_driver(tmp_path):
    modules, proc = loaded(tmp_path, "--window", "run", "--new", "--seconds", "30")
    assert "first frame" in proc.stdout, proc.stdout[-2000:] + proc.stderr[-2000:]
    # the pages are served (by their own process); off a terminal the host link goes to the
    # journal folder's host-link file, never to stdout (docs/web.md)
    assert "http://127.0.0.1:" in proc.stdout and "/host#token=" not in proc.stdout
    assert "pygame" in modules
    assert heavy(modules) == {"pygame": HEAVY["pygame"]}


def test_run_headless_loads_no_window_either(tmp_path):
    modules, proc = loaded(tmp_path, "run", "--headless", "--new", "--seconds", "1")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert heavy(modules).keys() <= {"pygame"}   # the sounds still play through pygame's mixer
    assert "controller.screens.scoreboard" not in modules


@pytest.mark.parametrize("command", ["run", "simulate", "check-config", "test-buttons", "tournament", "protocol",
                                     "screenshot", "pack", "festival"])
def test_each_command_is_found_in_the_module_it_names(command):
    """The table of controller/cli.py that lets a command load only its own module says
    where each command really is (a new command missing from it still works: it loads all)."""
    from controller import cli

    assert cli.modules_for([command, "--help"]) == [cli.SUBCOMMANDS[command]]
    parser = cli.build_parser([cli.SUBCOMMANDS[command]])
    sub = next(a for a in parser._actions if a.dest == "command")
    assert command in sub.choices
    every = next(a for a in cli.build_parser()._actions if a.dest == "command")
    assert set(every.choices) == set(cli.SUBCOMMANDS)
