"""Small helpers for the engine's immutable values.

:func:`replace` does what :func:`dataclasses.replace` does for the engine's
frozen, slotted dataclasses, several times faster: the engine copies its state
on every event, and on the press path that copying was most of the time spent
(see docs/performance.md).  It does not run ``__init__`` (the engine's values
have no ``__post_init__``) but still refuses a name that is not a field.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")

_FIELDS: dict[type, tuple[tuple[str, ...], frozenset]] = {}


def _fields(cls: type) -> tuple[tuple[str, ...], frozenset]:
    try:
        return _FIELDS[cls]
    except KeyError:
        names = tuple(f.name for f in dataclasses.fields(cls))
        _FIELDS[cls] = (names, frozenset(names))
        return _FIELDS[cls]


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of the frozen dataclass ``obj`` with ``changes`` applied."""
    cls = obj.__class__
    names, known = _fields(cls)
    for name in changes:
        if name not in known:
            raise TypeError(f"{cls.__name__} has no field {name!r}")
    new = object.__new__(cls)
    put = object.__setattr__
    for name in names:
        put(new, name, changes[name] if name in changes else getattr(obj, name))
    return new
