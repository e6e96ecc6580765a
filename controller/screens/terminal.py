"""Headless mode: the loop with a text status in the terminal.

Used where no display exists (a server, CI, an SSH session).  Keys typed in the
terminal act as the simulated buttons and the host's keys (see
:data:`controller.inputs.keys.TERMINAL_KEYS`).  The status says in words what the
audience screen shows, from the typed screen model the game presents
(:mod:`controller.core.screen`: the header, the main panel, the cards, the press order, the
standings, a package's board) and nothing else -- no game's view keys, no game named:
:func:`status_lines`, redrawn in place whenever it changes (:class:`TextScreen`); ruling
flashes and the key help scroll above it.  :class:`Terminal` is the front end the runner
drives (controller/screens/frontend.py, controller/app/runner.py).
"""

from __future__ import annotations

import codecs
import os
import shutil
import sys
import termios
import tty
from typing import Any, Mapping

from controller import games
from controller.core.screen import Board, Cards, Cell, Clock, Header, MainPanel, PressOrder, Screen, Standings
from controller.screens import common as screen
from controller.screens import viewmodel
from controller.screens.frontend import Frame, FrontEnd, Keys, Shell
from controller.i18n import action_label, signed, t
from controller.inputs.keys import HostKeys, digit_span, mode_keys, mode_labels, team_keys, terminal_key_names


def _cell(c: Cell, lang: str) -> str:
    """One number of the screen's side column, in words."""
    if c.kind == "index":
        return f"{t('question', lang)} {c.index}/{c.of}"
    if c.kind == "nominal":
        text = f"{t('nominal', lang)} {c.nominal}"
        if c.index and c.of:
            text += f"{t('separator', lang)}{t('question', lang)} {c.index}/{c.of}"
        return text
    if c.kind == "label":
        return f"{t('question', lang)} {c.label}"
    return _clock(t(c.clock.label, lang) if c.clock.label else "", c.clock, lang)


def _clock(label: str, cd: Clock, lang: str) -> str:
    """«Время на ответ: 5», «Речь: 0:45 (Пауза)»: a countdown as the screen shows its number;
    one standing still says why: «(Пауза)» the host's pause key, «(Остановлено)» a team answers."""
    text = f"{label}: {cd.text}" if label else cd.text
    return text + (f" ({t(cd.stopped, lang)})" if cd.stopped else "")


def _header(h: Header, lang: str) -> str:
    title = screen.say(h.title, lang)
    structure = screen.says(h.structure, lang)
    parts = [title] if title and title != structure else []
    parts.append(structure)
    if h.theme:
        parts.append(f"«{h.theme}»" if lang == "ru" else f"“{h.theme}”")
    if h.paused:
        parts.append(t("paused", lang).upper())
    return t("separator", lang).join(p for p in parts if p)


def _numbered(number, name: str, lang: str) -> str:
    """A seat as its card names it: «3 Вика», «3 Игрок 3» when it has no name."""
    return f"{number} {name or t('player_n', lang, n=number)}"


