"""Headless mode: the loop with a text status in the terminal.

Used where no display exists (a server, CI, an SSH session).  Keys typed in the
terminal act as the simulated buttons and the host's keys (see
:data:`controller.inputs.keys.TERMINAL_KEYS`).  The status says in words what the
audience screen shows, from the same view and the same decisions
(:mod:`controller.screens.common`): :func:`status_lines`, redrawn in place whenever it
changes (:class:`TextScreen`); ruling flashes and the key help scroll above it.
"""

from __future__ import annotations

import codecs
import os
import select
import shutil
import sys
import termios
import time
import tty
from typing import Any, Mapping

from controller.core import engine
from controller.screens import common as screen
from controller.screens import viewmodel
from controller.i18n import action_label, signed, t
from controller.inputs.keys import HostKeys, digit_span, mode_keys, team_keys, terminal_key_names


def _cell(what: str, data: Mapping[str, Any], lang: str) -> str:
    """One number of the screen's side column, in words."""
    if what == "index":
        return f"{t('question', lang)} {data['index']}/{data['of']}"
    if what == "nominal":
        text = f"{t('nominal', lang)} {data['nominal']}"
        if data.get("index") and data.get("of"):
            text += f"{t('separator', lang)}{t('question', lang)} {data['index']}/{data['of']}"
        return text
    if what == "label":
        return f"{t('question', lang)} {data.get('label') or data.get('number')}"
    label = t("captain_timer", lang) if what == "captain" else screen.countdown_label(data, lang)
    return _clock(label, data, lang)


def _clock(label: str, cd: Mapping[str, Any], lang: str) -> str:
    """«Время на ответ: 5», «Речь: 0:45 (Пауза)»: a countdown as the screen shows its number."""
    text = f"{label}: {screen.countdown_text(cd)}" if label else screen.countdown_text(cd)
    return text + (f" ({t('paused', lang)})" if screen.countdown_phase(cd) == "paused" else "")


def _header(view: Mapping[str, Any], lang: str) -> str:
    mode = view.get("mode")
    title = screen.mode_title(mode, lang) if mode else ""
    structure = screen.structure(view, lang)
    parts = [title] if title and title != structure else []
    parts.append(structure)
    theme = screen.theme(view)
    if theme:
        parts.append(f"«{theme}»" if lang == "ru" else f"“{theme}”")
    if view.get("paused"):
        parts.append(t("paused", lang).upper())
    return t("separator", lang).join(p for p in parts if p)


def _main(view: Mapping[str, Any], lang: str) -> str:
    """The big panel and the side column, in one line."""
    teams = screen.teams_of(view)
    panel = screen.main_panel(view)
    q = view.get("question") or {}
    slots = screen.info_slots(view)
    if panel == "holder":
        tm = teams[screen.holder_index(view)]
        label = t("answer_order", lang, n=tm["answer_order"]) if tm.get("answer_order") else t("answering", lang)
        text = f"{label}: {tm.get('name', '')}"
        if tm.get("button"):
            text += f" ({t('button_name', lang, button=tm['button'])})"
    elif panel == "countdown":
        cd = screen.timer_of(view)
        text = _clock(screen.countdown_label(cd, lang), cd, lang)
    elif panel == "captain":
        text = _clock(t("captain_timer", lang), view["captain"], lang)
        slots = [s for s in slots if s[0] != "captain"]
    elif panel == "question":
        parts = [screen.question_head(q, lang)]
        if q.get("nominal") is not None:
            parts.append(f"{t('nominal', lang)} {q['nominal']}")
        if q.get("waiting_start"):
            parts.append(t("start_pending", lang))
        text = t("separator", lang).join(parts)
        slots = [s for s in slots if s[0] not in ("index", "nominal")]
    elif panel == "fight_over":
        head, winner, points = screen.fight_over_words(view["fight_result"], lang)
        who = f"{t('winner', lang)}: {winner}" if winner else t("no_winner", lang)
        text = f"{head} — {who} ({points})"
    elif panel == "closed":
        outcome, right = screen.closed_outcome(view)
        if right is not None:
            text = f"{t('mark_right', lang)} {t('right', lang)} — {right.get('team', '')} " \
                   f"{signed(right.get('delta', 0))}"
        else:
            text = t(outcome, lang)
        names_it = any(w == "label" or (w == "nominal" and d.get("index")) for w, d in slots)
        if not names_it:  # which question: the side column does not say
            text = f"{screen.question_head(q, lang)}: {text}"
    else:
        text = ""
    cells = [_cell(what, data, lang) for what, data in slots]
    return " | ".join(x for x in [text, t("separator", lang).join(cells)] if x)


