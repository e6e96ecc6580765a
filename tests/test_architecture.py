"""The controller package has no import cycles (#13 item 5).

The import graph is built from the source's AST: module-level imports and
imports inside functions alike, so that a cycle cannot hide in a function.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "controller"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The package module ``name`` names (a name inside a module: that module)."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for mod, path in modules.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            targets: list[str | None] = []
            if isinstance(node, ast.Import):
                targets = [_resolve(a.name, modules) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(up + ([base] if base else []))
                # ``from controller import engine`` imports controller.games.engine; ``from x import name``: x
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else _resolve(base, modules)
                           for a in node.names]
            graph[mod].update(t for t in targets if t is not None and t != mod)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_graph_sees_function_level_imports():
    graph = import_graph()
    assert "controller.app.loop" in graph["controller.app.startup"]
    assert "controller.games.engine" in graph["controller.app.loop"]


def test_the_controller_package_has_no_import_cycles():
    found = cycles(import_graph())
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_front_ends_do_not_import_upward():
    graph = import_graph()
    for front in ("controller.screens.window", "controller.screens.terminal"):
        assert not graph[front] & {"controller.app.loop", "controller.app.startup", "controller.cli",
                                   "controller.app.commands"}, front


# -- the shell never names a game (#13) ------------------------------------------------

def _game_name_literals(path: Path, names: set[str]) -> list[tuple[int, str]]:
    """String literals in ``path`` equal to a game's config name (docstrings aside)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names
            and id(node) not in docstrings]


def test_no_file_outside_the_games_names_a_game():
    from controller import games

    names = set(games.names())
    found = [f"{p.relative_to(PACKAGE.parent)}:{line}: {value!r}"
             for p in sorted(PACKAGE.rglob("*.py")) if "games" not in p.relative_to(PACKAGE).parts
             for line, value in _game_name_literals(p, names)]
    assert not found, "game names outside controller/games: " + ", ".join(found)


def test_the_name_check_finds_a_game_named_in_the_shell(tmp_path):
    f = tmp_path / "loop.py"
    f.write_text('"""Runs «Мафия» too."""\nif cfg["mode"] == "mafia":\n    pass\n', encoding="utf-8")
    assert _game_name_literals(f, {"mafia"}) == [(2, "mafia")]


def test_every_game_declares_the_interface():
    from controller import games
    from controller.games.base import Game

    for name in games.names():
        game = games.get(name)
        assert isinstance(game, Game) and game.name == name
        assert game.title_key and game.host_actions, name
        for hook in ("initial", "step", "wakeup", "view", "summary"):
            assert getattr(type(game), hook) is not getattr(Game, hook), f"{name} lacks {hook}"


def test_the_core_and_the_games_do_not_import_the_shell():
    """The engine and the rules import nothing from the program around them (the games'
    impure extras aside; a programme builds its rounds' configs through controller/core/configs.py)."""
    graph = import_graph()
    shell = ("controller.app", "controller.screens", "controller.inputs", "controller.sound", "controller.cli",
             "controller.sessions")
    for mod, deps in graph.items():
        if mod.startswith(("controller.core", "controller.games")) and not mod.endswith(".extras"):
            bad = {d for d in deps if d.startswith(shell)}
            assert not bad, f"{mod} imports {sorted(bad)}"


# -- the front ends draw widgets, not views (issue 26) --------------------------------------

WIDGET_FRONT_ENDS = ("controller/screens/terminal.py", "controller/screens/pack_screen.py",
                     "controller/screens/compact.py")
"""The front ends that draw only the typed screen model (controller/core/screen.py)."""

NOT_VIEW_READS = {"missing", "connected", "link", "notice", "title", "text", "hint", "kind", "language"}
"""Keys those front ends read from what is not a game's view: the loop's status (the buttons,
the festival link, the notice), the rename dialogue, a ruling flash, the config's language."""


