"""Festival figures (issue #16, docs/performance.md «Festival»): a real mosquitto on 127.0.0.1,
10 halls × 4 teams × 1,000 events each, published by the hall's own Publisher threads;
one board in its own process.

* event -> board latency p50 / p99 (the hall's offer to the board's receipt), at a
  game's pace (each hall 50 events/s) and as fast as possible;
* messages per second the board takes (as fast as possible);
* the board's CPU (its process, user + system, per 1,000 messages);
* the hall's decision latency (the loop's journal + engine step of a press, a Tick)
  with publishing on (``attach``: the publisher's own process, as in ``buzzer run``) and
  off: p99 delta.

    python benchmarks/festival.py [--quick]        (or: python benchmarks/run.py --only festival)
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def _events(n: int, offset_ns: int = 0) -> list[dict]:
    """A hall's game: questions, a press each, the host's ruling, clock records."""
    from controller.sessions.journal import encode_event
    from controller.core.events import Host, Press, Release, Tick

    out = []
    t = offset_ns + 1_000_000_000
    i = 0
    while len(out) < n:
        button = "ABCD"[i % 4]
        out += [encode_event(Host("question", t, {})), encode_event(Press(button, t + 300_000_000, t + 300_000_000)),
                encode_event(Tick(t + 310_000_000)), encode_event(Release(button, t + 350_000_000, t + 350_000_000)),
                encode_event(Host("right", t + 500_000_000, {}))]
        t += 1_000_000_000
        i += 1
    return out[:n]


def _board(url: str, expected: int, out: str) -> None:
    """The board's process: take every event, then write latencies and CPU."""
    from controller.festival.hall import broker_of
    from controller.festival.results import Listener

    lst = Listener(broker_of({"username": "", "password": ""}, url))
    lst.start()
    while not lst.subscribed:
        lst.pump(0.05)
    Path(out + ".ready").write_text("1")
    first = None
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        lst.pump(0.05)
        n = sum(g.contiguous for g in lst.festival.games.values())
        if n and first is None:
            first = time.monotonic()
        if n >= expected:
            break
    last = time.monotonic()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    lst.close()
    Path(out).write_text(json.dumps({"latencies": list(lst.festival.latencies), "events": n,
                                     "seconds": last - (first or last), "cpu_s": usage.ru_utime + usage.ru_stime,
                                     "duplicates": lst.festival.duplicates}))


def _run(broker, halls: int, per_hall: int, pace_s: float, folder: Path) -> dict:
    from controller.app import config
    from controller.festival.hall import broker_of
    from controller.festival.publisher import Publisher

    out = str(folder / f"board-{pace_s}.json")
    board = subprocess.Popen([sys.executable, __file__, "--board", broker.url, str(halls * per_hall), out])
    while not Path(out + ".ready").exists():
        time.sleep(0.05)
    cfg = config.load(None, {"mode": "erudite"})
    info = {"mode": "erudite", "config": {k: v for k, v in cfg.items() if k != "festival"}, "seed": 1,
            "started": "benchmark"}
    pubs = []
    for h in range(halls):
        p = Publisher(broker_of({"username": "", "password": ""}, broker.url), f"hall{h}", "bench",
                      folder / f"state-{pace_s}-{h}")
        p.start()
        p.begin_game(f"{h:04x}{int(pace_s * 1000):012x}", info, [])
        pubs.append(p)
    games = [_events(per_hall) for _ in range(halls)]
    start = time.monotonic()
    if pace_s:
        for i in range(per_hall):
            for h, p in enumerate(pubs):
                p.offer([games[h][i]])
            time.sleep(max(0.0, start + (i + 1) * pace_s - time.monotonic()))
    else:
        for h, p in enumerate(pubs):
            p.offer(games[h])
    for p in pubs:
        p.close(60)
    board.wait(600)
    r = json.loads(Path(out).read_text())
    lat = sorted(x * 1000 for x in r["latencies"])
    return {"p50_ms": round(statistics.median(lat), 2), "p99_ms": round(lat[int(len(lat) * 0.99) - 1], 2),
            "msgs_per_s": round(r["events"] / r["seconds"]) if r["seconds"] else None, "events": r["events"],
            "board_cpu_s": round(r["cpu_s"], 2), "board_cpu_ms_per_1000": round(r["cpu_s"] * 1e6 / max(r["events"], 1), 1),
            "duplicates": r["duplicates"]}


