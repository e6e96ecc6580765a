"""Run one command inside a qemu guest on the GPIO test kernel.

    from kernel import guest          # tests/ on sys.path, as under pytest
    result = guest.run([sys.executable, "-c", "print('hi')"], timeout=300)
    result.returncode, result.output, result.results   # results: a host folder

or from a shell (the rest of the line is the command)::

    python3 tests/kernel/guest.py [--timeout S] [--accel tcg|kvm] -- CMD ARG...

The guest boots the kernel of :mod:`tests.kernel.build` (built first if it is not
cached and ``build`` is true) with the host's whole file system read-only over 9p
as its root, so the command can be this checkout's own ``.venv/bin/python``.
Inside: ``/proc``, ``/sys``, ``/dev``, configfs at ``/sys/kernel/config``, cgroup2 at
``/sys/fs/cgroup`` (``+cpu`` delegated), tmpfs on ``/tmp``, ``/run`` and ``/dev/shm``,
loopback up, and a writable share of the host folder ``result.results`` at
``/run/results`` (``$BUZZER_GUEST_RESULTS``). The command runs as root in a writable
working directory (``/tmp/work`` unless ``cwd`` says otherwise) with ``BUZZER_GUEST=1``.

qemu is started and stopped by its pid; the whole run is bounded by ``timeout``. The
guest's init (tests/kernel/init.py) prints markers on the serial console that this
module waits for: nothing here sleeps a fixed time.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
if __package__ in (None, ""):  # run as a script: make the package importable
    sys.path.insert(0, str(HERE.parent))
    __package__ = "kernel"
from . import build  # noqa: E402

MARK = "@@buzzer-guest@@"
INIT = HERE / "init.py"
GUEST_PYTHON = "/usr/bin/python3"
QEMU = "qemu-system-x86_64"


class GuestError(Exception):
    """The guest could not be run (no qemu, no kernel, no boot, a timeout)."""

    def __init__(self, message: str, console: str = ""):
        super().__init__(message)
        self.console = console


@dataclass
class GuestResult:
    returncode: int
    output: str
    """What the command wrote (stdout and stderr together)."""
    console: str
    """The whole serial console: kernel messages, markers and the output."""
    results: Path
    """The host folder the guest saw as /run/results (left for the caller)."""
    boot_s: float
    """qemu start -> the guest's init about to start the command."""
    elapsed_s: float
    """qemu start -> qemu gone."""
    accel: str = "tcg"
    guest_boot_clock: dict = field(default_factory=dict)


def find_qemu() -> str:
    path = shutil.which(QEMU)
    if path is None:
        raise GuestError(f"{QEMU} not found: install it (apt-get install qemu-system-x86, "
                         "or sh .ci/install-system-deps)")
    return path


def kernel_image(build_if_missing: bool = True) -> Path:
    image = build.cached_kernel()
    if image is not None:
        return image
    if not build_if_missing:
        raise GuestError(f"no test kernel at {build.kernel_dir() / 'bzImage'}: "
                         "run python3 tests/kernel/build.py")
    try:
        return build.build()
    except build.BuildError as exc:
        raise GuestError(f"kernel build: {exc}") from None


def default_accel() -> str:
    """``tcg`` unless ``BUZZER_GUEST_ACCEL`` says ``kvm`` (KVM hung on some hosts)."""
    return os.environ.get("BUZZER_GUEST_ACCEL", "tcg")


def qemu_command(kernel: Path, results: Path, *, accel: str, smp: int, memory_mb: int) -> list[str]:
    append = " ".join([
        "console=ttyS0", "panic=-1", "loglevel=4", "mitigations=off",
        "root=/dev/root", "rootfstype=9p", "ro",
        "rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose",
        f"init={GUEST_PYTHON}", "--", "-I", str(INIT),
    ])
    cpu = ["-accel", "kvm", "-cpu", "host"] if accel == "kvm" else ["-accel", "tcg", "-cpu", "max"]
    return [
        find_qemu(), *cpu, "-smp", str(smp), "-m", str(memory_mb),
        "-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
        "-serial", "stdio", "-monitor", "none",
        "-kernel", str(kernel), "-append", append,
        "-fsdev", "local,id=root,path=/,security_model=none,readonly=on,multidevs=remap",
        "-device", "virtio-9p-pci,fsdev=root,mount_tag=/dev/root",
        "-fsdev", f"local,id=results,path={results},security_model=none",
        "-device", "virtio-9p-pci,fsdev=results,mount_tag=results",
    ]