def _main(p: MainPanel, lang: str, keys: Mapping[str, str] | None = None) -> str:
    """The big panel, the notes beside it and the side column, in one line (``keys``: the keys
    the players press for their buttons, :meth:`~controller.app.loop.Loop.status`)."""
    slots = list(p.side)
    if p.kind == "holder":
        h = p.holder
        label = t("answer_order", lang, n=h.order) if h.order else t("answering", lang)
        text = f"{label}: {h.name}"
        if h.phone:
            text += f" ({t('from_phone', lang)})"
        elif h.button:
            text += f" ({screen.button_words(h.button, keys, lang)})"
    elif p.kind == "timer":
        label = t(p.timer.label, lang) if p.timer.label else ""
        if p.speaker is not None:
            text = f"{label} · {_numbered(p.speaker.number, p.speaker.name, lang)}: {p.timer.text}" \
                + (f" ({t(p.timer.stopped, lang)})" if p.timer.stopped else "")
        else:
            text = _clock(label, p.timer, lang)
        slots = [c for c in slots if c.clock != p.timer]   # the panel's own number, not twice
    elif p.kind == "question":
        q = p.question
        parts = [screen.say(q.head, lang)]
        if q.nominal is not None:
            parts.append(f"{t('nominal', lang)} {q.nominal}")
        if q.waiting_start:
            parts.append(t("start_pending", lang))
        text = t("separator", lang).join(parts)
        slots = [c for c in slots if c.kind not in ("index", "nominal")]   # the card names them
    elif p.kind == "result":
        r = p.result
        who = f"{t('winner', lang)}: {r.winner}" if r.winner else t("no_winner", lang)
        points = " : ".join(screen.fmt_score(x) for x in r.points)
        text = f"{screen.say(r.head, lang)} — {who} ({points})"
    elif p.kind == "outcome":
        o = p.outcome
        if o.kind == "right":
            text = f"{t('mark_right', lang)} {t('right', lang)} — {o.name} {signed(o.delta)}"
        else:
            text = t(o.kind, lang)
        names_it = any(c.kind == "label" or (c.kind == "nominal" and c.index) for c in slots)
        if not names_it:  # which question: the side column does not say
            text = f"{screen.say(o.head, lang)}: {text}"
    elif p.kind == "message":
        text = screen.say(p.message, lang)
    else:
        text = ""
    cells = [_cell(c, lang) for c in slots]
    return " | ".join(x for x in [text, *(screen.say(n, lang) for n in p.notes), t("separator", lang).join(cells)]
                      if x)


def _presses(po: PressOrder, lang: str) -> str:
    """The press order of the question: each wave's presses with their gaps, the current wave last."""
    if not po.entries or not po.shown:
        return ""
    waves: dict[int, list[str]] = {}
    for r in po.entries:
        if r.tag is not None:
            item = f"{r.name} — {t(r.tag.key, lang)}"
        elif r.tie:   # the same edge time as the winner's, or within ±N ms: no gap to show
            item = f"{r.number}. {r.name} — {screen.tie_words(r.tie_ms, lang)}"
        else:
            item = f"{r.number}. {r.name} {screen.gap_words(r.gap_ms, r.unc_ms, lang)}"   # a phone's: ±N ms
        waves.setdefault(r.wave, []).append(item)
    return f"{t('press_order', lang)}: " + " ‖ ".join(", ".join(items) for _, items in sorted(waves.items()))


def _cards(cards: Cards, lang: str) -> list[str]:
    """Every card: a team's name, score, place, tags; a seat's number, name, fouls, tag, in two
    rows when there are more than six."""
    out = []
    for c in cards.items:
        if cards.numbered:
            text = _numbered(c.number, c.name, lang)
            if c.dots:
                text += " " + "•" * c.dots
            if c.tags:
                text += f" [{t(c.tags[0].key, lang)}]"
            if c.active:
                text = f"▶ {text}"
            out.append(text)
            continue
        text = f"{c.name} {screen.fmt_score(0 if c.score is None else c.score)}"   # a card without one: 0
        if c.entry:   # the number the host types for it, as the projector's card shows it
            text = f"№{c.entry} {text}"
        if c.place:
            text += f" ({t('place_n', lang, n=c.place)})"
        if c.total is not None:   # a programme's running total
            text += f" [{t('series_total', lang)} {screen.fmt_score(c.total)}]"
        marks = [t(tag.key, lang) for tag in c.tags]
        if c.extra is not None and not marks:
            marks.append(f"{t('extra_fight', lang)}: {screen.fmt_score(c.extra)}")
        if marks:
            text += " [" + ", ".join(marks) + "]"
        out.append(text)
    if not cards.numbered:
        return [t("separator", lang).join(out)]
    half = (len(out) + 1) // 2 if len(out) > 6 else len(out)
    return [t("separator", lang).join(part) for part in (out[:half], out[half:]) if part]


