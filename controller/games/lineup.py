"""Line-ups of Эрудит-квартет: who plays which round, as pure rules over plain values.

The regulations (docs/rules.md; the clause of each rule is in the docstring that
applies it):

* §4.2: every player of a team plays one round in each fight.  In a «светлый»
  fight the host announces the four themes first and the captain then has a
  minute to give each player a round; in a «полутёмный» fight the theme is
  announced right before its round and the captain has 20 s to pick its
  player; in a «тёмный» fight the captain gives the rounds before any theme is
  announced.
* §4.1: a team of fewer players than rounds plays as many rounds as it has
  players (the captain chooses which to skip); a latecomer joins from the next
  fight.
* §2.7: substitutions between fights only (never inside one).

Nothing here knows the game's state machine: :mod:`controller.games.erudite`
asks these functions and stores the :class:`Lineups` value they return.
Players are numbered from 1 as on the team's entry (the event file's
``players`` list, docs/event-file.md); fights and rounds are 0-based inside,
1-based in every message.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.core.values import replace


@dataclass(frozen=True, slots=True)
class Lineups:
    """Everything entered about players during one game (journaled host actions rebuild it)."""

    entries: tuple[tuple[tuple[int, int, int], int], ...] = ()
    """((team, fight, round), player): player (1-based) at the team's button in that round."""
    absent: frozenset = frozenset()
    """{(team, player)}: entered players not here (yet)."""
    arrived: tuple[tuple[tuple[int, int], int], ...] = ()
    """((team, player), fight): a latecomer and the first fight he may play [§4.1]."""

    @property
    def used(self) -> bool:
        return bool(self.entries or self.absent or self.arrived)


def player_at(lu: Lineups, team: int, fight: int, rnd: int) -> int | None:
    """The player (1-based) at ``team``'s button in that round, or None when none was entered."""
    for key, player in lu.entries:
        if key == (team, fight, rnd):
            return player
    return None


def rounds_of(lu: Lineups, team: int, fight: int) -> dict[int, int]:
    """round -> player of ``team`` in ``fight``."""
    return {k[2]: p for k, p in lu.entries if k[0] == team and k[1] == fight}


def first_fight(lu: Lineups, team: int, player: int) -> int:
    """The first fight a player may play: 0, or the fight after the one in which a
    latecomer arrived [§4.1]."""
    for key, fight in lu.arrived:
        if key == (team, player):
            return fight
    return 0


def available(lu: Lineups, team: int, player: int, fight: int) -> bool:
    """Whether an entered player may be put in a line-up of ``fight`` [§4.1]."""
    return (team, player) not in lu.absent and first_fight(lu, team, player) <= fight


def players_in_fight(lu: Lineups, team: int, entry_size: int, fight: int) -> int:
    """How many of the team's players may play in ``fight``: the team's entry less those
    not here, less latecomers who came during it or later [§4.1]."""
    return sum(1 for p in range(1, entry_size + 1) if available(lu, team, p, fight))


def sits_out(lu: Lineups, team: int, entry_size: int, fight: int, rnd: int, rounds: int) -> bool:
    """A short team whose every player has a round of this fight skips the rounds left
    without a player: it plays as many rounds as it has players [§4.1]."""
    if not lu.used or fight < 0:
        return False
    n = players_in_fight(lu, team, entry_size, fight)
    if n >= rounds:
        return False
    given = rounds_of(lu, team, fight)
    return rnd not in given and len(given) >= n


def check_entry(lu: Lineups, *, team: int, fight: int, rnd: int, player: int, entry_size: int,
                rounds: int, fight_type: str, fight_started: bool, round_started: bool,
                themes_announced: bool, skipped: bool) -> tuple[str, dict] | None:
    """Why the entry «``player`` plays round ``rnd`` of ``fight`` for ``team``» is refused
    (a notice key and its parameters), or None when the regulations allow it.

    * the player must be on the team's entry and here [§2.4, §4.1]; a latecomer
      plays from the fight after the one he came in [§4.1];
    * one round per player in a fight [§4.2];
    * a round the team skips has nobody at the button [§4.1];
    * «светлый», «тёмный» fight: the line-up is given before the fight, and in a
      «тёмный» one before any of its themes is announced; once the fight has begun
      a change is a substitution inside a fight, which §2.7 does not allow;
    * «полутёмный» fight: a round's player is picked before that round [§4.2]; a
      round that has begun keeps its player [§2.7].
    """
    r1 = rnd + 1
    if not 1 <= player <= entry_size:
        return "lineup_no_player", {"player": player, "players": entry_size}
    if not 0 <= rnd < rounds:
        return "lineup_no_round", {"round": r1, "rounds": rounds}
    if (team, player) in lu.absent:
        return "lineup_absent", {"player": player}
    if first_fight(lu, team, player) > fight:
        return "lineup_latecomer", {"player": player, "fight": first_fight(lu, team, player) + 1}
    if skipped:
        return "lineup_round_skipped", {"round": r1}
    if fight >= 0:
        if fight_type == "half-dark":
            if round_started:
                return "lineup_round_started", {"round": r1}
        elif fight_started:
            return "lineup_fight_started", {"fight": fight + 1}
        elif fight_type == "dark" and themes_announced:
            return "lineup_dark_themes", {"fight": fight + 1}
    for other, p in rounds_of(lu, team, fight).items():
        if p == player and other != rnd:
            return "lineup_twice", {"player": player, "round": other + 1}
    return None


def assign(lu: Lineups, team: int, fight: int, rnd: int, player: int) -> Lineups:
    """The line-up with ``player`` at the button of that round (the round's earlier
    entry, if any, replaced: allowed only where :func:`check_entry` said so)."""
    key = (team, fight, rnd)
    return replace(lu, entries=tuple(e for e in lu.entries if e[0] != key) + ((key, player),))


def mark_absent(lu: Lineups, team: int, player: int) -> Lineups:
    return replace(lu, absent=lu.absent | {(team, player)})


def arrive(lu: Lineups, team: int, player: int, fight: int, fight_started: bool) -> Lineups:
    """A player who was not here came: he plays from the next fight, or from this one
    when it has not begun [§4.1]."""
    first = fight + 1 if fight_started else fight
    arrived = tuple(a for a in lu.arrived if a[0] != (team, player))
    if (team, player) in lu.absent or first > 0:
        arrived += (((team, player), max(first, 0)),)
    return replace(lu, absent=lu.absent - {(team, player)}, arrived=arrived)


def player_name(roster: tuple[str, ...], player: int) -> str:
    """A player as the screen and ``buzzer simulate`` name him: the entry's name, or
    «№ N» when the team's entry has no names."""
    if 1 <= player <= len(roster):
        return roster[player - 1]
    return f"№{player}"


def tally(answers, roster_of, player_of) -> dict[int, dict[int, list[int]]]:
    """team -> player -> [points, points won by right answers] over ``answers``
    (``(team, fight, round, delta, right)`` of every ruling that stands) [§4.3]."""
    out: dict[int, dict[int, list[int]]] = {}
    for team, fight, rnd, delta, right in answers:
        p = player_of(team, fight, rnd)
        if p is None:
            continue
        row = out.setdefault(team, {}).setdefault(p, [0, 0])
        row[0] += delta
        if right:
            row[1] += delta
    return out


def best(rows: list[dict]) -> list[dict]:
    """The players with the most points among ``rows`` (each with ``points``); all of them
    when several share the top; none when nobody has scored above zero."""
    if not rows:
        return []
    top = max(r["points"] for r in rows)
    if top <= 0:
        return []
    return [r for r in rows if r["points"] == top]
