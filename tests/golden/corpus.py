#!/usr/bin/env python3
"""The golden-output corpus of ``buzzer simulate`` (issue #13: the refactor guard).

A deterministic generator (seeded :class:`random.Random`) writes scripted sessions
(docs/scripted-sessions.md) for every game -- presses at random gaps (exact ties,
presses inside the settle window, late deliveries, early presses and false starts,
presses during answers, held buttons), host rulings, undo, withdraw, pause, renames,
countdowns running out, different settings -- plus every script of ``examples/``.
Each one is played by ``buzzer simulate`` of a given source tree and its exact stdout,
stderr and exit code are digested.  ``simulate.json`` (next to this file) holds the
digests of the baseline; after a refactor every digest must be the same, or the
difference is a defect fix named in the commit that updates the file.

    python tests/golden/corpus.py check [--per-game N] [--source TREE]
    python tests/golden/corpus.py update [--source TREE]        # rewrite simulate.json
    python tests/golden/corpus.py run --source TREE --out DIR    # outputs + digests into DIR
    python tests/golden/corpus.py stats [--source TREE]          # how deep the scripts go
    python tests/golden/corpus.py diff NAME --source OLD [--against NEW]

``--source`` is a checkout of this project (default: this one); its ``controller``
package is imported in a subprocess with ``PYTHONPATH=TREE`` and ``controller.cli.main``
is called once per script (``main(["simulate", path, ...])``, stdout/stderr captured,
``SystemExit`` and stray exceptions caught), one process per game.  It works for the
old layout (commit 1db320b, ``controller/script.py``) and the new one
(``controller/sessions/script.py``): ``controller.cli:main`` is the entry point of both.
The scripts themselves (and the copies of ``examples/`` and ``config/`` they may
name) always come from this checkout, so two trees are compared on the same input.
See docs/testing.md.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DIGESTS = Path(__file__).with_name("simulate.json")

GAMES = ("erudite", "own-game", "brain-ring", "chgk", "mafia", "programme")
SEED = 13
"""The corpus seed (issue #13).  Changing it, or the generator, makes a new corpus:
regenerate simulate.json from the baseline tree, never from the tree under test."""
PER_GAME = 300
TEST_PER_GAME = 60
"""tests/test_simulate_golden.py checks the first this many scripts of each game (and every example)."""

NAMES = ["Альфа", "Бета", "Гамма", "Дельта", "Эпсилон", "Дзета", "Эта", "Тета", "Йота", "Каппа",
         "Лямбда", "Мю"]
NEW_NAMES = ["Омега", "Сигма", "Бета-2", "Тау", "  Новые   Звёзды ", "Кварк", "Alpha", "Ню"]
PEOPLE = ["Анна", "Борис", "Вика", "Глеб", "Дина", "Егор", "Жанна", "Захар", "Ира", "Кирилл", "Лена",
          "Миша", "Нина", "Олег"]
THEMES = ["Реки", "Кино", "Столицы", "Химия", "Спорт", "Музыка", ""]


# ---------------------------------------------------------------------------
# the generator

class Gen:
    """One script being written: the clock cursor ``t`` and the lines."""

    def __init__(self, rng: random.Random, buttons: list[str], teams: list[str]):
        self.rng = rng
        self.t = rng.choice([0.0, 0.3, 1.0])
        self.lines: list[dict] = []
        self.buttons = buttons
        self.teams = teams
        self.renamed = False
        self.rounds = 1
        self.think = 7.0

    # -- time
    def gap(self, scale: float = 1.0) -> float:
        r = self.rng.random()
        if r < 0.08:
            g = self.rng.uniform(0, 0.003)         # the same instant, or inside the settle window
        elif r < 0.75:
            g = self.rng.uniform(0.05, 3.0)
        elif r < 0.93:
            g = self.rng.uniform(3.0, 15.0)
        else:
            g = self.rng.uniform(15.0, 90.0)       # countdowns run out
        self.t += g * scale
        return self.t

    def wait(self, lo: float, hi: float) -> float:
        self.t += self.rng.uniform(lo, hi)
        return self.t

    def at(self) -> float:
        return round(self.t, 6)

    # -- lines
    def host(self, action: str, **params) -> None:
        self.lines.append({"at": self.at(), "host": action, **params})

    def tick(self) -> None:
        self.lines.append({"at": self.at(), "tick": True})

    def team_ref(self) -> object:
        """A team by name, button or 1-based number (rarely one that does not exist)."""
        rng = self.rng
        if rng.random() < 0.003:
            return rng.choice(["Никто", 99, "Z"])
        i = rng.randrange(len(self.teams))
        button = self.buttons[i] if len(self.buttons) == len(self.teams) else i + 1
        if self.renamed:   # a rename may have taken the old name away
            return rng.choice([button, i + 1])
        return rng.choice([self.teams[i], button, i + 1])

    def some_teams(self, k: int) -> list:
        """``k`` different teams, each by name (unless renamed), button or number."""
        out = []
        for i in self.rng.sample(range(len(self.teams)), k):
            button = self.buttons[i] if len(self.buttons) == len(self.teams) else i + 1
            out.append(self.rng.choice([button, i + 1] + ([] if self.renamed else [self.teams[i]])))
        return out

    def team_key(self) -> str:
        """A team as a JSON object key (a string: a name or a button)."""
        ref = self.team_ref()
        i = ref - 1 if isinstance(ref, int) and 1 <= ref <= len(self.teams) else None
        if i is None:
            return str(ref)
        return self.buttons[i] if len(self.buttons) == len(self.teams) else self.teams[i]

    def burst(self, k: int | None = None, buttons: list[str] | None = None) -> None:
        """Several buttons pressed around now: exact ties, sub-ms gaps, late deliveries."""
        rng = self.rng
        pool = buttons or self.buttons
        if not pool:
            return
        k = k or rng.choice([1, 1, 2, 2, 3, len(pool)])
        chosen = rng.sample(pool, min(k, len(pool)))
        if rng.random() < 0.15:
            chosen.append(rng.choice(chosen))     # a second edge of the same button
        base, last = self.t, self.t
        for b in chosen:
            off = rng.choice([0.0, 0.0, rng.uniform(0, 0.0005), rng.uniform(0, 0.002), rng.uniform(0.0015, 0.0025),
                              rng.uniform(0.002, 0.05), rng.uniform(0.05, 1.5)])
            at = round(base + off, 7)
            line: dict = {"at": at, "press": b}
            r = rng.random()
            if r < 0.3:
                line["delivered"] = round(at + rng.choice([0.0001, 0.0009, 0.0021, 0.004, 0.02]) * rng.uniform(0.5, 1.5), 7)
            if rng.random() < 0.06:
                line["quiet"] = rng.choice([0.0, 0.0005, 0.015])
            if rng.random() < 0.06:
                line["stream"] = rng.choice([True, False])
            if rng.random() < 0.05:
                line["hold"] = True
                self.lines.append(line)
                self.lines.append({"at": round(at + rng.uniform(0.01, 8.0), 6), "release": b})
            else:
                self.lines.append(line)
            last = max(last, line.get("delivered", at))
        self.t = last


def _team_list(rng: random.Random, n: int, buttons: bool = True) -> list[dict]:
    names = rng.sample(NAMES, n)
    ids = rng.choice([["A", "B", "C", "D", "E", "F", "G", "H", "I", "J"], ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"],
                      ["K1", "K2", "K3", "K4", "K5", "K6", "K7", "K8", "K9", "K10"]])
    teams = []
    for i, name in enumerate(names):
        t: dict = {"name": name}
        if buttons:
            t["button"] = ids[i]
        if rng.random() < 0.1:
            t["color"] = rng.choice(["#112233", "#abcdef"])
        teams.append(t)
    return teams


def _pick(rng: random.Random, options: dict) -> dict:
    """Some of the settings, each with a random value."""
    out = {}
    for key, values in options.items():
        if rng.random() < 0.35:
            out[key] = rng.choice(values)
    return out


# -- button games -------------------------------------------------------------

def _rename(g: Gen) -> None:
    name = g.rng.choice(NEW_NAMES + [g.rng.choice(g.teams), "", "x" * 41])
    g.host("rename", team=g.team_ref(), name=name)
    g.renamed = True


def _buzzer_rounds(g: Gen, mode: str, cycles: int) -> None:
    """Questions of Эрудит-квартет, Своя игра or Брейн-ринг: announce, read, presses, rulings."""
    rng = g.rng
    arm = {"erudite": "reading_done", "own-game": "reading_done", "brain-ring": "start_clock"}[mode]
    noise = {
        "erudite": ["theme", "captain", "rename", "skip_round", "disqualify", "reinstate", "pause", "next_round",
                    "next_fight", "tiebreak", "press", "undo", "right", "withdraw", "end_game"],
        "own-game": ["theme", "adjust", "rename", "pause", "press", "undo", "wrong", "withdraw", "end_game"],
        "brain-ring": ["next_fight", "rename", "pause", "press", "right", "withdraw", "start_clock", "end_game"],
    }[mode]
    for _ in range(cycles):
        for _ in range(rng.choice([0, 0, 0, 1, 1, 2])):
            g.gap(0.3)
            a = rng.choice(noise)
            if a == "press":
                g.burst()
            elif a == "theme":
                g.host("theme", theme=rng.choice(THEMES), **({"round": rng.randint(1, g.rounds)} if rng.random() < 0.2 else {}))
            elif a == "captain":
                g.host("captain", **({"seconds": rng.choice([5, 12, 30])} if rng.random() < 0.4 else {}))
            elif a == "rename":
                _rename(g)
            elif a in ("skip_round", "disqualify", "reinstate"):
                params = {"team": g.team_ref()}
                if a == "skip_round" and rng.random() < 0.3:
                    params["round"] = rng.randint(1, g.rounds + (rng.random() < 0.05))
                g.host(a, **params)
            elif a == "adjust":
                g.host("adjust", team=g.team_ref(), points=rng.choice([100, -100, 50, 0, 7]))
            elif a == "tiebreak":
                g.host("tiebreak", **({"teams": g.some_teams(2)} if rng.random() < 0.4 else {}))
            elif a == "next_fight" and mode == "brain-ring" and rng.random() < 0.4:
                g.host("next_fight", teams=g.some_teams(rng.randint(2, len(g.teams))))
            elif a == "end_game" and rng.random() < 0.7:
                continue
            else:
                g.host(a)
        g.gap(0.5)
        params: dict = {}
        if rng.random() < 0.25:
            params["nominal"] = rng.choice([10, 20, 50, 100, 300, 1, 2])
        if mode != "brain-ring" and rng.random() < 0.3:
            params["theme"] = rng.choice(THEMES)
        g.host("question", **params)
        if rng.random() < 0.3:                  # early presses / false starts while the host reads
            g.wait(0.1, 2.0)
            g.burst()
        if rng.random() < 0.85:
            g.wait(0.2, 3.0)
            g.host(arm)
            if rng.random() < 0.1:
                g.host(rng.choice([arm, "pause"]))
        for _wave in range(rng.choice([0, 1, 1, 2, 2, 3, 4])):
            r = rng.random()
            if mode == "erudite" and r < 0.04:
                g.wait(g.think - 0.003, g.think + 0.003)    # a press at the countdown's very end
                g.burst(rng.choice([1, 2]))
                continue
            if r < 0.15:
                g.gap(3.0)                      # nobody presses: the countdown may run out
                if rng.random() < 0.5:
                    g.tick()
                continue
            g.wait(0.0, 4.0) if rng.random() < 0.8 else g.gap()
            g.burst()
            g.wait(0.0005, 2.5)
            if rng.random() < 0.2:              # presses during the answer
                g.burst()
                g.wait(0.0, 0.5)
            if rng.random() < 0.08:
                g.host("pause")
                g.wait(0.5, 5.0)
                g.host(rng.choice(["pause", "resume"]))
            ruling = rng.choices(["right", "wrong", "withdraw", "undo", "none"],
                                 [4, 5, 0.4, 0.4 if mode != "brain-ring" else 0, 0.5])[0]
            if ruling == "none":
                continue
            g.host(ruling)
            if ruling in ("right", "wrong") and mode != "brain-ring" and rng.random() < 0.12:
                g.wait(0.1, 1.0)
                g.host("undo")
                continue
            if ruling in ("right", "withdraw"):
                break
        if rng.random() < 0.05:
            g.wait(0.1, 2.0)
            g.host("withdraw")
        if rng.random() < 0.1:
            g.gap()
            g.tick()


def _finish_buzzer(g: Gen, mode: str) -> None:
    rng = g.rng
    if mode == "erudite" and rng.random() < 0.3:
        g.gap(0.3)
        g.host("tiebreak")
        _buzzer_rounds(g, mode, rng.randint(1, 4))
    if rng.random() < 0.35:
        g.gap(0.3)
        g.host("end_game")
    if rng.random() < 0.3:
        g.gap(0.3)
        g.host(rng.choice(["question", "right", "undo" if mode != "brain-ring" else "wrong", "withdraw"]))
    if rng.random() < 0.2:
        g.gap(5.0)
        g.tick()


ERUDITE_SETTINGS = {
    "arbiter.settle_ms": [0.5, 2.0, 5.0, 20.0],
    "arbiter.tie_rule": ["random", "order"],
    "erudite.think_time_s": [3.0, 7.0, 10.0],
    "erudite.after_wrong": ["restart", "resume"],
    "erudite.nominals": [[10, 20, 30], [10, 20, 30, 40, 50], [5]],
    "erudite.fight_types": [["dark"], ["light", "dark"], ["half-dark"]],
    "erudite.early_block_s": [0.0, 0.5, 1.5],
    "erudite.warn_at_s": [[], [3], [5, 1]],
    "erudite.captain_light_s": [20.0, 60.0],
}


def gen_erudite(rng: random.Random) -> tuple[dict | None, Gen]:
    bare = rng.random() < 0.04                 # no setup line: the default config's game
    teams = _team_list(rng, rng.choice([2, 3, 4, 4])) if not bare else \
        [{"name": n, "button": b} for n, b in zip(["Альфа", "Бета", "Гамма", "Дельта"], "ABCD")]
    for t in teams:
        if rng.random() < 0.15:
            t["players"] = rng.choice([2, 3, 4])
    settings = _pick(rng, ERUDITE_SETTINGS)
    settings["erudite.fights"] = rng.choice([1, 1, 2, 3])
    settings["erudite.rounds_per_fight"] = rng.choice([1, 2, 2, 4])
    setup = {"mode": "erudite", "teams": teams, "settings": settings}
    if rng.random() < 0.7:
        setup["seed"] = rng.randrange(1000)
    g = Gen(rng, [t["button"] for t in teams], [t["name"] for t in teams])
    g.rounds = 4 if bare else settings["erudite.rounds_per_fight"]
    g.think = settings.get("erudite.think_time_s", 7.0)
    _buzzer_rounds(g, "erudite", rng.randint(1, 30))
    _finish_buzzer(g, "erudite")
    return (None if bare else setup), g


OWN_SETTINGS = {
    "arbiter.settle_ms": [0.5, 2.0, 5.0],
    "arbiter.tie_rule": ["random", "order"],
    "own_game.nominals": [[100, 200], [100, 200, 300, 400, 500], [1000]],
    "own_game.early_block_s": [0.0, 0.25, 1.0, 3.0],
    "own_game.early_sound": [True, False],
    "own_game.press_window_s": [2.0, 5.0, 8.0],
    "own_game.answer_time_s": [0.0, 0.0, 3.0, 10.0],
}


def gen_own_game(rng: random.Random) -> tuple[dict, Gen]:
    teams = _team_list(rng, rng.choice([2, 3, 3, 4, 6, 9]))
    setup = {"mode": "own-game", "teams": teams, "settings": _pick(rng, OWN_SETTINGS)}
    if rng.random() < 0.7:
        setup["seed"] = rng.randrange(1000)
    g = Gen(rng, [t["button"] for t in teams], [t["name"] for t in teams])
    _buzzer_rounds(g, "own-game", rng.randint(1, 25))
    _finish_buzzer(g, "own-game")
    return setup, g


BRAIN_SETTINGS = {
    "arbiter.settle_ms": [0.5, 2.0, 5.0],
    "arbiter.tie_rule": ["random", "order"],
    "brain_ring.main_time_s": [10.0, 30.0, 60.0],
    "brain_ring.after_wrong": ["fixed", "remaining", "max"],
    "brain_ring.after_wrong_s": [5.0, 20.0],
    "brain_ring.start_delay": [True, True, False],
    "brain_ring.start_delay_max_s": [2.0, 4.0],
    "brain_ring.question_value": [1, 2],
    "brain_ring.carry_over": [True, False],
    "brain_ring.warn_at_s": [[], [10, 5, 4, 3, 2, 1], [3]],
}


def gen_brain_ring(rng: random.Random) -> tuple[dict, Gen]:
    n = rng.choice([0, 2, 2, 3, 4])
    settings = _pick(rng, BRAIN_SETTINGS)
    settings["brain_ring.fight_points"] = rng.choice([1, 2, 3, 3, 5])
    setup: dict = {"mode": "brain-ring", "settings": settings}
    if n:
        teams = _team_list(rng, n)
        setup["teams"] = teams
        g = Gen(rng, [t["button"] for t in teams], [t["name"] for t in teams])
    else:   # the built-in two teams
        g = Gen(rng, ["A", "B"], ["Альфа", "Бета"])
    if rng.random() < 0.7:
        setup["seed"] = rng.randrange(1000)
    _buzzer_rounds(g, "brain-ring", rng.randint(1, 25))
    _finish_buzzer(g, "brain-ring")
    return setup, g


# -- ЧГК ---------------------------------------------------------------------

RESULT_VALUES = [True, False, "+", "-", 1, 0, "да", "нет", "true", "false"]


def _chgk_results(g: Gen, question: object | None = None) -> None:
    rng = g.rng
    q = {} if question is None else {"question": question}
    form = rng.choices(["list", "dict", "rows", "result", "keypad", "none"], [4, 2, 1, 2, 2, 1])[0]
    if form == "list":
        g.host("results", results=[g.team_ref() for _ in range(rng.randint(0, len(g.teams)))], **q)
    elif form == "dict":
        g.host("results", results={g.team_key(): rng.choice(RESULT_VALUES)
                                   for _ in range(rng.randint(1, len(g.teams)))}, **q)
    elif form == "rows":
        rows = [{"team": g.team_ref(), "result": rng.choice(RESULT_VALUES),
                 **({"question": rng.randint(1, g.rounds)} if rng.random() < 0.5 else {})}
                for _ in range(rng.randint(1, 4))]
        g.host("results", results=rows, **q)
    elif form == "result":
        for _ in range(rng.randint(1, len(g.teams))):
            g.host("result", team=g.team_ref(), value=rng.choice(RESULT_VALUES), **q)
    elif form == "keypad":
        for _ in range(rng.randint(1, len(g.teams))):
            n = rng.choice([rng.randint(1, len(g.teams))] * 5 + [0, 12])
            for d in str(n):
                g.host(f"digit_{d}")
            if rng.random() < 0.05:
                g.host("clear")
            g.host(rng.choice(["mark_right", "mark_wrong"]))


CHGK_SETTINGS = {
    "chgk.discussion_s": [20.0, 60.0],
    "chgk.answer_s": [0.0, 10.0],
    "chgk.blitz_s": [10.0, 20.0],
    "chgk.prize_places": [1, 2, 3],
    "chgk.warn_at_s": [[], [10], [5, 1]],
}


def _chgk_play(g: Gen, tours: int, per_tour: int, questions: int) -> None:
    rng = g.rng
    g.rounds = tours * per_tour
    for n in range(questions):
        g.gap(0.3)
        r = rng.random()
        if r < 0.15:
            g.host("question", **({"question": rng.choice([min(n + 1, g.rounds), f"1.{rng.randint(1, per_tour)}"]
                                                          + [99] * (rng.random() < 0.1))}
                                  if rng.random() < 0.3 else {}))
            g.wait(0.1, 3.0)
        if r < 0.9 or n == 0:
            g.host(rng.choice(["start_clock"] * 5 + ["blitz"]),
                   **({"seconds": rng.choice([5, 15, 30])} if rng.random() < 0.15 else {}))
        if rng.random() < 0.1:
            g.wait(1.0, 5.0)
            g.host("pause")
            g.wait(1.0, 20.0)
            g.host(rng.choice(["pause", "resume"]))
        if rng.random() < 0.1:
            g.burst()                           # buttons do nothing in ЧГК
        g.wait(5.0, 100.0) if rng.random() < 0.8 else g.gap()
        _chgk_results(g, rng.choice([None] * 6 + [min(n + 1, g.rounds), f"1.{rng.randint(1, per_tour)}"]))
        if rng.random() < 0.1:
            g.host("appeal", team=g.team_ref(),
                   question=rng.choice([rng.randint(1, max(n, 1)), f"1.{rng.randint(1, per_tour)}"]
                                       + ["s1"] * (rng.random() < 0.1)),
                   accepted=rng.choice([True, False, "+"]))
        if rng.random() < 0.04:
            _rename(g)


def gen_chgk(rng: random.Random) -> tuple[dict, Gen]:
    n = rng.choice([2, 3, 3, 4, 5, 6, 8])
    teams = _team_list(rng, n, buttons=rng.random() < 0.5)
    tours, per_tour = rng.choice([1, 1, 2]), rng.choice([2, 3, 4, 6])
    settings = {"chgk.tours": tours, "chgk.questions_per_tour": per_tour, **_pick(rng, CHGK_SETTINGS)}
    setup = {"mode": "chgk", "teams": teams, "settings": settings}
    g = Gen(rng, [t.get("button", chr(ord("A") + i)) for i, t in enumerate(teams)], [t["name"] for t in teams])
    _chgk_play(g, tours, per_tour, rng.randint(1, tours * per_tour + 2))
    if rng.random() < 0.6:
        g.gap(0.3)
        g.host("shootout", **({"teams": g.some_teams(2)} if rng.random() < 0.2 else {}))
        for _ in range(rng.randint(0, 4)):
            g.gap(0.3)
            if rng.random() < 0.5:
                g.host("question")
            g.host("start_clock")
            g.wait(5.0, 90.0)
            _chgk_results(g)
    if rng.random() < 0.3:
        g.gap(0.3)
        g.host("end_game")
    return setup, g


# -- «Мафия» ------------------------------------------------------------------

MAFIA_SETTINGS = {
    "mafia.minute_s": [30, 60],
    "mafia.defence_s": [15, 30],
    "mafia.last_word_s": [20, 60],
    "mafia.warn_s": [0, 10],
    "mafia.silence_kinds": [["minute"], ["minute", "defence"], ["last_word"]],
}


def gen_mafia(rng: random.Random) -> tuple[dict, Gen]:
    seats = rng.choice([5, 7, 10, 10, 12])
    settings = {"mafia.seats": seats, **_pick(rng, MAFIA_SETTINGS)}
    if rng.random() < 0.3:
        silence = rng.choice([1, 2, 3])
        settings.update({"mafia.silence_fouls": silence, "mafia.remove_fouls": silence + rng.choice([1, 2])})
    if rng.random() < 0.7:
        settings["mafia.players"] = rng.sample(PEOPLE, rng.randint(0, seats))
    setup = {"mode": "mafia", "settings": settings}
    g = Gen(rng, [], [str(i + 1) for i in range(seats)])

    def seat() -> object:
        r = rng.random()
        if r < 0.02:
            return seats + 1
        if r < 0.05:
            return str(rng.randint(1, seats))
        return rng.randint(1, seats)

    actions = ["start", "start", "next_speaker", "speech", "foul", "foul", "typed", "stop", "pause", "resume", "skip",
               "day", "out", "killed", "disqualify", "name", "rename", "role", "next_role", "kind", "clear", "undo",
               "press", "wait"]
    for _ in range(rng.randint(5, 90)):
        a = rng.choice(actions)
        g.wait(0.2, 5.0) if rng.random() < 0.7 else g.wait(5.0, 75.0)
        if a == "start":
            g.host("start", **({"seat": seat()} if rng.random() < 0.4 else {}))
        elif a == "next_speaker":
            g.host("next_speaker")
        elif a == "speech":
            g.host("speech", seat=seat(), kind=rng.choice(["minute", "defence", "last_word"]))
        elif a in ("foul", "skip", "disqualify", "killed", "next_role"):
            g.host(a, seat=seat())
        elif a == "typed":                      # keypad: the seat's digits, then the key
            for d in str(rng.randint(1, seats)):
                g.host(f"digit_{d}")
            if rng.random() < 0.2:
                g.host("kind")
            g.host(rng.choice(["foul", "start", "killed", "out", "skip", "next_role"]))
        elif a == "out":
            g.host("out", seat=seat(), **({"reason": rng.choice(["voted", "killed"])} if rng.random() < 0.5 else {}))
        elif a == "name":
            g.host("name", seat=seat(), name=rng.choice(PEOPLE))
        elif a == "rename":
            key = rng.choice(["seat", "team"])
            g.host("rename", **{key: seat()}, name=rng.choice(PEOPLE + ["", "y" * 41]))
        elif a == "role":
            g.host("role", seat=seat(), role=rng.choice(["civilian", "mafia", "don", "commissar", "doctor", "sheriff",
                                                          "Mafia"]))
        elif a == "press":
            g.lines.append({"at": g.at(), "press": rng.choice(["A", "B", "7"])})
        elif a == "wait":
            g.tick()
        else:
            g.host(a)
    if rng.random() < 0.6:
        g.gap(0.3)
        r = rng.random()
        if r < 0.4:
            g.host("end_game", winner=rng.choice(["town", "mafia"]))
        else:
            g.host(rng.choice(["town_wins", "mafia_wins"]))
        for _ in range(rng.randint(0, 4)):
            g.gap(0.2)
            a = rng.choice(["foul", "rename", "role", "undo", "start", "day", "stop"])
            if a in ("foul", "start"):
                g.host(a, seat=seat())
            elif a == "rename":
                g.host("rename", seat=seat(), name=rng.choice(PEOPLE))
            elif a == "role":
                g.host("role", seat=seat(), role=rng.choice(["mafia", "don"]))
            else:
                g.host(a)
    return setup, g


# -- programme ---------------------------------------------------------------

ROUND_SETTINGS = {
    "erudite": lambda rng: {"erudite": {"fights": 1, "rounds_per_fight": 1, "nominals": rng.choice([[10, 20], [10, 20, 30]]),
                                        "think_time_s": rng.choice([3.0, 7.0])}},
    "own-game": lambda rng: {"own_game": {"press_window_s": rng.choice([2.0, 4.0]),
                                          "early_block_s": rng.choice([0.0, 1.0])}},
    "brain-ring": lambda rng: {"brain_ring": {"fight_points": rng.choice([1, 2]), "main_time_s": rng.choice([10.0, 60.0]),
                                              "start_delay": rng.choice([True, False])}},
    "chgk": lambda rng: {"chgk": {"tours": 1, "questions_per_tour": rng.choice([2, 3]), "discussion_s": 20.0}},
}


def gen_programme(rng: random.Random) -> tuple[dict, Gen]:
    if rng.random() < 0.15:                    # the example evening's config
        setup: dict = {"config": "examples/programme.toml", "seed": rng.randrange(100)}
        names, buttons = ["Альфа", "Бета"], ["A", "B"]
        plan = [("own-game", names), ("brain-ring", names), ("chgk", ["Бета", "Альфа", "Гамма"])]
        per_tours = [3]
    else:
        teams = _team_list(rng, rng.choice([2, 3, 4]))
        names, buttons = [t["name"] for t in teams], [t["button"] for t in teams]
        rounds, plan, per_tours = [], [], []
        for i in range(rng.randint(1, 4)):
            mode = rng.choice(["erudite", "own-game", "brain-ring", "chgk"])
            settings = ROUND_SETTINGS[mode](rng)
            if mode == "chgk":
                per_tours.append(settings["chgk"]["questions_per_tour"])
            round_names = names
            if rng.random() < 0.2 and len(teams) > 2:   # a round of some of the teams
                sub = rng.sample(teams, len(teams) - 1)
                settings["teams"] = sub
                round_names = [t["name"] for t in sub]
            rounds.append({"mode": mode, "title": f"Раунд {i + 1}", "settings": settings})
            plan.append((mode, round_names))
        setup = {"teams": teams, "settings": {"mode": "programme", "programme": {"rounds": rounds}}}
        if rng.random() < 0.7:
            setup["seed"] = rng.randrange(1000)
    g = Gen(rng, buttons, names)
    for mode, round_names in plan:
        g.teams = round_names
        g.buttons = [buttons[names.index(n)] for n in round_names if n in names]
        if mode == "chgk":
            per_tour = per_tours.pop(0)
            _chgk_play(g, 1, per_tour, rng.randint(1, per_tour + 1))
        else:
            _buzzer_rounds(g, mode, rng.randint(1, 6))
        if rng.random() < 0.06:
            _rename(g)
        g.gap(0.3)
        g.host(rng.choice(["next_game", "next_game", "next_round" if mode != "erudite" else "next_game"]))
        if rng.random() < 0.1:
            break
    if rng.random() < 0.2:
        g.gap(0.3)
        g.host(rng.choice(["next_game", "question", "end_game"]))
    return setup, g


GENERATORS = {"erudite": gen_erudite, "own-game": gen_own_game, "brain-ring": gen_brain_ring,
              "chgk": gen_chgk, "mafia": gen_mafia, "programme": gen_programme}
CONFIG_OF = {"erudite": "config/default.toml", "own-game": "config/own-game.toml",
             "brain-ring": "config/brain-ring.toml", "chgk": "config/chgk.toml", "mafia": "config/mafia.toml",
             "programme": "examples/programme.toml"}


def _break(rng: random.Random, lines: list[str], setup: dict | None) -> list[str]:
    """One defect a user could write: simulate must print the same one-line error as before."""
    i = rng.randrange(1, len(lines) + 1) if lines else 0
    at = 0.0
    kind = rng.choice(["action", "button", "json", "field", "no_at", "setting", "negative", "nominal",
                       "release", "setup_late", "delivered", "tick"])
    bad = {
        "action": json.dumps({"at": at, "host": "fly"}),
        "button": json.dumps({"at": at, "press": "Z9"}),
        "json": '{"at": 1.0, "host": "right"',
        "field": json.dumps({"at": at, "host": "right", "colour": "red"}),
        "no_at": json.dumps({"host": "right"}),
        "negative": json.dumps({"at": -1, "tick": True}),
        "nominal": json.dumps({"at": at, "host": "question", "nominal": "десять"}),
        "release": json.dumps({"at": at, "release": "Z9"}),
        "setup_late": json.dumps({"setup": {"mode": "erudite"}}),
        "delivered": json.dumps({"at": 2.0, "press": "A", "delivered": 1.0}),
        "tick": json.dumps({"at": at, "tick": False}),
    }
    if kind == "setting":
        s = dict(setup or {})
        s["settings"] = dict(s.get("settings") or {}, **rng.choice([{"erudite.think_time_s": -1},
                                                                     {"arbiter.settle": 2}, {"own_game.early_sound": "yes"},
                                                                     {"mafia.seats": 99}]))
        return [json.dumps({"setup": s}, ensure_ascii=False)] + (lines[1:] if setup is not None else lines)
    return lines[:i] + [bad[kind]] + lines[i:]


def generate(game: str, n: int, seed: int = SEED) -> list[dict]:
    """The first ``n`` scripts of ``game``: dicts with ``name``, ``path``, ``text``, ``args``.
    Script k depends only on (seed, game, k): asking for fewer gives a prefix."""
    out = []
    for k in range(n):
        rng = random.Random(f"{seed}:{game}:{k}")
        setup, g = GENERATORS[game](rng)
        lines = ([json.dumps({"setup": setup}, ensure_ascii=False)] if setup is not None else [])
        if rng.random() < 0.1:
            lines.append("# a comment line, then a blank one")
            lines.append("")
        lines += [json.dumps(line, ensure_ascii=False) for line in g.lines]
        if rng.random() < 0.05:
            lines = _break(rng, lines, setup)
        args: list[str] = []
        r = rng.random()
        if r < 0.08 and g.lines:
            args = ["--until", str(round(rng.uniform(0, g.t + 1), 3))]
        elif r < 0.12:
            args = ["--config", CONFIG_OF[game]]
        name = f"{game}/{k:04d}"
        out.append({"name": name, "path": f"{name}.jsonl", "text": "\n".join(lines) + "\n", "args": args})
    return out


def examples() -> list[dict]:
    """Every script of examples/, as the README runs it, and once more stopped half-way (--until)."""
    out = []
    for p in sorted((ROOT / "examples").glob("*.jsonl")):
        rel = f"examples/{p.name}"
        text = p.read_text(encoding="utf-8")
        out.append({"name": rel, "path": rel, "text": None, "args": []})
        times = [json.loads(x)["at"] for x in text.splitlines() if x.strip().startswith('{"at"')]
        if times:
            half = round(max(times) / 2, 3)
            out.append({"name": f"{rel}@until={half}", "path": rel, "text": None, "args": ["--until", str(half)]})
    return out


def corpus(per_game: int = PER_GAME, games: tuple[str, ...] = GAMES) -> list[dict]:
    cases = examples()
    for game in games:
        cases += generate(game, per_game)
    return cases


# ---------------------------------------------------------------------------
# running a source tree

def _drive() -> None:
    """In the subprocess (PYTHONPATH = the source tree, cwd = the scripts' folder): run
    ``controller.cli.main(["simulate", ...])`` for every job on stdin, one JSON line each."""
    source = Path(os.environ["GOLDEN_SOURCE"]).resolve()
    real_out = sys.stdout
    import controller.cli as cli
    if not Path(cli.__file__).resolve().is_relative_to(source):
        sys.exit(f"corpus: controller was imported from {cli.__file__}, not from {source}")
    for job in json.load(sys.stdin):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = cli.main(["simulate", job["path"], *job["args"]])
            except SystemExit as exc:            # argparse
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except Exception as exc:             # noqa: BLE001 -- a traceback; its file paths differ per layout
                code = 1
                err.write(f"uncaught {type(exc).__name__}: {exc}\n")
        real_out.write(json.dumps({"name": job["name"], "stdout": out.getvalue(), "stderr": err.getvalue(),
                                   "code": code}, ensure_ascii=False) + "\n")
    real_out.flush()


def _prepare(cases: list[dict], workdir: Path) -> None:
    for sub in ("examples", "config"):
        shutil.copytree(ROOT / sub, workdir / sub, dirs_exist_ok=True)
    for c in cases:
        if c["text"] is not None:
            p = workdir / c["path"]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(c["text"], encoding="utf-8")


def _batch(source: Path, workdir: Path, jobs: list[dict]) -> list[dict]:
    env = dict(os.environ, PYTHONPATH=str(source), GOLDEN_SOURCE=str(source), PYTHONHASHSEED="0",
               PYGAME_HIDE_SUPPORT_PROMPT="1", PYTHONIOENCODING="utf-8", SDL_VIDEODRIVER="dummy",
               SDL_AUDIODRIVER="dummy")
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "drive"], cwd=workdir, env=env,
                          input=json.dumps([{k: j[k] for k in ("name", "path", "args")} for j in jobs]),
                          capture_output=True, text=True, encoding="utf-8")
    if proc.returncode != 0:
        raise RuntimeError(f"the driver failed in {source} (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return [json.loads(line) for line in proc.stdout.splitlines()]


def run(source: Path, cases: list[dict], workdir: Path | None = None) -> dict[str, dict]:
    """Play every case with the ``controller`` of ``source``: name -> {stdout, stderr, code}."""
    source = Path(source).resolve()
    tmp = None
    if workdir is None:
        tmp = tempfile.TemporaryDirectory(prefix="golden-")
        workdir = Path(tmp.name)
    try:
        workdir.mkdir(parents=True, exist_ok=True)
        _prepare(cases, workdir)
        groups: dict[str, list[dict]] = {}
        for c in cases:
            groups.setdefault(c["name"].split("/")[0], []).append(c)
        with ThreadPoolExecutor(max_workers=2) as pool:
            results = pool.map(lambda jobs: _batch(source, workdir, jobs), groups.values())
            out = {r["name"]: r for rs in results for r in rs}
        missing = [c["name"] for c in cases if c["name"] not in out]
        if missing:
            raise RuntimeError(f"no output for {missing[:5]}")
        return out
    finally:
        if tmp is not None:
            tmp.cleanup()


def digest(result: dict) -> str:
    """sha256 of the JSON array [stdout, stderr, exit code] (UTF-8, no ASCII escapes)."""
    blob = json.dumps([result["stdout"], result["stderr"], result["code"]], ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def load_digests() -> dict:
    return json.loads(DIGESTS.read_text(encoding="utf-8"))


def compare(results: dict[str, dict], expected: dict[str, str]) -> list[str]:
    """Names whose digest differs from the expected one (a name the file lacks differs too)."""
    return [name for name, r in results.items() if expected.get(name) != digest(r)]


def group_of(name: str) -> str:
    return name.split("/")[0]


def readable_diff(old: dict, new: dict, limit: int = 60) -> str:
    """What changed between two outputs: the exit code and stderr in full, then a unified
    diff of stdout (at most ``limit`` lines).  Empty when they are the same."""
    out = []
    if old["code"] != new["code"]:
        out.append(f"exit code: baseline {old['code']}, now {new['code']}\n")
    if old["stderr"] != new["stderr"]:
        out.append(f"stderr, baseline: {old['stderr']!r}\nstderr, now:      {new['stderr']!r}\n")
    lines = list(difflib.unified_diff(old["stdout"].splitlines(keepends=True), new["stdout"].splitlines(keepends=True),
                                      "baseline stdout", "stdout now", n=2))
    out += lines[:limit]
    if len(lines) > limit:
        out.append(f"... ({len(lines) - limit} more diff lines)\n")
    return "".join(x if x.endswith("\n") else x + "\n" for x in out)


def source_commit(source: Path) -> str | None:
    """The commit of a source tree, with ``+changes`` when its controller/ has uncommitted changes."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(source), *args], capture_output=True, text=True).stdout.strip()
    commit = git("rev-parse", "HEAD")
    if not commit:
        return None
    return commit + ("+changes" if git("status", "--porcelain", "--", "controller") else "")


def baseline_outputs(cases: list[dict], commit: str | None) -> dict[str, dict] | None:
    """The outputs of the baseline commit (from this repository's history: ``git archive``),
    or None when that commit is not here (a shallow clone)."""
    if not commit:
        return None
    commit = commit.split("+")[0]
    with tempfile.TemporaryDirectory(prefix="golden-base-") as tree:
        try:
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "controller"], capture_output=True,
                                     check=True).stdout
            subprocess.run(["tar", "-x", "-C", tree], input=archive, check=True)
        except (OSError, subprocess.CalledProcessError):   # no git, or a clone without that commit
            return None
        return run(Path(tree), cases)


