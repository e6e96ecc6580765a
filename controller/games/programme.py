"""A programme: several games in a row with running totals.

``[[programme.rounds]]`` lists the rounds, each with its own ``mode``
(erudite, own-game, brain-ring, chgk), ``title`` and ``settings`` (config keys
of that round on top of the whole config, e.g. its own ``teams``).  The
programme runs one round at a time through that mode's own engine and passes
every event to it; ``next_game`` (always) or ``next_round`` (when the round's
mode has no ``next_round`` of its own, or its game is finished) moves on.
Totals add each round's ``summary()["scores"]`` by team name, so a team that
plays in several rounds is one line of the totals however its buttons change.

Pure like every engine module: the round configs are built (validated) once
in :func:`initial`, and each round's seed is derived from the programme's
seed, so a replay repeats every tie draw and random pause.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from controller.games import catalog as games
from controller.core import configs
from controller.core.effects import Flash
from controller.core.errors import ConfigError, GameError
from controller.i18n import Text
from controller.core.events import Host, Tick
from controller.core.schema import Key, Section, _show
from controller.games import race as b
from controller.games.actions import Spec, declare
from controller.games.base import Game, ShellExtras
from controller.core.plugins import Plugin

MODE = "programme"

MOVE_ON = ("next_game", "next_round")


def _programme_rounds(v):
    playable = [name for name in games.names() if games.get(name).in_programme]
    for i, r in enumerate(v):
        unknown = sorted(set(r) - {"mode", "title", "settings"})
        if unknown:
            return _at(i, unknown[0], Text("config.team_unknown_key", allowed="mode, title, settings"))
        if r.get("mode") not in playable:
            return _at(i, "mode", Text("config.one_of", choices=", ".join(playable), value=_show(r.get("mode"))))
        if not isinstance(r.get("title", ""), str):
            return _at(i, "title", Text("config.expected_str", value=_show(r.get("title"))))
        if not isinstance(r.get("settings", {}), dict):
            return _at(i, "settings", Text("config.expected_dict", value=_show(r.get("settings"))))
    return None


def _at(i: int, key: str, problem: Text) -> Text:
    """``problem`` of the key ``key`` of round ``i``: ``[0].mode: must be one of …``."""
    return Text("config.at_item", item=f"[{i}].{key}", problem=problem)


SECTION = Section("programme", "A programme of rounds, each its own game, with running totals (teams "
        "matched by name).", (
    Key("rounds", "list", [], "Rounds in order: tables with mode (erudite, own-game, brain-ring, "
        "chgk), title and settings (config keys of that round, e.g. { own_game = { "
        "press_window_s = 4.0 } } or a teams list).", items="dict",
        check=lambda v: _programme_rounds(v)),
))
"""A programme's settings: the ``[programme]`` section of the config."""


def round_configs(cfg: dict) -> list[dict]:
    """The validated config of each programme round: the whole config, the round's mode and
    settings on top.  Pure (no I/O); a problem names the round's key."""
    out = []
    for i, r in enumerate(cfg.get("programme", {}).get("rounds", [])):
        data = dict(r.get("settings", {}))
        data["mode"] = r["mode"]
        try:
            out.append(configs.build(data, cfg))
        except ConfigError as exc:
            raise ConfigError(f"programme.rounds[{i}].settings.{exc.key}", exc.problem) from None
    return out


@dataclass(frozen=True, slots=True)
class Round:
    mode: str
    title: str
    config: dict


@dataclass(frozen=True, slots=True)
class State:
    rounds: tuple[Round, ...]
    seed: int
    index: int = 0
    game: Any = None                     # the current round's own state
    done: tuple[dict, ...] = ()          # summaries of the finished rounds
    now: int = 0
    stage: str = "play"                  # play | finished
    renames: tuple[tuple[str, str], ...] = ()   # (a name a team had, the name it has now)

    @property
    def entry(self) -> str:
        """What the host's number keys typed in the current round's game (ЧГК's team number, a
        package's cell), echoed to the host as when that game is played alone."""
        return getattr(self.game, "entry", "") if self.stage == "play" else ""

    @property
    def entry_label(self):
        """The current round's game's words for what the number keys type (False: it has none
        of its own, the loop echoes «№ …»), as when that game is played alone."""
        return getattr(self.game, "entry_label", False) if self.stage == "play" else False


def _module(mode: str) -> Game:
    return games.get(mode)


def round_seed(seed: int, index: int) -> int:
    return seed * 1000 + index


