"""Clock sync with a phone: the phone clock's offset, measured to a bound (docs/inputs.md, «Phones»).

Pure values and functions: no I/O, no clock of its own.  The shell (the web process) feeds it
NTP-style round trips and asks it to convert a phone's press stamp onto the server's clock.

One round trip is four stamps: ``t0`` the phone sent the ping (phone clock), ``t1`` the server
received it and ``t2`` sent the answer (server clock), ``t3`` the phone received the answer
(phone clock).  The offset ``θ = server − phone`` at that moment lies, whatever the paths'
delays and however asymmetric they are, in ::

    t2 − t3  ≤  θ  ≤  t1 − t0          (the ping reached the server after it left, the answer
                                         reached the phone after it left)

an interval as wide as the round trip's network time ``rtt = (t3 − t0) − (t2 − t1)``; its middle
is NTP's estimate.  A window of recent round trips is kept.  The two clocks drift apart (a phone's
crystal, a browser's clock slewed by NTP): the rate is estimated from the best (lowest-RTT)
pair of round trips, one of the window's older half and one of its newer half, with its own bound (the two
intervals divided by the time between them); when that bound is not better than the physical
limit ``max_drift_ppm`` the rate is taken as 0 and the limit is its bound.  Each sample's interval
is carried to the time asked for along the estimated rate, widened by the rate's bound (plus
``drift_margin_ppm`` for a rate that wanders) times its age, and the intervals are intersected:
the offset is the middle of what is left and the **bound** is half its width.  The true offset is
inside the bound as long as the rate stays within its bound (the tests check it on synthetic
clocks with offset, drift, asymmetric delays and jitter).

A press is converted with :func:`convert`: the pointer event's own stamp ``s`` (phone clock) is
on the server clock in ``[s + lo, s + hi]``: its middle ``s + offset`` is the press's stamp and
its **uncertainty** is the sync's bound plus ``touch_latency`` (the finger touched the glass up
to that long before the browser stamped the event): the touch is inside ``stamp ± uncertainty``.
The stamp stays the event's own time (not moved back by the latency), so a press is judged
against the game's deadlines (armed, early, late) as a wired button's edge is, and the
latency, which differs between phones, only widens the interval.
A stamp is never trusted beyond what the sync allows: an interval reaching past the server's
receipt of the press is cut there, a stamp earlier than ``handler_max`` before the phone
sent the press message (the page sends it from the event's handler: an older stamp was not made
by a touch then, or the phone was busy) is moved up to that limit and its uncertainty widened by
as much (at most ``handler_max``: a busy phone's handler up to twice ``handler_max`` late keeps
its touch inside), and a message that claims to have been sent longer
before its receipt than the phone's path allows (the slowest phone-to-server delay of the kept
round trips, :func:`upstream`, plus the bound and ``held_margin``: a press held back, or a sending
time made up to date a press back) is taken as sent at that limit, its stamp moved up with it
and its uncertainty widened by as much (at most ``handler_max``: an honest message may have met a
spike of the Wi-Fi slower than every round trip, and its touch must stay inside);
all three are flagged.  A press's stamp is thus never earlier than ``handler_max`` plus the
phone's delay before this computer had it, and its interval reaches back at most twice
``handler_max`` (and the path's widening) more.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

PPM = 1_000_000


@dataclass(frozen=True, slots=True)
class Sample:
    """One round trip: phone send ``t0``, server receive ``t1``, server send ``t2``, phone
    receive ``t3`` (ns; ``t0``, ``t3`` on the phone clock, ``t1``, ``t2`` on the server's)."""

    t0: int
    t1: int
    t2: int
    t3: int

    @property
    def rtt(self) -> int:
        return (self.t3 - self.t0) - (self.t2 - self.t1)

    @property
    def lo(self) -> int:
        """The least offset (server − phone) this round trip allows."""
        return self.t2 - self.t3

    @property
    def hi(self) -> int:
        """The greatest offset it allows."""
        return self.t1 - self.t0

    @property
    def at(self) -> int:
        """When it was measured, on the server clock."""
        return (self.t1 + self.t2) // 2


@dataclass(frozen=True, slots=True)
class SyncRules:
    """The sync's numbers (``[phones]`` config keys, in ns and ppm)."""

    window: int = 32
    max_drift_ppm: float = 500.0
    drift_margin_ppm: float = 20.0
    touch_latency_ns: int = 20_000_000
    handler_max_ns: int = 100_000_000
    held_margin_ns: int = 10_000_000
    """Beyond the slowest path a round trip measured and the bound: how much longer a press
    message may have been on its way (``[phones] wait_margin_ms``, the race's margin too)."""


@dataclass(frozen=True, slots=True)
class Sync:
    """The round trips kept (newest last) and how many were refused (a negative RTT: clocks
    that moved backwards, or a forged answer)."""

    samples: tuple[Sample, ...] = ()
    refused: int = 0


@dataclass(frozen=True, slots=True)
class Estimate:
    """The offset (server − phone, ns) at ``at`` (server clock) and its bound: the true offset
    is in ``offset ± bound``; the drift (ppm, the offset's rate) and its bound;
    ``consistent`` is False when the samples' intervals did not meet (then only the newest
    one is used)."""

    at: int
    offset: int
    bound: int
    drift_ppm: float
    drift_bound_ppm: float
    rtt_min: int
    consistent: bool = True

    @property
    def lo(self) -> int:
        return self.offset - self.bound

    @property
    def hi(self) -> int:
        return self.offset + self.bound


@dataclass(frozen=True, slots=True)
class Converted:
    """A press on the server clock: the touch was in ``at ± unc`` (ns); ``flags`` name what
    the plausibility checks changed (``"after_receipt"``, ``"too_old"``)."""

    at: int
    unc: int
    flags: tuple[str, ...] = ()


def add(sync: Sync, sample: Sample, rules: SyncRules) -> Sync:
    """``sync`` with ``sample`` kept (the oldest dropped past ``rules.window``); a round trip
    with a negative network time cannot be real and is counted as refused."""
    if sample.rtt < 0 or sample.t3 < sample.t0 or sample.t2 < sample.t1:
        return Sync(sync.samples, sync.refused + 1)
    kept = sync.samples + (sample,)
    if len(kept) > rules.window:
        kept = kept[len(kept) - rules.window:]
    return Sync(kept, sync.refused)


def drift(samples: Sequence[Sample], rules: SyncRules) -> tuple[float, float]:
    """The offset's rate (ppm) and its bound, from the pair of round trips (one of each half of
    the window) that bounds it best; (0, ``max_drift_ppm``) when that is not better than the physical limit."""
    limit = rules.max_drift_ppm
    if len(samples) < 4:
        return 0.0, limit
    ordered = sorted(samples, key=lambda s: s.at)
    half = len(ordered) // 2
    # the pair (one of each half) whose intervals pin the rate down best
    span, a, b = max(((y.at - x.at) / (x.rtt + y.rtt + 1), x, y)
                     for x in ordered[:half] for y in ordered[half:])
    span = b.at - a.at
    if span <= 0:
        return 0.0, limit
    rate = ((b.lo + b.hi) - (a.lo + a.hi)) / 2 / span * PPM
    err = (a.rtt + b.rtt) / 2 / span * PPM
    # what the round trips allow, within the physical limit
    lo, hi = max(rate - err, -limit), min(rate + err, limit)
    if lo > hi or hi - lo >= 2 * limit:
        return 0.0, limit
    return (lo + hi) / 2, (hi - lo) / 2


def estimate(sync: Sync, at: int, rules: SyncRules) -> Estimate | None:
    """The offset at server time ``at`` and its bound; None before the first round trip."""
    samples = sync.samples
    if not samples:
        return None
    rate, err = drift(samples, rules)
    widen = (err + rules.drift_margin_ppm) / PPM
    lo, hi = -(1 << 62), 1 << 62
    for s in samples:
        age = at - s.at
        shift = rate * age / PPM
        grow = widen * abs(age)
        lo = max(lo, s.lo + shift - grow)
        hi = min(hi, s.hi + shift + grow)
    consistent = lo <= hi
    if not consistent:   # the intervals do not meet: trust the newest round trip alone
        s = samples[-1]
        grow = (rules.max_drift_ppm + rules.drift_margin_ppm) / PPM * abs(at - s.at)
        lo, hi = s.lo - grow, s.hi + grow
    offset = (lo + hi) / 2
    return Estimate(at, int(round(offset)), int(-(-(hi - lo) // 2)), rate, err,
                    min(s.rtt for s in samples), consistent)


def upstream(sync: Sync, est: Estimate, half_life_ns: int = 0) -> int:
    """The longest phone-to-server delay of the window's round trips (ns, at most): a ping
    left at ``t0 + θ`` and came at ``t1``, ``θ`` at least ``est.lo``.

    With ``half_life_ns`` (the races' wait, ``[phones] delay_half_life_s``) each round trip's
    delay counts for less the older it is (halved every ``half_life_ns`` before the newest
    round trip): one slow path long ago does not keep every race waiting for it while the
    phone's recent paths are fast; the newest round trip counts in full.  Without it (the
    plausibility check of :func:`convert`) the slowest path of the window counts as it was."""
    if not sync.samples:
        return 0
    newest = max(s.at for s in sync.samples)

    def delay(s: Sample) -> float:
        d = max(0, s.t1 - (s.t0 + est.lo))
        return d * 0.5 ** ((newest - s.at) / half_life_ns) if half_life_ns > 0 else d

    return int(math.ceil(max(delay(s) for s in sync.samples)))


def convert(sync: Sync, stamp: int, sent: int, received: int, rules: SyncRules) -> Converted | None:
    """A press stamped ``stamp`` on the phone (its pointer event's time), sent at ``sent``
    (phone clock) and received at ``received`` (server clock): the touch on the server clock
    with its uncertainty and the plausibility flags (the module's docstring).  None before
    any round trip."""
    flags: list[str] = []
    if stamp > sent:
        flags.append("after_sending")
        stamp = sent
    busy = 0
    if stamp < sent - rules.handler_max_ns:
        flags.append("too_old")
        # a busy phone (its page's thread blocked, a battery saver) may truly run the handler that
        # late: its touch may be up to ``moved`` earlier than the moved stamp.  The uncertainty
        # says so, believed up to ``handler_max`` more (a handler up to twice it late keeps its
        # touch inside; a forged stamp reaches back twice ``handler_max`` at most, never seconds)
        busy = min(sent - rules.handler_max_ns - stamp, rules.handler_max_ns)
        stamp = sent - rules.handler_max_ns
    first = estimate(sync, received, rules)
    if first is None:
        return None
    # the message left at sent + θ, θ ≤ first.hi, and the path takes at most ``held`` to here
    held = upstream(sync, first) + first.bound + rules.held_margin_ns
    late = received - held - (sent + first.hi)
    widen = 0
    if late > 0:
        flags.append("held")
        stamp, sent = stamp + late, sent + late
        # an honest message may truly have been that slow (a spike of the Wi-Fi beyond every
        # round trip measured): its touch may be up to ``late`` earlier than the moved stamp.
        # The uncertainty says so, believed up to ``handler_max`` as a late handler is: a press
        # moved up never names a winner its true touch would not have, a dated-back one gains a
        # tie at most, within that limit
        widen = min(late, rules.handler_max_ns)
    est = estimate(sync, stamp + first.offset, rules)
    at, unc = stamp + est.offset, est.bound + rules.touch_latency_ns + widen + busy
    if sent + est.lo > received or at - est.bound > received:
        # the press cannot have been made (or sent) after the server had it: its stamp is the
        # receipt at the latest, with the same uncertainty
        flags.append("after_receipt")
        at = min(at, received)
    return Converted(at, unc, tuple(flags))
