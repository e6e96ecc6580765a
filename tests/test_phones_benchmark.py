"""The phones benchmark's behaviour (not its timing): its proxy delays each direction on its own
without reordering, its phones join the real server and their presses are decided by the game,
and every rule is judged on the same trace (benchmarks/phones.py, docs/phones.md)."""

from __future__ import annotations

import asyncio
import importlib.util
import random
import time
from pathlib import Path

import pytest

PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "phones.py"
KEYS = {"gap_ms", "delay_ms", "jitter_ms", "drift_ppm", "pairs", "ours_right", "ours_tie", "ours_wrong",
        "arrival", "random300", "client_rt"}


@pytest.fixture(scope="module")
def phones():
    spec = importlib.util.spec_from_file_location("bench_phones", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_proxy_delays_each_direction_by_its_own_path_and_keeps_the_order(phones):
    async def scenario():
        got: list[tuple[bytes, float]] = []

        async def echo(reader, writer):
            while data := await reader.read(100):
                writer.write(data)
                await writer.drain()
            writer.close()

        server = await asyncio.start_server(echo, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        rng = random.Random(1)
        proxy = phones.Proxy(port, phones.Direction(60, 30, rng), phones.Direction(10, 0, rng))
        pport = await proxy.start()
        reader, writer = await asyncio.open_connection("127.0.0.1", pport)
        t0 = time.monotonic()
        for i in range(5):
            writer.write(bytes([65 + i]))
            await writer.drain()
            await asyncio.sleep(0.005)
        data = b""
        while len(data) < 5:
            chunk = await reader.read(100)
            data += chunk
            got.append((chunk, time.monotonic() - t0))
        writer.close()
        await proxy.close()
        server.close()
        return data, got

    data, got = asyncio.run(scenario())
    assert data == b"ABCDE"                        # jitter never reorders a direction
    assert got[0][1] >= 0.070                      # 60 ms up + 10 ms down at least
    assert got[-1][1] < 0.5


def test_a_cell_through_the_real_server_is_judged_by_every_rule(phones):
    rig = phones.Rig(teams=4, phones=phones.SWEEP_PHONES)
    records: list = []
    try:
        cell = dict(gap_ms=150.0, delay_ms=5.0, jitter_ms=2.0, drift_ppm=100.0)
        row = asyncio.run(phones.run_cell(rig, cell, pairs=4, seed=3, records=records))
    finally:
        rig.close()
    assert set(row) == KEYS
    assert row["pairs"] >= 3
    # 150 ms apart on a quiet 5 ms path: far beyond both presses' uncertainty, and the
    # game names the true first presser every time; so does arrival order on such a path
    assert row["ours_right"] == 1.0 and row["ours_tie"] == 0.0 and row["ours_wrong"] == 0.0
    assert row["arrival"] == 1.0
    assert row["random300"] == 0.5                 # both inside SIGame's 300 ms window: a draw
    done = [r for r in records if not r["lost"]]
    assert all(r["above_unc"] and r["outside"] == 0 for r in done)
    assert all(0 < u < 60 for r in done for u in r["unc_ms"])
    assert all(r["decision_ms"] >= r["wait_ms"] - 1 for r in done)   # the race waited for the phones


def test_tables_carry_every_cell(phones):
    row = dict(gap_ms=1.0, delay_ms=50.0, jitter_ms=20.0, drift_ppm=50.0, pairs=20, ours_right=0.0,
               ours_tie=1.0, ours_wrong=0.0, arrival=0.45, random300=0.5, client_rt=0.4)
    text = phones.table([row])
    md = phones.markdown_table([row])
    assert "1.00" in text[-1] and text[-1].split()[:5] == ["1", "50", "20", "50", "20"]
    assert md[-1].startswith("| 1 | 50 | 20 | 50 | 20 | 0.00 | 1.00 | 0.00 | 0.45 | 0.50 | 0.40 |")


def test_a_phone_against_a_wired_button_both_ways_and_two_wired_buttons_decide_as_without_phones(phones):
    """A mixed cell: a phone through its proxy against a wired button's exact stamp, 150 ms apart
    each way round: beyond the phone's uncertainty, so the true first is named, and the wired
    press keeps its stamp with no uncertainty.  Two wired buttons 10 µs to 10 ms apart with a
    phone joined are decided as without it (the same winner, no tie); with a phone pressing too,
    the later of two wired presses inside its uncertainty is never named first."""
    rig = phones.Rig(teams=4, phones=phones.SWEEP_PHONES)
    records: list = []
    try:
        alone = phones._wired_pairs(rig, 1)
        rows = [asyncio.run(phones.run_mixed_cell(rig, dict(gap_ms=150.0, delay_ms=5.0, jitter_ms=2.0, drift_ppm=50.0,
                                                            first=first), pairs=3, seed=5, records=records))
                for first in ("phone", "wired")]
        joined = asyncio.run(phones.wired_with_phone(rig, 1, seed=6))
        three = asyncio.run(phones.run_three_way(rig, 4, seed=7))
    finally:
        rig.close()
    # a phone and two wired buttons 5 ms apart inside its uncertainty: the second never first
    assert three["races"] >= 3 and three["second_wired"] == 0 and three["wired_order_kept"] == three["races"]
    assert three["phone"] + three["first_wired"] == three["races"]
    for row, first in zip(rows, ("phone", "wired")):
        assert set(row) == KEYS | {"first"} and row["first"] == first
        assert row["pairs"] >= 2 and row["ours_right"] == 1.0, row
    done = [r for r in records if not r["lost"]]
    assert {r["truth"] for r in done} == {"A", "B"}
    assert all(r["wired_exact"] and r["outside"] == 0 and r["above_unc"] for r in done)
    assert len(alone) == len(joined) == 2 * len(phones.WIRED_GAPS_MS)
    for x, y in zip(alone, joined):
        assert x["winner"] == y["winner"] == x["first"] and not x["tie"] and not y["tie"]
    assert max(r["wait_ms"] for r in joined) > 0 == max(r["wait_ms"] for r in alone)   # the phone was joined
    row = dict(rows[0], pairs=20)
    assert phones.table([row], phones.MIXED_TITLE)[-1].split()[:2] == ["phone", "150"]
    assert phones.markdown_table([row])[-1].startswith("| phone | 150 | 5 | 2 | 50 | 20 | 1.00 | 0.00 | 0.00 |")