def _view_keys() -> set[str]:
    """Every key of every game's view (nested ones too), from the example sessions."""
    from controller.sessions import script
    from controller.games import engine

    keys: set[str] = set()

    def walk(value):
        if isinstance(value, dict):
            keys.update(str(k) for k in value)
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for path in sorted((PACKAGE.parent / "examples").glob("*.jsonl")):
        text = path.read_text(encoding="utf-8")
        for at in (1.0, 5.0, 11.0, 30.0, 75.0, 1e4):
            walk(engine.view(script.run(script.parse(text.splitlines(), str(path)), until=at).state))
    return keys


def _key_reads(path: Path) -> list[tuple[int, str]]:
    """String literals ``path`` reads a mapping with: ``x["key"]``, ``x.get("key")``, ``"key" in x``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            out.append((node.lineno, node.slice.value))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and node.args and isinstance(node.args[0], ast.Constant):
            out.append((node.lineno, node.args[0].value))
        elif isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant) \
                and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
            out.append((node.lineno, node.left.value))
    return [(line, k) for line, k in out if isinstance(k, str)]


def test_the_widget_front_ends_read_no_view_keys():
    """The terminal draws the screen model's widgets: it tests no view key's presence and reads
    none (no ``"seats" in view``), so a new game needs nothing of it."""
    view_keys = _view_keys()
    assert {"seats", "teams", "question", "captain", "standings"} <= view_keys   # the check sees the views
    found = [f"{f}:{line}: {key!r}" for f in WIDGET_FRONT_ENDS
             for line, key in _key_reads(PACKAGE.parent / f) if key in view_keys - NOT_VIEW_READS]
    assert not found, "view keys read by a widget front end: " + ", ".join(found)


def test_the_view_key_check_finds_a_presence_test(tmp_path):
    f = tmp_path / "screen.py"
    f.write_text('if "seats" in view:\n    n = view.get("teams")\n    q = view["question"]\n', encoding="utf-8")
    assert sorted(_key_reads(f)) == [(1, "seats"), (2, "teams"), (3, "question")]


# -- the live pages draw widgets too (issue 26) ------------------------------------------------

APP_JS = PACKAGE / "web" / "static" / "app.js"

PAGE_OWN_NAMES = {"open", "status"}
"""Names app.js reads from the browser's objects that a view happens to use too: a form's
``dataset.open``, a fetch response's ``status``."""


def _model_names(phones: bool = True) -> set[str]:
    """Every name the pages may read: the screen model's fields (and what ``to_json`` adds),
    the view model's own keys (not the game's view under ``game``) and, with ``phones``, the web
    server's phones part (the host page's)."""
    import dataclasses

    from controller.core import screen as model
    from controller.screens import viewmodel

    names = {"layout", "text", "label_text"}
    for value in vars(model).values():
        if isinstance(value, type) and dataclasses.is_dataclass(value):
            names.update(f.name for f in dataclasses.fields(value))

    def walk(value):
        if isinstance(value, dict):
            for k, v in value.items():
                if k not in ("game", "screen"):
                    names.add(str(k))
                    walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    # the host page's phones part (the web server's own: each team's link and its phones)
    from types import SimpleNamespace

    from controller.web.server import WebServer

    phone = {"id": 1, "synced": True, "bound_ms": 1.0, "rtt_ms": 2.0, "delay_ms": 3.0, "drift_ppm": 0.0,
             "over": False, "stalls": 0, "presses": 0, "flagged": False, "refused": 0, "silent_s": 0.0}
    hub = SimpleNamespace(status=lambda: {"q": [phone]}, tokens={"q": "tok"}, wait=0,
                          settings={"bound_max_ms": 10, "exclude_over_bound": True})
    if phones:
        walk({"phones": WebServer.phones_view(SimpleNamespace(hub=hub, snapshot={}, play_base="http://x", _qr={}, phone_teams=set(),
                                                            bind="127.0.0.1"))})
    walk(viewmodel.build({"mode": "erudite", "teams": []}, flash={"kind": "right", "team": "A"},
                         keys={"right": ["return"]}, undo={"changes": [{"team": "A", "score": 0, "after": 10}]},
                         actions=[{"action": "rename", "label": "x", "confirm": "y",
                                   "params": [{"name": "team", "kind": "member", "required": True, "min": 1,
                                               "max": 4, "max_len": 40, "choices": [{"value": 1, "label": "A"}]}]}],
                         status={"entry": {"title": "", "text": "", "hint": ""}}))
    return names


