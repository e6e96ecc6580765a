"""The core subcommands: ``run``, ``simulate``, ``check-config``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from controller import config as config_mod
from controller import script as script_mod

DEFAULT_CONFIG = Path(__file__).resolve().parent.parent / "config" / "default.toml"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="play a game (default: Эрудит-квартет, 4 teams, keyboard buttons)")
    p.add_argument("--config", "-c", help="config file (default: config/default.toml)")
    p.add_argument("--headless", action="store_true", help="no window: text status in the terminal")
    p.add_argument("--fullscreen", action="store_true", help="full screen on the projector")
    p.add_argument("--windowed", action="store_true", help="in a window even if the config says full screen")
    p.add_argument("--lang", choices=("ru", "en"), help="language of the screen")
    p.add_argument("--new", action="store_true", help="start a new game even if an unfinished one exists "
                   "(the old journal is archived, never deleted)")
    p.add_argument("--resume", action="store_true", help="resume the unfinished game without asking, "
                   "even one of another config (said on the screen)")
    p.add_argument("--seconds", type=float, default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("simulate", help="play a scripted session and print the result as JSON")
    p.add_argument("script", help="script file (JSON lines, see docs/scripted-sessions.md)")
    p.add_argument("--config", "-c", help="config file the script's settings apply on top of")
    p.add_argument("--until", type=float, help="stop the virtual clock at this many seconds")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("check-config", help="validate a config file")
    p.add_argument("file", nargs="?", help="config file")
    p.add_argument("--print-default", action="store_true", help="print the default config with every key")
    p.add_argument("--print-docs", action="store_true", help="print docs/config.md")
    p.set_defaults(func=cmd_check_config)


def default_config_path() -> str | None:
    return str(DEFAULT_CONFIG) if DEFAULT_CONFIG.exists() else None


def cmd_simulate(args) -> int:
    from controller.cli import print_json
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
    if not args.file:
        raise config_mod.ConfigError("", "name a config file: buzzer check-config FILE")
    cfg = config_mod.load(args.file)
    print(f"{args.file}: OK (mode {cfg['mode']}, {len(cfg['teams'])} teams, buttons {cfg['buttons']})")
    return 0


def cmd_run(args) -> int:
    from controller.loop import run_from_args
    return run_from_args(args)
