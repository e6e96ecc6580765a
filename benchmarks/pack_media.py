"""A big SIGame package on a Pi's budget (issue 25): load time and peak memory of a generated
~100 MB package with 500 pictures, played through -- every cell opened, its picture drawn on
the projector (1920×1080, pygame headless), ruled right, its answer shown -- in a process
under the e2e benchmark's CPU quota (benchmarks/e2e_fairness.py ``Throttle``).

    python benchmarks/run.py --only pack_media

The package is written here (tests/packs/make_packs.py ``noisy_pictures``: pictures of random
pixels, which do not compress).  The child (``python benchmarks/pack_media.py PACK``) prints one
JSON line: seconds to read the package and open its media, seconds to play it through, its peak
resident memory, the decoded-picture cache's peak, and the bytes written to the media folder
(0: pictures are decoded from memory, nothing is copied at start).
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def child(pack: str) -> dict:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    sys.path.insert(0, str(REPO))
    t0 = time.perf_counter()
    from controller.app import config
    from controller.content import packs
    from controller.games import engine
    from controller.core.events import Host, Press, Tick
    from controller.sdl import pygame
    from controller.screens.scoreboard import Scoreboard

    cfg = config.load(str(REPO / "config" / "own-game.toml"))
    assert packs.attach(cfg, pack, out=sys.stderr, strict=True)
    media = packs.open_media(cfg, out=sys.stderr)
    state = engine.new_game(cfg, 1)
    load_s = time.perf_counter() - t0
    rss_load = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    pygame.display.init()
    pygame.font.init()
    board = Scoreboard((1920, 1080), lang="ru")
    board.pack.media_data = media.data
    board.pack.cache_bytes = int(cfg["own_game"]["pack_picture_cache_mb"] * 1024 * 1024)
    surface = pygame.Surface((1920, 1080))
    t1 = time.perf_counter()
    now, pictures, cache_peak = 1_000_000_000, 0, 0
    button = cfg["teams"][0]["button"]

    def step(ev):
        nonlocal state
        state, _ = engine.step(state, ev)

    data = cfg["own_game"]["package"]
    for rn, rnd in enumerate(data["rounds"]):
        if rn:
            now += 10_000_000
            step(Host("pack_round", now, {}))
        for tn, th in enumerate(rnd["themes"]):
            for cn, _q in enumerate(th["questions"]):
                now += 100_000_000
                step(Host("pick", now, {"theme": tn + 1, "cell": cn + 1}))
                view = engine.view(state, now)
                board.draw(surface, view, now)
                pictures += bool(view["pack"]["question"]["media"]["image"])
                cache_peak = max(cache_peak, board.pack.cached_bytes)
                now += 100_000_000
                step(Host("reading_done", now, {}))
                now += 10_000_000
                step(Press(button, now, now))
                now += 10_000_000
                step(Tick(now))
                step(Host("right", now + 1_000_000, {}))
                now += 3_000_000_000
                step(Tick(now))             # the answer has been shown: the board
    play_s = time.perf_counter() - t1
    written = sum(f.stat().st_size for f in media.store.folder.iterdir() if f.name != ".buzzer-media.lock")
    media.close()
    return {"load_s": round(load_s, 3), "play_s": round(play_s, 2), "pictures_drawn": pictures,
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "rss_after_load_mb": round(rss_load / 1024, 1), "cache_peak_mb": round(cache_peak / 2 ** 20, 1),
            "media_written_mb": round(written / 2 ** 20, 1), "score": state.scores[0]}


def measure(quick: bool, throttle_cls=None) -> dict:
    """The benchmark row (run.py ``pack_media``): the child plain and under the quota."""
    import subprocess
    import tempfile

    sys.path.insert(0, str(REPO / "tests" / "packs"))
    import make_packs

    n = 100 if quick else 500
    out: dict = {}
    with tempfile.TemporaryDirectory(prefix="buzzer-bench-pack-") as tmp:
        pack = make_packs.noisy_pictures(Path(tmp) / "big.siq", pictures=n)
        out["pack_media_package_mb"] = round(pack.stat().st_size / 2 ** 20, 1)
        out["pack_media_pictures"] = n
        env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1",
                   TMPDIR=tmp)

        def run(procs: str | None) -> dict:
            def join():
                with open(procs, "w") as f:
                    f.write(str(os.getpid()))
            r = subprocess.run([sys.executable, __file__, str(pack)], env=env, capture_output=True, text=True,
                               preexec_fn=join if procs else None, timeout=3600)
            if r.returncode != 0:
                raise RuntimeError(r.stderr[-400:])
            return json.loads(r.stdout.strip().splitlines()[-1])

        for k, v in run(None).items():
            out[f"pack_media_{k}"] = v
        if throttle_cls is not None:
            try:
                with throttle_cls() as th:
                    out["pack_media_throttle"] = th.describe().split(", group")[0]
                    for k, v in run(th.procs).items():
                        out[f"pack_media_{k}_throttled"] = v
            except Exception as exc:  # no cgroup here: said, not hidden
                out["pack_media_throttle"] = f"unavailable: {exc}"
    return out


if __name__ == "__main__":
    print(json.dumps(child(sys.argv[1])))
