"""A real mosquitto broker for the festival tests: a free 127.0.0.1 port, a generated
config and password file, persistence in a temporary folder; stopped (and killed) by pid."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

USER = "hall"
PASSWORD = "s3cret-festival"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    """``users``: more broker users {name: password}; ``acl``: an ACL file (the shipped
    config/mosquitto/festival.acl) -- then every user must have its entry in it."""

    def __init__(self, folder: Path, port: int | None = None, persistence: bool = True,
                 users: dict[str, str] | None = None, acl: str | Path | None = None):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.proc: subprocess.Popen | None = None
        exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        passwd = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
        assert os.path.exists(exe), "mosquitto is not installed: run .ci/install-system-deps"
        self.exe = exe
        self.passwords = self.folder / "passwords"
        self.passwords.write_text("")
        subprocess.run([passwd, "-b", str(self.passwords), USER, PASSWORD], check=True, capture_output=True)
        for name, secret in (users or {}).items():
            subprocess.run([passwd, "-b", str(self.passwords), name, secret], check=True, capture_output=True)
        os.chmod(self.passwords, 0o600)
        (self.folder / "data").mkdir(exist_ok=True)
        self.conf = self.folder / "mosquitto.conf"
        lines = [f"listener {self.port} 127.0.0.1", "allow_anonymous false", f"password_file {self.passwords}",
                 f"persistence {'true' if persistence else 'false'}",
                 f"persistence_location {self.folder / 'data'}/", "autosave_interval 1",
                 "max_queued_messages 100000", "log_dest stderr", "log_type error", "log_type warning",
                 "log_type subscribe"]   # a test waits for its client's subscription (wait_subscribed)
        if acl is not None:
            lines.append(f"acl_file {acl}")
        if os.geteuid() == 0:
            lines.append("user root")   # CI runs as root: keep it from dropping to a user that cannot read the files
        self.conf.write_text("\n".join(lines) + "\n")

    @property
    def url(self) -> str:
        return f"mqtt://{USER}:{PASSWORD}@127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        return self.folder / "mosquitto.log"

    def log_mark(self) -> int:
        """Where the broker's log ends now: :meth:`wait_subscribed` counts what comes after it."""
        return self.log.stat().st_size if self.log.exists() else 0

    def wait_subscribed(self, topic: str = "/#", count: int = 1, since: int = 0, timeout: float = 120) -> None:
        """Until ``count`` subscriptions to a topic ending in ``topic`` are in the log after
        ``since`` (mosquitto logs «<time>: <client> <qos> <topic>» for each): a board or a
        listener started by a test is then ready for what it must receive."""
        deadline = time.monotonic() + timeout
        while True:
            with open(self.log, "rb") as f:
                f.seek(since)
                lines = f.read().decode("utf-8", "replace").splitlines()
            if sum(1 for line in lines if line.rstrip().endswith(topic) and line.count(" ") >= 3) >= count:
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"no subscription to …{topic} within {timeout} s: " + "\n".join(lines[-20:]))
            time.sleep(0.05)

    @property
    def plain_url(self) -> str:
        """The URL without credentials (the command line refuses a password in it)."""
        return f"mqtt://127.0.0.1:{self.port}"

    def env(self, user: str = USER, password: str = PASSWORD) -> dict:
        """The environment that gives a ``buzzer`` process the broker's credentials."""
        return {"BUZZER_FESTIVAL_USERNAME": user, "BUZZER_FESTIVAL_PASSWORD": password}

    def start(self) -> "Broker":
        log = open(self.folder / "mosquitto.log", "ab")
        self.proc = subprocess.Popen([self.exe, "-c", str(self.conf)], stdout=log, stderr=log,
                                     start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"mosquitto exited: {(self.folder / 'mosquitto.log').read_text()}")
                time.sleep(0.05)
        raise RuntimeError("mosquitto did not listen within 60 s")

    def kill(self) -> None:
        """SIGKILL by pid (a crash: what is not saved is lost)."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
