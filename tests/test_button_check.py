"""``buzzer test-buttons`` (controller/app/button_check.py) on gpiozero's mock pins, run non-interactively."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockPin

from controller.cli import main

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def factory(factory, monkeypatch):
    """conftest's mock pin factory, also the one a gpiozero device made by the command picks."""
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    return factory


class HoldablePin(MockPin):
    """A mock pin whose button can be held down: the closed contact beats the
    weak internal pull-up that opening the input switches on."""

    held = False

    def _set_pull(self, value):
        super()._set_pull(value)
        if self.held:
            self._change_state(False)


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


CONFIG = """
buttons = "gpio"
[gpio]
host_pins = { right = "GPIO20" }
"""

SCRIPT = """
# seconds input what
0.05 A down
0.05 A bounce 4
0.25 A up
0.30 C tap
0.35 host:right tap
"""


def test_script_shows_presses_bounce_host_buttons_and_silent_ones(factory, tmp_path, capsys):
    cfg = write(tmp_path, "table.toml", CONFIG)
    script = write(tmp_path, "presses.txt", SCRIPT)
    rc = main(["test-buttons", "--config", cfg, "--seconds", "0.7", "--script", script,
               "--lamp-s", "0.1", "--lang", "en"])
    out = capsys.readouterr().out
    assert rc == 0
    lines = out.splitlines()
    assert any("A: pressed" in l for l in lines)
    release = next(l for l in lines if "A: released" in l)
    assert "bounce edges on press: 4" in release
    held_ms = int(release.split("held ")[1].split(" ms")[0])
    assert 150 <= held_ms <= 1000           # scripted 200 ms, played in real time
    assert any("C: released" in l for l in lines)
    assert any("host: right" in l for l in lines)
    assert "Never pressed: B (GPIO27), D (GPIO23)" in out
    row_a = next(l for l in lines if l.strip().startswith("A ") and "presses" in l)
    assert "presses   1" in row_a and "edges    6" in row_a and "bounce max 4" in row_a
    # every lamp was lit in the round of lamps, and all are off afterwards
    for pin in ("GPIO5", "GPIO6", "GPIO13", "GPIO19"):
        states = [s.state for s in factory.pin(pin).states]
        assert True in states, pin
        assert factory.pin(pin).state is False, pin
    assert [l for l in lines if l.startswith("Lamp ")] == ["Lamp A lit", "Lamp B lit", "Lamp C lit", "Lamp D lit"]


