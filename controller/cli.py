"""The ``buzzer`` command.

Subcommands (documented in ``docs/cli.md``):

* ``buzzer run [--config FILE]`` -- play a game (the main job);
* ``buzzer simulate SCRIPT.jsonl`` -- play a scripted session on a virtual
  clock and print one JSON object;
* ``buzzer check-config FILE`` -- validate a config;

and the ones other modules declare (:class:`~controller.core.commandline.Command`),
each named in :data:`COMMANDS`.  Any
:class:`~controller.core.errors.BuzzerError` becomes one line on stderr and exit
code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

from controller import __version__
from controller.core.commandline import command_name, print_json  # noqa: F401  (what commands used from here)
from controller.core.errors import BuzzerError
from controller.core.plugins import Plugin, Registry

COMMANDS = Registry("command", (
    # each a :class:`~controller.core.commandline.Command` its module declares; imported
    # lazily: a command imports only its own module (start-up time, docs/performance.md)
    Plugin("run", "controller.app.commands:RUN"),
    Plugin("simulate", "controller.app.commands:SIMULATE"),
    Plugin("check-config", "controller.app.commands:CHECK_CONFIG"),
    Plugin("test-buttons", "controller.app.button_check:COMMAND"),
    Plugin("tournament", "controller.games.mafia.tournament:TOURNAMENT"),
    Plugin("protocol", "controller.games.mafia.tournament:PROTOCOL"),
    Plugin("screenshot", "controller.screens.screenshot:COMMAND"),
    Plugin("pack", "controller.content.packs:COMMAND"),
    Plugin("festival", "controller.festival.command:COMMAND"),
    Plugin("journal", "controller.app.records:COMMAND"),
))
"""``buzzer NAME`` -> the command's declaration, in the order ``buzzer --help`` lists them."""

SUBCOMMANDS = {plugin.name: plugin.target.partition(":")[0] for plugin in COMMANDS}
"""Each command -> the module declaring it."""


def modules_for(argv: list[str]) -> list[str]:
    """The modules of :data:`COMMANDS` that ``argv`` needs: none for ``--version``, the
    command's own for a known command, every one otherwise (``--help``, a mistyped command:
    argparse lists them all)."""
    for i, word in enumerate(argv):
        if word == "--version" and not {"-h", "--help"} & set(argv[:i]):
            return []
    word = command_word(argv)
    return [SUBCOMMANDS[word]] if word in SUBCOMMANDS else _modules()


def command_word(argv: list[str]) -> str | None:
    """The command ``argv`` names (``run``), past ``buzzer``'s own options (``--lang en run``)."""
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word == "--lang":
            skip = True
        elif not word.startswith("-"):
            return word
    return None


def _modules() -> list[str]:
    return list(dict.fromkeys(SUBCOMMANDS.values()))


ARGUMENT_PROBLEMS = (
    # argparse's English message -> the catalog key of the host's words (in this order)
    (r"argument (?P<arg>\S+): invalid choice: (?P<value>.+?) \(choose from (?P<choices>.*)\)", "args.bad_choice"),
    (r"argument (?P<arg>\S+): invalid (?:float|int) value: (?P<value>.+)", "args.not_a_number"),
    (r"argument (?P<arg>\S+): expected one argument", "args.needs_value"),
    (r"unrecognized arguments: (?P<words>.+)", "args.unrecognized"),
    (r"the following arguments are required: (?P<words>.+)", "args.required"),
)


ARGPARSE_WORDS = {
    # argparse's own words in a help text (it takes them through gettext's ``_()`` in English)
    # -> the catalog key of the host's words
    "usage: ": "args.usage",
    "positional arguments": "args.positional_arguments",
    "options": "args.options",
    "show this help message and exit": "args.show_help",
    "show program's version number and exit": "args.show_version",
}


