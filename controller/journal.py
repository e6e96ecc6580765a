"""The journal: every input event on disk before its effect is shown.

A journal is a text file of records, one per line::

    <crc32 of the JSON, 8 hex digits> <JSON>

The first record is the header (config, seed, program version, wall-clock
start).  Then one record per event the engine took -- presses with both
timestamps, releases, host actions, and clock records written while a
deadline is pending so that a resumed countdown continues from where it was.
Each record is flushed and (by default) fsync'ed before the loop applies it.

After a power cut the last line may be torn (no newline, bad CRC, broken
JSON): it is dropped with a warning, never fatal.  A bad record in the middle
of the file means the file was damaged otherwise; the journal is then read up
to that record and the rest is reported.

The current game lives in ``<dir>/current.jsonl``.  A finished game, or one
the host chose to leave for a new game, is moved to ``<dir>/archive/`` with a
time stamp in its name -- journals are archived, never deleted.
"""

from __future__ import annotations

import json
import logging
import os
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from controller.errors import GameError, JournalError
from controller.events import Host, Press, Release, Tick

log = logging.getLogger(__name__)

CURRENT = "current.jsonl"
VERSION = 1


def encode_event(ev: Any) -> dict:
    """An engine event as a JSON-able record."""
    if isinstance(ev, Press):
        rec = {"type": "press", "button": ev.button, "at": ev.at, "delivered": ev.delivered}
        if ev.quiet:
            rec["quiet"] = ev.quiet
        if ev.stream:
            rec["stream"] = True
        return rec
    if isinstance(ev, Release):
        return {"type": "release", "button": ev.button, "at": ev.at, "delivered": ev.delivered}
    if isinstance(ev, Host):
        return {"type": "host", "action": ev.action, "at": ev.at, "params": dict(ev.params)}
    if isinstance(ev, Tick):
        return {"type": "tick", "at": ev.at}
    raise TypeError(f"not an event: {ev!r}")


def decode_event(rec: dict) -> Any:
    kind = rec.get("type")
    if kind == "press":
        return Press(rec["button"], int(rec["at"]), int(rec["delivered"]), int(rec.get("quiet", 0)),
                     bool(rec.get("stream", False)))
    if kind == "release":
        return Release(rec["button"], int(rec["at"]), int(rec["delivered"]))
    if kind == "host":
        return Host(rec["action"], int(rec["at"]), dict(rec.get("params") or {}))
    if kind == "tick":
        return Tick(int(rec["at"]))
    raise ValueError(f"unknown record type {kind!r}")