def test_button_held_at_start_is_flagged(factory, tmp_path, capsys):
    factory.pin_class = HoldablePin
    stuck = factory.pin("GPIO23")
    stuck.held = True                      # D is stuck down before the check starts
    stuck.drive_low()
    cfg = write(tmp_path, "table.toml", 'language = "ru"\n')
    rc = main(["test-buttons", "--config", cfg, "--seconds", "0.1", "--no-lamps"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "D: нажата уже при запуске" in out
    # a button held all along never changed state either
    assert "Ни разу не нажимались: A (GPIO17), B (GPIO27), C (GPIO22), D (GPIO23)\n" in out


def test_command_line_with_mock_factory(tmp_path):
    env = dict(os.environ, GPIOZERO_PIN_FACTORY="mock")
    cfg = write(tmp_path, "table.toml", 'buttons = "gpio"\n')
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "test-buttons", "--seconds", "0.2",
                           "--config", cfg, "--lang", "en", "--lamp-s", "0.05"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "Button A   pin GPIO17   lamp GPIO5" in proc.stdout
    assert "KEY_KPENTER" in proc.stdout and "-> right" in proc.stdout
    assert "Never pressed: A (GPIO17), B (GPIO27), C (GPIO22), D (GPIO23)" in proc.stdout


def test_on_a_pi_with_a_keyboard_config_it_says_the_teams_keys_show_in_buzzer_run(factory, tmp_path, capsys):
    cfg = write(tmp_path, "laptop.toml", 'buttons = "keyboard"\n')
    assert main(["test-buttons", "--config", cfg, "--seconds", "0.1", "--no-lamps"]) == 0
    out = capsys.readouterr().out
    assert 'В конфигурации buttons = "keyboard": здесь проверяются выводы GPIO из [gpio]; ' \
           "клавиши команд видны в buzzer run." in out
    assert "Кнопочный блок" not in out   # not the serial box's line


def test_bad_pin_is_one_line_naming_the_key(factory, tmp_path, capsys):
    cfg = write(tmp_path, "bad.toml", '[gpio]\npins = { A = "GPIO17", B = "GPIO99", C = "GPIO22", D = "GPIO23" }\n')
    rc = main(["test-buttons", "--config", cfg, "--seconds", "0.1"])
    err = capsys.readouterr().err
    assert rc == 2
    assert len(err.strip().splitlines()) == 1
    assert "gpio.pins.B" in err and "GPIO99" in err


RACE = """
0.05 A edge       # A's contacts close first, its callback is held back
0.051 B down
0.054 A deliver   # A's callback runs 3 ms after B's: within quiet_ms
0.20 A up
0.20 B up
0.30 C edge
0.301 D down
0.35 C deliver    # 49 ms after D's: beyond quiet_ms (15 ms)
0.45 C up
0.45 D up
"""


def test_a_race_of_two_buttons_reports_edge_and_callback_order_and_the_verdict(factory, tmp_path, capsys):
    """How to check on a Pi that near-simultaneous presses reach the arbiter fairly."""
    cfg = write(tmp_path, "table.toml", CONFIG)
    script = write(tmp_path, "race.txt", RACE)
    rc = main(["test-buttons", "--config", cfg, "--seconds", "0.6", "--script", script,
               "--no-lamps", "--lang", "en"])
    out = capsys.readouterr().out
    assert rc == 0
    pairs = [l.strip() for l in out.splitlines() if " before " in l]
    assert len(pairs) == 2, out
    assert pairs[0].startswith("A before B by ") and "callbacks: B first" in pairs[0]
    assert pairs[0].endswith("fair (within quiet_ms = 15 ms)")
    assert pairs[1].startswith("C before D by ") and "callbacks: D first" in pairs[1]
    assert "NOT fair" in pairs[1] and "raise [gpio] quiet_ms" in pairs[1]


def test_test_buttons_with_keyboard_buttons_says_what_it_checks_and_exits_0(tmp_path):
    """The default config (keyboard buttons) on a computer without GPIO: nothing is wrong, so
    one informational line on stdout and exit code 0 (not an error's 2)."""
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "test-buttons", "--seconds", "0.2"], cwd=tmp_path,
                          env=_no_gpio_env(), stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("test-buttons проверяет кнопки, подключённые к GPIO Raspberry Pi; здесь GPIO нет, "
                                  "а кнопки в конфигурации — клавиши клавиатуры"), proc.stdout
    assert proc.stderr == ""


def _no_gpio_env():
    env = {k: v for k, v in os.environ.items() if k != "GPIOZERO_PIN_FACTORY"}
    env.update(SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONWARNINGS="default")
    return env


@pytest.mark.parametrize("argv, starts", [
    (["test-buttons", "--config", "{cfg}", "--seconds", "0.2"],
     "buzzer: На этом компьютере не открыть выводы GPIO ("),
    (["run", "--config", "{cfg}", "--headless", "--new", "--seconds", "0.2"],
     "buzzer: На этом компьютере не открыть выводы GPIO ("),
], ids=["test-buttons-gpio", "run-gpio"])
def test_without_gpio_hardware_the_error_is_one_line_on_stderr_in_the_users_language(tmp_path, argv, starts):
    """No Pi and no GPIOZERO_PIN_FACTORY: gpiozero's fallback warnings are caught;
    the user sees one line, in Russian (the default), naming what is missing, and exit code 2."""
    cfg = write(tmp_path, "gpio.toml", 'buttons = "gpio"\n')
    argv = [a.replace("{cfg}", str(cfg)) for a in argv]
    proc = subprocess.run([sys.executable, "-m", "controller.cli", *argv], cwd=tmp_path, env=_no_gpio_env(),
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    if proc.returncode == 0:
        pytest.skip("this machine has GPIO pins")
    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(starts), lines[0]
    assert "PinFactoryFallback" not in proc.stderr
    if "выводы GPIO" in starts:   # a GPIO table: what to install
        assert "установите python3-lgpio" in lines[0]


def test_a_missing_script_file_is_one_line(factory, tmp_path, capsys):
    rc = main(["test-buttons", "--script", str(tmp_path / "nope.txt"), "--seconds", "0.1", "--no-lamps"])
    assert rc == 2
    assert capsys.readouterr().err == f"buzzer: {tmp_path / 'nope.txt'}: file not found\n"


@pytest.fixture
def no_gpio(monkeypatch):
    """A laptop: no pin factory (whatever this machine has)."""
    from controller.core.errors import BackendUnavailable
    from controller.inputs import gpio

    class NoPins:
        def __init__(self, *args, **kwargs):
            raise BackendUnavailable("no GPIO pin factory (default): Unable to load any default pin factory! "
                                     "(lgpio: No module named 'lgpio')")

    monkeypatch.setattr(gpio, "GPIOBackend", NoPins)


def _one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("buzzer: "), err
    return err[len("buzzer: "):].rstrip("\n")


def _said(capsys) -> str:
    """What the check says when nothing is wrong: one line on stdout, nothing on stderr."""
    out, err = capsys.readouterr()
    assert err == "" and out.count("\n") == 1, (out, err)
    return out.rstrip("\n")


def test_on_a_laptop_with_the_keyboard_config_it_says_what_it_is_for(no_gpio, capsys):
    # nothing is wrong (keyboard keys need no check): exit code 0, not an error
    assert main(["test-buttons", "--seconds", "0.1"]) == 0       # the default config: keyboard buttons
    line = _said(capsys)
    assert line.startswith("test-buttons проверяет кнопки, подключённые к GPIO Raspberry Pi")
    assert "клавиши клавиатуры" in line and "проверять не нужно" in line and "buzzer run" in line
    assert "--config" in line and "pin factory" not in line and "lgpio" not in line


def test_on_a_laptop_a_serial_config_is_sent_to_buzzer_run(no_gpio, tmp_path, capsys):
    cfg = write(tmp_path, "box.toml", 'buttons = "serial"\n')
    assert main(["test-buttons", "--config", cfg, "--seconds", "0.1"]) == 0
    line = _said(capsys)
    assert 'buttons = "serial"' in line and "кнопочный блок проверяется в buzzer run" in line


@pytest.mark.parametrize("args,expected", [
    (["--script", "{tmp}/missing.txt"], "{tmp}/missing.txt: file not found"),
    (["--seconds", "-1"], "--seconds -1: нужно число секунд, 0 или больше (без --seconds — до Ctrl+C)"),
    (["--lamp-s", "0"], "--lamp-s 0: нужно число секунд больше 0"),
], ids=["missing-script", "negative-seconds", "zero-lamp-s"])
def test_a_bad_argument_is_its_own_error_before_any_hardware(no_gpio, tmp_path, capsys, args, expected):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    argv = ["test-buttons", *args] if "--seconds" in args else ["test-buttons", "--seconds", "0.1", *args]
    assert main(argv) == 2
    assert _one_line(capsys) == expected.replace("{tmp}", str(tmp_path))


def test_runs_without_python_evdev_as_make_run_installs_it(tmp_path):
    """`make run` installs no keypad extra: test-buttons still checks the pins (the mock
    ones here) instead of refusing the default [keypad] keymap it cannot read anyway."""
    fake = tmp_path / "no-evdev" / "evdev"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text('raise ImportError("No module named evdev")\n', encoding="utf-8")
    env = dict(os.environ, GPIOZERO_PIN_FACTORY="mock", PYTHONPATH=os.pathsep.join([str(fake.parent), str(ROOT)]))
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "test-buttons", "--seconds", "0.2", "--no-lamps",
                           "--lang", "en"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "Button A   pin GPIO17" in proc.stdout and "Never pressed: A (GPIO17)" in proc.stdout
