"""The ``buzzer`` command.

Subcommands (documented in ``docs/cli.md``):

* ``buzzer run [--config FILE]`` -- play a game (the main job);
* ``buzzer simulate SCRIPT.jsonl`` -- play a scripted session on a virtual
  clock and print one JSON object;
* ``buzzer check-config FILE`` -- validate a config;

and the ones other modules add through :data:`COMMANDS`.  Any
:class:`~controller.core.errors.BuzzerError` becomes one line on stderr and exit
code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import sys

from controller import __version__
from controller.core.errors import BuzzerError

COMMANDS = [
    # modules with add_parser(subparsers) that sets func=...; imported lazily
    "controller.app.commands",
    "controller.app.button_check",
    "controller.games.mafia.tournament",
    "controller.screens.screenshot",
    "controller.content.packs",
    "controller.festival.command",
    "controller.app.records",
]

SUBCOMMANDS = {
    # the subcommands each module of COMMANDS adds: a command imports only its own module
    # (start-up time, docs/performance.md); a command missing here imports them all
    "run": "controller.app.commands",
    "simulate": "controller.app.commands",
    "check-config": "controller.app.commands",
    "test-buttons": "controller.app.button_check",
    "tournament": "controller.games.mafia.tournament",
    "protocol": "controller.games.mafia.tournament",
    "screenshot": "controller.screens.screenshot",
    "pack": "controller.content.packs",
    "festival": "controller.festival.command",
    "journal": "controller.app.records",
}


def modules_for(argv: list[str]) -> list[str]:
    """The modules of COMMANDS that ``argv`` needs: none for ``--version``, the command's
    own for a known command, every one otherwise (``--help``, a mistyped command: argparse
    lists them all)."""
    for i, word in enumerate(argv):
        if word == "--version" and not {"-h", "--help"} & set(argv[:i]):
            return []
        if not word.startswith("-"):
            return [SUBCOMMANDS[word]] if word in SUBCOMMANDS else list(COMMANDS)
    return list(COMMANDS)


ARGUMENT_PROBLEMS = (
    # argparse's English message -> the catalog key of the host's words (in this order)
    (r"argument (?P<arg>\S+): invalid choice: (?P<value>.+?) \(choose from (?P<choices>.*)\)", "args.bad_choice"),
    (r"argument (?P<arg>\S+): invalid (?:float|int) value: (?P<value>.+)", "args.not_a_number"),
    (r"argument (?P<arg>\S+): expected one argument", "args.needs_value"),
    (r"unrecognized arguments: (?P<words>.+)", "args.unrecognized"),
    (r"the following arguments are required: (?P<words>.+)", "args.required"),
)


class Parser(argparse.ArgumentParser):
    """The parser of ``buzzer`` and its subcommands: a mistake in the words is one line in the
    host's language naming it and the ``--help`` to read, exit code 2 (not argparse's usage block
    and its English)."""

    argv: list[str] = []
    """The words being parsed (set by :func:`main`): their ``--lang`` / ``--config`` pick the language."""

    def error(self, message: str):  # type: ignore[override]
        sys.stderr.write(f"buzzer: {self.problem(message, error_lang(None, self.argv))}\n")
        sys.exit(2)

    def problem(self, message: str, lang: str) -> str:
        from controller.i18n import t

        commands = [a for a in self._actions if isinstance(a, argparse._SubParsersAction)]
        prog = self.prog
        if prog == "buzzer":   # unrecognized words are said by the top parser: point at the command's help
            word = next((w for w in self.argv if not w.startswith("-")), None)
            prog = f"buzzer {word}" if word in SUBCOMMANDS else prog
        for pattern, key in ARGUMENT_PROBLEMS:
            found = re.fullmatch(pattern, message)
            if not found:
                continue
            words = {name: _unquoted(value) for name, value in found.groupdict().items()}
            if key == "args.bad_choice" and any(words["arg"] in (a.metavar, a.dest) for a in commands):
                return t("args.unknown_command", lang, value=words["value"], prog=prog)
            line = t(key, lang, **words)
            break
        else:
            line = message
        return t("args.help_hint", lang, line=line, prog=prog)


def _unquoted(words: str) -> str:
    """argparse's quoted value or list of choices without its quotes: ``'ru', 'en'`` -> ``ru, en``."""
    return re.sub(r"'([^']*)'", r"\1", words)


