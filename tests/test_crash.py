"""SIGKILL at random points of a scripted game; the journal brings it back exactly."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "soak"))

from crash_soak import soak  # noqa: E402

KILL_POINTS = 200


def test_sigkill_at_200_random_points_loses_nothing(tmp_path, record_property):
    stats = soak(KILL_POINTS, seed=3, workdir=tmp_path)
    record_property("crash_stats", stats)
    print(f"crash test: {stats}")
    # every kill point was checked inside soak(): journal = prefix of the fed events,
    # replay = the state the process had reached, resumed game = uninterrupted game
    assert stats["kill_points"] == KILL_POINTS


def test_a_damaged_middle_record_is_kept_whole_and_the_game_resumes_before_it(tmp_path):
    """One character changed in a record in the middle of a finished drill's journal: the
    resume replays only the records before it (the drill then feeds the rest again, as the
    host would play it), ends exactly like the uninterrupted game, and the original file,
    every byte of it, is kept in the archive with "damaged" in its name."""
    import json
    import os
    import random
    import subprocess

    from crash_soak import ROOT, comparable, drill_cmd, make_game, reference

    from controller.sessions import journal

    script = make_game(tmp_path / "game.jsonl", seed=3)
    ref = reference(script)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    rng = random.Random(7)
    for attempt in range(3):
        jdir = tmp_path / f"journal-{attempt}"
        subprocess.run(drill_cmd(jdir, script, "--no-fsync"), cwd=ROOT, env=env, check=True, timeout=120)
        path = journal.current_path(jdir)
        lines = path.read_bytes().splitlines(keepends=True)
        k = rng.randrange(3, len(lines) - 1)                  # 1-based line, neither the header nor the last
        damaged = bytearray(lines[k - 1])
        damaged[12] ^= 0x01
        lines[k - 1] = bytes(damaged)
        original = b"".join(lines)
        path.write_bytes(original)
        out = subprocess.run(drill_cmd(jdir, script, "--resume"), cwd=ROOT, env=env, capture_output=True,
                             text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        result = json.loads(out.stdout)
        assert result["replayed"] == k - 2                       # the events before the damaged line only
        assert comparable(result) == ref
        kept = list((jdir / "archive").glob("*damaged*.jsonl"))
        assert len(kept) == 1 and kept[0].read_bytes() == original
        assert path.read_bytes()[:sum(map(len, lines[:k - 1]))] == b"".join(lines[:k - 1])