def initial(config: dict, seed: int) -> State:
    rounds = tuple(Round(r["mode"], r.get("title") or f"{i + 1}", c) for i, (r, c) in
                   enumerate(zip(config["programme"]["rounds"], round_configs(config))))
    if not rounds:
        raise GameError("the programme has no rounds ([[programme.rounds]])")
    first = _module(rounds[0].mode).initial(rounds[0].config, round_seed(seed, 0))
    return State(rounds=rounds, seed=seed, game=first)


def _current(s: State) -> Game:
    return _module(s.rounds[s.index].mode)


def current_name(s: State, name: str) -> str:
    """The name a team plays under now: a team renamed in some round keeps its new
    name in the totals of the rounds before and in the rounds after."""
    return dict(s.renames).get(name, name)


def totals(s: State) -> dict[str, int | float]:
    """Running totals by team name (the current one): every finished round plus the current one."""
    out: dict[str, int | float] = {}
    parts = [d["scores"] for d in s.done]
    if s.stage == "play":
        parts.append(_current(s).summary(s.game)["scores"])
    for scores in parts:
        for name, pts in scores.items():
            name = current_name(s, name)
            out[name] = out.get(name, 0) + pts
    return out


def _renamed_teams(s: State, game: Any) -> Any:
    """A round's fresh state with the names its teams have now (teams renamed in an earlier round)."""
    if not s.renames:
        return game
    return replace(game, teams=tuple(replace(t, name=current_name(s, t.name)) for t in game.teams))


def _rename(s: State, h: Host, fx: list) -> State:
    """``rename`` in the current round, checked also against the teams of the other rounds
    (totals add up by name: a name another team of the programme has would merge the two)."""
    i = b.team_ref(s.game.teams, h.params)
    old = s.game.teams[i].name
    name = b.clean_name(h.params.get("name"))
    others = set(totals(s)) | {current_name(s, t["name"]) for r in s.rounds for t in r.config["teams"]}
    if b.name_problem(name, sorted(others - {old})) == "rename_taken":
        b.refuse(fx, h.at, "rename_taken", team=old, name=name, max=b.NAME_MAX)
        return s
    game, more = _current(s).step(s.game, h)
    fx += more
    new = game.teams[i].name
    if new == old:
        return replace(s, game=game)
    names = {k: (new if v == old else v) for k, v in s.renames}
    names[old] = new
    renames = tuple((k, v) for k, v in names.items() if k != v)
    return replace(s, game=game, renames=renames)


def standings(s: State) -> list[dict]:
    t = totals(s)
    names = list(t)
    return [{"place": place, "team": names[i], "points": t[names[i]],
             "tied": sum(1 for n in names if t[n] == t[names[i]]) > 1}
            for place, i in b.ranked(names, lambda i: -t[names[i]])]


def wakeup(s: State) -> int | None:
    return _current(s).wakeup(s.game) if s.stage == "play" else None


def _round_summary(s: State) -> dict:
    r = s.rounds[s.index]
    return dict(_current(s).summary(s.game), round=s.index + 1, title=r.title)


def _move_on(s: State, h: Host, fx: list) -> State:
    if s.stage == "finished":
        b.refuse(fx, h.at, "game_over")
        return s
    # let the round fire its due deadlines first
    game, more = _current(s).step(s.game, Tick(h.at))
    fx += more
    s = replace(s, game=game)
    done = s.done + (_round_summary(s),)
    b.log(fx, h.at, "round_over", round=s.index + 1, title=s.rounds[s.index].title,
          scores=done[-1]["scores"])
    if s.index + 1 >= len(s.rounds):
        s = replace(s, done=done, stage="finished")
        fx.append(Flash("standings"))
        b.log(fx, h.at, "game_over", totals=totals(s))
        return s
    i = s.index + 1
    r = s.rounds[i]
    game = _renamed_teams(s, _module(r.mode).initial(r.config, round_seed(s.seed, i)))
    s = replace(s, index=i, game=game, done=done)
    b.log(fx, h.at, "round", round=i + 1, title=r.title, mode=r.mode, totals=totals(s))
    return s


def _moves_on(s: State, h: Host) -> bool:
    if h.action == "next_game":
        return True
    if h.action != "next_round":
        return False
    mod = _current(s)
    return "next_round" not in mod.host_actions or mod.view(s.game)["stage"] == "finished"