def explain(differ: list[str], cases: list[dict], results: dict[str, dict], commit: str | None,
            limit: int = 3) -> str:
    """The first differing scripts, each with its command and a diff against the baseline's output."""
    chosen = [c for c in cases if c["name"] in set(differ[:limit])]
    old = baseline_outputs(chosen, commit)
    parts = []
    for c in chosen:
        head = f"== {c['name']}: buzzer simulate {c['path']} {' '.join(c['args'])}".rstrip()
        if old is None:
            parts.append(f"{head}\n(baseline {commit} is not in this repository: no diff; run "
                         f"python tests/golden/corpus.py diff {c['name']} --source BASELINE_TREE)")
        else:
            parts.append(f"{head}\n{readable_diff(old[c['name']], results[c['name']]) or '(the same now: flaky?)'}")
    return "\n".join(parts)


# ---------------------------------------------------------------------------
# what the scripts reach

def outcome(result: dict) -> dict:
    """What one run reached: error, finished, winner, questions, event and press kinds."""
    o = {"error": result["code"] != 0, "crash": result["stderr"].startswith("uncaught"), "finished": False,
         "winner": False, "questions": 0, "events": set(), "presses": set()}
    if o["error"]:
        return o
    data = json.loads(result["stdout"])
    if data.get("mode") == "mafia":
        o["finished"] = data.get("phase") == "ended"
        o["winner"] = data.get("winner") is not None
    else:
        o["finished"] = data.get("stage") == "finished"
        top = (data.get("standings") or [{}])[0]
        o["winner"] = o["finished"] and top.get("place") == 1 and not top.get("tied", False)
        qs = data.get("questions") or []
        o["questions"] = len(qs)
        o["presses"] = {p.get("kind") for q in qs for p in q.get("presses", [])}
    o["events"] = {e.get("kind") for e in data.get("events", [])}
    if "refused" in o["events"]:
        o["events"] |= {f"refused:{e.get('reason')}" for e in data["events"] if e.get("kind") == "refused"}
    return o


