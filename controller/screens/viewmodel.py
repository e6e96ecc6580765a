"""One view model: what every screen shows, split into the audience's part and the host's.

:func:`build` turns a game's view (``engine.view(state, now)``) and the shell's own
state (the host notice, the rename dialogue, the key help, the ruling flash, the
buttons' status) into one plain, JSON-ready value::

    {"seq": 12, "lang": "ru", "title": "Эрудит-квартет",
     "audience": {"game": {...}, "question_head": "Вопрос 1/5", "series_head": "", "flash": {...} | None,
                  "inputs": {...}, "screen": {...}},
     "host": {"notice": "...", "entry": {...} | None, "help": False,
              "keys": [{"action", "label", "keys", "key_labels", "twice"}], "actions": [...],
              "undo": {...} | None, "game": {...}, "links": {...}, "screen": {...}}}

``screen`` is the typed screen model (:mod:`controller.core.screen`) as the game presents
its view, its words in the model's language (:func:`screen_value`): the audience's widgets
under ``audience``, the host's part under ``host``.  ``game`` is the game's view as it is
(kept: ``/api/state`` is a public interface).

``audience`` is what the projector, ``/``, ``/overlay`` and ``/api/state`` show;
``host`` is for the host only (the host page, the terminal, the projector when
``[display] host_overlay`` asks for it).

Convention: a game's view may carry a key ``"host"`` with host-only fields (the
right answer of a question, once game packs exist).  :func:`build` moves it into
``host.game``; it never appears under ``audience`` (tests/test_viewmodel.py).

Nothing here names a game: what a game offers comes from its declarations
(``Game.actions``, :func:`controller.games.engine.actions_now`) and its view.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from controller import games
from controller.games import engine
from controller.core import screen as model
from controller.i18n import action_label, labels, t, template
from controller.screens.common import mode_title
from controller.screens.common import COUNTED, PRESS_TAG_KEYS, flash_words, key_label, question_head, series_head
from controller.inputs.keys import ON_THE_PAGE, PRESSED_TWICE, program_action

HOST_KEY = "host"
"""The key of a game view's host-only part."""


def page_labels(lang: str) -> dict[str, str]:
    """The live pages' texts (docs/web.md): every ``web.*`` message, and what the press order
    shows as the projector does -- the gap's unit (``gap_s``), a phone press's certainty
    (``press_unc``), a tag per press kind
    (``press_<kind>``), the kinds that are numbered in a wave's race (``counted``) and the
    captain's timer's name (``captain_timer``)."""
    out = labels("web", lang)
    out["gap_s"] = template("gap_s", lang)
    out["press_unc"] = template("press_unc", lang)   # a phone press's «±N мс» after its gap
    out.update({"press_" + kind: t(key, lang) for kind, key in PRESS_TAG_KEYS.items()})
    out["press_tie"] = t("press_tie", lang)
    out["captain_timer"] = t("captain_timer", lang)   # the projector's name for it
    out["counted"] = ",".join(COUNTED)
    return out


def split_view(view: Mapping[str, Any]) -> tuple[dict, dict]:
    """(audience part, host part) of a game's view: the ``"host"`` key moves to the host part."""
    game = dict(view)
    host = game.pop(HOST_KEY, None)
    return game, dict(host) if isinstance(host, Mapping) else {}


def flash_value(flash: Mapping[str, Any] | None, lang: str) -> dict | None:
    """A ruling flash with its words (so that a page needs no catalog to show it)."""
    if not flash:
        return None
    text, team = flash_words(flash, lang)
    return {"kind": str(flash.get("kind", "")), "team": flash.get("team"), "text": text, "line": team}


def undo_preview(state: Any, view: Mapping[str, Any], now: int | None) -> dict | None:
    """What the host's undo would change: the scores it would restore.

    A game that keeps its undo history as ``state.undo`` (the states before its last
    rulings, newest first) offers it; its view's ``teams`` with their ``score`` are compared
    with the view of the state undo would go back to."""
    history = getattr(state, "undo", None)
    if not history:
        return None
    try:
        before = engine.view(history[0], now)
    except Exception:  # an old state the game cannot show: no preview, never a crash
        return {"changes": []}
    changes = []
    for a, b in zip(view.get("teams") or (), before.get("teams") or ()):
        if isinstance(a, Mapping) and isinstance(b, Mapping) and a.get("score") != b.get("score"):
            changes.append({"team": a.get("name"), "score": a.get("score"), "after": b.get("score")})
    return {"changes": changes}


