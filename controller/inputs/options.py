"""The inputs' config sections: the host's key map (``[keys]``), the Raspberry Pi pins
(``[gpio]``, buttons = "gpio" or "gpiod"), the host's USB keypad (``[keypad]``) and the USB
serial box (``[serial]``, buttons = "serial" or "serial-sim").

They are declared here, beside the backends that read them and without importing any of
them (no gpiozero, evdev or pyserial), so that the config (controller/app/config.py)
assembles its schema from them and a backend takes its defaults from its own section.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from controller.core.errors import ConfigError
from controller.i18n import Text
from controller.core.schema import Key, Section, _show

KEYS = Section("keys", "The keyboard map of the simulated buttons and of the host "
        "(pygame key names, e.g. \"q\", \"space\", \"return\", \"[+]\" for keypad plus). "
        "Player buttons come from [[teams]] `key`; these are the host's keys. A key does one "
        "thing: check-config refuses a key named by two actions, and a name no keyboard gives "
        "(one letter, digit or sign; f1-f15; return, enter (keypad Enter), space, escape, backspace, tab, "
        "delete, insert, home, end, page up, page down, up, down, left, right; [0]-[9], [+], [-], [*], [/], "
        "[.] on the keypad: controller/inputs/keys.py KEY_NAMES).", (
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
    Key("end_game", "list", ["f4"], "End the game now and show the final standings (pressed twice: "
        "the first press asks).", items="str"),
    Key("lineup", "list", ["f3", "numlock"], "Эрудит-квартет: enter a line-up, then three digits: "
        "team, round, player (docs/event-file.md).", items="str"),
    Key("rename", "list", ["f2"], "Rename a team (a player in Своя игра, a seat in «Мафия»): press it, "
        "pick the team by its number or its button, type the name, Enter (Esc cancels). Needs the "
        "keyboard: a USB keypad cannot type text.", items="str"),
    Key("help", "list", ["h", "f1"], "Show or hide the host's key overlay.", items="str"),
    Key("mute", "list", ["v"], "Sound on / off.", items="str"),
    Key("new_token", "list", ["f9"], "A new host token for the web host page (the old link stops "
        "working; the new one is printed in the terminal).", items="str"),
    Key("host_link", "list", ["f8"], "Show the host page's link and its QR code on the projector, "
        "for a host whose terminal is out of sight (press again to hide; it hides itself after a "
        "minute). The whole hall sees it: show it before the audience comes in, or press the "
        "new_token key once the phone is connected.", items="str"),
    Key("new_game", "list", ["f12"], "Start a new game (press twice; the old journal is archived).",
        items="str"),
    Key("quit", "list", ["escape"], "Leave the program (asks to press twice).", items="str"),
))
"""The host's keys (and the simulated buttons' keyboard) as pygame key names."""

GPIO = Section("gpio", "Raspberry Pi pins (buttons = \"gpio\" or \"gpiod\"). Pins are named as gpiozero names them: "
        "\"GPIO17\" (Broadcom number) or \"BOARD11\" (physical pin of the 40-pin header). "
        "See docs/raspberry-pi.md for the wiring.", (
    Key("pins", "dict", {"A": "GPIO17", "B": "GPIO27", "C": "GPIO22", "D": "GPIO23"},
        "Button id -> input pin. Every button of [[teams]] needs one, but a team's with phone = true "
        "(it presses with a phone only, docs/phones.md: its pin, if any, is not opened).", check=lambda v: _pin_table(v)),
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
    Key("tie_us", "float", 5.0, "buttons = \"gpiod\": two presses whose kernel stamps are less than "
        "this apart are a tie, broken by [arbiter] tie_rule and told to the host. The kernel stamps "
        "an edge when it services the interrupt, and on a Pi 1-4 one interrupt services a bank's "
        "pending pins in pin-number order, about a microsecond each: closer stamps say nothing "
        "about which button was first (docs/inputs.md).", minimum=0.0, maximum=1000.0),
    Key("chip", "str", "", "buttons = \"gpiod\": the GPIO chip of the pins: gpiochipN, a /dev path "
        "or a chip's label; \"\" finds the Raspberry Pi's header chip by its label (pinctrl-rp1 on a "
        "Pi 5, pinctrl-bcm2711 on a Pi 4, pinctrl-bcm2835 on older ones), else gpiochip0. "
        "`gpiodetect` lists the chips."),
    Key("pin_factory", "str", "", "gpiozero pin factory: \"\" (GPIOZERO_PIN_FACTORY or gpiozero's "
        "choice), lgpio (recommended: kernel edge timestamps; the only one on a Pi 5), rpigpio, "
        "pigpio, native, mock (tests).", choices=("", "lgpio", "rpigpio", "pigpio", "native", "mock")),
    Key("board_revision", "str", "", "The board as gpiozero should take it, a Raspberry Pi revision "
        "code in hex (e.g. \"c03111\", a Pi 4B): \"\" reads the Pi's own. Set it only where gpiozero "
        "finds no Pi revision (another board whose GPIO chip's lines are numbered as the Pi's "
        "header, a container, the kernel tests); pins are then that Pi's (docs/raspberry-pi.md).",
        check=lambda v: None if not v or _is_hex_revision(v) else "a Pi revision code in hex, "
        "4 to 8 digits (as in /proc/cpuinfo's Revision line), or \"\""),
))
"""The Raspberry Pi pins (controller/inputs/gpio.py, controller/inputs/gpiochip.py)."""

KEYPAD = Section("keypad", "A USB numeric keypad for the host, read with python-evdev so that it works "
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
))
"""The host's USB keypad (controller/inputs/keypad.py)."""

