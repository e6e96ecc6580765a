"""Phones as the teams' buttons, in the web process: who is joined, their clock sync, their
presses (docs/inputs.md «Phones», docs/web.md «/play»).

No aiohttp here: :class:`Hub` is fed by the server's ``/api/play`` handler with each
message and the monotonic time it came, and hands on what the game's process must know
through three callables: ``send_press(button, at_ns, unc_ns, flags)`` (the touch on
``CLOCK_MONOTONIC``, which the engine clock maps), ``send_wait(ns)`` (how long a race waits
for the phones' presses still on their way) and ``send_joined(buttons)`` (the teams with a phone
joined).  The clock sync itself is pure
(:mod:`controller.core.clocksync`).

A phone's messages (JSON objects, each under 256 bytes):

* ``{"t": "sync", "c": T0, "d": [T0', T3']}`` -- a clock exchange: ``c`` is the phone's clock now
  (``performance.timeOrigin + performance.now()``, ms); the answer is ``{"t": "sync", "c": T0,
  "r": T1, "s": T2}`` (this computer's receipt and sending, ms); ``d`` completes an earlier
  exchange with the time its answer came (``T3``).  Only exchanges this process answered count:
  a phone cannot make up the server's half.
* ``{"t": "press", "at": S, "sent": T, "n": k}`` -- a press: ``S`` the pointer event's own
  ``timeStamp`` on the same clock, ``T`` when the page sent it; the answer is ``{"t": "press",
  "n": k, "ok": true, "unc_ms": …}`` or ``"ok": false`` with ``"why"``: ``"sync"`` (no exchange
  done ``[phones] first_sync_wait_s`` after the press: a press before the first one is kept for
  it, and answered when it is done) or ``"bound"`` (the sync is worse than
  ``[phones] bound_max_ms`` and ``exclude_over_bound``).
"""

from __future__ import annotations

import hmac
import itertools
import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from controller.core import clocksync as cs

MS = 1_000_000
MAX_PENDING = 8
"""Clock exchanges answered and not yet completed, kept per phone (the oldest dropped)."""
HELD_MAX = 4
"""Presses a phone may have kept for its first clock exchange (one more: the oldest is refused)."""
STALL_FACTOR = 3
"""A phone silent for this many sync intervals stalled (a screen off, a battery saver)."""


def rules_of(settings: Mapping[str, Any]) -> cs.SyncRules:
    return cs.SyncRules(window=int(settings["sync_window"]), max_drift_ppm=float(settings["max_drift_ppm"]),
                        drift_margin_ppm=float(settings["drift_margin_ppm"]),
                        touch_latency_ns=int(round(settings["touch_latency_ms"] * MS)),
                        handler_max_ns=int(round(settings["handler_max_ms"] * MS)),
                        held_margin_ns=int(round(settings["wait_margin_ms"] * MS)))


def ms_to_ns(value: Any) -> int | None:
    """A time a phone sent (ms, a JSON number) in ns; None when it is not a sane number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    if abs(value) > 1e14:          # 3000 years of milliseconds: not a clock
        return None
    return int(round(value * MS))


@dataclass(eq=False)
class Phone:
    """One phone joined with a team's link."""

    id: int
    button: str
    joined: int
    sync: cs.Sync = field(default_factory=cs.Sync)
    pending: dict = field(default_factory=dict)
    last: int = 0
    stalls: int = 0
    presses: int = 0
    flagged: int = 0
    refused: int = 0
    bucket: tuple = (0.0, 0)
    held: list = field(default_factory=list)
    """Presses made before the first clock exchange was done: (stamp, sent, n, received)."""


