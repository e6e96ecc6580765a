"""Своя игра from a SIGame package: the board, the host's pick, the question types.

Pure, like the rest of the game (:mod:`controller.games.own_game` calls in here through a
few hooks): the package comes in the config as plain data (``own_game.package``, made by
:meth:`controller.content.siq.Package.game_data`; media are archive member names, which
the shell maps onto the files it extracted).  Everything the host does is a journaled host
event, so a resumed game has the same board.

Host actions (docs/packages.md, docs/scripted-sessions.md):

* ``pick`` {theme, cell} or {theme, price}: open a cell of the board (theme 1-based; cell
  1-based in the theme's row, or its price);
* ``digit_0`` … ``digit_9`` (the number keys): the same from the keypad -- the theme's
  number, then the cell's; for «кот в мешке» and an auction the player's number, then
  (auction) the stake; in the final each player's stake in turn.  A number is complete as
  soon as no longer number could start so (``3`` of 5 themes); Enter completes it too;
* ``player`` {team}: who gets «кот в мешке» / who plays the auction;
* ``stake`` {points} (auction) or {team, points} (final);
* ``pack_round``: the package's next round (the next-round key, R).

Question types: ``simple``; ``noRisk`` («без риска»: a wrong answer costs nothing);
``secret`` («кот в мешке»: the host names who gets it; only that player answers, for the
package's price if it gives one); ``stake`` (auction: the host names the player and the
stake; only that player answers, ± the stake); the final round (every player with points
above zero stakes, the host enters each stake, then rules each player right or wrong).
Any other type is played as simple with a notice naming it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from controller.core.effects import Flash, Lamp, Notice, Sound
from controller.core.errors import GameError
from controller.core.events import Host
from controller.games import race as b

PLAYED_AS = {"simple": "simple", "noRisk": "noRisk", "secret": "secret", "stake": "stake"}
"""Package question type -> how it is played (any other: simple, with a notice)."""

STAKE_DIGITS_MAX = 7
"""Digits a stake may have (the keypad cannot type a larger one by accident)."""


@dataclass(frozen=True, slots=True)
class Pack:
    data: dict                        # Package.game_data()
    round: int = 0                    # index into data["rounds"]
    played: frozenset = frozenset()   # (round, theme, cell) opened
    phase: str = "board"              # board | player | stake | final_stakes | final_rulings | final_done
    entry: str = ""                   # digits typed
    theme: int | None = None          # the theme picked while its cell is typed (0-based)
    cell: tuple[int, int, int] | None = None  # the current question (round, theme, cell)
    play: str = "simple"              # simple | noRisk | secret | stake | final
    player: int | None = None         # secret / stake: who answers
    stake: int | None = None
    stakes: tuple = ()                # final: per player, None = not staked (or not playing)
    results: tuple = ()               # final: per player, None | "right" | "wrong"
    shown_at: int | None = None       # when the question's content began to show (its pictures in turn)
    answer_at: int | None = None      # when the answer began to show (after the ruling) ...
    answer_until: int | None = None   # ... and until when (then the board: a deadline)
    image_ns: int = 5 * 10 ** 9       # [own_game] pack_image_s
    answer_ns: int = 2 * 10 ** 9      # [own_game] pack_answer_show_s

    def round_data(self) -> dict:
        rounds = self.data.get("rounds") or [{"name": "", "final": False, "themes": []}]
        return rounds[min(self.round, len(rounds) - 1)]

    def question_data(self) -> dict | None:
        if self.cell is None:
            return None
        r, t, c = self.cell
        return self.data["rounds"][r]["themes"][t]["questions"][c]


def new(config: dict, players: int) -> Pack | None:
    data = config.get("own_game", {}).get("package")
    if not data:
        return None
    o = config.get("own_game", {})
    return Pack(data=data, stakes=(None,) * players, results=(None,) * players,
                image_ns=int(float(o.get("pack_image_s", 5.0)) * 10 ** 9),
                answer_ns=int(float(o.get("pack_answer_show_s", 2.0)) * 10 ** 9))


# ---------------------------------------------------------------------------
# helpers

def _set(s, **changes):
    return replace(s, pack=replace(s.pack, **changes))


def _complete(entry: str, count: int) -> bool:
    """A number is complete once no longer number in 1..count could start with it."""
    return bool(entry) and int(entry) * 10 > count


_QUESTION = None
"""The game's Question class (own_game.py registers it: this module does not import the game)."""


