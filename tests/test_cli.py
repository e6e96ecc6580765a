"""The ``buzzer`` command: ``simulate`` and ``check-config`` on real files.

Most cases call :func:`controller.cli.main` in-process (fast); one of each
runs the real ``python -m controller.cli`` to make sure a user sees one line
and no traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from controller import cli
from controller.app import config

ROOT = Path(__file__).resolve().parent.parent
TEAMS = [{"name": "Альфа", "button": "A"}, {"name": "Бета", "button": "B"}]


def buzzer(capsys, *args):
    rc = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out, err


def write_lines(tmp_path, lines, name="game.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x, ensure_ascii=False) for x in lines) + "\n",
                    encoding="utf-8")
    return path


def one_error_line(err):
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


# =========================================================================
# buzzer simulate

def test_simulate_prints_the_game_as_json(tmp_path, capsys):
    path = write_lines(tmp_path, [{"setup": {"teams": TEAMS, "seed": 99}},
                                  {"at": 1, "host": "question", "theme": "Реки"},
                                  {"at": 3.5, "press": "B", "delivered": 3.5009},
                                  {"at": 3.4992, "press": "A", "delivered": 3.5012},
                                  {"at": 5, "host": "wrong"},
                                  {"at": 5.5, "press": "B"},
                                  {"at": 6, "host": "right"},
                                  {"at": 7, "host": "question"},
                                  {"at": 7.5, "press": "A"},
                                  {"at": 8, "host": "wrong"}])
    rc, out, err = buzzer(capsys, "simulate", path)
    assert rc == 0 and err == ""
    data = json.loads(out)
    assert data["scores"] == {"Альфа": -30, "Бета": 10}
    assert [r["team"] for r in data["standings"]] == ["Бета", "Альфа"]
    assert data["seed"] == 99
    q1, q2 = data["questions"]
    assert (q1["nominal"], q2["nominal"]) == (10, 20)
    assert [(r["button"], r["gap_ms"]) for r in q1["presses"][:2]] == [("A", 0.0), ("B", 0.8)]
    assert [(a["team"], a["result"], a["delta"]) for a in q1["answers"]] == [("Альфа", "wrong", -10),
                                                                            ("Бета", "right", 10)]
    assert q2["answers"] == [{"team": "Альфа", "result": "wrong", "delta": -20, "at": 8.0}]
    assert any(e["kind"] == "answer_right" for e in data["events"])


def test_simulate_the_shipped_example(capsys):
    rc, out, _ = buzzer(capsys, "simulate", ROOT / "examples" / "erudite-round.jsonl")
    assert rc == 0
    assert json.loads(out)["scores"] == {"Альфа": -10, "Бета": 0, "Гамма": 10, "Дельта": 30}


@pytest.mark.parametrize("line, word", [
    ('{"at": 2, "press": "A", "colour": "red"}', "colour"),
    ('{"at": 2, "press": ', "JSON"),
    ('{"press": "A"}', '"at"'),
    ('{"at": 2, "press": "Q"}', '"Q"'),
    ('{"at": 2, "host": "explode"}', "explode"),
])
def test_simulate_a_malformed_line_is_one_line_naming_it_exit_2(tmp_path, capsys, line, word):
    path = write_lines(tmp_path, [{"setup": {"teams": TEAMS}}, {"at": 1, "host": "question"}, "", line])
    rc, out, err = buzzer(capsys, "simulate", path)
    assert rc == 2 and out == ""
    msg = one_error_line(err)
    assert f"{path}:4:" in msg and word in msg


def test_simulate_a_missing_script(capsys, tmp_path):
    rc, _, err = buzzer(capsys, "simulate", tmp_path / "nope.jsonl")
    assert rc == 2
    assert one_error_line(err) == f"buzzer: {tmp_path / 'nope.jsonl'}: нет такого файла"


@pytest.mark.parametrize("config, line", [
    (None, 'ошибка в JSON (Expecting \',\' delimiter, столбец 21)'),
    ('language = "en"\n', 'not valid JSON (Expecting \',\' delimiter at column 21)'),
])
def test_a_bad_script_line_is_named_in_the_hosts_language(tmp_path, capsys, config, line):
    script = tmp_path / "game.jsonl"
    script.write_text('{"at": 0, "press": "A"}\n{"at":0,"host":"zap"\n', encoding="utf-8")
    extra = []
    if config:
        (tmp_path / "en.toml").write_text(config, encoding="utf-8")
        extra = ["--config", tmp_path / "en.toml"]
    rc, out, err = buzzer(capsys, "simulate", script, *extra)
    assert rc == 2 and out == "" and one_error_line(err) == f"buzzer: {script}:2: {line}"


@pytest.mark.parametrize("argv, message", [
    (["simulate", "{tmp}/nope.jsonl"], "{tmp}/nope.jsonl: нет такого файла"),
    (["simulate", "{tmp}"], "{tmp}: это папка, а не файл"),
    (["screenshot", "{tmp}/nope.jsonl", "--at", "1", "--out", "{tmp}/x.png"], "{tmp}/nope.jsonl: нет такого файла"),
    (["screenshot", "{tmp}/nope.jsonl", "--at", "1", "--out", "{tmp}/x.png", "--lang", "en"],
     "{tmp}/nope.jsonl: file not found"),
    (["simulate", str(ROOT / "examples" / "erudite-round.jsonl"), "--config", "{tmp}/nope.toml"],
     "{tmp}/nope.toml: нет такого файла"),
    (["check-config", "{tmp}/nope.toml"], "{tmp}/nope.toml: нет такого файла"),
    (["tournament", "{tmp}/nope"], "{tmp}/nope: нет такой папки"),
    (["tournament", "{tmp}/nope", "--lang", "en"], "{tmp}/nope: folder not found"),
    (["protocol", "check", "{tmp}/nope.json"], "{tmp}/nope.json: нет такого файла"),
    (["protocol", "check", "{tmp}/nope.json", "--lang", "en"], "{tmp}/nope.json: file not found"),
    (["run", "--event", "{tmp}/nope.toml"], "{tmp}/nope.toml: файл события не найден"),
    (["run", "--event", "{tmp}/nope.toml", "--lang", "en"], "{tmp}/nope.toml: event file not found"),
    (["screenshot", str(ROOT / "examples" / "chgk.jsonl"), "--at", "1", "--out", "{tmp}/no/dir/y.png"],
     "--out: нет такой папки: {tmp}/no/dir"),
    (["screenshot", str(ROOT / "examples" / "chgk.jsonl"), "--at", "1", "--out", "{tmp}/no/dir/y.png", "--lang", "en"],
     "--out: folder does not exist: {tmp}/no/dir"),
])
def test_a_missing_file_is_named_without_a_line_number(tmp_path, capsys, argv, message):
    """A file that is not there has no line 0: the message is `FILE: problem`."""
    rc, out, err = buzzer(capsys, *[a.replace("{tmp}", str(tmp_path)) for a in argv])
    assert rc == 2 and out == ""
    assert one_error_line(err) == "buzzer: " + message.replace("{tmp}", str(tmp_path))


def test_simulate_error_in_a_real_process_has_no_traceback(tmp_path):
    path = write_lines(tmp_path, [{"at": 1, "host": "question"}, '{"at": 2, "host": "explode"}'])
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "simulate", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert ":2:" in one_error_line(proc.stderr)


@pytest.mark.parametrize("line, field", [
    ('{"at": 1e400, "host": "question"}', "at"),
    ('{"at": NaN, "host": "question"}', "at"),
    ('{"at": Infinity, "tick": true}', "at"),
    ('{"at": 1e300, "host": "question"}', "at"),
    ('{"at": 2, "press": "A", "delivered": 1e400}', "delivered"),
    ('{"at": 2, "press": "A", "quiet": NaN}', "quiet"),
    ('{"at": 2, "host": "question", "nominal": 1e400}', "nominal"),
    ('{"at": 2, "host": "question", "nominal": -Infinity}', "nominal"),
    ('{"at": 2, "host": "rename", "team": 1, "name": "X", "value": [1, NaN]}', "value"),
    ('{"at": 2, "host": "question", "nominal": 1e300}', "nominal"),
    ('{"at": 2, "host": "question", "nominal": 1000000000000000000000000000000000000000000}', "nominal"),
    ('{"setup": {"teams": [], "settings": {"erudite.think_time_s": 1e400}}}', "settings"),
])
def test_a_non_finite_or_huge_number_in_a_script_is_one_line_naming_line_and_field(tmp_path, capsys, line,
                                                                                    field):
    """JSON allows 1e400 (infinity) and Python's parser NaN: a script line with one is refused
    by line and field like any other bad line (exit 2), never an OverflowError's traceback."""
    head = [] if line.startswith('{"setup"') else [{"setup": {"teams": TEAMS}}, {"at": 1, "host": "question"}]
    path = write_lines(tmp_path, [*head, line])
    rc, out, err = buzzer(capsys, "simulate", path)
    assert rc == 2 and out == ""
    msg = one_error_line(err)
    assert msg.startswith(f"buzzer: {path}:{len(head) + 1}: ") and f'"{field}"' in msg


