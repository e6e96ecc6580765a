"""Phones as buttons against the peers' rules, on the same traces (issue 27, docs/phones.md).

    python benchmarks/run.py --only phones          (merged into benchmarks/results.json)
    python benchmarks/run.py --quick --only phones  (a few cells, for CI: results-quick.json)
    python benchmarks/phones.py [--quick]           (prints the figures)

In-process, as ``buzzer run`` wires it: a real :class:`~controller.app.loop.Loop` stepping on a
thread of its own, the real web process (``controller.web.child``) with the phones' hub, the
publisher.  Each simulated phone is a Python client speaking the /play page's protocol
(``controller/web/static/play.js``): the join with its team's token, five clock exchanges at
joining and one every ``[phones] sync_interval_s``, each completing the previous one with the
time its answer came; a press stamped with the touch event's own time.  Its clock is its own:
an offset of days from this computer's, running fast or slow by ``drift_ppm``.  Between each
phone and the server sits a loopback proxy of this file's own (:class:`Proxy`) that delays each
direction on its own (asymmetric paths) and adds jitter to every chunk, keeping TCP's order
(a chunk is never passed before an earlier one of the same direction).

A race: the host arms the buttons (withdraw, question, reading done); each phone sees the
countdown when the audience view reaches it through its proxy; the two phones touch at true
times ``gap_ms`` apart (which one first is drawn), the touch reaching the browser 5-17 ms later
(the touch screen's latency: a base per phone and a few ms per touch, always under
``[phones] touch_latency_ms``).  Every race is then decided by:

* **ours**: the game's own decision (the ``answer_right`` log of the real engine, after the
  races' phone wait): *right* (the true first named, no tie), *tie* (a tie within ±N declared;
  the lot then picked one), *wrong* (the other named, no tie);
* **arrival**: who came first to the game's sink (the loop's ``delivered``: the web process's
  order), as web buzzers and SImulator decide;
* **random300**: SIGame online's rule: presses that come within 300 ms of the first are drawn at
  random (the fraction is the draw's expectation: 1/2 when both are in the window);
* **client_rt**: the reaction time each phone measured itself (its touch event's stamp minus when
  the armed view reached it, on its own clock), the lower wins.

Per cell: ``pairs`` and the fraction of pairs won by the true first presser under each rule
(``ours_tie`` and ``ours_wrong`` are ours' declared ties and wrong calls).  Besides the cells:

* ``phones_decision_p99_ms``: the game's decision after the race's last press came to the sink
  (every race), and ``phones_decision_beyond_wait_p99_ms``: the same minus the phone wait the
  race applied (the target: <= 20 ms);
* ``phones_above_unc``: the pairs whose true gap is wider than the two presses' declared
  uncertainties together, and ours' right calls, ties and wrong calls among them (a tie is still
  possible there: each stamp may be off by up to its uncertainty, so the stamps may come closer
  than the true gap); ``phones_beyond_tie``: the pairs wider than twice that, where no tie is
  possible and a correct stamp must name the true first; ``phones_outside_unc``: presses whose
  true touch was outside their declared ``at ± unc``; ``phones_loadavg``: the machine's load
  average at the start, after the sweep and at the end;
* ``phones_wired_decision_p99_delta_ms``: a wired button's press (the sink, no phone path) to
  its decision, p99 with 40 phones joined (three teams' phones in a child process, syncing,
  receiving every view) minus with none.  With phones joined a wired race waits the phones'
  wait by design (an earlier phone press may still be on its way): that wait is taken out
  (each decision is measured from the arbiter's own deadline, ``max(at + settle, delivered +
  quiet)``); ``phones_wired_decision_p99_delta_with_wait_ms`` keeps it in;
* ``phones_mixed_fairness``: races of a phone (through its proxy, ``delay_ms`` up, half of it
  down) against a wired button (its exact stamp through the sink, uncertainty 0), true gaps both
  ways (``first``: ``"phone"`` or ``"wired"``), the same fields as ``phones_fairness``; the
  ``phones_mixed_*`` keys as the sweep's (``_wrong_calls``, ``_outside_unc``, ``_above_unc``: gap
  > the phone's uncertainty, ``_beyond_tie``: gap > twice it), ``phones_mixed_wired_exact``: the
  wired presses whose stamp stayed their true edge with no uncertainty, and
  ``phones_mixed_wired_pairs``: two wired buttons µs to 10 ms apart, decided alone and with a
  phone joined (``same_decisions``: the same winner, no tie said either way);
  ``phones_mixed_three_way``: a phone and two wired buttons 5 ms apart inside its uncertainty
  (``races``; who answered: ``phone``, ``first_wired``, ``second_wired`` -- which must stay 0 --,
  ``ties`` declared, ``wired_order_kept``: the race's order had the two wired presses in their
  true order).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.app import config as config_mod  # noqa: E402
from controller.app.loop import Loop  # noqa: E402
from controller.games import engine  # noqa: E402
from controller.inputs.clock import EngineClock  # noqa: E402
from controller.core.effects import Log  # noqa: E402
from controller.core.events import NS_PER_MS, Host, Press, Release  # noqa: E402
from controller.web.attach import PhoneBridge, Publisher  # noqa: E402
from controller.web.process import WebProcess  # noqa: E402

MS = NS_PER_MS
RANDOM_WINDOW_MS = 300.0
TOUCH_BASE_MS = (5.0, 12.0)     # a phone's touch-to-event latency: its own base ...
TOUCH_SPREAD_MS = 5.0           # ... and up to this much more per touch
WARMUP_S = 1.2                  # after joining: the five quick exchanges are done
CROWD = 40
SWEEP_PHONES = {"bound_max_ms": 150.0, "wait_max_ms": 400.0}
"""The sweep's ``[phones]`` limits: a phone 150 ms away has a round trip of 225 ms, a clock
bound over 110 ms: the defaults (30 ms, a wait of at most 150 ms) would keep it out of the
races (its presses refused, the host page marking it), the hall's choice for a slow network."""


