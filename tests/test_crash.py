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
