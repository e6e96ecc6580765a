"""The host token never lands in a log (issue 24, item 10): `buzzer run` prints the host link
only on an interactive terminal; with its output going anywhere else (journald under the
shipped systemd unit, a pipe, a file) the link goes to ``journal/host-link`` (mode 0600) and the
output says where. The view model's host part carries the host page's address without it."""

from __future__ import annotations

import io
import json
import os
import pty
import re
import select
import stat
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import asyncio

from controller.app import config
from controller.sessions import journal
from controller.app.loop import Loop
from controller.games import engine
from controller.inputs.clock import ManualClock
from controller.core.events import NS_PER_S
from controller.web import attach, host_token

from tests.browser import free_port

ROOT = Path(__file__).resolve().parents[1]
TOKEN = re.compile(r"#token=([A-Za-z0-9_-]+)")


def _env():
    return dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONPATH=str(ROOT))


def test_with_its_output_in_a_log_the_token_goes_to_a_0600_file_not_the_log(tmp_path):
    (tmp_path / "game.toml").write_text(f"[web]\nport = {free_port()}\n[display]\nhost_overlay = false\n",
                                        encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--headless", "--seconds", "1",
                           "-c", "game.toml"], cwd=tmp_path, env=_env(), stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    token = host_token.load(tmp_path / "journal")
    assert token and token not in proc.stdout + proc.stderr
    assert "#token=" not in proc.stdout + proc.stderr and "█" not in proc.stdout   # no link, no QR code
    lines = [line for line in proc.stdout.splitlines() if "journal/host-link" in line]
    assert lines == ["Страница ведущего: ссылка (с ключом ведущего) в файле journal/host-link, его читает "
                     "только этот пользователь: вывод идёт не в терминал"], proc.stdout
    link = tmp_path / "journal" / "host-link"
    assert stat.S_IMODE(link.stat().st_mode) == 0o600
    assert TOKEN.search(link.read_text(encoding="utf-8")).group(1) == token


def test_on_an_interactive_terminal_the_host_link_is_printed(tmp_path):
    (tmp_path / "game.toml").write_text(f"[web]\nport = {free_port()}\n", encoding="utf-8")
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--headless", "--seconds", "1",
                             "-c", "game.toml"], cwd=tmp_path, env=_env(), stdin=subprocess.DEVNULL,
                            stdout=slave, stderr=subprocess.PIPE)
    os.close(slave)
    out = b""
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:   # the other end closed
                    break
                if not chunk:
                    break
                out += chunk
            elif proc.poll() is not None:
                break
    finally:
        proc.wait(30)
        os.close(master)
    text = out.decode(errors="replace")
    token = host_token.load(tmp_path / "journal")
    assert f"/host#token={token}" in text, text
    assert "Страница ведущего (ссылку никому не показывайте):" in text


def test_the_view_models_host_part_has_no_token(tmp_path):
    cfg = config.build({"web": {"port": free_port()}, "journal": {"dir": str(tmp_path / "journal")}})
    jr = journal.Journal(journal.current_path(cfg["journal"]["dir"]), header=journal.new_header(cfg, 1, None),
                         fsync=False)
    loop = Loop(cfg, engine.new_game(cfg, 1), ManualClock(1_000 * NS_PER_S), journal=jr, out=io.StringIO())
    out = io.StringIO()
    server = attach.attach(loop, out=out)
    try:
        assert server.token not in out.getvalue()

        async def host_state():
            async with aiohttp.ClientSession() as s:
                for _ in range(300):   # the web process may still be starting
                    try:
                        async with s.get(f"http://127.0.0.1:{server.port}/api/state",
                                         headers={"Authorization": f"Bearer {server.token}"}) as r:
                            return r.status, await r.text()
                    except aiohttp.ClientConnectionError:
                        await asyncio.sleep(0.1)
            raise AssertionError("the web process never answered")

        status, text = asyncio.run(host_state())
        assert status == 200
        vm = json.loads(text)
        assert vm["host"]["links"]["host"] == f"http://127.0.0.1:{server.port}/host"
        assert server.token not in text
        assert server.token not in json.dumps(loop.publish.latest)
    finally:
        server.stop()
        loop.journal.close()