def key_help(keys: Mapping[str, Iterable[str]], lang: str, own: Mapping[str, str] | None = None) -> list[dict]:
    """The key help as a list: ``{"action", "label", "keys", "key_labels", "twice"}`` in the given order
    (``keys``: the key names as in config ``[keys]``; ``key_labels``: as the host reads them,
    «Пробел», «Num 0», as on the projector's key help; ``own``: the game's own label keys,
    :func:`own_labels`)."""
    return [{"action": a, "label": action_label(a, lang, own), "keys": list(names),
             "key_labels": list(dict.fromkeys(key_label(str(n), lang) for n in names)),
             "twice": a in PRESSED_TWICE}   # its first press only asks («Esc дважды»)
            for a, names in keys.items()]


def own_labels(state: Any) -> dict[str, str]:
    """Action -> the catalog key of the label the game in ``state`` declares for it (``Action.label``:
    «Мафия»'s rename renames a player); a programme: its current game's."""
    return {name: a.label for name, a in games.of_state(state).declared(state).items() if a.label}


def member_choices(view: Mapping[str, Any]) -> list[dict]:
    """The teams (or seats) a form's ``member`` field picks from: ``{"value": number, "label"}``."""
    seats = view.get("seats")
    if isinstance(seats, list):
        return [{"value": st["seat"], "label": f"{st['seat']}. {st['name']}" if st.get("name") else str(st["seat"])}
                for st in seats]
    return [{"value": i + 1, "label": f"{i + 1}. {tm.get('name', '')}"} for i, tm in enumerate(view.get("teams") or ())]


def web_actions(state: Any, lang: str, view: Mapping[str, Any] | None = None) -> list[dict]:
    """The host actions the current game takes now, as buttons (and small forms, with
    ``params``: the fields its declaration asks a host page for, controller/games/actions.py)
    for the host page; a ``member`` field carries its ``choices`` (from ``view``)."""
    game = games.of_state(state)
    declared = game.declared(state)
    acts = [a for a in engine.actions_now(state) if a != "resume"]
    # an action whose key stands for another one offered here now is that one's button already
    # (a programme's next round where it moves on to the next game): one button per move
    acts = [a for a in acts if game.key_action(state, a) == a or game.key_action(state, a) not in acts]
    decls = [declared[a] for a in acts if a in declared]
    decls += [program_action(a) for a in ON_THE_PAGE if a not in acts]
    out = []
    choices = member_choices(view) if view is not None else None
    for d in decls:
        label = action_label(d.name, lang, {d.name: d.label} if d.label else None)
        if label == d.name:   # no label: a key of its own (a digit), never a button
            continue
        item = {"action": d.name, "label": label}
        if d.destructive:   # the second tap is asked for as its key asks (ЧГК: a shared place)
            asked = game.confirm(state, d.name)
            item["confirm"] = (t(asked[0], lang, **asked[1]) if asked is not None
                               else t("web.confirm", lang, action=label[:1].lower() + label[1:]))
        params = d.form()
        if params:
            item["params"] = [dict(p, choices=choices) if p["kind"] == "member" and choices is not None else p
                              for p in params]
        out.append(item)
    return out


def screen_value(scr: model.Screen, lang: str) -> tuple[dict, dict]:
    """A typed screen as the pages get it: (the audience's widgets, the host's part), plain
    values with every :class:`~controller.core.screen.Words` in ``lang``."""
    def render(words: model.Words) -> str:
        return words.render(t, lang)
    audience = model.to_json(model.audience(scr), render)
    audience.pop("host", None)
    return audience, model.to_json(scr.host, render)


