"""The journal: every input event on disk before its effect is shown.

A journal is a text file of records, one per line::

    <crc32 of the JSON, 8 hex digits> <JSON>

The first record is the header (config, seed, program version, wall-clock
start).  Then one record per event the engine took -- presses with both
timestamps, releases, host actions, and clock records written while a
deadline is pending so that a resumed countdown continues from where it was.
Each record is flushed and (by default) fsync'ed before the loop applies it.

After a power cut the last line may be torn (no newline, bad CRC, broken
JSON): it is dropped with a warning, never fatal -- the only bytes the program
ever cuts from a journal.  A bad record anywhere else means the file was
damaged otherwise (a bad sector, an edit): the journal is trusted up to that
record and nothing after it is replayed, because every later record was
decided with the damaged one in effect (a lost press changes who held the
answer right, and so who the next «right» credits).  The whole original file
is kept in ``<dir>/archive/`` with ``damaged`` in its name
(:func:`set_aside`), and the game goes on from the trusted records.

The current game lives in ``<dir>/current.jsonl``.  A finished game, or one
the host chose to leave for a new game, is moved to ``<dir>/archive/`` with a
time stamp in its name -- journals are archived, never deleted.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from controller.core.errors import BuzzerError, GameError, JournalError
from controller.core.events import Host, Press, Release, Tick
from controller.games import engine

log = logging.getLogger(__name__)

CURRENT = "current.jsonl"
LOCK = "buzzer.lock"
VERSION = 1


def encode_event(ev: Any) -> dict:
    """An engine event as a JSON-able record."""
    if isinstance(ev, Press):
        rec = {"type": "press", "button": ev.button, "at": ev.at, "delivered": ev.delivered}
        if ev.quiet:
            rec["quiet"] = ev.quiet
        if ev.stream:
            rec["stream"] = True
        if ev.tie:
            rec["tie"] = ev.tie
        if ev.unc:
            rec["unc"] = ev.unc
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
                     bool(rec.get("stream", False)), int(rec.get("tie", 0)), int(rec.get("unc", 0)))
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


def parse_line(raw: bytes) -> dict | None:
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
    """Records not replayed: a torn last record, or a damaged record and every one after it."""
    valid_bytes: int = 0
    """Length of the trusted part of the file (the header and the records replayed)."""
    records: int = 0
    """Lines (records) in the file, the header included."""
    damaged_at: int | None = None
    """Line number (1 = the header) of a damaged record that is not a torn last record:
    the file must be set aside (:func:`set_aside`) before anything is appended."""


def read(path: str | Path) -> Contents:
    """Read a journal; a torn tail is dropped, not fatal; a damaged record elsewhere
    ends the trusted part (see :attr:`Contents.damaged_at`)."""
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
    damaged_at = None
    for i, raw in enumerate(lines):
        rec = parse_line(raw)
        event = None
        if rec is not None and i > 0 and rec.get("type") != "end":
            try:
                event = decode_event(rec)
            except (KeyError, ValueError, TypeError):
                rec = None  # an intact line the program cannot use: not to be trusted either
        if rec is None:
            dropped = len(lines) - i
            if i < len(lines) - 1:
                damaged_at = i + 1
                log.warning("%s: damaged record %d; %d records after it not replayed", path, i + 1, dropped - 1)
            else:
                # the host hears of it in words at start-up (startup.prepare_game); here for the log
                log.info("%s: last record torn (power cut?); dropped", path)
            break
        valid += len(raw)
        if i == 0:
            if rec.get("type") != "header":
                raise JournalError(f"{path}: not a buzzer journal (no header)")
            header = rec
        elif rec.get("type") == "end":
            finished = True
        else:
            events.append(event)
    if header is None:
        raise JournalError(f"{path}: empty or unreadable journal")
    if isinstance(header.get("config"), dict):
        # the header names the package by its identity; the game's data comes from the copy
        # kept beside the journal (controller/content/packs.py: keep_copy)
        from controller.content import packs
        try:
            header = {**header, "config": packs.resolve_header_config(header["config"], p)}
        except BuzzerError as exc:
            raise JournalError(f"{path}: {exc}") from None
    return Contents(header, events, finished, dropped, valid, len(lines), damaged_at)


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
            self._cut_torn_tail(truncate_to)
        if new:
            if header is None:
                raise JournalError(f"{self.path}: a new journal needs a header")
            self._write({"type": "header", "version": VERSION, **header})
            sync_dir(self.path.parent)

    def _cut_torn_tail(self, length: int) -> None:
        """Drop a torn last record before appending -- and never anything more: a
        complete record past ``length`` means damage, and damaged journals are set
        aside whole (:func:`set_aside`), not cut."""
        try:
            with open(self.path, "rb") as f:
                f.seek(length)
                tail = f.read()
        except OSError as exc:
            raise JournalError(f"{self.path}: cannot read journal: {exc.strerror}") from None
        complete = tail[:-1].count(b"\n")
        if complete:
            os.close(self._fd)
            self._fd = None
            raise JournalError(f"{self.path}: damaged in the middle, not cut: "
                               f"{complete} records past byte {length} are kept")
        if tail:
            os.ftruncate(self._fd, length)

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


class Busy(JournalError):
    """Another running ``buzzer run`` holds the journal directory (:func:`lock`)."""

    def __init__(self, directory: Path, pid: int | None):
        self.directory = directory
        self.pid = pid
        super().__init__(f"{directory}: in use by another buzzer run (pid {pid or '?'})")


class DirLock:
    """The exclusive hold of one process on a journal directory (:func:`lock`)."""

    def __init__(self, fd: int, path: Path):
        self._fd: int | None = fd
        self.path = path

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)   # closing the file releases the lock (the file itself stays)
            self._fd = None


def lock(directory: str | Path) -> DirLock:
    """Hold ``<directory>/buzzer.lock`` exclusively (``flock``) so that a second ``buzzer run``
    on the same journal cannot mix its game into it: :class:`Busy` if another process holds it.

    The kernel drops the lock when the holder's process ends, however it ends (a crash or a
    power cut never leaves a stale lock).  The loser changes nothing: it opens the existing file
    only to ask; only the holder writes its pid into it."""
    import fcntl

    d = Path(directory)
    path = d / LOCK
    try:
        d.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise JournalError(f"{path}: cannot open: {exc.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        try:
            pid = int(os.pread(fd, 32, 0).decode("ascii", "replace").strip() or 0) or None
        except (OSError, ValueError):
            pid = None
        os.close(fd)
        raise Busy(d, pid) from None
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
    except OSError:
        pass   # the pid is only for the other process's message
    return DirLock(fd, path)


def _archive_dest(directory: str | Path, tag: str = "") -> Path:
    dest_dir = Path(directory) / "archive"
    dest_dir.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S") + (f"-{tag}" if tag else "")
    dest = dest_dir / f"game-{stamp}.jsonl"
    n = 1
    while dest.exists():
        n += 1
        dest = dest_dir / f"game-{stamp}-{n}.jsonl"
    return dest


def sync_dir(directory: Path) -> None:
    try:
        dfd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def _write_durably(path: Path, data: bytes) -> None:
    """Write ``path`` whole or not at all (a temporary file, fsync, rename)."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        raise JournalError(f"{path}: cannot write: {exc.strerror}") from None
    sync_dir(path.parent)


