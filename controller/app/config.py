"""Configuration: a TOML file checked against one schema.

Every rule number the controller enforces (7 s to think, the settle window,
nominals, penalties, Mafia speech times ...) is a key declared here with its
type, default and a one-line description.  ``config/default.toml`` and
``docs/config.md`` are generated from this schema (``buzzer check-config
--print-default`` / ``--print-docs``) and a test keeps them in step.

Loading never executes anything: a config is data.  Any problem is raised as
:class:`~controller.core.errors.ConfigError` whose message names the key, e.g.
``erudite.think_time_s: expected a number > 0, got 'seven'``; the command line
prints it as one line and exits with code 2.

Adding a section: append a :class:`Section` to :data:`SCHEMA` (one block per
concern, in the order the docs should show them).
"""

from __future__ import annotations

import copy
import re
import tomllib
from pathlib import Path
from typing import Any, Callable, Mapping

from controller.core.errors import ConfigError
from controller.i18n import LANGUAGES
from controller.games.mafia import game as mafia_mode

from controller.core.schema import _KIND_OK, _KIND_WORD, Key, Section, _num, _show, check_value, positive  # noqa: F401

# --------------------------------------------------------------------------
# the schema

def _action_keys(value):
    """A map host action -> list of key names (``[chgk] keys``)."""
    for action, names in value.items():
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            return f"{action}: expected a list of key names"
    return None


_positive = positive


def _nominals(v):
    if not v:
        return "needs at least one nominal"
    if any(n <= 0 for n in v):
        return "nominals must be > 0"
    return None


def _fight_types(v):
    bad = [t for t in v if t not in ("light", "half-dark", "dark")]
    if bad:
        return f"unknown fight type {bad[0]!r}; use light, half-dark or dark"
    return None


def _warn_marks(v):
    if any(m <= 0 for m in v):
        return "warning marks are seconds left and must be > 0"
    return None


