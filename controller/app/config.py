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

from controller.core import configs
from controller.core.errors import ConfigError
from controller.i18n import LANGUAGES, Text
from controller import games
from controller.inputs.backends import BACKENDS
from controller.inputs.keys import is_key_name
from controller.inputs.options import GPIO, KEYPAD, KEYS, SERIAL, gpio_covers_teams, phone_teams_have_phones, serial_covers_teams
from controller.screens.layouts import LAYOUTS

from controller.core.schema import _KIND_OK, _KIND_WORD, NUMBER_LIMIT, Key, Section, _num, _show, bind_address, check_value, expected, positive  # noqa: F401

_positive = positive

# --------------------------------------------------------------------------
# the schema

SHELL_SCHEMA: list[Section] = [
    Section("", "Top-level keys.", (
        Key("mode", "str", games.default(), "Game mode: erudite (Эрудит-квартет), own-game (Своя игра), "
            "brain-ring (Брейн-ринг), chgk («Что? Где? Когда?»), mafia, programme.",
            choices=games.names()),
        Key("buttons", "str", BACKENDS.names()[0], "Button backend: " + ", ".join(
            f"{p.name} ({p.doc})" for p in BACKENDS) + ".", choices=BACKENDS.names()),
        Key("language", "str", "ru", "Language of the screen and messages.", choices=LANGUAGES),
        Key("event_file", "str", "", "The organiser's event file: teams with their players, the themes "
            "of each fight, a Своя игра package (docs/event-file.md; relative to this config file). "
            "\"\": none. The run command's --event FILE sets it."),
        Key("event_game", "int", 0, "Which game of the event file this config plays (1-based); 0: the "
            "first game of this config's mode.", minimum=0),
    )),
    Section("arbiter", "Who pressed first. Winners are chosen by the edge's timestamp.", (
        Key("settle_ms", "float", 2.0, "How long the arbiter waits after the earliest edge before "
            "naming a winner, so that an earlier edge delivered late still wins.", minimum=0.0, maximum=1000.0),
        Key("late_ms", "float", 500.0, "A press this soon after the winner's edge (beyond the settle window) "
            "lost the race: shown as late («Поздно», with its gap), not as early; a press later while the "
            "answer is given is early for the next wave.", minimum=0.0, maximum=60000.0),
        Key("tie_rule", "str", "random", "Exact timestamp ties: random (a seeded draw, the seed kept in the journal) "
            "or order (the button listed first in [[teams]] wins).", choices=("random", "order")),
        Key("tie_seed", "int", -1, "Seed of the tie draw; -1 draws one at game start (it is kept in "
            "the journal's header, so a resumed game or a replay draws the same).", minimum=-1,
            maximum=2**32 - 1),
    )),
    KEYS,
    Section("display", "The audience screen.", (
        Key("fullscreen", "bool", False, "Full screen on the projector (the service sets it to true)."),
        Key("width", "int", 1280, "Window width when not full screen.", minimum=320, maximum=16384),
        Key("height", "int", 720, "Window height when not full screen.", minimum=240, maximum=16384),
        Key("fps", "int", 30, "Redraws per second while a countdown runs.", minimum=1, maximum=240),
        Key("flash_s", "float", 1.5, "How long a ruling flash («Верно», «Неверно») stays.", minimum=0.0),
        Key("layout", "str", LAYOUTS.names()[0], "The projector's layout: " + " or ".join(
            f"{p.name} ({p.doc})" for p in LAYOUTS) + ".", choices=LAYOUTS.names()),
        Key("host_overlay", "bool", True, "Draw what only the host needs (notices, the key help, the rename "
            "dialogue) on this screen too. True suits a laptop game with no phone; set false when the host "
            "uses the web host page and the projector shows the hall only (docs/web.md)."),
        Key("separate_process", "bool", True, "Draw the window in a process of its own, so that a frame "
            "being drawn never delays a press or the winner's lamp (docs/performance.md «The window in its own "
            "process»); false: in the game loop's process (one process less)."),
    )),
    Section("web", "Live web pages inside buzzer run: / for the audience, /overlay for a stream, /host for "
            "the host's phone (docs/web.md).", (
        Key("enabled", "bool", True, "Serve the pages while a game runs."),
        Key("bind", "str", "127.0.0.1", "Address to listen on: 127.0.0.1 (this computer only) or 0.0.0.0 "
            "(every network, e.g. the hall's Wi-Fi); an IPv4 or IPv6 address or a host name of this computer. "
            "When the pages cannot listen there and a team presses with a phone only, buzzer run does not "
            "start (docs/phones.md).", check=bind_address),
        Key("port", "int", 8080, "TCP port of the pages.", minimum=1, maximum=65535),
        Key("next_free_port", "bool", True, "When the port is busy, take the next free one (said in the "
            "terminal and on the host's screen); false: no pages, and one line names the busy port."),
        Key("hosts", "list", [], "Host names the pages may be opened by besides IP addresses and localhost "
            "(e.g. \"quiz.local\"); state-changing requests with another Host name are refused.", items="str"),
        Key("update_ms", "int", 100, "How often the pages get a running countdown (a change is sent at once).",
            minimum=20, maximum=1000),
        Key("host_rate_per_s", "float", 5.0, "Host actions (and token attempts) a client may send per second.",
            minimum=0.1, maximum=100.0),
        Key("host_burst", "int", 10, "Host actions a client may send at once before the rate applies.",
            minimum=1, maximum=100),
        Key("max_body_bytes", "int", 2048, "Largest request body taken.", minimum=256, maximum=65536),
        Key("max_viewers", "int", 500, "Most live pages connected at once.", minimum=1, maximum=10000),
        Key("send_timeout_s", "float", 1.0, "A page that does not take an update in this time is dropped "
            "(it reconnects and gets the full state).", minimum=0.05, maximum=30.0),
        Key("header_timeout_s", "float", 10.0, "A connection that has not sent a whole request header "
            "(or a request's body) in this time is closed: a slow client cannot hold a file descriptor.",
            minimum=0.5, maximum=300.0),
        Key("idle_timeout_s", "float", 15.0, "A keep-alive connection idle this long between requests is "
            "closed (live pages hold their WebSocket, which has its own heartbeat).",
            minimum=0.5, maximum=3600.0),
        Key("max_connections", "int", 700, "Most connections open at once (pages, requests, the host); "
            "one more is answered 503 and closed. Keep it above max_viewers and below the process's "
            "file limit (ulimit -n, 1024 by default).", minimum=2, maximum=60000),
        Key("nice", "int", 10, "How much lower the pages' process runs than the game (the Unix nice "
            "value it adds to its own): on a busy machine the game loop gets a CPU first, and a crowd "
            "of viewers waits instead of the buttons. 0: the same priority.", minimum=0, maximum=19),
    )),
    Section("phones", "Phones as the teams' buttons: each team's link (on the host page) opens /play, one big "
            "button; the phone's clock is synced to this computer's and each press is stamped at the touch, "
            "with its uncertainty (docs/inputs.md «Phones», docs/web.md).", (
        Key("enabled", "bool", True, "Offer each team a join link on the host page and take presses from /play."),
        Key("uncertain_tie", "str", "lot", "A tie within the presses' uncertainty (a phone's press is known "
            "only to its clock sync's bound and the touch latency: when the two earliest presses' intervals "
            "overlap nobody can say who was first): lot (broken as an exact tie is, by [arbiter] tie_rule, "
            "among the presses overlapping the earliest) or rearm (nobody answers; the buttons are armed "
            "again and the teams press again). Either way the press order says «ничья ±N мс». Wired buttons "
            "alone never tie this way.", choices=("lot", "rearm")),
        Key("touch_latency_ms", "float", 20.0, "How long before the browser stamps a touch the finger touched "
            "the glass, at most (the touch screen's scan and the system's input path: 5-30 ms on phones). "
            "It is added to every phone press's uncertainty.", minimum=0.0, maximum=200.0),
        Key("handler_max_ms", "float", 100.0, "A press stamped longer than this before the page sent it is not "
            "believed: its stamp is moved up to this limit and flagged, its uncertainty widened by as much as it "
            "was moved, at most this again (a busy phone runs its handler late: up to twice this, its touch stays "
            "inside what the press declares; a forged stamp claims a press long ago and gains a tie at most).",
            minimum=1.0, maximum=2000.0),
        Key("bound_max_ms", "float", 30.0, "A phone whose clock is known less well than ± this is marked on the "
            "host page (a bad Wi-Fi, a phone saving battery).", minimum=0.5, maximum=1000.0),
        Key("exclude_over_bound", "bool", True, "A phone over bound_max_ms is kept out of races until its sync "
            "recovers: its presses are refused and the phone says why."),
        Key("wait_max_ms", "float", 150.0, "The longest a race waits for the phones' presses still on their "
            "way (each phone's measured delay to this computer plus its bound); a slower phone's press may "
            "come after the decision (it is shown as late).", minimum=0.0, maximum=2000.0),
        Key("wait_margin_ms", "float", 10.0, "Added to the phones' measured delay for that wait (the page's "
            "handler and the pipe to the game); also the most a press message may have been on its way beyond "
            "the phone's measured path: one that claims to have been sent earlier is taken as sent then, its "
            "stamp moved up and flagged (a press held back, or dated back).", minimum=0.0, maximum=500.0),
        Key("delay_half_life_s", "float", 60.0, "How fast a phone's slow path of long ago stops counting in "
            "that wait: each round trip's delay counts halved for every this many seconds it is older than the "
            "phone's newest round trip (one Wi-Fi spike does not keep every race waiting while the phone's "
            "recent paths are fast; the newest counts in full).", minimum=1.0, maximum=3600.0),
        Key("sync_interval_s", "float", 2.0, "How often a phone exchanges its clock with this computer while it "
            "is connected (at joining: five times in quick succession).", minimum=0.2, maximum=60.0),
        Key("first_sync_wait_s", "float", 3.0, "A press made before the phone's first clock exchange is done "
            "(in the moment after the page opens) is kept this long for it, then stamped at its touch as "
            "any press; not done by then: refused, and the phone says «press again».", minimum=0.1,
            maximum=60.0),
        Key("sync_window", "int", 32, "How many of a phone's latest round trips the sync keeps.", minimum=4,
            maximum=512),
        Key("max_drift_ppm", "float", 500.0, "The most two clocks drift apart (parts per million): the drift's "
            "bound before it is measured.", minimum=1.0, maximum=10000.0),
        Key("drift_margin_ppm", "float", 20.0, "How much the drift may wander from its measured value "
            "(ppm): an old round trip's interval widens by this much per second of its age.", minimum=0.0,
            maximum=10000.0),
        Key("max_phones_per_team", "int", 4, "Phones connected at once with one team's link (one more is "
            "refused).", minimum=1, maximum=100),
        Key("rate_per_s", "float", 20.0, "Messages a phone may send per second (presses and clock exchanges); "
            "more close its connection.", minimum=1.0, maximum=1000.0),
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
    Section("process", "How buzzer run shares its machine with other programs.", (
        Key("realtime_priority", "int", 10, "The game loop and the buttons' readers run at this real-time "
            "priority (SCHED_FIFO), so that a busy machine (a browser or a stream on the same Pi) never "
            "makes a press or the winner's lamp wait for a CPU; the window, the web pages and the "
            "festival's outbox stay at normal priority. Needs root, CAP_SYS_NICE or the service's "
            "LimitRTPRIO; otherwise the game runs at normal priority and its log says so. 0: normal "
            "priority (docs/performance.md).", minimum=0, maximum=49),
    )),
    GPIO,
    KEYPAD,
    SERIAL,
]
"""The sections of the program itself; each game's own follow (:func:`schema`)."""

_SCHEMA: list[Section] = []


def schema() -> list[Section]:
    """Every section: the program's (:data:`SHELL_SCHEMA`) with each game's own
    (:attr:`~controller.games.base.Game.sections`, in the registry's order) after ``[arbiter]``."""
    if not _SCHEMA:
        own = [sec for name in games.names() for sec in games.get(name).sections]
        for sec in SHELL_SCHEMA:
            _SCHEMA.append(sec)
            if sec.name == "arbiter":        # the games' rules right after who pressed first
                _SCHEMA.extend(own)
    return _SCHEMA


def __getattr__(name: str):
    if name == "SCHEMA":  # the whole schema, as :func:`schema` gives it
        return schema()
    raise AttributeError(name)


def _team_checks(teams: Any) -> list[dict]:
    """Validate the ``[[teams]]`` array; return a normalised list."""
    if not isinstance(teams, list) or not all(isinstance(t, dict) for t in teams):
        raise ConfigError("teams", Text("config.teams_array"))
    allowed = {"name", "button", "key", "color", "players", "sound", "roster", "phone"}
    out = []
    seen_names, seen_buttons, seen_keys = set(), set(), set()
    for i, t in enumerate(teams):
        path = f"teams[{i}]"
        unknown = sorted(set(t) - allowed)
        if unknown:
            raise ConfigError(f"{path}.{unknown[0]}", Text("config.team_unknown_key", allowed=", ".join(sorted(allowed))))
        name = t.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f"{path}.name", Text("config.nonempty_string"))
        button = t.get("button", chr(ord("A") + i) if i < 26 else str(i + 1))
        if not isinstance(button, str) or not button:
            raise ConfigError(f"{path}.button", Text("config.nonempty_string"))
        key = t.get("key", DEFAULT_KEYS[i] if i < len(DEFAULT_KEYS) else "")
        if not isinstance(key, str):
            raise ConfigError(f"{path}.key", Text("config.team_key"))
        color = t.get("color", DEFAULT_COLORS[i % len(DEFAULT_COLORS)])
        if not isinstance(color, str) or not re.fullmatch(r"#[0-9a-fA-F]{6}", color):
            raise ConfigError(f"{path}.color", Text("config.team_color", value=_show(color)))
        players = t.get("players", 4)
        if not isinstance(players, int) or isinstance(players, bool) or players < 1:
            raise ConfigError(f"{path}.players", Text("config.team_players", value=_show(players)))
        for value, seen, what in ((name, seen_names, "name"), (button, seen_buttons, "button"),
                                  (key, seen_keys, "key")):
            if value and value in seen:
                raise ConfigError(f"{path}.{what}", Text(f"config.team_duplicate_{what}", value=repr(value)))
            seen.add(value)
        row = {"name": name, "button": button, "key": key, "color": color.lower(), "players": players}
        extra = _team_extras(t, path)
        if extra:
            row.update(extra)
        out.append(row)
    return out


def _team_extras(t: dict, path: str) -> dict:
    """A team's own press sound (``sound``: a bundled sound's name or a WAV file), its
    players' names (``roster``, from the event file) and ``phone`` (true: the team presses
    with a phone only, no wired button); present only when given (``phone``: when true)."""
    out = {}
    if "sound" in t:
        if not isinstance(t["sound"], str) or not t["sound"].strip():
            raise ConfigError(f"{path}.sound", Text("config.team_sound", value=_show(t["sound"])))
        from controller.sound.names import team_sound_problem
        problem = team_sound_problem(t["sound"].strip())
        if problem:
            raise ConfigError(f"{path}.sound", problem)
        out["sound"] = t["sound"].strip()
    if "phone" in t:   # the team presses with a phone only: no wired button (docs/phones.md)
        if not isinstance(t["phone"], bool):
            raise ConfigError(f"{path}.phone", expected("bool", t["phone"]))
        if t["phone"]:
            out["phone"] = True
    if "roster" in t:
        r = t["roster"]
        if not isinstance(r, list) or not all(isinstance(n, str) and n for n in r):
            raise ConfigError(f"{path}.roster", Text("config.team_roster"))
        out["roster"] = list(r)
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
    for s in schema():
        if s.name == name:
            return s
    raise KeyError(name)


def _default_teams() -> list[dict]:
    return _team_checks(copy.deepcopy(DEFAULT_TEAMS))


def defaults() -> dict:
    """The whole configuration with every default filled in."""
    cfg: dict[str, Any] = {}
    for s in schema():
        target = cfg if s.name == "" else cfg.setdefault(s.name, {})
        for k in s.keys:
            target[k.name] = copy.deepcopy(k.default)
    cfg["teams"] = _default_teams()
    return cfg


def _merge(cfg: dict, data: Mapping[str, Any], prefix: str = "") -> None:
    """Validate ``data`` (parsed TOML or overrides) into ``cfg`` in place."""
    sections = {s.name: s for s in schema()}
    for name, value in data.items():
        if name == "teams":
            continue
        if name in sections and name != "":
            sec = sections[name]
            if not isinstance(value, dict):
                raise ConfigError(f"{prefix}{name}", Text("config.expected_table"))
            keys = {k.name: k for k in sec.keys}
            for kname, kvalue in value.items():
                path = f"{prefix}{name}.{kname}"
                if kname in keys:
                    cfg[name][kname] = check_value(keys[kname], kvalue, path)
                elif sec.open_keys:
                    if sec.open_kind and not _KIND_OK[sec.open_kind](kvalue):
                        raise ConfigError(path, expected(sec.open_kind, kvalue))
                    cfg[name][kname] = kvalue
                else:
                    raise ConfigError(path, Text("config.unknown_key_in", section=name, known=", ".join(keys)))
            continue
        top = {k.name: k for k in sections[""].keys}
        if name in top:
            cfg[name] = check_value(top[name], value, f"{prefix}{name}")
            continue
        known = sorted([s.name for s in schema() if s.name] + list(top) + ["teams"])
        raise ConfigError(f"{prefix}{name}", Text("config.unknown_key_or_section", known=", ".join(known)))


def _unflatten(settings: Mapping[str, Any]) -> dict:
    """Turn ``{"erudite.think_time_s": 5}`` into ``{"erudite": {"think_time_s": 5}}``."""
    out: dict[str, Any] = {}
    for key, value in settings.items():
        if not isinstance(key, str):
            raise ConfigError(str(key), Text("config.names_strings"))
        if "." in key:
            sec, _, name = key.partition(".")
            target = out.setdefault(sec, {})
            if not isinstance(target, dict):
                raise ConfigError(sec, Text("config.expected_table"))
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
    else:  # no [[teams]] named: the game may play fewer of the built-in teams
        cfg["teams"] = games.get(cfg["mode"]).default_teams(cfg, cfg["teams"] == _default_teams())
    cfg["teams"] = _team_checks(cfg["teams"])
    _cross_checks(cfg)
    return cfg


def _one_action_per_key(path: str, keymap: Mapping[str, Any]) -> None:
    """A key of the host does one thing: two actions on one key (``right`` and ``wrong``
    both ``return``) would make one of them unreachable, whichever the program picked."""
    owner: dict[str, str] = {}
    for action, names in keymap.items():
        for k in names if isinstance(names, list) else [names]:
            if not isinstance(k, str):
                continue
            first = owner.setdefault(k.lower(), action)
            if first != action:
                raise ConfigError(f"{path}.{action}", Text("config.key_twice", key=repr(k), first=first, action=action))


def _program_keys_kept(cfg: dict) -> None:
    """A game's own key map (put over the program's keys) takes none of the program's own keys
    (help, mute, quit ... of ``[keys]``): «Мафия»'s don's check on ``h`` would leave its judge
    without the key help, its vote on ``v`` without the sound switch."""
    from controller.games.base import LOOP_ACTIONS, PROGRAM_ACTIONS

    program = {a: cfg["keys"][a] for a in PROGRAM_ACTIONS + LOOP_ACTIONS if a in cfg["keys"]}
    owner = {k.lower(): a for a, names in program.items() for k in names if isinstance(k, str)}
    for name in games.names():
        layers = games.get(name).key_layers(cfg, program)
        for own in layers[1:] if layers and layers[0] is cfg["keys"] else layers:
            for action, names in own.items():
                if action in program:
                    continue
                for k in names if isinstance(names, list) else [names]:
                    if isinstance(k, str) and k.lower() in owner:
                        where = f"{name}.keys.{action}" if isinstance((cfg.get(name) or {}).get("keys"), dict) \
                            and action in cfg[name]["keys"] else f"keys.{owner[k.lower()]}"
                        raise ConfigError(where, Text("config.key_program", key=repr(k), owner=owner[k.lower()],
                                                      action=action))


def _real_keys(path: str, keymap: Mapping[str, Any]) -> None:
    """Every key named is one a front end gives (:func:`~controller.inputs.keys.is_key_name`):
    ``right = ["F13x"]`` would pass silently and do nothing at the first ruling."""
    for action, names in keymap.items():
        for k in names if isinstance(names, list) else [names]:
            if isinstance(k, str) and not is_key_name(k):
                raise ConfigError(f"{path}.{action}", Text("config.key_unknown", key=repr(k)))


def _cross_checks(cfg: dict) -> None:
    own_maps = [("keys", cfg["keys"])]
    for name in games.names():      # a game's own key map (ЧГК's, «Мафия»'s) on top of [keys]
        own = (cfg.get(name) or {}).get("keys") if isinstance(cfg.get(name), dict) else None
        if isinstance(own, dict):
            own_maps.append((f"{name}.keys", own))
    for path, keymap in own_maps:
        _real_keys(path, keymap)
    for i, t in enumerate(cfg["teams"]):
        if t["key"] and not is_key_name(t["key"]):
            raise ConfigError(f"teams[{i}].key", Text("config.key_unknown", key=repr(t["key"])))
    for path, keymap in own_maps:
        _one_action_per_key(path, keymap)
    _program_keys_kept(cfg)
    host_keys = {k.lower(): action for action, names in cfg["keys"].items() for k in names}
    for i, t in enumerate(cfg["teams"]):
        if t["key"] and t["key"].lower() in host_keys:
            raise ConfigError(f"teams[{i}].key", Text("config.key_host", key=repr(t["key"]),
                                                      action=host_keys[t["key"].lower()]))
    for hook in CROSS_CHECKS:
        hook(cfg)
    for name in games.names():      # each game's rules between its own keys, whatever is played
        games.get(name).check_settings(cfg)
    games.get(cfg["mode"]).check_config(cfg)   # what the game played needs of the whole config


CROSS_CHECKS: list[Callable[[dict], None]] = []
"""Extra whole-config checks registered by other modules' sections."""
CROSS_CHECKS.append(phone_teams_have_phones)
CROSS_CHECKS.append(gpio_covers_teams)
CROSS_CHECKS.append(serial_covers_teams)


# --- the festival over MQTT (controller/festival/, docs/festival.md) ---
from controller.festival.link import SECTION as _FESTIVAL, festival_cross_check as _festival_cross_check  # noqa: E402

SHELL_SCHEMA.append(_FESTIVAL)
CROSS_CHECKS.append(_festival_cross_check)   # a board's config has no hall: buzzer run checks that


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
            raise ConfigError("", Text("config.not_found", path=str(path)))
        if p.is_dir():
            raise ConfigError("", Text("config.is_folder", path=str(path)))
        try:
            data = tomllib.loads(p.read_text(encoding="utf-8"))
        except UnicodeDecodeError:
            raise ConfigError("", Text("config.not_utf8", path=str(path))) from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError("", bad_toml(str(path), exc)) from None
        except OSError as exc:
            raise ConfigError("", Text("config.cannot_read", path=str(path), problem=exc.strerror)) from None
    try:
        cfg = build(data)
        if overrides:
            cfg = build(overrides, base=cfg)
    except ConfigError as exc:
        if source:
            raise ConfigError(exc.key, exc.problem, source) from None
        raise
    if source:   # a password in a file others may read is refused (docs/festival.md «Trust»)
        from controller.festival.auth import config_secret_problem
        problem = config_secret_problem(cfg, Path(path))
        if problem:
            raise ConfigError("festival.password", problem, source)
    if cfg.get("event_file"):
        base = Path(path).resolve().parent if path is not None else Path.cwd()
        cfg = attach_event(cfg, base / Path(cfg["event_file"]).expanduser(), source)
    return cfg


def bad_toml(path: str, exc: tomllib.TOMLDecodeError) -> Text:
    """The problem of a file that is not TOML, with the line and column the parser names."""
    found = re.fullmatch(r"(.*) \(at line (\d+), column (\d+)\)", str(exc), re.S)
    if found:
        return Text("config.bad_toml_at", path=path, detail=found[1], line=found[2], column=found[3])
    if str(exc).endswith(" (at end of document)"):
        return Text("config.bad_toml_end", path=path, detail=str(exc)[:-len(" (at end of document)")])
    return Text("config.bad_toml", path=path, detail=str(exc))


def event_mode(event_path: str | Path, mode: str) -> str:
    """The mode to play the event file at ``event_path`` in when no config chose one (the
    default config's ``mode``): that mode if the event has a game of it (or no game), else the
    mode of the event's first game, so a ЧГК event is played and checked as ЧГК.  A file that
    cannot be read keeps ``mode`` (the event file's loader names its problem)."""
    try:
        data = tomllib.loads(Path(event_path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return mode
    played = [g.get("mode") for g in data.get("games") or () if isinstance(g, dict)] \
        if isinstance(data.get("games"), list) else []
    if not played or mode in played or played[0] not in games.names():
        return mode   # an unknown mode: the event file's loader names it
    return played[0]


def attach_event(cfg: dict, event_path: str | Path, source: str | None = None) -> dict:
    """``cfg`` playing the event file at ``event_path`` (docs/event-file.md): its game's
    teams become [[teams]] and the game goes under ``cfg["event"]``.  A problem of the
    event file names that file and its key; a game it cannot be used for names
    ``event_file`` / ``event_game`` of the config."""
    from controller.content import event as event_mod   # the content layer reads the file

    ev = event_mod.parse_file(event_path)
    try:
        out = event_mod.apply(cfg, ev, build)
    except ConfigError as exc:
        raise ConfigError(exc.key, exc.problem, exc.source or source) from None
    out["event_file"] = str(Path(event_path).resolve())
    return out


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
    for s in schema():
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


def _range_doc(k) -> str:
    """`` Range: a .. b.`` for a number key (or a list of numbers): its own limits, else the
    implicit ones every number has (schema.NUMBER_LIMIT)."""
    kind = k.items if k.kind == "list" else k.kind
    if kind not in ("int", "float", "number") or k.choices:
        return ""
    high = k.maximum if k.maximum is not None else NUMBER_LIMIT
    if k.check is positive and (k.minimum is None or k.minimum <= 0):   # its check says more than its limits
        return f" Range: > 0 .. {_toml_value(high)}."
    low = k.minimum if k.minimum is not None else -NUMBER_LIMIT
    return f" Range: {_toml_value(low)} .. {_toml_value(high)}."


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
           "(`.venv/bin/buzzer check-config --print-docs`).", "",
           f"Every number must be finite (`nan` and `inf` are refused) and within its range; a key "
           f"whose range is not its own lies within -{NUMBER_LIMIT} .. {NUMBER_LIMIT}.", ""]
    for s in schema():
        title = f"`[{s.name}]`" if s.name else "Top level"
        out += [f"## {title}", "", s.doc, "", "| key | type | default | source | meaning |",
                "|---|---|---|---|---|"]
        for k in s.keys:
            choice = f" One of: {', '.join(map(str, k.choices))}." if k.choices else ""
            out.append(f"| `{k.name}` | {k.kind} | `{_toml_value(k.default)}` | {k.source} | "
                       f"{k.doc}{choice}{_range_doc(k)} |")
        out.append("")
    out += ["## `[[teams]]`", "",
            "One table per team (in Своя игра: per player).", "",
            "| key | type | default | meaning |", "|---|---|---|---|",
            "| `name` | str | required | Shown on the screen. |",
            "| `button` | str | A, B, C … | The button id that backends and scripts use. |",
            "| `key` | str | q, z, p, m, a, l … by team order | Keyboard key of the simulated button (a key name as in [keys]; \"\" for none). |",
            "| `color` | str | a palette colour | `#rrggbb` colour on the screen. |",
            "| `players` | int | 4 | Players in the team; fewer than the rounds of a fight means "
            "the captain skips rounds (seed §4.1). |",
            "| `sound` | str | none | The team's own press sound, so the hall hears who pressed: press-1 … "
            "press-8 (bundled) or a WAV file. |",
            "| `phone` | bool | false | The team presses with a phone only (docs/phones.md): it needs no "
            "wired button, takes no `[gpio] pins` entry and no `[serial] inputs` entry (its pin, if any, "
            "is not opened); with buttons = \"keyboard\" its `key` still presses for it. Needs the phones "
            "on (`[web] enabled` and `[phones] enabled`). A team without it needs a wired button with "
            "buttons = \"gpio\", \"gpiod\" or \"serial\". |", ""]
    return "\n".join(out)


configs.register(load=load, build=build, attach_event=attach_event)   # the layers below build configs with them
