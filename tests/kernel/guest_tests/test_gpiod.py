"""In the guest: buttons = "gpiod" on a real kernel's GPIO chip (gpio-sim).

Presses are made by setting a simulated line's pull while the backend holds the lines,
so every edge is the kernel's: its interrupt, its stamp, its event buffer and its
sequence numbers.  The program parts are real: the backend, the loop and the engine
in-process; ``buzzer test-buttons`` and ``buzzer run --headless`` as child processes.
"""

from __future__ import annotations

import io
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.app import config
from controller.app.loop import Loop
from controller.games import engine
from controller.inputs.clock import EngineClock
from controller.core.events import HostKey
from controller.inputs import create_backend
from kernel import gpiosim

ROOT = Path(__file__).resolve().parents[3]
BUZZER = [sys.executable, "-m", "controller.cli"]
NAMES = ("Альфа", "Бета", "Гамма", "Дельта")
WAIT_S = 60.0
"""Longest wait for one thing the test needs (TCG emulation is slow; a loaded host slower)."""
CHILD_START_S = 600.0
"""A fresh Python importing the program takes half a minute to minutes in the guest."""


@pytest.fixture
def chip():
    c = gpiosim.Chip()
    yield c
    c.remove()


def wait_for(pred, what: str, timeout: float = WAIT_S):
    deadline = time.monotonic() + timeout
    while True:
        got = pred()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.002)


def game_config(chip, lines=(17, 27, 22, 23), **gpio):
    teams = [{"name": NAMES[i], "button": b} for i, b in enumerate("ABCD"[:len(lines)])]
    cfg = config.build({"teams": teams, "buttons": "gpiod"})
    settings = {"gpio.chip": chip.chip_name, "gpio.pins": {b: f"GPIO{n}" for b, n in zip("ABCD", lines)},
                "gpio.lamps": {}, "journal.fsync": False}
    settings.update({f"gpio.{k}": v for k, v in gpio.items()})
    return config.build(settings, base=cfg)


class Game:
    """The loop of buzzer run with the gpiod backend on the chip, driven from the test."""

    def __init__(self, cfg, out=None):
        self.clock = EngineClock()
        self.loop = Loop(cfg, engine.new_game(cfg, 1), self.clock, **({"out": out} if out else {}))
        options = {**cfg["gpio"], "settle_ms": cfg["arbiter"]["settle_ms"]}
        self.backend = create_backend("gpiod", [t["button"] for t in cfg["teams"]], self.clock,
                                      self.loop.enqueue, options)
        self.loop.backend = self.backend
        self.backend.start()

    def run_until(self, pred, what: str):
        def step():
            self.loop.step_once(0.01)
            return pred()
        return wait_for(step, what)

    def host(self, action: str):
        self.loop.enqueue(HostKey(action))
        self.loop.drain()

    def open_question(self):
        self.host("question")
        self.host("reading_done")
        armed = self.loop.state.question.armed_at
        # presses from 1 ms after the end of reading: one stamped before it is early
        wait_for(lambda: self.clock.now() > armed + 1_000_000, "the question to be armed")

    def presses(self):
        return [r for r in self.loop.state.question.presses]

    def holder(self):
        q = self.loop.state.question
        return None if q is None or q.holder is None else self.loop.state.teams[q.holder].name

    def close(self):
        self.backend.close()


def kernel_stamp(game, button):
    """The kernel's own stamp (CLOCK_MONOTONIC ns) of the latest press edge of ``button``."""
    active_low = game.backend.options["active_low"]
    edges = [e for e in game.backend.recent if e.ident == button and e.rising != active_low]
    return edges[-1].timestamp_ns


def test_a_press_on_each_line_reaches_the_engine_with_the_kernels_stamp(chip):
    game = Game(game_config(chip))
    try:
        for button, line in zip("ABCD", (17, 27, 22, 23)):
            game.open_question()
            edge = chip.press(line)
            game.run_until(lambda: game.holder() is not None, f"button {button}'s press")
            rec = [r for r in game.presses() if r.button == button][0]
            stamp = kernel_stamp(game, button)
            # the engine's time of the press is the kernel's stamp, on the engine clock
            assert rec.at == game.clock.from_monotonic_ns(stamp)
            assert edge.before_ns <= stamp <= edge.after_ns + 5_000_000, (edge, stamp)
            assert game.holder() == NAMES["ABCD".index(button)]
            chip.release(line)
            game.run_until(lambda: not game.backend.stats()[button].pressed, f"{button}'s release")
            game.host("withdraw")
        assert game.backend.status().extra["lost_edges"] == 0
    finally:
        game.close()