def _js_reads(text: str) -> list[tuple[int, str]]:
    """The names a script reads as properties (``x.key``, ``x["key"]``) or tests the presence of
    (``"key" in x``), outside comments and string literals."""
    import re

    out = []
    for line_no, line in enumerate(text.splitlines(), 1):
        line = re.sub(r"(^|\s)//.*$", "", line)
        out += [(line_no, k) for k in re.findall(r"\"(\w+)\"\s+in\b", line)]
        out += [(line_no, k) for k in re.findall(r"\[\s*[\"'](\w+)[\"']\s*\]", line)]
        line = re.sub(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|/\^[^/]*\/\//i", '""', line)
        out += [(line_no, k) for k in re.findall(r"\.\s*([A-Za-z_]\w*)", line)]
    return out


def test_the_live_pages_read_no_view_keys():
    """``/``, ``/overlay`` and ``/host`` draw the screen model (``audience.screen``,
    ``host.screen``): app.js reads no key of a game's view that is not a widget's field, and
    never the view itself (``audience.game``, ``host.game``), so no page branches on a game."""
    view_keys = _view_keys()
    assert {"seats", "teams", "question", "captain", "countdown", "fouls"} <= view_keys
    forbidden = (view_keys - _model_names() - PAGE_OWN_NAMES) | {"game"}
    found = [f"app.js:{line}: {key!r}" for line, key in _js_reads(APP_JS.read_text(encoding="utf-8"))
             if key in forbidden]
    assert not found, "view keys read by the live pages: " + ", ".join(found)


PLAY_JS = PACKAGE / "web" / "static" / "play.js"

PLAY_OWN_NAMES = {"disabled", "tie_rule"}
"""Names play.js reads from the browser's objects or its own messages that a view happens to use
too: the big button's ``disabled``, the join's ``tie_rule`` (``[arbiter] tie_rule``, which the
server tells the phone so that it words a tie as the projector does)."""


def test_the_phone_page_reads_no_view_keys():
    """``/play`` answers a team's phone from the audience's screen model alone (its card by its
    button, the press order, the big panel): play.js reads no key of a game's view that is not a
    widget's field nor the view model's own, never the host page's phones part (``teams``), and
    never the view itself (``audience.game``)."""
    view_keys = _view_keys()
    assert {"teams", "locked", "countdown"} <= view_keys
    forbidden = (view_keys - _model_names(phones=False) - PLAY_OWN_NAMES) | {"game"}
    assert {"teams", "game", "locked", "countdown"} <= forbidden   # what the page read before the model
    found = [f"play.js:{line}: {key!r}" for line, key in _js_reads(PLAY_JS.read_text(encoding="utf-8"))
             if key in forbidden]
    assert not found, "view keys read by the phone page: " + ", ".join(found)


def test_the_page_check_finds_a_view_read():
    js = ('  const g = vm.audience.game;\n  if (Array.isArray(g.seats)) n = g["captain"];\n'
          '  // g.fouls in a comment\n  x = "fouls" in g;\n  el("span", "g.fouls");\n')
    assert [k for _, k in _js_reads(js)] == ["audience", "game", "captain", "isArray", "seats", "fouls"]


# -- the loop is a core plus parts: nobody reaches into it (#26) ------------------------

LOOP_OWN = ("controller/app/loop.py",)
"""The loop's own module: the one place that assigns the loop's attributes."""


def _is_loop(node: ast.AST) -> bool:
    """``loop`` or ``self.loop`` (``self._loop``): the name every part gives the loop."""
    if isinstance(node, ast.Name):
        return node.id in ("loop", "_loop")
    return (isinstance(node, ast.Attribute) and node.attr in ("loop", "_loop")
            and isinstance(node.value, ast.Name) and node.value.id == "self")


def _reaches_into_loop(path: Path) -> list[tuple[int, str]]:
    """Where ``path`` assigns an attribute of the loop (or an item of one), reads a private
    one (``loop._notice``), or unwraps one of its attributes through a private attribute by
    name (``getattr(loop.journal, "_inner")``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        targets = []
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            while isinstance(target, ast.Subscript):
                target = target.value
            if isinstance(target, ast.Attribute) and _is_loop(target.value):
                found.append((node.lineno, f"assigns loop.{target.attr}"))
        if isinstance(node, ast.Attribute) and _is_loop(node.value) and node.attr.startswith("_"):
            found.append((node.lineno, f"reads loop.{node.attr}"))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "setattr")
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
                and (_is_loop(node.args[0]) or isinstance(node.args[0], ast.Attribute) and _is_loop(node.args[0].value))
                and isinstance(node.args[1].value, str) and node.args[1].value.startswith("_")
                and not node.args[1].value.startswith("__")):
            found.append((node.lineno, f"{node.func.id}(…, {node.args[1].value!r})"))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr"
                and node.args and _is_loop(node.args[0])):
            found.append((node.lineno, "setattr(loop, …)"))
    return sorted(found)


def test_no_module_reaches_into_the_loop():
    found = [f"{p.relative_to(PACKAGE.parent)}:{line}: {what}"
             for p in sorted(PACKAGE.rglob("*.py")) if str(p.relative_to(PACKAGE.parent)) not in LOOP_OWN
             for line, what in _reaches_into_loop(p)]
    assert not found, "modules reaching into the loop: " + ", ".join(found)


def test_the_loop_check_finds_an_assignment_and_a_private_call(tmp_path):
    f = tmp_path / "attach.py"
    f.write_text("def attach(loop):\n    loop.publish = print\n    loop._notice('x')\n"
                 "    loop.link['a'] = 1\n    j = getattr(loop.journal, '_inner', None)\n", encoding="utf-8")
    assert [line for line, _ in _reaches_into_loop(f)] == [2, 3, 4, 5]

# -- one runner owns the heartbeat (#26) ------------------------------------------------

STEPPING = frozenset({"step_once", "drain", "tick_if_due", "timeout_s", "deadline_near", "wake_fd", "clear_wake"})
"""The loop's heartbeat: waiting, stepping, the due deadlines (controller/app/runner.py's alone)."""


def _front_end_modules() -> list[Path]:
    """The modules that define a front end (a class whose base is ``FrontEnd``)."""
    out = []
    for p in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(p.read_text(encoding="utf-8"), str(p))
        if any(isinstance(n, ast.ClassDef) and any(getattr(b, "id", getattr(b, "attr", None)) == "FrontEnd"
                                                   for b in n.bases) for n in ast.walk(tree)):
            out.append(p)
    return out


def _stepping_calls(path: Path) -> list[tuple[int, str]]:
    """Where ``path`` calls one of the heartbeat's methods (``loop.step_once(...)``, ``x.drain()``)."""
    return sorted((node.lineno, node.func.attr)
                  for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path)))
                  if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr in STEPPING)


