"""The host token kept next to the journal, so that a resumed game keeps its host link.

``buzzer run`` resumes an unfinished game after a crash or a power cut; the host's phone still
holds the link of that game. The token is stored in ``<journal dir>/host-token`` (mode 0600,
written whole or not at all) together with a fingerprint of the current journal's header: a
restart that resumes the same journal takes the stored token, any other game (``--new``, a
finished game archived, another config's journal) gets a fresh one. A new game (F12) and the
new-token key (F9) overwrite the file. The token itself is never logged.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
from pathlib import Path

from controller.sessions import journal as journal_mod
from controller.web.net import new_token

log = logging.getLogger(__name__)

FILE = "host-token"


def path(journal_dir: str | Path) -> Path:
    return Path(journal_dir) / FILE


def game_id(journal_dir: str | Path) -> str | None:
    """A fingerprint of the current journal's header line (config, seed, start time): the same
    for the same game across restarts, another for any other game; None without a journal."""
    try:
        with open(journal_mod.current_path(journal_dir), "rb") as f:
            header = f.readline()
    except OSError:
        return None
    if not header.endswith(b"\n"):
        return None
    return hashlib.sha256(header).hexdigest()


def load(journal_dir: str | Path) -> str | None:
    """The stored token when it belongs to the current journal's game (and only its owner can
    read the file); None otherwise."""
    game = game_id(journal_dir)
    p = path(journal_dir)
    if game is None:
        return None
    try:
        st = os.stat(p)
        if not stat.S_ISREG(st.st_mode) or st.st_mode & 0o077 or st.st_uid != os.getuid():
            log.warning("web: %s is readable by others or not ours; a new host token is made", p)
            return None
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        log.warning("web: %s cannot be read; a new host token is made", p)
        return None
    if not isinstance(data, dict) or data.get("game") != game:
        return None
    token = data.get("token")
    return token if isinstance(token, str) and len(token) >= 16 else None


def write_private(p: Path, data: bytes) -> None:
    """``data`` in ``p``, readable by its owner only (mode 0600 from its creation), written whole
    or not at all (a temporary file, fsync'ed, renamed over ``p``); raises OSError."""
    tmp = p.with_name(p.name + ".tmp")
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, p)
    journal_mod.sync_dir(p.parent)


def save(journal_dir: str | Path, token: str) -> None:
    """Store ``token`` for the current journal's game (mode 0600; a failure is logged, never
    raised: the game goes on, only a restart would then make a new link)."""
    game = game_id(journal_dir)
    if game is None:
        return
    p = path(journal_dir)
    try:
        write_private(p, json.dumps({"game": game, "token": token}).encode("utf-8"))
    except OSError as exc:
        log.warning("web: cannot store the host token in %s: %s", p, exc.strerror)


def for_game(journal_dir: str | Path) -> str:
    """The token of the current journal's game: the stored one when this game is being resumed,
    else a new one (stored)."""
    token = load(journal_dir)
    if token is None:
        token = new_token()
        save(journal_dir, token)
    return token