def test_four_presses_in_reverse_line_order_10_us_apart_are_ranked_by_time(chip):
    game = Game(game_config(chip, lines=(0, 1, 2, 3), tie_us=0.5))
    try:
        game.open_question()
        edges = chip.press_in_order([3, 2, 1, 0], gap_us=10)
        game.run_until(lambda: len(game.presses()) == 4 and game.holder() is not None, "four presses")
        ranked = sorted(game.presses(), key=lambda r: r.at)
        assert [r.button for r in ranked] == ["D", "C", "B", "A"]
        assert game.holder() == "Дельта"
        stamps = [kernel_stamp(game, b) for b in "DCBA"]
        assert stamps == sorted(stamps) and len(set(stamps)) == 4
        # the kernel read them in that order, numbered one after another
        seq = {e.ident: e.global_seqno for e in game.backend.recent}
        assert [seq[b] for b in "DCBA"] == sorted(seq[b] for b in "DCBA")
        assert all(e.before_ns >= a.before_ns + 10_000 for a, e in zip(edges, edges[1:]))
    finally:
        game.close()


def test_a_bounce_train_keeps_the_first_edges_time(chip):
    # a long debounce window: under TCG a 200 µs gap between two writes can stretch to many ms
    game = Game(game_config(chip, debounce_ms=200.0))
    try:
        game.open_question()
        edges = chip.bounce(17, 7, gap_us=200)        # press, release, press ... ends pressed
        assert edges[-1].after_ns - edges[0].before_ns < 200_000_000, "the train outlasted the window"
        # every edge is read, or counted lost: when the line's interrupt thread runs once for
        # several interrupts (a loaded TCG guest), the kernel queues one event stamped with the
        # latest of them and its request numbers skip
        lost = lambda: game.backend.lost_by_line.get(17, 0)
        game.run_until(lambda: game.holder() is not None and game.backend.stats()["A"].edges + lost() == 7,
                       "the press and its bounce")
        st = game.backend.stats()["A"]
        rec = game.presses()[0]
        first = min(e.timestamp_ns for e in game.backend.recent if e.ident == "A")
        assert rec.at == game.clock.from_monotonic_ns(first)
        assert st.presses == 1
        if lost() == 0:
            assert st.edges == 7 and st.press_bounces == 6
            assert edges[0].before_ns <= first < edges[1].before_ns
        else:
            # the first edge's time is gone with it: the stamp is a later edge's, inside the
            # train, and the host was told edges were lost (the race waited for its quiet period)
            assert edges[0].before_ns <= first <= edges[-1].after_ns
            assert game.backend.overflows >= 1
    finally:
        game.close()


def _config_file(tmp_path, chip, extra="") -> Path:
    path = tmp_path / "gpiod.toml"
    path.write_text(
        'buttons = "gpiod"\nlanguage = "en"\n\n[[teams]]\nname = "Alpha"\nbutton = "A"\n\n'
        '[[teams]]\nname = "Beta"\nbutton = "B"\n\n'
        f'[gpio]\nchip = "{chip.chip_name}"\npins = {{A = "GPIO17", B = "GPIO27"}}\nlamps = {{}}\n\n'
        f'[journal]\ndir = "{tmp_path / "journal"}"\nfsync = false\n\n[web]\nenabled = false\n' + extra,
        encoding="utf-8")
    return path


class Child:
    """A buzzer command in a child process, its output read line by line as it comes."""

    def __init__(self, argv, cwd):
        env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.lines: list[str] = []
        self._buf = b""

    def _read(self, timeout: float) -> None:
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if ready:
            data = os.read(self.proc.stdout.fileno(), 65536)
            if not data:
                raise AssertionError("the program ended:\n" + "\n".join(self.lines))
            self._buf += data
            *done, self._buf = self._buf.split(b"\n")
            self.lines += [d.decode("utf-8", "replace") for d in done]

    def wait_line(self, text: str, start: int = 0, timeout: float = WAIT_S) -> int:
        deadline = time.monotonic() + timeout
        while True:
            for i in range(start, len(self.lines)):
                if text in self.lines[i]:
                    return i
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no line with {text!r}:\n" + "\n".join(self.lines))
            self._read(min(left, 0.5))

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


@pytest.fixture(scope="module")
def buttons_check(tmp_path_factory):
    """``buzzer test-buttons`` on a chip of its own (one child process for the module: a fresh
    Python costs half a minute in the guest)."""
    gpiosim.remove_all()
    chip = gpiosim.Chip()
    tmp = tmp_path_factory.mktemp("check")
    child = Child([*BUZZER, "test-buttons", "-c", str(_config_file(tmp, chip)), "--no-lamps",
                   "--seconds", "900"], tmp)
    try:
        yield chip, child
    finally:
        child.stop()
        chip.remove()


def test_test_buttons_reports_the_race_with_the_kernels_order_stamps_and_seqnos(buttons_check):
    chip, child = buttons_check
    path = child.wait_line("Path: gpiod", timeout=CHILD_START_S)
    assert chip.chip_name in child.lines[path] and "buzzer-sim" in child.lines[path]
    child.wait_line(f"Listening on {chip.chip_name}", timeout=CHILD_START_S)
    chip.press_in_order([27, 17], gap_us=200)             # B, then A
    race = child.lines[child.wait_line("race:")]
    assert race.index("B (line 27") < race.index("A (line 17"), race
    assert "seqno 1," in race and "seqno 2," in race and "read in the kernel's order" in race, race
    assert race.endswith("B first"), race
    chip.release(27)
    chip.release(17)
    child.wait_line("B: released")
    child.wait_line("A: released")