SCHEMA: list[Section] = [
    Section("", "Top-level keys.", (
        Key("mode", "str", "erudite", "Game mode: erudite (Эрудит-квартет), own-game (Своя игра), "
            "brain-ring (Брейн-ринг), chgk («Что? Где? Когда?»), mafia, programme.",
            choices=("erudite", "own-game", "brain-ring", "chgk", "mafia", "programme")),
        Key("buttons", "str", "keyboard", "Button backend: keyboard (simulated on the computer's "
            "keyboard), gpio (Raspberry Pi pins), serial (our USB box), serial-sim (a virtual box).",
            choices=("keyboard", "gpio", "serial", "serial-sim")),
        Key("language", "str", "ru", "Language of the screen and messages.", choices=LANGUAGES),
    )),
    Section("arbiter", "Who pressed first. Winners are chosen by the edge's timestamp.", (
        Key("settle_ms", "float", 2.0, "How long the arbiter waits after the earliest edge before "
            "naming a winner, so that an earlier edge delivered late still wins.", minimum=0.0, maximum=1000.0),
        Key("tie_rule", "str", "random", "Exact timestamp ties: random (a seeded draw, seed logged) "
            "or order (the button listed first in [[teams]] wins).", choices=("random", "order")),
        Key("tie_seed", "int", -1, "Seed of the tie draw; -1 draws one at game start (it is journaled "
            "and printed, so a replay gives the same result).", minimum=-1),
    )),
    Section("erudite", "Эрудит-квартет [seed §4].", (
        Key("think_time_s", "float", 7.0, "Thinking time per question after the end of reading.",
            check=_positive, source="seed §4.7"),
        Key("after_wrong", "str", "restart", "After a wrong answer the countdown restarts in full "
            "(restart) or continues from where the press stopped it (resume).",
            choices=("restart", "resume")),
        Key("nominals", "list", [10, 20, 30, 40, 50], "Nominals of a round's questions, in reading order.",
            items="int", check=_nominals, source="seed §4.3"),
        Key("fights", "int", 3, "Fights in a game.", minimum=1, source="seed §4.2"),
        Key("rounds_per_fight", "int", 4, "Rounds in a fight.", minimum=1, source="seed §4.2"),
        Key("fight_types", "list", ["light", "half-dark", "dark"], "Type of each fight, in order "
            "(the list repeats if shorter than the number of fights).", items="str",
            check=_fight_types, source="seed §4.2"),
        Key("captain_light_s", "float", 60.0, "Captain's time to assign players in a «светлый» fight.",
            check=_positive, source="seed §4.2"),
        Key("captain_half_dark_s", "float", 20.0, "Captain's time to pick the round's player in a "
            "«полутёмный» fight.", check=_positive, source="seed §4.2"),
        Key("captain_dark_s", "float", 60.0, "Captain's time to assign players before the themes of "
            "a «тёмный» fight.", check=_positive, source="seed §4.2"),
        Key("early_block_s", "float", 0.0, "A press before the button may signal (before the host's "
            "'wrong') is ignored and shown as early; > 0 also blocks that button for this long.",
            minimum=0.0),
        Key("max_teams", "int", 4, "Most teams at one table.", minimum=1, maximum=16, source="seed §4.1"),
        Key("min_players", "int", 2, "Fewest players a team may have.", minimum=1, source="seed §4.1"),
        Key("warn_at_s", "list", [], "Seconds left at which a warning beep sounds during the "
            "thinking countdown (empty: none).", items="number", check=_warn_marks),
    )),
    Section("keys", "The keyboard map of the simulated buttons and of the host "
            "(pygame key names, e.g. \"q\", \"space\", \"return\", \"[+]\" for keypad plus). "
            "Player buttons come from [[teams]] `key`; these are the host's keys.", (
        Key("question", "list", ["n", "[+]"], "Announce the next question (theme and nominal).", items="str"),
        Key("reading_done", "list", ["space", "[0]"], "End of reading: the countdown starts.", items="str"),
        Key("right", "list", ["return", "enter"], "The answer is right.", items="str"),
        Key("wrong", "list", ["backspace", "[-]"], "The answer is wrong.", items="str"),
        Key("withdraw", "list", ["x", "[/]"], "Withdraw the question (undo its score changes).", items="str"),
        Key("undo", "list", ["u", "[*]"], "Undo the last ruling.", items="str"),
        Key("pause", "list", ["s", "[.]", "pause"], "Pause or resume the clock.", items="str"),
        Key("next_round", "list", ["r"], "Go to the next round.", items="str"),
        Key("captain", "list", ["c"], "Start the captain's timer of this fight type.", items="str"),
        Key("start_clock", "list", ["t"], "«Время!»: start the clock (Брейн-ринг, ЧГК).", items="str"),
        Key("rename", "list", ["f2"], "Rename a team (a player in Своя игра, a seat in «Мафия»): press it, "
            "pick the team by its number or its button, type the name, Enter (Esc cancels). Needs the "
            "keyboard: a USB keypad cannot type text.", items="str"),
        Key("help", "list", ["h", "f1"], "Show or hide the host's key overlay.", items="str"),
        Key("mute", "list", ["v"], "Sound on / off.", items="str"),
        Key("new_game", "list", ["f12"], "Start a new game (press twice; the old journal is archived).",
            items="str"),
        Key("quit", "list", ["escape"], "Leave the program (asks to press twice).", items="str"),
    )),
    Section("display", "The audience screen.", (
        Key("fullscreen", "bool", False, "Full screen on the projector (the service sets it to true)."),
        Key("width", "int", 1280, "Window width when not full screen.", minimum=320),
        Key("height", "int", 720, "Window height when not full screen.", minimum=240),
        Key("fps", "int", 30, "Redraws per second while a countdown runs.", minimum=1, maximum=240),
        Key("flash_s", "float", 1.5, "How long a ruling flash («Верно», «Неверно») stays.", minimum=0.0),
    )),
    Section("sound", "Sounds (controller/sound/audio.py). Without an audio device the game goes on silently.", (
        Key("mute", "bool", False, "Play no sounds."),
        Key("volume", "float", 0.8, "Volume of every sound, 0 (silent) to 1 (full).",
            minimum=0.0, maximum=1.0),
        Key("buffer_frames", "int", 256, "Mixer buffer in frames at 44.1 kHz (256 = 5.8 ms). Smaller "
            "starts sounds sooner but may crackle on a busy machine.", minimum=64, maximum=512),
        Key("dir", "str", "", "Folder of the WAV files (press.wav, right.wav ...); empty: the bundled sounds."),
    )),
    Section("journal", "The on-disk journal that makes a game survive a crash.", (
        Key("dir", "str", "journal", "Folder of journals (relative to the working directory)."),
        Key("fsync", "bool", True, "fsync each event before its effect is shown."),
    )),
    # --- Raspberry Pi GPIO and USB keypad (controller/inputs/gpio.py, controller/inputs/keypad.py) ---
    Section("gpio", "Raspberry Pi pins (buttons = \"gpio\"). Pins are named as gpiozero names them: "
            "\"GPIO17\" (Broadcom number) or \"BOARD11\" (physical pin of the 40-pin header). "
            "See docs/raspberry-pi.md for the wiring.", (
        Key("pins", "dict", {"A": "GPIO17", "B": "GPIO27", "C": "GPIO22", "D": "GPIO23"},
            "Button id -> input pin. Every button of [[teams]] needs one.", check=lambda v: _pin_table(v)),
        Key("lamps", "dict", {"A": "GPIO5", "B": "GPIO6", "C": "GPIO13", "D": "GPIO19"},
            "Button id -> lamp (LED or relay) pin; a button without an entry has no lamp.",
            check=lambda v: _pin_table(v)),
        Key("host_pins", "dict", {}, "Host action (as in [keys], e.g. right, wrong) -> input pin of "
            "a host button on the GPIO header.", check=lambda v: _pin_table(v)),
        Key("buzzer_pin", "str", "", "Pin of an optional piezo buzzer / beeper (\"\": none).",
            check=lambda v: _pin_name(v) if v else None),
        Key("pull_up", "bool", True, "Use the Pi's internal pull-up (button between pin and GND). "
            "false: internal pull-down if active_low is false, else no internal resistor."),
        Key("active_low", "bool", True, "A pressed button pulls the pin low (to GND)."),
        Key("lamp_active_high", "bool", True, "A lamp is lit when its pin is high; false for "
                                              "relay boards that switch on a low input."),
        Key("blink_ms", "float", 250.0, "Half period of a blinking lamp (false start, early-press block).",
            minimum=10.0),
        Key("beep_ms", "float", 120.0, "Length of one beep of the buzzer pin.", minimum=1.0),
        Key("debounce_ms", "float", 5.0, "After a button's accepted edge, further edges for this long "
            "are contact bounce. The first edge keeps its timestamp.", minimum=0.0, maximum=200.0),
        Key("quiet_ms", "float", 15.0, "The arbiter waits this long after the latest press callback "
            "before naming the winner: lgpio runs the callbacks of near-simultaneous edges in "
            "file-descriptor order, not time order, so the earlier edge's callback may follow the "
            "later one's; it still takes part if it runs within this time (docs/performance.md).",
            minimum=0.0, maximum=200.0),
        Key("pin_factory", "str", "", "gpiozero pin factory: \"\" (GPIOZERO_PIN_FACTORY or gpiozero's "
            "choice), lgpio (recommended: kernel edge timestamps; the only one on a Pi 5), rpigpio, "
            "pigpio, native, mock (tests).", choices=("", "lgpio", "rpigpio", "pigpio", "native", "mock")),
    )),
    Section("keypad", "A USB numeric keypad for the host, read with python-evdev so that it works "
            "whether or not the screen's window has focus.", (
        Key("device", "str", "", "Input device: a path (/dev/input/by-id/...-event-kbd) or part of "
            "its name as `buzzer test-buttons` lists it (\"\": no keypad; the window's keyboard only)."),
        Key("grab", "bool", True, "Take the keypad for ourselves so that its keys do not reach the "
                                  "console or other programs."),
        Key("keymap", "dict", {"KEY_KP9": "next_round", "KEY_KP5": "start_clock", "KEY_KP7": "captain"},
            "Keypad keys beyond [keys]: evdev key name -> host action. Keys without an entry do "
            "what [keys] says (\"[+]\" is KEY_KPPLUS, \"enter\" is KEY_KPENTER ...).",
            check=lambda v: _keymap(v)),
        Key("reconnect_s", "float", 1.0, "How often to look for an unplugged keypad.", minimum=0.05),
    )),
    # --- USB serial button box (controller/inputs/serial.py, firmware_bridge/) ---
    Section("serial", "Our USB serial button box (buttons = \"serial\") and its virtual twin "
            "(buttons = \"serial-sim\"). See docs/serial-box.md and docs/serial-protocol.md.", (
        Key("port", "str", "/dev/serial/by-id/usb-buzzer-box", "The box's stable device path: pick "
            "it from `ls /dev/serial/by-id/` (a /dev/ttyUSB* name can change between plug-ins). "
            "Ignored by serial-sim."),
        Key("baud", "int", 1000000, "Line speed; must match the firmware (1 Mbaud: exact at 16 MHz).",
            minimum=9600),
        Key("inputs", "list", [], "Box input (0..15) of each button of [[teams]], in order; "
            "[] = the buttons in order on inputs 0, 1, 2 ...", items="int", minimum=0),
        Key("reconnect_min_s", "float", 0.05, "First retry delay after the box is unplugged; "
            "doubles up to reconnect_max_s.", minimum=0.001),
        Key("reconnect_max_s", "float", 1.0, "Longest delay between reopen attempts.", minimum=0.01),
        Key("time_query_interval_s", "float", 2.0, "How often the box clock is sampled to map "
            "box time onto the engine clock (display and logs; ordering uses box time).",
            minimum=0.05),
        Key("tie_wait_ms", "float", 0.5, "The box sends every press in edge order on one stream, so "
            "the first press received is the earliest and wins at once; the arbiter waits only this "
            "long for a press with the very same timestamp (an exact tie), and not at all once a "
            "later press has arrived.", minimum=0.0, maximum=50.0),
        Key("debounce_ms", "float", 5.0, "The firmware's debounce (compiled in, DEBOUNCE_US; the box "
            "reports it at HELLO and a mismatch is logged). serial-sim uses this value.",
            minimum=0.0, maximum=200.0),
    )),
    mafia_mode.SECTION,  # «Мафия» table and tournament: the schema lives with the game
]

