"""Crash drill: play a scripted game through the real loop and journal, so a
test can kill it with SIGKILL anywhere and check that nothing is lost.

    python -m controller.app.drill --journal DIR --script GAME.jsonl [--digests FILE]
    python -m controller.app.drill --journal DIR --script GAME.jsonl --resume

Without ``--resume`` it starts a new journal and feeds every event of the
script, in delivery order, with the Ticks the loop makes at each deadline
(:func:`feed`), through :meth:`controller.app.loop.Loop.apply` -- the same path
``buzzer run`` uses: journal (fsync) first, then the engine, then the effects.  After each event it appends ``<n> <digest of the state>`` to the
digests file (not fsync'ed: it says what the process had reached, to compare
with what the journal gives back).

With ``--resume`` it replays the journal exactly as ``buzzer run`` does on
start-up, then feeds the rest of the script and prints the final result as
JSON (the same keys as ``buzzer simulate``).  A game killed at any point and
resumed must end exactly like the same game played without a crash.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import sys

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")   # stdout is the result's JSON

import controller.app.config  # noqa: F401  registers the config's functions (controller/core/configs.py)
from controller.games import engine
from controller.sessions import journal as journal_mod
from controller.sessions import script as script_mod
from controller.inputs.clock import ManualClock
from controller.app.loop import Loop


def canonical(value):
    """A plain, order-stable form of a state (sets sorted), equal across processes."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [type(value).__name__] + [[f.name, canonical(getattr(value, f.name))]
                                         for f in dataclasses.fields(value)]
    if isinstance(value, (set, frozenset)):
        return sorted((canonical(v) for v in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    if isinstance(value, dict):
        return sorted(([canonical(k), canonical(v)] for k, v in value.items()), key=repr)
    return value


def digest(state) -> str:
    """A short fingerprint of everything the game state holds."""
    return hashlib.sha256(repr(canonical(state)).encode("utf-8")).hexdigest()[:16]


def feed(script: script_mod.Script, cfg: dict) -> list:
    """The events the drill feeds: what the loop of ``buzzer run`` applies for the script --
    its timeline with a Tick at every deadline as it falls due (the loop wakes at
    ``engine.wakeup``; a race is decided by that Tick, not by a later press), and the closing
    tick one settle window past the last event, as ``buzzer simulate`` plays it."""
    stepped: list = []
    script_mod.run(script, stepped=stepped)
    return stepped


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m controller.app.drill")
    p.add_argument("--journal", required=True)
    p.add_argument("--script", required=True)
    p.add_argument("--digests")
    p.add_argument("--resume", action="store_true")
    p.add_argument("--no-fsync", action="store_true")
    args = p.parse_args(argv)
    script = script_mod.load(args.script)
    cfg = script_mod.config_for(script)
    cfg["journal"]["dir"] = args.journal
    cfg["journal"]["fsync"] = not args.no_fsync
    events = feed(script, cfg)
    path = journal_mod.current_path(args.journal)
    if args.resume:
        contents = journal_mod.read(path)
        if contents.damaged_at is not None:  # as buzzer run does: keep the whole file, go on from the trusted part
            kept = journal_mod.set_aside(args.journal, contents)
            print(f"damaged record {contents.damaged_at}: original kept in {kept}", file=sys.stderr)
        state, cfg, seed, last = journal_mod.replay(contents)
        done = len(contents.events)
        jr = journal_mod.Journal(path, fsync=cfg["journal"]["fsync"], truncate_to=contents.valid_bytes)
    else:
        seed = script_mod.seed_for(script, cfg)
        state = engine.new_game(cfg, seed)
        jr = journal_mod.Journal(path, header={"config": cfg, "seed": seed}, fsync=cfg["journal"]["fsync"])
        done = 0
    loop = Loop(cfg, state, ManualClock(), journal=jr, out=sys.stderr)
    out = open(args.digests, "a", encoding="ascii") if args.digests else None
    for n, ev in enumerate(events[done:], start=done + 1):
        loop.apply(ev)
        if out is not None:
            out.write(f"{n} {digest(loop.state)}\n")
            out.flush()
    jr.close()
    if args.resume:
        result = engine.summary(loop.state)
        result["seed"] = seed
        result["replayed"] = done
        sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