class Hub:
    """The joined phones of one game (the web process's thread; not thread-safe)."""

    def __init__(self, settings: Mapping[str, Any], tokens: Mapping[str, str],
                 send_press: Callable[[str, int, int, tuple], None] = lambda *a: None,
                 send_wait: Callable[[int], None] = lambda ns: None,
                 clock: Callable[[], int] = time.monotonic_ns,
                 send_joined: Callable[[list[str]], None] = lambda buttons: None):
        self.settings = dict(settings)
        self.rules = rules_of(self.settings)
        self.tokens = dict(tokens)
        self.send_press = send_press
        self.send_wait = send_wait
        self.send_joined = send_joined
        """Told the buttons with a phone joined whenever they change (the game's status: a team
        that presses only by phone and has none says «нет телефона»)."""
        self._joined: list[str] = []
        self.clock = clock
        self.phones: dict[int, Phone] = {}
        self._ids = itertools.count(1)
        self.wait = 0
        self.revision = 0
        """Bumped whenever what the host page shows of the phones changes."""

    # -- tokens ------------------------------------------------------------------
    def team_of(self, token: Any) -> str | None:
        """The button whose token ``token`` is (every team's compared in constant time), or None."""
        if not isinstance(token, str) or not token or len(token) > 100:
            return None
        found = None
        for button, tok in self.tokens.items():
            if hmac.compare_digest(token.encode("utf-8", "replace"), tok.encode("utf-8")):
                found = button
        return found

    def set_token(self, button: str, token: str) -> list[Phone]:
        """``button``'s new token: the phones joined with the old one are returned (to disconnect)."""
        self.tokens[button] = token
        gone = [p for p in self.phones.values() if p.button == button]
        for p in gone:
            self.leave(p)
        return gone

    # -- phones ------------------------------------------------------------------
    def join(self, button: str) -> Phone | None:
        """A phone joined ``button``'s team; None past ``max_phones_per_team``."""
        if sum(p.button == button for p in self.phones.values()) >= int(self.settings["max_phones_per_team"]):
            return None
        now = self.clock()
        phone = Phone(next(self._ids), button, now, last=now, bucket=(float(self.settings["rate_per_s"]), now))
        self.phones[phone.id] = phone
        self.revision += 1
        self._tell_joined()
        return phone

    def leave(self, phone: Phone) -> None:
        if self.phones.pop(phone.id, None) is not None:
            self.revision += 1
            self._update_wait()
            self._tell_joined()

    def _tell_joined(self) -> None:
        joined = sorted({p.button for p in self.phones.values()})
        if joined != self._joined:
            self._joined = joined
            self.send_joined(joined)

    def allow(self, phone: Phone, now: int) -> bool:
        """The phone's own rate (``rate_per_s``, a burst of as many): False when it sends faster."""
        rate = float(self.settings["rate_per_s"])
        level, at = phone.bucket
        level = min(rate, level + (now - at) / 1e9 * rate)
        if level < 1.0:
            phone.bucket = (level, now)
            return False
        phone.bucket = (level - 1.0, now)
        return True

    def _seen(self, phone: Phone, now: int) -> None:
        if now - phone.last > STALL_FACTOR * self.settings["sync_interval_s"] * 1e9:
            phone.stalls += 1
            self.revision += 1
        phone.last = now

    # -- messages ----------------------------------------------------------------
    def sync(self, phone: Phone, msg: Mapping[str, Any], received: int) -> dict | None:
        """A clock exchange: the answer (its ``"s"`` is filled by the caller just before it
        sends, :meth:`answered`), or None when the message is not one."""
        t0 = ms_to_ns(msg.get("c"))
        if t0 is None:
            return None
        self._seen(phone, received)
        done = msg.get("d")
        if isinstance(done, list) and len(done) == 2:
            d0, d3 = ms_to_ns(done[0]), ms_to_ns(done[1])
            server = phone.pending.pop(d0, None) if d0 is not None else None
            if server is not None and d3 is not None:
                phone.sync = cs.add(phone.sync, cs.Sample(d0, server[0], server[1], d3), self.rules)
                self.revision += 1
                self._update_wait()
        est = self.estimate(phone, received)
        reply = {"t": "sync", "c": msg.get("c"), "r": received / MS, "_t0": t0, "_t1": received}
        if est is not None:
            reply["b"] = round(est.bound / MS, 1)   # the phone shows how well its clock is known
        return reply

    def answered(self, phone: Phone, reply: dict, sent: int) -> dict:
        """The exchange's answer as sent at ``sent``: remembered until the phone completes it."""
        t0, t1 = reply.pop("_t0"), reply.pop("_t1")
        phone.pending[t0] = (t1, sent)
        while len(phone.pending) > MAX_PENDING:
            phone.pending.pop(next(iter(phone.pending)))
        reply["s"] = sent / MS
        return reply

    def press(self, phone: Phone, msg: Mapping[str, Any], received: int) -> dict | None:
        """A press: converted and handed on (the answer says whether it was).  Before the
        phone's first clock exchange is done it is kept for it (None: the answer comes with
        :meth:`released`)."""
        stamp, sent = ms_to_ns(msg.get("at")), ms_to_ns(msg.get("sent"))
        n = msg.get("n") if isinstance(msg.get("n"), int) and not isinstance(msg.get("n"), bool) else 0
        if stamp is None or sent is None:
            return {"t": "press", "n": n, "ok": False, "why": "bad"}
        self._seen(phone, received)
        if not phone.sync.samples:
            phone.held.append((stamp, sent, n, received))
            if len(phone.held) <= HELD_MAX:
                return None
            stamp, sent, n, received = phone.held.pop(0)   # (a page tapped that fast: the oldest goes)
            phone.refused += 1
            return {"t": "press", "n": n, "ok": False, "why": "sync"}
        return self._take(phone, stamp, sent, n, received)

    def released(self, phone: Phone, now: int) -> list[dict]:
        """The answers of the presses kept for the first clock exchange (:meth:`press`): each
        taken as it would have been when it came, now that the exchange is done; refused when
        it is not done ``[phones] first_sync_wait_s`` after the press."""
        if not phone.held:
            return []
        if phone.sync.samples:
            held, phone.held = phone.held, []
            return [self._take(phone, *h) for h in held]
        wait = float(self.settings["first_sync_wait_s"]) * 1e9
        out = []
        while phone.held and now - phone.held[0][3] > wait:
            _, _, n, _ = phone.held.pop(0)
            phone.refused += 1
            self.revision += 1
            out.append({"t": "press", "n": n, "ok": False, "why": "sync"})
        return out

    def _take(self, phone: Phone, stamp: int, sent: int, n: int, received: int) -> dict:
        if self.over(phone, received) and self.settings["exclude_over_bound"]:
            phone.refused += 1
            self.revision += 1
            return {"t": "press", "n": n, "ok": False, "why": "bound"}
        c = cs.convert(phone.sync, stamp, sent, received, self.rules)
        if c is None:
            phone.refused += 1
            return {"t": "press", "n": n, "ok": False, "why": "sync"}
        phone.presses += 1
        if c.flags:
            phone.flagged += 1
        self.revision += 1
        self.send_press(phone.button, c.at, c.unc, c.flags)
        return {"t": "press", "n": n, "ok": True, "unc_ms": round(c.unc / MS, 1),
                **({"flags": list(c.flags)} if c.flags else {})}

    # -- what the host sees, and the races' wait -----------------------------------
    def estimate(self, phone: Phone, now: int) -> cs.Estimate | None:
        return cs.estimate(phone.sync, now, self.rules)

    def over(self, phone: Phone, now: int) -> bool:
        est = self.estimate(phone, now)
        return est is None or est.bound > self.settings["bound_max_ms"] * MS

    def delay(self, phone: Phone, now: int) -> int | None:
        """How long a press of this phone may take to come here (its slowest recent path to
        this computer, an older one's delay halved every ``delay_half_life_s``, the sync's
        bound and the margin), ns; None before an exchange."""
        est = self.estimate(phone, now)
        if est is None:
            return None
        # an old slow path counts less the older it is ([phones] delay_half_life_s)
        half_life = int(round(float(self.settings["delay_half_life_s"]) * 1e9))
        return (cs.upstream(phone.sync, est, half_life) + est.bound
                + int(round(self.settings["wait_margin_ms"] * MS)))

    def _update_wait(self) -> None:
        now = self.clock()
        cap = int(round(self.settings["wait_max_ms"] * MS))
        waits = [self.delay(p, now) for p in self.phones.values()
                 if not (self.settings["exclude_over_bound"] and self.over(p, now))]
        wait = min(cap, max([w for w in waits if w is not None], default=0))
        if abs(wait - self.wait) >= MS or (wait == 0) != (self.wait == 0):
            self.wait = wait
            self.send_wait(wait)

    def status(self, now: int | None = None) -> dict[str, list[dict]]:
        """Button -> its phones as the host page shows them."""
        now = self.clock() if now is None else now
        out: dict[str, list[dict]] = {b: [] for b in self.tokens}
        for p in self.phones.values():
            est = self.estimate(p, now)
            d = self.delay(p, now)
            out.setdefault(p.button, []).append({
                "id": p.id, "synced": est is not None,
                "bound_ms": round(est.bound / MS, 1) if est else None,
                "rtt_ms": round(est.rtt_min / MS, 1) if est else None,
                "delay_ms": round(d / MS, 1) if d is not None else None,
                "drift_ppm": round(est.drift_ppm, 1) if est else None,
                "over": self.over(p, now), "stalls": p.stalls, "presses": p.presses,
                "flagged": p.flagged, "refused": p.refused,
                "silent_s": round((now - p.last) / 1e9, 1)})
        return out