# --- Своя игра, Брейн-ринг, ЧГК, programme (controller/games/own_game.py, brain_ring.py, chgk.py,
# programme.py; docs/modes.md) ---
SCHEMA += [
    Section("own_game", "Своя игра: individual players, one button each ([[teams]] entries are players).", (
        Key("nominals", "list", [100, 200, 300, 400, 500], "Default nominals of a theme's questions, in "
            "order (a \"question\" action may name its own).", items="int", check=_nominals,
            source="practice"),
        Key("early_block_s", "float", 1.0, "A press before the host's end-of-reading mark blocks that "
            "button for this long; every early press restarts the block (TV: 2 s, SIGame: 3 s, "
            "Jeopardy!: 0.25 s).", minimum=0.0),
        Key("early_sound", "bool", False, "Also play the false-start sound on an early press (the lamp "
            "blinks and the host sees it either way)."),
        Key("press_window_s", "float", 5.0, "Press window after the buttons are armed (and after each "
            "wrong answer); nobody pressing closes the question with no score.", check=_positive),
        Key("answer_time_s", "float", 0.0, "Answer countdown after a press; 0 = none.", minimum=0.0),
        Key("max_players", "int", 16, "Most players (buttons) in one game.", minimum=1, maximum=64,
            source="practice"),
        Key("pack", "str", "", "A SIGame question package (.siq) to play: the board of themes and "
            "prices, the host picks a cell (docs/packages.md); \"\" = questions announced by the host "
            "as before. `.venv/bin/buzzer run --pack FILE` sets it too."),
        Key("pack_max_total_mb", "float", 1024.0, "Largest package accepted, unpacked, in MB (a bigger "
            "one, or a zip bomb, is refused).", minimum=1.0),
        Key("pack_max_file_mb", "float", 300.0, "Largest single file of a package, unpacked, in MB.",
            minimum=1.0),
    )),
    Section("brain_ring", "Брейн-ринг: teams race for the answer after the host's «Время!».", (
        Key("main_time_s", "float", 60.0, "The clock after the start signal.", check=_positive,
            source="practice"),
        Key("after_wrong", "str", "fixed", "After a wrong answer the other team(s) get after_wrong_s "
            "(fixed), what was left on the clock (remaining), or the larger of the two (max).",
            choices=("fixed", "remaining", "max"), source="practice"),
        Key("after_wrong_s", "float", 20.0, "Time of the other team(s) after a wrong answer.",
            check=_positive, source="practice"),
        Key("start_delay", "bool", False, "A random pause between the host's key and the start signal "
            "(drawn from the game seed and question number, so a replay repeats it).", source="practice"),
        Key("start_delay_min_s", "float", 1.0, "Shortest random pause.", minimum=0.0, source="practice"),
        Key("start_delay_max_s", "float", 4.0, "Longest random pause.", minimum=0.0, source="practice"),
        Key("question_value", "int", 1, "Points of a question.", minimum=1, source="practice"),
        Key("carry_over", "bool", True, "A question nobody answers adds its value to the next one "
            "(worth 2, then 3 ...).", source="practice"),
        Key("fight_points", "int", 3, "A fight ends when a team has this many points (3 or 5).",
            minimum=1, source="practice"),
        Key("warn_at_s", "list", [10, 5, 4, 3, 2, 1], "Seconds left at which a warning signal sounds.",
            items="number", check=_warn_marks, source="practice"),
        Key("default_teams", "int", 2, "Teams in a fight when the config names no [[teams]] (the first "
            "of the built-in list).", minimum=2, source="practice"),
        Key("max_teams", "int", 10, "Most teams (tables) in one fight.", minimum=2, maximum=64,
            source="practice"),
    )),
    Section("chgk", "«Что? Где? Когда?»: the controller is the timer and the score sheet [seed §3].", (
        Key("tours", "int", 4, "Tours in a tournament.", minimum=1, source="seed §3.2"),
        Key("questions_per_tour", "int", 12, "Questions in a tour.", minimum=1, source="seed §3.2"),
        Key("discussion_s", "float", 60.0, "Discussion time after the start signal.", check=_positive,
            source="practice"),
        Key("warn_at_s", "list", [10], "Seconds left at which a warning signal sounds.",
            items="number", check=_warn_marks, source="practice"),
        Key("answer_s", "float", 10.0, "Time to write and hand in the answer after the end signal "
            "(0: none).", minimum=0.0, source="practice"),
        Key("blitz_s", "float", 20.0, "Discussion time of a blitz question.", check=_positive,
            source="practice"),
        Key("prize_places", "int", 3, "Places settled by a shoot-out when teams tie; ties below share "
            "places (\"4–6\").", minimum=1, source="seed §3.4–3.5"),
        Key("results_csv", "str", "results.csv", "CSV file (team,question,result) the host's "
            "import_results key reads into the game (e.g. the jury's sheet)."),
        Key("keys", "dict", {"mark_right": ["[+]", "="], "mark_wrong": ["[-]", "-"],
                             "clear": ["backspace", "delete"], "question": ["n"],
                             "start_clock": ["space", "[0]", "t"], "blitz": ["b"],
                             "shootout": ["o"], "import_results": ["i"],
                             **{f"digit_{d}": [f"[{d}]", str(d)] for d in range(1, 10)},
                             "digit_0": ["0"]},
            "The host's keys in ЧГК on top of [keys]: type a team's number, then mark_right or "
            "mark_wrong for the current question.", check=_action_keys),
    )),
    Section("programme", "A programme of rounds, each its own game, with running totals (teams "
            "matched by name).", (
        Key("rounds", "list", [], "Rounds in order: tables with mode (erudite, own-game, brain-ring, "
            "chgk), title and settings (config keys of that round, e.g. { own_game = { "
            "press_window_s = 4.0 } } or a teams list).", items="dict",
            check=lambda v: _programme_rounds(v)),
    )),
]

