"""The projector's part of a SIGame package (view ``pack``, controller/games/own_game_pack.py):
the board of themes × prices with played cells emptied, and the question on screen -- its
text, its picture (loaded from the extracted file), its sound and video named.

Never draws the view's ``host`` part (the answer): that is the host's only.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from controller.sdl import pygame
from pygame import Rect

from controller.i18n import t

BOARD_BG = (18, 36, 110)
CELL_BG = (30, 60, 170)
CELL_PICKED = (200, 150, 20)
INK = (240, 240, 250)
PRICE_INK = (250, 210, 60)


class PackScreen:
    """Draws the board or the question; ``media_path(member)`` gives an extracted file."""

    def __init__(self, media_path: Callable[[str], str | None] | None = None):
        self.media_path = media_path
        self._images: dict[tuple, Any] = {}

    def draws(self, view: Mapping[str, Any]) -> str | None:
        """``board`` or ``question`` when the package has something to show, else None."""
        pack = view.get("pack")
        if not pack:
            return None
        q = pack.get("question")
        if q is not None and q.get("live"):
            return "question"
        return "board"

    # -- the board -----------------------------------------------------------------------
    def draw_board(self, sb, surface, rect: Rect, pack: Mapping[str, Any]) -> None:
        lang = sb.lang
        pygame.draw.rect(surface, BOARD_BG, rect, border_radius=8)
        title_h = max(rect.height // 10, 18)
        title = t("pack.screen.round", lang, n=pack["round_number"], count=pack["rounds"], name=pack["round"])
        if not pack["left"]:
            title += " · " + t("pack.screen.round_over", lang)
        sb._text(surface, title, Rect(rect.x + 8, rect.y + 4, rect.width - 16, title_h), int(title_h * 0.8), INK,
                 bold=True)
        themes = pack["board"]
        if not themes:
            return
        if pack.get("final"):   # the final: its themes only (no prices), removed ones emptied
            self._draw_final_board(sb, surface, Rect(rect.x + 8, rect.y + title_h + 8, rect.width - 16,
                                                     rect.height - title_h - 16), pack)
            return
        cols = max(len(th["cells"]) for th in themes) or 1
        area = Rect(rect.x + 8, rect.y + title_h + 8, rect.width - 16, rect.height - title_h - 16)
        row_h = area.height // len(themes)
        name_w = area.width * 36 // 100
        cell_w = (area.width - name_w) // cols
        gap = max(row_h // 12, 2)
        picking = pack.get("picking_theme")
        for i, th in enumerate(themes):
            y = area.y + i * row_h
            name_rect = Rect(area.x, y + gap // 2, name_w - gap, row_h - gap)
            pygame.draw.rect(surface, CELL_PICKED if picking == i + 1 else CELL_BG, name_rect, border_radius=6)
            sb._text(surface, f"{i + 1}. {th['name']}", name_rect.inflate(-12, -4), int(row_h * 0.42), INK,
                     align="left")
            for j, cell in enumerate(th["cells"]):
                r = Rect(area.x + name_w + j * cell_w, y + gap // 2, cell_w - gap, row_h - gap)
                pygame.draw.rect(surface, CELL_BG, r, border_radius=6)
                if not cell["played"] and not cell.get("empty"):
                    sb._text(surface, str(cell["price"]), r.inflate(-6, -4), int(row_h * 0.5), PRICE_INK, bold=True)

    def _draw_final_board(self, sb, surface, area: Rect, pack: Mapping[str, Any]) -> None:
        lang = sb.lang
        themes = pack["board"]
        foot_h = max(area.height // 7, 16)
        row_h = (area.height - foot_h) // len(themes)
        gap = max(row_h // 12, 2)
        for i, th in enumerate(themes):
            r = Rect(area.x, area.y + i * row_h + gap // 2, area.width, row_h - gap)
            pygame.draw.rect(surface, BOARD_BG if th.get("removed") else CELL_BG, r, border_radius=6)
            if not th.get("removed"):
                sb._text(surface, f"{i + 1}. {th['name']}", r.inflate(-12, -4), int(row_h * 0.5), INK)
        who = pack.get("remover")
        line = t("pack.screen.remove", lang, team=who) if who else t("pack.screen.final_theme", lang)
        sb._text(surface, line, Rect(area.x, area.bottom - foot_h, area.width, foot_h), int(foot_h * 0.7),
                 PRICE_INK, bold=True)

    # -- the question --------------------------------------------------------------------
    def _image(self, member: str | None, size: tuple[int, int]):
        if not member or self.media_path is None:
            return None
        key = (member, size)
        if key in self._images:
            return self._images[key]
        path = self.media_path(member)
        img = None
        if path:
            try:
                raw = pygame.image.load(path)
                w, h = raw.get_size()
                scale = min(size[0] / max(w, 1), size[1] / max(h, 1))
                img = pygame.transform.smoothscale(raw.convert_alpha() if pygame.display.get_surface() else raw,
                                                   (max(int(w * scale), 1), max(int(h * scale), 1)))
            except (pygame.error, OSError, ValueError):
                img = None
        self._images[key] = img
        return img

    def draw_question(self, sb, surface, rect: Rect, pack: Mapping[str, Any]) -> None:
        lang = sb.lang
        q = pack["question"]
        pygame.draw.rect(surface, BOARD_BG, rect, border_radius=8)
        head_h = max(rect.height // 8, 18)
        # the price it is played for, once known (a cat's, a bid, «без риска»'s double); never the
        # cell's beside a different one
        head = f"{q['theme']} · {q['nominal']}" if q.get("nominal") is not None else q["theme"]
        if q.get("played_as") == "stake" and q.get("stake") and pack.get("phase") != "bids":
            head = f"{q['theme']} · " + t("pack.screen.stake", lang, team=q.get("player") or "", points=q["stake"])
        sb._text(surface, head, Rect(rect.x + 8, rect.y + 4, rect.width - 16, head_h), int(head_h * 0.8), PRICE_INK,
                 bold=True)
        body = Rect(rect.x + 12, rect.y + head_h + 8, rect.width - 24, rect.height - head_h - 16)
        lines = self._phase_lines(q, pack, lang)
        media = q.get("media") or {}
        notes = []
        if media.get("audio"):
            notes.append("♪ " + t("pack.screen.audio", lang, name=media["audio"]["name"]))
        if media.get("video"):
            notes.append("▶ " + t("pack.screen.video", lang, name=media["video"]["name"]))
        image = media.get("image")
        img = None
        if image:
            img = self._image(image.get("member"), (body.width * 55 // 100, body.height))
            if img is None:
                notes.append(t("pack.screen.image_missing", lang, name=image["name"]))
        text_rect = body
        if img is not None:
            text_rect = Rect(body.x, body.y, body.width - img.get_width() - 12, body.height)
            surface.blit(img, (body.right - img.get_width(), body.y + (body.height - img.get_height()) // 2))
        self._paragraph(sb, surface, text_rect, lines + [q.get("text") or ""] + notes)

    @staticmethod
    def _phase_lines(q, pack, lang) -> list[str]:
        phase = pack.get("phase")
        play = q.get("played_as")
        if play in ("secret", "secretPublicPrice", "secretNoQuestion"):
            out = [t("pack.screen.secret", lang, theme=q.get("secret_theme") or q["theme"])]
            opts = q.get("options")
            if opts:
                lo, hi, step = opts
                out.append(t("pack.screen.price_ends", lang, low=lo, high=hi) if step == hi - lo
                           else t("pack.screen.price_choice", lang, low=lo, high=hi, step=step))
            elif q.get("nominal") is not None and phase == "player":
                out.append(t("pack.screen.price", lang, points=q["nominal"]))
            if play == "secretNoQuestion" and phase == "board" and q.get("player"):
                out.append(t("pack.screen.awarded", lang, team=q["player"], points=q.get("nominal")))
            else:
                out.append(t("pack.screen.player", lang, team=q["player"]) if q.get("player")
                           else t("pack.screen.who", lang))
            return out
        if play == "stake":
            if phase == "bids":
                if q.get("stake") is None:
                    return [t("pack.screen.bids_first", lang, team=q.get("bidder") or "", points=q["price"])]
                points = f"{q['stake']} ({t('pack.screen.all_in', lang)})" if q.get("all_in") else q["stake"]
                return [t("pack.screen.bids", lang, team=q.get("bidder") or "", points=points)]
            return []
        if play == "noRisk":
            return [t("pack.screen.no_risk", lang, team=q.get("player") or "", points=q.get("nominal"))]
        if play in ("final", "stakeAll", "forAll"):
            players = pack.get("final_players") or []
            if phase == "final_stakes":
                key = "pack.screen.final_stakes" if play == "final" else "pack.screen.stake_all"
                return [t(key, lang, done=sum(1 for p in players if p["staked"]), count=len(players))]
            if play == "forAll":
                return [t("pack.screen.for_all", lang)]
            return [t("pack.screen.final_rulings", lang)]
        return []

    @staticmethod
    def _paragraph(sb, surface, rect: Rect, texts: list[str]) -> None:
        """Word-wrapped lines, as large as fits."""
        texts = [x for x in texts if x]
        if not texts:
            return
        size = max(min(rect.height // 5, 56), 12)
        while True:
            lines = []
            for text in texts:
                for para in text.split("\n"):
                    line = ""
                    for word in para.split():
                        trial = (line + " " + word).strip()
                        if line and sb.text.render(trial, size, INK, False).get_width() > rect.width:
                            lines.append(line)
                            line = word
                        else:
                            line = trial
                    lines.append(line)
            line_h = int(size * 1.25)
            if len(lines) * line_h <= rect.height or size <= 12:
                break
            size = int(size * 0.88)
        y = rect.y + max((rect.height - len(lines) * line_h) // 2, 0)
        for line in lines:
            sb._text(surface, line, Rect(rect.x, y, rect.width, line_h), size, INK, align="left", fit=True)
            y += line_h
