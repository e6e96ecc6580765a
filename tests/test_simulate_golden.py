"""The golden-output guard of ``buzzer simulate`` (issue #13; docs/testing.md).

tests/golden/simulate.json holds the digests (stdout, stderr, exit code) of every
example and of the generated scripts of tests/golden/corpus.py, made by the
baseline tree.  These tests regenerate the scripts with the same seed, play the
examples and the first ``corpus.TEST_PER_GAME`` scripts of every game with this
checkout's ``buzzer simulate`` and require the same bytes; a difference is
reported with the script and a diff against the baseline's own output.  The full
corpus: ``python tests/golden/corpus.py check``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))
import corpus  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def committed() -> dict:
    return corpus.load_digests()


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return corpus.corpus(corpus.TEST_PER_GAME)


@pytest.fixture(scope="module")
def results(cases) -> dict[str, dict]:
    return corpus.run(ROOT, cases)


def test_simulate_output_is_the_baselines(cases, results, committed):
    """Every example and the first scripts of each game print what the baseline printed."""
    differ = corpus.compare(results, committed["digests"])
    assert not differ, (f"{len(differ)} of {len(results)} scripts print something else than the baseline "
                        f"({committed.get('baseline')}): {', '.join(differ[:10])}\n"
                        + corpus.explain(differ, cases, results, committed.get("baseline")))


def test_the_committed_file_is_this_generators_corpus(committed):
    """simulate.json was made from this generator and seed: it names exactly the scripts that
    corpus.py generates, each of them reproducible (a changed generator needs a new baseline)."""
    assert committed["seed"] == corpus.SEED
    names = [c["name"] for c in corpus.corpus(committed["per_game"])]
    assert sorted(names) == sorted(committed["digests"])
    assert committed["per_game"] >= corpus.TEST_PER_GAME
    again = corpus.generate("erudite", 5)
    assert again == corpus.generate("erudite", 5)
    assert corpus.generate("erudite", 3) == again[:3], "a smaller corpus must be a prefix of a larger one"


def test_the_scripts_reach_deep_game_states(results):
    """The guard is not trivial: most scripts run without error, many games are finished with a
    winner, and the presses reach every kind of decision (ties, early presses, false starts ...)."""
    stats = corpus.stats(results)
    for game in corpus.GAMES:
        g = stats[game]
        assert g["crashes"] == 0, f"{game}: a script ended in a traceback"
        assert g["errors"] <= 0.2 * g["scripts"], f"{game}: {g['errors']} of {g['scripts']} scripts stop on an error"
        assert g["finished"] >= 0.15 * g["scripts"], f"{game}: only {g['finished']} games finished"
        assert g["winner"] >= 0.1 * g["scripts"], f"{game}: only {g['winner']} games with a winner"
    assert {"answer", "lockout", "early", "blocked", "locked", "disabled"} <= stats["erudite"]["presses"]
    assert {"answer", "lockout", "early", "blocked", "locked"} <= stats["own-game"]["presses"]
    assert {"answer", "false_start", "out", "early"} <= stats["brain-ring"]["presses"]
    assert {"shootout_over", "appeal", "answers_closed", "warning"} <= stats["chgk"]["events"]
    assert {"mafia.silenced", "mafia.removed", "mafia.warning", "mafia.undo", "mafia.game_end"} <= stats["mafia"]["events"]
    assert {"round", "round_over", "game_over"} <= stats["programme"]["events"]
    for game in ("erudite", "own-game", "brain-ring"):
        assert {"withdraw", "pause", "resume", "rename", "time_up", "refused"} <= stats[game]["events"], game
    # the one-line errors of bad scripts are part of the corpus too
    errors = [r["stderr"] for r in results.values() if r["code"] == 2]
    assert any("нет действия ведущего" in e for e in errors) and any("ошибка в JSON" in e for e in errors)
    assert all(e.startswith("buzzer: ") and e.count("\n") == 1 for e in errors)


def test_a_difference_is_reported_with_a_readable_diff(results):
    """What a failing check shows: the exit code, stderr and stdout lines that changed."""
    name = next(n for n, r in results.items() if r["code"] == 0 and n.startswith("own-game/"))
    old = results[name]
    data = json.loads(old["stdout"])
    first = next(iter(data["scores"]))
    data["scores"][first] += 100
    new = dict(old, stdout=json.dumps(data, ensure_ascii=False, indent=1) + "\n")
    assert corpus.digest(new) != corpus.digest(old)
    assert corpus.compare({name: new}, {name: corpus.digest(old)}) == [name]
    diff = corpus.readable_diff(old, new)
    assert f'-  "{first}": {json.loads(old["stdout"])["scores"][first]}' in diff
    assert f'+  "{first}": {data["scores"][first]}' in diff
    crashed = dict(old, stdout="", stderr="buzzer: x.jsonl:3: unknown team 'Z'\n", code=2)
    diff = corpus.readable_diff(old, crashed)
    assert diff.startswith("exit code: baseline 0, now 2\nstderr, baseline: ''\n"
                           "stderr, now:      \"buzzer: x.jsonl:3: unknown team 'Z'\\n\"\n--- baseline stdout\n")
    assert corpus.readable_diff(old, dict(old)) == ""