SERIAL = Section("serial", "Our USB serial button box (buttons = \"serial\") and its virtual twin "
        "(buttons = \"serial-sim\"). See docs/serial-box.md and docs/serial-protocol.md.", (
    Key("port", "str", "/dev/serial/by-id/usb-buzzer-box", "The box's stable device path: pick "
        "it from `ls /dev/serial/by-id/` (a /dev/ttyUSB* name can change between plug-ins). "
        "Ignored by serial-sim."),
    Key("baud", "int", 1000000, "Line speed; must match the firmware (1 Mbaud: exact at 16 MHz).",
        minimum=9600, maximum=4000000),
    Key("inputs", "list", [], "Box input (0..15) of each wired button of [[teams]], in order; a team "
        "with phone = true presses with a phone only and is left out (docs/phones.md). [] = the wired "
        "buttons in order on inputs 0, 1, 2 ...", items="int", minimum=0, maximum=15),
    Key("reconnect_min_s", "float", 0.05, "First retry delay after the box is unplugged; "
        "doubles up to reconnect_max_s.", minimum=0.001),
    Key("reconnect_max_s", "float", 1.0, "Longest delay between reopen attempts.", minimum=0.01),
    Key("time_query_interval_s", "float", 2.0, "How often the box clock is sampled to map "
        "box time onto the engine clock (display and logs; ordering uses box time).",
        minimum=0.05),
    Key("stamp_tolerance_ms", "float", 20.0, "An event the box stamps later than its clock can have "
        "read when the event arrived (its latest reading, plus the time since, 1 % fast) by more "
        "than this, or earlier than the previous event by more than the debounce and this, is "
        "refused and the host told (docs/serial-protocol.md, «Plausibility»).", minimum=1.0,
        maximum=1000.0),
    Key("tie_wait_ms", "float", 0.5, "The box sends every press in edge order on one stream, so "
        "the first press received is the earliest and wins at once; the arbiter waits only this "
        "long for a press with the very same timestamp (an exact tie), and not at all once a "
        "later press has arrived.", minimum=0.0, maximum=50.0),
    Key("debounce_ms", "float", 5.0, "The firmware's debounce (compiled in, DEBOUNCE_US; the box "
        "reports it at HELLO and a mismatch is logged). serial-sim uses this value.",
        minimum=0.0, maximum=200.0),
))
"""The USB serial button box (controller/inputs/serial.py, firmware_bridge/)."""


_PIN_RE = re.compile(r"(GPIO|BCM|BOARD|WPI|J8:|P1:)?\d+", re.IGNORECASE)


def _pin_name(v):
    if isinstance(v, int) and not isinstance(v, bool):
        return None
    if not isinstance(v, str) or not _PIN_RE.fullmatch(v.strip()):
        return f"expected a pin name like \"GPIO17\" or \"BOARD11\", got {_show(v)}"
    return None