def _standings(st: Standings, lang: str) -> list[str]:
    """The standings table (between rounds and at the end), one row a line."""
    title = screen.say(st.title, lang)
    if st.structure:
        title += t("separator", lang) + screen.says(st.structure, lang)
    over = screen.say(st.over, lang) if st.over is not None else t("game_over", lang)   # a programme's game: the next follows
    lines = [title + (t("separator", lang) + over if st.finished else "")]
    if st.note is not None:   # what the final table leaves open (a shoot-out due)
        lines.append(f"  {screen.say(st.note, lang)}")
    for row in st.rows:
        place = screen.place_text(row, st.finished, lang)
        points = screen.fmt_score(row.points)
        text = f"  {place}. {row.name} {points}" if st.points_label is None else \
            f"  {place}. {row.name}{t('separator', lang)}{screen.say(st.points_label, lang)}: {points}"   # named column
        extra = []
        if row.won is not None:
            won = t('right_points', lang) if st.won_label is None else screen.say(st.won_label, lang)
            extra.append(f"{won}: {screen.fmt_score(row.won)}")
        if row.extra is not None:
            extra.append(f"{t('extra_fight', lang)}: {screen.fmt_score(row.extra)}")
        lines.append(text + (f" ({', '.join(extra)})" if extra else ""))
    return lines


def screen_lines(scr: Screen, lang: str = "ru", keys: Mapping[str, str] | None = None) -> list[str]:
    """The widgets of a screen as lines of text: the header; the standings table when it is
    shown; else the big panel with the side column, a package's content or board, the press
    order and the cards.  ``keys``: button id -> the key pressed for it (the keyboard)."""
    lines = [_header(scr.header, lang)]
    if scr.layout == "table":
        return lines + _standings(scr.standings, lang)
    lines.append(_main(scr.main, lang, keys))
    if scr.layout != "seats":
        lines += _content(scr, lang) + _board(scr.board, lang)
        lines.append(_presses(scr.presses, lang))
    return lines + _cards(scr.cards, lang)


def status_lines(view: Mapping[str, Any] | Screen, lang: str = "ru", status: Mapping[str, Any] | None = None) -> list[str]:
    """What the audience screen shows, as lines of text: the same widgets as the scoreboard
    (:mod:`controller.core.screen`; a game's view is read as its game presents it).

    The header (mode, fight · round · fight type, theme, pause), the big panel with the side
    column (who answers, the countdown, the captain's timer, the question and its nominal, a
    closed question's outcome), the press order with its gaps, the cards with their tags;
    between rounds and at the end the standings.  ``status``
    (:meth:`controller.app.loop.Loop.status`): the buttons' trouble and the host notice.
    """
    scr = view if isinstance(view, Screen) else games.screen_of(dict(view))
    lines = screen_lines(scr, lang, (status or {}).get("keys"))
    if status:
        # the teams by their names, as the host page says them (the loop's status names them)
        teams = status.get("names")
        missing = list(status.get("missing") or ())
        if missing:   # a matter of wiring: the button too
            lines.append(t("backend_missing", lang, buttons=screen.teams_words(missing, teams, lang, True)))
        elif not status.get("connected", True):
            lines.append(f"{t('backend', lang)}: {t('backend_disconnected', lang)}")
        no_phone = list(status.get("no_phone") or ())
        if no_phone:   # teams that press only with a phone link and have none joined yet
            lines.append(t("backend_no_phone", lang, buttons=screen.teams_words(no_phone, teams, lang)))
        link = status.get("link")
        if link and not link.get("connected"):
            lines.append(f"{t('festival_link', lang)}: {t('festival_link_lost', lang)}")
        if status.get("notice"):
            lines.append(f"! {status['notice']}")
    return [line for line in lines if line]


def _content(scr: Screen, lang: str) -> list[str]:
    """A package's question on the host's terminal: its stage, the theme's comment, the text,
    the options, and -- the host's part, present only on the host's own screens -- the answer."""
    c, host = scr.main.content, scr.host
    if c is None:
        return []
    text = host.text or c.text
    out = [f"  {screen.say(x, lang)}" for x in c.lines]
    if host.next:
        out.append(f"  {t('pack.host.next_ruling', lang, team=host.next)}")
    out += [f"  {x}" for x in (c.theme_comment, text.replace("\n", " ")) if x]
    out += [f"  {o.label}. {o.text}" for o in c.options]
    answer = host.answer or c.answer
    if answer:
        more = [host.answer_text, host.comment]
        out.append(t("pack.host.answer", lang, answer=" · ".join([answer] + [m.replace("\n", " ") for m in more if m])))
    return out


