"""The typed error hierarchy of buzzer-controller.

Every error a user can cause (a bad config, a malformed script, a missing
device) is a :class:`BuzzerError`; the command line prints its message as one
line and exits with code 2 instead of showing a traceback.

A message may be a :class:`~controller.i18n.Text` (a catalog key and its
parameters): ``str(exc)`` is then the English text and :meth:`BuzzerError.words`
the text in the host's language, which the command line prints.
"""

from controller.i18n import DEFAULT_LANG, words as _words


class BuzzerError(Exception):
    """Base class of every error this package raises on purpose."""

    exit_code = 2

    def words(self, lang: str = DEFAULT_LANG) -> str:
        """The message in ``lang`` (English for a message that is not a catalog text)."""
        return str(_words(self.args[0], lang)) if len(self.args) == 1 else str(self)


class ConfigError(BuzzerError):
    """A configuration file or a settings override is invalid.

    The message always names the offending key, e.g.
    ``erudite.think_time_s: expected a number > 0, got "seven"``.
    """

    def __init__(self, key: str, problem: str, source: str | None = None):
        self.key = key
        self.problem = problem
        self.source = source
        super().__init__(self._line(str(problem)))

    def _line(self, problem: str) -> str:
        return located(self.source, self.key, problem)

    def words(self, lang: str = DEFAULT_LANG) -> str:
        return self._line(str(_words(self.problem, lang)))


def located(source: str | None, key: str | None, problem: str) -> str:
    """One error line: ``source: key: problem`` (either may be missing)."""
    where = f"{source}: " if source else ""
    return f"{where}{key}: {problem}" if key else f"{where}{problem}"


class ScriptError(BuzzerError):
    """A scripted session (``buzzer simulate``) has a malformed line.

    ``line`` is None when the problem is the file itself (``game.jsonl: file
    not found``), never a made-up line number."""

    def __init__(self, line: int | None, problem: str, source: str | None = None):
        self.line = line
        self.problem = problem
        self.source = source
        super().__init__(self._line(str(problem), "line "))

    def _line(self, problem: str, line_word: str) -> str:
        if self.line is None:  # the file as a whole: missing, a folder, not text
            return f"{self.source}: {problem}" if self.source else problem
        where = f"{self.source}:" if self.source else line_word
        return f"{where}{self.line}: {problem}"

    def words(self, lang: str = DEFAULT_LANG) -> str:
        from controller.i18n import t
        return self._line(str(_words(self.problem, lang)), t("script.line", lang) + " ")


class GameError(BuzzerError):
    """An event the engine cannot accept (e.g. an unknown host action)."""


class BackendError(BuzzerError):
    """A button backend could not be opened or used."""


class BackendUnavailable(BackendError):
    """The hardware a backend needs is not present on this machine."""


class WebUnavailable(BuzzerError):
    """The web pages cannot start and a team presses with its phone only: no game without them."""


class JournalError(BuzzerError):
    """The on-disk journal cannot be read or written."""