def help_key(prog: str, dest: str | None = None) -> str:
    """The catalog key of a help text: ``cli.run.config`` for ``--config`` of ``buzzer run``
    (``prog`` "buzzer run", ``dest`` "config"), ``cli.run`` for the command's own line (in
    ``buzzer --help``, and its description in ``buzzer run --help``), ``cli`` for ``buzzer``'s."""
    return ".".join(["cli", *prog.split()[1:], *([dest] if dest else [])])


def help_words(key: str, english: str | None, lang: str) -> str | None:
    """The help text of ``key`` in ``lang``; the code's ``english`` when the catalog lacks it."""
    from controller.i18n import has, template

    return template(key, lang) if english is not None and has(key) else english


class HelpFormatter(argparse.HelpFormatter):
    """``--help`` in the host's language (:func:`error_lang` of the words, as an error line):
    the commands' texts from the catalogs (:func:`help_key`), argparse's own words
    (:data:`ARGPARSE_WORDS`) too; the options, commands and metavars stay as typed."""

    lang = "ru"

    def _argparse_words(self, english: str | None) -> str | None:
        return help_words(ARGPARSE_WORDS[english], english, self.lang) if english in ARGPARSE_WORDS else english

    def add_usage(self, usage, actions, groups, prefix=None):
        if prefix is None:
            prefix = self._argparse_words("usage: ")
        return super().add_usage(usage, actions, groups, prefix)

    def start_section(self, heading):
        return super().start_section(self._argparse_words(heading))

    def _get_help_string(self, action):
        if action.help in ARGPARSE_WORDS:
            return self._argparse_words(action.help)
        return help_words(help_key(self._prog, action.dest), action.help, self.lang)


class Parser(argparse.ArgumentParser):
    """The parser of ``buzzer`` and its subcommands: a mistake in the words is one line in the
    host's language naming it and the ``--help`` to read, exit code 2 (not argparse's usage block
    and its English)."""

    argv: list[str] = []
    """The words being parsed (set by :func:`main`): their ``--lang`` / ``--config`` pick the language."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def _get_formatter(self):
        formatter = super()._get_formatter()
        formatter.lang = error_lang(None, self.argv)
        return formatter

    def format_help(self) -> str:
        # the description in the host's language; a subcommand's: its line in ``buzzer --help``
        description = self.description
        self.description = help_words(help_key(self.prog), description or "", error_lang(None, self.argv)) or None
        try:
            return super().format_help()
        finally:
            self.description = description

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
    from controller.i18n import LANGUAGES

    # also after the command, where each command takes it (buzzer run --lang en)
    parser.add_argument("--lang", choices=LANGUAGES, dest="top_lang",
                        help="language of the help and of the command's messages")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for plugin in COMMANDS:
        name = SUBCOMMANDS[plugin.name]
        if modules is not None and name not in modules:
            continue
        try:
            command = COMMANDS.load(plugin.name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue  # that feature is not installed in this checkout
            raise
        command.add_to(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    # SDL must not take SIGTERM (it would become a quit event only the window reads):
    # `buzzer run` handles SIGTERM, SIGINT and SIGHUP itself (controller/app/startup.py)
    os.environ.setdefault("SDL_NO_SIGNAL_HANDLERS", "1")
    Parser.argv = list(sys.argv[1:] if argv is None else argv)
    release = _hold_stop_signals(Parser.argv)
    try:
        return _main(argv)
    finally:
        release()


def _hold_stop_signals(argv: list[str]):
    """``buzzer run``: a stop signal from its first moment on ends it tidily, also one that comes
    before its slow imports and start-up are done (:mod:`controller.app.stopping`)."""
    if command_word(argv) != "run":
        return lambda: None
    from controller.app import stopping

    return stopping.hold()


def _main(argv: list[str] | None) -> int:
    parser = build_parser(modules_for(Parser.argv))
    args = parser.parse_args(argv)
    if getattr(args, "top_lang", None) and getattr(args, "lang", None) is None:
        args.lang = args.top_lang   # buzzer --lang en run: as buzzer run --lang en
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


if __name__ == "__main__":
    sys.exit(main())