def _board(board: Board | None, lang: str) -> list[str]:
    """The package's board as the projector draws it: the round, each theme with its number and
    the prices still on it (a played cell «—», an empty one «·»); the final: its themes left and
    who removes one."""
    if board is None:
        return []
    title = screen.say(board.title, lang)
    if not board.left:
        title += t("separator", lang) + t("pack.screen.round_over", lang)
    out = [title]
    for i, th in enumerate(board.themes, 1):
        if board.final:
            if not th.removed:
                out.append(f"  {i}. {th.name}")
            continue
        cells = ["·" if c.empty else "—" if c.played else str(c.price) for c in th.cells]
        out.append(f"  {i}. {th.name}: {'  '.join(cells)}")
    if board.final and board.left:
        out.append(screen.say(board.prompt, lang))
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
    return help_text(keys_now(cfg, view, state), lang)


def keys_now(cfg: dict, view: dict | None = None, state=None) -> Keys:
    """The keys of ``cfg``'s game (in force in ``state``, the teams named as in ``view``)."""
    return Keys(actions=mode_keys(cfg, state), teams=team_keys(cfg, view, state),
                host=HostKeys.from_config(cfg, state), labels=mode_labels(cfg, state))


def help_text(keys: Keys, lang: str = "ru") -> str:
    """The key help of ``keys``, one line each: players' buttons, then the host's actions with
    the keys a terminal types for them."""
    lines = []
    if keys.teams:
        lines.append("  " + "  ".join(f"{k.upper()} = {name}" for k, name in keys.teams))
    for action, names in keys.actions.items():
        names = _terminal_keys(names, keys.host)
        labels = list(dict.fromkeys(x for x in (_terminal_label(k, lang) for k in names) if x))
        if labels:
            lines.append(f"  {screen.keys_said(labels, action, lang):<24} {action_label(action, lang, keys.labels)}")
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

    def width(self) -> int:
        """The characters a line of the status block may have (one less than the terminal's
        columns: a full line would wrap at once)."""
        return max(self.columns() - 1, 10)

    def _fit(self, line: str) -> str:
        width = self.width()
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


class _Scrollback:
    """The loop's :attr:`~controller.app.loop.Loop.scrollback`: whole lines printed to it go
    into the scroll-back above the status block (:meth:`TextScreen.history`), where the block's
    redraw leaves them (the new host link after F9 or F12). A terminal to whoever asks
    (``isatty``) when the stream under it is one."""

    def __init__(self, screen: TextScreen):
        self.screen = screen
        self.pending = ""

    def write(self, text: str) -> int:
        self.pending += text
        if "\n" in self.pending:
            done, _, self.pending = self.pending.rpartition("\n")
            self.screen.history(done)
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        try:
            return bool(self.screen.stream.isatty())
        except (AttributeError, ValueError, OSError):
            return False


def status_block(frame: Frame, lang: str = "ru", width: int | None = None) -> list[str]:
    """The status block of ``frame``: its screen as the host sees it (the game's host-only part
    too), the buttons' state and the notice (a live terminal's block carries the notice; a log
    has it as a line of its own); while the host types a name, the dialogue's line first
    (``width``: the live terminal's, which that line fits, :func:`entry_line`)."""
    view, status = viewmodel.host_screen(frame.vm)
    entry = entry_line(viewmodel.host_entry(frame.vm), width)
    return ([entry] if entry else []) + status_lines(view, lang, status)


def feed(shell: Shell, text: str) -> None:
    """Characters typed in the terminal: keys (buttons, host keys), or, while the host
    types a team's new name, its text (Backspace, Enter and Esc stay keys)."""
    for names, ch in split_input(text):
        if shell.typing and ch and ch.isprintable():
            shell.text_input(ch)
        else:
            shell.key_down(names)
            shell.key_up(names)


