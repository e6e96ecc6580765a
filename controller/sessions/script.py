"""Scripted sessions: a game as a JSON-lines file, played on a virtual clock.

Format (documented in ``docs/scripted-sessions.md``)::

    {"setup": {"mode": "erudite", "teams": [{"name": "Альфа", "button": "A"}], "settings": {...}, "seed": 7}}
    {"at": 1.0, "host": "question", "nominal": 30, "theme": "Реки"}
    {"at": 1.2000042, "press": "A", "delivered": 1.2011}
    {"at": 2.0, "host": "right"}

The first line is optional.  Every other line is one event: ``at`` is the time
in seconds on the virtual clock (for presses: the edge time); presses may add
``delivered`` (when the press reached the program, default ``at``) and
``hold`` (true: the button stays down until a ``release`` line; otherwise a
press is a tap, released 50 ms later), and the input path's ordering promise
``quiet`` (seconds) and ``stream``, and the stamps' resolution ``tie`` (seconds; see
:class:`controller.core.events.Press`).
``{"at": 9.0, "tick": true}`` just moves the clock.  Events are applied in order of delivery time; lines with the
same delivery time keep their file order.

This module parses and runs scripts; it is used by ``buzzer simulate`` and
``buzzer screenshot`` and by the tests.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from controller import games
from controller.core import configs
from controller.games import engine
from controller.core.arbiter import ArbiterRules
from controller.core.effects import Flash, Log
from controller.core.errors import ConfigError, GameError, ScriptError
from controller.core.events import Host, Press, Release, Tick, seconds_to_ns
from controller.i18n import Text

TAP_NS = 50_000_000
"""A scripted press without ``hold`` is released this long after its edge."""

SETUP_KEYS = {"mode", "teams", "settings", "seed", "config", "event"}
FORMAT_FIELDS = frozenset({
    "nominal", "theme", "team", "button", "round", "teams", "seconds", "winner", "seat", "kind", "reason",
    "name", "result", "value", "question", "results", "role", "points", "players", "text", "delay",
    "accepted", "cell", "price", "player", "by", "candidate", "voters", "shooter", "seats",
})
"""The host-line fields the scripted-session format has documented (docs/scripted-sessions.md):
a script written for it stays valid on every host line, where the action ignores what it does not
use. Any other field must be one the action's declaration names (controller/games/actions.py).
This is the published format, not an action table: it only ever grows."""


@dataclass
class Script:
    """A parsed script: setup plus events with their line numbers."""

    setup: dict = field(default_factory=dict)
    events: list[tuple[int, Any]] = field(default_factory=list)
    source: str = "<script>"


MAX_SECONDS = 1_000_000_000
"""The largest time a script line may name (about 31 years; in ns it still fits 64 bits)."""


def _number(value: Any, line: int, name: str, source: str) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise ScriptError(line, Text("script.seconds", field=name, value=repr(value)), source)
    if value < 0:
        raise ScriptError(line, Text("script.not_negative", field=name, value=repr(value)), source)
    if value > MAX_SECONDS:
        raise ScriptError(line, Text("script.at_most_s", field=name, most=MAX_SECONDS, value=repr(value)), source)
    return float(value)


MAX_NUMBER = 10 ** 12
"""The largest magnitude of any number in a script line (no count, price or time comes near;
beyond it a time in ns would overflow a float)."""


def _bad_number(value: Any) -> bool:
    """Whether a parsed JSON value is or holds NaN, an infinity (``NaN``, ``Infinity``, or a
    number too large for a float such as ``1e400``) or a number beyond :data:`MAX_NUMBER`."""
    if isinstance(value, bool):
        return False
    if isinstance(value, float):
        return not math.isfinite(value) or abs(value) > MAX_NUMBER
    if isinstance(value, int):
        return abs(value) > MAX_NUMBER
    if isinstance(value, dict):
        return any(_bad_number(v) for v in value.values())
    if isinstance(value, list):
        return any(_bad_number(v) for v in value)
    return False


def _sane_numbers(obj: dict, line: int, source: str) -> None:
    """Refuse a line whose field holds a non-finite or out-of-range number, naming the field."""
    for name, value in obj.items():
        if _bad_number(value):
            shown = json.dumps(value)
            if len(shown) > 40:
                shown = shown[:37] + "..."
            raise ScriptError(line, Text("script.finite", field=name, most=MAX_NUMBER, value=shown), source)


def parse(lines: Iterable[str], source: str = "<script>") -> Script:
    """Parse script text; raise :class:`ScriptError` naming the line on any problem."""
    script = Script(source=source)
    for n, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ScriptError(n, Text("script.bad_json", detail=exc.msg, column=exc.colno), source) from None
        if not isinstance(obj, dict):
            raise ScriptError(n, Text("script.not_object"), source)
        if "setup" in obj and isinstance(obj["setup"], dict):
            _sane_numbers(obj["setup"], n, source)
        else:
            _sane_numbers(obj, n, source)
        if "setup" in obj:
            if script.events or script.setup:
                raise ScriptError(n, Text("script.setup_first"), source)
            if set(obj) != {"setup"} or not isinstance(obj["setup"], dict):
                raise ScriptError(n, Text("script.setup_line"), source)
            unknown = sorted(set(obj["setup"]) - SETUP_KEYS)
            if unknown:
                raise ScriptError(n, Text("script.unknown_setup_field", field=unknown[0],
                                          known=", ".join(sorted(SETUP_KEYS))), source)
            script.setup = obj["setup"] or {"mode": games.DEFAULT}
            continue
        script.events.append((n, _event(obj, n, source)))
    return script


def _event(obj: dict, n: int, source: str) -> Any:
    if "at" not in obj:
        raise ScriptError(n, Text("script.no_at"), source)
    at = seconds_to_ns(_number(obj["at"], n, "at", source))
    kinds = [k for k in ("press", "release", "host", "tick") if k in obj]
    if len(kinds) != 1:
        raise ScriptError(n, Text("script.one_kind"), source)
    kind = kinds[0]
    if kind in ("press", "release"):
        unknown = sorted(set(obj) - {"at", kind, "delivered", "hold"} - ({"quiet", "stream", "tie", "unc"} if kind == "press" else set()))
        if unknown:
            raise ScriptError(n, Text("script.unknown_field", field=unknown[0], kind=kind), source)
        button = obj[kind]
        if not isinstance(button, str) or not button:
            raise ScriptError(n, Text("script.button_id", kind=kind), source)
        delivered = at
        if "delivered" in obj:
            delivered = seconds_to_ns(_number(obj["delivered"], n, "delivered", source))
            if delivered < at:
                raise ScriptError(n, Text("script.delivered_early"), source)
        if "hold" in obj and not isinstance(obj["hold"], bool):
            raise ScriptError(n, Text("script.bool", field="hold"), source)
        if kind == "release":
            return Release(button, at, delivered)
        quiet = seconds_to_ns(_number(obj.get("quiet", 0), n, "quiet", source))
        if "stream" in obj and not isinstance(obj["stream"], bool):
            raise ScriptError(n, Text("script.bool", field="stream"), source)
        tie = seconds_to_ns(_number(obj.get("tie", 0), n, "tie", source))
        if tie < 0:
            raise ScriptError(n, Text("script.below_zero", field="tie"), source)
        unc = seconds_to_ns(_number(obj.get("unc", 0), n, "unc", source))
        if unc < 0:
            raise ScriptError(n, Text("script.below_zero", field="unc"), source)
        return (Press(button, at, delivered, quiet, bool(obj.get("stream", False)), tie, unc),
                bool(obj.get("hold", False)))
    if kind == "tick":
        if obj["tick"] is not True or set(obj) != {"at", "tick"}:
            raise ScriptError(n, Text("script.tick_line"), source)
        return Tick(at)
    action = obj["host"]
    if not isinstance(action, str) or not action:
        raise ScriptError(n, Text("script.host_action"), source)
    params = {k: v for k, v in obj.items() if k not in ("at", "host")}
    # the fields the action's declaration names (controller/games/actions.py), in any game;
    # an action no game declares is the game's to refuse: its fields are any game's.  Their
    # values are the rule's to judge: a script replays what a host did, refusals included
    declared = games.declared_actions().get(action)
    taken = ({p.name: p for p in declared.params} if declared is not None else
             {p.name: p for a in games.declared_actions().values() for p in a.params})
    unknown = sorted(set(params) - set(taken) - FORMAT_FIELDS)
    if unknown:
        raise ScriptError(n, Text("script.unknown_field", field=unknown[0], kind="host"), source)
    return Host(action, at, params)


def load(path: str | Path) -> Script:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScriptError(None, Text("file.not_found"), str(path)) from None
    except IsADirectoryError:
        raise ScriptError(None, Text("file.is_folder"), str(path)) from None
    except UnicodeDecodeError:
        raise ScriptError(None, Text("file.not_utf8"), str(path)) from None
    except OSError as exc:
        raise ScriptError(None, Text("file.cannot_read", problem=exc.strerror), str(path)) from None
    return parse(text.splitlines(), source=str(path))


def config_for(script: Script, config_path: str | None = None) -> dict:
    """The validated config of a script: file (or defaults) + setup."""
    setup = script.setup
    data: dict[str, Any] = {}
    if "mode" in setup:
        data["mode"] = setup["mode"]
    if "teams" in setup:
        data["teams"] = setup["teams"]
    # a --config file's own problems name that file, not the script's line 1
    cfg = configs.load(config_path) if config_path else None
    try:
        if cfg is None:
            cfg = configs.load(setup.get("config"))
        if data:
            cfg = configs.build(data, base=cfg)
        settings = setup.get("settings") or {}
        if not isinstance(settings, dict):
            raise ConfigError("settings", Text("script.settings_object"))
        if settings:
            cfg = configs.build(settings, base=cfg)
    except ConfigError as exc:
        raise ScriptError(1, Text("script.setup", problem=exc), script.source) from None
    if "event" in setup:
        # an event file (docs/event-file.md), relative to the script: its teams and themes
        event = setup["event"]
        if not isinstance(event, str) or not event:
            raise ScriptError(1, Text("script.setup_event"), script.source)
        base = Path(script.source).resolve().parent if script.source != "<script>" else Path.cwd()
        try:
            cfg = configs.attach_event(cfg, base / event)
        except ConfigError as exc:
            raise ScriptError(1, Text("script.setup", problem=exc), script.source) from None
    return cfg


def seed_for(script: Script, cfg: dict) -> int:
    seed = script.setup.get("seed", cfg["arbiter"]["tie_seed"])
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ScriptError(1, Text("script.setup_seed"), script.source)
    return 0 if seed < 0 else seed


def timeline(script: Script, buttons: set[str] | None = None) -> list[tuple[int, Any]]:
    """Events in delivery order (stable), with taps expanded into press + release."""
    out: list[tuple[int, int, int, Any]] = []
    for order, (line, ev) in enumerate(script.events):
        if isinstance(ev, tuple):
            press, hold = ev
            if buttons is not None and press.button not in buttons:
                raise ScriptError(line, Text("script.unknown_button_of", button=press.button,
                                             buttons=", ".join(sorted(buttons))), script.source)
            out.append((press.delivered, order, line, press))
            if not hold:
                release_at = press.at + TAP_NS
                out.append((max(release_at, press.delivered), order, line,
                            Release(press.button, release_at, max(release_at, press.delivered))))
        else:
            if isinstance(ev, Release) and buttons is not None and ev.button not in buttons:
                raise ScriptError(line, Text("script.unknown_button", button=ev.button), script.source)
            out.append((ev.now, order, line, ev))
    out.sort(key=lambda x: (x[0], x[1]))
    return [(line, ev) for _, _, line, ev in out]


@dataclass
class Run:
    state: Any
    log: list[Log]
    config: dict
    seed: int
    flashes: list[tuple[int, Flash]] = field(default_factory=list)
    """Every Flash effect with its engine time (ns), for ``buzzer screenshot``."""


def _flashes(fx: list, when: int) -> list[tuple[int, Flash]]:
    """The Flash effects of one step, each timed by the Log entry that follows it
    (a deadline fired inside the step logs its own time), else by the event."""
    out = []
    for i, f in enumerate(fx):
        if isinstance(f, Flash):
            at = next((g.at for g in fx[i + 1:] if isinstance(g, Log)), when)
            out.append((min(at, when), f))
    return out


def _ticks(state: Any, until: int, log: list[Log], flashes: list[tuple[int, Flash]], stepped=None) -> Any:
    """Send a Tick at every deadline up to ``until``, each at its own time, as the
    loop of ``buzzer run`` does (it wakes at ``engine.wakeup``): a deadline between
    two script lines fires when it falls due, not when the next line comes."""
    while (due := engine.wakeup(state)) is not None and due <= until:
        state, fx = engine.step(state, Tick(due))
        if stepped is not None:
            stepped.append(Tick(due))
        log.extend(f for f in fx if isinstance(f, Log))
        flashes.extend(_flashes(fx, due))
        if engine.wakeup(state) == due:   # a deadline that does not go away: leave it to the next event
            break
    return state


def run(script: Script, config_path: str | None = None, until: float | None = None,
        stepped: list | None = None) -> Run:
    """Play the script through the engine; stop at ``until`` seconds if given.  ``stepped``
    (a list) receives every event the engine took, in order, ticks included: what a hall's
    journal would hold (``buzzer simulate --festival`` publishes it)."""
    cfg = config_for(script, config_path)
    seed = seed_for(script, cfg)
    from controller.content import packs   # a .siq package as data; a bad one stops the script
    if packs.plays_packages(cfg):
        packs.attach(cfg, None, strict=True)
    try:
        state = engine.new_game(cfg, seed)
    except GameError as exc:
        raise ScriptError(1, Text("script.setup", problem=exc), script.source) from None
    log: list[Log] = []
    flashes: list[tuple[int, Flash]] = []
    limit = None if until is None else seconds_to_ns(until)
    last = 0
    for line, ev in timeline(script, games.get(cfg["mode"]).script_buttons(cfg)):
        if limit is not None and ev.now > limit:
            break
        try:
            state = _ticks(state, ev.now, log, flashes, stepped)
            state, fx = engine.step(state, ev)
            if stepped is not None:
                stepped.append(ev)
        except GameError as exc:
            raise ScriptError(line, exc, script.source) from None
        log.extend(f for f in fx if isinstance(f, Log))
        flashes.extend(_flashes(fx, ev.now))
        last = max(last, ev.now)
    # the run ends one settle window after the last event, so a press there is decided
    end = limit if limit is not None else last + ArbiterRules.from_config(cfg, seed).settle_ns
    state = _ticks(state, end, log, flashes, stepped)
    state, fx = engine.step(state, Tick(end))
    if stepped is not None:
        stepped.append(Tick(end))
    log.extend(f for f in fx if isinstance(f, Log))
    flashes.extend(_flashes(fx, end))
    return Run(state, log, cfg, seed, flashes)


def log_json(entry: Log) -> dict:
    """One log entry as JSON; ``kind`` is always the entry's own kind."""
    return {"t": round(entry.at / 1e9, 9), **entry.data, "kind": entry.kind}


def result(r: Run) -> dict:
    """The JSON object ``buzzer simulate`` prints."""
    out = engine.summary(r.state)
    out["seed"] = r.seed
    out["events"] = [log_json(e) for e in r.log]
    return out