def stats(results: dict[str, dict]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for name, r in results.items():
        g = out.setdefault(group_of(name), {"scripts": 0, "errors": 0, "crashes": 0, "finished": 0, "winner": 0,
                                             "questions": 0, "events": set(), "presses": set()})
        o = outcome(r)
        g["scripts"] += 1
        for key, total in (("error", "errors"), ("crash", "crashes"), ("finished", "finished"), ("winner", "winner")):
            g[total] += int(o[key])
        g["questions"] += o["questions"]
        g["events"] |= o["events"]
        g["presses"] |= o["presses"]
    return out


def print_stats(results: dict[str, dict]) -> None:
    for game, g in stats(results).items():
        print(f"{game:11} {g['scripts']:4} scripts: {g['finished']:3} finished, {g['winner']:3} with a winner, "
              f"{g['errors']:3} errors ({g['crashes']} uncaught), {g['questions'] / max(g['scripts'], 1):5.1f} questions "
              f"each; {len(g['events'])} log kinds; press kinds: {', '.join(sorted(k for k in g['presses'] if k))}")


# ---------------------------------------------------------------------------
# command line

def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="corpus.py", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("check", "update", "run", "stats", "diff"):
        s = sub.add_parser(name)
        s.add_argument("--source", default=str(ROOT), help="the source tree to run (default: this checkout)")
        s.add_argument("--per-game", type=int, default=PER_GAME)
        if name == "run":
            s.add_argument("--out", required=True, help="folder for the scripts, outputs.jsonl and digests.json")
        if name == "diff":
            s.add_argument("name", nargs="+", help="script names as check prints them")
            s.add_argument("--against", default=str(ROOT), help="the newer tree (default: this checkout)")
        if name == "stats":
            s.add_argument("--verbose", action="store_true", help="also list the log kinds reached")
    sub.add_parser("drive", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.cmd == "drive":
        _drive()
        return 0
    source = Path(args.source)
    if args.cmd == "diff":
        wanted = set(args.name)
        cases = [c for c in corpus(args.per_game) if c["name"] in wanted]
        old, new = run(source, cases), run(Path(args.against), cases)
        for c in cases:
            d = readable_diff(old[c["name"]], new[c["name"]], limit=400)
            print(f"== {c['name']} {' '.join(c['args'])}\n{d or '(the same)'}")
        return 0
    cases = corpus(args.per_game)
    if args.cmd == "run":
        out = Path(args.out)
        results = run(source, cases, out / "scripts")
        with open(out / "outputs.jsonl", "w", encoding="utf-8") as f:
            for c in cases:
                f.write(json.dumps(results[c["name"]], ensure_ascii=False) + "\n")
        (out / "digests.json").write_text(json.dumps({n: digest(r) for n, r in results.items()}, indent=1,
                                                     sort_keys=True) + "\n", encoding="utf-8")
        print_stats(results)
        return 0
    results = run(source, cases)
    if args.cmd == "stats":
        print_stats(results)
        if args.verbose:
            for game, g in stats(results).items():
                print(f"{game}: {', '.join(sorted(k for k in g['events'] if k))}")
        return 0
    if args.cmd == "update":
        data = {
            "about": "sha256 of the JSON array [stdout, stderr, exit code] of `buzzer simulate` for each script "
                     "of tests/golden/corpus.py; see docs/testing.md. Update only with a commit naming the "
                     "defect fix that changes an output.",
            "seed": SEED, "per_game": args.per_game, "baseline": source_commit(source),
            "digests": {c["name"]: digest(results[c["name"]]) for c in cases},
        }
        DIGESTS.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {len(cases)} digests to {DIGESTS.relative_to(ROOT)}")
        print_stats(results)
        return 0
    # check
    data = load_digests()
    differ = compare(results, data["digests"])
    ok = True
    for game in ("examples",) + GAMES:
        names = [n for n in results if group_of(n) == game]
        bad = [n for n in differ if group_of(n) == game]
        ok &= not bad
        print(f"{game:11} {len(names) - len(bad):4}/{len(names)} identical"
              + (f"; differ: {', '.join(bad[:8])}{' ...' if len(bad) > 8 else ''}" if bad else ""))
    if not ok:
        print(explain(differ, cases, results, data.get("baseline")))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
