"""Every malformed config and script: one line naming the problem, exit code 2, no traceback."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.app import config
from controller.cli import main

ROOT = Path(__file__).resolve().parents[1]


def broken_configs():
    """(name, TOML text, a word the message must contain)."""
    cases = [
        ("bad-toml", "mode = \n", "ошибка в TOML"),
        ("unclosed-table", "[erudite\nthink_time_s = 7\n", "ошибка в TOML"),
        ("unknown-section", "[erudit]\nthink_time_s = 7\n", "erudit"),
        ("unknown-top", "modes = \"erudite\"\n", "modes"),
        ("unknown-mode", "mode = \"quiz\"\n", "mode"),
        ("unknown-backend", "buttons = \"usb\"\n", "buttons"),
        ("teams-not-array", "teams = 3\n", "teams"),
        ("team-no-name", "[[teams]]\nbutton = \"A\"\n", "teams[0].name"),
        ("team-bad-color", "[[teams]]\nname = \"A\"\ncolor = \"red\"\n", "teams[0].color"),
        ("team-dup-button", "[[teams]]\nname = \"A\"\nbutton = \"X\"\n[[teams]]\nname = \"B\"\nbutton = \"X\"\n",
         "teams[1].button"),
        ("team-one-player", "[[teams]]\nname = \"A\"\nplayers = 1\n", "teams[0].players"),
        ("team-unknown-key", "[[teams]]\nname = \"A\"\nscore = 5\n", "teams[0].score"),
        ("five-teams", "".join(f"[[teams]]\nname = \"T{i}\"\n" for i in range(5)), "teams"),
        ("team-key-is-host-key", "[[teams]]\nname = \"A\"\nkey = \"n\"\n", "teams[0].key"),
        ("section-not-table", "erudite = 5\n", "erudite"),
    ]
    schema_sections = [s for s in config.SCHEMA if s.name]
    # every key of every section: a value of the wrong type, and an unknown key beside it
    for sec in schema_sections:
        cases.append((f"{sec.name}-unknown-key", f"[{sec.name}]\nno_such_key_here = 1\n",
                      f"{sec.name}.no_such_key_here"))
        for key in sec.keys:
            wrong = "\"text\"" if key.kind in ("bool", "int", "float", "number", "list", "dict") else "1.5"
            cases.append((f"{sec.name}-{key.name}-type", f"[{sec.name}]\n{key.name} = {wrong}\n",
                          f"{sec.name}.{key.name}"))
            if key.minimum is not None and key.kind in ("int", "float", "number"):
                cases.append((f"{sec.name}-{key.name}-range", f"[{sec.name}]\n{key.name} = {key.minimum - 1000}\n",
                              f"{sec.name}.{key.name}"))
    return cases


CONFIGS = broken_configs()


@pytest.mark.parametrize("name,text,word", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_broken_config_one_line_exit_2(tmp_path, capsys, name, text, word):
    p = tmp_path / f"{name}.toml"
    p.write_text(text, encoding="utf-8")
    assert main(["check-config", str(p)]) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert word in lines[0] and str(p) in lines[0]
    assert "Traceback" not in err


def test_missing_config_file(capsys, tmp_path):
    assert main(["check-config", str(tmp_path / "nope.toml")]) == 2
    assert capsys.readouterr().err == f"buzzer: {tmp_path / 'nope.toml'}: нет такого файла\n"


def test_config_that_is_not_utf8(capsys, tmp_path):
    p = tmp_path / "latin.toml"
    p.write_bytes("mode = \"\xe9\"\n".encode("latin-1"))
    assert main(["check-config", str(p)]) == 2
    assert "UTF-8" in capsys.readouterr().err


SETUP = {"setup": {"mode": "erudite", "teams": [{"name": "Альфа", "button": "A"}, {"name": "Бета", "button": "B"}]}}

BROKEN_SCRIPTS = [
    ("not-json", ["{at: 1}"], 2),
    ("not-object", ["[1, 2]"], 2),
    ("no-at", ['{"press": "A"}'], 2),
    ("at-string", ['{"at": "1", "press": "A"}'], 2),
    ("at-negative", ['{"at": -1, "press": "A"}'], 2),
    ("two-kinds", ['{"at": 1, "press": "A", "host": "right"}'], 2),
    ("no-kind", ['{"at": 1}'], 2),
    ("unknown-field-press", ['{"at": 1, "press": "A", "force": 3}'], 2),
    ("unknown-field-host", ['{"at": 1, "host": "question", "colour": "red"}'], 2),
    ("unknown-button", ['{"at": 1, "press": "Z"}'], 2),
    ("unknown-action", ['{"at": 1, "host": "jump"}'], 2),
    ("delivered-before-at", ['{"at": 2, "press": "A", "delivered": 1}'], 2),
    ("hold-not-bool", ['{"at": 2, "press": "A", "hold": "yes"}'], 2),
    ("bad-tick", ['{"at": 2, "tick": 1}'], 2),
    ("bad-nominal", ['{"at": 2, "host": "question", "nominal": "ten"}'], 2),
    ("unknown-team", ['{"at": 2, "host": "disqualify", "team": "Омега"}'], 2),
    ("setup-late", ['{"at": 2, "tick": true}', json.dumps(SETUP)], 3),
]


@pytest.mark.parametrize("name,lines,bad_line", BROKEN_SCRIPTS, ids=[b[0] for b in BROKEN_SCRIPTS])
def test_broken_script_names_the_line(tmp_path, capsys, name, lines, bad_line):
    p = tmp_path / f"{name}.jsonl"
    p.write_text("\n".join([json.dumps(SETUP, ensure_ascii=False)] + lines) + "\n", encoding="utf-8")
    assert main(["simulate", str(p)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert f"{p}:{bad_line}:" in err[0]


@pytest.mark.parametrize("setup,word", [
    ({"setup": {"mode": "chess"}}, "mode"),
    ({"setup": {"teams": "many"}}, "teams"),
    ({"setup": {"settings": {"erudite.think_time_s": -7}}}, "erudite.think_time_s"),
    ({"setup": {"settings": {"erudite": {"nominals": []}}}}, "erudite.nominals"),
    ({"setup": {"seed": "x"}}, "seed"),
    ({"setup": {"players": 3}}, "players"),
])
def test_broken_setup(tmp_path, capsys, setup, word):
    p = tmp_path / "s.jsonl"
    p.write_text(json.dumps(setup) + "\n")
    assert main(["simulate", str(p)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and word in err[0] and ":1:" in err[0]


def test_missing_script_file(tmp_path, capsys):
    assert main(["simulate", str(tmp_path / "none.jsonl")]) == 2
    assert capsys.readouterr().err == f"buzzer: {tmp_path / 'none.jsonl'}: нет такого файла\n"


def test_real_process_prints_no_traceback(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text("[arbiter]\nsettle_ms = \"fast\"\n")
    out = subprocess.run([sys.executable, "-m", "controller.cli", "check-config", str(p)], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.strip() == f"buzzer: {p}: arbiter.settle_ms: нужно число, а не 'fast'"