def _presses(view: Mapping[str, Any], lang: str) -> str:
    """The press order of the question: each wave's presses with their gaps, the current wave last."""
    q = view.get("question") or {}
    rows = list(q.get("presses") or ())
    if not rows or not screen.press_order_shown(view):
        return ""
    numbers = screen.press_numbers(q)
    waves: dict[int, list[str]] = {}
    for r in rows:
        w = r.get("wave", 0)
        num = numbers.get((w, r.get("button"), r.get("at")))
        tag = screen.PRESS_TAG_KEYS.get(r.get("kind", ""))
        if tag:
            item = f"{r.get('team', '')} — {t(tag, lang)}"
        elif r.get("tie"):   # the same edge time as the winner's: no gap to show
            item = f"{num}. {r.get('team', '')} — {t(screen.TIE_TAG_KEY, lang)}"
        else:
            item = f"{num}. {r.get('team', '')} {screen.fmt_gap(float(r.get('gap_ms', 0.0)), lang)}"
        waves.setdefault(w, []).append(item)
    return f"{t('press_order', lang)}: " + " ‖ ".join(", ".join(items) for _, items in sorted(waves.items()))


def _teams(view: Mapping[str, Any], lang: str) -> str:
    """Every team's card: name, score, place, tags."""
    out = []
    for tm in screen.teams_of(view):
        text = f"{tm.get('name', '')} {screen.fmt_score(tm.get('score', 0))}"
        if tm.get("place"):
            text += f" ({t('place_n', lang, n=tm['place'])})"
        if screen.series_total(tm, lang):   # a programme's running total
            text += f" [{screen.series_total(tm, lang)}]"
        marks = [t(screen.TAG_KEYS[m], lang) for m in screen.team_marks(tm)]
        if tm.get("tiebreak_score") is not None and not marks:
            marks.append(f"{t('extra_fight', lang)}: {screen.fmt_score(tm['tiebreak_score'])}")
        if marks:
            text += " [" + ", ".join(marks) + "]"
        out.append(text)
    return t("separator", lang).join(out)


def _standings(view: Mapping[str, Any], lang: str) -> list[str]:
    """The standings table (between rounds and at the end), one row a line."""
    finished = view.get("stage") == "finished"
    title = screen.standings_title(view, lang)
    if not finished and view.get("round"):
        title += t("separator", lang) + screen.structure(view, lang)
    lines = [title + (t("separator", lang) + t("game_over", lang) if finished else "")]
    for row in view.get("standings") or ():
        place = str(row.get("place", ""))
        if finished and row.get("place") == 1:
            place = f"{t('mark_best', lang)} {place}"
        text = f"  {place}. {row.get('team', '')} {screen.fmt_score(row.get('points', ''))}"
        extra = []
        if "won_points" in row:
            extra.append(f"{t('right_points', lang)}: {screen.fmt_score(row['won_points'])}")
        if "tiebreak_points" in row:
            extra.append(f"{t('extra_fight', lang)}: {screen.fmt_score(row['tiebreak_points'])}")
        out = text + (f" ({', '.join(extra)})" if extra else "")
        lines.append(out)
    return lines


