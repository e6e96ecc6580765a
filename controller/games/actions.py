"""Host actions, each declared once: its rule, its parameters, whether it is destructive, when it applies.

A game declares its host actions as :class:`Action` values (:attr:`controller.games.base.Game.actions`,
built with :func:`declare` from the game's rules and a :class:`Spec` per action that needs
more than a plain rule); the program's own actions (help, quit, new game …) are declared
the same way in :mod:`controller.inputs.keys`.  Everything else is derived from these
declarations and from nothing else:

* the host page's buttons and forms (:func:`controller.screens.viewmodel.web_actions`
  sends each action's :meth:`Param.form` fields; the page builds its inputs from them);
* the web server's check of a host action (:func:`check` through
  :func:`controller.web.server.parse_action`: a field's JSON type and its bounds);
* the scripted session's check of a host line (:mod:`controller.sessions.script`: which
  fields an action takes and their JSON types);
* the key help's and the page's label: the catalog key ``action_<name>``
  (:func:`controller.i18n.action_label`), or the action's own ``label``;
* whether its key asks for a second press (``ask``: :meth:`controller.games.base.Game.confirm`);
* what a host notice depends on (:attr:`controller.games.base.Game.notices`, read by
  :mod:`controller.screens.notices`).

An action name means the same in every game that has it: two games may declare different
parameters for it, but a parameter both declare has the same kind and bounds
(:func:`merge` refuses anything else; tests/test_actions.py merges every game's).

Pure: no I/O; imports nothing of the shell.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

KINDS: dict[str, tuple[type, ...]] = {
    "member": (int, str),      # a team or a seat: its 1-based number (a host page), name or button
    "number": (int,),          # a whole number (a round, a cell, a question's number)
    "real": (int, float),      # points, seconds
    "text": (str,),
    "player": (int, str),      # a player of a team's roster: his number or his name
    "question": (int, str),    # a question: its number, "tour.question" or "s2"
    "result": (bool, int, float, str),   # right or not: true, 1, "+", "да" …
    "list": (list,),           # several teams or seats (scripts and the keypad only)
    "table": (list, dict),     # results of several teams
    "digit": (int, str),       # one typed digit (the keypad)
}
"""Each kind of parameter and the JSON types its values may have."""

SEVERAL = frozenset({"list", "table"})
"""The kinds that hold several values: a scripted session's, never a host page's."""

FORM_KINDS = frozenset({"member", "number", "real", "text", "player"})
"""The kinds a host page's form can ask for (one input each)."""

MAX_TEXT = 200
"""The longest text of any parameter a host page sends (a parameter may declare less)."""

MAX_NUMBER = 1e9
"""The largest magnitude of a number a host page sends (a parameter may declare less)."""


@dataclass(frozen=True)
class Param:
    """One parameter of a host action: the JSON field ``name`` of a ``kind`` (:data:`KINDS`).

    ``required``: the rule needs it; ``form``: a host page asks for it before sending the
    action (the action becomes a small form); ``minimum``/``maximum`` bound a number and
    ``max_len`` a text, for a host page and the web server alike (the rule itself may
    refuse more: a name taken by another team)."""

    name: str
    kind: str
    required: bool = False
    form: bool = False
    minimum: float | None = None
    maximum: float | None = None
    max_len: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"parameter {self.name!r}: unknown kind {self.kind!r}; kinds: {', '.join(KINDS)}")
        if self.form and self.kind not in FORM_KINDS:
            raise ValueError(f"parameter {self.name!r}: a form cannot ask for a {self.kind}")

    @property
    def types(self) -> tuple[type, ...]:
        return KINDS[self.kind]

    def type_ok(self, value: Any) -> bool:
        """Whether ``value`` has one of the JSON types of the kind (true is no number)."""
        return isinstance(value, self.types) and not (isinstance(value, bool) and bool not in self.types)

    def problem(self, value: Any) -> str | None:
        """Why a host page's ``value`` is not taken (a short phrase), or None."""
        if not self.type_ok(value):
            return "wrong type"
        if isinstance(value, str) and len(value) > (self.max_len or MAX_TEXT):
            return f"longer than {self.max_len or MAX_TEXT} characters"
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if not -MAX_NUMBER < value < MAX_NUMBER:
                return "out of range"
            if self.minimum is not None and value < self.minimum:
                return f"below {self.minimum:g}"
            if self.maximum is not None and value > self.maximum:
                return f"above {self.maximum:g}"
        return None

    def as_form(self) -> dict:
        """The field as a host page's form gets it (docs/web.md)."""
        out: dict[str, Any] = {"name": self.name, "kind": self.kind, "required": self.required}
        if self.minimum is not None:
            out["min"] = self.minimum
        if self.maximum is not None:
            out["max"] = self.maximum
        if self.max_len is not None:
            out["max_len"] = self.max_len
        return out

    def same_contract(self, other: "Param") -> bool:
        """Whether two declarations of one parameter agree on its kind and bounds."""
        return (self.kind, self.minimum, self.maximum, self.max_len) == \
               (other.kind, other.minimum, other.maximum, other.max_len)