def use_question_type(cls) -> None:
    global _QUESTION
    _QUESTION = cls


def _open_question(s, h: Host, fx: list, nominal: int, holder: int | None):
    """A question of the package as a Question of the game (single player: already theirs)."""
    p = s.pack
    q_data = p.question_data()
    theme = p.round_data()["themes"][p.cell[1]]["name"]
    history = s.history + ((s.question,) if s.question is not None else ())
    q = _QUESTION(number=sum(1 for x in history if x.closed != "withdrawn") + 1, seq=len(history) + 1,
                    nominal=nominal, theme=theme, announced_at=h.at)
    if holder is not None:
        q = replace(q, armed_at=h.at, holder=holder)
        fx.append(Lamp(s.teams[holder].button, "on"))
    s = replace(s, history=history, question=q, theme=theme, undo=())
    b.log(fx, h.at, "question", number=q.number, nominal=nominal, theme=theme,
          cell={"round": p.cell[0] + 1, "theme": p.cell[1] + 1, "cell": p.cell[2] + 1},
          type=q_data.get("type"), played_as=p.play,
          **({"team": s.teams[holder].name} if holder is not None else {}))
    return _set(s, phase="board", entry="")


# ---------------------------------------------------------------------------
# host actions

def _require(s, h: Host, fx: list) -> bool:
    if s.pack is None:
        b.refuse(fx, h.at, "pack.none")
        return False
    return True


def pick(s, h: Host, fx: list):
    if not _require(s, h, fx):
        return s
    p = s.pack
    if s.question is not None and s.question.open or p.phase != "board":
        b.refuse(fx, h.at, "question_open")
        return s
    rnd = p.round_data()
    themes = rnd["themes"]
    theme = h.params.get("theme")
    if not isinstance(theme, int) or isinstance(theme, bool):
        raise GameError(f"pick: \"theme\" must be a theme number, got {theme!r}")
    if not 1 <= theme <= len(themes):
        b.refuse(fx, h.at, "pack.no_theme", theme=theme, count=len(themes))
        return _set(s, entry="", theme=None)
    row = themes[theme - 1]["questions"]
    if "cell" in h.params:
        cell = h.params["cell"]
        if not isinstance(cell, int) or isinstance(cell, bool):
            raise GameError(f"pick: \"cell\" must be a whole number, got {cell!r}")
    elif "price" in h.params:
        price = h.params["price"]
        cell = next((i + 1 for i, q in enumerate(row) if q["price"] == price
                     and (p.round, theme - 1, i) not in p.played), None)
        if cell is None:
            b.refuse(fx, h.at, "pack.no_cell", theme=theme, cell=price)
            return _set(s, entry="", theme=None)
    elif len(row) == 1 or rnd.get("final"):
        cell = 1
    else:
        raise GameError("pick: needs \"cell\" (1-based) or \"price\"")
    if not 1 <= cell <= len(row):
        b.refuse(fx, h.at, "pack.no_cell", theme=theme, cell=cell)
        return _set(s, entry="", theme=None)
    key = (p.round, theme - 1, cell - 1)
    if key in p.played:
        b.refuse(fx, h.at, "pack.played", theme=theme, cell=cell)
        return _set(s, entry="", theme=None)
    q = row[cell - 1]
    s = _set(s, played=p.played | {key}, cell=key, entry="", theme=None, player=None, stake=None,
             shown_at=None, answer_at=None, answer_until=None)
    if rnd.get("final"):
        eligible = tuple(0 if sc > 0 else None for sc in s.scores)
        s = _set(s, play="final", phase="final_stakes", stakes=tuple(None for _ in s.teams),
                 results=tuple(None for _ in s.teams))
        b.log(fx, h.at, "final_question", theme=themes[theme - 1]["name"],
              players=[s.teams[i].name for i, e in enumerate(eligible) if e is not None])
        if all(e is None for e in eligible):
            fx.append(Notice("pack.final_nobody", {}))
            s = _set(s, phase="final_rulings")
        return s
    play = PLAYED_AS.get(q.get("type"), "simple")
    s = _set(s, play=play)
    if play == "simple" and q.get("type") not in ("simple", None, ""):
        fx.append(Notice("pack.played_as_simple", {"type": q.get("raw_type") or q.get("type")}))
    if play in ("secret", "stake"):
        b.log(fx, h.at, "cell", theme=theme, cell=cell, type=q.get("type"))
        return _set(s, phase="player")
    s = _open_question(s, h, fx, q["price"], None)
    return _media_sounds(s, q, fx, h.at)