def test_an_overflowed_kernel_buffer_is_reported(buttons_check):
    chip, child = buttons_check
    child.wait_line(f"Listening on {chip.chip_name}", timeout=CHILD_START_S)
    mark = len(child.lines)
    child.proc.send_signal(signal.SIGSTOP)           # a starved program reads nothing ...
    try:
        # ... while more edges come than the kernel buffers (16 per requested line: 64)
        chip.bounce(27, 101, gap_us=20)
    finally:
        child.proc.send_signal(signal.SIGCONT)
    line = child.lines[child.wait_line("edge buffer overflowed", start=mark)]
    assert "edges lost" in line and "line 27 (button B)" in line, line
    chip.release(27)
    mark = len(child.lines)
    chip.press(17)                                   # and the program goes on
    child.wait_line("A: pressed", start=mark)
    assert child.proc.poll() is None


def test_removing_the_chip_while_a_game_runs_is_one_notice_and_no_crash(chip):
    out = io.StringIO()
    cfg = config.build({"language": "en"}, base=game_config(chip))
    game = Game(cfg, out=out)
    try:
        game.open_question()
        chip.remove()
        game.run_until(lambda: "GPIO chip lost" in out.getvalue(), "the notice")
        st = game.loop.status()
        assert not st["connected"] and st["missing"] == ["A", "B", "C", "D"]
        # the game goes on: the host's keys still work, and the notice is not repeated
        game.host("withdraw")
        game.host("question")
        for _ in range(50):
            game.loop.step_once(0.001)
        assert out.getvalue().count("GPIO chip lost") == 1, out.getvalue()
        assert game.loop.state.question is not None and game.loop.state.question.open
    finally:
        game.close()


def _line_infos(chip, lines):
    import gpiod
    with gpiod.Chip(chip.path) as c:
        return [c.get_line_info(n) for n in lines]


def test_phone_teams_beside_wired_buttons_on_the_chip(chip):
    """Issue 27, «four teams on phones and two on wired buttons»: Альфа and Гамма press with a
    phone (phone = true), Бета and Дельта on lines 17 and 27. buzzer run's backend
    (startup.make_backend) requests the wired teams' lines only, though Альфа still has line 22
    in [gpio] pins; a wired press answers alone, and a phone press stamped 50 ms before a wired
    one answers though the kernel's edge was read first (the race waits for the phones)."""
    from controller.app.startup import make_backend
    from controller.core.events import Press
    from controller.web.attach import PhoneBridge

    teams = [{"name": "Альфа", "button": "A", "phone": True}, {"name": "Бета", "button": "B"},
             {"name": "Гамма", "button": "C", "phone": True}, {"name": "Дельта", "button": "D"}]
    cfg = config.build({"teams": teams, "buttons": "gpiod", "gpio.chip": chip.chip_name, "journal.fsync": False,
                        "gpio.pins": {"A": "GPIO22", "B": "GPIO17", "D": "GPIO27"}, "gpio.lamps": {}})
    clock = EngineClock()
    loop = Loop(cfg, engine.new_game(cfg, 1), clock, out=io.StringIO())
    seen = []
    backend = make_backend(cfg, clock, lambda ev: (seen.append(ev), loop.enqueue(ev)))
    loop.backend = backend
    bridge = PhoneBridge(loop, [t["button"] for t in cfg["teams"]])
    try:
        assert [i.used for i in _line_infos(chip, (17, 27, 22))] == [True, True, False]
        backend.start()

        def step():
            loop.step_once(0.01)
            q = loop.state.question
            return q is not None and q.holder is not None and loop.state.teams[q.holder].name

        def open_question():
            for action in ("question", "reading_done"):
                loop.enqueue(HostKey(action))
                loop.drain()
            armed = loop.state.question.armed_at
            wait_for(lambda: clock.now() > armed + 150_000_000, "the question to be armed a while")

        open_question()
        chip.press(27)
        assert wait_for(step, "Дельта's press to answer") == "Дельта"
        chip.release(27)
        loop.enqueue(HostKey("right"))
        loop.drain()

        loop.set_phone_wait(300_000_000)
        open_question()
        before = len(seen)
        chip.press(17)
        press = wait_for(lambda: next((e for e in seen[before:] if isinstance(e, Press)), None), "Бета's edge")
        assert press.button == "B"
        bridge.message({"t": "press", "button": "C", "at": press.at + clock.origin_ns - 50_000_000,
                        "unc": 2_000_000})
        assert wait_for(step, "the race to be decided") == "Гамма"
        assert {p.button for p in loop.state.question.presses} == {"B", "C"}
        chip.release(17)
    finally:
        backend.close()
