"""The phones' hub (controller/web/phones.py) on its own: a simulated phone's clock exchanges fed
to it on a clock of the test's, and the races' wait it sets (docs/phones.md, «The wait»)."""

from __future__ import annotations

import pytest

from controller.app import config as config_mod
from controller.core.errors import ConfigError
from controller.web.phones import MS, Hub

S = 1_000_000_000
OFFSET = 7 * 24 * 3600 * S        # the phone's clock is a week behind this computer's


class Clock:
    def __init__(self) -> None:
        self.now = 1000 * S

    def __call__(self) -> int:
        return self.now


def hub_with(**phones) -> tuple[Hub, Clock, list[int]]:
    settings = dict(config_mod.build({})["phones"], **phones)
    clock, waits = Clock(), []
    hub = Hub(settings, {"A": "a" * 32}, send_wait=waits.append, clock=clock)
    return hub, clock, waits


class SimPhone:
    """A phone whose pings take ``up`` ns to come and whose answers ``down`` ns to go back."""

    def __init__(self, hub: Hub, clock: Clock) -> None:
        self.hub, self.clock = hub, clock
        self.phone = hub.join("A")
        self.done: list | None = None

    def exchange(self, up_ms: float, down_ms: float = 5.0) -> None:
        sent = self.clock.now                        # this computer's clock when the phone sends
        c = (sent - OFFSET) / MS
        msg = {"t": "sync", "c": c, **({"d": self.done} if self.done else {})}
        self.clock.now = received = sent + int(up_ms * MS)
        reply = self.hub.sync(self.phone, msg, received)
        reply = self.hub.answered(self.phone, reply, received + MS // 10)
        back = received + MS // 10 + int(down_ms * MS)
        self.done = [reply["c"], (back - OFFSET) / MS]

    def every(self, seconds: float, up_ms: float, n: int) -> None:
        for _ in range(n):
            self.exchange(up_ms)
            self.clock.now += int(seconds * S)


def test_a_slow_path_long_ago_stops_keeping_the_races_waiting():
    """A phone whose pings took 150 ms once and 10 ms ever since: the races waited for its slow
    path at first; five half-lives later the wait is near what its recent paths need, and never
    above [phones] wait_max_ms."""
    hub, clock, waits = hub_with(delay_half_life_s=10.0, wait_max_ms=400.0)
    phone = SimPhone(hub, clock)
    phone.every(0.2, 10.0, 5)                    # the join's quick exchanges: a fast path
    phone.exchange(150.0)                        # one Wi-Fi spike on the way up
    phone.exchange(10.0)                         # (completes the slow one)
    assert hub.wait >= 150 * MS                  # the races wait for a press on that path
    phone.every(2.0, 10.0, 25)                   # 50 s: five half-lives of fast exchanges
    # the spike is still among the round trips kept: only its age makes it count less
    assert any(s.t1 - (s.t0 + OFFSET) >= 150 * MS for s in phone.phone.sync.samples)
    assert 10 * MS < hub.wait < 50 * MS, hub.wait / MS   # the 10 ms path, its bound and the margin
    assert max(waits) <= 400 * MS                # within the cap all along


def test_without_the_decay_the_spike_would_still_count():
    """The same phone with a half-life longer than the game: the spike, still in the window,
    still keeps the wait at its slow path (what the decay above changes)."""
    hub, clock, _ = hub_with(delay_half_life_s=3600.0, wait_max_ms=400.0)
    phone = SimPhone(hub, clock)
    phone.every(0.2, 10.0, 5)
    phone.exchange(150.0)
    phone.every(2.0, 10.0, 25)
    assert hub.wait >= 150 * MS


def test_the_wait_is_capped_by_wait_max_ms():
    hub, clock, waits = hub_with(delay_half_life_s=60.0, wait_max_ms=100.0)
    phone = SimPhone(hub, clock)
    phone.every(0.2, 10.0, 5)
    phone.exchange(150.0)
    phone.exchange(10.0)
    assert hub.wait == 100 * MS and max(waits) == 100 * MS


@pytest.mark.parametrize("value", [0.0, -1.0, 5000.0, "a minute"])
def test_the_half_life_is_validated(value):
    with pytest.raises(ConfigError) as err:
        config_mod.build({"phones": {"delay_half_life_s": value}})
    assert "phones.delay_half_life_s" in str(err.value)


def test_the_half_life_has_a_documented_default():
    assert config_mod.build({})["phones"]["delay_half_life_s"] == 60.0


def test_the_hub_tells_which_teams_have_a_phone_joined():
    """What the game's status needs for «Нет телефона»: the teams with a phone, told on each change."""
    settings = dict(config_mod.build({})["phones"])
    told = []
    hub = Hub(settings, {"A": "a" * 32, "B": "b" * 32}, clock=Clock(), send_joined=told.append)
    first = hub.join("A")
    second = hub.join("A")                       # a second phone of the same team: no change to tell
    hub.join("B")
    hub.leave(first)
    hub.leave(second)
    assert told == [["A"], ["A", "B"], ["B"]]


def _hub_taking_presses(**phones):
    settings = dict(config_mod.build({})["phones"], **phones)
    clock, presses = Clock(), []
    hub = Hub(settings, {"A": "a" * 32}, send_press=lambda *a: presses.append(a), clock=clock)
    return hub, clock, presses


def _press(sim: SimPhone, touch: int, n: int = 1):
    """The phone's press message for a touch at this computer's ``touch``, sent 2 ms later and
    here 10 ms after that (its reply: None while it is kept)."""
    msg = {"t": "press", "at": (touch - OFFSET) / MS, "sent": (touch + 2 * MS - OFFSET) / MS, "n": n}
    sim.clock.now = touch + 12 * MS
    return sim.hub.press(sim.phone, msg, sim.clock.now)


def test_a_press_before_the_first_clock_exchange_is_kept_and_reaches_the_game_with_its_touch():
    """A tap in the moment after the page opens, before any round trip is done: it used to be
    refused («Часы ещё не сверены: нажмите ещё раз»); it is kept, and once the first exchange is
    done it reaches the game stamped at its touch (within its uncertainty) and the phone hears
    «принято ±N мс»."""
    hub, clock, presses = _hub_taking_presses()
    sim = SimPhone(hub, clock)
    touch = clock.now + 50 * MS
    assert _press(sim, touch) is None                 # kept: nothing for the phone or the game yet
    assert presses == [] and hub.released(sim.phone, clock.now) == []
    sim.exchange(8.0)                                 # answered, not yet done
    assert hub.released(sim.phone, clock.now) == [] and presses == []
    sim.exchange(8.0)                                 # its answer's arrival told: one round trip done
    answers = hub.released(sim.phone, clock.now)
    assert [a["ok"] for a in answers] == [True] and answers[0]["n"] == 1
    assert len(presses) == 1
    button, at, unc, flags = presses[0]
    assert button == "A" and abs(at - touch) <= unc, ((at - touch) / MS, unc / MS)
    assert answers[0]["unc_ms"] == round(unc / MS, 1) and sim.phone.refused == 0
    assert hub.released(sim.phone, clock.now) == []   # answered once


def test_a_kept_press_whose_exchange_never_comes_is_refused_after_first_sync_wait_s():
    hub, clock, presses = _hub_taking_presses(first_sync_wait_s=3.0)
    sim = SimPhone(hub, clock)
    assert _press(sim, clock.now, n=7) is None
    clock.now += 2 * S
    assert hub.released(sim.phone, clock.now) == []   # still within the wait
    clock.now += 2 * S
    assert hub.released(sim.phone, clock.now) == [{"t": "press", "n": 7, "ok": False, "why": "sync"}]
    assert presses == [] and sim.phone.refused == 1
    sim.exchange(8.0)
    sim.exchange(8.0)
    assert hub.released(sim.phone, clock.now) == [] and presses == []   # not taken late after all


def test_a_page_tapping_fast_before_its_first_exchange_keeps_its_latest_presses():
    hub, clock, presses = _hub_taking_presses()
    sim = SimPhone(hub, clock)
    start = clock.now
    replies = [_press(sim, start + k * 20 * MS, n=k + 1) for k in range(6)]
    assert replies[:4] == [None] * 4
    assert replies[4:] == [{"t": "press", "n": 1, "ok": False, "why": "sync"},
                           {"t": "press", "n": 2, "ok": False, "why": "sync"}]
    sim.exchange(8.0)
    sim.exchange(8.0)
    assert [a["n"] for a in hub.released(sim.phone, clock.now) if a["ok"]] == [3, 4, 5, 6]
    assert len(presses) == 4