PROGRAMME_MODES = ("erudite", "own-game", "brain-ring", "chgk")


def _programme_rounds(v):
    for i, r in enumerate(v):
        unknown = sorted(set(r) - {"mode", "title", "settings"})
        if unknown:
            return f"[{i}].{unknown[0]}: unknown key; allowed: mode, title, settings"
        if r.get("mode") not in PROGRAMME_MODES:
            return f"[{i}].mode: must be one of {', '.join(PROGRAMME_MODES)}; got {_show(r.get('mode'))}"
        if not isinstance(r.get("title", ""), str):
            return f"[{i}].title: expected a string"
        if not isinstance(r.get("settings", {}), dict):
            return f"[{i}].settings: expected a table"
    return None


def programme_round_configs(cfg: dict) -> list[dict]:
    """The validated config of each programme round: the whole config, the round's mode and
    settings on top.  Pure (no I/O); a problem names the round's key."""
    out = []
    for i, r in enumerate(cfg.get("programme", {}).get("rounds", [])):
        data = dict(r.get("settings", {}))
        data["mode"] = r["mode"]
        try:
            out.append(build(data, base=cfg))
        except ConfigError as exc:
            raise ConfigError(f"programme.rounds[{i}].settings.{exc.key}", exc.problem) from None
    return out