def test_no_front_end_steps_the_loop_or_reads_the_engine():
    """The window and the terminal poll their input and present frames: the runner waits, steps
    and ticks (none of the loop's stepping is called there), and they import neither the engine
    nor the loop's program (the layer above them)."""
    fronts = _front_end_modules()
    names = {p.relative_to(PACKAGE.parent).as_posix() for p in fronts}
    assert {"controller/screens/window.py", "controller/screens/terminal.py"} <= names, names
    found = [f"{p.relative_to(PACKAGE.parent)}:{line}: {what}()" for p in fronts for line, what in _stepping_calls(p)]
    assert not found, "front ends stepping the loop: " + ", ".join(found)
    graph = import_graph()
    for p in fronts:
        mod = _module_name(p)
        bad = {d for d in graph[mod] if d == "controller.games.engine" or d.startswith("controller.app")}
        assert not bad, f"{mod} imports {sorted(bad)}"


def test_the_stepping_check_finds_a_front_end_that_steps(tmp_path):
    f = tmp_path / "window.py"
    f.write_text("class W(FrontEnd):\n    def poll(self):\n        self.loop.step_once(0.004)\n"
                 "        loop.drain()\n        tick_if_due()\n", encoding="utf-8")
    assert _stepping_calls(f) == [(3, "step_once"), (4, "drain")]


# -- one plug-in mechanism, in layers (issue 26) ---------------------------------------------