# =========================================================================
# buzzer check-config

GOOD = """\
mode = "erudite"

[arbiter]
settle_ms = 3.0

[erudite]
think_time_s = 7
after_wrong = "resume"

[[teams]]
name = "Альфа"
button = "A"
players = 3

[[teams]]
name = "Бета"
button = "B"
"""


def test_check_config_good_file(tmp_path, capsys):
    path = tmp_path / "good.toml"
    path.write_text(GOOD, encoding="utf-8")
    rc, out, err = buzzer(capsys, "check-config", path)
    assert rc == 0 and err == ""
    assert "OK" in out and "2 команды" in out


def test_check_config_describes_a_mafia_table_by_its_seats(capsys):
    rc, out, _ = buzzer(capsys, "check-config", ROOT / "config" / "mafia.toml")
    assert rc == 0
    assert out.endswith("mafia.toml: OK (Мафия, 10 мест, 10 имён игроков, кнопки: keyboard)\n")
    assert "команд" not in out


def test_check_config_names_own_game_players_and_programme_rounds(capsys):
    assert "3 игрока" in buzzer(capsys, "check-config", ROOT / "config" / "own-game.toml")[1]
    assert "3 раунда" in buzzer(capsys, "check-config", ROOT / "examples" / "programme.toml")[1]


