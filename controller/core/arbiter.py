"""The arbiter: who pressed first, decided by edge timestamps.

Pure functions over an immutable :class:`Arbiter` value.  A mode *offers* every
eligible press to the arbiter; the arbiter names a winner only once nothing
that arrives later could still be earlier.  What "later" means depends on the
input path, and every press says which path it came by (see
:class:`~controller.core.events.Press`):

* **an ordered stream** (``stream``: the serial box -- one queue for every
  button, sequence numbers, gaps replayed before anything after them is
  delivered).  The first edge received *is* the earliest, so the winner is
  known at once; the arbiter waits only for an edge with the very same
  timestamp (an exact tie), and not even that once a later edge has arrived::

      decide_at = delivery of the first later edge, or
                  delivery of the first edge + its ``quiet`` (the tie wait)

* **anything else** (GPIO callbacks, the keyboard, a script): an edge stamped
  earlier may be delivered later, so the arbiter waits the settle window after
  the earliest edge *and* each press's ``quiet`` after its delivery::

      decide_at = max(min(edge times) + settle,
                      max(delivery + quiet))

  The settle window covers a late delivery of the earlier edge; the quiet
  period covers callbacks that run in file-descriptor order instead of time
  order (lgpio reads near-simultaneous edges of different lines that way):
  the earlier edge's callback, following the later one's within ``quiet``,
  still takes part.

Both rules use only what the events carry, so a replay decides the same.  A
decision once made is never taken back: a press delivered after it is late.

Exact timestamp ties are broken by a rule: ``random`` (a draw seeded by the
game's logged seed and how many questions were announced, so a replay draws the same) or
``order`` (the button listed first wins).  A press may say that its stamps have a
resolution (``Press.tie``, the GPIO interrupt's, ``[gpio] tie_us``): presses less than
that after the earliest are tied with it, exactly as equal stamps are, and the same rule
breaks the tie (the presses after the tied group follow in edge order).

A press may also carry its stamp's uncertainty (``Press.unc``: a phone's press, whose stamp is
known only to the clock sync's bound and the touch-to-event latency): its edge was somewhere in
``at ± unc``.  When the interval of the earliest press overlaps another's, the stamps cannot say
who was first: the race is a **tie within ±N ms** (:func:`uncertain`), resolved by
``[phones] uncertain_tie``: ``lot`` breaks it as an exact tie is broken (``tie_rule``, among
the presses whose intervals overlap the earliest's), ``rearm`` names nobody and the game
re-arms the buttons (:mod:`controller.games.race`).  Presses without an uncertainty (wired
buttons) decide exactly as before.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from controller.core.events import NS_PER_MS, Press


@dataclass(frozen=True, slots=True)
class ArbiterRules:
    """The arbiter's rules of one game, typed once from the validated config.

    ``settle_ns`` is the settle window (the ``[arbiter] settle_ms`` key, in ns):
    how long after the earliest edge a winner may be named; the same window is
    the grace a countdown gives a late-delivered edge, and the tail a script or
    drill runs past its last event.  ``tie_rule`` and ``seed`` break exact ties
    (see :func:`order`).  This is the only place ``settle_ms`` is converted.
    """

    settle_ns: int
    tie_rule: str
    seed: int
    late_ns: int = 0
    """``[arbiter] late_ms``: a press this soon after the winner's edge (beyond the settle window)
    lost the race -- late, not early for the next wave.  0 in a journal written before the key."""
    uncertain_tie: str = "lot"
    """``[phones] uncertain_tie``: a tie within the presses' uncertainty (:func:`uncertain`) is
    broken by ``lot`` (as an exact tie) or ``rearm`` (nobody; the buttons are armed again)."""

    @classmethod
    def from_config(cls, config: Mapping[str, Any], seed: int) -> "ArbiterRules":
        a = config["arbiter"]
        return cls(settle_ns=int(round(a["settle_ms"] * NS_PER_MS)), tie_rule=a["tie_rule"], seed=seed,
                   late_ns=int(round(a.get("late_ms", 0) * NS_PER_MS)),
                   uncertain_tie=(config.get("phones") or {}).get("uncertain_tie", "lot"))


@dataclass(frozen=True, slots=True)
class Arbiter:
    """Candidates for the current press window, not yet decided."""

    candidates: tuple[Press, ...] = ()
    rearmed: int | None = None
    """After a race re-armed for a tie within uncertainty: its latest press's stamp (a press
    stamped up to then belongs to that race, not to the new one)."""

    @property
    def pending(self) -> bool:
        return bool(self.candidates)

    def decide_at(self, settle_ns: int) -> int | None:
        """Engine time at which the winner may be named, or None if idle
        (the two rules of the module's docstring)."""
        c = self.candidates
        if not c:
            return None
        first = min(p.at for p in c)
        if all(p.stream for p in c):
            # "the same timestamp" is within the stamps' resolution (Press.tie; 0: equal)
            near = first + max(1, max(p.tie for p in c))
            tie_wait = min(p.delivered + p.quiet for p in c if p.at < near)
            return min([tie_wait] + [p.delivered for p in c if p.at >= near])
        return max(first + settle_ns, max(p.delivered + p.quiet for p in c))


def offer(arbiter: Arbiter, press: Press) -> Arbiter:
    """Add an eligible press to the window (a button offered twice keeps its first edge)."""
    for p in arbiter.candidates:
        if p.button == press.button:
            return arbiter if p.at <= press.at else Arbiter(
                tuple(press if q is p else q for q in arbiter.candidates), arbiter.rearmed)
    return Arbiter(arbiter.candidates + (press,), arbiter.rearmed)


def order(presses: Sequence[Press], tie_rule: str, seed: int, salt: str,
          button_order: Sequence[str]) -> list[Press]:
    """Sort presses by edge time; exact ties broken by ``tie_rule``.

    The draw for ties is deterministic given ``seed`` and ``salt`` (e.g. the
    question's number), so a replay of the journal repeats it.
    """
    rank = {b: i for i, b in enumerate(button_order)}
    tie = unc = 0
    for p in presses:
        tie, unc = max(tie, p.tie), max(unc, p.unc)
    if unc > 0 and len(presses) > 1:
        # the presses whose intervals overlap the earliest's tie with it: one shared time
        tied = uncertain(presses)
        if tied:
            first = min(p.at for p in tied)
            head = order([_at(p, first) for p in tied], tie_rule, seed, salt, button_order)
            real = {p.button: p for p in tied}
            rest = [p for p in presses if p.button not in real]
            return [real[p.button] for p in head] + order(rest, tie_rule, seed, salt, button_order)
    if tie > 0 and len(presses) > 1:
        # the presses within the resolution of the earliest tie with it: one shared time
        first = min(p.at for p in presses)
        tied = [p for p in presses if p.at - first < tie]
        if len(tied) > 1:
            head = order([_at(p, first) for p in tied], tie_rule, seed, salt, button_order)
            real = {p.button: p for p in tied}
            rest = sorted((p for p in presses if p.at - first >= tie), key=lambda p: p.at)
            return [real[p.button] for p in head] + order(rest, tie_rule, seed, salt, button_order)
    if tie_rule == "order":
        return sorted(presses, key=lambda p: (p.at, rank.get(p.button, len(rank)), p.button))
    if len({p.at for p in presses}) == len(presses):
        # No exact tie: the draw could not change the order, so skip seeding a
        # generator (string seeding hashes with SHA-512: most of a ruling's cost).
        return sorted(presses, key=lambda p: p.at)
    rng = random.Random(f"{seed}/{salt}")
    # One draw per button, in a fixed button order, independent of arrival order.
    draw = {b: rng.random() for b in sorted({p.button for p in presses}, key=lambda b: (rank.get(b, 1 << 30), b))}
    return sorted(presses, key=lambda p: (p.at, draw[p.button]))


def _at(p: Press, at: int) -> Press:
    """``p`` stamped ``at`` without its resolution (to break a tie within it)."""
    return Press(p.button, at, p.delivered, p.quiet, p.stream)   # without its uncertainty too


def surely_after(p: Any, q: Any) -> bool:
    """``p``'s interval ``at ± unc`` lies wholly after ``q``'s: ``p`` was pressed after ``q``
    whatever the stamps' uncertainties (two exact stamps: ``p``'s is the later)."""
    d = p.at - q.at
    return d > 0 and d >= p.unc + q.unc


def may_be_first(items: Sequence[Any]) -> list[Any]:
    """Of presses (or press records: anything with ``at`` and ``unc``) those that may have been
    the first: every one not surely after another.  The earliest stamp always is; a press whose
    interval overlaps it but lies wholly after a third press's is not (a wired press 10 ms after
    another wired one, both inside a phone's ±200 ms, cannot be first)."""
    return [p for p in items if not any(q is not p and surely_after(p, q) for q in items)]


def tied_within(items: Sequence[Any]) -> list[Any]:
    """Of presses (or press records: anything with ``at`` and ``unc``) those tied within their
    uncertainty: the ones that may have been the first (:func:`may_be_first`), earliest first,
    when there are two or more and one of them has an uncertainty; else ``[]`` (only the
    earliest may have been first, or the presses are exact: two exact stamps alike are an exact
    tie, decided by :func:`is_tie`'s rule, not one within uncertainty)."""
    if len(items) < 2:
        return []
    tied = may_be_first(items)
    return sorted(tied, key=lambda p: p.at) if len(tied) > 1 and any(p.unc for p in tied) else []


def uncertain(presses: Sequence[Press]) -> list[Press]:
    """The presses tied within their uncertainty (:attr:`Press.unc`): the earliest by stamp and
    every press whose interval ``at ± unc`` overlaps its interval and that is surely after no
    other press (:func:`tied_within`); ``[]`` when only the earliest may have been first (or the
    tied presses have no uncertainty)."""
    return tied_within(presses)


def within_ns(tied: Sequence[Press]) -> int:
    """The ±N of a tie within uncertainty: the widest uncertainty of the tied presses."""
    return max((p.unc for p in tied), default=0)


def is_tie(ordered: Sequence[Press]) -> bool:
    """True when the first two presses share the edge time (within the stamps' resolution,
    :attr:`Press.tie`), or their stamps' uncertainties overlap (:func:`uncertain`)."""
    if len(ordered) < 2:
        return False
    a, b = ordered[0], ordered[1]
    if a.at == b.at or abs(a.at - b.at) < max(a.tie, b.tie):
        return True
    return (a.unc > 0 or b.unc > 0 or any(p.unc for p in ordered)) and bool(uncertain(ordered))
