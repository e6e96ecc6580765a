"""Each host action declared once (controller/games/actions.py; issue 26): the host page's
forms, the web server's check, the scripted session's check and what a notice depends on
all come from the games' declarations, so none of them can disagree with another."""

from __future__ import annotations

import asyncio
import dataclasses
import os
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import pytest  # noqa: E402

from controller import games  # noqa: E402
from controller.sessions import script  # noqa: E402
from controller.app.config import build, load  # noqa: E402
from controller.games import engine  # noqa: E402
from controller.core.errors import ScriptError  # noqa: E402
from controller.games import actions  # noqa: E402
from controller.screens import notices, viewmodel  # noqa: E402
from controller.web.server import parse_action  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def test_every_game_declares_each_of_its_actions_once_and_the_games_agree():
    for name in games.names():
        game = games.get(name)
        assert [a.name for a in game.actions] == list(game.host_actions), name
        assert all(a.rule is game.host_actions[a.name] for a in game.actions), name
    merged = games.declared_actions()        # raises if two games declare a field differently
    assert merged["rename"].param("name").max_len == 40
    assert merged["end_game"].destructive and not merged["right"].destructive


def test_a_declaration_with_a_field_twice_differently_is_refused():
    a = actions.Action("x", params=(actions.Param("n", "number"),))
    b = actions.Action("x", params=(actions.Param("n", "text"),))
    with pytest.raises(ValueError, match="'n' is declared twice differently"):
        actions.merge([(a,), (b,)])
    with pytest.raises(ValueError, match="without a rule"):
        actions.declare({"y": None}, {"x": actions.Spec()})
    with pytest.raises(ValueError, match="a form cannot ask for a list"):
        actions.Param("teams", "list", form=True)


def _rename_form(cfg) -> dict:
    state = engine.new_game(cfg, 1)
    item = next(a for a in viewmodel.web_actions(state, "ru", engine.view(state)) if a["action"] == "rename")
    return {p["name"]: p for p in item["params"]}


def test_the_form_the_server_and_the_scripts_follow_one_changed_declaration(monkeypatch):
    """Change one declaration (every game's rename takes names of at most 5 characters and a
    notice depends on the stage): the host page's form, the web server and the notices change
    with it; the scripted session takes every field the declaration names and no other."""
    def tighten(game):
        out = []
        for a in game.actions:
            if a.name == "rename":
                a = dataclasses.replace(a, params=tuple(dataclasses.replace(p, max_len=5) if p.name == "name" else p
                                                        for p in a.params))
            out.append(a)
        return tuple(out)

    for name in games.names():
        monkeypatch.setattr(type(games.get(name)), "actions", tighten(games.get(name)))
    monkeypatch.setattr(type(games.get("erudite")), "notices", {**games.get("erudite").notices, "rename_taken": "stage"})
    for cached in (games.declared_actions, games.notice_scopes, notices.scopes):
        cached.cache_clear()
    try:
        cfg = build({"mode": "erudite"}, base=load(None))
        assert _rename_form(cfg)["name"]["max_len"] == 5                       # the form
        assert parse_action({"host": "rename", "team": 1, "name": "Север"})[1]["name"] == "Север"
        with pytest.raises(ValueError, match="name: longer than 5 characters"):   # the server
            parse_action({"host": "rename", "team": 1, "name": "Севера"})
        assert notices.depends_on("rename_taken") == "stage"                    # the notices
    finally:
        monkeypatch.undo()
        for cached in (games.declared_actions, games.notice_scopes, notices.scopes):
            cached.cache_clear()
    assert notices.depends_on("rename_taken") is None
    with pytest.raises(ValueError, match="name: longer than 40 characters"):
        parse_action({"host": "rename", "team": 1, "name": "Я" * 41})


def test_the_server_takes_exactly_the_declared_fields_of_their_kinds():
    assert parse_action({"host": "pick", "theme": 2, "cell": 3}) == ("pick", {"theme": 2, "cell": 3})
    with pytest.raises(ValueError, match="theme: wrong type"):
        parse_action({"host": "pick", "theme": "Реки", "cell": 3})
    with pytest.raises(ValueError, match="cell: below 1"):
        parse_action({"host": "pick", "theme": 1, "cell": 0})
    assert parse_action({"host": "question", "theme": "Реки", "nominal": 30})[1] == {"theme": "Реки", "nominal": 30}
    with pytest.raises(ValueError, match="unknown field 'cell'"):
        parse_action({"host": "question", "cell": 1})
    with pytest.raises(ValueError, match="several values are not taken"):
        parse_action({"host": "tiebreak", "teams": [1, 2]})
    with pytest.raises(ValueError, match="unknown field"):
        parse_action({"host": "mute", "team": 1})                       # the program's own: no fields
    assert parse_action({"host": "vote", "seat": 3, "candidate": 5}) == ("vote", {"seat": 3, "candidate": 5})