@pytest.mark.parametrize("mode, section, key, limit", [("erudite", "erudite", "max_teams", 4),
                                                       ("brain-ring", "brain_ring", "max_teams", 3),
                                                       ("own-game", "own_game", "max_players", 3)])
def test_more_teams_than_the_game_seats_is_one_translated_line_naming_the_limit_key(tmp_path, capsys, mode,
                                                                                  section, key, limit):
    """A class puts more teams on phones than the game seats: one line, in the config's language,
    naming the key that would seat them (not a game's English sentence without the key)."""
    teams = "".join(f'[[teams]]\nname = "T{i}"\nbutton = "{chr(65 + i)}"\n' for i in range(limit + 1))
    path = tmp_path / "class.toml"
    for lang, words in (("ru", f"команд {limit + 1}, а можно не больше {limit}"),
                        ("en", f"{limit + 1} teams, at most {limit} here")):
        if mode == "own-game":
            words = words.replace("команд", "игроков").replace("teams", "players")
        path.write_text(f'mode = "{mode}"\nlanguage = "{lang}"\n[{section}]\n{key} = {limit}\n{teams}',
                        encoding="utf-8")
        rc, out, err = buzzer(capsys, "check-config", path)
        msg = one_error_line(err)
        assert rc == 2 and out == ""
        assert msg.startswith(f"buzzer: {path}: teams: {words} ({section}.{key})"), msg


def test_the_class_on_phones_example_validates(capsys):
    """examples/phones-class.toml (docs/phones.md, «A class: four teams on phones»): `check-config
    -c` passes; four teams, none with a key (they press on their phones), the pages open to the
    classroom's network, phones on."""
    from controller.app import config as config_mod

    path = ROOT / "examples" / "phones-class.toml"
    rc, out, err = buzzer(capsys, "check-config", "-c", path)
    assert (rc, err) == (0, "") and out.endswith("phones-class.toml: OK (Эрудит-квартет, 4 команды, кнопки: keyboard, на телефонах: 4)\n")
    cfg = config_mod.load(path)
    assert [(t["key"], t.get("phone")) for t in cfg["teams"]] == [("", True)] * 4 and cfg["phones"]["enabled"]
    assert cfg["web"]["bind"] == "0.0.0.0" and cfg["display"]["host_overlay"] is False


def test_check_config_without_a_file_checks_the_default_config():
    """`buzzer check-config` with no FILE checks what `buzzer run` would load (docs/cli.md: [FILE])."""
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "check-config"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout == "config/default.toml: OK (Эрудит-квартет, 4 команды, кнопки: keyboard)\n"


