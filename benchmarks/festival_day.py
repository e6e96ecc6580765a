"""A 10-hour festival day, accelerated (issue 24; docs/reliability.md «A festival day»).

A real mosquitto with the shipped ACL file and a broker user per hall, the organiser's
keys (every message signed and verified); ``HALLS`` halls, each a process of its own
playing a day of Эрудит-квартет through the real loop, journal and publisher process
(``controller.festival.hall.attach``: the same as ``buzzer run``), a question a minute of
virtual time -- 600 questions, a new game every 36 (the host's «new game»: the journal is
archived); and the real board, ``buzzer festival --headless``, in a process of its own.
The engine's clock is virtual, so the day takes minutes; the publisher and the board see
every message of it at once, as fast as the halls play.

Measured: every process's resident memory (VmRSS) after the first game and at the end
of the day (the growth is what a day adds; target: at most 10 MB each), the journal bytes
per question (every journal of the day, archives included), the board's terminal output
(status) bytes, and what the board refused (nothing: everything is signed).

    python benchmarks/festival_day.py [--quick]   (or: python benchmarks/run.py --only festival_day)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

HALLS = 3
QUESTIONS = 600          # 10 hours, a question a minute
PER_GAME = 36
COMP = "Эрудит"


def rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _hall_child(folder: str, url: str, hall: str, key_file: str, questions: int, per_game: int) -> None:
    """One hall's day (its own process; its publisher is a child of it, as in ``buzzer run``)."""
    from controller.festival.hall import attach
    from festival_hall import hall_loop, question

    loop, clock, cfg = hall_loop(folder, url, hall, COMP, key_file=key_file)
    pub = attach(loop, cfg)
    child = pub._process.pid

    def say(**what) -> None:
        print(json.dumps({"hall": hall, "pid": os.getpid(), "child": child, **what}), flush=True)

    say(started=True)
    for q in range(questions):
        if q and q % per_game == 0:
            loop.on_new_game()
            if q == per_game:
                time.sleep(1.0)
                say(warm=True)
        question(loop, clock, q, right=bool(q % 3), think_ms=3000, answer_ms=2000, after_ms=55_000)
        time.sleep(0.01)      # a little wall time: the publisher's standings go out as in a game
    deadline = time.monotonic() + 180      # (a machine shared with other work: the publisher may lag)
    while pub.pending() and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1.0)
    say(done=True, pending=pub.pending())
    sys.stdin.readline()      # the parent measures, then lets the hall go
    pub.close(10.0)