def build(view: Mapping[str, Any], *, seq: int = 0, lang: str = "ru", title: str = "",
          status: Mapping[str, Any] | None = None, flash: Mapping[str, Any] | None = None,
          keys: Mapping[str, Iterable[str]] | None = None, actions: list | None = None,
          undo: dict | None = None, help_on: bool = False, links: Mapping[str, Any] | None = None,
          labels: Mapping[str, str] | None = None) -> dict:
    """The view model (see the module's docstring) from its parts.

    :param view: the game's view (``engine.view(state, now)``)
    :param status: the loop's status (``backend``, ``connected``, ``missing``, ``detail``,
        ``notice``, ``entry``); the buttons' part goes to the audience, the rest to the host
    :param keys: action -> key names of the key help
    :param labels: the game's own label keys of its actions (:func:`own_labels`)
    """
    game, host_game = split_view(view)
    screen_audience, screen_host = screen_value(games.screen_of(dict(view)), lang)
    st = dict(status or {})
    notice = st.get("notice") or ""
    return {
        "seq": int(seq),
        "lang": lang,
        "title": title,
        "audience": {
            "game": game,
            # the question as the projector names it («Вопрос 1/5»: its place in the round)
            "question_head": question_head(game["question"], lang) if game.get("question") else "",
            # a programme: which of its games is on («Игра 2 из 3»), "" in a single game
            "series_head": series_head(game, lang),
            "flash": flash_value(flash, lang),
            "inputs": {"backend": st.get("backend", "none"), "connected": bool(st.get("connected", False)),
                       "missing": list(st.get("missing") or ()), "detail": str(st.get("detail") or ""),
                       # teams that press only with a phone link and have no phone joined yet
                       "no_phone": list(st.get("no_phone") or ()),
                       # the teams of the buttons named there, by button (their names now)
                       "names": dict(st.get("names") or {}),
                       # the keys the players press for their buttons (the keyboard), for the holder's name
                       "keys": dict(st.get("keys") or {})},
            "screen": screen_audience,
        },
        "host": {
            "notice": str(notice),
            **({"notice_screen": str(st["notice_screen"])} if st.get("notice_screen") is not None else {}),
            "entry": st.get("entry"),
            "help": bool(help_on),
            "keys": key_help(keys or {}, lang, labels),
            "actions": list(actions or ()),
            "undo": undo,
            "game": host_game,
            "links": dict(links or {}),
            "screen": screen_host,
        },
    }


def audience_only(vm: Mapping[str, Any]) -> dict:
    """The view model without its host part: what ``/``, ``/overlay`` and ``/api/state`` get
    without the host's token."""
    return {k: v for k, v in vm.items() if k != "host"}


def host_screen(vm: Mapping[str, Any]) -> tuple[dict, dict]:
    """What the host's own screen (the terminal) shows: ``(game view, status)``, the game's
    host-only data put back into the view and the host's notice and entry in the status."""
    aud, host = vm["audience"], vm.get("host") or {}
    view = dict(aud["game"], host=host["game"]) if host.get("game") else dict(aud["game"])
    return view, dict(aud["inputs"], notice=host.get("notice", ""), entry=host.get("entry"))


def host_entry(vm: Mapping[str, Any]) -> dict | None:
    """The host's open dialogue (``title``, ``text`` typed, ``hint``), or None."""
    return (vm.get("host") or {}).get("entry")


def projector(vm: Mapping[str, Any], host_overlay: bool) -> tuple[dict, dict | None, dict, bool]:
    """What the projector draws: ``(game view, flash, status, help overlay)``.

    The audience part always; the host's notice, rename dialogue and key help only with
    ``host_overlay`` (``[display] host_overlay``)."""
    aud, host = vm["audience"], vm.get("host") or {}
    status = dict(aud["inputs"])
    status["notice"] = host.get("notice_screen", host.get("notice", "")) if host_overlay else ""
    status["entry"] = host.get("entry") if host_overlay else None
    help_on = bool(host_overlay and host.get("help"))
    pack = ((host.get("game") or {}).get("pack") or {}) if help_on else {}
    if pack.get("answer"):   # the host's key help carries the package's answer (the host asked for it)
        status["host_answer"] = pack["answer"]
    return aud["game"], aud["flash"], status, help_on


def from_loop(loop: Any, seq: int = 0, links: Mapping[str, Any] | None = None, keys: Mapping | None = None) -> dict:
    """The view model of a running :class:`~controller.app.loop.Loop` now (loop thread)."""
    now = loop.clock.now()
    view = engine.view(loop.state, now)
    lang = loop.cfg["language"]
    if keys is None:
        keys = loop.key_map()   # the keys of the state the game is in (a programme's round)
    # the title of the game whose rules are in force (a programme: its current round's), as the game declares it
    title = mode_title(games.of_state(loop.state).playing(loop.state).name, lang)
    return build(view, seq=seq, lang=lang, title=title,
                 status=loop.status(), flash=loop.current_flash(), keys=keys,
                 actions=web_actions(loop.state, lang, view), undo=undo_preview(loop.state, view, now),
                 help_on=loop.help, links=links, labels=own_labels(loop.state))

