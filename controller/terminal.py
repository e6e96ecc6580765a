"""Headless mode: the loop with a text status in the terminal.

Used where no display exists (a server, CI, an SSH session).  Keys typed in the
terminal act as the simulated buttons and the host's keys (see
:data:`controller.loop.TERMINAL_KEYS`); the status line is rewritten whenever
the game changes.
"""

from __future__ import annotations

import os
import select
import sys
import termios
import time
import tty

from controller import engine



def status_line(view: dict, lang: str = "ru") -> str:
    """One line that says where the game is: question, who answers, countdown, scores."""
    from controller.i18n import t

    parts = []
    if "seats" in view:  # «Мафия» table
        tm = view.get("timer") or {}
        if tm.get("seat"):
            parts.append(f"{t('speech', lang)} · {tm['seat']}: {tm.get('remaining_ms', 0) / 1000:.0f}")
        if view.get("entry"):
            parts.append(f"№ {view['entry']}")
        parts.append(" ".join(f"{st['seat']}{'✗' if st['status'] == 'removed' else ''}"
                              f"{'·' * st['fouls']}" for st in view["seats"]))
        if view.get("winner"):
            parts.append(str(view["winner"]))
        return " | ".join(parts)
    q = view.get("question")
    if view.get("stage") == "finished":
        parts.append(t("game_over", lang))
    if q:
        parts.append(f"{t('question', lang)} {q.get('number', '')} ({q.get('nominal', '')})")
    teams = view.get("teams") or []
    holder = next((tm["name"] for tm in teams if tm.get("holder")), None)
    if holder:
        parts.append(f"{t('answering', lang)}: {holder}")
    cd = view.get("countdown")
    if cd and cd.get("remaining_ms") is not None:
        parts.append(f"⏱ {cd['remaining_ms'] / 1000:.1f}")
    if view.get("paused"):
        parts.append(t("paused", lang))
    parts.append(" · ".join(f"{tm['name']} {tm.get('score', 0)}" for tm in teams))
    return " | ".join(parts)


def key_help(cfg: dict, lang: str = "ru") -> str:
    """The keys of this game, one line each: players' buttons, then the host's actions."""
    from controller.i18n import STRINGS, t
    from controller.loop import HostKeys

    lines = []
    if cfg["mode"] not in ("mafia", "chgk"):
        lines.append("  " + "  ".join(f"{tm['key'].upper()} = {tm['name']}" for tm in cfg["teams"] if tm["key"]))
    by_action: dict[str, list[str]] = {}
    for key, action in HostKeys.from_config(cfg).actions.items():
        by_action.setdefault(action, []).append(key)
    known = set(engine.host_actions(cfg["mode"])) | set(HostKeys.GLOBAL) | {"import_results"}
    for action, keys in by_action.items():
        if action.startswith("digit_") or (cfg["mode"] != "programme" and action not in known):
            continue
        label_key = {"reading_done": "action_arm"}.get(action, f"action_{action}")
        label = t(label_key, lang) if label_key in STRINGS.get(lang, {}) else action
        lines.append(f"  {', '.join(k.upper() if len(k) == 1 else k for k in keys):<24} {label}")
    return "\n".join(lines)


def run_headless(loop, seconds: float | None = None) -> None:
    fd = sys.stdin.fileno() if sys.stdin and not sys.stdin.closed else None
    is_tty = fd is not None and os.isatty(fd)
    reading = fd is not None  # a tty or a pipe: typed (or piped) characters act as keys
    old = termios.tcgetattr(fd) if is_tty else None
    if is_tty:
        tty.setcbreak(fd)
    from controller.loop import terminal_key_names
    end = None if seconds is None else time.monotonic() + seconds
    last_line = ""
    last_print = 0.0
    lang = loop.cfg["language"]
    shown_help = loop.help
    if reading:
        print(key_help(loop.cfg, lang).splitlines()[0] if loop.cfg["mode"] not in ("mafia", "chgk") else "",
              "  (H: keys)" if is_tty else "", flush=True)
    try:
        while loop.running and (end is None or time.monotonic() < end):
            wait = loop.timeout_s(0.1)
            if reading:
                ready, _, _ = select.select([fd], [], [], wait)
                if ready:
                    data = os.read(fd, 1)
                    if not data:
                        reading = False  # end of input: the game goes on until quit or --seconds
                    else:
                        names = terminal_key_names(data.decode("utf-8", "replace"))
                        loop.key_down(names)
                        loop.key_up(names)
                loop.drain()
                loop.tick_if_due()
            else:
                loop.step_once(wait)
            if loop.help != shown_help:
                shown_help = loop.help
                if shown_help:
                    sys.stdout.write("\n" + key_help(loop.cfg, lang) + "\n")
                    last_line = ""
            line = status_line(engine.view(loop.state, loop.clock.now()), lang)
            now = time.monotonic()
            if line != last_line and (now - last_print > 0.2 or line.split("⏱")[0] != last_line.split("⏱")[0]):
                sys.stdout.write("\r\x1b[K" + line if is_tty else line + "\n")
                sys.stdout.flush()
                last_line, last_print = line, now
    finally:
        if is_tty:
            termios.tcsetattr(fd, termios.TCSADRAIN, old)
            sys.stdout.write("\n")
