"""Key names in the config: a key no front end gives is refused by check-config with one line
(``keys.right = ["F13x"]`` would do nothing at the first ruling), every key the shipped configs
and the front ends name is accepted, and the key help says which keys want a second press."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller import cli
from controller.app import config
from controller.inputs.keypad import _PYGAME_TO_EVDEV
from controller.inputs.keys import TERMINAL_KEYS, is_key_name
from controller.screens.terminal import ESCAPE_KEYS, key_help

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted([*ROOT.glob("config/*.toml"), *ROOT.glob("examples/*.toml")])


def check_config(capsys, path):
    rc = cli.main(["check-config", str(path)])
    out, err = capsys.readouterr()
    return rc, out, err


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize("lang, words", [
    ("ru", "нет такой клавиши 'F13x' (буква, цифра или знак; f1–f15; return, enter (цифровой блок), space,"),
    ("en", "no such key 'F13x' (a letter, digit or sign; f1–f15; return, enter (keypad), space,")])
def test_a_host_key_that_is_no_key_is_one_line_naming_its_path(tmp_path, capsys, lang, words):
    path = tmp_path / "keys.toml"
    path.write_text(f'language = "{lang}"\n[keys]\nright = ["F13x"]\n', encoding="utf-8")
    rc, out, err = check_config(capsys, path)
    assert rc == 2 and out == ""
    assert one_line(err).startswith(f"buzzer: {path}: keys.right: {words}")


@pytest.mark.parametrize("lang, words", [("ru", "нет такой клавиши 'йй' ("), ("en", "no such key 'йй' (")])
def test_a_team_key_that_is_no_key_is_one_line_naming_the_team(tmp_path, capsys, lang, words):
    path = tmp_path / "teams.toml"
    path.write_text(f'language = "{lang}"\n[[teams]]\nname = "Альфа"\nbutton = "A"\n'
                    f'[[teams]]\nname = "Бета"\nbutton = "B"\nkey = "йй"\n', encoding="utf-8")
    rc, out, err = check_config(capsys, path)
    assert rc == 2 and out == ""
    assert one_line(err).startswith(f"buzzer: {path}: teams[1].key: {words}")


def test_a_game_own_key_that_is_no_key_is_refused_too(tmp_path, capsys):
    path = tmp_path / "mafia.toml"
    path.write_text('mode = "mafia"\n[mafia.keys]\nstart = ["enterr"]\n', encoding="utf-8")
    rc, _, err = check_config(capsys, path)
    assert rc == 2 and one_line(err).startswith(f"buzzer: {path}: mafia.keys.start: нет такой клавиши 'enterr'")


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_shipped_config_still_validates(capsys, path):
    rc, out, err = check_config(capsys, path)
    assert rc == 0 and err == "" and "OK" in out


def test_every_default_key_of_every_game_is_a_key():
    """The defaults (config/default.toml, docs/config.md: generated from them) of [keys], every
    game's own key map and the built-in teams."""
    cfg = config.build({})
    maps = [cfg["keys"]] + [v["keys"] for v in cfg.values() if isinstance(v, dict) and isinstance(v.get("keys"), dict)]
    names = [n for m in maps for ns in m.values() for n in ns] + [tm["key"] for tm in cfg["teams"]]
    assert len(maps) >= 3 and names
    assert [n for n in names if not is_key_name(n)] == []


def test_every_key_a_front_end_gives_is_accepted():
    """What the terminal types (its characters and escape sequences), what a USB keypad reads
    and what the window's pygame names: none of it may be refused."""
    given = [n for names in TERMINAL_KEYS.values() for n in names] + list(ESCAPE_KEYS.values()) \
        + list(_PYGAME_TO_EVDEV) + ["й", "Q", "F4", "Escape", "Page Up", "7", "[7]", "=", "ё"]
    assert [n for n in given if not is_key_name(n)] == []
    pytest.importorskip("pygame")
    from controller.sdl import pygame
    window = {pygame.key.name(getattr(pygame, k)) for k in dir(pygame) if k.startswith("K_")} - {"", "unknown key"}
    assert len(window) > 100
    assert sorted(n for n in window if not is_key_name(n)) == []


@pytest.mark.parametrize("name", ["F13x", "йй", "", " ", "f16", "enterr", "num 0", "\t"])
def test_names_no_front_end_gives_are_refused(name):
    assert not is_key_name(name)


def test_the_terminal_help_says_which_keys_want_a_second_press():
    ru = key_help(config.build({"mode": "erudite"}))
    assert "F4 дважды" in ru and "Esc дважды" in ru and "F12 дважды" in ru
    assert "F2 дважды" not in ru and "H, F1 дважды" not in ru
    assert "F4 twice" in key_help(config.build({"mode": "erudite", "language": "en"}), "en")