def _mafia(view: Mapping[str, Any], lang: str) -> list[str]:
    """The «Мафия» table: the day, the speaker's timer (or the winner), every seat."""
    lines = [_header(view, lang)]
    panel = screen.mafia_main(view)
    tm = view.get("timer") or {}
    seats = list(view.get("seats") or ())
    main = []
    if panel == "winner":
        main.append(t("town_wins" if view["winner"] == "town" else "mafia_wins", lang))
    elif panel == "speech":
        seat = next((x for x in seats if x.get("seat") == tm.get("seat")), {})
        who = f"{tm.get('seat')} {seat.get('name') or t('player_n', lang, n=tm.get('seat'))}"
        main.append(f"{screen.countdown_label(tm, lang)} · {who}: {screen.countdown_text(tm)}"
                    + (f" ({t('paused', lang)})" if tm.get("state") == "paused" else ""))
    if view.get("entry"):
        main.append(f"№ {view['entry']}")
    if view.get("pending_kind") not in (None, "minute"):
        main.append(t("mafia.kind", lang, kind=t(screen.COUNTDOWN_LABELS[view["pending_kind"]], lang)))
    if main:
        lines.append(" | ".join(main))
    cards = []
    for x in seats:
        text = f"{x.get('seat')} {x.get('name') or t('player_n', lang, n=x.get('seat'))}"
        if x.get("fouls"):
            text += " " + "•" * int(x["fouls"])
        tag = screen.SEAT_STATUS.get(x.get("status", ""))
        if tag:
            text += f" [{t(tag, lang)}]"
        if x.get("speaking"):
            text = f"▶ {text}"
        cards.append(text)
    half = (len(cards) + 1) // 2 if len(cards) > 6 else len(cards)
    for part in (cards[:half], cards[half:]):
        if part:
            lines.append(t("separator", lang).join(part))
    return lines


def status_lines(view: Mapping[str, Any], lang: str = "ru", status: Mapping[str, Any] | None = None) -> list[str]:
    """What the audience screen shows, as lines of text: the same view, the same decisions
    (:mod:`controller.screens.common`) as the scoreboard.

    The header (mode, fight · round · fight type, theme, pause), the big panel with the side
    column (who answers, the countdown, the captain's timer, the question and its nominal, a
    closed question's outcome), the press order with its gaps, the team cards with their tags;
    between rounds and at the end the standings; «Мафия»: the speaker's timer and every seat.
    ``status`` (:meth:`controller.app.loop.Loop.status`): the buttons' trouble and the host notice.
    """
    if "seats" in view:
        lines = _mafia(view, lang)
    elif screen.show_table(view):
        lines = [_header(view, lang)] + _standings(view, lang)
    else:
        lines = [_header(view, lang), _main(view, lang), *_pack(view, lang), _presses(view, lang), _teams(view, lang)]
    if status:
        missing = list(status.get("missing") or ())
        if missing:
            lines.append(t("backend_missing", lang, buttons=", ".join(str(m) for m in missing)))
        elif not status.get("connected", True):
            lines.append(f"{t('backend', lang)}: {t('backend_disconnected', lang)}")
        link = status.get("link")
        if link and not link.get("connected"):
            lines.append(f"{t('festival_link', lang)}: {t('festival_link_lost', lang)}")
        if status.get("notice"):
            lines.append(f"! {status['notice']}")
    return [line for line in lines if line]


