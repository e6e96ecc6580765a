"""One way to plug things in: a :class:`Registry` of :class:`Plugin` declarations.

A plug-in (an input backend, a projector layout ...) is declared where its kind is looked
up, by its name in config, the object that implements it (``"module:attr"``, imported on
first use, so an optional library such as gpiozero only matters when it is used) and,
optionally, its config sections (``"module:attr"`` of a light module: the schema is
assembled from them without loading the implementation) and a line of documentation.

The strings are import edges (``tests/test_architecture.py`` reads them as such), so a
registry lives in the layer of what it registers or above it, never below.  Where the
plug-ins name themselves (each game declares its ``PLUGIN`` in its own module), the registry
is told the modules to read (:meth:`Registry.find_in`) and reads them on its first lookup; a
lower layer reaches such a registry by its kind (:func:`registry`) without importing the
package that lists the modules.
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
    extras: str = ""
    """The plug-in's impure part beside it (``"module:attr"``, "" for none): a game's
    :class:`~controller.games.base.ShellExtras`."""


class Registry:
    """The plug-ins of one kind, in the order the docs list them."""

    def __init__(self, kind: str, plugins: Iterable[Plugin] = ()):
        self.kind = kind
        self._added: dict[str, Plugin] = {}
        self._sources: list[str] = []          # modules declaring a PLUGIN, in the order listed
        self._found: dict[str, Plugin] = {}    # source module -> its PLUGIN, once read
        self._reading: set[str] = set()
        self._every: dict[str, Plugin] | None = None   # every plug-in, once every module is read
        for plugin in plugins:
            self.add(plugin)

    def add(self, plugin: Plugin) -> None:
        """Declare ``plugin`` (a name declared again is replaced)."""
        self._added[plugin.name] = plugin
        self._every = None

    def find_in(self, *modules: str) -> None:
        """The plug-ins the ``modules`` declare (each its ``PLUGIN``), listed in this order and
        read on the first lookup."""
        self._sources.extend(m for m in modules if m not in self._sources)
        self._every = None

    @property
    def _plugins(self) -> dict[str, Plugin]:
        """Every plug-in: the modules' (in their order), then those added.  A module that looks
        the registry up while it is being read sees the plug-ins read so far."""
        if self._every is not None:
            return self._every
        for module in self._sources:
            if module not in self._found and module not in self._reading:
                self._reading.add(module)
                try:
                    self._found[module] = load(f"{module}:PLUGIN")
                finally:
                    self._reading.discard(module)
        out = {p.name: p for p in (self._found[m] for m in self._sources if m in self._found)}
        out.update(self._added)
        if not self._reading and len(self._found) == len(self._sources):
            self._every = out
        return out

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


_REGISTRIES: dict[str, Registry] = {}


def registry(kind: str) -> Registry:
    """The registry of the plug-ins of ``kind`` (``"game"``), made on first use: the package
    of that kind tells it where its plug-ins are, the layers below look them up here."""
    if kind not in _REGISTRIES:
        _REGISTRIES[kind] = Registry(kind)
    return _REGISTRIES[kind]