def test_check_config_answers_in_the_configs_language_with_the_games_title(tmp_path, capsys):
    """`FILE: OK` stays as it is (what a script looks for); the summary is for people: in the
    config's language, naming the game by its title, not by its mode id."""
    path = tmp_path / "good.toml"
    path.write_text(GOOD, encoding="utf-8")
    assert buzzer(capsys, "check-config", path)[1] == f"{path}: OK (Эрудит-квартет, 2 команды, кнопки: keyboard)\n"
    path.write_text('language = "en"\n' + GOOD, encoding="utf-8")
    assert buzzer(capsys, "check-config", path)[1] == f"{path}: OK (Erudite Quartet, 2 teams, buttons keyboard)\n"
    en = tmp_path / "mafia-en.toml"
    en.write_text('mode = "mafia"\nlanguage = "en"\n', encoding="utf-8")
    out = buzzer(capsys, "check-config", en)[1]
    assert out == f"{en}: OK (Mafia, 10 seats, buttons keyboard)\n" and "mode" not in out


def test_check_config_takes_the_config_as_c_or_config_like_every_subcommand(tmp_path, capsys):
    """`-c FILE` / `--config FILE` is the config in every subcommand; check-config takes it too,
    and the positional FILE keeps working."""
    path = tmp_path / "good.toml"
    path.write_text(GOOD, encoding="utf-8")
    positional = buzzer(capsys, "check-config", path)
    assert positional[0] == 0 and "2 команды" in positional[1]
    assert buzzer(capsys, "check-config", "-c", path) == positional
    assert buzzer(capsys, "check-config", "--config", path) == positional
    assert buzzer(capsys, "check-config", path, "-c", path) == positional      # the same file twice: fine
    other = ROOT / "config" / "mafia.toml"
    rc, out, err = buzzer(capsys, "check-config", path, "--config", other)
    assert rc == 2 and out == ""
    msg = one_error_line(err)
    assert str(path) in msg and str(other) in msg and "--config" in msg
    event = ROOT / "examples" / "event.toml"   # an event file as FILE: checked with the --config
    assert buzzer(capsys, "check-config", event, "-c", ROOT / "config" / "default.toml") == \
        buzzer(capsys, "check-config", event)


def test_check_config_the_shipped_default(capsys):
    rc, out, _ = buzzer(capsys, "check-config", ROOT / "config" / "default.toml")
    assert rc == 0 and "OK" in out


@pytest.mark.parametrize("text, key", [
    ("[erudite]\nthink_time = 7\n", "erudite.think_time"),               # unknown key
    ("colour = 1\n", "colour"),                                          # unknown top-level key
    ('[erudite]\nthink_time_s = "seven"\n', "erudite.think_time_s"),     # wrong type
    ("[arbiter]\nsettle_ms = -1\n", "arbiter.settle_ms"),                # out of range
    ('[arbiter]\ntie_rule = "coin"\n', "arbiter.tie_rule"),              # not a choice
    ("[erudite]\nnominals = [10, 0]\n", "erudite.nominals"),
    ("[erudite]\nmax_teams = 99\n", "erudite.max_teams"),
    ('[[teams]]\nname = "A"\nplayers = 1\n', "teams[0].players"),        # too few players
    ("".join(f'[[teams]]\nname = "T{i}"\n' for i in range(5)), "teams"),  # five teams
])
def test_check_config_bad_value_is_one_line_naming_the_key(tmp_path, capsys, text, key):
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    rc, out, err = buzzer(capsys, "check-config", path)
    assert rc == 2 and out == ""
    msg = one_error_line(err)
    assert f"{path}: {key}:" in msg


def _number_keys():
    for sec in config.schema():
        for k in sec.keys:
            kind = k.items if k.kind == "list" else k.kind
            if kind in ("int", "float", "number") and not k.choices:
                yield sec.name, k


@pytest.mark.parametrize("bad", ["nan", "inf", "-inf", "1e300", "-1e300", "1000000000000000000"])
def test_check_config_refuses_non_finite_and_huge_numbers_for_every_number_key(tmp_path, capsys, bad):
    """Every number key of the schema: NaN, infinities and absurd magnitudes are one line naming
    the key (issue 24 item 7: `flash_s = inf` used to pass and kill `buzzer run`)."""
    keys = list(_number_keys())
    assert len(keys) > 50
    for section_name, k in keys:
        value = f"[{bad}]" if k.kind == "list" else bad
        text = (f"[{section_name}]\n" if section_name else "") + f"{k.name} = {value}\n"
        path = tmp_path / "bad.toml"
        path.write_text(text, encoding="utf-8")
        rc, out, err = buzzer(capsys, "check-config", path)
        where = f"{section_name}.{k.name}" if section_name else k.name
        assert rc == 2 and out == "", (where, bad, out)
        assert f"{path}: {where}" in one_error_line(err), (where, bad, err)