def _pack(view: Mapping[str, Any], lang: str) -> list[str]:
    """A package's question on the host's terminal: the theme's comment, the text, the options,
    and -- the host's part, present only on the host's own screens -- the answer."""
    pack = view.get("pack") or {}
    q = pack.get("question") or {}
    if not pack:
        return []
    if not q.get("live"):
        return _board(pack, lang)
    host = (view.get("host") or {}).get("pack") or {}
    text = host.get("text") or q.get("text") or ""
    out = [f"  {x}" for x in screen.pack_phase_lines(q, pack, lang)]
    if pack.get("phase") == "final_rulings" and host.get("next"):
        out.append(f"  {t('pack.host.next_ruling', lang, team=host['next'])}")
    out += [f"  {x}" for x in (q.get("theme_comment"), text.replace("\n", " ")) if x]
    out += [f"  {o['label']}. {o['text']}" for o in q.get("options") or ()]
    answer = host.get("answer") or (q.get("answer") or {}).get("answer")
    if answer:
        more = [host.get("answer_text") or "", host.get("comment") or ""]
        out.append(t("pack.host.answer", lang, answer=" · ".join([answer] + [m.replace("\n", " ") for m in more if m])))
    return out


def _board(pack: Mapping[str, Any], lang: str) -> list[str]:
    """The package's board as the projector draws it: the round, each theme with its number and
    the prices still on it (a played cell «—», an empty one «·»); the final: its themes left and
    who removes one."""
    title = t("pack.screen.round", lang, n=pack["round_number"], count=pack["rounds"], name=pack["round"])
    if not pack.get("left"):
        title += t("separator", lang) + t("pack.screen.round_over", lang)
    out = [title]
    for i, th in enumerate(pack.get("board") or (), 1):
        if pack.get("final"):
            if not th.get("removed"):
                out.append(f"  {i}. {th['name']}")
            continue
        cells = ["·" if c.get("empty") else "—" if c["played"] else str(c["price"]) for c in th["cells"]]
        out.append(f"  {i}. {th['name']}: {'  '.join(cells)}")
    if pack.get("final") and pack.get("left"):
        who = pack.get("remover")
        out.append(t("pack.screen.remove", lang, team=who) if who else t("pack.screen.final_theme", lang))
    return out


def status_line(view: Mapping[str, Any], lang: str = "ru", status: Mapping[str, Any] | None = None) -> str:
    """:func:`status_lines` as one line (a terminal that is not a tty: a log of the game)."""
    return " | ".join(status_lines(view, lang, status))


def flash_line(flash: Mapping[str, Any], lang: str) -> str:
    """A ruling flash as a line of its own: «» Верно: Альфа»."""
    text, team = screen.flash_words(flash, lang)
    return f"» {text}" + (f": {team}" if team else "")


TERMINAL_LABELS = {"return": "Enter", "space": "Space", "backspace": "Backspace", "escape": "Esc",
                   "delete": "Delete", "tab": "Tab"}


def _terminal_label(name: str, lang: str) -> str | None:
    """A key name as typed in a terminal (keypad keys are the same characters there);
    None for keys a terminal does not send (pygame's keypad Enter, Pause)."""
    if name in ("enter", "pause"):
        return None
    if name == "space":
        return t("key_space", lang)
    if name in TERMINAL_LABELS:
        return TERMINAL_LABELS[name]
    if name.startswith("[") and name.endswith("]") and len(name) > 2:
        return name[1:-1]
    return name.upper() if len(name) == 1 or (name[0] == "f" and name[1:].isdigit()) else name


def _terminal_keys(keys: list[str], host_keys: HostKeys) -> list[str]:
    """The keys of a help line (:func:`mode_keys`) that a terminal can type.  A keypad key
    sends the same character as its plain key (:func:`terminal_key_names`): it stays only if
    that character does this line's action (in ЧГК the keypad's 0 starts the clock, but a 0
    typed in a terminal is a team's digit).  The number keys' spans (``0–9``, ``[1–9]``)
    become one span of the digits a terminal types as numbers."""
    out, digits = [], set()
    for k in keys:
        inner = k[1:-1] if k.startswith("[") and k.endswith("]") and len(k) > 2 else k
        if "–" in inner or ("," in inner and len(inner) > 1):   # a span of number keys
            for part in inner.split(","):
                lo, _, hi = part.strip().partition("–")
                digits.update(d for d in range(int(lo), int(hi or lo) + 1)
                              if (host_keys.action(terminal_key_names(str(d))) or "").startswith("digit_"))
        elif inner != k and host_keys.action(terminal_key_names(inner)) != host_keys.actions.get(k.lower()):
            continue   # the character does something else when typed
        else:
            out.append(k)
    return ([digit_span(digits)] if digits else []) + out