def _new_modes_cross_checks(cfg: dict) -> None:
    """Team counts of Своя игра / Брейн-ринг; every programme round must be a valid config."""
    n = len(cfg["teams"])
    if cfg["mode"] == "own-game" and n > cfg["own_game"]["max_players"]:
        raise ConfigError("teams", f"Своя игра takes at most {cfg['own_game']['max_players']} players, got {n}")
    if cfg["mode"] == "brain-ring":
        b = cfg["brain_ring"]
        if n > b["max_teams"]:
            raise ConfigError("teams", f"Брейн-ринг takes at most {b['max_teams']} teams, got {n}")
        if b["start_delay_max_s"] < b["start_delay_min_s"]:
            raise ConfigError("brain_ring.start_delay_max_s", "must be >= start_delay_min_s")
    if cfg["mode"] == "programme":
        if not cfg["programme"]["rounds"]:
            raise ConfigError("programme.rounds", "a programme needs at least one round")
        programme_round_configs(cfg)

_PIN_RE = re.compile(r"(GPIO|BCM|BOARD|WPI|J8:|P1:)?\d+", re.IGNORECASE)


def _pin_name(v):
    if isinstance(v, int) and not isinstance(v, bool):
        return None
    if not isinstance(v, str) or not _PIN_RE.fullmatch(v.strip()):
        return f"expected a pin name like \"GPIO17\" or \"BOARD11\", got {_show(v)}"
    return None