def choose_player(s, h: Host, fx: list):
    if not _require(s, h, fx):
        return s
    p = s.pack
    if p.phase != "player":
        b.refuse(fx, h.at, "pack.no_player_now")
        return s
    team = b.team_ref(s.teams, h.params)
    b.log(fx, h.at, "player", team=s.teams[team].name, type=p.play)
    if p.play == "stake":
        return _set(s, player=team, phase="stake", entry="")
    q = p.question_data()
    price = q.get("secret_price") or q["price"]
    s = _set(s, player=team)
    s = _open_question(s, h, fx, price, team)
    return _media_sounds(s, q, fx, h.at)


STOP_SOUND = Sound("pack:")
"""The effect that stops the package sound playing (its question is over or withdrawn)."""


def _media_sounds(s, q: dict, fx: list, at: int, key: str = "media"):
    """The question's content (``key``: or the answer's) starts showing at ``at``: its sound
    plays (the first; SIGame plays one at a time), its pictures follow one another from now."""
    for m in q.get(key) or ():
        if m.get("member") and m["kind"] == "audio":
            fx.append(Sound("pack:" + m["member"]))
            break
    return _set(s, shown_at=at) if key == "media" else s


def closed(s, at: int, fx: list):
    """The package's question has been answered, or nobody can answer any more: its sound
    stops, and its right answer and answer content show until the ``pack_answer`` deadline."""
    p = s.pack
    if p is None or p.cell is None or p.answer_until is not None:
        return s
    q = p.question_data()
    images = sum(1 for m in q.get("answer_media") or () if m["kind"] == "image")
    fx.append(STOP_SOUND)
    s = _set(s, answer_at=at, answer_until=at + max(p.answer_ns, images * p.image_ns))
    return _media_sounds(s, q, fx, at, key="answer_media")


def withdrawn(s, fx: list):
    """The question was withdrawn: its sound stops (nothing of its answer is shown)."""
    if s.pack is not None and s.pack.cell is not None:
        fx.append(STOP_SOUND)
        s = _set(s, answer_until=None)
    return s


def deadlines(s) -> list[tuple[int, int, str]]:
    p = s.pack
    return [(p.answer_until, 5, "pack_answer")] if p is not None and p.answer_until is not None else []


def answer_over(s, fx: list):
    """The answer has been shown its time: the board comes back (its sound stops)."""
    fx.append(STOP_SOUND)
    return _set(s, answer_until=None)


def set_stake(s, h: Host, fx: list):
    if not _require(s, h, fx):
        return s
    p = s.pack
    points = h.params.get("points")
    if not isinstance(points, int) or isinstance(points, bool):
        raise GameError(f"stake: \"points\" must be a whole number, got {points!r}")
    if p.phase == "stake":
        q = p.question_data()
        top = max(s.scores[p.player], q["price"])
        if not q["price"] <= points <= top:
            b.refuse(fx, h.at, "pack.bad_stake", low=q["price"], high=top)
            return _set(s, entry="")
        b.log(fx, h.at, "stake", team=s.teams[p.player].name, points=points)
        s = _set(s, stake=points)
        s = _open_question(s, h, fx, points, p.player)
        return _media_sounds(s, q, fx, h.at)
    if p.phase == "final_stakes":
        team = b.team_ref(s.teams, h.params) if ("team" in h.params or "button" in h.params) else _next_final(s)
        if team is None or s.scores[team] <= 0:
            b.refuse(fx, h.at, "pack.not_in_final")
            return _set(s, entry="")
        if not 1 <= points <= s.scores[team]:
            b.refuse(fx, h.at, "pack.bad_stake", low=1, high=s.scores[team])
            return _set(s, entry="")
        stakes = b.set_at(p.stakes, team, points)
        b.log(fx, h.at, "stake", team=s.teams[team].name, points=points)
        s = _set(s, stakes=stakes, entry="")
        if _next_final(s) is None:
            s = _set(s, phase="final_rulings")
            b.log(fx, h.at, "final_stakes_done")
            s = _media_sounds(s, s.pack.question_data(), fx, h.at)
        return s
    b.refuse(fx, h.at, "pack.no_stake_now")
    return s


