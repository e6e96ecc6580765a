"""The typed error hierarchy of buzzer-controller.

Every error a user can cause (a bad config, a malformed script, a missing
device) is a :class:`BuzzerError`; the command line prints its message as one
line and exits with code 2 instead of showing a traceback.
"""


class BuzzerError(Exception):
    """Base class of every error this package raises on purpose."""

    exit_code = 2


class ConfigError(BuzzerError):
    """A configuration file or a settings override is invalid.

    The message always names the offending key, e.g.
    ``erudite.think_time_s: expected a number > 0, got "seven"``.
    """

    def __init__(self, key: str, problem: str, source: str | None = None):
        self.key = key
        self.problem = problem
        self.source = source
        where = f"{source}: " if source else ""
        super().__init__(f"{where}{key}: {problem}" if key else f"{where}{problem}")


class ScriptError(BuzzerError):
    """A scripted session (``buzzer simulate``) has a malformed line.

    ``line`` is None when the problem is the file itself (``game.jsonl: file
    not found``), never a made-up line number."""

    def __init__(self, line: int | None, problem: str, source: str | None = None):
        self.line = line
        self.problem = problem
        if line is None:  # the file as a whole: missing, a folder, not text
            super().__init__(f"{source}: {problem}" if source else problem)
            return
        where = f"{source}:" if source else "line "
        super().__init__(f"{where}{line}: {problem}")


class GameError(BuzzerError):
    """An event the engine cannot accept (e.g. an unknown host action)."""


class BackendError(BuzzerError):
    """A button backend could not be opened or used."""


class BackendUnavailable(BackendError):
    """The hardware a backend needs is not present on this machine."""


class JournalError(BuzzerError):
    """The on-disk journal cannot be read or written."""