def archive(directory: str | Path, tag: str = "") -> Path | None:
    """Move the current journal into ``archive/`` (never deleted); return its new path.
    ``tag`` goes into the name (``damaged``: a journal that could not be read whole)."""
    src = current_path(directory)
    if not src.exists():
        return None
    dest = _archive_dest(directory, tag)
    os.replace(src, dest)
    sync_dir(dest.parent)
    return dest


def set_aside(directory: str | Path, contents: Contents) -> Path:
    """Keep a damaged journal whole and let the game go on from its trusted part.

    The whole file, every byte, is copied to ``archive/game-<time>-damaged.jsonl``
    (first, durably); only then is the current journal replaced by its trusted part
    (``contents.valid_bytes``), so that new records can follow it.  A crash between
    the two steps leaves the damaged journal in place and the copy in the archive:
    the next start does the same again.  Returns the copy's path."""
    src = current_path(directory)
    try:
        data = src.read_bytes()
    except OSError as exc:
        raise JournalError(f"{src}: cannot read journal: {exc.strerror}") from None
    dest = _archive_dest(directory, "damaged")
    _write_durably(dest, data)
    _write_durably(src, data[:contents.valid_bytes])
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


# ---------------------------------------------------------------------------
# a new game

def choose_seed(cfg: dict) -> int:
    """The tie seed of a new game: ``[arbiter] tie_seed``, or a fresh draw when it is -1."""
    seed = cfg["arbiter"]["tie_seed"]
    return seed if seed >= 0 else secrets.randbelow(2**31)


def new_header(cfg: dict, seed: int, config_path: str | None) -> dict:
    """A new game's journal header: its config and the file it came from, the seed, the start time.
    No secret goes into a journal: the festival's broker password is left out (and one in its URL)."""
    fest = cfg.get("festival")
    if isinstance(fest, dict) and (fest.get("password") or "@" in str(fest.get("broker", ""))):
        from urllib.parse import urlsplit

        clean = {k: v for k, v in fest.items() if k != "password"}
        try:
            parts = urlsplit(str(fest.get("broker", "")))
            if parts.password:
                clean["broker"] = parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]).geturl()
        except ValueError:
            clean["broker"] = ""
        cfg = {**cfg, "festival": clean}
    from controller.content import packs
    # a package by its identity, its copy beside the journal: not its whole text per game
    return {"config": packs.header_config(cfg), "config_path": config_path, "seed": seed,
            "started": time.strftime("%Y-%m-%d %H:%M:%S")}
