"""Key names: the host's key map (:class:`HostKeys`), a key under the Russian
layout read as its Latin key (:func:`physical_names`) and the key names a
character typed in a terminal stands for (:func:`terminal_key_names`).

Used by the loop, the window and the terminal alike; imports nothing of theirs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller import games
from controller.games.actions import Action
from controller.games.base import LOOP_ACTIONS, PROGRAM_ACTIONS, PROGRAM_DECLARATIONS


LATIN_BY_CYRILLIC = dict(zip("йцукенгшщзхъфывапролджэячсмитьбю", "qwertyuiop[]asdfghjkl;'zxcvbnm,."))
"""A key under the Russian layout names its letter in Cyrillic: the same physical key, in the
Latin names the key map uses, so that Q is Q whichever layout the laptop is switched to."""


def physical_names(names: list[str]) -> list[str]:
    """``names`` plus the Latin name of a key typed under the Russian layout."""
    extra = [LATIN_BY_CYRILLIC[n.lower()] for n in names if n.lower() in LATIN_BY_CYRILLIC]
    return names + [e for e in extra if e not in names]


TERMINAL_KEYS = {" ": ["space"], "\n": ["return"], "\r": ["return"], "\x7f": ["backspace"],
                 "\x08": ["backspace"], "\x1b": ["escape"], "+": ["[+]", "+"], "-": ["[-]", "-"],
                 "*": ["[*]", "*"], "/": ["[/]", "/"], ".": ["[.]", "."], "?": ["h"]}


def terminal_key_names(ch: str) -> list[str]:
    """Key names (pygame style) a character typed in a terminal stands for."""
    if ch in TERMINAL_KEYS:
        return TERMINAL_KEYS[ch]
    if ch.isdigit():
        return [ch, f"[{ch}]"]
    return [ch.lower()]


KEY_NAMES = frozenset({
    *(f"f{n}" for n in range(1, 16)),
    *(f"[{d}]" for d in range(10)), "[+]", "[-]", "[*]", "[/]", "[.]", "[=]", "enter", "equals", "numlock",
    "return", "space", "escape", "backspace", "tab", "delete", "insert", "home", "end", "page up", "page down",
    "up", "down", "left", "right", "pause", "break", "clear", "help", "menu", "print screen", "sys req",
    "scroll lock", "caps lock", "power", "euro", "ac back", "currencysubunit",
    "left shift", "right shift", "left ctrl", "right ctrl", "left alt", "right alt", "alt gr",
    "left meta", "right meta",
})
"""The key names of more than one character a front end gives (in lower case): the window's (pygame's
names of the keys), the terminal's (:data:`TERMINAL_KEYS`, the function and arrow keys of its escape
sequences) and a USB keypad's (the ``[keys]`` names it reads).  ``pause`` is pygame 1's name of Pause
(pygame 2 says ``break``).  Any single character is a key too (a letter of any layout, a digit, a sign)."""


def is_key_name(name: str) -> bool:
    """Whether some front end gives the key ``name`` (any case): one printable character, or a
    name of :data:`KEY_NAMES` (``"F13x"`` or ``"йй"`` is no key: the binding would do nothing)."""
    if len(name) == 1:
        return name.isprintable() and not name.isspace()
    return name.lower() in KEY_NAMES


ON_THE_PAGE = ("mute",)
"""The program's actions a host page offers besides the game's."""

PRESSED_TWICE = ("end_game", "new_game", "quit")
"""The host keys that act on a second press only (the first asks): the key help says so."""


def program_action(name: str) -> Action | None:
    """The declaration of one of the program's own actions, or None."""
    return next((a for a in PROGRAM_DECLARATIONS if a.name == name), None)