def help_hint(cfg: dict, lang: str = "ru") -> str:
    """«H — подсказка по клавишам», naming the key that shows the help in this game («Мафия»'s
    judge has H for the don's check: F1 there)."""
    keys = mode_keys(cfg).get("help") or []
    labels = [x for x in (_terminal_label(k, lang) for k in keys) if x]
    return t("help_hint", lang, help_key=labels[0] if labels else "F1")


def key_help(cfg: dict, lang: str = "ru", view: dict | None = None, state=None) -> str:
    """The keys of this game, one line each: players' buttons (named as in ``view``), then
    the host's actions; with the game's ``state``, the keys in force in it (a programme's
    current round's game's)."""
    lines = []
    teams = team_keys(cfg, view, state)
    if teams:
        lines.append("  " + "  ".join(f"{k.upper()} = {name}" for k, name in teams))
    host_keys = HostKeys.from_config(cfg, state)
    for action, keys in mode_keys(cfg, state).items():
        keys = _terminal_keys(keys, host_keys)
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
    return [names for names, _ in split_input(text)]


def split_input(text: str) -> list[tuple[list[str], str]]:
    """Like :func:`split_keys`, each key with the character typed (``""`` for a function
    or arrow key), so that a name being typed gets its characters as text."""

    keys: list[tuple[list[str], str]] = []
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
                keys.append(([name], ""))
            i = j
            continue
        keys.append((terminal_key_names(ch), ch))
        i += 1
    return keys