def _next_final(s) -> int | None:
    """The next player of the final whose stake is not entered yet."""
    return next((i for i, sc in enumerate(s.scores) if sc > 0 and s.pack.stakes[i] is None), None)


def _next_ruling(s) -> int | None:
    p = s.pack
    return next((i for i, st in enumerate(p.stakes) if st is not None and p.results[i] is None), None)


def final_ruling(s, h: Host, fx: list, result: str):
    p = s.pack
    team = b.team_ref(s.teams, h.params) if ("team" in h.params or "button" in h.params) else _next_ruling(s)
    if team is None or p.stakes[team] is None or p.results[team] is not None:
        b.refuse(fx, h.at, "pack.nobody_to_rule")
        return s
    delta = p.stakes[team] if result == "right" else -p.stakes[team]
    s = replace(s, scores=b.set_at(s.scores, team, s.scores[team] + delta),
                won=b.set_at(s.won, team, s.won[team] + max(delta, 0)))
    s = _set(s, results=b.set_at(p.results, team, result))
    name = s.teams[team].name
    fx += [Sound(result), Flash(result, name)]
    b.log(fx, h.at, "final_ruling", team=name, result=result, delta=delta, score=s.scores[team])
    if _next_ruling(s) is None:
        s = _set(s, phase="final_done")
        b.log(fx, h.at, "final_done")
        s = closed(s, h.at, fx)
    return s


def next_round(s, h: Host, fx: list):
    if not _require(s, h, fx):
        return s
    p = s.pack
    if s.question is not None and s.question.open or p.phase not in ("board", "final_done"):
        b.refuse(fx, h.at, "question_open")
        return s
    if p.round + 1 >= len(p.data.get("rounds") or ()):
        b.refuse(fx, h.at, "pack.last_round")
        return s
    s = _set(s, round=p.round + 1, entry="", theme=None, cell=None, phase="board", answer_until=None)
    b.log(fx, h.at, "round", round=s.pack.round + 1, name=s.pack.round_data()["name"])
    return s


def digit(s, h: Host, fx: list, d: int):
    """A number key: what it types depends on what the host is doing (see the module doc)."""
    if not _require(s, h, fx):
        return s
    p = s.pack
    if p.phase in ("stake", "final_stakes"):
        entry = (p.entry + str(d)).lstrip("0")[:STAKE_DIGITS_MAX]
        return _set(s, entry=entry)
    if p.phase == "player":
        entry = (p.entry + str(d)).lstrip("0")
        s = _set(s, entry=entry)
        if _complete(entry, len(s.teams)):
            if not 1 <= int(entry) <= len(s.teams):
                b.refuse(fx, h.at, "pack.no_player", number=int(entry))
                return _set(s, entry="")
            return choose_player(_set(s, entry=""), replace(h, params={"team": int(entry)}), fx)
        return s
    if p.phase != "board" or (s.question is not None and s.question.open):
        b.refuse(fx, h.at, "question_open")
        return s
    entry = (p.entry + str(d)).lstrip("0")
    themes = p.round_data()["themes"]
    if p.theme is None:
        s = _set(s, entry=entry)
        if _complete(entry, len(themes)):
            n = int(entry)
            if not 1 <= n <= len(themes):
                b.refuse(fx, h.at, "pack.no_theme", theme=n, count=len(themes))
                return _set(s, entry="")
            if len(themes[n - 1]["questions"]) == 1 or p.round_data().get("final"):
                return pick(_set(s, entry=""), replace(h, params={"theme": n, "cell": 1}), fx)
            return _set(s, theme=n - 1, entry="")
        return s
    s = _set(s, entry=entry)
    if _complete(entry, len(themes[p.theme]["questions"])):
        return pick(_set(s, entry="", theme=None), replace(h, params={"theme": p.theme + 1, "cell": int(entry)}), fx)
    return s