def run(argv: list[str], *, timeout: float = 600.0, cwd: str | None = None,
        env: dict[str, str] | None = None, results: Path | None = None,
        accel: str | None = None, smp: int = 2, memory_mb: int = 1024,
        build_if_missing: bool = True, echo=None) -> GuestResult:
    """Boot the guest, run ``argv`` in it, power off; the command's exit code and output.

    ``echo``: called with each console line as it comes (e.g. ``print`` to watch).
    Raises :class:`GuestError` when qemu is missing, the guest does not boot or
    the run takes longer than ``timeout`` seconds (qemu is killed by its pid).
    """
    accel = accel or default_accel()
    find_qemu()  # first: without qemu a kernel build would be wasted
    kernel = kernel_image(build_if_missing)
    results = Path(results) if results else Path(tempfile.mkdtemp(prefix="buzzer-guest-"))
    results.mkdir(parents=True, exist_ok=True)
    for stale in ("rc", "output.log"):
        (results / stale).unlink(missing_ok=True)
    # the checkout (and its .venv) may lie under the host's /tmp, which the guest covers with a
    # tmpfs: init binds it back from the host's root
    project = str(Path(__file__).resolve().parents[2])
    (results / "spec.json").write_text(json.dumps({"argv": [str(a) for a in argv], "cwd": cwd,
                                                   "env": env or {}, "binds": [project]}))
    cmd = qemu_command(kernel, results, accel=accel, smp=smp, memory_mb=memory_mb)
    lines: list[str] = []
    booted = threading.Event()
    boot_at: list[float] = []
    boot_clock: dict = {}
    started = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)

    def reader():
        for raw in iter(proc.stdout.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            lines.append(line)
            if echo is not None:
                echo(line)
            if line.startswith(f"{MARK} booted"):
                boot_at.append(time.monotonic())
                for word in line.split()[2:]:
                    k, _, v = word.partition("=")
                    boot_clock[k] = int(v)
                booted.set()

    t = threading.Thread(target=reader, name="qemu-console", daemon=True)
    t.start()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        _stop(proc)
        t.join(timeout=5)
        console = "\n".join(lines)
        raise GuestError(f"guest run did not finish in {timeout:.0f} s "
                         f"({'booted' if booted.is_set() else 'never booted'}); "
                         f"console tail:\n" + "\n".join(lines[-30:]), console) from None
    t.join(timeout=10)
    elapsed = time.monotonic() - started
    console = "\n".join(lines)
    rc_file = results / "rc"
    if not rc_file.is_file():
        raise GuestError(f"guest stopped without running the command (qemu exit "
                         f"{proc.returncode}); console tail:\n" + "\n".join(lines[-30:]), console)
    rc = int(rc_file.read_text().strip() or "1")
    out_file = results / "output.log"
    output = out_file.read_text("utf-8", "replace") if out_file.is_file() else ""
    if rc == 125 and "init-error" in console:
        raise GuestError("guest init failed: " + next(
            (ln for ln in lines if "init-error" in ln), "?"), console)
    return GuestResult(rc, output, console, results,
                       (boot_at[0] - started) if boot_at else elapsed, elapsed, accel, boot_clock)


def _stop(proc: subprocess.Popen) -> None:
    """Stop qemu (and only it) by its pid."""
    if proc.poll() is not None:
        return
    try:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=5)
    except ProcessLookupError:
        pass


def repo_root() -> Path:
    return HERE.parent.parent


def venv_python() -> str:
    """This checkout's own venv python (the guest sees the host's files)."""
    for cand in (repo_root() / ".venv" / "bin" / "python", Path(sys.executable)):
        if cand.exists():
            return str(cand)
    return sys.executable


def main(args: list[str]) -> int:
    timeout, accel = 600.0, None
    while args and args[0] != "--":
        opt = args.pop(0)
        if opt == "--timeout":
            timeout = float(args.pop(0))
        elif opt == "--accel":
            accel = args.pop(0)
        else:
            print(f"guest.py: unknown option {opt!r}", file=sys.stderr)
            return 2
    if not args or len(args) < 2:
        print("usage: guest.py [--timeout S] [--accel tcg|kvm] -- CMD ARG...", file=sys.stderr)
        return 2
    try:
        res = run(args[1:], timeout=timeout, accel=accel, cwd=None,
                  echo=lambda ln: print(ln, flush=True))
    except GuestError as exc:
        print(f"guest: {exc}", file=sys.stderr)
        return 1
    print(f"guest: exit {res.returncode}, booted in {res.boot_s:.1f} s, "
          f"all {res.elapsed_s:.1f} s, results in {res.results}", file=sys.stderr)
    return res.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