LAYERS = (("controller.core", "controller.i18n"),
          ("controller.games",),
          ("controller.inputs", "controller.screens", "controller.content", "controller.sound", "controller.sdl",
           "controller.sessions"),
          ("controller.web", "controller.festival"),
          ("controller.app",),
          ("controller.cli", "controller"))
"""The layers, lowest first: a module imports (or registers) only modules of its own layer or
below.  The text catalogs sit with the core (the games' words are catalog keys); pygame's loader
with the screens and the sounds it serves; the journal and the scripted sessions with the content
they read (a package) and the screenshots that play them; the package itself (its version) at the top."""


def _layer(mod: str) -> int:
    best = None
    for i, prefixes in enumerate(LAYERS):
        for p in prefixes:
            if (mod == p or mod.startswith(p + ".")) and (best is None or len(p) > len(best[1])):
                best = (i, p)
    assert best is not None, f"{mod} is in no layer"
    return best[0]


def _registration_targets(path: Path, modules: dict[str, Path]) -> set[str]:
    """The package modules ``path`` names in a string (``"controller.inputs.gpio:GPIOBackend"``,
    ``"controller.games.erudite"``): a registration, which imports it when it is used."""
    import re

    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and re.fullmatch(r"controller(\.\w+)+(:[\w.]+)?", node.value):
            target = _resolve(node.value.partition(":")[0], modules)
            if target is not None:
                out.add(target)
    return out


def full_graph() -> dict[str, set[str]]:
    """The import graph with every registration as an import edge."""
    modules = _modules()
    graph = import_graph()
    for mod, path in modules.items():
        graph[mod] |= _registration_targets(path, modules) - {mod}
    return graph


def test_registrations_are_import_edges():
    graph = full_graph()
    assert "controller.inputs.gpio" in graph["controller.inputs.backends"]
    assert "controller.screens.compact" in graph["controller.screens.layouts"]


def test_the_graph_with_registrations_has_no_cycles():
    found = cycles(full_graph())
    assert not found, "cycles through registrations: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_layers_import_only_downward():
    """core < games < inputs, screens, content, sound, sessions < web, festival < app < cli,
    registrations included, with no exceptions."""
    graph = full_graph()
    found = [f"{mod} -> {dep}" for mod, deps in sorted(graph.items()) for dep in sorted(deps)
             if _layer(dep) > _layer(mod)]
    assert not found, "imports against the layer order: " + ", ".join(found)


def _game_homes() -> dict[str, tuple[set[str], Path]]:
    """Each game's names (its mode id and its config sections) and its home: the package of a
    game in a folder of its own, else its module (with the modules named after it: own_game_pack.py)."""
    from controller import games

    out = {}
    for name in games.names():
        game = games.get(name)
        path = Path(importlib.import_module(type(game).__module__).__file__)
        home = path.parent if path.parent != PACKAGE / "games" else path.with_suffix("")
        out[name] = ({name} | {s.name for s in game.sections}, home)
    return out


def _outside(path: Path, home: Path) -> bool:
    if home.is_dir():
        return home not in path.parents
    return not path.stem.startswith(home.name)


def test_no_game_is_named_outside_its_own_package():
    """A game's mode id ("own-game") and its config sections ("own_game") appear only in its own
    module or folder: the content layer gets Своя игра's section through the game's declaration."""
    found = []
    for name, (words, home) in sorted(_game_homes().items()):
        for p in sorted(PACKAGE.rglob("*.py")):
            if _outside(p, home):
                found += [f"{p.relative_to(PACKAGE.parent)}:{line}: {value!r} ({name})"
                          for line, value in _game_name_literals(p, words)]
    assert not found, "a game named outside its own package: " + ", ".join(found)


def test_the_programs_output_folders_are_ignored_by_git():
    """Walk 1, item 19: playing «Мафия» left an untracked protocols/ folder in the clone."""
    from controller.app import config as config_mod

    ignored = set((PACKAGE.parent / ".gitignore").read_text(encoding="utf-8").split())
    cfg = config_mod.defaults()
    for folder in (cfg["journal"]["dir"], cfg["mafia"]["protocol_dir"]):
        assert f"/{folder}/" in ignored, folder
