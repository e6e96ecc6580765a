"""PID 1 of the GPIO test guest (tests/kernel/guest.py boots it; stdlib only).

The kernel starts it as ``/usr/bin/python3 -I <this file>`` with the host's file
system read-only as root. It mounts what a program needs, brings up the
loopback interface, runs the one command the host wrote to ``spec.json`` in the
shared results folder (a writable 9p share), copies the command's output to the
console and to ``output.log`` there, writes its exit status to ``rc`` and powers
the machine off. The host reads the console for the markers below.
"""

import ctypes
import errno
import fcntl
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time

MARK = "@@buzzer-guest@@"
RESULTS = "/run/results"
libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_BIND = 2, 4, 8, 4096
HOST_VIEW = "/mnt"
"""The host's root as it is, bound here before tmpfs covers /tmp, /run and /dev/shm: a checkout
(and its .venv) under the host's /tmp stays reachable (spec "binds")."""
SCRATCH = ("/tmp", "/run", "/dev/shm")
RB_POWER_OFF, RB_AUTOBOOT = 0x4321FEDC, 0x01234567


def say(text: str) -> None:
    sys.stdout.write(f"\n{MARK} {text}\n")
    sys.stdout.flush()


def mount(source: str, target: str, fstype: str, flags: int = 0, data: str = "") -> None:
    os.makedirs(target, exist_ok=True)
    if libc.mount(source.encode(), target.encode(), fstype.encode(), flags, data.encode() or None) != 0:
        err = ctypes.get_errno()
        if err == errno.EBUSY:  # already there (devtmpfs.mount)
            return
        raise OSError(err, f"mount {fstype} on {target}: {os.strerror(err)}")


def loopback_up() -> None:
    SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        req = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(s, SIOCGIFFLAGS, req))[1]
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))


def setup() -> None:
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    mount("devtmpfs", "/dev", "devtmpfs", MS_NOSUID)
    mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "ptmxmode=0666")
    mount("/", HOST_VIEW, "", MS_BIND)
    mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777")
    mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777")
    mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755")
    mount("configfs", "/sys/kernel/config", "configfs")
    mount("cgroup2", "/sys/fs/cgroup", "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    mount("results", RESULTS, "9p", 0, "trans=virtio,version=9p2000.L,msize=262144")
    try:  # let the tests make child cgroups with a cpu quota
        with open("/sys/fs/cgroup/cgroup.subtree_control", "w") as f:
            f.write("+cpu")
    except OSError:
        pass
    loopback_up()


def run(spec: dict) -> int:
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "HOME": "/tmp/home",
           "TMPDIR": "/tmp", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONUNBUFFERED": "1", "BUZZER_GUEST": "1", "BUZZER_GUEST_RESULTS": RESULTS}
    env.update(spec.get("env") or {})
    os.makedirs(env["HOME"], exist_ok=True)
    cwd = spec.get("cwd") or "/tmp/work"
    os.makedirs(cwd, exist_ok=True)
    say(f"booted monotonic_ns={time.monotonic_ns()} realtime_ns={time.time_ns()}")
    with open(os.path.join(RESULTS, "output.log"), "wb") as log:
        try:
            proc = subprocess.Popen(spec["argv"], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        except OSError as exc:
            msg = f"cannot start {spec['argv'][0]!r}: {exc}\n".encode()
            log.write(msg)
            sys.stdout.buffer.write(msg)
            return 127
        for chunk in iter(lambda: proc.stdout.read1(65536), b""):
            log.write(chunk)
            log.flush()
            sys.stdout.buffer.write(chunk)
            sys.stdout.flush()
        rc = proc.wait()
        say(f"command-done rc={rc} monotonic_ns={time.monotonic_ns()}")
        return rc


def main() -> None:
    rc = 1
    try:
        setup()
        with open(os.path.join(RESULTS, "spec.json")) as f:
            spec = json.load(f)
        for path in spec.get("binds") or []:   # the host folders the tmpfs mounts hid
            if any(path == top or path.startswith(top + "/") for top in SCRATCH):
                mount(HOST_VIEW + path, path, "", MS_BIND)
        rc = run(spec)
    except BaseException as exc:  # PID 1 must never die: say why and power off
        say(f"init-error {type(exc).__name__}: {exc}")
        rc = 125
    try:
        with open(os.path.join(RESULTS, "rc"), "w") as f:
            f.write(f"{rc}\n")
    except OSError:
        pass
    say(f"exit rc={rc} monotonic_ns={time.monotonic_ns()}")
    os.sync()
    libc.reboot(RB_POWER_OFF)
    libc.reboot(RB_AUTOBOOT)  # qemu runs with -no-reboot: a reset ends it too
    while True:   # PID 1 must not exit: it waits here until the power-off takes effect
        signal.pause()


if __name__ == "__main__":
    main()
