"""One harness for every game's tests: a host and players driving a game through
:mod:`controller.games.engine` exactly as the shell does.

    g = Played({"mode": "own-game", "teams": [...]}, seed=1)
    g.host("question", 1, nominal=100)
    g.press(2, 2.3)          # team 2's button (or a button id: g.press("B2", 2.3))
    g.run_to(2.5)            # a Tick at every wakeup up to 2.5 s, then at 2.5 s
    assert g.holder() == "P2"

* Events go to the engine in delivery order.  A press is a tap by default: its
  release is stamped ``tap`` after the edge and delivered before any later
  event (``hold=True`` keeps the button down until :meth:`Played.release`).
* Every effect is kept in ``effects``; each call returns the effects it caused
  (a tap's release delivered on the way included).
* Times are in ``unit`` (nanoseconds per unit of the test's times): seconds by
  default, ``unit=1`` for a test written in engine nanoseconds.  ``now`` is the
  time of the last event sent (a press: its delivery), in the test's unit;
  ``host(action)`` without a time acts then.
* Ticks come only when a test asks (``tick``, ``run_to``): a test sees each
  deadline fire at the event that passes it -- except a race's decision, which a
  press stamped before it does not fire (that press joins the race, as one
  delivered before the loop's Tick does: controller/games/race.py, ``fire_due``).
  ``wakeups=True`` also sends a Tick at every wakeup before each event, as the
  loop does.

A game's test module subclasses :class:`Played` with its set-up (the teams, the
defaults) and its domain helpers; ``tests/conftest.py`` offers the class as the
``played`` fixture.
"""

from __future__ import annotations

from typing import Any, Mapping

from controller.app import config
from controller.games import engine
from controller.core.effects import Flash, Log, Notice, Sound
from controller.core.events import NS_PER_MS, NS_PER_S, Host, Press, Release, Tick


class Played:
    """One game driven through the engine; keeps every effect."""

    unit: int = NS_PER_S          # engine ns per unit of the times a test passes
    tap: int = 50 * NS_PER_MS     # a tap's release, this long (ns) after its edge
    wakeups: bool = False         # send a Tick at every wakeup before each event (as the loop does)

    def __init__(self, data: Mapping[str, Any] | None = None, seed: int = 1, *,
                 base: Mapping[str, Any] | None = None, unit: int | None = None, tap_ns: int | None = None,
                 wakeups: bool | None = None):
        if unit is not None:
            self.unit = unit
        if tap_ns is not None:
            self.tap = tap_ns
        if wakeups is not None:
            self.wakeups = wakeups
        self.config = config.build(data or {}, base=base)
        self.state = engine.new_game(self.config, seed)
        self.effects: list = []
        self.releases: list[Release] = []     # taps' releases not delivered yet
        self.now: float = 0

    # -- time
    def ns(self, t: float) -> int:
        """``t`` in the test's unit as engine ns."""
        return int(round(t * self.unit))

    def _at(self, at: float | None) -> int:
        if at is not None:
            self.now = at
        return self.ns(self.now)

    # -- sending events
    def step(self, event) -> list:
        """Hand one event to the engine as it is, nothing delivered before it."""
        self.state, fx = engine.step(self.state, event)
        self.effects += fx
        return fx

    def send(self, event) -> list:
        """Send ``event`` as the shell does: with ``wakeups``, a Tick at every wakeup before
        it; the pending releases due by its delivery; then ``event``."""
        out: list = []
        if self.wakeups:
            while (due := engine.wakeup(self.state)) is not None and due <= event.now:
                out += self._deliver(Tick(due))
        return out + self._deliver(event)

    def _deliver(self, event) -> list:
        due = sorted((r for r in self.releases if r.delivered <= event.now), key=lambda r: r.delivered)
        out: list = []
        for r in due:
            self.releases.remove(r)
            out += self.step(r)
        return out + self.step(event)

    def host(self, action: str, at: float | None = None, **params) -> list:
        return self.send(Host(action, self._at(at), params))

    def button(self, button: int | str) -> str:
        """A button id: ``n`` (an int) is the n-th team's button (1-based)."""
        if isinstance(button, int) and not isinstance(button, bool):
            return self.config["teams"][button - 1]["button"]
        return button

    def press(self, button: int | str, at: float, delivered: float | None = None, hold: bool = False) -> list:
        """A press with its edge at ``at``, delivered at ``delivered`` (default: at once);
        a tap unless ``hold``."""
        b = self.button(button)
        at_ns = self.ns(at)
        got = self._at(delivered if delivered is not None else at)
        fx = self.send(Press(b, at_ns, got))
        if not hold:
            self.releases.append(Release(b, at_ns + self.tap, max(at_ns + self.tap, got)))
        return fx

    def release(self, button: int | str, at: float) -> list:
        t = self._at(at)
        return self.send(Release(self.button(button), t, t))

    def tick(self, at: float) -> list:
        """One Tick at ``at``."""
        return self.send(Tick(self._at(at)))

    def run_to(self, at: float) -> list:
        """A Tick at every wakeup the engine asks for up to ``at``, then one at ``at``."""
        end = self.ns(at)
        out: list = []
        while (due := engine.wakeup(self.state)) is not None and due <= end:
            out += self._deliver(Tick(due))
        self.now = at
        return out + self._deliver(Tick(end))

    # -- what the host and the audience see
    def view(self, now: float | None = None) -> dict:
        return engine.view(self.state, None if now is None else self.ns(now))

    def summary(self) -> dict:
        return engine.summary(self.state)

    def team(self, who: int | str) -> dict:
        """A team in the view: the n-th (1-based) or the one named ``who``."""
        teams = self.view()["teams"]
        if isinstance(who, int) and not isinstance(who, bool):
            return teams[who - 1]
        return next(t for t in teams if t["name"] == who)

    def score(self, who: int | str) -> int:
        return self.team(who)["score"]

    def scores(self) -> dict:
        """Every team's points, by name, as the summary gives them."""
        return self.summary()["scores"]

    def holder(self) -> str | None:
        """The name of the team holding the answer right, or None (never two)."""
        holders = [t["name"] for t in self.view()["teams"] if t["holder"]]
        assert len(holders) <= 1, f"two teams hold the answer right: {holders}"
        return holders[0] if holders else None

    # -- effects (all of them, or those of one call's result)
    def _fx(self, effects: list | None) -> list:
        return self.effects if effects is None else effects

    def entries(self, kind: str, effects: list | None = None) -> list[Log]:
        """The game log's entries of ``kind`` (Log effects, with their times)."""
        return [e for e in self._fx(effects) if isinstance(e, Log) and e.kind == kind]

    def logs(self, kind: str, effects: list | None = None) -> list[dict]:
        """The data of the game log's entries of ``kind``."""
        return [dict(e.data) for e in self.entries(kind, effects)]

    def sounds(self, effects: list | None = None) -> list[str]:
        return [e.name for e in self._fx(effects) if isinstance(e, Sound)]

    def notices(self, effects: list | None = None) -> list[str]:
        return [e.key for e in self._fx(effects) if isinstance(e, Notice)]

    def flashes(self, effects: list | None = None) -> list[Flash]:
        return [e for e in self._fx(effects) if isinstance(e, Flash)]