def build_parser(modules: list[str] | None = None) -> argparse.ArgumentParser:
    """The ``buzzer`` parser with the subcommands of ``modules`` (default: every one)."""
    parser = Parser(prog="buzzer", description="Buzzer and timer controller for quiz games.")
    parser.add_argument("--version", action="version", version=f"buzzer-controller {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS if modules is None else modules:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue  # that feature is not installed in this checkout
            raise
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    # SDL must not take SIGTERM (it would become a quit event only the window reads):
    # `buzzer run` handles SIGTERM, SIGINT and SIGHUP itself (controller/app/startup.py)
    os.environ.setdefault("SDL_NO_SIGNAL_HANDLERS", "1")
    Parser.argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(modules_for(Parser.argv))
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    import controller.app.config  # noqa: F401  registers the config's functions (controller/core/configs.py)
    try:
        return int(args.func(args) or 0)
    except BuzzerError as exc:
        print(f"buzzer: {exc.words(error_lang(args))}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def error_lang(args: argparse.Namespace | None = None, argv: list[str] | None = None) -> str:
    """The language of an error line: the command's ``--lang``, else the ``language`` of the
    config it was given (or of the default config), else Russian.  A config that cannot be
    read leaves the default; one that is not TOML still has its top-level ``language`` line
    read (the error line is about that file).  ``argv``: the words when argparse has not made
    ``args`` (an error in them)."""
    from pathlib import Path
    import tomllib

    from controller.i18n import DEFAULT_LANG, LANGUAGES

    lang = getattr(args, "lang", None)
    words = list(argv or ())
    for i, word in enumerate(words):
        if word == "--lang" and i + 1 < len(words):
            lang = words[i + 1]
        elif word.startswith("--lang="):
            lang = word.partition("=")[2]
    if lang in LANGUAGES:
        return lang
    command = getattr(args, "command", None)
    config = getattr(args, "config", None) or (getattr(args, "file", None) if command == "check-config" else None)
    for i, word in enumerate(words if args is None else ()):
        if word in ("-c", "--config") and i + 1 < len(words):
            config = words[i + 1]
        elif word.startswith("--config="):
            config = word.partition("=")[2]
    if args is None and words:
        command = next((w for w in words if not w.startswith("-")), None)
    if config is None and command in ("run", "check-config"):
        config = Path(__file__).resolve().parent.parent / "config" / "default.toml"
    try:
        text = Path(config).read_text(encoding="utf-8") if config else ""
    except (OSError, UnicodeDecodeError, ValueError):
        text = ""
    try:
        found = tomllib.loads(text).get("language")
    except tomllib.TOMLDecodeError:   # the error is about the file: its top-level language line still counts
        top = re.split(r"^\s*\[", text, maxsplit=1, flags=re.M)[0]
        found = next(iter(re.findall(r"""^\s*language\s*=\s*["'](\w+)["']""", top, re.M)), None)
    return found if found in LANGUAGES else DEFAULT_LANG


def command_name() -> str:
    """``buzzer`` as the user can type it again: ``.venv/bin/buzzer`` when that is how it
    was started (``make run`` does not put it on PATH), plain ``buzzer`` when it is on PATH."""
    import shutil
    from pathlib import Path

    started = sys.argv[0] if sys.argv and sys.argv[0] else ""
    if Path(started).name != "buzzer":
        return "buzzer"  # python -m controller.cli, or a test
    found = shutil.which("buzzer")
    if found and Path(found).resolve() == Path(started).resolve():
        return "buzzer"
    if Path(started).is_absolute():
        try:
            return str(Path(started).relative_to(Path.cwd()))
        except ValueError:
            return started
    return started


def print_json(obj) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())