def enter(s, h: Host, fx: list):
    """Enter (the host's "right" key) while a number is being typed: complete it."""
    p = s.pack
    if p.phase in ("stake", "final_stakes"):
        if not p.entry:
            b.refuse(fx, h.at, "pack.type_stake")
            return s
        return set_stake(_set(s, entry=""), replace(h, params={"points": int(p.entry)}), fx)
    if p.phase == "player" and p.entry:
        if not 1 <= int(p.entry) <= len(s.teams):
            b.refuse(fx, h.at, "pack.no_player", number=int(p.entry))
            return _set(s, entry="")
        return choose_player(_set(s, entry=""), replace(h, params={"team": int(p.entry)}), fx)
    if p.phase == "board" and p.entry:
        if p.theme is None:
            n = int(p.entry)
            themes = p.round_data()["themes"]
            if 1 <= n <= len(themes) and len(themes[n - 1]["questions"]) > 1 and not p.round_data().get("final"):
                return _set(s, theme=n - 1, entry="")
            return pick(_set(s, entry=""), replace(h, params={"theme": n, "cell": 1}), fx)
        return pick(_set(s, entry="", theme=None), replace(h, params={"theme": p.theme + 1, "cell": int(p.entry)}), fx)
    return None


def cancel(s, h: Host, fx: list):
    """Withdraw (X) before the question is shown (naming the player, typing a stake): the
    cell goes back onto the board.  None: nothing of the package's to cancel."""
    p = s.pack
    if p is None or p.phase not in ("player", "stake", "final_stakes"):
        return None
    b.log(fx, h.at, "cell_cancelled", cell=[p.cell[0] + 1, p.cell[1] + 1, p.cell[2] + 1])
    fx.append(Flash("withdrawn"))
    fx.append(STOP_SOUND)
    return _set(s, played=p.played - {p.cell}, cell=None, phase="board", entry="", player=None, stake=None,
                stakes=tuple(None for _ in s.teams))


def erase(s) -> object | None:
    """Backspace (the host's "wrong" key) while a number is typed: the last digit goes
    (and with no digits left, the theme picked goes)."""
    p = s.pack
    if p.entry:
        return _set(s, entry=p.entry[:-1])
    if p.phase == "board" and p.theme is not None:
        return _set(s, theme=None)
    return None


def entry_text(s) -> str:
    p = s.pack
    if p.phase in ("stake", "final_stakes", "player"):
        return p.entry
    if p.theme is not None:
        return f"{p.theme + 1}-{p.entry}"
    if p.entry:
        return p.entry
    return f"{p.cell[1] + 1}-{p.cell[2] + 1}" if p.cell is not None else ""


def typing(s) -> bool:
    """Whether Enter / Backspace / keypad 0 edit a number now instead of ruling."""
    p = s.pack
    if p is None:
        return False
    return bool(p.entry) or p.theme is not None or p.phase in ("stake", "final_stakes", "player")


# ---------------------------------------------------------------------------
# hooks the game calls

def wrong_delta(s, delta: int) -> int:
    """«Без риска»: a wrong answer costs nothing."""
    p = s.pack
    if p is not None and p.cell is not None and p.play == "noRisk" and s.question is not None and s.question.open:
        return 0
    return delta


def single_player(s) -> bool:
    """«Кот в мешке» and an auction: only the named player answers (a wrong answer ends it)."""
    p = s.pack
    return p is not None and p.cell is not None and p.play in ("secret", "stake")


