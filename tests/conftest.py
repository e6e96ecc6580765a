"""Fixtures shared by the test modules: gpiozero's mock pin factory, a pinned clock
that the mock pins, the pin factory and the engine clock all read, and the one
harness that drives any game through the engine (``played``, tests/harness.py)."""

from __future__ import annotations

import ast_guard
import gpiozero.pins.mock
import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory
from harness import Played

import controller.app.config  # noqa: F401  registers the config's functions (controller/core/configs.py)
from controller.inputs.clock import EngineClock
from controller.inputs import stall

ast_guard.install()   # Python 3.11 < 3.11.8: no INTERNALERROR from a parse (tests/ast_guard.py)

BASE_S = 5000.0  # the fake monotonic clock starts here (s); engine time 0


class FakeTime:
    """The monotonic clock gpiozero's mock pins and factory read; a test sets ``ms``."""

    def __init__(self):
        self.ms = 0.0

    def __call__(self):
        return BASE_S + self.ms / 1000.0

    def engine_clock(self) -> EngineClock:
        """An engine clock whose zero is BASE_S on this clock."""
        return EngineClock(origin_ns=int(BASE_S * 1e9), source=lambda: round(self() * 1e9))


@pytest.fixture
def factory():
    """gpiozero's MockFactory as the pin factory, reset afterwards."""
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()
    Device.pin_factory = None


@pytest.fixture
def fake_time(monkeypatch):
    """A pinned clock for the mock pins (edge ticks) and, via ``engine_clock()``, the engine."""
    fake = FakeTime()
    monkeypatch.setattr(gpiozero.pins.mock, "monotonic", fake)
    # on a pinned clock no thread waits for a CPU: the real measure (tests/test_stall.py)
    # would hold decisions back by however long this machine kept the test waiting
    monkeypatch.setattr(stall.CpuStall, "since_mark", lambda self: 0)
    return fake


@pytest.fixture
def played():
    """A factory of games driven through the engine as the shell does:
    ``played(config_data, seed=1, unit=..., tap_ns=..., wakeups=...)`` gives a
    :class:`harness.Played` (a game's test module subclasses it for its set-up)."""
    return Played