def _pin_table(v):
    seen: dict[str, str] = {}
    for name, pin in v.items():
        problem = _pin_name(pin)
        if problem:
            return f"{name}: {problem}"
        norm = str(pin).strip().upper()
        if norm in seen:
            return f"{name} and {seen[norm]} share pin {pin}"
        seen[norm] = name
    return None


def _keymap(v):
    for key, action in v.items():
        if not key.startswith(("KEY_", "BTN_")):
            return f"{key}: expected an evdev key name such as KEY_KPPLUS"
        if not isinstance(action, str) or not action:
            return f"{key}: expected a host action name, got {_show(action)}"
    return None


def _gpio_covers_teams(cfg: dict) -> None:
    """With buttons = "gpio", every team's button needs an input pin."""
    if cfg.get("buttons") != "gpio":
        return
    for team in cfg["teams"]:
        if team["button"] not in cfg["gpio"]["pins"]:
            raise ConfigError(f"gpio.pins.{team['button']}",
                              f"no input pin for button {team['button']} (team {team['name']!r})")


def _team_checks(teams: Any, mode: str, limits: Mapping[str, Any]) -> list[dict]:
    """Validate the ``[[teams]]`` array; return a normalised list."""
    if not isinstance(teams, list) or not all(isinstance(t, dict) for t in teams):
        raise ConfigError("teams", "expected an array of tables ([[teams]])")
    allowed = {"name", "button", "key", "color", "players"}
    out = []
    seen_names, seen_buttons, seen_keys = set(), set(), set()
    for i, t in enumerate(teams):
        path = f"teams[{i}]"
        unknown = sorted(set(t) - allowed)
        if unknown:
            raise ConfigError(f"{path}.{unknown[0]}", f"unknown key; allowed: {', '.join(sorted(allowed))}")
        name = t.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f"{path}.name", "expected a non-empty string")
        button = t.get("button", chr(ord("A") + i) if i < 26 else str(i + 1))
        if not isinstance(button, str) or not button:
            raise ConfigError(f"{path}.button", "expected a non-empty string")
        key = t.get("key", DEFAULT_KEYS[i] if i < len(DEFAULT_KEYS) else "")
        if not isinstance(key, str):
            raise ConfigError(f"{path}.key", "expected a key name string")
        color = t.get("color", DEFAULT_COLORS[i % len(DEFAULT_COLORS)])
        if not isinstance(color, str) or not re.fullmatch(r"#[0-9a-fA-F]{6}", color):
            raise ConfigError(f"{path}.color", f"expected a colour like \"#1e88e5\", got {_show(color)}")
        players = t.get("players", 4)
        if not isinstance(players, int) or isinstance(players, bool) or players < 1:
            raise ConfigError(f"{path}.players", f"expected a whole number >= 1, got {_show(players)}")
        if mode == "erudite" and players < limits.get("min_players", 2):
            raise ConfigError(f"{path}.players", f"a team needs at least {limits.get('min_players', 2)} "
                              f"players (seed §4.1), got {players}")
        for value, seen, what in ((name, seen_names, "name"), (button, seen_buttons, "button"),
                                  (key, seen_keys, "key")):
            if value and value in seen:
                raise ConfigError(f"{path}.{what}", f"duplicate {what} {value!r}")
            seen.add(value)
        out.append({"name": name, "button": button, "key": key, "color": color.lower(),
                    "players": players})
    if mode == "erudite" and len(out) > limits.get("max_teams", 4):
        raise ConfigError("teams", f"Эрудит-квартет takes at most {limits.get('max_teams', 4)} teams, got {len(out)}")
    return out


DEFAULT_COLORS = ["#e53935", "#1e88e5", "#43a047", "#fdd835", "#8e24aa", "#fb8c00",
                  "#00acc1", "#d81b60", "#6d4c41", "#7cb342", "#3949ab", "#c0ca33",
                  "#546e7a", "#f4511e", "#00897b", "#5e35b1"]

DEFAULT_KEYS = ["q", "z", "p", "m", "a", "l", "w", "o", "e", "k", "d", "j", "y", "g", "f", "b"]
"""Keyboard keys of the simulated buttons, by team order, when [[teams]] gives none:
spread over the keyboard so that four players can share one laptop."""