def _in_turn(media: list, since: int | None, now: int, each_ns: int) -> dict:
    """Content items shown one after another (pictures: SIGame shows a question's pictures in
    turn, ``each_ns`` each, the last one staying): every item, and which one shows at ``now``."""
    images = [m for m in media if m["kind"] == "image"]
    i = 0
    if images and since is not None and each_ns > 0:
        i = min(max(now - since, 0) // each_ns, len(images) - 1)
    first = {k: next(({"name": m["name"], "member": m.get("member")} for m in media if m["kind"] == k), None)
             for k in ("image", "audio", "video", "html")}
    if images:
        first["image"] = {"name": images[i]["name"], "member": images[i].get("member")}
    return {"media": first, "images": [{"name": m["name"], "member": m.get("member")} for m in images],
            "image_index": i, "items": [{"kind": m["kind"], "name": m["name"], "member": m.get("member")}
                                        for m in media]}


def _content(q: dict, since: int | None, now: int, each_ns: int, key: str = "media") -> dict:
    return _in_turn(list(q.get(key) or ()), since, now, each_ns)


def view(s, now: int | None = None) -> tuple[dict, dict]:
    """(the audience's ``pack``, the host's part): the board, the question on screen (its
    pictures in turn), its answer and answer content once ruled (``answer``: until then only
    in the host's part)."""
    now = s.now if now is None else now
    p = s.pack
    rnd = p.round_data()
    board = [{"name": th["name"], "cells": [
        {"price": q["price"], "played": (p.round, ti, ci) in p.played} for ci, q in enumerate(th["questions"])]}
        for ti, th in enumerate(rnd["themes"])]
    q = p.question_data()
    revealed = q is not None and p.answer_until is not None
    live = q is not None and (p.phase in ("player", "stake", "final_stakes", "final_rulings")
                              or (s.question is not None and s.question.open) or revealed)
    question = None
    host: dict = {"entry": p.entry, "phase": p.phase,
                  "picking_theme": p.theme + 1 if p.theme is not None else None}
    if q is not None:
        secret = p.play == "secret" and p.phase == "player"
        hidden = secret or p.phase in ("stake", "final_stakes")   # the content waits for the player, the stakes
        theme = rnd["themes"][p.cell[1]]
        content = _content(q, p.shown_at, now, p.image_ns) if not hidden else _in_turn([], None, now, 0)
        question = {"theme": theme["name"], "price": q["price"], "type": q.get("type"),
                    "played_as": p.play, "live": live,
                    # «кот в мешке»: until the player is named only its theme shows
                    "text": "" if hidden else q.get("text", ""),
                    "secret_theme": q.get("secret_theme", ""),
                    **content,
                    "theme_comment": theme.get("comment", ""),
                    "options": [] if hidden else [{"label": o["label"], "text": o["text"],
                                                   "media": [{"name": m["name"], "member": m.get("member")}
                                                             for m in o.get("media") or ()]}
                                                  for o in q.get("options") or ()],
                    "player": s.teams[p.player].name if p.player is not None else None,
                    "stake": p.stake,
                    "answer": None}
        if revealed:
            question["answer"] = {"answer": q.get("answer", ""), "text": q.get("answer_text", ""),
                                  "comment": q.get("comment", ""),
                                  **_content(q, p.answer_at, now, p.image_ns, key="answer_media")}
        host.update({"answer": q.get("answer", ""), "answer_text": q.get("answer_text", ""), "say": q.get("say", ""),
                     "text": q.get("text", ""), "comment": q.get("comment", ""),
                     "theme_comment": theme.get("comment", ""),
                     "answer_media": [m["name"] for m in q.get("answer_media") or ()]})
    final = None
    if p.play == "final" and p.cell is not None:
        final = [{"team": s.teams[i].name, "staked": st is not None, "result": p.results[i]}
                 for i, st in enumerate(p.stakes) if st is not None or s.scores[i] > 0]
        host["stakes"] = {s.teams[i].name: st for i, st in enumerate(p.stakes) if st is not None}
        nxt = _next_final(s) if p.phase == "final_stakes" else _next_ruling(s) if p.phase == "final_rulings" else None
        host["next"] = s.teams[nxt].name if nxt is not None else None
    left = sum(1 for ti, th in enumerate(rnd["themes"]) for ci, _ in enumerate(th["questions"])
               if (p.round, ti, ci) not in p.played)
    return ({"name": p.data.get("name", ""), "round": rnd["name"], "round_number": p.round + 1,
             "rounds": len(p.data.get("rounds") or ()), "final": bool(rnd.get("final")), "board": board,
             "question": question, "final_players": final, "left": left, "phase": p.phase,
             "entry": p.entry, "picking_theme": host["picking_theme"]}, host)


def summary(s) -> dict:
    p = s.pack
    return {"name": p.data.get("name", ""), "round": p.round + 1,
            "played": sorted([r + 1, t + 1, c + 1] for r, t, c in p.played),
            "final_stakes": {s.teams[i].name: st for i, st in enumerate(p.stakes) if st is not None},
            "final_results": {s.teams[i].name: r for i, r in enumerate(p.results) if r is not None}}
