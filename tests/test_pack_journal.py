"""A SIGame package in the journal (issue 24, item 14): the header names the package by its
sha256 and a copy of the package is kept beside the journal, instead of the whole package text
in every game's header (a 29 MB content.xml wrote a 31 MB header per game). A resume reads the
copy: exact even when the original file is changed or gone. Packages are generated
(tests/packs/make_packs.py)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from controller.sessions import journal

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "packs"))
import make_packs  # noqa: E402

OWN_GAME = ROOT / "config" / "own-game.toml"


def _run(cwd: Path, *extra: str, keys: str = "") -> subprocess.CompletedProcess:
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONPATH=str(ROOT),
               TMPDIR=str(cwd))
    return subprocess.run([sys.executable, "-m", "controller.cli", "run", "--headless", "--seconds", "1",
                           "-c", str(OWN_GAME), *extra], cwd=cwd, env=env, input=keys,
                          capture_output=True, text=True, timeout=300)


def test_the_header_names_the_package_and_a_resume_reads_the_journals_copy(tmp_path):
    pack = make_packs.big(tmp_path / "big.siq", xml_mb=3, media_files=3, media_kb=16)
    original = pack.read_bytes()
    digest = hashlib.sha256(original).hexdigest()
    first = _run(tmp_path, "--pack", str(pack), keys="11")     # the host picks theme 1, cell 1
    assert first.returncode == 0, first.stderr
    assert journal.read(journal.current_path(tmp_path / "journal")).events      # something to resume
    current = journal.current_path(tmp_path / "journal")
    header_line = current.read_bytes().split(b"\n", 1)[0]
    assert len(header_line) < 64 * 1024, len(header_line)           # not the package's 3 MB of text
    raw = json.loads(header_line.split(b" ", 1)[1])
    assert raw["config"]["own_game"]["package"] == {"sha256": digest, "copy": f"packages/{digest}.siq",
                                                    "name": "Большой пакет"}
    copy = tmp_path / "journal" / "packages" / f"{digest}.siq"
    assert copy.read_bytes() == original

    # the original is changed (another package under the same name) and then gone: the game
    # resumes with the package it was played with, its pictures too
    pack.write_bytes((make_packs.make(tmp_path / "other")["v5"]).read_bytes())
    pack.unlink()
    again = _run(tmp_path)
    assert again.returncode == 0, again.stderr
    assert "картинки и звуки пакета недоступны" not in again.stderr, again.stderr
    resumed = journal.read(current)
    own = resumed.header["config"]["own_game"]
    assert own["package"]["name"] == "Большой пакет" and own["pack"] == str(copy.resolve())
    assert len(own["package"]["rounds"]) >= 1 and own["package"]["rounds"][0]["themes"][0]["questions"]
    assert "Незавершённая игра продолжена" in again.stdout or "продолжена" in again.stdout, again.stdout


def test_a_journal_whose_package_copy_is_gone_is_one_line_never_a_traceback(tmp_path):
    pack = make_packs.big(tmp_path / "big.siq", xml_mb=0.1)
    assert _run(tmp_path, "--pack", str(pack), keys="11").returncode == 0
    for p in (tmp_path / "journal" / "packages").iterdir():
        p.unlink()
    again = _run(tmp_path)
    assert "Traceback" not in again.stderr
    assert "the copy of the game's package is missing" in again.stdout + again.stderr
    assert list((tmp_path / "journal" / "archive").glob("*.jsonl"))   # the journal kept, set aside