def test_run_with_an_infinite_flash_is_refused_at_start_in_one_line(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("[display]\nflash_s = inf\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--headless", "-c", str(path)],
                          cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "display.flash_s: должно быть конечным числом, а не inf" in one_error_line(proc.stderr)


def test_check_config_bad_toml(tmp_path, capsys):
    path = tmp_path / "bad.toml"
    path.write_text("[erudite\nthink_time_s = 7\n", encoding="utf-8")
    rc, _, err = buzzer(capsys, "check-config", path)
    assert rc == 2
    msg = one_error_line(err)
    assert f"{path}: ошибка в TOML, строка 1, столбец 9: " in msg


def test_check_config_bad_toml_in_english_when_the_config_says_so(tmp_path, capsys):
    path = tmp_path / "bad.toml"
    path.write_text('language = "en"\n[erudite\n', encoding="utf-8")
    rc, _, err = buzzer(capsys, "check-config", path)
    assert rc == 2 and f"{path}: bad TOML: " in one_error_line(err) and "(at line 2, column 9)" in err


def test_check_config_missing_file(tmp_path, capsys):
    rc, _, err = buzzer(capsys, "check-config", tmp_path / "missing.toml")
    assert rc == 2
    assert one_error_line(err) == f"buzzer: {tmp_path / 'missing.toml'}: нет такого файла"


def test_a_missing_config_in_english_with_lang_en(tmp_path, capsys):
    rc, _, err = buzzer(capsys, "run", "--headless", "--lang", "en", "-c", tmp_path / "missing.toml")
    assert rc == 2 and one_error_line(err) == f"buzzer: {tmp_path / 'missing.toml'}: config file not found"


@pytest.mark.parametrize("toml, lang, line", [
    ("[erudite]\nthink_time_s = -1.0\n", None, "erudite.think_time_s: должно быть больше 0, а не -1.0"),
    ("[erudite]\nthink_time_s = -1.0\n", "en", "erudite.think_time_s: must be > 0, got -1.0"),
    ('language = "en"\n[erudite]\nthink_time_s = -1.0\n', None, "erudite.think_time_s: must be > 0, got -1.0"),
    ("[erudit]\n", None, "erudit: неизвестный ключ или раздел; есть: arbiter, "),
    ("[erudite]\nthink_time = 7\n", None, "erudite.think_time: неизвестный ключ; в [erudite] есть: "),
    ('[erudite]\nthink_time_s = "seven"\n', None, "erudite.think_time_s: нужно число, а не 'seven'"),
    ("[arbiter]\nsettle_ms = 5000\n", None, "arbiter.settle_ms: должно быть не больше 1000, а не 5000"),
    ('[arbiter]\ntie_rule = "coin"\n', None, "arbiter.tie_rule: должно быть одно из: "),
    ('[[teams]]\nname = "A"\n[[teams]]\nname = "A"\n', None, "teams[1].name: у другой команды уже есть имя 'A'"),
    ('[[teams]]\nname = "A"\nsound = "boom"\n[[teams]]\nname = "B"\n', None,
     "teams[0].sound: нужно имя звука (press-1, press-2, press-3, press-4, press-5, press-6, press-7, press-8) "
     "или файл .wav, а не 'boom'"),
    ('mode = "programme"\n[programme]\nrounds = [{ mode = "tennis" }]\n', None,
     "programme.rounds: [0].mode: должно быть одно из: erudite, own-game, brain-ring, chgk; а не 'tennis'"),
    ('mode = "programme"\n[programme]\nrounds = [{ mode = "tennis" }]\n', "en",
     "programme.rounds: [0].mode: must be one of erudite, own-game, brain-ring, chgk; got 'tennis'"),
    ('mode = "programme"\n[programme]\nrounds = [{ mode = "chgk", colour = 1 }]\n', None,
     "programme.rounds: [0].colour: неизвестный ключ; можно: mode, title, settings"),
    ('mode = "programme"\n[programme]\nrounds = [{ mode = "chgk", title = 3 }]\n', None,
     "programme.rounds: [0].title: нужна строка, а не 3"),
    ('mode = "programme"\n[programme]\nrounds = [{ mode = "chgk", settings = 3 }]\n', None,
     "programme.rounds: [0].settings: нужна таблица, а не 3"),
    ('mode = "programme"\n[programme]\nrounds = []\n', None,
     "programme.rounds: в программе нужна хотя бы одна игра"),
])
def test_a_config_problem_is_one_line_in_the_hosts_language_with_its_key(tmp_path, capsys, toml, lang, line):
    """The key path stays as typed; the words are Russian unless --lang or the config says English."""
    path = tmp_path / "bad.toml"
    path.write_text(toml, encoding="utf-8")
    rc, out, err = buzzer(capsys, "run", "--headless", "-c", path, *(["--lang", lang] if lang else []))
    assert rc == 2 and out == ""
    assert one_error_line(err).startswith(f"buzzer: {path}: {line}")


def test_check_config_error_in_a_real_process_has_no_traceback(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('[erudite]\nafter_wrong = "rewind"\n', encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "check-config", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "erudite.after_wrong" in one_error_line(proc.stderr)


# =========================================================================
# generated files stay in step with the schema

def test_default_toml_is_the_generated_text(capsys):
    text = (ROOT / "config" / "default.toml").read_text(encoding="utf-8")
    assert text == config.default_toml(), "regenerate: buzzer check-config --print-default > config/default.toml"
    rc, out, _ = buzzer(capsys, "check-config", "--print-default")
    assert rc == 0 and out == text


def test_config_docs_are_the_generated_text(capsys):
    text = (ROOT / "docs" / "config.md").read_text(encoding="utf-8")
    assert text == config.docs_markdown(), "regenerate: buzzer check-config --print-docs > docs/config.md"
    rc, out, _ = buzzer(capsys, "check-config", "--print-docs")
    assert rc == 0 and out == text


def test_default_toml_loads_to_the_defaults():
    assert config.load(ROOT / "config" / "default.toml") == config.defaults()


# =========================================================================
# how the program tells the user to start it again

@pytest.mark.parametrize("argv0, on_path, shown", [
    (".venv/bin/buzzer", None, ".venv/bin/buzzer"),           # after make run: not on PATH
    ("/usr/local/bin/buzzer", "/usr/local/bin/buzzer", "buzzer"),
    ("/opt/x/controller/cli.py", None, "buzzer"),            # python -m controller.cli
])
def test_the_command_to_type_again_is_the_one_that_works(monkeypatch, argv0, on_path, shown):
    import shutil
    monkeypatch.setattr(sys, "argv", [argv0])
    monkeypatch.setattr(shutil, "which", lambda name: on_path)
    assert cli.command_name() == shown


def test_an_unfinished_game_names_the_venv_command_to_resume_it(tmp_path):
    buzzer = Path(sys.executable).with_name("buzzer")
    if not buzzer.exists():
        pytest.skip("buzzer is not installed next to this python")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "bin").symlink_to(buzzer.parent)
    import os
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                           if not (Path(p) / "buzzer").exists())  # as after make run: not on PATH
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PATH=path)
    proc = subprocess.run([".venv/bin/buzzer", "run", "--headless", "--seconds", "0.2"], cwd=tmp_path, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    # nothing was played: the next start begins anew, and the line says so -- naming the same command
    assert proc.stdout.splitlines()[-1] == \
        "Ничего не сыграно: `.venv/bin/buzzer run` начнёт новую игру (этот журнал уйдёт в архив)."


# =========================================================================
# what ``buzzer run`` prints as it starts

def start(tmp_path, *args, stdin=""):
    import os
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--headless", "--seconds", "0.3",
                           "--config", "game.toml", *args], cwd=tmp_path, env=env, input=stdin,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return [line for line in proc.stdout.splitlines() if line.strip() and "█" not in line]  # no QR code


