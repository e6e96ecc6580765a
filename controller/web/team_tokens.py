"""Each team's phone token (its join link ``/play#t=…``), kept next to the journal.

A team's token lets a phone press that team's button and nothing else.  The tokens are made
in the game's process, passed to the web process (its init, then one control message per new
token), and kept in ``<journal dir>/team-tokens`` (mode 0600, written whole or not at all)
with the fingerprint of the current journal's header, as the host token is
(:mod:`controller.web.host_token`): a resumed game keeps its links, a dropped phone reconnects
without a new one; any other game gets new ones.  The host page's «Новая ссылка» revokes one
team's token (the phones joined with it are disconnected).  A token is never logged, printed or
journaled.
"""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path
from typing import Iterable

from controller.web import host_token
from controller.web.net import new_token

log = logging.getLogger(__name__)

FILE = "team-tokens"


def path(journal_dir: str | Path) -> Path:
    return Path(journal_dir) / FILE


def load(journal_dir: str | Path) -> dict[str, str]:
    """The stored tokens (button -> token) when they belong to the current journal's game and
    only the owner can read the file; {} otherwise."""
    game = host_token.game_id(journal_dir)
    p = path(journal_dir)
    if game is None:
        return {}
    try:
        st = os.stat(p)
        if not stat.S_ISREG(st.st_mode) or st.st_mode & 0o077 or st.st_uid != os.getuid():
            log.warning("web: %s is readable by others or not ours; new team links are made", p)
            return {}
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        log.warning("web: %s cannot be read; new team links are made", p)
        return {}
    if not isinstance(data, dict) or data.get("game") != game or not isinstance(data.get("tokens"), dict):
        return {}
    return {b: tok for b, tok in data["tokens"].items() if isinstance(tok, str) and len(tok) >= 16}


def save(journal_dir: str | Path, tokens: dict[str, str]) -> None:
    """Store ``tokens`` for the current journal's game (0600; a failure is logged, never raised)."""
    game = host_token.game_id(journal_dir)
    if game is None:
        return
    p = path(journal_dir)
    try:
        host_token.write_private(p, json.dumps({"game": game, "tokens": tokens}).encode("utf-8"))
    except OSError as exc:
        log.warning("web: cannot store the team links in %s: %s", p, exc.strerror)


def for_game(journal_dir: str | Path | None, buttons: Iterable[str]) -> dict[str, str]:
    """Every button's token: the stored one of this game's, else a new one (stored);
    without a journal (a test's loop), new ones for this process only."""
    stored = load(journal_dir) if journal_dir is not None else {}
    tokens = {b: stored.get(b) or new_token() for b in buttons}
    if journal_dir is not None and tokens != stored:
        save(journal_dir, tokens)
    return tokens
