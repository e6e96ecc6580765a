"""A long scripted Эрудит-квартет game for crash and recovery tests."""

from __future__ import annotations

import json
import random
from pathlib import Path

TEAMS = [{"name": "Альфа", "button": "A"}, {"name": "Бета", "button": "B"},
         {"name": "Гамма", "button": "C"}, {"name": "Дельта", "button": "D"}]


def make_game(path: Path, seed: int = 1, questions: int = 20) -> Path:
    """Write a game with presses (out of order, ties, early), rulings, withdraw and undo."""
    rng = random.Random(seed)
    lines = [{"setup": {"mode": "erudite", "teams": TEAMS, "seed": 11}}]
    t = 1.0
    for q in range(questions):
        lines.append({"at": round(t, 6), "host": "question", "theme": f"Тема {q // 5 + 1}"})
        t += 2.0
        if rng.random() < 0.7:
            lines.append({"at": round(t, 6), "host": "reading_done"})
        for wave in range(rng.randint(1, 3)):
            t += rng.uniform(0.5, 3.0)
            base = t
            for b in rng.sample("ABCD", rng.randint(1, 4)):
                edge = base + rng.choice([0.0, 0.0, rng.uniform(0, 0.003)])
                lines.append({"at": round(edge, 7), "press": b,
                              "delivered": round(edge + rng.uniform(0, 0.004), 7)})
            t += 1.0
            action = rng.choice(["right", "wrong", "wrong", "undo", "withdraw"])
            lines.append({"at": round(t, 6), "host": action})
            t += 0.5
            if action in ("right", "withdraw"):
                break
        t += 9.0  # countdowns run out between questions
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    return path