def _decisions(publish: bool, n: int, folder: Path, url: str) -> list[float]:
    """Wall time of the loop taking one event (journal, engine, effects; the publisher's offer)."""
    from controller.app import config
    from controller.sessions import journal as journal_mod
    from controller.app.loop import Loop
    from controller.games import engine
    from controller.inputs.clock import ManualClock
    from controller.core.events import Host, Press, Release
    from controller.festival.hall import attach

    from controller.app.loop import SWITCH_INTERVAL_S

    sys.setswitchinterval(SWITCH_INTERVAL_S)   # as buzzer run sets it
    d = folder / ("on" if publish else "off")
    over = {"journal": {"dir": str(d), "fsync": False}}
    if publish:
        over["festival"] = {"broker": url, "hall": "decide", "competition": "bench"}
    cfg = config.load(None, over)
    jr = journal_mod.Journal(journal_mod.current_path(d), header=journal_mod.new_header(cfg, 1, None), fsync=False)
    clock = ManualClock(1_000_000_000)
    loop = Loop(cfg, engine.new_game(cfg, 1), clock, journal=jr, out=open(os.devnull, "w"))
    pub = attach(loop, cfg) if publish else None
    times = []
    for i in range(n):
        button = "ABCD"[i % 4]
        for ev in (Host("question", clock.now(), {}), Press(button, clock.now() + 1, clock.now() + 1),
                   None, Release(button, clock.now() + 2, clock.now() + 2), Host("right", clock.now() + 3, {})):
            clock.advance(5_000_000)
            t0 = time.perf_counter()
            if ev is None:
                loop.tick_if_due()      # the decision: the settle window is over
            else:
                loop.enqueue(ev)
                loop.drain()
            times.append((time.perf_counter() - t0) * 1000)
    if pub is not None:
        pub.close(10)
    return sorted(times)


def fuzz(n: int = 10000) -> dict:
    """``n`` malformed or foreign variants of a real game's messages into a board: it
    never raises and no result changes (the mutations of tests/test_festival_board.py)."""
    import random

    from controller.games import engine
    from controller.app import config
    from controller.sessions.journal import decode_event
    from controller.festival import link
    from controller.festival.results import Festival
    from test_festival_board import _mutations

    cfg = {k: v for k, v in config.load(None).items() if k != "festival"}
    game, base = "00c0ffee00c0ffee", {"hall": "Зал 1", "competition": "bench"}
    top = link.topic(link.DEFAULT_PREFIX, "bench", "Зал 1", game)
    msgs = [(top + "/info", link.encode({**base, "game": game, "mode": "erudite", "config": cfg, "seed": 1}))]
    state = engine.new_game(cfg, 1)
    for seq, rec in enumerate(_events(300), start=1):
        msgs.append((top + "/events", link.encode({**base, "game": game, "seq": seq, "event": rec})))
        try:
            state, _ = engine.step(state, decode_event(rec))
        except Exception:
            pass
    summary = engine.summary(state)
    msgs.append((top + "/standings", link.encode({**base, "game": game, "seq": 300, "mode": "erudite",
                                                  "finished": False, "standings": summary["standings"],
                                                  "summary": summary, "view": {}})))
    board = Festival()
    for t, p in msgs:
        board.handle(t, p)
    before = board.results()
    rng = random.Random(16)
    t0 = time.perf_counter()
    for _ in range(n):
        board.handle(*_mutations(rng, *rng.choice(msgs), link.DEFAULT_PREFIX))
    spent = time.perf_counter() - t0
    return {"messages": n, "ignored": board.ignored, "results_unchanged": board.results() == before,
            "per_message_us": round(spent / n * 1e6, 1)}


def measure(quick: bool = False) -> dict:
    from mosquitto import Broker

    halls, per_hall = (2, 100) if quick else (10, 1000)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        broker = Broker(folder / "broker", persistence=False).start()
        try:
            paced = _run(broker, halls, per_hall, 0.02, folder)
            fast = _run(broker, halls, per_hall, 0.0, folder)
            n = 200 if quick else 2000
            off = _decisions(False, n, folder, broker.url)
            on = _decisions(True, n, folder, broker.url)
        finally:
            broker.stop()
    p99 = lambda xs: xs[int(len(xs) * 0.99) - 1]  # noqa: E731
    fuzzed = fuzz(2000 if quick else 10000)
    return {
        "festival_latency_p50_ms": paced["p50_ms"],
        "festival_latency_p99_ms": paced["p99_ms"],
        "festival_msgs_per_s": fast["msgs_per_s"],
        "festival_hall_decision_p99_delta_ms": round(p99(on) - p99(off), 3),
        "festival_fuzz": fuzzed,
        "festival_detail": {"halls": halls, "teams": 4, "events_per_hall": per_hall,
                            "paced_50_per_s_per_hall": paced, "as_fast_as_possible": fast,
                            "decision_p99_ms_off": round(p99(off), 3), "decision_p99_ms_on": round(p99(on), 3),
                            "decision_p50_ms_off": round(statistics.median(off), 3),
                            "decision_p50_ms_on": round(statistics.median(on), 3)},
    }


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--board":
        _board(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    else:
        print(json.dumps(measure("--quick" in sys.argv), indent=1))