def _is_hex_revision(v) -> bool:
    return isinstance(v, str) and re.fullmatch(r"[0-9a-fA-F]{4,8}", v) is not None


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


def phones_on(cfg: dict) -> bool:
    """Whether teams can press with their phones: the pages are served (``[web] enabled``) and
    offer the teams' links (``[phones] enabled``)."""
    return bool(cfg["web"]["enabled"] and cfg["phones"]["enabled"])


def wired_buttons(cfg: dict) -> list[str]:
    """The buttons of the teams that press a wired button, in [[teams]] order: every team but
    those with ``phone = true`` (they press with a phone only, docs/phones.md). These are the
    buttons a backend is given: a pin, a box input or a key each."""
    return [t["button"] for t in cfg["teams"] if not t.get("phone")]


def phone_teams_have_phones(cfg: dict) -> None:
    """A team with ``phone = true`` has no other button: the phones must be on."""
    if phones_on(cfg):
        return
    for i, team in enumerate(cfg["teams"]):
        if team.get("phone"):
            off = "web.enabled" if not cfg["web"]["enabled"] else "phones.enabled"
            raise ConfigError(f"teams[{i}].phone", Text("config.phone_team_phones_off", team=repr(team["name"]),
                                                        off=off))


def gpio_covers_teams(cfg: dict) -> None:
    """With buttons = "gpio" (or "gpiod"), every team's button needs an input pin, but a team
    that presses with a phone (``phone = true``)."""
    if cfg.get("buttons") not in ("gpio", "gpiod"):
        return
    for team in cfg["teams"]:
        if not team.get("phone") and team["button"] not in cfg["gpio"]["pins"]:
            raise ConfigError(f"gpio.pins.{team['button']}",
                              Text("config.no_pin_for_team", button=team["button"], team=repr(team["name"])))


def serial_covers_teams(cfg: dict) -> None:
    """With buttons = "serial" (or "serial-sim"), every team's button but a phone team's has a
    box input: ``[serial] inputs`` lists them in the order of the wired teams."""
    if cfg.get("buttons") not in ("serial", "serial-sim"):
        return
    teams = [t for t in cfg["teams"] if not t.get("phone")]
    inputs = cfg["serial"]["inputs"]
    if len(teams) > BOX_INPUTS and not inputs:
        raise ConfigError("serial.inputs", Text("config.serial_too_many", n=len(teams), most=BOX_INPUTS))
    if inputs and len(inputs) < len(teams):
        team = teams[len(inputs)]
        raise ConfigError("serial.inputs", Text("config.no_input_for_team", team=repr(team["name"]),
                                                button=team["button"], n=len(inputs), wired=len(teams)))
    input_map([t["button"] for t in teams], inputs)


BOX_INPUTS = 16
"""Inputs of the serial box (firmware/, docs/serial-protocol.md)."""


def input_map(buttons: Sequence[str], inputs: Any) -> dict[int, str]:
    """Box input index -> button id, from the ``serial.inputs`` option: a list in the order of
    ``buttons`` (the wired teams' buttons, :func:`wired_buttons`), or a table ``{A = 0}``;
    empty: the buttons in order on inputs 0, 1, 2 ..."""
    if not inputs:
        return {i: b for i, b in enumerate(buttons)}
    if isinstance(inputs, (list, tuple)):
        if len(inputs) < len(buttons):
            raise ConfigError("serial.inputs", f"lists {len(inputs)} inputs for {len(buttons)} buttons")
        pairs = list(zip(buttons, inputs))
    elif isinstance(inputs, Mapping):
        missing = [b for b in buttons if b not in inputs]
        if missing:
            raise ConfigError("serial.inputs", f"no box input for button {missing[0]}")
        pairs = [(b, inputs[b]) for b in buttons]
    else:
        raise ConfigError("serial.inputs", f"expected a list or a table, got {inputs!r}")
    out: dict[int, str] = {}
    for button, index in pairs:
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < BOX_INPUTS:
            raise ConfigError(f"serial.inputs.{button}", f"expected a box input 0..{BOX_INPUTS - 1}, got {index!r}")
        if index in out:
            raise ConfigError(f"serial.inputs.{button}", f"input {index} is also button {out[index]}")
        out[index] = button
    return out