def test_start_up_says_each_thing_once_and_the_port_line_stands_with_the_addresses(tmp_path):
    import socket
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        (tmp_path / "game.toml").write_text(f"[web]\nport = {port}\nnext_free_port = true\n", encoding="utf-8")
        lines = start(tmp_path)
    moved = [i for i, line in enumerate(lines) if f"Занят порт {port}" in line]
    assert len(moved) == 1, lines                                   # said once, not again as a notice
    assert lines[moved[0] + 1].startswith("Веб-страницы:"), lines   # right above the addresses
    # the key hint is the terminal's (with its status, when keys can be typed): not a stray line
    assert not any("подсказка по клавишам" in line for line in lines[:moved[0] + 2]), lines


def test_a_resumed_game_is_announced_once(tmp_path):
    (tmp_path / "game.toml").write_text("", encoding="utf-8")
    start(tmp_path, stdin="q")            # a press: the journal holds an event
    lines = start(tmp_path)               # resumed (nobody to ask: the same game goes on)
    assert any(line.startswith("Незавершённая игра продолжена") for line in lines), lines
    assert not any("Игра продолжена после перезапуска" in line for line in lines), lines


@pytest.mark.parametrize("keys, words", [
    ('right = ["return"]\nwrong = ["return"]\n', ('keys.wrong', "'return'", '"right"', '"wrong"')),
    ('right = ["n"]\n', ('keys.right', "'n'", '"question"', '"right"')),
])
def test_check_config_refuses_two_host_actions_on_one_key(tmp_path, capsys, keys, words):
    """A key does one thing: `right` and `wrong` both on Enter, or `right` on the next-question
    key, leaves one of them unreachable; check-config says so in one line naming both and the key."""
    path = tmp_path / "keys.toml"
    path.write_text("[keys]\n" + keys, encoding="utf-8")
    rc, out, err = buzzer(capsys, "check-config", path)
    assert rc == 2 and out == ""
    one_error_line(err)
    assert all(w in err for w in words), err


