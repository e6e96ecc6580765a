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
  number, then the cell's; for «кот в мешке» the player's number (then the price picked);
  an auction's bids; in the final the theme removed, then each player's stake in turn.  A number is complete as
  soon as no longer number could start so (``3`` of 5 themes); Enter completes it too;
* ``player`` {team}: who gets «кот в мешке» / who plays the auction;
* ``next_player`` {team}: where SIGame asks the showman because points are equal, who goes
  next: who of the final's players with equal points removes a theme, who of the auction's
  bidders with equal points bids next (the number keys type the player's number then);
* ``stake`` {points} (an auction's bid, the price a cat's player picks) or {team, points} (a
  hidden stake); ``pass``: the auction's bidder passes (Enter with nothing typed does too);
* ``pack_round``: the package's next round (the next-round key, R).

Question types, as SIGame plays them (its SIPackages scripts; docs/packages.md, «SIGame's
rules»).  The *chooser* is the player who answered the last question right (before anyone has:
the first player with the fewest points, as SIGame picks):

* ``simple``: the buttons race;
* ``noRisk`` («без риска»): only the chooser answers, for ``no_risk_factor`` × the price, and a
  wrong answer costs nothing (``no_risk_penalty``);
* ``secret``, ``secretPublicPrice``, ``secretNoQuestion`` («кот в мешке»): the host names who
  gets it (not the chooser, unless the package says ``any``); its price is the package's (fixed,
  or picked by the receiving player from a range with its step; ``0``-``0``: the round's
  minimum or maximum); ``secretPublicPrice`` shows the price before the cat is given,
  ``secretNoQuestion`` simply awards it; only that player answers, ± the price;
