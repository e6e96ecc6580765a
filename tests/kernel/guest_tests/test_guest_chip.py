"""In the guest: the kernel gives what the GPIO tests rely on, and the gpio-sim
helpers do what they say (a simulated chip, its lines' levels, its removal)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from kernel import gpiosim


@pytest.fixture
def chip():
    c = gpiosim.Chip()
    yield c
    c.remove()


def test_the_guest_has_configfs_gpio_sim_schedstat_and_the_cpu_controller():
    assert Path("/sys/kernel/config/gpio-sim").is_dir()
    # per-thread schedstat: controller/inputs/stall.py reads it
    fields = Path(f"/proc/self/task/{os.getpid()}/schedstat").read_text().split()
    assert len(fields) == 3
    assert "cpu" in Path("/sys/fs/cgroup/cgroup.controllers").read_text().split()
    assert os.cpu_count() >= 2
    assert os.access(os.getcwd(), os.W_OK), "the command's working directory must be writable"


def test_a_chip_is_a_character_device_with_the_pi_line_names(chip):
    assert os.path.exists(chip.path) and chip.path == f"/dev/gpiochip{chip.number}"
    assert chip.lines == 28
    # the kernel lists the lines' names (gpio-line-names) under the bank's configfs entries
    assert (gpiosim.CONFIGFS / chip.name / "gpio-bank0" / "line17" / "name").read_text().strip() == "GPIO17"


def test_press_and_release_set_the_line_level(chip):
    assert chip.value(5) == 1            # released: pulled up, as a Pi button's pin idles high
    edge = chip.press(5)
    assert chip.value(5) == 0 and edge.pressed
    assert edge.before_ns <= edge.after_ns
    chip.release(5)
    assert chip.value(5) == 1


def test_a_sequence_keeps_its_order_and_gaps(chip):
    edges = chip.sequence([(3, "press", 0), (1, "press", 200), (0, "press", 200), (2, "press", 200)])
    assert [e.line for e in edges] == [3, 1, 0, 2]
    starts = [e.before_ns for e in edges]
    assert all(b - a >= 200_000 for a, b in zip(starts, starts[1:]))
    assert [chip.value(n) for n in (0, 1, 2, 3)] == [0, 0, 0, 0]


def test_remove_takes_the_device_away():
    c = gpiosim.Chip(lines=4)
    path = c.path
    assert os.path.exists(path)
    c.remove()
    deadline = time.monotonic() + 10
    while os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.01)  # devtmpfs removes the node asynchronously (polling, bounded)
    assert not os.path.exists(path)
    assert not (gpiosim.CONFIGFS / c.name).exists()