def test_a_script_line_takes_the_fields_its_actions_declaration_names():
    ok = script.parse(['{"at": 1, "host": "pick", "theme": 1, "cell": 2}',
                       '{"at": 2, "host": "vote", "seat": 3, "voters": [1, 2]}',
                       '{"at": 3, "host": "no_such_action", "nominal": 3}'])   # the game's to refuse
    assert [e.params for _, e in ok.events][:2] == [{"theme": 1, "cell": 2}, {"seat": 3, "voters": [1, 2]}]
    # a field the format has always documented stays valid on any line (the action ignores it) ...
    assert script.parse(['{"at": 1, "host": "question", "cell": 2, "delay": 1}']).events[0][1].params == \
        {"cell": 2, "delay": 1}
    # ... any other must be one the action declares
    with pytest.raises(ScriptError, match='unknown field "colour" in a host line'):
        script.parse(['{"at": 1, "host": "question", "colour": 2}'])
    with pytest.raises(ScriptError, match='unknown field "colour" in a host line'):
        script.parse(['{"at": 1, "host": "no_such_action", "colour": 2}'])


def test_every_notice_scope_is_one_the_notices_know():
    assert set(notices.scopes().values()) <= set(notices.SCOPES)
    assert notices.depends_on("question_open") == "question" and notices.depends_on("mafia.no_speech") == "speech"


# -- every generated form, filled in real Chromium, is taken by the server -----------------

FILL = {"member": None, "number": 1, "real": 1, "text": "Тест", "player": 1}

SETUPS = {
    "erudite": ("", "", ()),
    "own-game": ('mode = "own-game"\n', "", ("--pack", str(ROOT / "examples" / "own-game.siq"))),
    "brain-ring": ('mode = "brain-ring"\n', "", ()),
    "chgk": ('mode = "chgk"\n', "", ()),
    "mafia": ('mode = "mafia"\n', "", ()),
}
"""A game of each mode whose declared actions have forms (the programme's are its rounds')."""


def test_the_setups_cover_every_game_with_a_form():
    with_forms = {n for n in games.names() if any(a.form() for a in games.get(n).actions)}
    assert with_forms == set(SETUPS)


FILL_JS = """(async (action) => {
  const f = document.querySelector('form[data-action=' + action + ']');
  document.querySelector('button[data-action=' + action + ']').click();
  if (f.hidden) document.querySelector('button[data-action=' + action + ']').click();
  const sent = [];
  const real = window.fetch;
  window.fetch = async (url, opts) => { const r = await real(url, opts); sent.push([opts.body, r.status, await r.clone().text()]); return r; };
  f.querySelectorAll('select, input').forEach((i) => {
    if (i.tagName === 'SELECT') { i.value = i.options[1].value; return; }
    const kind = i.dataset.kind;
    const fill = %s;
    i.value = String(kind === 'number' || kind === 'real' ? Math.max(Number(i.dataset.min || 1), 1) : fill[kind]);
  });
  f.querySelector('button.send').click();
  for (let k = 0; k < 600 && !sent.length; k++) await new Promise((r) => setTimeout(r, 50));
  window.fetch = real;
  return sent;
})('%s')"""


@pytest.mark.parametrize("mode", sorted(SETUPS))
def test_every_declared_form_filled_in_chromium_is_taken_by_the_server(tmp_path, mode):
    import json

    from tests.browser import Chromium, Game
    from tests.test_web_phone import phone

    top, extra, args = SETUPS[mode]
    game = Game(tmp_path, top=top, extra_config=extra, args=args, web_config="host_rate_per_s = 100.0\nhost_burst = 100\n")
    chromium = Chromium(tmp_path, size=(390, 844))
    try:
        async def scenario():
            page = await phone(chromium, f"{game.base}/host#token={game.token}")
            await page.wait_for("window.buzzer && window.buzzer.last && !!window.buzzer.last.host", timeout=60)
            host = await page.eval("window.buzzer.last.host.actions")
            offered = {a["action"]: a for a in host if a.get("params")}
            results = {}
            for action in sorted(offered):
                await page.wait_for(f"!!document.querySelector('form[data-action={action}]')", timeout=60)
                results[action] = await page.eval(FILL_JS % (json.dumps(FILL, ensure_ascii=False), action))
            await page.close()
            return offered, results

        offered, results = asyncio.run(scenario())
    finally:
        chromium.close()
        game.close()
    # every action this game declares with a form is offered (the ones that apply now: all here)
    declared = {a.name for a in games.get(mode).actions if a.form()}
    assert set(offered) == declared, mode
    for action, sent in results.items():
        assert len(sent) == 1, (action, sent)
        body, status, why = sent[0]
        assert status != 400, (mode, action, body, why)          # the server takes what the form sends
        # and this game takes the form's fields: a refusal is the rules' (422: not now), never a field's
        assert "takes no" not in why and "needs" not in why, (mode, action, body, why)
