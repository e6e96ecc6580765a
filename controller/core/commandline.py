"""What a ``buzzer`` subcommand is: a :class:`Command` its own module declares, and the
helpers a command prints with (:func:`print_json`, :func:`command_name`).

A command lives beside what it serves (``buzzer pack`` in controller/content/packs.py,
``buzzer tournament`` with «Мафия»), declares itself here and imports nothing of the
``buzzer`` program above it; :mod:`controller.cli` names each declaration in its
:data:`~controller.cli.COMMANDS` (a :class:`~controller.core.plugins.Registry`, read as
import edges), so a command loads only its own module.  Adding a command: a
:class:`Command` in its module, a line in ``cli.COMMANDS``, its words in docs/cli.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Command:
    """One subcommand: its ``name`` (``buzzer NAME``), its one line of ``help`` (``buzzer
    --help``), ``arguments(parser)``, which adds its arguments (and its own subcommands) to its
    parser, and ``run(args)``, which does it and returns the exit code (``None``: the
    arguments set ``func`` themselves, as a command of subcommands does)."""

    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int] | None = None

    def add_to(self, sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
        """Add this command to ``buzzer``'s subcommands."""
        parser = sub.add_parser(self.name, help=self.help)
        self.arguments(parser)
        if self.run is not None:
            parser.set_defaults(func=self.run)
        return parser


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