def _line(rec: dict) -> bytes:
    body = json.dumps(rec, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return b"%08x %s\n" % (zlib.crc32(body), body)


def _parse_line(raw: bytes) -> dict | None:
    if not raw.endswith(b"\n"):
        return None
    raw = raw[:-1]
    if len(raw) < 10 or raw[8:9] != b" ":
        return None
    try:
        crc = int(raw[:8], 16)
    except ValueError:
        return None
    body = raw[9:]
    if zlib.crc32(body) != crc:
        return None
    try:
        rec = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return rec if isinstance(rec, dict) else None


@dataclass
class Contents:
    """What a journal file holds."""

    header: dict
    events: list[Any] = field(default_factory=list)
    finished: bool = False
    dropped: int = 0
    """Records dropped from the end (torn by a power cut, or after damage)."""
    valid_bytes: int = 0


def read(path: str | Path) -> Contents:
    """Read a journal; a torn tail is dropped, not fatal."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise JournalError(f"{path}: cannot read journal: {exc.strerror}") from None
    lines = data.splitlines(keepends=True)
    header = None
    events = []
    finished = False
    valid = 0
    dropped = 0
    for i, raw in enumerate(lines):
        rec = _parse_line(raw)
        if rec is None:
            dropped = len(lines) - i
            if i < len(lines) - 1:
                log.warning("%s: damaged record %d; %d records after it ignored", path, i + 1, dropped - 1)
            else:
                log.warning("%s: last record torn (power cut?); dropped", path)
            break
        valid += len(raw)
        if i == 0:
            if rec.get("type") != "header":
                raise JournalError(f"{path}: not a buzzer journal (no header)")
            header = rec
            continue
        if rec.get("type") == "end":
            finished = True
            continue
        try:
            events.append(decode_event(rec))
        except (KeyError, ValueError, TypeError) as exc:
            raise JournalError(f"{path}: record {i + 1}: {exc}") from None
    if header is None:
        raise JournalError(f"{path}: empty or unreadable journal")
    return Contents(header, events, finished, dropped, valid)


class Journal:
    """An open journal file that the loop appends to.

    :param path: the file (created with a header if new)
    :param fsync: make every record durable before returning (default True)
    """

    def __init__(self, path: str | Path, header: dict | None = None, fsync: bool = True,
                 truncate_to: int | None = None):
        self.path = Path(path)
        self.fsync = fsync
        self.path.parent.mkdir(parents=True, exist_ok=True)
        new = not self.path.exists()
        try:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as exc:
            raise JournalError(f"{self.path}: cannot open journal: {exc.strerror}") from None
        if truncate_to is not None:
            os.ftruncate(self._fd, truncate_to)  # drop a torn tail before appending
        if new:
            if header is None:
                raise JournalError(f"{self.path}: a new journal needs a header")
            self._write({"type": "header", "version": VERSION, **header})
            self._sync_dir()

    def _sync_dir(self) -> None:
        try:
            dfd = os.open(self.path.parent, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)

    def _write(self, rec: dict) -> None:
        line = _line(rec)
        try:
            os.write(self._fd, line)
            if self.fsync:
                os.fsync(self._fd)
        except OSError as exc:
            raise JournalError(f"{self.path}: cannot write journal: {exc.strerror}") from None

    def append(self, event: Any) -> None:
        """Make ``event`` durable (call before the engine applies it)."""
        self._write(encode_event(event))

    def append_many(self, events: Iterable[Any]) -> None:
        """Group commit: write several events, then one fsync."""
        lines = [_line(encode_event(e)) for e in events]
        if not lines:
            return
        data = b"".join(lines)
        try:
            os.write(self._fd, data)
            if self.fsync:
                os.fsync(self._fd)
        except OSError as exc:
            raise JournalError(f"{self.path}: cannot write journal: {exc.strerror}") from None

    def finish(self) -> None:
        """Mark the game as finished (a restart will not offer to resume it)."""
        self._write({"type": "end", "wall": time.time()})

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def current_path(directory: str | Path) -> Path:
    return Path(directory) / CURRENT


def archive(directory: str | Path) -> Path | None:
    """Move the current journal into ``archive/`` (never deleted); return its new path."""
    src = current_path(directory)
    if not src.exists():
        return None
    dest_dir = Path(directory) / "archive"
    dest_dir.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    dest = dest_dir / f"game-{stamp}.jsonl"
    n = 1
    while dest.exists():
        n += 1
        dest = dest_dir / f"game-{stamp}-{n}.jsonl"
    os.replace(src, dest)
    return dest


def unfinished(directory: str | Path) -> Contents | None:
    """The current journal if it holds a game that did not finish."""
    p = current_path(directory)
    if not p.exists():
        return None
    c = read(p)
    return None if c.finished else c


def replay(contents: Contents):
    """Rebuild the engine state from a journal: (state, config, seed, last engine time)."""
    from controller import engine

    cfg = contents.header["config"]
    seed = contents.header["seed"]
    state = engine.new_game(cfg, seed)
    last = 0
    for ev in contents.events:
        try:
            state, _ = engine.step(state, ev)
        except GameError:
            pass  # refused live too (the loop showed it as a notice); the state did not change
        last = max(last, ev.now)
    return state, cfg, seed, last