class TextScreen:
    """The terminal's picture of the game.

    On a terminal (``live``) the status (:func:`status_lines`) is a block of
    lines at the bottom, rewritten in place whenever it changes; what happened
    (a ruling flash, the key help) scrolls above it.  Each line is cut to the
    terminal's width so the block never wraps.  Elsewhere (a pipe, a log
    file) every changed status is one line of its own.
    """

    def __init__(self, stream=None, live: bool = False, columns=None):
        self.stream = stream if stream is not None else sys.stdout
        self.live = live
        self.columns = columns or (lambda: shutil.get_terminal_size((100, 24)).columns)
        self.shown: list[str] = []
        self.last: list[str] | None = None

    def _fit(self, line: str) -> str:
        width = max(self.columns() - 1, 10)
        return line if len(line) <= width else line[:width - 1] + "…"

    def _erase(self) -> str:
        if not self.shown:
            return ""
        return "\r" + (f"\x1b[{len(self.shown) - 1}A" if len(self.shown) > 1 else "") + "\x1b[J"

    def history(self, text: str) -> None:
        """Lines that stay in the scroll-back above the status."""
        if self.live:
            self.stream.write(self._erase() + text + "\n" + "\n".join(self.shown))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def show(self, lines: list[str]) -> None:
        """The status now; written only when it changed."""
        if lines == self.last:
            return
        self.last = list(lines)
        if self.live:
            fitted = [self._fit(line) for line in lines]
            self.stream.write(self._erase() + "\n".join(fitted))
            self.shown = fitted
        else:
            self.stream.write(" | ".join(lines) + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.live and self.shown:
            self.stream.write("\n")
            self.stream.flush()


class _Notices:
    """The loop's notice lines (``Loop.out``): into the scroll-back when the terminal is not live
    (a live terminal shows the notice in the status block, where it leaves when it is over)."""

    def __init__(self, screen: TextScreen):
        self.screen = screen

    def write(self, text: str) -> None:
        if not self.screen.live:
            for line in text.splitlines():
                if line.strip():
                    self.screen.history(line)

    def flush(self) -> None:
        pass


def frame(loop) -> list[str]:
    """The status block of ``loop`` now: its view, the buttons' state and the notice (a live
    terminal's block carries the notice; a log has it as a line of its own)."""
    lang = loop.cfg["language"]
    vm = viewmodel.build(engine.view(loop.state, loop.clock.now()), lang=lang, status=loop.status())
    view, status = viewmodel.host_screen(vm)
    return status_lines(view, lang, status)


def feed(loop, text: str) -> None:
    """Characters typed in the terminal: keys (buttons, host keys), or, while the host
    types a team's new name, its text (Backspace, Enter and Esc stay keys)."""
    for names, ch in split_input(text):
        if loop.typing and ch and ch.isprintable():
            loop.text_input(ch)
        else:
            loop.key_down(names)
            loop.key_up(names)


def entry_line(entry: dict | None) -> str:
    """The rename dialogue as one status line: what to do, what is typed, the keys."""
    if not entry:
        return ""
    return f"{entry['title']}: {entry['text']}▌  ({entry['hint']})"


def run_headless(loop, seconds: float | None = None, stream=None) -> None:
    stream = stream if stream is not None else sys.stdout
    fd = sys.stdin.fileno() if sys.stdin and not sys.stdin.closed else None
    is_tty = fd is not None and os.isatty(fd)
    reading = fd is not None  # a tty or a pipe: typed (or piped) characters act as keys
    old = termios.tcgetattr(fd) if is_tty else None
    if is_tty:
        tty.setcbreak(fd)
    decoder = codecs.getincrementaldecoder("utf-8")("replace")  # a letter may be 2 bytes
    end = None if seconds is None else time.monotonic() + seconds
    lang = loop.cfg["language"]
    live = hasattr(stream, "isatty") and stream.isatty()
    out = TextScreen(stream, live=live)
    loop.out = _Notices(out)
    shown_help = loop.help
    shown_keys = None
    shown_flash = None
    if reading:
        teams = team_keys(loop.cfg)
        first = "  " + "  ".join(f"{k.upper()} = {name}" for k, name in teams) if teams else ""
        hint = f"({help_hint(loop.cfg, lang)})" if is_tty else ""
        out.history(f"{first}   {hint}" if first and hint else first or ("  " + hint if hint else ""))
    try:
        while loop.running and (end is None or time.monotonic() < end):
            wait = loop.timeout_s(0.1)
            if reading:
                # the loop's wake pipe is in the set: a press enqueued by an input thread wakes
                # this select at once (not after its timeout, up to 100 ms later)
                wake = loop.wake_fd()
                ready, _, _ = select.select([fd, wake], [], [], wait)
                if wake in ready:
                    loop.clear_wake()
                if fd in ready:
                    data = os.read(fd, 64)
                    if not data:
                        reading = False  # end of input: the game goes on until quit or --seconds
                    else:
                        feed(loop, decoder.decode(data))
                loop.drain()
                loop.tick_if_due()
            else:
                loop.step_once(wait)
            if loop.help != shown_help or (loop.help and loop.key_map() != shown_keys):
                # shown again when the keys change while it is up (a programme's next game)
                shown_help, shown_keys = loop.help, loop.key_map()
                if shown_help:
                    out.history(key_help(loop.cfg, lang, engine.view(loop.state), loop.state))
            flash = loop.current_flash()
            if flash is not None and (flash, loop.flash_until) != shown_flash \
                    and flash.get("kind") not in screen.SILENT_FLASHES:
                out.history(flash_line(flash, lang))
            shown_flash = (flash, loop.flash_until) if flash is not None else None
            lines = frame(loop)
            entry = entry_line(loop.entry())
            if entry:  # the host is typing a team's new name
                lines = [entry] + lines
            if not live:
                lines = [line for line in lines if not line.startswith("! ")]  # a line of its own already
            out.show(lines)
    finally:
        out.close()
        if is_tty:
            termios.tcsetattr(fd, termios.TCSADRAIN, old)
