"""One way to plug things in: a :class:`Registry` of :class:`Plugin` declarations.

A plug-in (an input backend, a projector layout ...) is declared where its kind is looked
up, by its name in config, the object that implements it (``"module:attr"``, imported on
first use, so an optional library such as gpiozero only matters when it is used) and,
optionally, its config sections (``"module:attr"`` of a light module: the schema is
assembled from them without loading the implementation) and a line of documentation.

The strings are import edges (``tests/test_architecture.py`` reads them as such), so a
registry lives in the layer of what it registers or above it, never below.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Any, Iterable, Iterator


def load(target: str) -> Any:
    """The object ``"module:attr"`` names (``"module"``: the module)."""
    module, _, attr = target.partition(":")
    obj: Any = import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


@dataclass(frozen=True)
class Plugin:
    """One plug-in: its config ``name``, its implementation ``target`` (``"module:attr"``),
    where its config sections are declared (``sections``: ``"module:attr"`` of a
    :class:`~controller.core.schema.Section` or a tuple of them; "" for none) and ``doc``,
    a few words the config's documentation says of it."""

    name: str
    target: str
    sections: str = ""
    doc: str = ""


class Registry:
    """The plug-ins of one kind, in the order the docs list them."""

    def __init__(self, kind: str, plugins: Iterable[Plugin] = ()):
        self.kind = kind
        self._plugins: dict[str, Plugin] = {}
        for plugin in plugins:
            self.add(plugin)

    def add(self, plugin: Plugin) -> None:
        """Declare ``plugin`` (a name declared again is replaced)."""
        self._plugins[plugin.name] = plugin

    def names(self) -> tuple[str, ...]:
        return tuple(self._plugins)

    def __contains__(self, name: object) -> bool:
        return name in self._plugins

    def __iter__(self) -> Iterator[Plugin]:
        return iter(tuple(self._plugins.values()))

    def __len__(self) -> int:
        return len(self._plugins)

    def plugin(self, name: str) -> Plugin:
        """The declaration of ``name`` (a :class:`KeyError` if there is none)."""
        return self._plugins[name]

    def load(self, name: str) -> Any:
        """The implementation of ``name``, imported on first use."""
        return load(self._plugins[name].target)

    def sections(self) -> list:
        """Every plug-in's config sections, each once, in the plug-ins' order."""
        out: list = []
        for plugin in self:
            if plugin.sections:
                found = load(plugin.sections)
                for sec in found if isinstance(found, (tuple, list)) else (found,):
                    if all(sec is not s for s in out):
                        out.append(sec)
        return out
