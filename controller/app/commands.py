"""The core subcommands: ``run``, ``simulate``, ``check-config``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from controller import games
from controller.app import config as config_mod
from controller.sessions import script as script_mod
from controller.core.errors import ConfigError
from controller.i18n import DEFAULT_LANG, LANGUAGES, t, tn
from controller.cli import print_json

DEFAULT_CONFIG = Path(__file__).resolve().parent.parent.parent / "config" / "default.toml"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="play a game (default: Эрудит-квартет, 4 teams, keyboard buttons)")
    p.add_argument("--config", "-c", help="config file (default: config/default.toml)")
    p.add_argument("--headless", action="store_true", help="no window: text status in the terminal")
    p.add_argument("--fullscreen", action="store_true", help="full screen on the projector")
    p.add_argument("--windowed", action="store_true", help="in a window even if the config says full screen")
    p.add_argument("--lang", choices=LANGUAGES, help="language of the screen")
    p.add_argument("--new", action="store_true", help="start a new game even if an unfinished one exists "
                   "(the old journal is archived, never deleted)")
    p.add_argument("--resume", action="store_true", help="resume the unfinished game without asking, "
                   "even one of another config (said on the screen)")
    p.add_argument("--pack", help="a SIGame package (.siq) to play in Своя игра (sets [own_game] pack; "
                   "docs/packages.md)")
    p.add_argument("--event", metavar="FILE", help="the organiser's event file: teams, players, themes "
                   "(docs/event-file.md; sets the config's event_file)")
    p.add_argument("--seconds", type=float, default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("simulate", help="play a scripted session and print the result as JSON")
    p.add_argument("script", help="script file (JSON lines, see docs/scripted-sessions.md)")
    p.add_argument("--config", "-c", help="config file the script's settings apply on top of")
    p.add_argument("--until", type=float, help="stop the virtual clock at this many seconds")
    from controller.festival.command import add_simulate_options  # the festival's options (docs/festival.md)
    add_simulate_options(p)
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("check-config", help="validate a config file")
    p.add_argument("file", nargs="?", help="config file (default: the one buzzer run uses, config/default.toml)")
    p.add_argument("--config", "-c", metavar="FILE", help="the config file, as in the other subcommands "
                   "(the same as FILE)")
    p.add_argument("--print-default", action="store_true", help="print the default config with every key")
    p.add_argument("--print-docs", action="store_true", help="print docs/config.md")
    p.add_argument("--event", metavar="FILE", help="also check this event file with the config "
                   "(docs/event-file.md); FILE may itself be an event file")
    p.set_defaults(func=cmd_check_config)


def default_config_path() -> str | None:
    return str(DEFAULT_CONFIG) if DEFAULT_CONFIG.exists() else None


def cmd_simulate(args) -> int:
    if getattr(args, "festival", None):
        from controller.festival.hall import simulate
        return simulate(args)
    script = script_mod.load(args.script)
    run = script_mod.run(script, args.config, until=args.until)
    print_json(script_mod.result(run))
    return 0


def cmd_check_config(args) -> int:
    if args.print_default:
        sys.stdout.write(config_mod.default_toml())
        return 0
    if args.print_docs:
        sys.stdout.write(config_mod.docs_markdown())
        return 0
    given = getattr(args, "config", None)
    event = getattr(args, "event", None)
    if given and args.file and not event and _is_event_file(args.file):
        # an event file as FILE with --config: checked with that config
        path, event = given, args.file
    else:
        if given and args.file and Path(given).resolve() != Path(args.file).resolve():
            raise ConfigError("", f"two configs given: {args.file} and --config {given}; give one")
        path = args.file or given or default_config_path()
        if path and _is_event_file(path):
            # an event file on its own: checked with the config `buzzer run` would use
            path, event = default_config_path(), path
    cfg = config_mod.load(path)
    if event and not given and not (args.file and Path(args.file).resolve() == Path(path).resolve()):
        # no config chose the game: checked as `buzzer run --event` plays it (config.event_mode)
        mode = config_mod.event_mode(event, cfg["mode"])
        if mode != cfg["mode"]:
            cfg = config_mod.load(path, {"mode": mode})
    if event:
        cfg = config_mod.attach_event(cfg, Path(event).resolve())
    shown = _shown_path(event) if event else (_shown_path(path) if path else "(built-in defaults)")
    # "FILE: OK" is the part a script may look for; what follows is for people, in the config's language
    print(f"{shown}: OK ({describe(cfg, cfg.get('language', DEFAULT_LANG))})")
    return 0


def _is_event_file(path: str) -> bool:
    """Whether a TOML file is an event file (docs/event-file.md) rather than a config; a file
    that cannot be read is left to the config loader, which names the problem."""
    import tomllib
    from controller.content import event as event_mod

    try:
        return event_mod.looks_like_event(tomllib.loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False


def _shown_path(path: str) -> str:
    """The path as the user would type it: relative to the working folder when inside it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def describe(cfg: dict, lang: str = DEFAULT_LANG) -> str:
    """What a config sets up, in a few words of ``lang``: «Мафия, 10 мест, кнопки keyboard»
    (the game's title, never its mode id)."""
    mode = cfg["mode"]
    game = games.get(mode)
    title = t(game.title_key, lang) if game.title_key else mode
    who = [tn(key, n, lang) for key, n in game.describe(cfg)]
    buttons = [t("check.buttons", lang, backend=cfg["buttons"])]
    phones = sum(1 for team in cfg["teams"] if team.get("phone"))
    if phones:   # teams with phone = true (docs/phones.md): said, so a wrong count shows
        buttons.append(t("check.phone_teams", lang, n=phones))
    ev = cfg.get("event")
    if ev:
        played = ev.get("game") or {}
        plan = []
        if played.get("fights"):   # a game of players at the buttons (its plan has fights)
            who.append(tn("check.players_n", sum(len(team.get("roster", ())) for team in cfg["teams"]), lang))
            plan.append(tn("check.fights_n", len(played["fights"]), lang))
        elif played.get("pack"):
            plan.append(t("check.package", lang, name=Path(played["pack"]).name))
        event_title = f"«{ev['title']}»" if ev.get("title") else t("check.event", lang)
        parts = ", ".join([title, *who, *plan, *buttons])
        return t("check.event_game", lang, event=event_title, number=ev.get("game_number") or "-", summary=parts)
    return ", ".join([title, *who, *buttons])


def cmd_run(args) -> int:
    # the game's modules (the loop, the window, the inputs): only for a game (start-up time)
    from controller.app import runner, startup

    return startup.run_from_args(args, args.config or default_config_path(), runner.run_window,
                                 runner.run_headless)
