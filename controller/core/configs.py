"""The config as the layers below the program reach it: :func:`load`, :func:`build` and
:func:`attach_event`, carried out by :mod:`controller.app.config` (the schema assembled from
every game's and every plug-in's sections), which registers itself here when it is imported.

A programme builds its rounds' configs, a scripted session its game's, a command its
``--config``'s, without importing the program above them.  The entry points (``buzzer``, the
crash drill, the tests' conftest) import :mod:`controller.app.config` first.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping

_BUILDER: dict[str, Callable[..., dict]] = {}


def register(*, load: Callable[..., dict], build: Callable[..., dict],
             attach_event: Callable[..., dict]) -> None:
    """The program's config functions (:mod:`controller.app.config` calls this at import)."""
    _BUILDER.update(load=load, build=build, attach_event=attach_event)


def _registered(name: str) -> Callable[..., dict]:
    try:
        return _BUILDER[name]
    except KeyError:
        raise RuntimeError("no config builder registered: import controller.app.config first") from None


def load(path: str | Path | None = None, overrides: Mapping[str, Any] | None = None) -> dict:
    """A TOML config file (``None``: the defaults) plus overrides, checked (a one-line
    :class:`~controller.core.errors.ConfigError` naming the file and key)."""
    return _registered("load")(path, overrides)


def build(data: Mapping[str, Any], base: Mapping[str, Any] | None = None) -> dict:
    """``data`` (a config's keys) checked on top of the config ``base`` (``None``: the defaults)."""
    return _registered("build")(data, base=base)


def attach_event(cfg: dict, event_path: str | Path, source: str | None = None) -> dict:
    """``cfg`` playing the event file at ``event_path`` (docs/event-file.md)."""
    return _registered("attach_event")(cfg, event_path, source)
