"""Declared configuration keys: :class:`Key`, :class:`Section` and the check of one value.

The types :mod:`controller.app.config` builds its schema from; a game whose
section lives with the game (``controller.games.mafia.game.SECTION``) uses them too,
so the section has one set of defaults and limits that the config file and the
game's own settings both check against.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable

from controller.core.errors import ConfigError
from controller.i18n import Text

# --------------------------------------------------------------------------
# key types


@dataclass(frozen=True)
class Key:
    """One configuration key.

    ``kind`` is one of ``bool int float number str list dict`` (``number``
    takes int or float).  ``check`` returns a problem description or ``None``.
    """

    name: str
    kind: str
    default: Any
    doc: str
    choices: tuple | None = None
    minimum: float | None = None
    maximum: float | None = None
    items: str | None = None
    """For lists: the kind of each item."""
    check: Callable[[Any], str | None] | None = None
    source: str = "default"
    """Where the default comes from: ``seed §4.7``, ``practice`` or ``default``."""


@dataclass(frozen=True)
class Section:
    name: str
    doc: str
    keys: tuple[Key, ...]
    open_keys: bool = False
    """True when the section also takes keys not declared (e.g. key maps)."""
    open_kind: str | None = None


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


_KIND_OK = {
    "bool": lambda v: isinstance(v, bool),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float": _num,
    "number": _num,
    "str": lambda v: isinstance(v, str),
    "list": lambda v: isinstance(v, list),
    "dict": lambda v: isinstance(v, dict),
}

_KIND_WORD = {
    "bool": "true or false",
    "int": "a whole number",
    "float": "a number",
    "number": "a number",
    "str": "a string",
    "list": "a list",
    "dict": "a table",
}


NUMBER_LIMIT = 1_000_000
"""A number key with no range of its own must lie within -NUMBER_LIMIT..NUMBER_LIMIT
(a million seconds is eleven days; beyond it a time in ns or a pixel count means a typo).
Every number must be finite: NaN and infinities are refused (docs/config.md)."""


def _range_problem(key: Key, value: Any) -> str | None:
    """Why a number is out of ``key``'s range (its own, else the implicit one), or None."""
    if isinstance(value, float) and not math.isfinite(value):
        return Text("config.finite", value=_show(value))
    low = key.minimum if key.minimum is not None else -NUMBER_LIMIT
    high = key.maximum if key.maximum is not None else NUMBER_LIMIT
    if value < low:
        return Text("config.at_least", low=f"{low:g}", value=_show(value))
    if value > high:
        return Text("config.at_most", high=f"{high:g}", value=_show(value))
    return None


def expected(kind: str, value: Any) -> Text:
    """The problem of ``value`` not being of ``kind`` (``expected a whole number, got 'x'``)."""
    return Text(f"config.expected_{_KIND_KEY[kind]}", value=_show(value))


_KIND_KEY = {"bool": "bool", "int": "int", "float": "number", "number": "number", "str": "str",
             "list": "list", "dict": "dict"}
"""The catalog key (``config.expected_<…>``) of each kind's «expected …» problem."""


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_value(key: Key, value: Any, path: str) -> Any:
    """Validate ``value`` for ``key``; return it normalised (floats for float keys)."""
    if not _KIND_OK[key.kind](value):
        raise ConfigError(path, expected(key.kind, value))
    if key.kind == "float":
        value = float(value)
    if _num(value):
        problem = _range_problem(key, value)
        if problem:
            raise ConfigError(path, problem)
    if key.choices is not None and value not in key.choices:
        raise ConfigError(path, Text("config.one_of", choices=", ".join(map(str, key.choices)), value=_show(value)))
    if key.kind == "list" and key.items:
        for i, item in enumerate(value):
            if not _KIND_OK[key.items](item):
                raise ConfigError(f"{path}[{i}]", expected(key.items, item))
            if _num(item):
                problem = _range_problem(key, item)
                if problem:
                    raise ConfigError(f"{path}[{i}]", problem)
    if key.check is not None:
        problem = key.check(value)
        if problem:
            raise ConfigError(path, problem)
    return value



def positive(v):
    return None if v > 0 else Text("config.positive", value=_show(v))


def nominals(v):
    """A list of nominals: at least one, each > 0."""
    if not v:
        return Text("config.nominals_none")
    if any(n <= 0 for n in v):
        return Text("config.nominals_positive")
    return None


_HOST_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")


def bind_address(v):
    """A listening address as written, never resolved (check-config needs no network): an IPv4
    or IPv6 address, a host name (RFC 1123 labels), or "" (every network, as 0.0.0.0).  Digits
    and dots that are no IPv4 address ("10.9.9", "0.0.0.256") and a dotted quad with a letter
    in it ("0.0.0.O", "192.168.1.l") are typos, not host names."""
    import ipaddress

    if v == "":
        return None
    for cls in (ipaddress.IPv4Address, ipaddress.IPv6Address):
        try:
            cls(v)
            return None
        except ValueError:
            pass
    labels = v[:-1].split(".") if v.endswith(".") else v.split(".")
    numeric = sum(label.isdigit() for label in labels)
    looks_ipv4 = numeric == len(labels) or (len(labels) == 4 and numeric >= 3)
    if (not looks_ipv4 and len(v) <= 253 and ":" not in v
            and all(_HOST_LABEL.fullmatch(label) for label in labels)):
        return None
    return Text("config.bind_address_ipv4" if looks_ipv4 else "config.bind_address", value=_show(v))


def warn_marks(v):
    """Seconds left at which a warning sounds: each > 0."""
    if any(m <= 0 for m in v):
        return Text("config.warn_marks")
    return None


def action_keys(value):
    """A map host action -> list of key names (a game's own keys)."""
    for action, names in value.items():
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            return Text("config.action_keys", action=action)
    return None