def step(s: State, event) -> tuple[State, list]:
    fx: list = []
    s = replace(s, now=max(s.now, event.now))
    if isinstance(event, Host) and _moves_on(s, event):
        return _move_on(s, replace(event, at=max(event.at, s.now)), fx), fx
    if s.stage == "finished":
        if isinstance(event, Host):
            b.refuse(fx, event.at, "game_over")
        return s, fx
    if isinstance(event, Host) and event.action == "rename":
        return _rename(s, replace(event, at=max(event.at, s.now)), fx), fx
    if isinstance(event, Host) and event.action not in _current(s).host_actions:
        raise GameError(Text("script.unknown_action_round", action=repr(event.action), round=s.index + 1,
                             mode=s.rounds[s.index].mode, known=", ".join(host_actions(s))))
    game, fx = _current(s).step(s.game, event)
    return replace(s, game=game), fx


def next_game_keys(s: State, layers: list) -> list[str]:
    """The next-round keys (R) that move on to the next game now: all of them once the round's
    game is finished; before, those its own key maps leave to ``next_round`` when its mode has
    no ``next_round`` of its own (ЧГК, Своя игра); none where they are its own (Эрудит-квартет's
    next round, Брейн-ринг's next fight, a package's next round), as when it is played alone."""
    names = list(s.rounds[s.index].config["keys"].get("next_round", []))
    mod = _current(s)
    if mod.finished(s.game):
        return names
    if "next_round" in mod.host_actions:
        return []
    owner = {n.lower(): action for layer in layers for action, keys in layer.items() for n in keys}
    return [n for n in names if owner.get(n.lower()) == "next_round"]


def host_actions(s: State) -> list[str]:
    """What the host may do now: the current round's actions plus moving on."""
    return list(_current(s).host_actions) + [a for a in MOVE_ON if a not in _current(s).host_actions]


HOST_ACTIONS = {"next_game": _move_on, "next_round": _move_on}
"""The programme's own actions; every other action goes to the current round's mode."""

ACTIONS = declare(HOST_ACTIONS, {"next_game": Spec(destructive=True), "next_round": Spec(destructive=True)})
"""The declarations of :data:`HOST_ACTIONS` (controller/games/actions.py)."""


def view(s: State, now: int | None = None) -> dict:
    """The current round's view, plus ``series`` (which game of how many, the running totals);
    each team (player) carries its running total as ``series_total``; once the programme is
    finished its ``standings`` are the programme's totals, every game's points added up."""
    inner = _current(s).view(s.game, now)
    tot = totals(s)
    out = dict(inner, series={
        "round": s.index + 1, "rounds": len(s.rounds), "title": s.rounds[s.index].title,
        "mode": s.rounds[s.index].mode, "titles": [r.title for r in s.rounds],
        "totals": tot, "standings": standings(s), "finished": s.stage == "finished"},
        stage=inner["stage"] if s.stage == "play" else "finished")
    for key in ("teams", "players"):
        if isinstance(inner.get(key), list):
            out[key] = [dict(tm, series_total=tot.get(current_name(s, tm.get("name")), 0))
                        if isinstance(tm, dict) and "name" in tm else tm for tm in inner[key]]
    if s.stage == "finished":
        out["standings"] = standings(s)
        out.pop("standings_columns", None)   # the totals' rows are points, whatever the last game's were
    return out


def summary(s: State) -> dict:
    rounds = list(s.done) + ([_round_summary(s)] if s.stage == "play" else [])
    questions = [dict(q, round=r["round"]) for r in rounds for q in r.get("questions", [])]
    return {"mode": MODE, "seed": s.seed, "stage": s.stage, "round": s.index + 1,
            "scores": totals(s), "standings": standings(s), "rounds": rounds, "questions": questions}


# ---------------------------------------------------------------------------
# the game object