@dataclass(frozen=True)
class Spec:
    """What an action declares besides its rule (see :class:`Action`)."""

    params: tuple[Param, ...] = ()
    destructive: bool = False
    applies: Callable[[Any], bool] | None = None
    ask: str | None = None
    label: str | None = None
    dialogue: str | None = None


@dataclass(frozen=True)
class Action:
    """One host action, declared once.

    :param name: the action's name (keys, scripts, ``POST /api/host``)
    :param rule: the game's handler ``(state, Host, effects) -> state`` (None: the program's own)
    :param params: its parameters
    :param destructive: it ends a stage of the game (a round, a fight, the game) or cannot be
        taken back with a tap: a host page asks for a second tap before it sends it
    :param applies: when the game takes it (None: always): ``applies(state)``
    :param ask: it ends the game (or a stage) at once from one key: the notice (catalog key)
        with which its key asks for a second press, as F4 does; the key then acts only when
        pressed again within a few seconds (:meth:`controller.games.base.Game.confirm`; a host
        page's second tap is ``destructive``'s)
    :param label: the catalog key of its label where the game names it otherwise than
        ``action_<name>`` (a «Мафия» seat's rename: «Переименовать игрока»)
    :param dialogue: its key with no parameters opens this host dialogue of the shell, which
        types them and sends the action (``"lineup"``: team, round, player as three digits;
        controller/app/dialogues.py); a web page or a script sends the parameters themselves
    """

    name: str
    rule: Callable | None = None
    params: tuple[Param, ...] = ()
    destructive: bool = False
    applies: Callable[[Any], bool] | None = None
    ask: str | None = None
    label: str | None = None
    dialogue: str | None = None

    def __post_init__(self) -> None:
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ValueError(f"action {self.name!r} declares a parameter twice")

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def form(self) -> list[dict]:
        """The fields a host page asks for before sending it ([]: a plain button)."""
        return [p.as_form() for p in self.params if p.form]


def declare(rules: Mapping[str, Callable], specs: Mapping[str, Spec] | None = None) -> tuple[Action, ...]:
    """A game's actions, in its rules' order: each rule with its :class:`Spec` (or none).
    A spec without a rule is a mistake (ValueError)."""
    specs = dict(specs or {})
    orphans = sorted(set(specs) - set(rules))
    if orphans:
        raise ValueError(f"declared actions without a rule: {', '.join(orphans)}")
    plain = Spec()
    out = []
    for name, rule in rules.items():
        s = specs.get(name, plain)
        out.append(Action(name, rule, s.params, s.destructive, s.applies, s.ask, s.label, s.dialogue))
    return tuple(out)


def rules(actions: Iterable[Action]) -> dict[str, Callable]:
    """Action name -> rule."""
    return {a.name: a.rule for a in actions}


def merge(groups: Iterable[Iterable[Action]]) -> dict[str, Action]:
    """One declaration per action name across several games: the union of their parameters
    (a parameter as the first declaration has it), destructive where any says so.
    Two declarations of one parameter with another kind or other bounds: ValueError."""
    out: dict[str, Action] = {}
    for group in groups:
        for a in group:
            have = out.get(a.name)
            if have is None:
                out[a.name] = Action(a.name, None, a.params, a.destructive)
                continue
            params = list(have.params)
            for p in a.params:
                q = have.param(p.name)
                if q is None:
                    params.append(p)
                elif not q.same_contract(p):
                    raise ValueError(f"action {a.name!r}: parameter {p.name!r} is declared twice differently")
            out[a.name] = Action(a.name, None, tuple(params), have.destructive or a.destructive)
    return out


def check(action: Action | None, fields: Mapping[str, Any]) -> str | None:
    """Why ``fields`` of a host action from a host page are not taken (a short phrase naming
    the field), or None.  ``action``: its merged declaration (None: no game declares it)."""
    for k, v in fields.items():
        p = action.param(k) if action is not None else None
        if p is None:
            return f"unknown field {k[:40]!r}"
        if p.kind in SEVERAL:
            return f"{k}: several values are not taken from a host page"
        why = p.problem(v)
        if why:
            return f"{k}: {why}"
    return None


def merge_scopes(groups: Iterable[Mapping[str, str]]) -> dict[str, str]:
    """Notice key -> the part of the game it describes (``Game.notices``, the program's own)
    across several games; one key with two scopes is a ValueError."""
    out: dict[str, str] = {}
    for group in groups:
        for key, scope in group.items():
            if out.setdefault(key, scope) != scope:
                raise ValueError(f"notice {key!r} depends on {out[key]!r} and on {scope!r}")
    return out
