"""The shell's side of SIGame packages: ``buzzer pack show``, a package attached to a
Своя игра config for ``buzzer run``, and its media, read from the archive when the screen,
the mixer or the web first needs them.

The game itself only ever sees plain data (:meth:`controller.content.siq.Package.game_data`
in ``own_game.package``); :class:`PackMedia` reads a member when it is first needed (a
sound, a video or an HTML page is written into a temporary folder removed when the game ends).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from controller.content import siq
from controller.core import configs
from controller.core.errors import BuzzerError, ConfigError
from controller.i18n import LANGUAGES, Text, t, words

log = logging.getLogger(__name__)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("pack", help="SIGame question packages (.siq): show what one holds")
    psub = p.add_subparsers(dest="pack_command", metavar="ACTION")
    s = psub.add_parser("show", help="the package's name, rounds, themes and questions")
    s.add_argument("file", help="the .siq file")
    s.add_argument("--json", action="store_true", help="print JSON: {name, rounds: [{name, final, themes: "
                   "[{name, questions: [{price, type, text}]}]}]}")
    s.add_argument("--config", "-c", help="config whose [own_game] size limits apply (default: the defaults)")
    s.add_argument("--lang", choices=LANGUAGES, help="language of the text form")
    s.set_defaults(func=cmd_show)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _limits(config_path: str | None) -> tuple[siq.Limits, str]:
    cfg = configs.load(config_path) if config_path else configs.build({})
    return siq.Limits.from_config(cfg), cfg["language"]


def cmd_show(args) -> int:
    limits, lang = _limits(args.config)
    lang = args.lang or lang
    package = siq.read(args.file, limits)
    if args.json:
        from controller.cli import print_json
        print_json(package.summary())
    else:
        sys.stdout.write(show_text(package, lang))
    return 0


MEDIA_ORDER = ("text", "image", "audio", "video", "html")


def has(q: siq.Question) -> list[str]:
    """What a question holds: text, image, audio, video (html)."""
    kinds = {m.kind for m in q.media}
    return [k for k in MEDIA_ORDER if (k == "text" and q.text) or k in kinds]


def type_word(qtype: str, lang: str) -> str:
    key = f"pack.type.{qtype}"
    word = t(key, lang)
    return qtype if word == key else word


def show_text(package: siq.Package, lang: str = "ru") -> str:
    """The package as a host reads it before the game: rounds, themes, each question's price,
    type, what it holds and its text (the answers are not printed)."""
    lines = [t("pack.show.title", lang, name=package.name or "?", version=package.version)]
    for rn, r in enumerate(package.rounds, 1):
        lines.append("")
        lines.append(t("pack.show.round_final" if r.final else "pack.show.round", lang, n=rn, name=r.name))
        for tn, th in enumerate(r.themes, 1):
            lines.append(f"  {tn}. {th.name}")
            for qn, q in enumerate(th.questions, 1):
                what = ", ".join(t(f"pack.has.{k}", lang) for k in has(q)) or t("pack.has.nothing", lang)
                missing = [m.name for m in q.media if m.member is None]
                text = q.text.replace("\n", " ")
                if len(text) > 70:
                    text = text[:69] + "…"
                line = f"     {qn}) {q.price:>5}  {type_word(q.type, lang)}  [{what}]  {text}"
                if q.empty:   # an empty cell keeps its place on the board
                    line = f"     {qn}) {'—':>5}  {type_word(q.type, lang)}"
                lines.append(line.rstrip())
                if missing:
                    lines.append("        " + t("pack.show.missing", lang, files=", ".join(missing)))
    n = sum(len(th.questions) for r in package.rounds for th in r.themes)
    lines.append("")
    lines.append(t("pack.show.total", lang, rounds=len(package.rounds), questions=n))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# buzzer run

def plays_packages(cfg: dict) -> bool:
    """Whether the game ``cfg`` plays takes a SIGame package (its ``plays_packages``)."""
    from controller import games
    try:
        return bool(getattr(games.get(cfg["mode"]), "plays_packages", False))
    except BuzzerError:
        return False

def game_title(mode, lang: str) -> str:
    """A game by its title in ``lang`` (the registry's ``title_key``)."""
    from controller import games
    key = games.title_key(mode)
    return t(key, lang) if key else str(mode)


def package_games(lang: str) -> list[str]:
    """The titles of the games that play SIGame packages."""
    from controller import games
    return [game_title(name, lang) for name in games.names() if plays_packages({"mode": name})]


def attach(cfg: dict, pack_path: str | None, out=sys.stderr, strict: bool = False,
           required: bool = False) -> bool:
    """Put the package named by ``--pack``, ``[own_game] pack`` or the event file's game
    (``pack = "file.siq"``) into ``cfg`` (as data).

    A broken or hostile package named by the config or the event file is one line on ``out``
    and the game goes on without it (False); with ``strict`` (``buzzer simulate``) it is raised.
    With ``required`` (``buzzer run --pack``: the host named ``pack_path`` on the command line)
    a package that cannot be played is a one-line :class:`~controller.content.siq.PackageError`
    -- before anything else happens: the host wants that package, not a game without it.  A package for a
    game that plays none is a :class:`ConfigError` naming both games by their titles."""
    from controller.content import event   # the event file may name the game's package
    path = pack_path or cfg.get("own_game", {}).get("pack") or event.pack_path(cfg) or ""
    if not path:
        return False
    lang = cfg.get("language", "ru")
    if not plays_packages(cfg):
        raise ConfigError("own_game.pack" if not pack_path else "--pack",
                          t("pack.wrong_game", lang, games=", ".join(package_games(lang)),
                            game=game_title(cfg["mode"], lang)))
    try:
        package = siq.read(path, siq.Limits.from_config(cfg))
    except siq.PackageError as exc:
        if required and pack_path:
            raise siq.PackageError(None, Text("pack.bad_arg", problem=exc)) from None
        if strict:
            raise
        print(f"buzzer: {t('pack.unusable', cfg['language'], problem=words(exc, cfg['language']))}", file=out)
        cfg["own_game"]["pack"] = ""
        return False
    cfg["own_game"]["pack"] = str(Path(path).resolve())
    cfg["own_game"]["package"] = package.game_data()
    digest = cfg["own_game"]["package_sha256"] = sha256_of(path)
    if len(_RESOLVED) >= 4:
        _RESOLVED.clear()
    _RESOLVED[digest] = cfg["own_game"]["package"]   # a resume of it reads the journal's copy only
    return True


def members_of(data: dict) -> list[str]:
    """The archive members a package's questions reference (from its game data)."""
    out: list[str] = []
    for r in data.get("rounds") or ():
        for th in r.get("themes") or ():
            for q in th.get("questions") or ():
                for m in list(q.get("media") or ()) + list(q.get("answer_media") or ()) + \
                        [m for o in q.get("options") or () for m in o.get("media") or ()]:
                    if m.get("member") and m["member"] not in out:
                        out.append(m["member"])
    return out


class PackMedia:
    """The media of the package being played (:class:`~controller.content.siq.MediaStore`:
    read from the archive when first needed): a member's bytes, or a file of it."""

    def __init__(self, store: siq.MediaStore | None):
        self.store = store

    def data(self, member: str | None) -> bytes | None:
        return self._ask("data", member)

    def path(self, member: str | None) -> str | None:
        return self._ask("path", member)

    def _ask(self, how: str, member: str | None):
        if self.store is None:
            return None
        try:
            return getattr(self.store, how)(member)
        except siq.PackageError as exc:   # a damaged or lying member: the game goes on without it
            log.warning("%s", exc)
            return None

    def close(self) -> None:
        if self.store is not None:
            self.store.cleanup()
            self.store = None


def open_media(cfg: dict, out=sys.stderr) -> PackMedia | None:
    """The media of the package in ``cfg`` (a resumed game's too: the journal's config names
    the file), read when first needed: nothing is copied here. A file that is gone or
    refused: one line, and the game goes on without pictures and sounds."""
    removed, freed = siq.sweep_stale_media()   # what a killed game left in $TMPDIR, at every start
    if removed:
        print(f"buzzer: {t('pack.swept', cfg.get('language', 'ru'), n=removed, mb=freed // siq.MB)}", file=out)
    o = cfg.get("own_game") or {}
    data, path = o.get("package"), o.get("pack")
    if not plays_packages(cfg) or not data or not path:
        return None
    try:
        return PackMedia(siq.MediaStore(path, members_of(data), siq.Limits.from_config(cfg)))
    except BuzzerError as exc:
        print(f"buzzer: {t('pack.no_media', cfg.get('language', 'ru'), problem=words(exc, cfg.get('language', 'ru')))}",
              file=out)
        return PackMedia(None)


# ---------------------------------------------------------------------------
# the package in the journal: its identity in the header, a copy beside the journal

COPIES = "packages"
"""The journal folder's subfolder holding a copy of every package a journaled game plays."""

_RESOLVED: dict[str, dict] = {}
"""sha256 -> game data already read from a copy (a journal read twice parses its package once)."""


def sha256_of(path) -> str:
    import hashlib
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def keep_copy(cfg: dict) -> dict | None:
    """For the journal header of ``cfg``'s game: the package's identity (``{"sha256", "copy",
    "name"}``) instead of its whole text, and a copy of the package file kept beside the
    journal (``<journal dir>/packages/<sha256>.siq``, written once, whole or not at all), so a
    resume or a replay reads exactly the package that was played even when the original is
    changed or gone. None when ``cfg`` plays no package."""
    o = cfg.get("own_game") or {}
    data, path = o.get("package"), o.get("pack")
    if not isinstance(data, dict) or "rounds" not in data or not path:
        return None
    import shutil as _shutil
    folder = Path(cfg["journal"]["dir"]) / COPIES
    folder.mkdir(parents=True, exist_ok=True)
    digest = sha256_of(path)
    want = o.get("package_sha256")
    if want and want != digest:
        raise siq.PackageError(path, "changed since it was read: start again to play it")
    dest = folder / f"{digest}.siq"
    if not dest.exists() or sha256_of(dest) != digest:
        tmp = dest.with_name(dest.name + ".tmp")
        _shutil.copyfile(path, tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, dest)
    _RESOLVED.setdefault(digest, data)
    return {"sha256": digest, "copy": f"{COPIES}/{digest}.siq", "name": data.get("name", "")}


def header_config(cfg: dict) -> dict:
    """``cfg`` as the journal header keeps it: the package by its identity (:func:`keep_copy`)."""
    ref = keep_copy(cfg)
    if ref is None:
        return cfg
    own = {k: v for k, v in cfg["own_game"].items() if k not in ("package", "package_sha256")}
    own["package"] = ref
    own["pack"] = ref["copy"]
    return {**cfg, "own_game": own}


def resolve_header_config(cfg: dict, journal_file: Path) -> dict:
    """A journal header's config with its package read back from the copy beside the journal
    (checked against its sha256); raises :class:`~controller.content.siq.PackageError` naming
    the copy when it is missing or changed."""
    o = cfg.get("own_game") if isinstance(cfg, dict) else None
    ref = (o or {}).get("package")
    if not isinstance(ref, dict) or "sha256" not in ref:
        return cfg
    digest, name = str(ref["sha256"]), str(ref.get("copy", ""))
    if not name.startswith(COPIES + "/") or "/" in name[len(COPIES) + 1:] or ".." in name:
        raise siq.PackageError(name, "not a package copy of the journal")
    candidates = [journal_file.parent / name, journal_file.parent.parent / name]   # (an archived journal)
    copy = next((c for c in candidates if c.is_file()), None)
    if copy is None:
        raise siq.PackageError(candidates[0], "the copy of the game's package is missing")
    if sha256_of(copy) != digest:
        raise siq.PackageError(copy, "the copy of the game's package has changed")
    data = _RESOLVED.get(digest)
    if data is None:
        data = siq.read(copy, siq.Limits.from_config(cfg)).game_data()
        if len(_RESOLVED) >= 4:
            _RESOLVED.clear()
        _RESOLVED[digest] = data
    own = dict(o)
    own["package"] = data
    own["pack"] = str(copy.resolve())
    return {**cfg, "own_game": own}
