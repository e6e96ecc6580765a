"""The one interface every game implements.

A game is one object, a subclass of :class:`Game` (in the spirit of
python-chess's variants and gpiozero's ``Pin``: a small base with the hooks a
game must and may override).  It declares everything the shell needs to know
(its name in config, its title, its settings schema, its host actions, what
its digit keys type, whether buttons play) and carries its rules as pure
functions: events in, new state and effects out.  The shell (the loop, the
screens, the command line) talks to games only through this class and never
names one.

What a game does that is not pure (the «Мафия» protocol written to a file,
ЧГК's results read from the jury's CSV) lives beside it as
:class:`ShellExtras`, created by the shell for each game it runs, so the game
module itself stays free of I/O (``tests/test_engine.py`` checks that).

The registry that maps config names to games is :mod:`controller.games` (each game declares
itself there with a ``PLUGIN`` in its own module).
"""

from __future__ import annotations

from typing import Any, Callable, ClassVar, Mapping, Protocol

from controller.core.schema import Section
from controller.core.screen import Screen
from controller.games import present as _present
from controller.games.actions import Action

PROGRAM_DECLARATIONS: tuple[Action, ...] = (
    Action("help"), Action("quit", destructive=True), Action("mute"), Action("new_game", destructive=True),
    Action("new_token"), Action("host_link"),
)
"""The program's own host actions (the loop carries them out, in every game), declared as a
game declares its own (controller/games/actions.py)."""

PROGRAM_ACTIONS = tuple(a.name for a in PROGRAM_DECLARATIONS)
"""Their names: the program's own host actions, on ``[keys]`` in every game (a game's own key map may not
take their keys: config.py checks it; :class:`controller.inputs.keys.HostKeys` keeps them)."""

LOOP_ACTIONS = ("rename",)
"""Host actions the loop runs a dialogue for, on ``[keys]`` in every game too."""


