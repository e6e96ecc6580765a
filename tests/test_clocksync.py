"""Clock sync with a phone (controller/core/clocksync.py) on synthetic clocks: the true offset is
always inside the declared bound, whatever the offset, drift, path asymmetry and jitter."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

from controller.core import clocksync as cs

MS = 1_000_000
S = 1_000_000_000
RULES = cs.SyncRules(window=32, max_drift_ppm=500.0, drift_margin_ppm=20.0,
                     touch_latency_ns=20 * MS, handler_max_ns=100 * MS)


class Phone:
    """A phone whose clock reads ``T * (1 - drift) - offset`` at server time ``T``: the true
    offset (server − phone) at ``T`` is ``offset + T * drift``."""

    def __init__(self, offset_ns: int, drift_ppm: float = 0.0):
        self.offset = offset_ns
        self.drift = drift_ppm / 1e6

    def clock(self, server_ns: float) -> int:
        return int(round(server_ns * (1 - self.drift) - self.offset))

    def true_offset(self, server_ns: float) -> float:
        return server_ns - server_ns * (1 - self.drift) + self.offset

    def ping(self, at: int, up: int, down: int, hold: int = 100_000) -> cs.Sample:
        t1 = at + up
        t2 = t1 + hold
        return cs.Sample(self.clock(at), t1, t2, self.clock(t2 + down))


def run(phone: Phone, delays, every=1 * S, start=10 * S, rules=RULES) -> tuple[cs.Sync, int]:
    sync, t = cs.Sync(), start
    for up, down in delays:
        sync = cs.add(sync, phone.ping(t, up, down), rules)
        t += every
    return sync, t


def within(phone: Phone, sync: cs.Sync, at: int, rules=RULES) -> cs.Estimate:
    est = cs.estimate(sync, at, rules)
    assert est is not None
    err = abs(est.offset - phone.true_offset(at))
    assert err <= est.bound + 1, f"true offset {err / MS:.3f} ms off, declared ±{est.bound / MS:.3f} ms"
    return est


def test_no_round_trip_no_estimate():
    assert cs.estimate(cs.Sync(), 0, RULES) is None
    assert cs.convert(cs.Sync(), 0, 0, 0, RULES) is None


def test_a_plain_offset_is_found_to_the_round_trip():
    phone = Phone(offset_ns=-3_600 * S + 123_456_789)   # a phone clock an hour and a bit off
    sync, t = run(phone, [(5 * MS, 5 * MS)] * 8)
    est = within(phone, sync, t)
    assert est.bound <= 6 * MS     # half the round trip, and a little for the rate's bound
    assert abs(est.offset - phone.true_offset(t)) < 1 * MS


def test_an_asymmetric_path_is_inside_the_bound_never_outside():
    # 60 ms up, 5 ms down: the middle of the interval is 27.5 ms wrong, the bound says so
    phone = Phone(offset_ns=250 * MS)
    sync, t = run(phone, [(60 * MS, 5 * MS)] * 10)
    est = within(phone, sync, t)
    assert est.bound >= 27 * MS


def test_the_best_round_trips_set_the_bound_under_jitter():
    rng = random.Random(7)
    phone = Phone(offset_ns=-42 * MS)
    delays = [(rng.uniform(5, 150) * MS, rng.uniform(5, 150) * MS) for _ in range(32)]
    sync, t = run(phone, [(int(u), int(d)) for u, d in delays])
    est = within(phone, sync, t)
    mean_half = sum(u + d for u, d in delays) / len(delays) / 2
    assert est.bound < mean_half / 3          # not the average round trip: the best ones
    for k in range(40):                       # and at every moment around it
        within(phone, sync, t - 30 * S + k * S)


@pytest.mark.parametrize("drift_ppm", [-300.0, -50.0, 0.0, 40.0, 120.0, 450.0])
def test_drift_is_tracked_and_the_bound_holds(drift_ppm):
    rng = random.Random(int(drift_ppm) + 1000)
    phone = Phone(offset_ns=17 * MS, drift_ppm=drift_ppm)
    delays = [(int(rng.uniform(3, 30) * MS), int(rng.uniform(3, 30) * MS)) for _ in range(120)]
    sync, t = run(phone, delays, every=2 * S)
    est = within(phone, sync, t)
    assert abs(est.drift_ppm - drift_ppm) <= est.drift_bound_ppm + 1e-6
    assert est.drift_bound_ppm < RULES.max_drift_ppm   # the window's round trips measure the rate
    assert est.bound < 10 * MS
    # a press 5 s after the last round trip: the offset there, still inside the bound
    within(phone, sync, t + 5 * S)


def test_without_the_rate_estimate_the_physical_limit_bounds_the_drift():
    phone = Phone(offset_ns=0, drift_ppm=400.0)
    sync, t = run(phone, [(5 * MS, 5 * MS)] * 2, every=10 * S)   # two round trips: no rate
    est = within(phone, sync, t + 20 * S)
    assert est.drift_bound_ppm == RULES.max_drift_ppm


def test_a_round_trip_with_negative_network_time_is_refused():
    sync = cs.add(cs.Sync(), cs.Sample(t0=1000, t1=500, t2=10_000, t3=2000), RULES)
    assert sync.samples == () and sync.refused == 1


def test_the_window_keeps_the_newest_round_trips():
    phone = Phone(0)
    sync, _ = run(phone, [(1 * MS, 1 * MS)] * 50)
    assert len(sync.samples) == RULES.window


def press(phone: Phone, sync: cs.Sync, touch: int, latency: int, handler: int, up: int, rules=RULES):
    stamp = phone.clock(touch + latency)          # the browser stamps the event after the touch
    sent = phone.clock(touch + latency + handler)
    received = touch + latency + handler + up
    return cs.convert(sync, stamp, sent, received, rules), received


@pytest.mark.parametrize("latency_ms", [0, 8, 20])
def test_a_converted_press_holds_the_touch_within_its_uncertainty(latency_ms):
    rng = random.Random(latency_ms)
    phone = Phone(offset_ns=-987 * MS, drift_ppm=60.0)
    sync, t = run(phone, [(int(rng.uniform(4, 40) * MS), int(rng.uniform(4, 40) * MS)) for _ in range(40)])
    touch = t + 700 * MS
    c, _ = press(phone, sync, touch, latency_ms * MS, handler=3 * MS, up=25 * MS)
    assert c.flags == ()
    assert abs(c.at - touch) <= c.unc
    est = cs.estimate(sync, touch, RULES)
    # the sync bound (at the press, a few ms from the touch) and the latency
    assert c.unc <= est.bound + RULES.touch_latency_ns + MS // 10


def test_a_stamp_after_the_receipt_is_cut_at_the_receipt_and_flagged():
    phone = Phone(offset_ns=0)
    sync, t = run(phone, [(2 * MS, 2 * MS)] * 8)
    received = t + 1 * S
    # a client that claims its press was made 500 ms after the server had it
    c = cs.convert(sync, phone.clock(received + 500 * MS), phone.clock(received + 500 * MS), received, RULES)
    assert "after_receipt" in c.flags
    assert c.at <= received


def test_a_stamp_older_than_the_handler_allows_is_moved_up_and_flagged():
    phone = Phone(offset_ns=5 * MS)
    sync, t = run(phone, [(2 * MS, 2 * MS)] * 8)
    sent = t + 1 * S
    # a client that sends a press «made» 3 s before it sent it, to win every race
    c = cs.convert(sync, phone.clock(sent - 3 * S), phone.clock(sent), sent + 2 * MS, RULES)
    assert "too_old" in c.flags
    # moved up to the limit; its interval reaches back at most handler_max more (a busy phone's
    # honest late handler), never the 3 s it claims
    assert c.at >= sent - RULES.handler_max_ns - 5 * MS
    assert c.at - c.unc >= sent - 2 * RULES.handler_max_ns - RULES.touch_latency_ns - 5 * MS


@pytest.mark.parametrize("handler_ms", [0, 60, 99, 101, 130, 180, 199])
def test_a_busy_phone_s_late_handler_keeps_its_touch_inside_its_uncertainty(handler_ms):
    # found by benchmarks/phones.py (phones_outside_unc: 2 of 1560, both «too_old»): on a loaded
    # machine the simulated phone's handler sent two presses more than handler_max (100 ms) after
    # their touch events; the stamps were moved up to that limit with their uncertainty unchanged,
    # so the true touches fell outside ``at ± unc`` and the arbiter could have named the other
    # team without a tie.  A moved stamp now widens its uncertainty by as much as it moved
    # (at most handler_max): a handler up to twice handler_max late keeps its touch inside
    rng = random.Random(handler_ms)
    phone = Phone(offset_ns=-5 * S, drift_ppm=-50.0)
    sync, t = run(phone, [(int(rng.uniform(5, 25) * MS), int(rng.uniform(5, 15) * MS)) for _ in range(20)],
                  every=2 * S)
    touch = t + 1500 * MS                                   # well after the last exchange
    for latency in (0, 12 * MS, RULES.touch_latency_ns):
        c, _ = press(phone, sync, touch, latency, handler=handler_ms * MS, up=8 * MS)
        assert ("too_old" in c.flags) == (handler_ms * MS > RULES.handler_max_ns)   # event -> handler
        assert abs(c.at - touch) <= c.unc, (handler_ms, latency / MS, (c.at - touch) / MS, c.unc / MS)
    # not wider than it must be: the sync's bound, the latency, and what the stamp was moved by
    est = cs.estimate(sync, touch, RULES)
    moved = max(0, handler_ms * MS - RULES.handler_max_ns)
    assert c.unc <= est.bound + RULES.touch_latency_ns + moved + MS


def test_a_press_message_held_back_or_dated_back_is_moved_up_to_the_path_and_flagged():
    phone = Phone(offset_ns=-42 * MS)
    sync, t = run(phone, [(3 * MS, 2 * MS)] * 8)
    received = t + 1 * S
    # a client that claims it made and sent its press 3 s before the server had it (a message held
    # back, or a sending time made up: the page could not know when the others pressed then)
    c = cs.convert(sync, phone.clock(received - 3 * S), phone.clock(received - 3 * S), received, RULES)
    est = cs.estimate(sync, received, RULES)
    path = cs.upstream(sync, est) + est.bound + RULES.held_margin_ns
    assert "held" in c.flags and "too_old" not in c.flags
    assert received - path - est.bound - MS // 10 <= c.at <= received
    # an honest press is not touched: a path as slow as the slowest round trip measured
    honest, _ = press(phone, sync, received, 10 * MS, handler=2 * MS, up=3 * MS)
    assert honest.flags == ()


def test_an_honest_press_slower_than_every_round_trip_keeps_its_touch_inside_its_uncertainty():
    # found by benchmarks/phones.py: a press whose message met a Wi-Fi spike (its path longer than
    # every round trip measured so far, plus the bound and the margin) was moved up as «held» with
    # its uncertainty unchanged: its true touch fell outside ``at ± unc``, and the arbiter could
    # name the other team without a tie
    phone = Phone(offset_ns=-42 * MS)
    sync, t = run(phone, [(8 * MS, 3 * MS)] * 5)
    touch = t + 500 * MS
    est = cs.estimate(sync, touch, RULES)
    allowed = cs.upstream(sync, est) + est.bound + RULES.held_margin_ns
    c, received = press(phone, sync, touch, 10 * MS, handler=2 * MS, up=allowed + 60 * MS)
    assert "held" in c.flags                        # still bounded and said
    assert abs(c.at - touch) <= c.unc               # and honest: the touch is inside
    # a message dated back seconds reaches back at most handler_max more: never seconds
    forged = cs.convert(sync, phone.clock(received - 3 * S), phone.clock(received - 3 * S), received, RULES)
    assert "held" in forged.flags
    reach = allowed + RULES.handler_max_ns + RULES.touch_latency_ns + 2 * est.bound + MS
    assert received - (forged.at - forged.unc) <= reach < 1 * S


def test_upstream_delay_is_the_longest_of_the_window():
    phone = Phone(offset_ns=3 * MS)
    sync, t = run(phone, [(10 * MS, 2 * MS), (80 * MS, 2 * MS), (12 * MS, 2 * MS)] * 3)
    est = cs.estimate(sync, t, RULES)
    up = cs.upstream(sync, est)
    assert 80 * MS <= up <= 80 * MS + 2 * est.bound + 1


@settings(max_examples=200, deadline=None)
@given(offset=st.integers(-10**13, 10**13), drift_ppm=st.floats(-450, 450),
       seed=st.integers(0, 2**16), every_ms=st.integers(200, 5000), n=st.integers(1, 80),
       later_ms=st.integers(0, 20_000))
def test_the_true_offset_is_always_inside_the_bound(offset, drift_ppm, seed, every_ms, n, later_ms):
    rng = random.Random(seed)
    phone = Phone(offset_ns=offset, drift_ppm=drift_ppm)
    delays = [(int(rng.uniform(1, 150) * MS), int(rng.uniform(1, 150) * MS)) for _ in range(n)]
    sync, t = run(phone, delays, every=every_ms * MS)
    within(phone, sync, t + later_ms * MS)