DEFAULT_TEAMS = [
    {"name": "Альфа", "button": "A", "key": "q"},
    {"name": "Бета", "button": "B", "key": "z"},
    {"name": "Гамма", "button": "C", "key": "p"},
    {"name": "Дельта", "button": "D", "key": "m"},
]


def section(name: str) -> Section:
    for s in SCHEMA:
        if s.name == name:
            return s
    raise KeyError(name)


def defaults() -> dict:
    """The whole configuration with every default filled in."""
    cfg: dict[str, Any] = {}
    for s in SCHEMA:
        target = cfg if s.name == "" else cfg.setdefault(s.name, {})
        for k in s.keys:
            target[k.name] = copy.deepcopy(k.default)
    cfg["teams"] = _team_checks(copy.deepcopy(DEFAULT_TEAMS), "erudite", {})
    return cfg


def _merge(cfg: dict, data: Mapping[str, Any], prefix: str = "") -> None:
    """Validate ``data`` (parsed TOML or overrides) into ``cfg`` in place."""
    sections = {s.name: s for s in SCHEMA}
    for name, value in data.items():
        if name == "teams":
            continue
        if name in sections and name != "":
            sec = sections[name]
            if not isinstance(value, dict):
                raise ConfigError(f"{prefix}{name}", "expected a table")
            keys = {k.name: k for k in sec.keys}
            for kname, kvalue in value.items():
                path = f"{prefix}{name}.{kname}"
                if kname in keys:
                    cfg[name][kname] = check_value(keys[kname], kvalue, path)
                elif sec.open_keys:
                    if sec.open_kind and not _KIND_OK[sec.open_kind](kvalue):
                        raise ConfigError(path, f"expected {_KIND_WORD[sec.open_kind]}, got {_show(kvalue)}")
                    cfg[name][kname] = kvalue
                else:
                    raise ConfigError(path, f"unknown key; known keys in [{name}]: {', '.join(keys)}")
            continue
        top = {k.name: k for k in sections[""].keys}
        if name in top:
            cfg[name] = check_value(top[name], value, f"{prefix}{name}")
            continue
        known = sorted([s.name for s in SCHEMA if s.name] + list(top) + ["teams"])
        raise ConfigError(f"{prefix}{name}", f"unknown key or section; known: {', '.join(known)}")


def _unflatten(settings: Mapping[str, Any]) -> dict:
    """Turn ``{"erudite.think_time_s": 5}`` into ``{"erudite": {"think_time_s": 5}}``."""
    out: dict[str, Any] = {}
    for key, value in settings.items():
        if not isinstance(key, str):
            raise ConfigError(str(key), "setting names must be strings")
        if "." in key:
            sec, _, name = key.partition(".")
            target = out.setdefault(sec, {})
            if not isinstance(target, dict):
                raise ConfigError(sec, "expected a table")
            target[name] = value
        elif isinstance(value, dict) and key != "teams":
            out.setdefault(key, {}).update(value)
        else:
            out[key] = value
    return out


def build(data: Mapping[str, Any], base: Mapping[str, Any] | None = None) -> dict:
    """Validate ``data`` on top of ``base`` (default: the defaults); return a new config."""
    cfg = copy.deepcopy(dict(base)) if base is not None else defaults()
    data = _unflatten(data)
    _merge(cfg, data)
    if "teams" in data:
        cfg["teams"] = data["teams"]
    elif cfg["mode"] == "brain-ring" and cfg["teams"] == defaults()["teams"]:
        # no [[teams]] named: Брейн-ринг is played by two teams (brain_ring.default_teams)
        cfg["teams"] = cfg["teams"][:cfg["brain_ring"]["default_teams"]]
    limits = cfg.get("erudite", {})
    cfg["teams"] = _team_checks(cfg["teams"], cfg["mode"], limits)
    _cross_checks(cfg)
    return cfg


def _cross_checks(cfg: dict) -> None:
    host_keys = {k.lower(): action for action, names in cfg["keys"].items() for k in names}
    for i, t in enumerate(cfg["teams"]):
        if t["key"] and t["key"].lower() in host_keys:
            raise ConfigError(f"teams[{i}].key", f"key {t['key']!r} is already the host's "
                              f"\"{host_keys[t['key'].lower()]}\" key")
    for hook in CROSS_CHECKS:
        hook(cfg)


CROSS_CHECKS: list[Callable[[dict], None]] = []
"""Extra whole-config checks registered by other modules' sections."""
CROSS_CHECKS.append(_gpio_covers_teams)


