"""One way to plug things in (issue 26): a registry reads the modules that declare its plug-ins
(each its ``PLUGIN``) on its first lookup, in the order they are listed; the games are found so."""

from __future__ import annotations

import sys

from controller.core.plugins import Plugin, Registry


def test_a_registry_reads_the_declaring_modules_on_first_lookup_in_their_order(tmp_path, monkeypatch):
    """A module that looks the registry up while it is read (as the programme looks up the games
    it may play) sees the plug-ins read so far, and the registry keeps the listed order."""
    reg = Registry("thing")
    holder = type(sys)("plugpkg_registry")
    holder.REG = reg
    monkeypatch.setitem(sys.modules, "plugpkg_registry", holder)
    pkg = tmp_path / "plugpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    declare = "from controller.core.plugins import Plugin\nPLUGIN = Plugin({0!r}, 'plugpkg.{1}:X')\nX = {0!r}\n"
    (pkg / "first.py").write_text(declare.format("one", "first"))
    (pkg / "second.py").write_text("import plugpkg_registry\nSEEN = plugpkg_registry.REG.names()\n"
                                   + declare.format("two", "second"))
    (pkg / "third.py").write_text(declare.format("three", "third"))
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("plugpkg", "plugpkg.first", "plugpkg.second", "plugpkg.third"):
        monkeypatch.delitem(sys.modules, name, raising=False)

    reg.find_in("plugpkg.first", "plugpkg.second", "plugpkg.third")
    assert "plugpkg.first" not in sys.modules          # nothing is read before a lookup
    assert reg.names() == ("one", "two", "three")
    assert sys.modules["plugpkg.second"].SEEN == ("one", "three")   # what it could see while being read
    assert reg.load("two") == "two"
    reg.add(Plugin("four", "plugpkg.first:X"))
    assert reg.names() == ("one", "two", "three", "four")
    for name in ("plugpkg", "plugpkg.first", "plugpkg.second", "plugpkg.third"):
        sys.modules.pop(name, None)


def test_the_games_are_found_by_their_declarations_in_the_docs_order():
    from controller import games

    assert games.names() == ("erudite", "own-game", "brain-ring", "chgk", "programme", "mafia")
    assert games.default() == "erudite"
    for name in games.names():
        plugin = games.GAMES.plugin(name)
        assert games.get(name).name == name
        assert tuple(games.GAMES.sections()) and all(s in games.GAMES.sections() for s in games.get(name).sections)
        assert bool(plugin.extras) == (games.extras_class(name) is not games.ShellExtras), name


def test_a_programme_takes_its_rounds_games_own_host_actions():
    """The programme reads the games it may play while its module is read: ЧГК's «import the
    jury's results» stays a host action of a programme's ЧГК round."""
    from controller import games

    assert "import_results" in games.extras_actions("chgk")
    assert games.extras_actions("programme") == games.extras_actions("chgk")


def test_a_game_declares_where_its_package_and_its_event_file_plan_are():
    from controller import games

    players = [name for name in games.names() if games.get(name).package_section]
    assert players == ["own-game"]
    assert games.package_section() == games.package_section("erudite") == games.get("own-game").sections[0].name
    assert list(games.event_plans()) == ["erudite", "own-game", "brain-ring", "chgk"]
