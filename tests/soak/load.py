"""A busy machine on demand: CPU-bound processes plus a memory and disk mix, so that the tests
that use real processes, ptys, mosquitto and Chromium can be run as on a loaded laptop or Pi
(docs/testing.md «On a busy machine»).

    python tests/soak/load.py start [--cpu 8] [--mem 1] [--io 1] [--mem-mb 64]
                                       # starts the workers, prints their pids, returns
    python tests/soak/load.py status   # the load average and which workers still run
    python tests/soak/load.py stop     # ends every worker it started, by pid
    python tests/soak/load.py run -- CMD ...   # start, run CMD, stop (CMD's exit status)

Workers: ``--cpu`` processes spinning on arithmetic (each is one runnable task: on 2 cores,
8 of them and the memory and disk workers bring the load average to about 10); ``--mem`` processes that touch ``--mem-mb``
of memory page by page, again and again (cache and memory-bandwidth pressure); ``--io``
processes that write and fsync a scratch file (the disk queue the journal's fsync waits in).
Every worker runs at the normal priority.  The pids go to a state file
(``$TMPDIR/buzzer-load-<uid>.json``); ``stop`` signals exactly those pids (SIGTERM, then
SIGKILL), never a process by its name.  Each worker also ends by itself after
``--max-s`` seconds (default 3600) or when the process that started it is gone, so a
forgotten load does not outlive the session.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# one state file per checkout: another checkout's load on the same machine is not ours to stop
STATE = Path(tempfile.gettempdir()) / (f"buzzer-load-{os.getuid()}-"
                                       f"{hashlib.sha1(str(Path(__file__).resolve()).encode()).hexdigest()[:10]}.json")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def worker(kind: str, max_s: float, mem_mb: int, parent: int) -> None:
    """One worker's loop (run as ``load.py worker KIND``)."""
    end = time.monotonic() + max_s
    check = 0
    scratch = None
    buf = None
    if kind == "mem":
        buf = bytearray(mem_mb * 1024 * 1024)
    if kind == "io":
        fd, scratch = tempfile.mkstemp(prefix="buzzer-load-io-")
        os.close(fd)
    try:
        while time.monotonic() < end:
            check += 1
            if check % 64 == 0 and parent and not _alive(parent):
                return   # who started us is gone (a `run` that was killed)
            if kind == "cpu":
                x = 0
                for i in range(200_000):
                    x += i * i % 7
            elif kind == "mem":
                for off in range(0, len(buf), 4096):
                    buf[off] = (buf[off] + 1) & 0xFF
            elif kind == "io":
                with open(scratch, "wb") as f:
                    for _ in range(64):
                        f.write(os.urandom(16384))
                    f.flush()
                    os.fsync(f.fileno())
    finally:
        if scratch:
            try:
                os.unlink(scratch)
            except OSError:
                pass


def _read_state() -> list[dict]:
    try:
        return json.loads(STATE.read_text())["workers"]
    except (OSError, ValueError, KeyError):
        return []


def start(cpu: int, mem: int, io: int, mem_mb: int, max_s: float, parent: int = 0) -> list[dict]:
    workers = [w for w in _read_state() if _alive(w["pid"])]
    for kind, n in (("cpu", cpu), ("mem", mem), ("io", io)):
        for _ in range(n):
            p = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "worker", kind,
                                  "--max-s", str(max_s), "--mem-mb", str(mem_mb), "--parent", str(parent)],
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True)
            workers.append({"pid": p.pid, "kind": kind})
    STATE.write_text(json.dumps({"workers": workers}))
    return workers


def stop() -> int:
    workers = _read_state()
    for w in workers:
        try:
            os.kill(w["pid"], signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + 5
    for w in workers:
        while _alive(w["pid"]) and time.monotonic() < deadline:
            try:
                if os.waitpid(w["pid"], os.WNOHANG)[0]:
                    break
            except ChildProcessError:
                pass
            time.sleep(0.05)
        if _alive(w["pid"]):
            try:
                os.kill(w["pid"], signal.SIGKILL)
            except ProcessLookupError:
                pass
    STATE.unlink(missing_ok=True)
    return len(workers)


def status() -> str:
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    alive = [w for w in _read_state() if _alive(w["pid"])]
    kinds = {k: sum(1 for w in alive if w["kind"] == k) for k in ("cpu", "mem", "io")}
    return f"load average {load}; workers running: {kinds} (pids {' '.join(str(w['pid']) for w in alive) or '-'})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=["start", "stop", "status", "run", "worker"])
    parser.add_argument("kind", nargs="?", help=argparse.SUPPRESS)
    parser.add_argument("--cpu", type=int, default=8, help="CPU-bound workers (default 8)")
    parser.add_argument("--mem", type=int, default=1, help="memory-touching workers (default 1)")
    parser.add_argument("--io", type=int, default=1, help="write-and-fsync workers (default 1)")
    parser.add_argument("--mem-mb", type=int, default=64, help="memory each --mem worker touches (default 64)")
    parser.add_argument("--max-s", type=float, default=3600, help="each worker ends by itself after this long")
    parser.add_argument("--parent", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--settle-s", type=float, default=60,
                        help="run: wait this long for the load average to rise before CMD (default 60)")
    args, rest = parser.parse_known_args(argv)
    if args.action == "worker":
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        worker(args.kind, args.max_s, args.mem_mb, args.parent)
        return 0
    if args.action == "start":
        workers = start(args.cpu, args.mem, args.io, args.mem_mb, args.max_s)
        print("started:", " ".join(f"{w['kind']}:{w['pid']}" for w in workers))
        return 0
    if args.action == "stop":
        print(f"stopped {stop()} workers")
        return 0
    if args.action == "status":
        print(status())
        return 0
    command = rest[1:] if rest[:1] == ["--"] else rest
    if not command:
        parser.error("run needs a command after --")
    start(args.cpu, args.mem, args.io, args.mem_mb, args.max_s, parent=os.getpid())
    try:
        deadline = time.monotonic() + args.settle_s
        while os.getloadavg()[0] < 0.8 * args.cpu and time.monotonic() < deadline:
            time.sleep(0.2)   # until the load it asked for is there (bounded by --settle-s)
        print(status(), flush=True)
        code = subprocess.call(command)
        print(status(), flush=True)
        return code
    finally:
        stop()


if __name__ == "__main__":
    sys.exit(main())