class Programme(Game):
    """A programme: several games in a row, each round its own game, with running totals."""

    name = MODE
    title_key = "mode_programme"
    sections = (SECTION,)
    host_actions = HOST_ACTIONS
    actions = ACTIONS
    initial = staticmethod(initial)
    step = staticmethod(step)
    wakeup = staticmethod(wakeup)
    view = staticmethod(view)

    def screen(self, view):
        """The current round's game draws its own view (the series' parts are in it)."""
        return games.screen_of(view)

    summary = staticmethod(summary)

    def actions_now(self, state: State) -> tuple[str, ...]:
        return tuple(host_actions(state))

    def declared(self, state: State):
        return {**_current(state).declared(state.game), **{a.name: a for a in ACTIONS}}

    def key_layers_now(self, state: State, cfg: dict, program_keys) -> list:
        """The current round's game's keys, as when it is played alone (ЧГК's team numbers and
        marks, a package's cells ...), with the next-round keys that move on to the next game
        (:func:`next_game_keys`) on top; once the programme is finished, ``[keys]``."""
        if state.stage != "play":
            return self.key_layers(cfg, program_keys)
        layers = list(_current(state).key_layers_now(state.game, state.rounds[state.index].config, program_keys))
        return layers + [{"next_game": next_game_keys(state, layers)}]

    def known_actions_now(self, state: State, cfg: dict) -> set[str]:
        if state.stage != "play":
            return set()
        return _current(state).known_actions_now(state.game, state.rounds[state.index].config) | set(MOVE_ON)

    def playing(self, state: State) -> Game:
        return _current(state) if state.stage == "play" else self

    def key_action(self, state: State, action: str) -> str:
        """As the round's game's; ``next_round`` where it moves on (the round's mode has no next
        round of its own, or its game is finished) stands for ``next_game``: one move, not two."""
        if state.stage != "play":
            return action
        if action != "next_game" and _moves_on(state, Host(action, 0, {})):
            return "next_game"
        return _current(state).key_action(state.game, action)

    def confirm(self, state: State, action: str) -> tuple[str, dict] | None:
        """Moving on to the next game (or to the programme's totals) ends the game on: a key asks
        twice; any other action asks as in the round's own game (a fight ended with no winner)."""
        if state.stage != "play":
            return None
        if not _moves_on(state, Host(action, 0, {})):
            return _current(state).confirm(state.game, action)
        now = {"n": state.index + 1, "title": state.rounds[state.index].title}
        if state.index + 1 >= len(state.rounds):
            return "confirm_programme_end", now
        return "confirm_next_game", dict(now, next=state.index + 2, of=len(state.rounds),
                                         next_title=state.rounds[state.index + 1].title)

    def finished(self, state: State) -> bool:
        return state.stage == "finished"

    def known_actions(self, cfg: dict) -> set[str]:
        rounds = {r["mode"] for r in cfg["programme"]["rounds"]}
        return set(self.host_actions).union(*(games.get(m).known_actions(cfg) for m in rounds))

    def check_config(self, cfg: dict) -> None:
        if not cfg["programme"]["rounds"]:
            raise ConfigError("programme.rounds", Text("config.programme_empty"))
        round_configs(cfg)

    def script_buttons(self, cfg: dict) -> set[str] | None:
        return None   # each round may have its own teams: the round's game checks its presses

    def describe(self, cfg: dict) -> list[tuple[str, int]]:
        return [("check.rounds_n", len(cfg["programme"]["rounds"]))]


GAME = Programme()


# ---------------------------------------------------------------------------
# the impure part: the current round's game's own (ЧГК's jury CSV)

class _RoundShell:
    """The shell as a round's extras see it: the round's config and state, the rest the loop's."""

    def __init__(self, shell, state: State):
        self._shell = shell
        self.cfg = state.rounds[state.index].config
        self.state = state.game

    def __getattr__(self, name: str):
        return getattr(self._shell, name)


class ProgrammeExtras(ShellExtras):
    """Each round's game's impure part, run while that round is played, with the round's config:
    the ``import_results`` key of a ЧГК round reads the jury's CSV as in a ЧГК alone."""

    actions = tuple(dict.fromkeys(a for name in games.names() if games.get(name).in_programme
                                  for a in games.extras_actions(name)))

    def __init__(self) -> None:
        self._rounds: dict[int, ShellExtras] = {}   # round index -> its game's extras

    def _current(self, state: State) -> ShellExtras | None:
        if state.stage != "play":
            return None
        extras = self._rounds.get(state.index)
        if extras is None:
            extras = self._rounds[state.index] = games.extras(state.rounds[state.index].mode)
        return extras

    def takes(self, state: State, action: str) -> bool:
        extras = self._current(state)
        return extras is not None and extras.takes(state.game, action)

    def act(self, shell, action: str, now: int) -> None:
        self._current(shell.state).act(_RoundShell(shell, shell.state), action, now)

    def after_step(self, shell) -> None:
        extras = self._current(shell.state)
        if extras is not None and type(extras).after_step is not ShellExtras.after_step:
            extras.after_step(_RoundShell(shell, shell.state))


EXTRAS = ProgrammeExtras

PLUGIN = Plugin(MODE, "controller.games.programme:GAME", "controller.games.programme:GAME.sections",
                extras="controller.games.programme:EXTRAS")
"""The programme in the registry of games (controller/games/__init__.py)."""