@pytest.mark.parametrize("lang, line", [
    (None, "пакет из --pack не сыграть (nope.siq: нет такого файла); ничего не изменено"),
    ("en", "the package given with --pack cannot be played (nope.siq: file not found); nothing was changed"),
])
def test_a_missing_pack_is_one_line_in_one_language(tmp_path, capsys, monkeypatch, lang, line):
    monkeypatch.chdir(tmp_path)
    rc, out, err = buzzer(capsys, "run", "--headless", "-c", ROOT / "config" / "own-game.toml", "--pack", "nope.siq",
                          *(["--lang", lang] if lang else []))
    assert rc == 2 and one_error_line(err) == f"buzzer: {line}"


@pytest.mark.parametrize("argv, line", [
    (["x"], "неизвестная команда «x»; buzzer --help — список"),
    (["run", "--lang", "de"], "--lang: нет варианта «de»; можно: ru, en; buzzer run --help — все параметры"),
    (["screenshot", "a.jsonl", "--at", "abc", "--out", "x.png"],
     "--at: «abc» — не число; buzzer screenshot --help — все параметры"),
    (["run", "--bogus"], "неизвестные аргументы: --bogus; buzzer run --help — все параметры"),
    (["simulate"], "не указано: script; buzzer simulate --help — все параметры"),
    (["run", "-c"], "--config/-c: нужно значение; buzzer run --help — все параметры"),
    (["run", "--lang", "en", "--bogus"], "unrecognized arguments: --bogus; see buzzer run --help"),
    (["screenshot", "a.jsonl", "--at", "abc", "--out", "x.png", "--lang", "en"],
     "--at: 'abc' is not a number; see buzzer screenshot --help"),
])
def test_a_mistyped_command_line_is_one_line_in_the_hosts_words(capsys, argv, line):
    """Not argparse's usage block in English: one line naming the mistake and the help to read."""
    with pytest.raises(SystemExit) as exit_:
        cli.main(argv)
    out, err = capsys.readouterr()
    assert exit_.value.code == 2 and out == "" and err == f"buzzer: {line}\n"


def test_a_mistyped_option_speaks_the_language_of_the_config_it_names(tmp_path, capsys):
    cfg = tmp_path / "en.toml"
    cfg.write_text('language = "en"\n', encoding="utf-8")
    with pytest.raises(SystemExit):
        cli.main(["run", "-c", str(cfg), "--lang", "de"])
    assert capsys.readouterr().err == "buzzer: --lang: no such choice 'de'; choose from ru, en; see buzzer run --help\n"


# --- --help in the host's language ------------------------------------------------------------------

def _parsers(parser=None, path=()):
    """Every parser of ``buzzer`` with the words that reach it: (), ("run",), ("pack", "show"), …"""
    import argparse

    parser = parser or cli.build_parser()
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, (*path, name))


