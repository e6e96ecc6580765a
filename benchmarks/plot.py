#!/usr/bin/env python3
"""Draw the fairness sweep as a PNG with pygame (headless; no matplotlib).

    python benchmarks/plot.py [benchmarks/results.json] [docs/img/fairness.png]

One panel per delivery jitter; in each, the fraction of pairs won by the true
first presser against the true gap (log scale), one line per approach.
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
FONT = REPO / "controller" / "data" / "fonts" / "DejaVuSans.ttf"

SERIES = (  # key, label, colour
    ("ours", "ours (edge time + settle window)", (211, 47, 47)),
    ("first_delivered", "first delivered wins", (30, 136, 229)),
    ("poll_1ms", "index-order polling, 1 ms", (67, 160, 71)),
    ("poll_10ms", "index-order polling, 10 ms", (142, 36, 170)),
)

W, H = 1500, 900
COLS, ROWS = 4, 2
Y_MIN = 0.4


def _gap_label(us: float) -> str:
    return f"{us / 1000:g} ms" if us >= 1000 else f"{us:g} µs"


def fairness_png(rows: list[dict], path: str | os.PathLike, settle_ms: float = 2.0,
                 machine: dict | None = None) -> None:
    """Draw ``rows`` (the ``fairness`` list of results.json) to ``path``."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    pygame.font.init()
    font = pygame.font.Font(str(FONT), 15)
    small = pygame.font.Font(str(FONT), 13)
    big = pygame.font.Font(str(FONT), 22)
    surf = pygame.Surface((W, H))
    surf.fill((255, 255, 255))
    ink, grid = (33, 33, 33), (224, 224, 224)

    def text(s, pos, f=font, colour=ink, anchor="topleft"):
        img = f.render(s, True, colour)
        rect = img.get_rect(**{anchor: pos})
        surf.blit(img, rect)

    pairs = rows[0].get("pairs") if rows else None
    title = "Who wins a press pair: fraction won by the true first presser"
    text(title, (30, 16), big)
    sub = f"settle window {settle_ms:g} ms; each press delayed 0..jitter at random"
    if pairs:
        sub += f"; {pairs} pairs per point"
    text(sub, (30, 46), font, (90, 90, 90))

    jitters = sorted({r["jitter_ms"] for r in rows})
    gaps = sorted({r["gap_us"] for r in rows})
    cell = {(r["gap_us"], r["jitter_ms"]): r for r in rows}
    lx0, lx1 = math.log10(gaps[0]), math.log10(gaps[-1])
    top, left = 90, 30
    pw, ph = (W - left - 20) // COLS, (H - top - 20) // ROWS
    for n, jitter in enumerate(jitters[:COLS * ROWS - 1]):
        cx, cy = left + (n % COLS) * pw, top + (n // COLS) * ph
        x0, y0, x1, y1 = cx + 55, cy + 30, cx + pw - 20, cy + ph - 50
        within = jitter <= settle_ms
        text((f"jitter 0..{jitter:g} ms" if jitter else "no jitter") + ("  (≤ settle)" if within else "  (> settle)"),
             (x0, cy + 4), font, ink if within else (183, 28, 28))

        def px(gap_us):
            return x0 + (math.log10(gap_us) - lx0) / (lx1 - lx0) * (x1 - x0)

        def py(frac):
            return y1 - (max(frac, Y_MIN) - Y_MIN) / (1 - Y_MIN) * (y1 - y0)

        for f in (0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0):
            pygame.draw.line(surf, grid, (x0, py(f)), (x1, py(f)))
            text(f"{f:.1f}", (x0 - 6, py(f)), small, (90, 90, 90), "midright")
        for g in gaps:
            if math.log10(g) == int(math.log10(g)):
                pygame.draw.line(surf, grid, (px(g), y0), (px(g), y1))
                text(_gap_label(g), (px(g), y1 + 6), small, (90, 90, 90), "midtop")
        pygame.draw.rect(surf, (160, 160, 160), (x0, y0, x1 - x0, y1 - y0), 1)
        text("true gap", ((x0 + x1) // 2, y1 + 24), small, (90, 90, 90), "midtop")
        for key, _, colour in SERIES[::-1]:  # ours last, on top
            pts = [(px(g), py(cell[(g, jitter)][key])) for g in gaps if (g, jitter) in cell]
            if len(pts) > 1:
                pygame.draw.lines(surf, colour, False, pts, 3 if key == "ours" else 2)
            for x, y in pts:
                if key == "ours":
                    pygame.draw.circle(surf, colour, (int(x), int(y)), 4)
                else:
                    pygame.draw.rect(surf, colour, (int(x) - 3, int(y) - 3, 6, 6))
    # legend in the last cell
    n = COLS * ROWS - 1
    cx, cy = left + (n % COLS) * pw + 40, top + (n // COLS) * ph + 40
    for k, (key, label, colour) in enumerate(SERIES):
        y = cy + k * 30
        pygame.draw.line(surf, colour, (cx, y + 9), (cx + 36, y + 9), 3)
        text(label, (cx + 46, y), font)
    notes = ["y axis from 0.4; 0.5 = a coin toss", "polling ignores jitter but loses",
             "ties inside one poll period"]
    if machine:
        notes.append(f"{machine.get('cpu', '')}, {machine.get('cores', '')} cores, "
                     f"Python {machine.get('python', '')}")
    for k, line in enumerate(notes):
        text(line, (cx, cy + 140 + k * 22), small, (90, 90, 90))
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    pygame.image.save(surf, str(path))


def main(argv: list[str]) -> int:
    src = argv[0] if argv else str(HERE / "results.json")
    dest = argv[1] if len(argv) > 1 else str(REPO / "docs" / "img" / "fairness.png")
    data = json.loads(Path(src).read_text(encoding="utf-8"))
    fairness_png(data["fairness"], dest, data.get("settle_ms", 2.0), data.get("machine"))
    print(dest)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
