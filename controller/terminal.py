"""Headless mode: the loop with a text status in the terminal.

Used where no display exists (a server, CI, an SSH session).  Keys typed in the
terminal act as the simulated buttons and the host's keys (see
:data:`controller.loop.TERMINAL_KEYS`); the status line is rewritten whenever
the game changes.
"""

from __future__ import annotations

import codecs
import os
import select
import sys
import termios
import time
import tty

from controller import engine



def status_line(view: dict, lang: str = "ru") -> str:
    """One line that says where the game is: question, who answers, countdown, scores."""
    from controller.i18n import question_title, t

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
        nominal = q.get("nominal")
        parts.append(question_title(q, lang) + ("" if nominal is None else f" ({nominal})"))
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


DIGIT_ACTIONS = {"mafia": "seat_number", "chgk": "team_number"}
"""The pseudo-action the digit keys stand for in the key help (one row, not ten)."""


def mode_keys(cfg: dict) -> dict[str, list[str]]:
    """The host's keys that do something in this game: action -> key names (pygame style).

    The effective map (``[keys]``, or the «Мафия» judge's map, plus ЧГК's keys on top),
    keeping only the actions this mode has and the program's own keys (help, sound,
    new game, quit); the digit keys become one ``seat_number`` / ``team_number`` entry
    with the names ``0–9`` and ``[0–9]``.  Used by the help overlay and the terminal help.
    """
    from controller.loop import HostKeys

    mode = cfg["mode"]
    if mode == "programme":
        modes = {r["mode"] for r in cfg["programme"]["rounds"]}
        known = set(engine.host_actions(mode)).union(*(engine.host_actions(m) for m in modes))
    else:
        known = set(engine.host_actions(mode))
    known |= set(HostKeys.GLOBAL) | ({"import_results"} if mode == "chgk" else set())
    out: dict[str, list[str]] = {}
    digits: list[str] = []
    for key, action in HostKeys.from_config(cfg).actions.items():
        if action.startswith("digit_"):
            if action in known:
                digits.append(key)
        elif action in known or (action == "pause" and "resume" in known):
            out.setdefault(action, []).append(key)
    if digits:
        names = ["0–9"] if any(k.isdigit() for k in digits) else []
        names += ["[0–9]"] if any(k.startswith("[") for k in digits) else []
        out = {DIGIT_ACTIONS.get(mode, "team_number"): names, **out}
    # the game's keys first, the program's own (help, sound, new game, quit) last
    return dict(sorted(out.items(), key=lambda item: item[0] in HostKeys.GLOBAL))


def team_keys(cfg: dict) -> list[tuple[str, str]]:
    """(key, team name) of every team with a keyboard key, in modes where buttons play."""
    if cfg["mode"] in ("mafia", "chgk"):
        return []
    return [(tm["key"], tm["name"]) for tm in cfg["teams"] if tm.get("key")]


TERMINAL_LABELS = {"return": "Enter", "space": "Space", "backspace": "Backspace", "escape": "Esc",
                   "delete": "Delete", "tab": "Tab"}


def _terminal_label(name: str, lang: str) -> str | None:
    """A key name as typed in a terminal (keypad keys are the same characters there);
    None for keys a terminal does not send (pygame's keypad Enter, Pause)."""
    from controller.i18n import t

    if name in ("enter", "pause"):
        return None
    if name == "space":
        return t("key_space", lang)
    if name in TERMINAL_LABELS:
        return TERMINAL_LABELS[name]
    if name.startswith("[") and name.endswith("]") and len(name) > 2:
        return name[1:-1]
    return name.upper() if len(name) == 1 or (name[0] == "f" and name[1:].isdigit()) else name


def key_help(cfg: dict, lang: str = "ru") -> str:
    """The keys of this game, one line each: players' buttons, then the host's actions."""
    from controller.i18n import action_label

    lines = []
    teams = team_keys(cfg)
    if teams:
        lines.append("  " + "  ".join(f"{k.upper()} = {name}" for k, name in teams))
    for action, keys in mode_keys(cfg).items():
        labels = list(dict.fromkeys(x for x in (_terminal_label(k, lang) for k in keys) if x))
        if labels:
            lines.append(f"  {', '.join(labels):<24} {action_label(action, lang)}")
    return "\n".join(lines)


ESCAPE_KEYS = {"OP": "f1", "OQ": "f2", "OR": "f3", "OS": "f4", "[11~": "f1", "[12~": "f2", "[13~": "f3",
               "[14~": "f4", "[15~": "f5", "[17~": "f6", "[18~": "f7", "[19~": "f8", "[20~": "f9",
               "[21~": "f10", "[23~": "f11", "[24~": "f12", "[A": "up", "[B": "down", "[C": "right",
               "[D": "left", "[H": "home", "[F": "end", "[2~": "insert", "[3~": "delete",
               "[5~": "page up", "[6~": "page down", "OA": "up", "OB": "down", "OC": "right", "OD": "left"}
"""Terminal escape sequences (after ESC) -> pygame key names: F12 or an arrow key must not
read as Esc (quit) followed by letters."""


def split_keys(text: str) -> list[list[str]]:
    """The keys in a chunk of terminal input, each as its list of pygame key names.

    An escape sequence (a function or arrow key) is one key; a lone ESC is Esc;
    an unknown sequence is dropped whole."""
    from controller.loop import terminal_key_names

    keys: list[list[str]] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\x1b" and i + 1 < len(text) and text[i + 1] in "[O":
            j = i + 2
            if text[i + 1] == "[":
                while j < len(text) and not ("@" <= text[j] <= "~"):
                    j += 1  # parameter bytes, up to the final byte
            j = min(j + 1, len(text))
            name = ESCAPE_KEYS.get(text[i + 1:j])
            if name:
                keys.append([name])
            i = j
            continue
        keys.append(terminal_key_names(ch))
        i += 1
    return keys


def run_headless(loop, seconds: float | None = None) -> None:
    fd = sys.stdin.fileno() if sys.stdin and not sys.stdin.closed else None
    is_tty = fd is not None and os.isatty(fd)
    reading = fd is not None  # a tty or a pipe: typed (or piped) characters act as keys
    old = termios.tcgetattr(fd) if is_tty else None
    if is_tty:
        tty.setcbreak(fd)
    decoder = codecs.getincrementaldecoder("utf-8")("replace")  # a letter may be 2 bytes
    end = None if seconds is None else time.monotonic() + seconds
    last_line = ""
    last_print = 0.0
    lang = loop.cfg["language"]
    shown_help = loop.help
    if reading:
        from controller.i18n import t

        teams = team_keys(loop.cfg)
        first = "  " + "  ".join(f"{k.upper()} = {name}" for k, name in teams) if teams else ""
        print(first + (f"   ({t('help_hint', lang)})" if is_tty else ""), flush=True)
    try:
        while loop.running and (end is None or time.monotonic() < end):
            wait = loop.timeout_s(0.1)
            if reading:
                ready, _, _ = select.select([fd], [], [], wait)
                if ready:
                    data = os.read(fd, 64)
                    if not data:
                        reading = False  # end of input: the game goes on until quit or --seconds
                    else:
                        for names in split_keys(decoder.decode(data)):
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