def entry_line(entry: dict | None, width: int | None = None) -> str:
    """The host's dialogue (a rename) as one status line: what to do, what is typed, the keys.

    ``width``: the line fits it, the text being typed and its cursor always in sight (a live
    terminal cuts a longer line at its end): the keys' hint is cut first, then the end of the
    title; a text longer than the whole line shows its end."""
    if not entry:
        return ""
    title, typed, hint = entry["title"], f"{entry['text']}▌", f"  ({entry['hint']})"
    line = f"{title}: {typed}{hint}"
    if width is None or len(line) <= width:
        return line
    if len(title) + len(typed) + 2 <= width:
        return line[:width - 1] + "…"
    room = width - len(typed) - 2   # the title's characters left beside «: text▌»
    if room >= 2:
        return f"{title[:room - 1]}…: {typed}"
    return "…" + typed[-(width - 1):]


def sane_mode(mode: list) -> list:
    """A terminal mode (``termios.tcgetattr``) to leave the terminal in at the quit: the one
    found at the start, with echo and line editing on.  A run killed with ``kill -9`` cannot
    restore its terminal, which stays in the keys-as-buttons mode (no echo, no line editing);
    the next run must not put that back when it quits."""
    mode = list(mode)
    mode[3] |= termios.ECHO | termios.ICANON
    return mode


class Terminal(FrontEnd):
    """The terminal front end (:class:`~controller.screens.frontend.FrontEnd`): characters typed
    (or piped) on stdin act as keys; the status block (:func:`status_block`) is redrawn in place
    when it changes, the key help and the ruling flashes scroll above it.  On a tty the keys are
    read one by one without echo; :meth:`close` puts the terminal back (echo and line editing on)."""

    max_wait_s = 0.1   # the loop's wake pipe wakes the runner's select at once: a press never waits this

    def __init__(self, cfg: dict, stream=None, stdin=None):
        self.cfg = cfg
        self.lang = cfg["language"]
        self.stream = stream if stream is not None else sys.stdout
        stdin = stdin if stdin is not None else sys.stdin
        self.fd = stdin.fileno() if stdin and not stdin.closed else None
        self.is_tty = self.fd is not None and os.isatty(self.fd)
        self.reading = self.fd is not None  # a tty or a pipe: typed (or piped) characters act as keys
        self.old = None
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")  # a letter may be 2 bytes
        self.live = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.out = TextScreen(self.stream, live=self.live)
        self.shell: Shell | None = None
        self.shown_help = False
        self.shown_keys = None
        self.shown_flash = None

    def open(self, shell: Shell) -> None:
        self.shell = shell
        if self.is_tty:
            self.old = sane_mode(termios.tcgetattr(self.fd))   # what the quit puts back
            tty.setcbreak(self.fd)
        shell.use(out=_Notices(self.out), scrollback=_Scrollback(self.out))
        if self.reading:
            teams = team_keys(self.cfg)
            first = "  " + "  ".join(f"{k.upper()} = {name}" for k, name in teams) if teams else ""
            hint = f"({help_hint(self.cfg, self.lang)})" if self.is_tty else ""
            self.out.history(f"{first}   {hint}" if first and hint else first or hint)

    def fileno(self) -> int | None:
        return self.fd if self.reading else None

    def poll(self) -> None:
        if not self.reading:
            return
        data = os.read(self.fd, 64)
        if not data:
            self.reading = False  # end of input: the game goes on until quit or --seconds
        else:
            feed(self.shell, self.decoder.decode(data))

    def present(self, frame: Frame) -> bool:
        out, lang = self.out, self.lang
        keys = frame.keys.actions if frame.keys is not None else None
        if frame.help != self.shown_help or (frame.help and keys != self.shown_keys):
            # shown again when the keys change while it is up (a programme's next game)
            self.shown_help, self.shown_keys = frame.help, keys
            if frame.help and frame.keys is not None:
                out.history(help_text(frame.keys, lang))
        flash = frame.flash
        if flash is not None and (flash, frame.flash_until) != self.shown_flash \
                and flash.get("kind") not in screen.SILENT_FLASHES:
            out.history(flash_line(flash, lang))
        self.shown_flash = (flash, frame.flash_until) if flash is not None else None
        lines = status_block(frame, lang, self.out.width() if self.live else None)
        if not self.live:
            lines = [line for line in lines if not line.startswith("! ")]  # a line of its own already
        out.show(lines)
        return True

    def close(self) -> None:
        self.out.close()
        if self.old is not None:
            termios.tcsetattr(self.fd, termios.TCSADRAIN, self.old)
