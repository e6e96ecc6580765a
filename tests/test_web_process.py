"""The web pages' own process (controller/web/process.py, controller/web/child.py): the game's
process never waits for it, survives its crash, and leaves no orphan behind."""

from __future__ import annotations

import json
import os
import signal
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from controller.app import config as config_mod
from controller.core.events import HostKey
from controller.web.process import WebProcess

from tests.browser import Game, free_port


def settings(**over):
    s = dict(config_mod.load(None)["web"])
    s.update({"port": free_port(), "next_free_port": False, **over})
    return s


def get_state(port: int, timeout: float = 30) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=timeout) as r:
        return json.loads(r.read())


def post(port: int, token: str, body: dict) -> int:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/host", data=json.dumps(body).encode(),
                                 headers={"Authorization": f"Bearer {token}"}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


def gone(pid: int) -> bool:
    """The process has ended (a zombie counts: it runs nothing and holds no socket)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def wait_until(cond, timeout: float = 60.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        out += [int(p) for p in (task / "children").read_text().split()]
    return out


def vm(seq: int, pad: int = 0) -> dict:
    return {"seq": seq, "lang": "ru", "title": "T",
            "audience": {"game": {"teams": [{"name": "A" * pad, "score": seq}]}, "flash": None, "inputs": {}},
            "host": {"notice": None, "game": {}, "actions": [], "keys": [], "undo": None}}


@pytest.fixture
def web():
    got = []
    srv = WebProcess(settings(), "ru", got.append)
    srv.start()
    yield srv, got
    srv.stop()


def test_the_pages_run_in_another_process_and_the_actions_come_back_to_the_sink(web):
    srv, got = web
    srv.publish(vm(1))
    assert srv.pid != os.getpid() and not gone(srv.pid)
    assert get_state(srv.port)["seq"] == 1
    assert post(srv.port, srv.token, {"host": "question", "nominal": 30}) == 202
    assert got == [HostKey("question", {"nominal": 30})]


def nice_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


def test_the_pages_process_runs_below_the_game_by_web_nice(web):
    """A crowd of viewers waits for a CPU instead of the buttons: the pages' process adds
    [web] nice (10 by default) to the game's priority."""
    srv, _ = web
    srv.publish(vm(1))
    assert get_state(srv.port)["seq"] == 1        # running, past its start-up
    assert nice_of(srv.pid) == min(19, nice_of(os.getpid()) + 10)


def test_web_nice_0_keeps_the_pages_at_the_games_priority():
    srv = WebProcess(settings(nice=0), "ru", lambda ev: None)
    srv.start()
    try:
        srv.publish(vm(1))
        assert get_state(srv.port)["seq"] == 1
        assert nice_of(srv.pid) == nice_of(os.getpid())
    finally:
        srv.stop()


def test_a_refused_action_is_a_422_with_the_games_reason():
    got = []
    srv = WebProcess(settings(), "ru", got.append, check=lambda a, p: None if a == "right" else f"{a}: not now")
    srv.start()
    try:
        assert post(srv.port, srv.token, {"host": "wrong"}) == 422
        assert post(srv.port, srv.token, {"host": "right"}) == 202
        assert got == [HostKey("right", {})]
    finally:
        srv.stop()


def test_parameters_the_game_refuses_are_a_422_naming_the_reason_and_never_reach_the_loop():
    """POST /api/host with an unknown team or a nominal of 0 (the game's step fails on them):
    422 with the game's reason, not 202 and a refusal in the host's terminal afterwards."""
    from types import SimpleNamespace

    from controller import games
    from controller.games import engine
    from controller.inputs.clock import ManualClock
    from controller.web.attach import make_check

    cfg = config_mod.load(None)
    loop = SimpleNamespace(state=engine.new_game(cfg, 1), clock=ManualClock(), game=games.get(cfg["mode"]))
    got = []
    srv = WebProcess(settings(), "ru", got.append, check=make_check(loop))
    srv.start()
    try:
        for body, reason in (({"host": "rename", "team": 9, "name": "X"}, "unknown team 9"),
                             ({"host": "rename", "team": 0, "name": "X"}, "unknown team 0"),
                             ({"host": "question", "nominal": -5}, "nominal"),
                             ({"host": "question", "nominal": 0}, "nominal")):
            req = urllib.request.Request(f"http://127.0.0.1:{srv.port}/api/host", data=json.dumps(body).encode(),
                                         headers={"Authorization": f"Bearer {srv.token}"}, method="POST")
            with pytest.raises(urllib.error.HTTPError) as err:
                urllib.request.urlopen(req, timeout=10)
            assert err.value.code == 422 and reason in err.value.read().decode("utf-8")
        assert got == []
        assert post(srv.port, srv.token, {"host": "rename", "team": 2, "name": "X"}) == 202
        assert got == [HostKey("rename", {"team": 2, "name": "X"})]
    finally:
        srv.stop()


def test_a_stuck_web_process_never_blocks_publish_and_the_newest_snapshot_arrives_after(web):
    srv, _ = web
    srv.publish(vm(1))
    assert get_state(srv.port)["seq"] == 1
    os.kill(srv.pid, signal.SIGSTOP)
    try:
        t0 = time.monotonic()
        for seq in range(2, 1002):           # ~100 MB: far more than the pipe holds
            srv.publish(vm(seq, pad=100_000))
        spent = time.monotonic() - t0
        assert srv.backlog and srv.dropped > 0
    finally:
        os.kill(srv.pid, signal.SIGCONT)
    assert spent < 30                         # json.dumps of 1000 snapshots; never a wait for the pipe
    # the loop's publisher pumps after each step: the newest snapshot goes when there is room
    assert wait_until(lambda: (srv.pump(), not srv.backlog)[1], 60)
    assert wait_until(lambda: get_state(srv.port)["seq"] == 1001, 60)


def test_a_crash_of_the_web_process_is_survived_and_the_pages_come_back(web):
    srv, got = web
    srv.publish(vm(1))
    assert get_state(srv.port)["seq"] == 1
    first = srv.pid
    os.kill(first, signal.SIGKILL)
    srv.publish(vm(2))                        # the game goes on meanwhile: no exception
    assert wait_until(lambda: srv.pid != first and srv.alive, 60)
    assert srv.restarts == 1
    assert wait_until(lambda: get_state(srv.port)["seq"] == 2, 60)   # the newest snapshot, resent
    assert post(srv.port, srv.token, {"host": "right"}) == 202       # the same token
    assert got == [HostKey("right", {})]


def test_stop_ends_the_web_process_by_its_pid(web):
    srv, _ = web
    pid = srv.pid
    srv.stop()
    assert gone(pid)


@pytest.mark.parametrize("how", ["end", "ctrl-c", "sigkill"])
def test_no_web_process_is_left_after_buzzer_run_ends(tmp_path, how):
    # "end": the game's own time runs out -- after the test has seen the pages, on a busy machine too
    game = Game(tmp_path, seconds=20 if how == "end" else 300)
    try:
        assert get_state(game.port)["seq"] >= 1
        kids = children(game.proc.pid)
        assert len(kids) == 1 and "controller.web.child" in Path(f"/proc/{kids[0]}/cmdline").read_text()
        if how == "ctrl-c":
            os.kill(game.proc.pid, signal.SIGINT)
        elif how == "sigkill":
            os.kill(game.proc.pid, signal.SIGKILL)   # no clean-up at all: the child sees its pipe close
        game.proc.wait(120)
        assert wait_until(lambda: gone(kids[0]), 60), how
    finally:
        game.close()