def percentile(values, q):
    v = sorted(values)
    if not v:
        return float("nan")
    rank = max(1, min(len(v), -(-len(v) * q // 100)))
    return v[int(rank) - 1]


# ---------------------------------------------------------------------------
# the network: a loopback proxy delaying and jittering each direction

class Direction:
    """One direction of a path: every chunk waits ``base_ms`` + uniform(0, ``jitter_ms``), and
    never overtakes an earlier chunk (TCP delivers in order)."""

    def __init__(self, base_ms: float, jitter_ms: float, rng: random.Random):
        self.base_s, self.jitter_s, self.rng = base_ms / 1000, jitter_ms / 1000, rng

    def delay(self) -> float:
        return self.base_s + self.rng.uniform(0, self.jitter_s)


class Proxy:
    """A TCP proxy on 127.0.0.1 in front of ``port``: ``up`` delays what the client sends,
    ``down`` what it receives."""

    def __init__(self, port: int, up: Direction, down: Direction):
        self.port, self.up, self.down = port, up, down
        self.server: asyncio.AbstractServer | None = None
        self.tasks: set = set()

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        return self.server.sockets[0].getsockname()[1]

    async def _client(self, reader, writer):
        try:
            r2, w2 = await asyncio.open_connection("127.0.0.1", self.port)
        except OSError:
            writer.close()
            return
        pumps = [asyncio.ensure_future(self._pump(reader, w2, self.up)),
                 asyncio.ensure_future(self._pump(r2, writer, self.down))]
        self.tasks.update(pumps)
        await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        for p in pumps:
            p.cancel()
        for w in (writer, w2):
            w.close()

    @staticmethod
    async def _pump(src, dst, way: Direction):
        aloop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()
        last = 0.0

        async def send():
            while True:
                due, data = await queue.get()
                if data is None:
                    dst.close()
                    return
                wait = due - aloop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                dst.write(data)
                await dst.drain()

        sender = asyncio.ensure_future(send())
        try:
            while True:
                data = await src.read(65536)
                due = max(last, aloop.time() + way.delay())
                last = due
                queue.put_nowait((due, data or None))
                if not data:
                    break
            await sender
        except (ConnectionError, asyncio.CancelledError):
            sender.cancel()

    async def close(self):
        if self.server is not None:
            self.server.close()
        for t in self.tasks:
            t.cancel()


# ---------------------------------------------------------------------------
# a phone: the /play page's protocol, its own clock

REF_NS = time.monotonic_ns()


class SimPhone:
    """A phone on ``port`` (a proxy's, or the server's) with ``token``: its clock is
    ``offset_ms`` ahead of CLOCK_MONOTONIC and runs ``drift_ppm`` fast."""

    def __init__(self, port: int, token: str, offset_ms: float, drift_ppm: float, touch_ms: float,
                 rng: random.Random, sync_interval_s: float = 2.0):
        self.port, self.token = port, token
        self.offset_ns, self.rate = offset_ms * MS, 1 + drift_ppm / 1e6
        self.touch_ms, self.rng, self.interval = touch_ms, rng, sync_interval_s
        self.ws = None
        self.me = None
        self.bound = None
        self.done = None
        self.n = 0
        self.armed = False
        self.armed_seen: float | None = None   # phone clock, ms
        self.answers: dict[int, dict] = {}
        self.task = None
        self.joined = asyncio.Event()

    def clock_ms(self, mono_ns: int | None = None) -> float:
        t = time.monotonic_ns() if mono_ns is None else mono_ns
        return (self.offset_ns + (t - REF_NS) * self.rate) / MS

    async def send(self, msg: dict) -> None:
        if self.ws is not None and not self.ws.closed:
            await self.ws.send_str(json.dumps(msg))

    async def _sync(self):
        async def ping():
            msg = {"t": "sync", "c": self.clock_ms()}
            if self.done:
                msg["d"], self.done = self.done, None
            await self.send(msg)
        for _ in range(5):           # play.js: five at joining, 120 ms apart
            await ping()
            await asyncio.sleep(0.12)
        while True:
            await asyncio.sleep(self.interval)
            await ping()

    async def run(self, session: aiohttp.ClientSession) -> None:
        base = f"http://127.0.0.1:{self.port}"
        async with session.ws_connect(base + "/api/play", headers={"Origin": base}) as ws:
            self.ws = ws
            await self.send({"t": "join", "token": self.token})
            syncing = None
            try:
                async for msg in ws:
                    if msg.type != aiohttp.WSMsgType.TEXT:
                        break
                    now = self.clock_ms()
                    data = json.loads(msg.data)
                    if isinstance(data.get("seq"), int):
                        self._view(data, now)
                    elif data.get("t") == "me":
                        self.me = data
                        self.interval = float(data.get("sync_interval_s") or self.interval)
                        syncing = asyncio.ensure_future(self._sync())
                    elif data.get("t") == "sync":
                        self.done = [data["c"], now]
                        if data.get("b") is not None:
                            self.bound = data["b"]
                            self.joined.set()
                    elif data.get("t") == "press":
                        self.answers[data.get("n")] = data
                    elif data.get("t") == "error":
                        raise RuntimeError(f"phone refused: {data}")
            finally:
                if syncing is not None:
                    syncing.cancel()

    def _view(self, vm: dict, now_ms: float) -> None:
        g = (vm.get("audience") or {}).get("game") or {}
        armed = bool((g.get("countdown") or {}).get("running")) and not any(t.get("holder") for t in g.get("teams") or ())
        if armed and not self.armed and self.armed_seen is None:
            self.armed_seen = now_ms
        self.armed = armed

    async def touch(self, true_ns: int) -> dict:
        """A touch at ``true_ns`` (CLOCK_MONOTONIC): the browser stamps it ``touch_ms`` + up to
        TOUCH_SPREAD_MS later and the handler sends it then (play.js ``press``)."""
        latency = self.touch_ms + self.rng.uniform(0, TOUCH_SPREAD_MS)
        event_ns = true_ns + int(latency * MS)
        wait = (event_ns - time.monotonic_ns()) / 1e9
        if wait > 0:
            await asyncio.sleep(wait)
        self.n += 1
        msg = {"t": "press", "at": self.clock_ms(event_ns), "sent": self.clock_ms(), "n": self.n}
        await self.send(msg)
        return {"n": self.n, "stamp_ms": msg["at"], "sent_ms": msg["sent"], "armed_ms": self.armed_seen}


# ---------------------------------------------------------------------------
# the game

class TimedLoop(Loop):
    """The loop, noting each press as it is applied and each decision as the engine makes it."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.presses: list[Press] = []
        self.decisions: list[tuple[int, dict]] = []
        self.lock = threading.Lock()

    def apply(self, event, journaled=False):
        fx = super().apply(event, journaled)
        if isinstance(event, Press):
            with self.lock:
                self.presses.append(event)
        for f in fx or ():
            if isinstance(f, Log) and f.kind in ("answer_right", "tie_rearm"):
                with self.lock:
                    self.decisions.append((self.clock.now(), dict(f.data, kind=f.kind)))
        return fx

    def take(self) -> tuple[list[Press], list[tuple[int, dict]]]:
        with self.lock:
            p, d = self.presses, self.decisions
            self.presses, self.decisions = [], []
        return p, d


class Rig:
    """A loop on its thread, the web process with the phones' hub, the publisher."""

    def __init__(self, teams: int = 4, phones: dict | None = None):
        base = config_mod.load(None)
        names = ["Альфа", "Бета", "Гамма", "Дельта", "Эпсилон", "Дзета"]
        overrides = {
            "teams": [{"name": names[i], "button": "ABCDEF"[i], "players": 4} for i in range(teams)],
            "erudite": {"max_teams": max(teams, 4), "think_time_s": 300.0, "fights": 1000},
            "phones": dict(phones or {}),
            "journal": {"fsync": False},
        }
        cfg = config_mod.build(overrides, base=base)
        cfg["web"].update(port=0, next_free_port=True)
        self.cfg = cfg
        self.settle_ns = int(round(cfg["arbiter"]["settle_ms"] * MS))
        self.devnull = open(os.devnull, "w")
        self.loop = TimedLoop(cfg, engine.new_game(cfg, 1), EngineClock(), out=self.devnull)
        self.bridge = PhoneBridge(self.loop, [t["button"] for t in cfg["teams"]])
        self.server = WebProcess(cfg["web"], "ru", self.loop.enqueue, phones=self.bridge)
        self.server.start()
        self.loop.publish = Publisher(self.loop, self.server, interval_s=cfg["web"]["update_ms"] / 1000)
        self.running = True
        self.thread = threading.Thread(target=self._run, name="phones-loop", daemon=True)
        self.thread.start()

    def _run(self):
        while self.running:
            self.loop.step_once(0.004)

    @property
    def tokens(self) -> dict[str, str]:
        return dict(self.bridge.tokens)

    def arm(self) -> None:
        now = self.loop.clock.now()
        for kind in ("withdraw", "question", "reading_done"):
            self.loop.enqueue(Host(kind, now))

    def withdraw(self) -> None:
        self.loop.enqueue(Host("withdraw", self.loop.clock.now()))

    def engine_ns(self, mono_ns: int) -> int:
        return self.loop.clock.from_monotonic_ns(mono_ns)

    def close(self):
        self.running = False
        self.thread.join(2)
        self.server.stop()
        self.devnull.close()


# ---------------------------------------------------------------------------
# one cell of races

def cells(quick: bool) -> list[dict]:
    """The sweep: true gaps × the slower phone's one-way delay × jitter × drift."""
    if quick:
        return [dict(gap_ms=g, delay_ms=d, jitter_ms=10.0, drift_ppm=50.0) for d in (5.0, 150.0) for g in (5.0, 100.0)]
    out = [dict(gap_ms=g, delay_ms=d, jitter_ms=j, drift_ppm=50.0)
           for j in (2.0, 20.0) for d in (5.0, 50.0, 150.0) for g in (1.0, 10.0, 30.0, 60.0, 100.0, 200.0)]
    out += [dict(gap_ms=g, delay_ms=50.0, jitter_ms=20.0, drift_ppm=300.0) for g in (10.0, 60.0, 200.0)]
    return out


def paths(cell: dict, rng: random.Random) -> list[tuple[Direction, Direction]]:
    """Two phones' paths (up, down): one slow and asymmetric (``delay_ms`` up, half of it down),
    one near the access point (5 ms each way); both jittered."""
    d, j = cell["delay_ms"], cell["jitter_ms"]
    slow = (Direction(d, j, rng), Direction(max(5.0, d / 2), j, rng))
    fast = (Direction(5.0, j, rng), Direction(5.0, j, rng))
    return [slow, fast]


async def _wait_for(cond, timeout: float, step: float = 0.005) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        await asyncio.sleep(step)
    return cond()


RULES = ("ours_right", "ours_tie", "ours_wrong", "arrival", "random300", "client_rt")
"""A cell's fractions: ours' right calls, ties and wrong calls, and the peers' rules."""


def _tally(cell: dict) -> dict:
    """A cell's row before its first race: the cell's own fields, no pairs, every rule at 0."""
    return dict(cell, pairs=0, **{k: 0 for k in RULES})


def _count(out: dict, rec: dict) -> None:
    """One judged race (:func:`judge`, :func:`judge_mixed`) into its cell's row."""
    out["pairs"] += 1
    out["ours_" + rec["ours"]] += 1
    for m in ("arrival", "random300", "client_rt"):
        out[m] += rec[m]


def _fractions(out: dict) -> None:
    """The row's counts as fractions of its pairs."""
    n = max(1, out["pairs"])
    for k in RULES:
        out[k] = round(out[k] / n, 4)


async def run_cell(rig: Rig, cell: dict, pairs: int, seed: int, records: list) -> dict:
    rng = random.Random(seed)
    tokens = rig.tokens
    buttons = ["A", "B"]
    ways = paths(cell, rng)
    proxies = [Proxy(rig.server.port, *w) for w in ways]
    ports = [await p.start() for p in proxies]
    phones = [SimPhone(port, tokens[b], offset_ms=rng.uniform(-3e9, 3e9), drift_ppm=cell["drift_ppm"] * s,
                       touch_ms=rng.uniform(*TOUCH_BASE_MS), rng=random.Random(seed * 7 + i),
                       sync_interval_s=float(rig.cfg["phones"]["sync_interval_s"]))
              for i, (port, b, s) in enumerate(zip(ports, buttons, (1, -1)))]
    out = _tally(cell)
    async with aiohttp.ClientSession() as session:
        tasks = [asyncio.ensure_future(p.run(session)) for p in phones]
        try:
            if not await _wait_for(lambda: all(p.joined.is_set() for p in phones), 10):
                broken = [t.exception() for t in tasks if t.done()]
                raise RuntimeError(f"the phones did not join: {broken!r}")
            await asyncio.sleep(WARMUP_S)
            rig.loop.take()
            for k in range(pairs):
                # the buttons off first, until every phone has seen them off: then each phone
                # notes when the armed buttons reach it
                rig.withdraw()
                await _wait_for(lambda: not any(p.armed for p in phones), 1.5)
                for p in phones:
                    p.armed_seen = None
                rig.arm()
                if not await _wait_for(lambda: all(p.armed_seen is not None for p in phones), 1.5):
                    broken = [t for t in tasks if t.done()]
                    if broken:
                        raise RuntimeError(f"a phone left: {broken[0].exception()!r}")
                    records.append({"cell": cell, "lost": True, "why": "not armed"})
                    continue
                first = rng.randrange(2)
                t0 = time.monotonic_ns() + int(rng.uniform(20, 60) * MS)
                trues = [0, 0]
                trues[first] = t0
                trues[1 - first] = t0 + int(cell["gap_ms"] * MS)
                sent = await asyncio.gather(*(phones[i].touch(trues[i]) for i in range(2)))
                got = await _wait_for(lambda: len(rig.loop.presses) >= 2 and rig.loop.decisions, 1.5)
                await asyncio.sleep(0.12)   # the holder reaches every phone before the next arming
                presses, decisions = rig.loop.take()
                if not got or not decisions:
                    records.append({"cell": cell, "lost": True, "why": "no decision"})
                    continue
                rec = judge(rig, cell, buttons, first, trues, sent, presses, decisions, phones)
                records.append(rec)
                _count(out, rec)
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            for p in proxies:
                await p.close()
    _fractions(out)
    await asyncio.sleep(0.2)     # the hub lets the old phones go before the next cell's join
    return out


def judge(rig: Rig, cell: dict, buttons: list[str], first: int, trues: list[int], sent: list[dict],
          presses: list[Press], decisions: list[tuple[int, dict]], phones: list[SimPhone]) -> dict:
    """One race decided by ours (the engine's log) and by the peers' rules on the same trace."""
    by = {p.button: p for p in presses if p.button in buttons}
    truth = buttons[first]
    decided_at, log = decisions[0]
    rec: dict = {"cell": cell, "truth": truth, "lost": False}
    winner = log.get("button") if log["kind"] == "answer_right" else None
    tie = bool(log.get("within_ms")) or log["kind"] == "tie_rearm"
    rec["ours"] = "tie" if tie else ("right" if winner == truth else "wrong")
    rec["within_ms"] = log.get("within_ms")
    # where each touch truly was against what its press declared
    rec["outside"] = 0
    rec["flags"] = sorted({f for ph, s in zip(phones, sent) for f in ph.answers.get(s["n"], {}).get("flags", ())})
    rec["outside_flags"] = []
    rec["outside_detail"] = []
    for i, b in enumerate(buttons):
        p = by.get(b)
        if p is not None and abs(p.at - rig.engine_ns(trues[i])) > p.unc:
            rec["outside"] += 1
            rec["outside_flags"].append(list(phones[i].answers.get(sent[i]["n"], {}).get("flags", ())))
            rec["outside_detail"].append(outside_detail(rig, p, trues[i], sent[i], phones[i]))
    a, b_ = by.get(buttons[0]), by.get(buttons[1])
    rec["unc_ms"] = [round(p.unc / MS, 2) for p in (a, b_) if p is not None]
    rec["above_unc"] = bool(a and b_ and abs(trues[0] - trues[1]) > a.unc + b_.unc)
    # so far apart that even stamps wrong by their whole uncertainty cannot overlap: no tie is possible
    rec["beyond_tie"] = bool(a and b_ and abs(trues[0] - trues[1]) > 2 * (a.unc + b_.unc))
    # the peers, on the same trace
    if a is not None and b_ is not None:
        arr = sorted((a, b_), key=lambda p: p.delivered)
        rec["arrival"] = 1.0 if arr[0].button == truth else 0.0
        gap = abs(a.delivered - b_.delivered) / MS
        rec["random300"] = 0.5 if gap <= RANDOM_WINDOW_MS else rec["arrival"]
    else:   # one press never came: the one that did wins under every rule
        only = a or b_
        rec["arrival"] = rec["random300"] = 1.0 if only and only.button == truth else 0.0
    rts = [s["stamp_ms"] - s["armed_ms"] for s in sent]
    rec["client_rt"] = 1.0 if (rts[first] < rts[1 - first]) else (0.5 if rts[0] == rts[1] else 0.0)
    # the decision's latency: after the last press of the race that came before it
    came = [p for p in presses if p.delivered <= decided_at]
    last = max((p.delivered for p in came), default=decided_at)
    wait = max((p.quiet for p in came), default=0)
    rec["decision_ms"] = (decided_at - last) / MS
    rec["wait_ms"] = wait / MS
    rec["touch_to_decision_ms"] = (decided_at - rig.engine_ns(min(trues))) / MS
    return rec


def outside_detail(rig: Rig, p: Press, true_ns: int, sent: dict, phone: "SimPhone") -> dict:
    """Why a touch fell outside its press's ``at ± unc``: its flags, how long after the touch
    event the phone's handler sent it (phone clock), how far the stamp was from the true touch."""
    return {"flags": list(phone.answers.get(sent["n"], {}).get("flags", ())),
            "handler_ms": round(sent["sent_ms"] - sent["stamp_ms"], 1),
            "error_ms": round((p.at - rig.engine_ns(true_ns)) / MS, 1), "unc_ms": round(p.unc / MS, 1)}


# ---------------------------------------------------------------------------
# mixed races: a phone against a wired button

MIXED_PHONE, MIXED_WIRED = "A", "B"


def mixed_cells(quick: bool) -> list[dict]:
    """A phone (``delay_ms`` up, half of it down, jittered) against a wired button (its µs stamp
    through the sink, uncertainty 0): true gaps × who is first × the phone's delay."""
    if quick:
        return [dict(gap_ms=g, delay_ms=50.0, jitter_ms=10.0, drift_ppm=50.0, first=f)
                for f in ("phone", "wired") for g in (5.0, 200.0)]
    return [dict(gap_ms=g, delay_ms=d, jitter_ms=20.0, drift_ppm=50.0, first=f)
            for d in (5.0, 50.0, 150.0) for f in ("phone", "wired") for g in (1.0, 10.0, 30.0, 60.0, 100.0, 200.0)]


async def _wired_press(rig: Rig, button: str, true_ns: int) -> None:
    """A wired button's edge at ``true_ns`` (CLOCK_MONOTONIC): stamped exactly then, delivered to
    the sink when this coroutine gets there (as a GPIO callback's edge: exact stamp, late delivery)."""
    wait = (true_ns - time.monotonic_ns()) / 1e9
    if wait > 0:
        await asyncio.sleep(wait)
    at = rig.engine_ns(true_ns)
    rig.loop.enqueue(Press(button, at, 0))
    rig.loop.enqueue(Release(button, at + MS, 0))


async def run_mixed_cell(rig: Rig, cell: dict, pairs: int, seed: int, records: list) -> dict:
    """``pairs`` races of team A's phone (through its proxy) against team B's wired button, the
    true first the cell's ``first``; judged by ours and the peers as :func:`run_cell`'s."""
    rng = random.Random(seed)
    d, j = cell["delay_ms"], cell["jitter_ms"]
    proxy = Proxy(rig.server.port, Direction(d, j, rng), Direction(max(5.0, d / 2), j, rng))
    port = await proxy.start()
    phone = SimPhone(port, rig.tokens[MIXED_PHONE], offset_ms=rng.uniform(-3e9, 3e9), drift_ppm=cell["drift_ppm"],
                     touch_ms=rng.uniform(*TOUCH_BASE_MS), rng=random.Random(seed * 7),
                     sync_interval_s=float(rig.cfg["phones"]["sync_interval_s"]))
    out = _tally(cell)
    async with aiohttp.ClientSession() as session:
        task = asyncio.ensure_future(phone.run(session))
        try:
            if not await _wait_for(phone.joined.is_set, 10):
                raise RuntimeError(f"the phone did not join: {task.exception() if task.done() else None!r}")
            await asyncio.sleep(WARMUP_S)
            rig.loop.take()
            for _ in range(pairs):
                rig.withdraw()
                await _wait_for(lambda: not phone.armed, 1.5)
                phone.armed_seen = None
                armed_ns = time.monotonic_ns()
                rig.arm()
                if not await _wait_for(lambda: phone.armed_seen is not None, 1.5):
                    if task.done():
                        raise RuntimeError(f"the phone left: {task.exception()!r}")
                    records.append({"cell": cell, "lost": True, "why": "not armed"})
                    continue
                t0 = time.monotonic_ns() + int(rng.uniform(20, 60) * MS)
                later = t0 + int(cell["gap_ms"] * MS)
                t_phone, t_wired = (t0, later) if cell["first"] == "phone" else (later, t0)
                sent, _ = await asyncio.gather(phone.touch(t_phone), _wired_press(rig, MIXED_WIRED, t_wired))
                got = await _wait_for(lambda: len(rig.loop.presses) >= 2 and rig.loop.decisions, 1.5)
                await asyncio.sleep(0.12)
                presses, decisions = rig.loop.take()
                if not got or not decisions:
                    records.append({"cell": cell, "lost": True, "why": "no decision"})
                    continue
                rec = judge_mixed(rig, cell, t_phone, t_wired, armed_ns, sent, presses, decisions, phone)
                records.append(rec)
                _count(out, rec)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await proxy.close()
    _fractions(out)
    await asyncio.sleep(0.2)
    return out


def judge_mixed(rig: Rig, cell: dict, t_phone: int, t_wired: int, armed_ns: int, sent: dict,
                presses: list[Press], decisions: list[tuple[int, dict]], phone: SimPhone) -> dict:
    """A phone-vs-wired race decided by ours and by the peers on the same trace.  The peers'
    client-measured reaction time of a wired button is its edge minus the arming (the server
    measures it: a button has no clock of its own)."""
    by = {p.button: p for p in presses if p.button in (MIXED_PHONE, MIXED_WIRED)}
    truth = MIXED_PHONE if cell["first"] == "phone" else MIXED_WIRED
    decided_at, log = decisions[0]
    winner = log.get("button") if log["kind"] == "answer_right" else None
    tie = bool(log.get("within_ms")) or log["kind"] == "tie_rearm"
    rec: dict = {"cell": cell, "truth": truth, "lost": False, "mixed": True,
                 "ours": "tie" if tie else ("right" if winner == truth else "wrong"), "within_ms": log.get("within_ms")}
    a, w = by.get(MIXED_PHONE), by.get(MIXED_WIRED)
    rec["flags"] = list(phone.answers.get(sent["n"], {}).get("flags", ()))
    rec["outside"] = int(a is not None and abs(a.at - rig.engine_ns(t_phone)) > a.unc)
    rec["outside_flags"] = [rec["flags"]] if rec["outside"] else []
    rec["outside_detail"] = [outside_detail(rig, a, t_phone, sent, phone)] if rec["outside"] else []
    # the wired press keeps its exact stamp: no uncertainty, and its stamp is its true edge
    rec["wired_exact"] = bool(w is not None and w.unc == 0 and w.at == rig.engine_ns(t_wired))
    rec["unc_ms"] = [round(a.unc / MS, 2)] if a is not None else []
    gap = abs(t_phone - t_wired)
    rec["above_unc"] = bool(a and w and gap > a.unc)
    rec["beyond_tie"] = bool(a and w and gap > 2 * a.unc)
    if a is not None and w is not None:
        first_in = min((a, w), key=lambda p: p.delivered)
        rec["arrival"] = 1.0 if first_in.button == truth else 0.0
        rec["random300"] = 0.5 if abs(a.delivered - w.delivered) / MS <= RANDOM_WINDOW_MS else rec["arrival"]
    else:
        only = a or w
        rec["arrival"] = rec["random300"] = 1.0 if only and only.button == truth else 0.0
    rt_phone = sent["stamp_ms"] - sent["armed_ms"]
    rt_wired = (t_wired - armed_ns) / MS
    rt_first, rt_other = (rt_phone, rt_wired) if truth == MIXED_PHONE else (rt_wired, rt_phone)
    rec["client_rt"] = 1.0 if rt_first < rt_other else (0.5 if rt_first == rt_other else 0.0)
    came = [p for p in presses if p.delivered <= decided_at]
    rec["decision_ms"] = (decided_at - max((p.delivered for p in came), default=decided_at)) / MS
    rec["wait_ms"] = max((p.quiet for p in came), default=0) / MS
    return rec


async def run_three_way(rig: Rig, pairs: int, seed: int) -> dict:
    """Races of a phone (5 ms away: ±25 ms or so) and two wired buttons 5 ms apart (B then C),
    the phone's touch drawn within 10 ms before B to 20 ms after it: both wired presses are
    inside the phone's interval, but C is surely after B: the game may tie the phone with B,
    never name C first (nor B after C)."""
    rng = random.Random(seed)
    proxy = Proxy(rig.server.port, Direction(5.0, 2.0, rng), Direction(5.0, 2.0, rng))
    port = await proxy.start()
    phone = SimPhone(port, rig.tokens[MIXED_PHONE], offset_ms=rng.uniform(-3e9, 3e9), drift_ppm=50.0,
                     touch_ms=rng.uniform(*TOUCH_BASE_MS), rng=random.Random(seed),
                     sync_interval_s=float(rig.cfg["phones"]["sync_interval_s"]))
    out = {"races": 0, "lost": 0, "phone": 0, "first_wired": 0, "second_wired": 0, "ties": 0,
           "wired_order_kept": 0}
    async with aiohttp.ClientSession() as session:
        task = asyncio.ensure_future(phone.run(session))
        try:
            if not await _wait_for(phone.joined.is_set, 10):
                raise RuntimeError("the phone did not join")
            await asyncio.sleep(WARMUP_S)
            rig.loop.take()
            for _ in range(pairs):
                rig.withdraw()
                await _wait_for(lambda: not phone.armed, 1.5)
                phone.armed_seen = None
                rig.arm()
                if not await _wait_for(lambda: phone.armed_seen is not None, 1.5):
                    out["lost"] += 1
                    continue
                t_b = time.monotonic_ns() + int(rng.uniform(20, 60) * MS)
                t_c, t_p = t_b + 5 * MS, t_b + int(rng.uniform(-10, 20) * MS)
                await asyncio.gather(phone.touch(t_p), _wired_press(rig, "B", t_b), _wired_press(rig, "C", t_c))
                got = await _wait_for(lambda: len(rig.loop.presses) >= 3 and rig.loop.decisions, 1.5)
                await asyncio.sleep(0.12)
                presses, decisions = rig.loop.take()
                if not got or not decisions:
                    out["lost"] += 1
                    continue
                log = decisions[0][1]
                out["races"] += 1
                out["ties"] += bool(log.get("within_ms"))
                winner = log.get("button")
                out[{"A": "phone", "B": "first_wired", "C": "second_wired"}.get(winner, "lost")] += 1
                order = [b for b in log.get("order") or () if b in ("B", "C")]
                out["wired_order_kept"] += order == ["B", "C"]
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await proxy.close()
    return out


# two wired buttons with a phone joined and without: the same decisions

WIRED_GAPS_MS = (0.01, 0.1, 1.0, 10.0)
"""Two wired presses this far apart (µs stamps through the sink; 0 would be an exact tie, decided
by the seeded lot whose draw depends on the game's history, not on the phones)."""


def _wired_pairs(rig: Rig, reps: int) -> list[dict]:
    """Races of teams B and C's wired buttons, ``WIRED_GAPS_MS`` apart, each first in turn: the
    engine's decision of each (its press order, whether it said a tie, the wait applied)."""
    out = []
    for _ in range(reps):
        for gap in WIRED_GAPS_MS:
            for first, second in (("B", "C"), ("C", "B")):
                rig.arm()
                time.sleep(0.03)
                rig.loop.take()
                now = rig.loop.clock.now()
                rig.loop.enqueue(Press(first, now, 0))
                later = now + int(gap * MS)
                while rig.loop.clock.now() < later:
                    time.sleep(0.0002)
                rig.loop.enqueue(Press(second, later, 0))
                for b, at in ((first, now), (second, later)):
                    rig.loop.enqueue(Release(b, at + MS, 0))
                end = time.monotonic() + 2
                while time.monotonic() < end and not rig.loop.decisions:
                    time.sleep(0.002)
                time.sleep(0.01)
                presses, decisions = rig.loop.take()
                log = decisions[0][1] if decisions else {}
                out.append({"gap_ms": gap, "first": first, "winner": log.get("button"),
                            "order": log.get("order"), "tie": bool(log.get("tie")),
                            "within_ms": log.get("within_ms"),
                            "wait_ms": max((p.quiet for p in presses), default=0) / MS})
    return out


async def wired_with_phone(rig: Rig, reps: int, seed: int) -> list[dict]:
    """:func:`_wired_pairs` while team A's phone is joined behind a 50 ms path (the races then
    wait for it: an earlier phone press may be on its way)."""
    rng = random.Random(seed)
    proxy = Proxy(rig.server.port, Direction(50.0, 20.0, rng), Direction(25.0, 20.0, rng))
    port = await proxy.start()
    phone = SimPhone(port, rig.tokens[MIXED_PHONE], offset_ms=rng.uniform(-3e9, 3e9), drift_ppm=50.0,
                     touch_ms=8.0, rng=random.Random(seed), sync_interval_s=float(rig.cfg["phones"]["sync_interval_s"]))
    async with aiohttp.ClientSession() as session:
        task = asyncio.ensure_future(phone.run(session))
        try:
            if not await _wait_for(phone.joined.is_set, 10):
                raise RuntimeError("the phone did not join")
            await asyncio.sleep(WARMUP_S)
            return await asyncio.to_thread(_wired_pairs, rig, reps)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await proxy.close()


def _wired_summary(rows: list[dict]) -> dict:
    return {"pairs": len(rows), "right": sum(r["winner"] == r["first"] and not r["tie"] for r in rows),
            "tie": sum(r["tie"] for r in rows),
            "wrong": sum(r["winner"] not in (None, r["first"]) and not r["tie"] for r in rows),
            "wait_ms_max": round(max((r["wait_ms"] for r in rows), default=0), 1)}


def mixed(quick: bool) -> dict:
    """The mixed cells (a phone against a wired button) and two wired buttons with and without
    a phone joined."""
    pairs = 4 if quick else 20
    reps = 2 if quick else 10
    rig = Rig(teams=4, phones=SWEEP_PHONES)
    records: list[dict] = []
    rows: list[dict] = []
    errors: list[str] = []
    try:
        time.sleep(0.3)
        alone = _wired_pairs(rig, reps)

        async def sweep():
            for i, cell in enumerate(mixed_cells(quick)):
                try:
                    rows.append(await run_mixed_cell(rig, cell, pairs, seed=2000 + i, records=records))
                except RuntimeError as exc:
                    errors.append(f"{cell}: {exc}"[:300])
                    rows.append(dict(cell, pairs=0, ours_right=0.0, ours_tie=0.0, ours_wrong=0.0, arrival=0.0,
                                     random300=0.0, client_rt=0.0))
            three.update(await run_three_way(rig, pairs * 2, seed=2998))
            return await wired_with_phone(rig, reps, seed=2999)
        three: dict = {}
        joined = asyncio.run(sweep())
    finally:
        rig.close()
    done = [r for r in records if not r["lost"]]
    above = [r for r in done if r["above_unc"]]
    beyond_tie = [r for r in done if r["beyond_tie"]]
    # the decision: who answers, and whether a tie was said (the press order may hold one press
    # more with the phone joined: a race waits for the phone, so a wired press 10 ms later comes
    # before its decision, where alone it came after it and was shown late)
    same = sum((x["winner"], x["tie"], x["within_ms"]) == (y["winner"], y["tie"], y["within_ms"])
               for x, y in zip(alone, joined))
    return {
        "phones_mixed_fairness": rows,
        "phones_mixed_pairs_per_cell": pairs,
        "phones_mixed_races_lost": len(records) - len(done),
        "phones_mixed_cell_errors": errors,
        "phones_mixed_wrong_calls": sum(r["ours"] == "wrong" for r in done),
        "phones_mixed_outside_unc": sum(r["outside"] for r in done),
        "phones_mixed_outside_unc_detail": [d for r in done for d in r["outside_detail"]][:20],
        "phones_mixed_wired_exact": {"presses": len(done), "exact": sum(r["wired_exact"] for r in done)},
        "phones_mixed_above_unc": {"pairs": len(above), "right": sum(r["ours"] == "right" for r in above),
                                   "tie": sum(r["ours"] == "tie" for r in above),
                                   "wrong": sum(r["ours"] == "wrong" for r in above)},
        "phones_mixed_beyond_tie": {"pairs": len(beyond_tie), "right": sum(r["ours"] == "right" for r in beyond_tie)},
        "phones_mixed_unc_ms_p50": round(percentile([u for r in done for u in r["unc_ms"]], 50), 1),
        "phones_mixed_decision_beyond_wait_p99_ms": round(percentile([r["decision_ms"] - r["wait_ms"] for r in done], 99), 2),
        "phones_mixed_three_way": three,
        "phones_mixed_wired_pairs": {"gaps_ms": list(WIRED_GAPS_MS), "without_phones": _wired_summary(alone),
                                     "with_phone": _wired_summary(joined), "same_decisions": same,
                                     "compared": min(len(alone), len(joined))},
    }


# ---------------------------------------------------------------------------
# 40 phones and the wired buttons

CROWD_SCRIPT = r"""
import asyncio, json, os, random, sys
sys.path.insert(0, sys.argv[1])
os.nice(19)   # the phones are in the hall, not programs on the controller
from phones import SimPhone
import aiohttp
async def main():
    port, tokens = int(sys.argv[2]), json.loads(sys.argv[3])
    rng = random.Random(5)
    phones = [SimPhone(port, tok, rng.uniform(-3e9, 3e9), rng.uniform(-100, 100), 8.0, random.Random(i))
              for i, tok in enumerate(tokens)]
    async with aiohttp.ClientSession() as s:
        tasks = [asyncio.ensure_future(p.run(s)) for p in phones]
        while not all(p.joined.is_set() for p in phones):
            for t in tasks:
                if t.done() and t.exception():
                    raise t.exception()
            await asyncio.sleep(0.05)
        print("ready", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        for t in tasks:
            t.cancel()
asyncio.run(main())
"""


def _wired(rig: Rig, n: int) -> tuple[list[float], list[float], list[float]]:
    """``n`` races of one wired press (team A's button, stamped at the sink as a GPIO edge is):
    decision after the press, decision after the arbiter's deadline, the wait applied (ms)."""
    raw, beyond, waits = [], [], []
    for _ in range(n):
        rig.arm()
        time.sleep(0.03)
        rig.loop.take()
        now = rig.loop.clock.now()
        rig.loop.enqueue(Press("A", now, now))
        rig.loop.enqueue(Release("A", now + MS, now + MS))
        end = time.monotonic() + 2
        while time.monotonic() < end and not rig.loop.decisions:
            time.sleep(0.002)
        time.sleep(0.01)
        presses, decisions = rig.loop.take()
        if not decisions or not presses:
            continue
        p, at = presses[0], decisions[0][0]
        due = max(p.at + rig.settle_ns, p.delivered + p.quiet)
        raw.append((at - p.at) / MS)
        beyond.append((at - due) / MS)
        waits.append(p.quiet / MS)
    return raw, beyond, waits


def wired(quick: bool) -> dict:
    n = 40 if quick else 300
    rig = Rig(teams=4, phones={"max_phones_per_team": 16})
    try:
        time.sleep(0.3)
        raw0, beyond0, _ = _wired(rig, n // 2)
        tokens = rig.tokens
        crowd = [tokens["BCD"[i % 3]] for i in range(CROWD)]
        child = subprocess.Popen([sys.executable, "-c", CROWD_SCRIPT, str(Path(__file__).parent),
                                  str(rig.server.port), json.dumps(crowd)],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            line = child.stdout.readline().strip()
            if line != "ready":
                raise RuntimeError(f"the 40 phones did not join: {line!r}")
            time.sleep(1.0)
            raw1, beyond1, waits = _wired(rig, n)
        finally:
            child.stdin.write("\n")
            child.stdin.close()
            try:
                child.wait(10)
            except subprocess.TimeoutExpired:
                child.kill()
        time.sleep(0.5)
        raw2, beyond2, _ = _wired(rig, n // 2)
    finally:
        rig.close()
    alone_raw, alone_beyond = raw0 + raw2, beyond0 + beyond2
    return {
        "phones_wired_trials": {"none": len(alone_raw), "phones": len(raw1)},
        "phones_wired_crowd": CROWD,
        "phones_wired_decision_p99_ms_none": round(percentile(alone_raw, 99), 2),
        "phones_wired_decision_p99_ms_phones": round(percentile(raw1, 99), 2),
        "phones_wired_wait_ms": round(statistics.median(waits), 2) if waits else None,
        "phones_wired_decision_p99_delta_ms": round(percentile(beyond1, 99) - percentile(alone_beyond, 99), 2),
        "phones_wired_decision_p99_delta_with_wait_ms": round(percentile(raw1, 99) - percentile(alone_raw, 99), 2),
    }


# ---------------------------------------------------------------------------

def fairness(quick: bool) -> dict:
    pairs = 6 if quick else 20
    rig = Rig(teams=4, phones=SWEEP_PHONES)
    records: list[dict] = []
    rows: list[dict] = []
    errors: list[str] = []
    try:
        time.sleep(0.3)

        async def sweep():
            for i, cell in enumerate(cells(quick)):
                try:
                    rows.append(await run_cell(rig, cell, pairs, seed=1000 + i, records=records))
                except RuntimeError as exc:   # the cell's phones could not play: said, not hidden
                    errors.append(f"{cell}: {exc}"[:300])
                    rows.append(dict(cell, pairs=0, ours_right=0.0, ours_tie=0.0, ours_wrong=0.0, arrival=0.0,
                                     random300=0.0, client_rt=0.0))
        asyncio.run(sweep())
    finally:
        rig.close()
    done = [r for r in records if not r["lost"]]
    above = [r for r in done if r["above_unc"]]
    beyond_tie = [r for r in done if r["beyond_tie"]]
    dec = [r["decision_ms"] for r in done]
    beyond = [r["decision_ms"] - r["wait_ms"] for r in done]
    return {
        "phones_fairness": rows,
        "phones_pairs_per_cell": pairs,
        "phones_races_lost": len(records) - len(done),
        "phones_cell_errors": errors,
        "phones_decision_p50_ms": round(percentile(dec, 50), 2),
        "phones_decision_p99_ms": round(percentile(dec, 99), 2),
        "phones_decision_beyond_wait_p99_ms": round(percentile(beyond, 99), 2),
        "phones_wait_ms_max": round(max((r["wait_ms"] for r in done), default=0), 1),
        "phones_touch_to_decision_p99_ms": round(percentile([r["touch_to_decision_ms"] for r in done], 99), 2),
        "phones_above_unc": {"pairs": len(above), "right": sum(r["ours"] == "right" for r in above),
                             "tie": sum(r["ours"] == "tie" for r in above),
                             "wrong": sum(r["ours"] == "wrong" for r in above)},
        "phones_beyond_tie": {"pairs": len(beyond_tie), "right": sum(r["ours"] == "right" for r in beyond_tie)},
        "phones_wrong_calls": sum(r["ours"] == "wrong" for r in done),
        "phones_outside_unc": sum(r["outside"] for r in done),
        "phones_outside_unc_flags": sorted({f for r in done for fl in r["outside_flags"] for f in fl}),
        "phones_outside_unc_detail": [d for r in done for d in r["outside_detail"]][:20],
        "phones_flagged_presses": {f: sum(f in r["flags"] for r in done)
                                   for f in sorted({f for r in done for f in r["flags"]})},
        "phones_presses": 2 * len(done),
        "phones_unc_ms_p50": round(percentile([u for r in done for u in r["unc_ms"]], 50), 1),
    }


def run(quick: bool = False) -> dict:
    load0 = [round(x, 2) for x in os.getloadavg()]
    out = fairness(quick)
    load1 = [round(x, 2) for x in os.getloadavg()]
    out.update(mixed(quick))
    out.update(wired(quick))
    out["phones_loadavg"] = {"start": load0, "after_sweep": load1, "end": [round(x, 2) for x in os.getloadavg()]}
    return out


def table(rows: list[dict], title: str = "phones: fraction won by the true first presser (ours: right / tie / wrong)"
          ) -> list[str]:
    """The sweep as text: one line a cell (with the ``first`` column when the rows have one: the mixed cells)."""
    first = bool(rows) and "first" in rows[0]
    out = [title, (f"{'first':>6} " if first else "") + f"{'gap':>6} {'delay':>6} {'jit':>5} {'drift':>6} {'pairs':>5}  "
           f"{'ours r/t/w':>17}  {'arrival':>7} {'rnd300':>6} {'cl_rt':>6}"]
    for r in rows:
        out.append((f"{r['first']:>6} " if first else "") +
                   f"{r['gap_ms']:>6g} {r['delay_ms']:>6g} {r['jitter_ms']:>5g} {r['drift_ppm']:>6g} {r['pairs']:>5}  "
                   f"{r['ours_right']:.2f}/{r['ours_tie']:.2f}/{r['ours_wrong']:.2f}  "
                   f"{r['arrival']:>7.2f} {r['random300']:>6.2f} {r['client_rt']:>6.2f}")
    return out


def markdown_table(rows: list[dict]) -> list[str]:
    """The sweep as a markdown table (with the ``first`` column when the rows have one: the mixed cells)."""
    first = bool(rows) and "first" in rows[0]
    delay = "phone's delay ms" if first else "slower phone's delay ms"
    out = [("| first " if first else "") + f"| gap ms | {delay} | jitter ms | drift ppm | pairs | ours right | ours tie | "
           "ours wrong | arrival | random 300 ms | client RT |",
           ("|---" if first else "") + "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append((f"| {r['first']} " if first else "") +
                   f"| {r['gap_ms']:g} | {r['delay_ms']:g} | {r['jitter_ms']:g} | {r['drift_ppm']:g} | {r['pairs']} | "
                   f"{r['ours_right']:.2f} | {r['ours_tie']:.2f} | {r['ours_wrong']:.2f} | {r['arrival']:.2f} | "
                   f"{r['random300']:.2f} | {r['client_rt']:.2f} |")
    return out


MIXED_TITLE = "phones mixed with wired buttons: fraction won by the true first presser (ours: right / tie / wrong)"


if __name__ == "__main__":
    res = run("--quick" in sys.argv)
    print("\n".join(table(res["phones_fairness"])))
    print("\n".join(table(res["phones_mixed_fairness"], MIXED_TITLE)))
    print(json.dumps({k: v for k, v in res.items() if k not in ("phones_fairness", "phones_mixed_fairness")},
                     indent=1, ensure_ascii=False))
