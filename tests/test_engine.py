"""The engine stays pure: no pygame, gpiozero, serial, threading or time.

The imports of the engine modules are read with ``ast`` (never executed) and
followed through every ``controller.*`` module they reach, so an impure import
two modules down is caught as well.  Function-level imports count too.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from controller import games

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "controller"
FORBIDDEN = ("pygame", "gpiozero", "serial", "threading", "_thread", "time")
ENGINE_FILES = ["controller/core/arbiter.py", "controller/core/countdown.py",
                "controller/core/clocksync.py", "controller/core/configs.py"] + sorted(   # games/engine.py among the games
    str(p.relative_to(ROOT)) for p in (PACKAGE / "games").rglob("*.py")
    if p.name not in ("protocol.py", "tournament.py", "extras.py"))  # files written and read: shell code


def _module_file(name: str) -> Path | None:
    """The file of a ``controller.*`` module, or None if it is not one of ours."""
    parts = name.split(".")
    if parts[0] != "controller":
        return None
    base = ROOT.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_names(path: Path) -> set[str]:
    """Every module name ``path`` imports (``from a import b`` gives a and a.b)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = _module_name(path)
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def import_closure(start: list[Path]) -> dict[str, set[str]]:
    """For every controller module reached from ``start``: the names it imports."""
    seen: dict[str, set[str]] = {}
    todo = list(start)
    while todo:
        path = todo.pop()
        name = _module_name(path)
        if name in seen:
            continue
        seen[name] = imported_names(path)
        # importing controller.x.y runs controller/__init__.py and controller/x/__init__.py
        parents = [".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)]
        for mod in seen[name] | set(parents):
            f = _module_file(mod)
            if f is not None:
                todo.append(f)
    return seen


def _forbidden(name: str) -> bool:
    return any(name == f or name.startswith(f + ".") for f in FORBIDDEN)


@pytest.mark.parametrize("rel", ENGINE_FILES)
def test_engine_module_imports_no_io_threads_or_clock(rel):
    closure = import_closure([ROOT / rel])
    bad = sorted((mod, name) for mod, names in closure.items() for name in names if _forbidden(name))
    assert not bad, f"{rel} reaches impure imports: {bad}"


def test_every_mode_the_engine_names_is_checked():
    for module in games.GAMES.values():
        f = _module_file(module)
        if f is not None:  # a mode still being written is checked once its file exists
            assert str(f.relative_to(ROOT)) in ENGINE_FILES


def test_the_import_walk_finds_an_impure_import(tmp_path, monkeypatch):
    # the checker itself: a module that imports time two levels down is caught
    pkg = tmp_path / "controller"
    (pkg / "modes").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "modes" / "__init__.py").write_text("")
    (pkg / "modes" / "bad.py").write_text("from .. import helper\n")
    (pkg / "helper.py").write_text("def f():\n    from time import monotonic\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    closure = import_closure([pkg / "modes" / "bad.py"])
    assert "controller.helper" in closure
    assert any(_forbidden(n) for n in closure["controller.helper"])