class Game:
    """A game: its declarations (class attributes) and its rules (the hooks).

    Must override: :meth:`initial`, :meth:`step`, :meth:`wakeup`, :meth:`view`,
    :meth:`summary`, and set :attr:`name`, :attr:`title_key`, :attr:`host_actions`,
    :attr:`actions` (``actions.declare(HOST_ACTIONS, SPECS)``).
    May override the rest; the defaults fit a game of teams with buttons.
    """

    name: ClassVar[str] = ""
    """The game's name in config (``mode = "erudite"``)."""

    title_key: ClassVar[str] = ""
    """Catalog key of the game's title («Эрудит-квартет»)."""

    sections: ClassVar[tuple[Section, ...]] = ()
    """The game's settings schema: the config sections it owns, with defaults and limits."""

    host_actions: ClassVar[Mapping[str, Callable]] = {}
    """Every host action the game takes (action name -> its rule): the rules of :attr:`actions`."""

    actions: ClassVar[tuple[Action, ...]] = ()
    """Every host action the game takes, declared once (:mod:`controller.games.actions`): its
    rule, its parameters, whether it is destructive, when it applies.  The host page's forms,
    the web server's and the scripted session's checks are derived from it."""

    notices: ClassVar[Mapping[str, str]] = {}
    """What the game's host notices describe: notice key -> the part of the game
    (:data:`controller.screens.notices.SCOPES`); the notice leaves once that part changes.
    Keys not named here leave after a few seconds."""

    buttons_play: ClassVar[bool] = True
    """Players' buttons take part (False: the host types seat or team numbers instead).
    A scripted session's ``press`` lines and the team keys in the help follow it."""

    digit_action: ClassVar[str] = "team_number"
    """What the digit keys type, as one row of the key help."""

    members: ClassVar[str] = "team"
    """What a rename picks and its parameter name: ``team`` or ``seat``."""

    in_programme: ClassVar[bool] = False
    """The game may be a round of a programme."""

    event_file: ClassVar[Any] = None
    """What the game reads from the organiser's event file: the keys of its ``[[games]]``
    table and their checks (a :class:`~controller.games.event_plan.Plan`); None: an event
    file cannot name the game."""

    package_section: ClassVar[str] = ""
    """The config section holding the SIGame package the game plays (``pack``, ``package``,
    its size limits: controller/content/packs.py reads and writes it); "" for a game that
    plays none."""

    # -- the rules (pure) ------------------------------------------------------
    def initial(self, config: dict, seed: int) -> Any:
        """The state of a new game described by ``config``."""
        raise NotImplementedError

    def step(self, state: Any, event: Any) -> tuple[Any, list]:
        """Apply one event: the new state and the effects."""
        raise NotImplementedError

    def wakeup(self, state: Any) -> int | None:
        """Engine time at which the state next needs a Tick, or None."""
        raise NotImplementedError

    def view(self, state: Any, now: int | None = None) -> dict:
        """What the screens show: a plain, JSON-ready value.  Host-only data goes under
        the key ``"host"`` (the view model keeps it off the audience's screens)."""
        raise NotImplementedError

    def summary(self, state: Any) -> dict:
        """The game's result as ``buzzer simulate`` prints it."""
        raise NotImplementedError

    def present(self, state: Any, now: int | None = None) -> Screen:
        """What every screen draws, as typed widgets (:mod:`controller.core.screen`): the
        screen of :meth:`view` (:meth:`screen`)."""
        return self.screen(self.view(state, now))

    def screen(self, view: Mapping[str, Any]) -> Screen:
        """The typed screen of one of this game's views.  The default reads the view of a
        game of teams and buttons (:func:`controller.games.present.screen_of`); a game whose
        screen is of another shape overrides it."""
        return _present.screen_of(view, self.title_key if view.get("mode") == self.name else None)

    def actions_now(self, state: Any) -> tuple[str, ...]:
        """The host actions the game takes now (a programme: its current round's game):
        those of :meth:`declared` that apply."""
        return tuple(a.name for a in self.declared(state).values() if a.applies is None or a.applies(state))

    def declared(self, state: Any) -> Mapping[str, Action]:
        """The declarations of the actions in force in ``state`` (a programme: its current
        round's game's and its own), by name."""
        return {a.name: a for a in self.actions}

    def key_action(self, state: Any, action: str) -> str:
        """The action a host key stands for now: the pause key resumes a paused clock."""
        if action == "pause" and getattr(state, "paused", False):
            return "resume"
        return action

    def confirm(self, state: Any, action: str) -> tuple[str, dict] | None:
        """When the host key for ``action`` ends a stage of the game early (a game of a
        programme, a fight with no winner): the notice that asks for a second press, as
        (catalog key, its params); the key then acts only when pressed again within a few
        seconds, as the quit key (a host page asks for its second tap itself).  None: at once.
        By default: the notice its declaration asks with (``Action.ask``), while the game is on."""
        declared = self.declared(state).get(action)
        if declared is None or declared.ask is None or self.finished(state):
            return None
        return declared.ask, {}

    def finished(self, state: Any) -> bool:
        """True once the game is over."""
        return getattr(state, "stage", None) == "finished" or getattr(state, "phase", None) == "ended"

    # -- what the shell asks -----------------------------------------------------
    def check_settings(self, cfg: dict) -> None:
        """Rules between the keys of the game's own sections, checked in every config
        whatever it plays; raise :class:`~controller.core.errors.ConfigError` naming the key."""

    def check_config(self, cfg: dict) -> None:
        """What the game needs of the whole config when it is played (team counts …);
        raise :class:`~controller.core.errors.ConfigError` naming the key."""

    def default_teams(self, cfg: dict, built_in: bool) -> list[dict]:
        """The teams to play when the config names none (``built_in``: ``cfg["teams"]``
        are the program's built-in four)."""
        return cfg["teams"]

    def key_layers(self, cfg: dict, program_keys: Mapping[str, list]) -> list[Mapping[str, list]]:
        """The host key maps (action -> key names) in force, later layers on top.
        ``program_keys`` are the program's own keys (help, quit …) from ``[keys]``."""
        return [cfg["keys"]]

    def key_layers_now(self, state: Any, cfg: dict, program_keys: Mapping[str, list]) -> list[Mapping[str, list]]:
        """The host key maps in force in ``state``, later layers on top: the loop reads the host's
        keys (and the key help lists them) from these.  By default :meth:`key_layers`, the same
        all game long; a programme's follow its current round's game."""
        return self.key_layers(cfg, program_keys)

    def known_actions(self, cfg: dict) -> set[str]:
        """Every host action this game may take in a game configured by ``cfg``."""
        return set(self.host_actions)

    def known_actions_now(self, state: Any, cfg: dict) -> set[str]:
        """The host actions the key help may list in ``state`` (by default :meth:`known_actions`;
        a programme: its current round's game's and its own)."""
        return self.known_actions(cfg)

    def playing(self, state: Any) -> "Game":
        """The game whose rules are in force in ``state``: this one (a programme: its current
        round's game).  What the digit keys type (:attr:`digit_action`) and whether the players'
        buttons play (:attr:`buttons_play`) are read from it for the key help."""
        return self

    def script_buttons(self, cfg: dict) -> set[str] | None:
        """The buttons a scripted session's presses may name (None: not checked here)."""
        return {t["button"] for t in cfg["teams"]} if self.buttons_play else None

    def describe(self, cfg: dict) -> list[tuple[str, int]]:
        """Who plays, for ``buzzer check-config``: counted phrases as (catalog key, count)
        pairs, put in words in the config's language (``[("check.teams_n", 4)]``: «4 команды»)."""
        return [("check.teams_n", len(cfg["teams"]))]


class Shell(Protocol):
    """What the shell offers a game's :class:`ShellExtras` (the loop implements it)."""

    cfg: dict
    state: Any
    games_started: int
    """Games started with the new-game key since the program started (0: the first)."""

    def say(self, key: str, /, **params: Any) -> None: ...

    def say_text(self, text: str) -> None: ...

    def enqueue(self, event: Any) -> None: ...

    def members_now(self) -> list[dict]: ...


class ShellExtras:
    """The impure part of a game, run by the shell around the pure rules: host
    actions that read files, a protocol written when the game ends.  One object per
    game the shell runs (it may keep what it wrote)."""

    actions: ClassVar[tuple[str, ...]] = ()
    """Host actions carried out here (the shell calls :meth:`act`)."""

    def takes(self, state: Any, action: str) -> bool:
        """Whether :meth:`act` carries out ``action`` (one of :attr:`actions`) in ``state``; when
        not, the key is one of another game (a programme's other round) and the shell says so."""
        return action in self.actions

    def act(self, shell: Shell, action: str, now: int) -> None:
        """Carry out one of :attr:`actions`."""

    def after_step(self, shell: Shell) -> None:
        """Called after every event the game took (e.g. to keep a protocol up to date)."""

    @classmethod
    def competition_table(cls, competition: str, summaries: list[tuple[str, dict]], cfg: dict,
                          fmt: str, lang: str) -> str | None:
        """A table across the finished games of one competition (``summaries``: (hall,
        summary) of each), as ``fmt`` (``csv`` or ``json``) text, or None when the game
        has none (a festival's export writes it beside each game's own table)."""
        return None