def _mafia_cross_checks(cfg: dict) -> None:
    """[mafia]: rules between keys (remove_fouls > silence_fouls, names fit the seats ...)."""
    if "mafia" in cfg:
        mafia_mode.validate_settings(cfg["mafia"])


CROSS_CHECKS.append(_mafia_cross_checks)
CROSS_CHECKS.append(_new_modes_cross_checks)  # Своя игра, Брейн-ринг, programme


def load(path: str | Path | None = None, overrides: Mapping[str, Any] | None = None) -> dict:
    """Load a TOML config file (``None``: the defaults) plus overrides.

    Raises :class:`ConfigError` with a one-line message naming the file and key.
    """
    data: dict[str, Any] = {}
    source = None
    if path is not None:
        source = str(path)
        p = Path(path)
        if not p.exists():
            raise ConfigError("", f"{path}: config file not found")
        if p.is_dir():
            raise ConfigError("", f"{path}: is a folder, not a config file")
        try:
            data = tomllib.loads(p.read_text(encoding="utf-8"))
        except UnicodeDecodeError:
            raise ConfigError("", f"{path}: not UTF-8 text") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError("", f"{path}: bad TOML: {exc}") from None
        except OSError as exc:
            raise ConfigError("", f"{path}: cannot read: {exc.strerror}") from None
    try:
        cfg = build(data)
        if overrides:
            cfg = build(overrides, base=cfg)
    except ConfigError as exc:
        if source:
            raise ConfigError(exc.key, exc.problem, source) from None
        raise
    return cfg


# --------------------------------------------------------------------------
# generated text: default.toml and docs

def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    return str(value)


def default_toml() -> str:
    """The text of ``config/default.toml``: every key with its default and doc."""
    lines = ["# buzzer-controller configuration: every key with its default.",
             "# Generated by `buzzer check-config --print-default`; see docs/config.md.", ""]
    for s in SCHEMA:
        if s.name:
            lines.append("")
            lines.append(f"[{s.name}]")
        lines.append(f"# {s.doc}")
        for k in s.keys:
            lines.append(f"# {k.doc}" + (f" [{k.source}]" if k.source != "default" else ""))
            lines.append(f"{k.name} = {_toml_value(k.default)}")
    lines.append("")
    lines.append("# Teams (players in Своя игра): name, button id, keyboard key for the simulated")
    lines.append("# button, colour on the screen, number of players (Эрудит-квартет: 2..4).")
    for t in defaults()["teams"]:
        lines.append("")
        lines.append("[[teams]]")
        for k in ("name", "button", "key", "color", "players"):
            lines.append(f"{k} = {_toml_value(t[k])}")
    return "\n".join(lines) + "\n"


def docs_markdown() -> str:
    """The text of ``docs/config.md``."""
    out = ["# Configuration reference", "",
           "The controller reads one TOML file (`.venv/bin/buzzer run --config FILE`; default "
           "`config/default.toml`). Every key below is optional: a missing key takes its default. "
           "`.venv/bin/buzzer check-config FILE` validates a file; a problem is reported as one line "
           "naming the key, with exit code 2. Scripted sessions override keys with their `settings`.",
           "", "The source column says where a default comes from: a clause of the regulations "
           "(`seed §4.7`; every rule with its clause is in [rules.md](rules.md)), common `practice`, "
           "or our `default` where the regulations are silent.",
           "", "This page is generated from `controller/app/config.py` "
           "(`.venv/bin/buzzer check-config --print-docs`).", ""]
    for s in SCHEMA:
        title = f"`[{s.name}]`" if s.name else "Top level"
        out += [f"## {title}", "", s.doc, "", "| key | type | default | source | meaning |",
                "|---|---|---|---|---|"]
        for k in s.keys:
            choice = f" One of: {', '.join(map(str, k.choices))}." if k.choices else ""
            out.append(f"| `{k.name}` | {k.kind} | `{_toml_value(k.default)}` | {k.source} | "
                       f"{k.doc}{choice} |")
        out.append("")
    out += ["## `[[teams]]`", "",
            "One table per team (in Своя игра: per player).", "",
            "| key | type | default | meaning |", "|---|---|---|---|",
            "| `name` | str | required | Shown on the screen. |",
            "| `button` | str | A, B, C … | The button id that backends and scripts use. |",
            "| `key` | str | q, z, p, m, a, l … by team order | Keyboard key of the simulated button (pygame key name; \"\" for none). |",
            "| `color` | str | a palette colour | `#rrggbb` colour on the screen. |",
            "| `players` | int | 4 | Players in the team; fewer than the rounds of a fight means "
            "the captain skips rounds (seed §4.1). |", ""]
    return "\n".join(out)