def help_of(capsys, *argv):
    with pytest.raises(SystemExit) as exit_:
        cli.main(list(argv))
    out, err = capsys.readouterr()
    assert exit_.value.code == 0 and err == "", err
    return " ".join(out.split())   # argparse's wrapping left out


def test_buzzer_help_is_russian_by_default_and_english_when_chosen(capsys):
    ru = help_of(capsys, "--help")
    assert ru.startswith("использование: buzzer [-h] [--version] [--lang {ru,en}] COMMAND ...")
    for words in ("позиционные аргументы:", "параметры:", "-h, --help показать эту справку и выйти",
                  "run провести игру", "check-config проверить файл конфигурации",
                  "Контроллер кнопок и таймера для интеллектуальных игр."):
        assert words in ru, words
    assert "usage:" not in ru and "options:" not in ru and "play a game" not in ru
    en = help_of(capsys, "--help", "--lang", "en")
    assert en.startswith("usage: buzzer [-h] [--version] [--lang {ru,en}] COMMAND ...")
    assert help_of(capsys, "--lang", "en", "--help") == en   # before --help as well
    for words in ("positional arguments:", "options:", "-h, --help show this help message and exit",
                  "run play a game", "Buzzer and timer controller for quiz games."):
        assert words in en, words
    assert "параметры" not in en


def test_lang_before_the_command_is_the_commands_language(tmp_path, capsys):
    """``buzzer --lang en COMMAND`` as ``buzzer COMMAND --lang en``: the help, the error line, and
    the game's language (it used to be read as the command «en»)."""
    assert "--new start a new game" in help_of(capsys, "--lang", "en", "run", "--help")
    assert cli.main(["--lang", "en", "check-config", str(tmp_path / "none.toml")]) == 2
    assert capsys.readouterr().err.strip() == f"buzzer: {tmp_path / 'none.toml'}: config file not found"
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONPATH=str(ROOT))
    played = subprocess.run([sys.executable, "-m", "controller.cli", "--lang", "en", "run", "--headless",
                             "--seconds", "0.2"], cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, timeout=120)
    assert played.returncode == 0, played.stderr
    assert "Erudite Quartet · Fight 1" in played.stdout and "Эрудит" not in played.stdout, played.stdout
    with pytest.raises(SystemExit):
        cli.main(["--lang", "xx", "run"])
    assert "«xx»" in capsys.readouterr().err


def test_a_commands_help_follows_its_config_and_its_lang(tmp_path, capsys):
    cfg = tmp_path / "en.toml"
    cfg.write_text('language = "en"\n', encoding="utf-8")
    assert "--new начать новую игру" in help_of(capsys, "run", "--help")
    assert "--new start a new game" in help_of(capsys, "run", "-c", str(cfg), "--help")
    assert "--new start a new game" in help_of(capsys, "run", "--lang", "en", "--help")
    assert "--json вывести JSON" in help_of(capsys, "pack", "show", "--help")


@pytest.mark.parametrize("path", [path for path, _ in _parsers()], ids=lambda p: " ".join(p) or "buzzer")
def test_every_commands_help_renders_in_both_languages(capsys, path):
    ru = help_of(capsys, *path, "--help")
    assert ru.startswith(f"использование: {' '.join(('buzzer', *path))}") and "параметры:" in ru
    en = help_of(capsys, *path, "--help", "--lang", "en")
    assert en.startswith(f"usage: {' '.join(('buzzer', *path))}") and "options:" in en
    assert "использование" not in en and "usage:" not in ru


def test_every_help_text_is_in_the_catalogs_as_the_code_says_it():
    """Each command's, argument's and subcommand's help has its key (``cli.help_key``) in every
    catalog, and the English catalog says what the code says (the English a reader sees there)."""
    import argparse

    from controller import i18n

    for _, parser in _parsers():
        texts = {cli.help_key(parser.prog): parser.description} if parser.description else {}
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                texts.update({cli.help_key(parser.prog, c.dest): c.help for c in action._choices_actions})
            elif action.help not in (None, argparse.SUPPRESS):
                key = cli.ARGPARSE_WORDS.get(action.help) or cli.help_key(parser.prog, action.dest)
                texts[key] = action.help
        for key, english in texts.items():
            assert i18n.messages("en").get(key) == english, key
            assert key in i18n.messages("ru"), key