@dataclass
class HostKeys:
    """Key name -> host action, from config ``[keys]``."""

    actions: dict[str, str] = field(default_factory=dict)

    GLOBAL = PROGRAM_ACTIONS
    """Keys of the program itself, kept from ``[keys]`` in every mode."""

    LOOP = LOOP_ACTIONS
    """Host actions the loop runs a dialogue for (then sends the engine one event),
    kept from ``[keys]`` in every mode, the «Мафия» table's too."""

    @classmethod
    def from_config(cls, cfg: dict, state=None) -> "HostKeys":
        """The map of ``cfg``'s game; with the game's ``state``, the map in force in it (a
        programme's follows its current round: :meth:`~controller.games.base.Game.key_layers_now`)."""
        out = {}
        program_keys = {a: cfg["keys"][a] for a in cls.GLOBAL + cls.LOOP if a in cfg["keys"]}
        game = games.get(cfg["mode"])
        layers = game.key_layers(cfg, program_keys) if state is None else game.key_layers_now(state, cfg, program_keys)
        for keymap in layers:  # later layers on top
            for action, names in keymap.items():
                for n in names:
                    out[n.lower()] = action
        return cls(out)

    def action(self, names: list[str]) -> str | None:
        for n in names:
            if n.lower() in self.actions:
                return self.actions[n.lower()]
        return None


def digit_span(digits) -> str:
    """Digits as the key help names them: ``0–9``, ``1–9``, ``1–3, 5``."""
    ds = sorted(set(digits))
    runs: list[list[int]] = []
    for d in ds:
        if runs and d == runs[-1][-1] + 1:
            runs[-1].append(d)
        else:
            runs.append([d])
    return ", ".join(f"{r[0]}–{r[-1]}" if len(r) > 2 else ", ".join(map(str, r)) for r in runs)


def mode_keys(cfg: dict, state=None) -> dict[str, list[str]]:
    """The host's keys that do something in this game: action -> key names (pygame style).

    The effective map (the game's key layers, see :meth:`~controller.games.base.Game.key_layers`),
    keeping only the actions this game has and the program's own keys (help, sound,
    new game, quit); the digit keys become one entry (the game's ``digit_action``:
    ``seat_number`` / ``team_number`` / ``pack_digits``) with the names ``0–9`` and ``[0–9]`` (only the digits
    that are number keys: ``[1–9]`` where the keypad's 0 does something else).  Used by the
    help overlay and the terminal help.  With the game's ``state``: the keys in force in it (a
    programme's current round's game's, :meth:`~controller.games.base.Game.key_layers_now`).
    """
    game = games.get(cfg["mode"])
    if state is None:
        own = game.known_actions(cfg) | set(games.extras_actions(cfg["mode"]))
    else:   # the extras' actions they carry out in this state (a programme: its round's game's)
        extras = games.extras(cfg["mode"])
        own = game.known_actions_now(state, cfg) | {a for a in extras.actions if extras.takes(state, a)}
    known = own | set(HostKeys.GLOBAL) | set(HostKeys.LOOP)
    out: dict[str, list[str]] = {}
    digits: list[str] = []
    for key, action in HostKeys.from_config(cfg, state).actions.items():
        if action.startswith("digit_"):
            if action in known:
                digits.append(key)
        elif action in known or (action == "pause" and "resume" in known):
            out.setdefault(action, []).append(key)
    if digits:
        plain = [int(k) for k in digits if k.isdigit()]
        pad = [int(k[1:-1]) for k in digits if k.startswith("[") and k[1:-1].isdigit()]
        names = [digit_span(plain)] if plain else []
        names += [f"[{digit_span(pad)}]"] if pad else []
        out = {(game if state is None else game.playing(state)).digit_action: names, **out}
    # the game's keys first, the program's own (help, sound, new game, quit) last
    return dict(sorted(out.items(), key=lambda item: item[0] in HostKeys.GLOBAL))


def mode_labels(cfg: dict, state=None) -> dict[str, str]:
    """Action -> the catalog key of the label this game declares for it where it names the action
    its own way (``Action.label``: «Мафия»'s rename renames a player): the key help's words; with
    the game's ``state``, those of the game on in it (a programme's current round's)."""
    game = games.get(cfg["mode"])
    return games.label_keys((game if state is None else game.playing(state)).name)


def team_keys(cfg: dict, view: dict | None = None, state=None) -> list[tuple[str, str]]:
    """(key, team name) of every team with a keyboard key, in modes where buttons play;
    with the game's ``view``, the names the teams have now (a team may be renamed); with its
    ``state``, only while buttons play in it (not in a programme's ЧГК)."""
    game = games.get(cfg["mode"])
    if not (game if state is None else game.playing(state)).buttons_play:
        return []
    now = {tm.get("button"): tm["name"] for tm in (view or {}).get("teams") or ()}
    return [(tm["key"], now.get(tm["button"], tm["name"])) for tm in cfg["teams"] if tm.get("key")]