def run(quick: bool = False) -> dict:
    from controller.festival import auth
    from mosquitto import Broker

    questions = 120 if quick else QUESTIONS
    halls = [f"Зал {i + 1}" for i in range(HALLS)]
    users = {"board": "board-day-pw", **{h: f"pw-{i}-day" for i, h in enumerate(halls)}}
    tmp = Path(tempfile.mkdtemp(prefix="festival-day-"))
    broker = Broker(tmp / "broker", users=users, acl=ROOT / "config" / "mosquitto" / "festival.acl").start()
    auth.make_keys(tmp / "keys", halls)
    board_cfg = tmp / "board.toml"
    board_cfg.write_text(f'[festival]\nkey_file = "{tmp / "keys" / "board.keys"}"\nweb_port = 0\n', encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT), SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy",
               BUZZER_FESTIVAL_USERNAME="board", BUZZER_FESTIVAL_PASSWORD=users["board"])
    out_path, err_path = tmp / "board.out", tmp / "board.err"
    board = subprocess.Popen([sys.executable, "-m", "controller.cli", "festival", "--headless", "-c", str(board_cfg),
                              "--broker", broker.plain_url], env=env, cwd=tmp, stdout=open(out_path, "wb"),
                             stderr=open(err_path, "wb"))
    procs, lines = [], {}
    started = time.monotonic()
    try:
        time.sleep(2.0)
        for h in halls:
            url = f"mqtt://127.0.0.1:{broker.port}"
            henv = dict(env, BUZZER_FESTIVAL_USERNAME=h, BUZZER_FESTIVAL_PASSWORD=users[h])
            code = (f"import sys; sys.path[:0] = [{str(ROOT)!r}, {str(HERE)!r}]; import festival_day; "
                    f"festival_day._hall_child({str(tmp / h)!r}, {url!r}, {h!r}, "
                    f"{str(tmp / 'keys' / (h + '.key'))!r}, {questions}, {PER_GAME})")
            p = subprocess.Popen([sys.executable, "-c", code], env=henv, cwd=tmp, stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True)
            procs.append(p)
            lines[h] = []
            threading.Thread(target=lambda p=p, h=h: [lines[h].append(json.loads(x)) for x in p.stdout
                                                      if x.startswith("{")],   # (the loop's notices too)
                             daemon=True).start()

        def wait_for(key: str) -> None:
            deadline = time.monotonic() + 1800
            while not all(any(x.get(key) for x in lines[h]) for h in halls):
                if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
                    raise RuntimeError(f"a hall stopped before {key}: {lines}")
                time.sleep(0.2)

        wait_for("warm")
        time.sleep(2.0)
        first = {h: next(x for x in lines[h] if x.get("started")) for h in halls}
        warm = {"board": rss_kb(board.pid), "broker": rss_kb(broker.proc.pid)}
        for h in halls:
            warm[f"{h} game"] = rss_kb(first[h]["pid"])
            warm[f"{h} publisher"] = rss_kb(first[h]["child"])
        series: list[tuple[float, dict]] = []

        def sample() -> dict:
            now = {"board": rss_kb(board.pid), "broker": rss_kb(broker.proc.pid)}
            for h in halls:
                now[f"{h} game"] = rss_kb(first[h]["pid"])
                now[f"{h} publisher"] = rss_kb(first[h]["child"])
            return now

        deadline = time.monotonic() + 1800
        while not all(any(x.get("done") for x in lines[h]) for h in halls):
            if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
                raise RuntimeError(f"a hall stopped before the end of its day: {lines}")
            series.append((time.monotonic() - started, sample()))
            time.sleep(1.0)
        # the board has taken the day: every game of every hall complete
        total_games = HALLS * ((questions + PER_GAME - 1) // PER_GAME)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            r = subprocess.run([sys.executable, "-m", "controller.cli", "festival", "results", "--json", "-c",
                                str(board_cfg), "--broker", broker.plain_url, "--wait", "10"], env=env, cwd=tmp,
                               capture_output=True, text=True)
            res = json.loads(r.stdout) if r.returncode == 0 else {"competitions": []}
            if len(res["competitions"]) >= total_games:
                break
        time.sleep(3.0)
        end = {"board": rss_kb(board.pid), "broker": rss_kb(broker.proc.pid)}
        for h in halls:
            end[f"{h} game"] = rss_kb(first[h]["pid"])
            end[f"{h} publisher"] = rss_kb(first[h]["child"])
        journal_bytes = sum(f.stat().st_size for h in halls for f in (tmp / h / "journal").rglob("*.jsonl"))
        pending = {h: next(x for x in lines[h] if x.get("done"))["pending"] for h in halls}
    finally:
        for p in procs:
            try:
                p.stdin.write("\n")
                p.stdin.flush()
            except (OSError, ValueError):
                pass
        for p in procs:
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()
        board.terminate()
        try:
            board.wait(20)
        except subprocess.TimeoutExpired:
            board.kill()
        broker.stop()
    growth = {k: round((end[k] - warm[k]) / 1024, 1) for k in warm}
    # the second half of the day alone: a process still growing then would grow all day
    half = series[len(series) // 2][1] if series else warm
    second_half = {k: round((end[k] - half[k]) / 1024, 1) for k in warm}
    out_bytes, err_bytes = out_path.stat().st_size, err_path.stat().st_size
    refused = [line for line in err_path.read_text(errors="replace").splitlines() if "отклонило" in line]
    return {
        "festival_day_halls": HALLS,
        "festival_day_questions_per_hall": questions,
        "festival_day_games": total_games,
        "festival_day_virtual_hours": round(questions / 60, 1),
        "festival_day_wall_s": round(time.monotonic() - started, 1),
        "festival_day_rss_warm_mb": {k: round(v / 1024, 1) for k, v in warm.items()},
        "festival_day_rss_end_mb": {k: round(v / 1024, 1) for k, v in end.items()},
        "festival_day_rss_growth_mb": growth,
        "festival_day_max_growth_mb": max(growth.values()),
        "festival_day_rss_growth_second_half_mb": second_half,
        "festival_day_growth_target_met": max(growth.values()) <= 10.0,
        "festival_day_journal_bytes_per_question": round(journal_bytes / (HALLS * questions), 1),
        "festival_day_board_status_bytes": out_bytes,
        "festival_day_board_status_bytes_per_question": round(out_bytes / (HALLS * questions), 1),
        "festival_day_board_log_bytes": err_bytes,
        "festival_day_board_results_games": len(res["competitions"]),
        "festival_day_unacknowledged": sum(pending.values()),
        "festival_day_refused_lines": len(refused),
    }


if __name__ == "__main__":
    print(json.dumps(run("--quick" in sys.argv), ensure_ascii=False, indent=1))