* ``stake`` (auction): the chooser bids first, then the others who have more points than the
  price, the fewest points first (equal points: the host names who); each bids more (in
  SIGame's step), goes all in, or passes; the highest bidder answers, ± the stake; the
  question shows only once the stake is settled;
* ``forAll``: every player answers; the host rules each, ± the price (``for_all_penalty``);
* ``stakeAll`` and the final round: hidden stakes from every player with points (everyone, with
  ``everyone_plays_hidden_stakes``; a player with 1 point or less stakes 1), entered by the host
  one by one, then every answer ruled one by one, ± the stake.  In the final round the players
  first remove themes in turns (the host types the theme each one names; of players with equal
  points the host names who removes first) until one is left, and
  the last ruling shows its answer, then ends the game (the standings).

Content (docs/packages.md, «Content: SIGame feature | what we do»): a question's pictures show
in turn (``pack_image_s`` each), its sounds one after another, and nothing of it shows before the
player, the price or the stake is settled (a «кот в мешке», an auction, hidden stakes;
``secretNoQuestion`` has none); once it is ruled (or nobody can answer) its sounds stop and its
right answer and answer content show until the ``pack_answer`` deadline
(``pack_answer_show_s``), then the board (after the final's last answer: the end screen).

"""

from __future__ import annotations

from dataclasses import dataclass, replace

from controller.core.effects import Flash, Lamp, Notice, PackSound, PackStop, Sound
from controller.core.errors import GameError
from controller.core.events import Host
from controller.games import race as b

SECRET = ("secret", "secretPublicPrice", "secretNoQuestion")
"""«Кот в мешке» in its three forms (v4 ``cat``/``bagcat`` are read as these: controller/content/siq.py)."""

PLAYED_AS = {"simple": "simple", "noRisk": "noRisk", "stake": "stake", "forAll": "forAll",
             "stakeAll": "stakeAll", **{t: t for t in SECRET}}
"""Package question type -> how it is played (any other: simple, with a notice)."""

MULTI = ("forAll", "stakeAll", "final")
"""Played by every player at once: each answer ruled in turn (no buttons)."""

STAKE_DIGITS_MAX = 7
"""Digits a stake may have (the keypad cannot type a larger one by accident)."""

TYPING_PHASES = ("player", "secret_price", "bids", "final_stakes")
"""Phases whose number keys type a number (a player, a price, a stake) and Enter completes it."""

BEFORE_QUESTION = ("player", "secret_price", "bids", "final_stakes")
"""Phases of a picked cell before its question is shown (withdraw puts the cell back)."""


@dataclass(frozen=True, slots=True)
class Pack:
    data: dict                        # Package.game_data()
    round: int = 0                    # index into data["rounds"]
    played: frozenset = frozenset()   # (round, theme, cell) opened
    # board | player | secret_price | bids | final_stakes | final_rulings | final_done
    phase: str = "board"
    entry: str = ""                   # digits typed
    theme: int | None = None          # the theme picked while its cell is typed (0-based)
    cell: tuple[int, int, int] | None = None  # the current question (round, theme, cell)
    play: str = "simple"              # how it is played: PLAYED_AS's values | final
    player: int | None = None         # secret: who gets it; auction: the highest bidder
    stake: int | None = None          # auction: the highest bid
    stakes: tuple = ()                # forAll / stakeAll / final: per player, None = not answering
    results: tuple = ()               # ... per player, None | "right" | "wrong"
    chooser: int | None = None        # who answered the last question right
    price: int | None = None          # the price the question is played for, once set
    options: tuple | None = None      # secret: (low, high, step) the player picks the price from
    bidders: tuple = ()               # auction: players in bidding order (still in)
    turn: int = 0                     # auction: index into bidders of who bids now
    settled: frozenset = frozenset()  # auction: players whose place in the bidding order is fixed
    choosing: tuple = ()              # auction: players with equal points, one of whom bids next (the host names him)
    removers: tuple = ()              # final: (slot, player) the host named where points were equal
    all_in: bool = False              # auction: the highest bid is all the bidder's points
    removed: frozenset = frozenset()  # final round: themes removed (0-based)
    think: object = None              # forAll / stakeAll / final: the answer countdown (Countdown)
    shown_at: int | None = None       # when the question's content began to show (its pictures in turn)
    answer_at: int | None = None      # when the answer began to show (after the ruling) ...
    answer_until: int | None = None   # ... and until when (then the board: a deadline)
    withdrawn: bool = False           # everyone's question of ``cell`` was withdrawn (nothing left to withdraw)
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


def _empty(q: dict) -> bool:
    return q.get("type") == "empty" or q.get("price", 0) < 0


def _round_prices(p: Pack) -> list[int]:
    return [q["price"] for th in p.round_data()["themes"] for q in th["questions"] if not _empty(q)]


def stake_step(p: Pack) -> int:
    """SIGame's auction step: the largest power of 10 not above the round's lowest price."""
    low = max(min(_round_prices(p), default=1), 1)
    step = 1
    while step * 10 <= low:
        step *= 10
    return step


def chooser(s) -> int:
    """Who chose the cell: the last right answer's player, else the first with the fewest points."""
    c = s.pack.chooser
    if c is not None:
        return c
    low = min(s.scores)
    return next(i for i, sc in enumerate(s.scores) if sc == low)


def _price_options(p: Pack, q: dict) -> tuple[int, int, int] | int:
    """A cat's price: a number (fixed) or (low, high, step) the receiving player picks from
    (SIGame: maximum 0 = the round's minimum or maximum; step 0 = either end)."""
    rng = q.get("price_range")
    if not rng:
        return q.get("secret_price") or q["price"]
    lo, hi, step = rng
    if hi <= 0:
        prices = _round_prices(p) or [q["price"]]
        lo, hi = min(prices), max(prices)
        step = hi - lo
    if lo >= hi:
        return lo
    return lo, hi, step if step > 0 else hi - lo


def _in_options(points: int, options: tuple[int, int, int]) -> bool:
    lo, hi, step = options
    return lo <= points <= hi and (points - lo) % step == 0 or points == hi


_QUESTION = None
"""The game's Question class (own_game.py registers it: this module does not import the game)."""


def use_question_type(cls) -> None:
    global _QUESTION
    _QUESTION = cls


def _seconds(q: dict, default_ns: int) -> int:
    """The package's answer time for the question (answerDuration), else the config's."""
    t = q.get("answer_time") or 0
    return int(t) * 1_000_000_000 if t > 0 else default_ns


def _open_question(s, h: Host, fx: list, nominal: int, holder: int | None):
    """A question of the package as a Question of the game (single player: already theirs,
    with the solo answer countdown)."""
    from controller.core import countdown as cdn
    p = s.pack
    q_data = p.question_data()
    theme = p.round_data()["themes"][p.cell[1]]["name"]
    history = s.history + ((s.question,) if s.question is not None else ())
    q = _QUESTION(number=sum(1 for x in history if x.closed != "withdrawn") + 1, seq=len(history) + 1,
                  nominal=nominal, theme=theme, announced_at=h.at)
    if holder is not None:
        total = _seconds(q_data, s.rules.solo_time)
        cd = cdn.start("answer", total, h.at) if total else None
        if cd is not None and s.paused:
            cd = cdn.pause(cd, h.at)
        q = replace(q, armed_at=h.at, holder=holder, answer_cd=cd)
        fx.append(Lamp(s.teams[holder].button, "on"))
    s = replace(s, history=history, question=q, theme=theme, undo=())
    b.log(fx, h.at, "question", number=q.number, nominal=nominal, theme=theme,
          cell={"round": p.cell[0] + 1, "theme": p.cell[1] + 1, "cell": p.cell[2] + 1},
          type=q_data.get("type"), played_as=p.play,
          **({"team": s.teams[holder].name} if holder is not None else {}))
    s = _set(s, phase="board", entry="", price=nominal)
    return _media_sounds(s, q_data, fx, h.at)


STOP_SOUND = PackStop()
"""The effect that stops the package sound playing (its question is over or withdrawn)."""


def _media_sounds(s, q: dict, fx: list, at: int, key: str = "media"):
    """The question's content (``key``: or the answer's) starts showing at ``at``: its sounds
    play one after another (SIGame plays a question's items in turn: each sound when the one
    before has ended, or after the package's own time of it; the shell times them, it alone
    knows when a sound ends), its pictures follow one another from now."""
    for m in q.get(key) or ():
        if m.get("member") and m["kind"] == "audio":
            fx.append(PackSound(m["member"], seconds=float(m.get("seconds") or 0.0)))
    return _set(s, shown_at=at) if key == "media" else s


def closed(s, at: int, fx: list):
    """The package's question has been answered, or nobody can answer any more: its sounds
    stop, and its right answer and answer content show until the ``pack_answer`` deadline."""
    p = s.pack
    if p is None or p.cell is None or p.answer_until is not None:
        return s
    q = p.question_data()
    shown = sum(_shown_ns(m, p.image_ns) for m in q.get("answer_media") or () if m["kind"] == "image")
    fx.append(STOP_SOUND)
    s = _set(s, answer_at=at, answer_until=at + max(p.answer_ns, shown))
    return _media_sounds(s, q, fx, at, key="answer_media")


def withdrawn(s, fx: list):
    """The question was withdrawn: its sounds stop (nothing of its answer is shown)."""
    if s.pack is not None and s.pack.cell is not None:
        fx.append(STOP_SOUND)
        s = _set(s, answer_until=None)
    return s


def answer_over(s, t: int, fx: list):
    """The answer has been shown its time: the board comes back (its sounds stop); after the
    final's last answer, the end screen."""
    fx.append(STOP_SOUND)
    s = _set(s, answer_until=None)
    return _game_over(s, t, fx) if s.pack.phase == "final_done" and s.stage != "finished" else s


def _themes_left(s) -> list[int]:
    p = s.pack
    return [i for i in range(len(p.round_data()["themes"])) if i not in p.removed]


def _in_game(s) -> list[int]:
    """The final's players who remove themes: points above zero (everyone, when nobody has
    and ``everyone_plays_hidden_stakes``)."""
    on = [i for i, sc in enumerate(s.scores) if sc > 0]
    if not on and s.rules.everyone_hidden:
        on = list(range(len(s.teams)))
    return on


def _removal_slots(s) -> list[tuple[int, ...]]:
    """SIGame's order of the final's removers: one slot per player in the final, taken in turn
    (round and round); the player with the most points in the slot of the last removal, the
    next fewer in the slot before, and so on backwards.  Players with equal points share their
    slots: each such slot holds all of them (the host names who, when it comes)."""
    players = _in_game(s)
    n = len(players)
    themes = len(s.pack.round_data()["themes"])
    slots: list[tuple[int, ...]] = [()] * n
    k = ((themes - 1) % n or n) - 1
    for score in sorted({s.scores[i] for i in players}, reverse=True):
        level = tuple(i for i in players if s.scores[i] == score)
        for _ in level:
            slots[k] = level
            k = (k - 1) % n
    return slots


def _next_remover(s) -> int | tuple | None:
    """Who removes the next final theme: a player, or the players with equal points the host
    names one of (a tuple); None: nobody removes (one theme left, nobody in the final)."""
    players = _in_game(s)
    if not players or len(_themes_left(s)) <= 1:
        return None
    slots = _removal_slots(s)
    slot = len(s.pack.removed) % len(slots)
    level = slots[slot]
    if len(level) == 1:
        return level[0]
    named = {k: v for k, v in s.pack.removers if k < len(slots) and slots[k] == level and v in level}
    if slot in named:
        return named[slot]
    left = tuple(i for i in level if i not in named.values())
    return left[0] if len(left) == 1 else left


def remover(s) -> int | None:
    """Whose turn it is to remove a final theme (SIGame's order: by points, so that the one with
    the most removes the last); None also while the host is to name one of equal points."""
    who = _next_remover(s)
    return who if isinstance(who, int) else None


def choice(s) -> tuple:
    """The players with equal points of whom the host names who goes next (SIGame asks the
    showman): who removes the next final theme, who bids next in an auction; (): none to name."""
    p = s.pack
    if p is None:
        return ()
    if p.phase == "bids":
        return p.choosing
    if p.phase == "board" and p.cell is None and p.round_data().get("final") \
            and not (s.question is not None and s.question.open):
        who = _next_remover(s)
        return who if isinstance(who, tuple) else ()
    return ()


def _names(s, players) -> str:
    return ", ".join(s.teams[i].name for i in players)


def choose_next(s, h: Host, fx: list):
    """``next_player`` {team}: the host names who of the players with equal points goes next."""
    if not _require(s, h, fx):
        return s
    options = choice(s)
    if not options:
        b.refuse(fx, h.at, "pack.no_choice_now")
        return _set(s, entry="")
    team = b.team_ref(s.teams, h.params)
    if team not in options:
        b.refuse(fx, h.at, "pack.not_a_choice", team=s.teams[team].name, teams=_names(s, options))
        return _set(s, entry="")
    p = s.pack
    if p.phase == "bids":
        order = [i for i in p.bidders if i != team]
        order.insert(p.turn, team)
        b.log(fx, h.at, "next_bidder", team=s.teams[team].name)
        return _set(s, bidders=tuple(order), settled=p.settled | {team}, choosing=(), entry="")
    b.log(fx, h.at, "remover", team=s.teams[team].name)
    slot = len(p.removed) % len(_removal_slots(s))
    return _set(s, removers=p.removers + ((slot, team),), entry="")


def _must_name(s, h: Host, fx: list) -> bool:
    """The host is still to name who goes next (equal points): told so; True."""
    options = choice(s)
    if options:
        b.refuse(fx, h.at, "pack.name_next", teams=_names(s, options))
    return bool(options)


# ---------------------------------------------------------------------------
# host actions

def _require(s, h: Host, fx: list) -> bool:
    if s.pack is None:
        b.refuse(fx, h.at, "pack.none")
        return False
    return True


def _in_phase(s, h: Host, fx: list, phase: str, refusal: str) -> bool:
    """A package is played and is in ``phase``; else the host is told ``refusal``."""
    if not _require(s, h, fx):
        return False
    if s.pack.phase != phase:
        b.refuse(fx, h.at, refusal)
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
    if rnd.get("final"):
        return _final_pick(s, h, fx, theme - 1)
    row = themes[theme - 1]["questions"]
    if "cell" in h.params:
        cell = h.params["cell"]
        if not isinstance(cell, int) or isinstance(cell, bool):
            raise GameError(f"pick: \"cell\" must be a whole number, got {cell!r}")
    elif "price" in h.params:
        price = h.params["price"]
        cell = next((i + 1 for i, q in enumerate(row) if q["price"] == price and not _empty(q)
                     and (p.round, theme - 1, i) not in p.played), None)
        if cell is None:
            b.refuse(fx, h.at, "pack.no_cell", theme=theme, cell=price)
            return _set(s, entry="", theme=None)
    elif len(row) == 1:
        cell = 1
    else:
        raise GameError("pick: needs \"cell\" (1-based) or \"price\"")
    if not 1 <= cell <= len(row):
        b.refuse(fx, h.at, "pack.no_cell", theme=theme, cell=cell)
        return _set(s, entry="", theme=None)
    key = (p.round, theme - 1, cell - 1)
    q = row[cell - 1]
    if _empty(q):
        b.refuse(fx, h.at, "pack.empty_cell", theme=theme, cell=cell)
        return _set(s, entry="", theme=None)
    if key in p.played:
        b.refuse(fx, h.at, "pack.played", theme=theme, cell=cell)
        return _set(s, entry="", theme=None)
    play = PLAYED_AS.get(q.get("type"), "simple")
    s = replace(s, undo=())    # a new cell: the host's undo never reaches back into the question before
    s = _set(s, played=p.played | {key}, cell=key, entry="", theme=None, player=None, stake=None,
             price=None, options=None, bidders=(), turn=0, settled=frozenset(), choosing=(), all_in=False,
             play=play, think=None,
             shown_at=None, answer_at=None, answer_until=None, withdrawn=False)
    if play == "simple" and q.get("type") not in ("simple", None, ""):
        fx.append(Notice("pack.played_as_simple", {"type": q.get("raw_type") or q.get("type")}))
    b.log(fx, h.at, "cell", theme=theme, cell=cell, type=q.get("type"))
    if play in SECRET:
        return _secret_start(s, h, fx)
    if play == "stake":
        return _auction_start(s, h, fx)
    if play == "noRisk":
        c = chooser(s)
        return _open_question(_set(s, player=c), h, fx, q["price"] * s.rules.no_risk_factor, c)
    if play in ("forAll", "stakeAll"):
        return _multi_start(s, h, fx, play)
    return _open_question(s, h, fx, q["price"], None)


# -- «кот в мешке» ------------------------------------------------------------

def _receivers(s) -> list[int]:
    """Who may get the cat: not the chooser (SIGame's ``exceptCurrent``) unless the package
    says ``any`` or nobody else plays."""
    q = s.pack.question_data()
    everyone = list(range(len(s.teams)))
    if q.get("selection") == "any" or len(everyone) == 1:
        return everyone
    c = chooser(s)
    return [i for i in everyone if i != c]


def _secret_start(s, h: Host, fx: list):
    q = s.pack.question_data()
    s = _set(s, options=None, price=None)
    options = _price_options(s.pack, q)
    if s.pack.play == "secretPublicPrice":       # the price is announced before the cat is given
        s = _set(s, price=options if isinstance(options, int) else None,
                 options=options if not isinstance(options, int) else None)
    receivers = _receivers(s)
    if len(receivers) == 1:                      # SIGame gives it without asking
        return _secret_given(_set(s, phase="player"), h, fx, receivers[0])
    return _set(s, phase="player")


def choose_player(s, h: Host, fx: list):
    if not _in_phase(s, h, fx, "player", "pack.no_player_now"):
        return s
    team = b.team_ref(s.teams, h.params)
    if team not in _receivers(s):
        b.refuse(fx, h.at, "pack.not_chooser", team=s.teams[team].name)
        return _set(s, entry="")
    return _secret_given(s, h, fx, team)


def _secret_given(s, h: Host, fx: list, team: int):
    p = s.pack
    b.log(fx, h.at, "player", team=s.teams[team].name, type=p.play)
    s = _set(s, player=team, entry="")
    options = _price_options(p, p.question_data())
    if isinstance(options, int):
        return _secret_priced(s, h, fx, options)
    return _set(s, phase="secret_price", options=options)


def _secret_priced(s, h: Host, fx: list, price: int):
    p = s.pack
    b.log(fx, h.at, "secret_price", team=s.teams[p.player].name, points=price)
    if p.play == "secretNoQuestion":          # no question: the points are simply given
        team = p.player
        s = replace(s, scores=b.set_at(s.scores, team, s.scores[team] + price),
                    won=b.set_at(s.won, team, s.won[team] + max(price, 0)), undo=())
        fx += [Sound("right"), Flash("right", s.teams[team].name)]
        b.log(fx, h.at, "secret_awarded", team=s.teams[team].name, points=price, score=s.scores[team])
        return _set(s, phase="board", price=price, entry="", options=None)
    return _open_question(_set(s, options=None), h, fx, price, p.player)


# -- the auction --------------------------------------------------------------

def _auction_start(s, h: Host, fx: list):
    """The chooser first, then everyone with more points than the price, the fewest points
    first (SIGame; players with equal points: the host names who bids first of them)."""
    price = s.pack.question_data()["price"]
    c = chooser(s)
    rest = sorted((i for i in range(len(s.teams)) if i != c and s.scores[i] > price), key=lambda i: (s.scores[i], i))
    order = (c,) + tuple(rest)
    s = _set(s, bidders=order, turn=0, settled=frozenset({c}), choosing=(), stake=None, player=None,
             all_in=False, phase="bids")
    if len(order) == 1 or s.scores[c] <= price:
        # nobody else can outbid / the chooser has no more than the price: the chooser plays for it
        return _bid(s, h, fx, c, price, all_in=False)
    return s


def _settle_turn(s):
    """The bidder whose turn has come takes his place in the order for good; if others left
    have as few points as he (SIGame: the fewest bid first), the host names who of them bids."""
    p = s.pack
    who = p.bidders[p.turn]
    if who in p.settled:
        return _set(s, choosing=())
    level = tuple(i for i in p.bidders if i not in p.settled and s.scores[i] == s.scores[who])
    if len(level) <= 1:
        return _set(s, settled=p.settled | {who}, choosing=())
    return _set(s, choosing=tuple(sorted(level)))


def bid_limits(s) -> tuple[int, int]:
    """(lowest, highest) bid of the bidder whose turn it is (SIGame: the price, then more than
    the highest bid by the step, rounded up to the step; all one's points are always a bid)."""
    p = s.pack
    who = p.bidders[p.turn]
    step = stake_step(p)
    base = p.question_data()["price"] if p.stake is None else p.stake + step
    return -(-base // step) * step, s.scores[who]


def _bid(s, h: Host, fx: list, who: int, points: int, all_in: bool):
    s = _set(s, stake=points, player=who, all_in=all_in, entry="")
    b.log(fx, h.at, "bid", team=s.teams[who].name, points=points, all_in=all_in)
    # the others with no more points than the bid drop out
    left = tuple(i for i in s.pack.bidders if i == who or s.scores[i] > points)
    return _next_bidder(_set(s, bidders=left, turn=left.index(who)), h, fx)


def _next_bidder(s, h: Host, fx: list):
    p = s.pack
    if len(p.bidders) == 1:
        who = p.bidders[0]
        b.log(fx, h.at, "stake", team=s.teams[who].name, points=p.stake)
        return _open_question(_set(s, player=who, choosing=()), h, fx, p.stake, who)
    return _settle_turn(_set(s, turn=(p.turn + 1) % len(p.bidders), entry=""))


def pass_bid(s, h: Host, fx: list):
    """The auction's bidder passes (never the first bid: the chooser bids at least the price)."""
    if not _in_phase(s, h, fx, "bids", "pack.no_stake_now"):
        return s
    p = s.pack
    if _must_name(s, h, fx):
        return _set(s, entry="")
    if p.stake is None:
        b.refuse(fx, h.at, "pack.first_bid")
        return _set(s, entry="")
    who = p.bidders[p.turn]
    b.log(fx, h.at, "pass", team=s.teams[who].name)
    left = p.bidders[:p.turn] + p.bidders[p.turn + 1:]
    turn = p.turn - 1 if p.turn > 0 else len(left) - 1
    return _next_bidder(_set(s, bidders=left, turn=turn), h, fx)


# -- for all, stakes of all, the final ---------------------------------------

def _answering(s, play: str) -> tuple:
    """Per player: True if they answer (forAll: everyone; hidden stakes: points above zero, or
    everyone with ``everyone_plays_hidden_stakes``)."""
    if play == "forAll":
        return tuple(True for _ in s.teams)
    return tuple(sc > 0 or s.rules.everyone_hidden for sc in s.scores)


def _multi_start(s, h: Host, fx: list, play: str):
    p = s.pack
    price = p.question_data()["price"]
    on = _answering(s, play)
    # a new question: the last one's rulings can no longer be undone (the game's undo goes back
    # to a state before this cell was picked)
    s = _set(replace(s, undo=()), results=tuple(None for _ in s.teams))
    b.log(fx, h.at, "final_question" if play == "final" else "all_question", type=play,
          theme=p.round_data()["themes"][p.cell[1]]["name"],
          players=[s.teams[i].name for i, x in enumerate(on) if x])
    if not any(on):
        fx.append(Notice("pack.final_nobody", {}))
        return _multi_done(_set(s, stakes=tuple(None for _ in s.teams)), h, fx)
    if play == "forAll":
        return _multi_answers(_set(s, stakes=tuple(price if x else None for x in on)), h, fx)
    # a player with 1 point or less can only stake 1 (SIGame)
    stakes = tuple((1 if s.scores[i] <= 1 else 0) if x else None for i, x in enumerate(on))
    s = _set(s, stakes=stakes, phase="final_stakes")
    if _next_final(s) is None:
        return _multi_answers(s, h, fx)
    return s


def _multi_answers(s, h: Host, fx: list):
    """The question shows; everyone answers (the countdown only signals); then the rulings."""
    from controller.core import countdown as cdn
    p = s.pack
    q = p.question_data()
    total = _seconds(q, s.rules.hidden_time)
    cd = cdn.start("answer", total, h.at) if total else None
    if cd is not None and s.paused:
        cd = cdn.pause(cd, h.at)
    b.log(fx, h.at, "final_stakes_done")
    s = _set(s, phase="final_rulings", think=cd, entry="")
    return _media_sounds(s, q, fx, h.at)


def _final_pick(s, h: Host, fx: list, theme: int):
    """The final round's board: the theme removed by the player whose turn it is; the last one
    left is played."""
    p = s.pack
    if theme in p.removed:
        b.refuse(fx, h.at, "pack.theme_removed", theme=theme + 1)
        return _set(s, entry="")
    if _must_name(s, h, fx):
        return _set(s, entry="")
    left = _themes_left(s)
    if len(left) > 1:
        who = remover(s)
        s = _set(s, removed=p.removed | {theme}, entry="")
        b.log(fx, h.at, "theme_removed", theme=theme + 1, team=s.teams[who].name if who is not None else None)
        left = _themes_left(s)
        if len(left) > 1:
            return s
        theme = left[0]
    key = (p.round, theme, 0)
    if not p.round_data()["themes"][theme]["questions"]:
        b.refuse(fx, h.at, "pack.no_cell", theme=theme + 1, cell=1)
        return s
    s = _set(s, played=s.pack.played | {key}, cell=key, play="final", player=None, stake=None, price=None, think=None,
             shown_at=None, answer_at=None, answer_until=None, withdrawn=False)
    return _multi_start(s, h, fx, "final")


def set_stake(s, h: Host, fx: list):
    if not _require(s, h, fx):
        return s
    p = s.pack
    points = h.params.get("points")
    if not isinstance(points, int) or isinstance(points, bool):
        raise GameError(f"stake: \"points\" must be a whole number, got {points!r}")
    if p.phase == "secret_price":
        if not _in_options(points, p.options):
            lo, hi, step = p.options
            b.refuse(fx, h.at, "pack.bad_price", low=lo, high=hi, step=step)
            return _set(s, entry="")
        return _secret_priced(s, h, fx, points)
    if p.phase == "bids":
        if _must_name(s, h, fx):
            return _set(s, entry="")
        who = p.bidders[p.turn]
        if ("team" in h.params or "button" in h.params) and b.team_ref(s.teams, h.params) != who:
            b.refuse(fx, h.at, "pack.not_your_turn", team=s.teams[who].name)
            return _set(s, entry="")
        low, high = bid_limits(s)
        all_in = points == s.scores[who] and (p.stake is None or points > p.stake)
        if not all_in and (p.all_in or not low <= points <= high or points % stake_step(p)):
            b.refuse(fx, h.at, "pack.bad_bid", low=low, high=high, step=stake_step(p), all=s.scores[who])
            return _set(s, entry="")
        return _bid(s, h, fx, who, points, all_in)
    if p.phase == "final_stakes":
        team = b.team_ref(s.teams, h.params) if ("team" in h.params or "button" in h.params) else _next_final(s)
        if team is None or p.stakes[team] is None:
            b.refuse(fx, h.at, "pack.not_in_final")
            return _set(s, entry="")
        if not 1 <= points <= max(s.scores[team], 1):
            b.refuse(fx, h.at, "pack.bad_stake", low=1, high=max(s.scores[team], 1))
            return _set(s, entry="")
        stakes = b.set_at(p.stakes, team, points)
        b.log(fx, h.at, "stake", team=s.teams[team].name, points=points)
        s = _set(s, stakes=stakes, entry="")
        if _next_final(s) is None:
            return _multi_answers(s, h, fx)
        return s
    b.refuse(fx, h.at, "pack.no_stake_now")
    return s


def _next_final(s) -> int | None:
    """The next player whose hidden stake is not entered yet (0 = to be entered)."""
    return next((i for i, st in enumerate(s.pack.stakes) if st == 0), None)


def _next_ruling(s) -> int | None:
    p = s.pack
    return next((i for i, st in enumerate(p.stakes) if st is not None and p.results[i] is None), None)


def final_ruling(s, h: Host, fx: list, result: str):
    p = s.pack
    team = b.team_ref(s.teams, h.params) if ("team" in h.params or "button" in h.params) else _next_ruling(s)
    if team is None or p.stakes[team] is None or p.results[team] is not None:
        b.refuse(fx, h.at, "pack.nobody_to_rule")
        return s
    delta = _multi_delta(s, team, result)
    s = replace(s, scores=b.set_at(s.scores, team, s.scores[team] + delta),
                won=b.set_at(s.won, team, s.won[team] + max(delta, 0)), undo=(s,) + s.undo[:9])
    s = _set(s, results=b.set_at(p.results, team, result))
    name = s.teams[team].name
    fx += [Sound(result), Flash(result, name)]
    b.log(fx, h.at, "final_ruling", team=name, result=result, delta=delta, score=s.scores[team])
    if _next_ruling(s) is None:
        return _multi_done(s, h, fx)
    return s


def _multi_delta(s, team: int, result: str) -> int:
    """The points a ruling of everyone's question gives ``team``: ± its stake (forAll: its price;
    a wrong one costs nothing without ``for_all_penalty``)."""
    stake = s.pack.stakes[team]
    if result == "right":
        return stake
    return -stake if s.pack.play != "forAll" or s.rules.for_all_penalty else 0


def withdraw_multi(s, h: Host, fx: list):
    """Withdraw (X) everyone's question (forAll, stakeAll, the final) once it is shown -- while
    its answers are ruled or after: the points of its rulings are taken back and its answer is not
    shown (SIGame); the board comes back, after the final the end screen.  None: the current
    cell is not everyone's question (the game withdraws its own question)."""
    p = s.pack
    if p is None or p.cell is None or p.play not in MULTI or p.phase in BEFORE_QUESTION:
        return None
    if p.withdrawn:
        b.refuse(fx, h.at, "no_question")
        return s
    undone = []
    for team, result in enumerate(p.results):
        if result is None:
            continue
        delta = _multi_delta(s, team, result)
        s = replace(s, scores=b.set_at(s.scores, team, s.scores[team] - delta),
                    won=b.set_at(s.won, team, s.won[team] - max(delta, 0)))
        undone.append({"team": s.teams[team].name, "delta": -delta})
    fx += [Flash("withdrawn"), STOP_SOUND]
    b.log(fx, h.at, "withdraw", cell=[p.cell[0] + 1, p.cell[1] + 1, p.cell[2] + 1], type=p.play, undone=undone)
    s = _set(replace(s, undo=()), withdrawn=True, think=None, entry="", results=tuple(None for _ in s.teams),
             stakes=tuple(None for _ in s.teams), answer_at=None, answer_until=None,
             phase="final_done" if p.play == "final" else "board")
    if p.play == "final" and s.stage != "finished":
        return _game_over(s, h.at, fx)    # the final was the package's last question
    return s


def undoes_ruling(s) -> bool:
    """The host's undo takes back one of everyone's rulings (for all, stakes of all, the
    final): the last state kept is one taken before such a ruling (a new cell empties them)."""
    return bool(s.undo) and s.undo[0].pack is not None and s.undo[0].pack.phase == "final_rulings"


def undo_ruling(s, h: Host, fx: list):
    """Take back the last of everyone's rulings: that player is ruled again (next in turn),
    the rulings before it stay; after the last one, the question (or the final) is open again."""
    prev = s.undo[0]
    team = next(i for i, (a, b_) in enumerate(zip(prev.pack.results, s.pack.results)) if a != b_)
    fx.append(Flash("undo"))
    b.log(fx, h.at, "undo", ruling={"team": s.teams[team].name, "result": s.pack.results[team],
                                    "delta": s.scores[team] - prev.scores[team]})
    # a rename made since the ruling stays
    return replace(prev, now=s.now, paused=s.paused, undo=s.undo[1:], teams=s.teams)


def _multi_done(s, h: Host, fx: list):
    p = s.pack
    b.log(fx, h.at, "final_done")
    s = _set(s, think=None, phase="board" if p.play != "final" else "final_done")
    s = closed(s, h.at, fx)     # the right answer and its content show first
    if p.play != "final" or s.pack.answer_until is not None:
        return s
    return _game_over(s, h.at, fx)


def _game_over(s, t: int, fx: list):
    """The final's last answer has been shown: the game ends, the standings show."""
    fx.append(Flash("standings"))
    b.log(fx, t, "game_over", standings=[s.teams[i].name for i in sorted(range(len(s.teams)),
                                                                       key=lambda i: (-s.scores[i], i))])
    return replace(s, stage="finished")


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
    s = _set(s, round=p.round + 1, entry="", theme=None, cell=None, phase="board", removed=frozenset(),
             removers=(), price=None, player=None, stake=None, answer_until=None)
    s = replace(s, theme="")
    b.log(fx, h.at, "round", round=s.pack.round + 1, name=s.pack.round_data()["name"])
    return s


def digit(s, h: Host, fx: list, d: int):
    """A number key: what it types depends on what the host is doing (see the module doc)."""
    if not _require(s, h, fx):
        return s
    p = s.pack
    if choice(s):                      # the host names who goes next: a player's number
        entry = (p.entry + str(d)).lstrip("0")
        s = _set(s, entry=entry)
        if _complete(entry, len(s.teams)):
            return _named_next(s, h, fx, entry)
        return s
    if p.phase in ("bids", "final_stakes", "secret_price"):
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


def _named_next(s, h: Host, fx: list, entry: str):
    if not 1 <= int(entry) <= len(s.teams):
        b.refuse(fx, h.at, "pack.no_player", number=int(entry))
        return _set(s, entry="")
    return choose_next(_set(s, entry=""), replace(h, params={"team": int(entry)}), fx)


def enter(s, h: Host, fx: list):
    """Enter (the host's "right" key) while a number is being typed: complete it (an auction's
    Enter with nothing typed: the first bid is the price, a later one passes)."""
    p = s.pack
    if choice(s):
        if p.entry:
            return _named_next(s, h, fx, p.entry)
        _must_name(s, h, fx)
        return s
    if p.phase == "bids" and not p.entry:
        if p.stake is None:
            return set_stake(s, replace(h, params={"points": p.question_data()["price"]}), fx)
        return pass_bid(s, h, fx)
    if p.phase in ("bids", "final_stakes", "secret_price"):
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
    """Withdraw (X) before the question is shown (naming the player, the price, the bids, the
    stakes): the cell goes back onto the board.  None: nothing of the package's to cancel."""
    p = s.pack
    if p is None or p.phase not in BEFORE_QUESTION:
        return None
    b.log(fx, h.at, "cell_cancelled", cell=[p.cell[0] + 1, p.cell[1] + 1, p.cell[2] + 1])
    fx.append(Flash("withdrawn"))
    fx.append(STOP_SOUND)
    return _set(s, played=p.played - {p.cell}, cell=None, phase="board", entry="", player=None, stake=None,
                stakes=tuple(None for _ in s.teams), price=None, options=None, bidders=(), removed=p.removed)


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
    if p.phase in TYPING_PHASES:
        return p.entry
    if p.theme is not None:
        return f"{p.theme + 1}-{p.entry}"
    if p.entry:
        return p.entry
    return f"{p.cell[1] + 1}-{p.cell[2] + 1}" if p.cell is not None and not p.round_data().get("final") else ""


def entry_label(s) -> tuple[str, dict] | None:
    """What the host's digits are typing, as a notice (i18n key, params); None: nothing typed."""
    p = s.pack
    options = choice(s)
    if options:
        return "pack.entry.next", {"entry": p.entry or "…", "teams": _names(s, options)}
    if p.phase == "player":
        return "pack.entry.player", {"entry": p.entry or "…"}
    if p.phase == "secret_price":
        return "pack.entry.price", {"entry": p.entry or "…", "team": s.teams[p.player].name}
    if p.phase == "bids":
        return "pack.entry.bid", {"entry": p.entry or "…", "team": s.teams[p.bidders[p.turn]].name}
    if p.phase == "final_stakes":
        nxt = _next_final(s)
        return "pack.entry.stake", {"entry": p.entry or "…", "team": s.teams[nxt].name if nxt is not None else ""}
    if p.theme is not None:
        return "pack.entry.cell", {"theme": p.theme + 1, "entry": p.entry or "…"}
    if p.entry:
        return "pack.entry.theme", {"entry": p.entry}
    return None


def typing(s) -> bool:
    """Whether Enter / Backspace / keypad 0 edit a number now instead of ruling."""
    p = s.pack
    if p is None:
        return False
    return bool(p.entry) or p.theme is not None or p.phase in TYPING_PHASES or bool(choice(s))


# ---------------------------------------------------------------------------
# hooks the game calls

def wrong_delta(s, delta: int) -> int:
    """«Без риска»: a wrong answer costs nothing (``no_risk_penalty``)."""
    p = s.pack
    if p is not None and p.cell is not None and p.play == "noRisk" and s.question is not None and s.question.open:
        return delta if s.rules.no_risk_penalty else 0
    return delta


def single_player(s) -> bool:
    """«Кот в мешке», «без риска» and an auction: only the named player answers (a wrong answer ends it)."""
    p = s.pack
    return p is not None and p.cell is not None and p.play in SECRET + ("stake", "noRisk")


def after_ruling(s, team: int, result: str):
    """A right answer makes its player the chooser of the next cell."""
    if s.pack is not None and result == "right":
        return _set(s, chooser=team)
    return s


def press_window(s, default: int) -> int:
    """The press window of a package's question: its answer time (answerDuration), else the config's."""
    q = s.pack.question_data() if s.pack is not None else None
    return _seconds(q, default) if q is not None else default


def deadlines(s) -> list:
    """Everyone's answer countdown; the end of the answer's showing (``pack_answer``)."""
    p = s.pack
    if p is None:
        return []
    out = b.countdown_deadlines(p.think, "think_warn", "think_up")
    return out + ([(p.answer_until, 5, "pack_answer")] if p.answer_until is not None else [])


def fire(s, t: int, what: str, fx: list):
    """The answer countdown of everyone's answers ran out (it only signals: the host rules)."""
    from controller.core import countdown as cdn
    p = s.pack
    if what == "think_up":
        fx += [Sound("time_up"), Flash("time_up")]
        b.log(fx, t, "time_up", cell=list(p.cell) if p.cell else None)
        return _set(s, think=replace(p.think, deadline=None, left=0))
    if what == "think_warn":
        cd, _ = cdn.take_warnings(p.think, t)
        return _set(s, think=cd)
    return s


def pause(s, now: int, paused: bool):
    """Pause / resume the answer countdown of everyone's answers."""
    from controller.core import countdown as cdn
    p = s.pack
    if p is None or p.think is None:
        return s
    if paused:
        return _set(s, think=cdn.pause(p.think, now))
    return _set(s, think=cdn.resume(p.think, now)) if p.think.left > 0 else s


def hides_question(s) -> bool:
    """A cell picked whose question is not on yet (or a final or everyone's question, which the
    game's own question does not describe): the game's question card, nominal and press order
    are not of it."""
    p = s.pack
    return p is not None and (p.phase not in ("board",) or (p.cell is not None and p.play in MULTI)
                              or (p.round_data().get("final")))


def _shown_ns(m: dict, each_ns: int) -> int:
    """How long a picture shows: the package's own time of it (``seconds``), else ``each_ns``."""
    return int(m["seconds"] * 10 ** 9) if m.get("seconds") else each_ns


def _in_turn(media: list, since: int | None, now: int, each_ns: int) -> dict:
    """Content items shown one after another (pictures: SIGame shows a question's pictures in
    turn, each for the package's time of it or ``each_ns``, the last one staying): every item,
    and which one shows at ``now``."""
    images = [m for m in media if m["kind"] == "image"]
    i = 0
    if images and since is not None and each_ns > 0:
        elapsed = max(now - since, 0)
        while i < len(images) - 1 and elapsed >= _shown_ns(images[i], each_ns):
            elapsed -= _shown_ns(images[i], each_ns)
            i += 1
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
    pictures in turn; nothing of it before its player, price or stake is settled), its answer
    and answer content once ruled (``answer``: until then only in the host's part)."""
    from controller.games.race import countdown_view
    now = s.now if now is None else now
    p = s.pack
    rnd = p.round_data()
    final = bool(rnd.get("final"))
    board = [{"name": th["name"], "removed": ti in p.removed, "cells": [
        {"price": q["price"], "played": (p.round, ti, ci) in p.played, "empty": _empty(q)}
        for ci, q in enumerate(th["questions"])]}
        for ti, th in enumerate(rnd["themes"])]
    q = p.question_data()
    revealed = q is not None and p.answer_until is not None
    live = q is not None and (p.phase in BEFORE_QUESTION + ("final_rulings",)
                              or (s.question is not None and s.question.open) or revealed)
    question = None
    host: dict = {"entry": p.entry, "phase": p.phase,
                  "picking_theme": p.theme + 1 if p.theme is not None else None}
    if q is not None:
        # until the stake, the player or the price is settled only the type shows; a cat with
        # no question never shows one
        hidden = p.phase in BEFORE_QUESTION or p.play == "secretNoQuestion"
        theme = rnd["themes"][p.cell[1]]
        content = _content(q, p.shown_at, now, p.image_ns) if not hidden else _in_turn([], None, now, 0)
        nominal = p.price if p.play != "stake" else p.stake
        if p.play in ("stakeAll", "final"):
            nominal = None
        elif p.play == "forAll" or (p.play == "simple" and p.price is None):
            nominal = q["price"]
        question = {"theme": theme["name"], "price": q["price"], "nominal": nominal,
                    "type": q.get("type"), "played_as": p.play, "live": live,
                    "text": "" if hidden else q.get("text", ""),
                    "secret_theme": q.get("secret_theme", ""),
                    **content,
                    "theme_comment": theme.get("comment", ""),
                    # a select question's options
                    "options": [] if hidden else [{"label": o["label"], "text": o["text"],
                                                   "media": [{"name": m["name"], "member": m.get("member")}
                                                             for m in o.get("media") or ()]}
                                                  for o in q.get("options") or ()],
                    "player": s.teams[p.player].name if p.player is not None else None,
                    # a cat's price range the player picks from
                    "stake": p.stake, "price_options": list(p.options) if p.options else None,
                    "bidder": s.teams[p.bidders[p.turn]].name if p.phase == "bids" and p.bidders
                    and not p.choosing else None,
                    "all_in": p.all_in,
                    "answer": None}
        if revealed:
            question["answer"] = {"answer": q.get("answer", ""), "text": q.get("answer_text", ""),
                                  "comment": q.get("comment", ""),
                                  **_content(q, p.answer_at, now, p.image_ns, key="answer_media")}
        host.update({"answer": q.get("answer", ""), "answer_text": q.get("answer_text", ""), "say": q.get("say", ""),
                     "text": q.get("text", ""), "comment": q.get("comment", ""),
                     "theme_comment": theme.get("comment", ""),
                     "answer_media": [m["name"] for m in q.get("answer_media") or ()]})
    answers = None
    if p.play in MULTI and p.cell is not None:
        answers = [{"team": s.teams[i].name, "staked": st not in (None, 0), "result": p.results[i]}
                   for i, st in enumerate(p.stakes) if st is not None]
        host["stakes"] = {s.teams[i].name: st for i, st in enumerate(p.stakes) if st}
        nxt = _next_final(s) if p.phase == "final_stakes" else _next_ruling(s) if p.phase == "final_rulings" else None
        host["next"] = s.teams[nxt].name if nxt is not None else None
    if p.phase == "bids" and not p.choosing:
        low, high = bid_limits(s)
        host["bid"] = {"low": low, "high": high, "step": stake_step(p)}
    left = sum(1 for ti, th in enumerate(rnd["themes"]) for ci, q2 in enumerate(th["questions"])
               if (p.round, ti, ci) not in p.played and not _empty(q2))
    rem = remover(s) if final and p.phase == "board" and p.cell is None else None
    return ({"name": p.data.get("name", ""), "round": rnd["name"], "round_number": p.round + 1,
             "rounds": len(p.data.get("rounds") or ()), "final": final, "board": board,
             "question": question, "final_players": answers, "left": left, "phase": p.phase,
             "entry": p.entry, "picking_theme": host["picking_theme"],
             "remover": s.teams[rem].name if rem is not None else None,
             # players with equal points of whom the host names who goes next (removes, bids)
             "choosing": [s.teams[i].name for i in choice(s)],
             "numbers": view_numbers(s),
             "think": countdown_view(p.think, now) if p.think is not None else None}, host)


def summary(s) -> dict:
    p = s.pack
    return {"name": p.data.get("name", ""), "round": p.round + 1,
            "played": sorted([r + 1, t + 1, c + 1] for r, t, c in p.played),
            "final_stakes": {s.teams[i].name: st for i, st in enumerate(p.stakes) if st},
            "final_results": {s.teams[i].name: r for i, r in enumerate(p.results) if r is not None},
            "removed_themes": sorted(t + 1 for t in p.removed)}


def view_numbers(s) -> bool:
    """The host is typing a player's number: the cards show the players' numbers, not places."""
    return s.pack.phase == "player" or bool(choice(s))


def header_theme(s) -> str:
    """The theme in the top bar: the cell's being played, nothing on the board (never the
    previous round's)."""
    p = s.pack
    on = p.phase != "board" or (s.question is not None and s.question.open) or p.answer_until is not None
    if p.cell is None or p.cell[0] != p.round or not on:
        return ""
    return p.round_data()["themes"][p.cell[1]]["name"]
