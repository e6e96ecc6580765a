"""A SIGame package's extracted media never pile up in $TMPDIR (issue 24, item 14): a
`buzzer run` killed with SIGKILL leaves its folder behind, and the next start removes it -- only
folders identified safely as ours and no longer in use. Packages are generated
(tests/packs/make_packs.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from controller.content import siq

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "packs"))
import make_packs  # noqa: E402

OWN_GAME = ROOT / "config" / "own-game.toml"


def _env(tmpdir: Path) -> dict:
    return dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONPATH=str(ROOT),
                TMPDIR=str(tmpdir))


def _media_folders(tmpdir: Path) -> list[Path]:
    return sorted(p for p in tmpdir.iterdir() if p.name.startswith("buzzer-siq-"))


def test_media_left_by_a_killed_game_are_swept_at_the_next_start_and_nothing_else(tmp_path):
    pack = make_packs.big(tmp_path / "big.siq", xml_mb=0.05, media_files=12, media_kb=256)
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    work = tmp_path / "hall"
    work.mkdir()
    args = [sys.executable, "-m", "controller.cli", "run", "--headless", "-c", str(OWN_GAME), "--pack", str(pack)]
    proc = subprocess.Popen(args, cwd=work, env=_env(tmpdir), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:   # the media are open: the game's folder, locked
            folders = _media_folders(tmpdir)
            if folders and (folders[0] / siq.LOCK_NAME).exists():
                break
            assert proc.poll() is None, "buzzer run ended"
            time.sleep(0.05)
        else:
            raise AssertionError("no media extracted")
    finally:
        proc.send_signal(signal.SIGKILL)     # a power cut, the OOM killer
        proc.wait(30)
    (left,) = _media_folders(tmpdir)
    # nothing was copied at the start (media are read when first needed): only the lock; a file
    # a killed game had written (a sound for the mixer) is left too
    assert [f.name for f in left.iterdir()] == [siq.LOCK_NAME]
    (left / "0001.mp3").write_bytes(b"\0" * (3 * 1024 * 1024))

    # not ours to remove: a folder with the same prefix but no lock of ours, and the media of a
    # game still running (this test process holds its lock)
    decoy = tmpdir / "buzzer-siq-decoy"
    decoy.mkdir()
    (decoy / "keep.txt").write_text("not the program's", encoding="utf-8")
    live = siq.MediaStore(pack, siq.read(pack), parent=str(tmpdir))
    assert live.path("Images/p00000.png")
    try:
        again = subprocess.run([*args, "--seconds", "1"], cwd=work, env=_env(tmpdir), stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, timeout=180)
        assert again.returncode == 0, again.stderr
        assert not left.exists()                                    # swept at the start
        assert "удалены картинки и звуки пакета, оставшиеся от прерванной игры (папок: 1, 3 МБ)" in again.stderr
        assert (decoy / "keep.txt").exists() and live.folder.exists() and len(live.files) == 1
        assert _media_folders(tmpdir) == sorted([decoy, live.folder])   # its own removed at its end
    finally:
        live.cleanup()
