"""A reader of SIGame question packages (``.siq``): data, never code.

A ``.siq`` file is a zip archive holding ``content.xml`` (the package: rounds,
themes, questions) and media folders (``Images``, ``Audio``, ``Video``,
``Html``).  Two formats are in use and both are read:

* version 5: ``<question price type>`` with ``<params><param name="question"
  type="content"><item type="image" isRef="True" placement="...">`` items, the
  answer in ``<right><answer>`` (and an optional ``param name="answer"``);
* version 4: ``<question price>`` with an optional ``<type name="cat|bagcat|
  auction|sponsored">`` and a ``<scenario>`` of ``<atom type="...">`` whose
  media references start with ``@``; an ``<atom type="marker"/>`` separates
  the question from what is shown with the answer.

Real files are lenient and so is the reader: XML namespaces are ignored, a
byte-order mark is accepted, zip member names may be URI-encoded
(``%D0%A1...``), optional attributes may be missing.

A package is untrusted input (docs/packages.md «Safety»):

* the archive's declared sizes are checked against :class:`Limits` before
  anything is read, and every read counts the bytes it really gets (a member
  that inflates past its declared size is a zip bomb);
* a member whose name is absolute or climbs out (``..``) makes the package
  refused: nothing is ever written under a name taken from the archive;
* only media files that questions reference, from the media folders, are
  read, each when it is first needed (:class:`MediaStore`): pictures from
  memory, a file the mixer or the web needs written into a new temporary
  folder under a generated name (``0001.mp3``);
* the XML may not carry a document type declaration (no DTD, no entities,
  hence no external entities and no entity expansion bombs).

Every problem is a :class:`PackageError`: one line naming what is wrong.
Nothing here touches the game: :meth:`Package.game_data` is the plain data
the game (``controller/games/own_game.py``) is given.
"""

from __future__ import annotations

import codecs
import os
import re
import shutil
import struct
import tempfile
import urllib.parse
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from controller.core.errors import BuzzerError
from controller.i18n import DEFAULT_LANG, Text, words as _words

MB = 1024 * 1024

MEDIA_FOLDERS = {"image": "Images", "audio": "Audio", "video": "Video", "html": "Html"}
"""Media kind -> the folder of the archive its files live in."""

CONTENT_XML_MAX = 32 * MB
"""Largest ``content.xml`` read (the biggest real packages are a few MB of text)."""

MEMBERS_MAX = 20000
"""Most files in one archive."""


class PackageError(BuzzerError):
    """A package that cannot be read or is refused; the message is one line naming the problem."""

    def __init__(self, path, problem: str):
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}" if path else str(problem))

    def words(self, lang: str = DEFAULT_LANG) -> str:
        problem = _words(self.problem, lang)
        return f"{self.path}: {problem}" if self.path else str(problem)


@dataclass(frozen=True)
class Limits:
    """Size bounds of a package (``[own_game] pack_max_total_mb`` / ``pack_max_file_mb``)."""

    total: int = 1024 * MB   # all files of the archive, uncompressed
    file: int = 300 * MB     # any one file, uncompressed

    @classmethod
    def from_config(cls, cfg: dict) -> "Limits":
        from controller import games   # the section of the game that plays packages
        o = cfg.get(games.package_section(cfg.get("mode")), {})
        return cls(total=int(o.get("pack_max_total_mb", 1024) * MB), file=int(o.get("pack_max_file_mb", 300) * MB))


# ---------------------------------------------------------------------------
# the package as data

@dataclass(frozen=True)
class Media:
    kind: str                 # image | audio | video | html
    name: str                 # the file name as the package gives it (or a link)
    member: str | None = None  # the archive member holding it ("Images/x.png"), None: not in the archive
    seconds: float = 0.0      # how long the package shows it (v5 ``duration``, v4 atom ``time``); 0: the config's


@dataclass(frozen=True)
class Question:
    price: int
    type: str                 # simple | noRisk | secret | stake | stakeAll | forAll | choice | ... (v5 names)
    raw_type: str             # as the package spells it ("" when absent)
    text: str                 # the question's text ("" when it has none)
    media: tuple[Media, ...] = ()
    answer: str = ""
    answer_text: str = ""     # text shown with the answer (after a v4 marker, a v5 answer param)
    answer_media: tuple[Media, ...] = ()
    say: str = ""             # what the host says (v5 placement="replic", v4 atom "say")
    secret_theme: str = ""    # «кот в мешке»: the theme it is given under
    secret_price: int | None = None
    price_range: tuple[int, int, int] | None = None  # «кот в мешке»: (minimum, maximum, step) of its price
    selection: str = ""       # «кот в мешке»: who may get it (exceptCurrent | any; "" = exceptCurrent)
    answer_time: int = 0      # the package's answer time (answerDuration), seconds; 0 = the config's
    comment: str = ""         # the question's comment (``<info><comments>``), shown with it
    options: tuple[tuple[str, str, tuple[Media, ...]], ...] = ()
    """``answerType="select"``: the options (label, text, media) the players choose from."""

    @property
    def empty(self) -> bool:
        """An empty cell of the board (SIGame writes price -1): it keeps its place, nobody plays it."""
        return self.price < 0


@dataclass(frozen=True)
class Theme:
    name: str
    questions: tuple[Question, ...]
    comment: str = ""         # often the theme's task («назовите год»): shown with its questions


@dataclass(frozen=True)
class Round:
    name: str
    final: bool
    themes: tuple[Theme, ...]


@dataclass(frozen=True)
class Package:
    name: str
    version: int
    rounds: tuple[Round, ...]
    source: str = ""
    members: dict = field(default_factory=dict, compare=False, repr=False)
    """Decoded member name -> the zip's own name (of the members the questions reference)."""

    def summary(self) -> dict:
        """``buzzer pack show --json``: the public JSON shape (docs/packages.md)."""
        return {"name": self.name, "rounds": [
            {"name": r.name, "final": r.final, "themes": [
                {"name": th.name, "questions": [{"price": q.price, "type": q.type, "text": q.text}
                                                for q in th.questions]}
                for th in r.themes]}
            for r in self.rounds]}

    def game_data(self) -> dict:
        """What the game is given (plain data, journaled in the game's header): media as
        archive member names, which the shell maps onto the files it extracted."""
        def media(ms):
            # a package's own time of an item only where it gives one (the journal header of a
            # package without any stays as it was)
            return [{"kind": m.kind, "name": m.name, "member": m.member, **({"seconds": m.seconds} if m.seconds else {})}
                    for m in ms]
        return {"name": self.name, "source": self.source, "rounds": [
            {"name": r.name, "final": r.final, "themes": [
                {"name": th.name, "questions": [
                    {"price": q.price, "type": q.type, "raw_type": q.raw_type, "text": q.text,
                     "media": media(q.media), "answer": q.answer, "answer_text": q.answer_text,
                     "answer_media": media(q.answer_media), "say": q.say,
                     "secret_theme": q.secret_theme, "secret_price": q.secret_price,
                     "price_range": list(q.price_range) if q.price_range else None,
                     "selection": q.selection, "answer_time": q.answer_time,
                     "comment": q.comment, "options": [{"label": lb, "text": tx, "media": media(ms)}
                                                       for lb, tx, ms in q.options]}
                    for q in th.questions], "comment": th.comment}
                for th in r.themes]}
            for r in self.rounds]}

    def media_members(self) -> list[str]:
        out = []
        for r in self.rounds:
            for th in r.themes:
                for q in th.questions:
                    for m in q.media + q.answer_media + tuple(m for o in q.options for m in o[2]):
                        if m.member and m.member not in out:
                            out.append(m.member)
        return out


# ---------------------------------------------------------------------------
# the archive

def _decoded(name: str) -> str:
    return urllib.parse.unquote(name.replace("\\", "/"))


def _unsafe(name: str) -> bool:
    p = PurePosixPath(name)
    return (name.startswith("/") or re.match(r"^[A-Za-z]:", name) is not None
            or any(part == ".." for part in p.parts))


SKIP_CHUNK = 256 * 1024
"""Bytes read at a time while skipping to a range of a compressed member."""


class _Part:
    """``length`` bytes of an open file from where it stands (a stored zip member's range)."""

    def __init__(self, raw, length: int):
        self.raw, self.left = raw, length

    def read(self, n: int = -1) -> bytes:
        n = self.left if n < 0 else min(n, self.left)
        data = self.raw.read(n) if n > 0 else b""
        self.left -= len(data)
        return data

    def close(self) -> None:
        self.raw.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _Archive:
    """The zip with its names decoded and its sizes checked."""

    def __init__(self, path, limits: Limits):
        self.path = path
        self.limits = limits
        try:
            self.zip = zipfile.ZipFile(path)
        except FileNotFoundError:
            raise PackageError(path, Text("file.not_found")) from None
        except IsADirectoryError:
            raise PackageError(path, Text("pack.is_folder")) from None
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
            raise PackageError(path, Text("pack.not_zip", detail=str(exc))) from None
        infos = self.zip.infolist()
        if len(infos) > MEMBERS_MAX:
            raise PackageError(path, Text("pack.too_many_files", found=len(infos), most=MEMBERS_MAX))
        self.by_name: dict[str, zipfile.ZipInfo] = {}
        self.by_lower: dict[str, zipfile.ZipInfo] = {}
        total = 0
        for info in infos:
            name = _decoded(info.filename)
            if _unsafe(info.filename.replace("\\", "/")) or _unsafe(name):
                raise PackageError(path, f"unsafe file name in the archive: {info.filename!r} (refused)")
            if info.file_size > limits.file:
                raise PackageError(path, Text("pack.file_too_big", name=name, mb=info.file_size // MB,
                                              most=limits.file // MB))
            total += info.file_size
            self.by_name.setdefault(name, info)
            self.by_lower.setdefault(name.lower(), info)
        if total > limits.total:
            raise PackageError(path, Text("pack.too_big_unpacked", mb=total // MB, most=limits.total // MB))

    def find(self, name: str) -> zipfile.ZipInfo | None:
        for n in (name, _decoded(name)):
            info = self.by_name.get(n) or self.by_lower.get(n.lower())
            if info is not None:
                return info
        return None

    def open_from(self, info: zipfile.ZipInfo, start: int):
        """A reader of the member's bytes from ``start`` on (a range of a video the audience page
        asks for: ``GET /media``), to be used in a ``with``; it never holds more than one
        :data:`SKIP_CHUNK` and never reads past the member's declared size.  A member stored
        uncompressed (as a video usually is) is read from its own place in the file; a compressed
        one is inflated from its beginning, the bytes before ``start`` read and dropped."""
        if start > 0 and info.compress_type == zipfile.ZIP_STORED and not info.flag_bits & 0x1 \
                and info.compress_size == info.file_size:
            raw = open(self.path, "rb")
            try:
                raw.seek(info.header_offset)
                head = raw.read(30)
                if len(head) == 30 and head[:4] == b"PK\x03\x04":
                    name_len, extra_len = struct.unpack("<HH", head[26:30])
                    raw.seek(info.header_offset + 30 + name_len + extra_len + start)
                    return _Part(raw, info.file_size - start)
            except BaseException:
                raw.close()
                raise
            raw.close()
        f = self.zip.open(info)
        try:
            left = start
            while left > 0:
                chunk = f.read(min(SKIP_CHUNK, left))
                if not chunk:
                    break
                left -= len(chunk)
        except BaseException:
            f.close()
            raise
        return f

    def read(self, info: zipfile.ZipInfo, limit: int, out=None) -> bytes:
        """The member's bytes (or written to ``out``), never more than its declared size
        nor ``limit``: a member that inflates past either is refused (a zip bomb)."""
        cap = min(info.file_size, limit)
        got = 0
        chunks = []
        name = _decoded(info.filename)
        try:
            with self.zip.open(info) as f:
                while True:
                    chunk = f.read(64 * 1024)
                    if not chunk:
                        break
                    got += len(chunk)
                    if got > cap:
                        raise PackageError(self.path, f"{name}: unpacks to more than its declared "
                                           f"size (a zip bomb?); refused")
                    if out is None:
                        chunks.append(chunk)
                    else:
                        out.write(chunk)
        except PackageError:
            raise
        except zipfile.BadZipFile as exc:
            # zipfile stops at the declared size and then finds the checksum wrong
            raise PackageError(self.path, f"{name}: its data does not match its declared size or checksum "
                               f"(a damaged file or a zip bomb; {exc}); refused") from None
        except Exception as exc:  # zlib.error, an encrypted member (RuntimeError), a cut archive ...
            raise PackageError(self.path, f"{name}: damaged in the archive ({type(exc).__name__}: {exc})") from None
        return b"".join(chunks)


# ---------------------------------------------------------------------------
# the XML

def _encoding(head: bytes) -> tuple[str, bytes]:
    """content.xml's encoding from its first bytes: a BOM (UTF-8, UTF-16) or the declaration's
    encoding, else UTF-8; and the bytes without a UTF-8 BOM."""
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8", head[3:]
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16", head
    m = re.match(rb"<\?xml[^>]*encoding=[\"']([A-Za-z0-9._-]+)[\"']", head)
    return (m.group(1).decode("ascii") if m else "utf-8"), head


DTD = re.compile(r"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)
ROOT_XMLNS = re.compile(r"^(\s*(?:<!--.*?-->\s*|<\?.*?\?>\s*)*<[A-Za-z_][\w.-]*\b[^<>]*?)\s+xmlns\s*=\s*(\"[^\"]*\"|'[^']*')",
                        re.DOTALL)


class _StreamParser:
    """content.xml parsed as it is read, a chunk at a time (``write``: what the archive hands
    on), into a tree with namespaces stripped: neither the file's bytes nor its text are held
    whole beside the tree (a 24 MB content.xml was held three times over: 158 MB above the
    start, now 67 MB).  Text in the encoding :func:`_encoding` finds; a DTD or an entity
    declaration is refused."""

    HEAD = 4096      # bytes looked at for the BOM and the declaration before decoding starts

    def __init__(self, path=None):
        self.path = path
        self.head = b""
        self.decoder = None
        self.tail = ""          # the last characters of the previous chunk (a <!DOCTYPE cut in two)
        self.pre = ""           # text before the declaration's end
        self.enc = "utf-8"
        self.declaration = True  # the XML declaration not yet passed (it names the bytes' encoding)
        self.namespaced = False
        self.parser = ET.XMLParser()

    def write(self, chunk: bytes) -> None:
        try:
            if self.decoder is None:
                self.head += chunk
                if len(self.head) < self.HEAD:
                    return
                chunk, self.head = self.head, b""
                self._start(chunk)
                return
            self._feed(self.decoder.decode(chunk))
        except UnicodeDecodeError as exc:
            raise PackageError(self.path, Text("pack.xml_encoding", encoding=self.enc, detail=str(exc))) from None

    def _start(self, data: bytes) -> None:
        enc, data = _encoding(data)
        try:
            self.decoder = codecs.getincrementaldecoder(enc)()
        except LookupError as exc:
            raise PackageError(self.path, Text("pack.xml_encoding", encoding=enc, detail=str(exc))) from None
        self.enc = enc
        self._feed(self.decoder.decode(data))

    def _feed(self, text: str) -> None:
        if self.declaration:     # (the parser takes text: the declaration naming bytes goes)
            text = (self.pre + text).lstrip("\ufeff")
            start = text.lstrip()[:5]
            if (start == "<?xml" and "?>" not in text) or (len(start) < 5 and "<?xml".startswith(start)):
                self.pre = text
                return           # the declaration is not whole yet
            text = re.sub(r"^\s*<\?xml[^>]*\?>", "", text)
            # the root's default namespace (SIGame's) goes before parsing: no element has one then
            text = ROOT_XMLNS.sub(r"\1", text, count=1)
            self.pre = ""
            self.declaration = False
        if DTD.search(self.tail + text):
            raise PackageError(self.path, Text("pack.xml_dtd"))
        if not self.namespaced and ("xmlns" in text or "xml:" in text):
            self.namespaced = True    # another namespace somewhere: stripped after parsing
        self.tail = text[-16:]
        try:
            self.parser.feed(text)
        except ET.ParseError as exc:
            raise PackageError(self.path, Text("pack.xml_malformed", detail=str(exc))) from None

    def close(self) -> ET.Element:
        try:
            if self.decoder is None:
                head, self.head = self.head, b""
                self._start(head)
            self._feed(self.decoder.decode(b"", final=True))
            if self.declaration:      # a document that ends inside its declaration
                self.declaration, text, self.pre = False, self.pre, ""
                self._feed(text)
        except UnicodeDecodeError as exc:
            raise PackageError(self.path, Text("pack.xml_encoding", encoding=self.enc, detail=str(exc))) from None
        try:
            root = self.parser.close()
        except ET.ParseError as exc:
            raise PackageError(self.path, Text("pack.xml_malformed", detail=str(exc))) from None
        if self.namespaced:
            for el in root.iter():
                if isinstance(el.tag, str) and "}" in el.tag:
                    el.tag = el.tag.split("}", 1)[1]
                for k in [k for k in el.attrib if "}" in k]:
                    el.attrib[k.split("}", 1)[1]] = el.attrib.pop(k)
        return root


def parse_xml(data: bytes, path=None) -> ET.Element:
    """Parse content.xml with namespaces stripped; a DTD or an entity declaration is refused."""
    parser = _StreamParser(path)
    parser.write(data)
    return parser.close()


def _children(el, tag):
    return [c for c in el if isinstance(c.tag, str) and c.tag.lower() == tag.lower()]


def _child(el, tag):
    found = _children(el, tag)
    return found[0] if found else None


def _attr(el, name, default=""):
    for k, v in el.attrib.items():
        if k.lower() == name.lower():
            return v
    return default


def _text(el) -> str:
    return "".join(el.itertext()).strip() if el is not None else ""


def _items(p) -> list[tuple[str, str, bool, str, float]]:
    """A v5 content parameter's items as (kind, value, is a reference, placement, how long it is
    shown: ``duration``, 0 when not given)."""
    items = _children(p, "item")
    if not items and _text(p):
        return [("text", _text(p), False, "", 0.0)]
    return [(_attr(i, "type", "text").lower() or "text", _text(i), _attr(i, "isRef").lower() == "true",
             _attr(i, "placement").lower(), _seconds(_attr(i, "duration"))) for i in items]


MAX_ITEM_SECONDS = 600.0
"""A package's own time of one item is taken up to this (a longer or malformed one: the config's)."""


def _seconds(value: str | None) -> float:
    """A content item's time as the package writes it: ``hh:mm:ss[.fff]`` (v5, .NET's TimeSpan)
    or whole seconds (v4's atom ``time``); 0 when absent, malformed, negative or implausible."""
    text = (value or "").strip()
    if not text:
        return 0.0
    try:
        parts = [float(x) for x in text.split(":")]
    except ValueError:
        return 0.0
    if len(parts) > 3 or any(x < 0 or x != x for x in parts):
        return 0.0
    total = 0.0
    for x in parts:
        total = total * 60 + x
    return total if 0 < total <= MAX_ITEM_SECONDS else 0.0


def _comment(el) -> str:
    """An element's ``<info><comments>`` (a theme's task, a question's note), "" when none."""
    info = _child(el, "info")
    return _text(_child(info, "comments")) if info is not None else ""


def _int(value, default=0) -> int:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        try:
            return int(float(str(value).strip().replace(",", ".")))
        except (TypeError, ValueError):
            return default


V4_TYPES = {"simple": "simple", "auction": "stake", "cat": "secret", "bagcat": "secret",
            "sponsored": "noRisk"}
"""Version 4 question types by their version 5 names."""

V5_ALIASES = {"auction": "stake", "cat": "secret", "bagcat": "secret", "sponsored": "noRisk",
              "secretopenerprice": "secret", "withbutton": "simple", "foryourself": "noRisk", "": "simple"}

V5_NAMES = {n.lower(): n for n in ("simple", "stake", "stakeAll", "secret", "secretPublicPrice", "secretNoQuestion",
                                   "noRisk", "forAll", "choice")}


def number_set(text: str) -> tuple[int, int, int] | None:
    """SIGame's number set as written in a package: ``300``, ``[100;500]`` or ``[100;500]/100``
    (minimum, maximum, step; the step defaults to maximum - minimum: either end); None if it is
    neither (SIGame then takes 0-0: the round's minimum or maximum)."""
    text = (text or "").strip()
    if re.fullmatch(r"-?\d+", text):
        return int(text), int(text), 0
    m = re.search(r"\[(\d+);(\d+)\](?:/(\d+))?", text)
    if not m:
        return None
    lo, hi = int(m.group(1)), int(m.group(2))
    return lo, hi, int(m.group(3)) if m.group(3) else hi - lo


def _v5_type(raw: str, final: bool) -> str:
    low = raw.strip().lower()
    if not low:
        return "stakeAll" if final else "simple"
    if low in V5_ALIASES:
        return V5_ALIASES[low]
    return V5_NAMES.get(low, raw.strip())


class _Reader:
    def __init__(self, archive: _Archive | None, path):
        self.archive = archive
        self.path = path
        self.members: dict[str, str] = {}

    def media(self, kind: str, name: str, ref: bool) -> Media:
        kind = {"voice": "audio", "sound": "audio", "picture": "image"}.get(kind, kind)
        if not ref or self.archive is None:
            return Media(kind, name, None)
        folder = MEDIA_FOLDERS.get(kind)
        info = None
        if folder:
            info = self.archive.find(f"{folder}/{name}")
        if info is None:
            return Media(kind, name, None)
        member = _decoded(info.filename)
        self.members[member] = info.filename
        return Media(kind, name, member)

    # -- version 5 ---------------------------------------------------------
    def question_v5(self, q, final: bool) -> Question:
        raw = _attr(q, "type")
        params = _child(q, "params")
        text, say, media = [], [], []
        answer_text, answer_media = [], []
        secret_theme, secret_price, price_range, selection, answer_time = "", None, None, "", 0
        select, options = False, []
        if params is not None:
            for p in _children(params, "param"):
                pname = _attr(p, "name").lower()
                if pname == "answertype":
                    select = _text(p).lower() == "select"
                elif pname == "answeroptions":
                    for o in _children(p, "param"):
                        texts, ms = [], []
                        for kind, value, ref, _placement, _seconds in _items(o):
                            if kind in ("text", "say"):
                                texts.append(value)
                            elif value:
                                ms.append(self.media(kind, value, ref))
                        options.append((_attr(o, "name"), "\n".join(t for t in texts if t), tuple(ms)))
                elif pname in ("question", "answer"):
                    for kind, value, ref, placement, seconds in _items(p):
                        if kind in ("text", "say"):
                            if pname == "answer":
                                answer_text.append(value)
                            elif placement == "replic" or kind == "say":
                                say.append(value)
                            else:
                                text.append(value)
                        elif value:
                            m = self.media(kind, value, ref)
                            m = replace(m, seconds=seconds) if seconds else m
                            (answer_media if pname == "answer" else media).append(m)
                elif pname == "theme":
                    secret_theme = _text(p)
                elif pname in ("price", "cost"):
                    ns = _child(p, "numberSet")
                    if ns is not None:
                        lo, hi = _attr(ns, "minimum"), _attr(ns, "maximum")
                        secret_price = _int(lo, 0) if lo and lo == hi else (_int(lo, 0) or None)
                        price_range = (_int(lo, 0), _int(hi, 0), _int(_attr(ns, "step"), 0))
                    elif _text(p):
                        secret_price = _int(_text(p), 0) or None
                        price_range = number_set(_text(p)) or (0, 0, 0)
                elif pname == "selectionmode":
                    selection = _text(p)
                elif pname == "answerduration":
                    answer_time = max(_int(_text(p), 0), 0)
        elif _child(q, "scenario") is not None:  # a version-4 question inside a version-5 file
            return self.question_v4(q, final)
        if not text and say:
            text, say = say, []
        return Question(price=_int(_attr(q, "price"), 0), type=_v5_type(raw, final), raw_type=raw,
                        text="\n".join(t for t in text if t), media=tuple(media),
                        answer=self.answer(q), answer_text="\n".join(t for t in answer_text if t),
                        answer_media=tuple(answer_media), say="\n".join(t for t in say if t),
                        secret_theme=secret_theme, secret_price=secret_price, price_range=price_range,
                        selection=selection, answer_time=answer_time, comment=_comment(q),
                        options=tuple(options) if select or options else ())

    # -- version 4 ---------------------------------------------------------
    def question_v4(self, q, final: bool) -> Question:
        raw, secret_theme, secret_price = "", "", None
        cost, knows, self_ = "", "after", "false"
        tp = _child(q, "type")
        if tp is not None:
            raw = _attr(tp, "name")
            for p in _children(tp, "param"):
                pname = _attr(p, "name").lower()
                if pname == "theme":
                    secret_theme = _text(p)
                elif pname == "cost":
                    cost = _text(p)
                    secret_price = _int(cost, 0) or None
                elif pname == "knows":
                    knows = _text(p).lower()
                elif pname == "self":
                    self_ = _text(p).lower()
        low = raw.strip().lower()
        qtype = ("stakeAll" if final else "simple") if low in ("", "simple") else V4_TYPES.get(low, raw.strip())
        price_range, selection = None, ""
        if qtype == "secret":   # SIGame's Question.Upgrade: v4 «кот в мешке» as the v5 types
            price_range = number_set(cost) or (0, 0, 0)
            if low == "bagcat":
                qtype = {"before": "secretPublicPrice", "never": "secretNoQuestion"}.get(knows, "secret")
                selection = "any" if self_ == "true" else "exceptCurrent"
            else:
                selection = "exceptCurrent"
        text, say, media, answer_text, answer_media = [], [], [], [], []
        after_marker = False
        scenario = _child(q, "scenario")
        for atom in _children(scenario, "atom") if scenario is not None else ():
            kind = _attr(atom, "type", "text").lower() or "text"
            value = _text(atom)
            if kind == "marker":
                after_marker = True
                continue
            if kind in ("text", "say"):
                (answer_text if after_marker else say if kind == "say" else text).append(value)
                continue
            if not value:
                continue
            ref = value.startswith("@")
            m = self.media(kind, value[1:] if ref else value, ref)
            seconds = _seconds(_attr(atom, "time"))
            m = replace(m, seconds=seconds) if seconds else m
            (answer_media if after_marker else media).append(m)
        if not text and say:
            text, say = say, []
        return Question(price=_int(_attr(q, "price"), 0), type=qtype, raw_type=raw,
                        text="\n".join(t for t in text if t), media=tuple(media), answer=self.answer(q),
                        answer_text="\n".join(t for t in answer_text if t), answer_media=tuple(answer_media),
                        say="\n".join(t for t in say if t), secret_theme=secret_theme, secret_price=secret_price,
                        price_range=price_range, selection=selection, comment=_comment(q))

    @staticmethod
    def answer(q) -> str:
        right = _child(q, "right")
        answers = [_text(a) for a in _children(right, "answer")] if right is not None else []
        return " / ".join(a for a in answers if a)

    def package(self, root: ET.Element) -> Package:
        if root.tag.lower() != "package":
            raise PackageError(self.path, Text("pack.xml_root", tag=root.tag))
        version = _int(_attr(root, "version"), 4)
        rounds = []
        rounds_el = _child(root, "rounds")
        for r in _children(rounds_el, "round") if rounds_el is not None else ():
            final = _attr(r, "type").lower() == "final"
            themes = []
            themes_el = _child(r, "themes")
            for th in _children(themes_el, "theme") if themes_el is not None else ():
                qs = []
                qs_el = _child(th, "questions")
                for q in _children(qs_el, "question") if qs_el is not None else ():
                    if _attr(q, "price") and _int(_attr(q, "price"), 0) < 0:
                        # an empty cell of the board (SIGame writes price -1): it keeps its place
                        qs.append(Question(price=-1, type="empty", raw_type="", text=""))
                        continue
                    qs.append(self.question_v4(q, final) if version < 5 and _child(q, "params") is None
                              else self.question_v5(q, final))
                themes.append(Theme(_attr(th, "name"), tuple(qs), _comment(th)))
            rounds.append(Round(_attr(r, "name"), final, tuple(themes)))
        return Package(name=_attr(root, "name"), version=version, rounds=tuple(rounds),
                       source=str(self.path or ""), members=dict(self.members))


# ---------------------------------------------------------------------------
# entry points

def read(path, limits: Limits | None = None) -> Package:
    """Read a ``.siq`` file (nothing is extracted); :class:`PackageError` if it is broken or hostile."""
    limits = limits or Limits()
    try:
        size = os.path.getsize(path)
    except FileNotFoundError:
        raise PackageError(path, Text("file.not_found")) from None
    except OSError as exc:
        raise PackageError(path, Text("pack.cannot_read", problem=str(exc.strerror or exc))) from None
    if size > limits.total:
        raise PackageError(path, Text("pack.too_big", mb=size // MB, most=limits.total // MB))
    archive = _Archive(path, limits)
    try:
        info = archive.find("content.xml")
        if info is None:
            raise PackageError(path, Text("pack.no_content_xml"))
        if info.file_size > CONTENT_XML_MAX:
            # declared too big: said as it is, before a byte is read (reading up to the cap
            # would end in "more than its declared size", which is not the problem)
            raise PackageError(path, Text("pack.xml_too_big", mb=info.file_size // MB, most=CONTENT_XML_MAX // MB))
        parser = _StreamParser(path)      # parsed as it is read: never held whole
        archive.read(info, CONTENT_XML_MAX, out=parser)
        return _Reader(archive, path).package(parser.close())
    finally:
        archive.zip.close()


SAFE_EXT = re.compile(r"\.[A-Za-z0-9]{1,5}$")


MEDIA_PREFIX = "buzzer-siq-"
LOCK_NAME = ".buzzer-media.lock"
"""The lock file in each extracted media folder: its process holds it (``flock``) for as long
as the folder is in use, so a later start can tell a folder left by a killed process (the lock
is free) from one a running game is using (docs/packages.md, «Safety»)."""


def _lock_folder(folder: Path) -> int:
    import fcntl
    fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


def sweep_stale_media(parent: str | None = None) -> tuple[int, int]:
    """Remove media folders a killed ``buzzer run`` left in the temporary folder; returns
    (folders removed, bytes freed). Only ours, identified safely: a real folder (not a link)
    named ``buzzer-siq-*``, owned by this user, holding our lock file (a regular file, not a
    link) that no living process holds. Anything else is left alone."""
    import fcntl
    import stat as stat_mod
    base = Path(parent or tempfile.gettempdir())
    removed = freed = 0
    try:
        entries = list(os.scandir(base))
    except OSError:
        return 0, 0
    for entry in entries:
        if not entry.name.startswith(MEDIA_PREFIX):
            continue
        try:
            st = os.lstat(entry.path)
            if not stat_mod.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
                continue
            lock = os.path.join(entry.path, LOCK_NAME)
            lst = os.lstat(lock)
            if not stat_mod.S_ISREG(lst.st_mode) or lst.st_uid != os.getuid():
                continue
            fd = os.open(lock, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue   # a running game's folder
            size = 0
            for root, _dirs, names in os.walk(entry.path):
                for n in names:
                    try:
                        size += os.lstat(os.path.join(root, n)).st_size
                    except OSError:
                        pass
            shutil.rmtree(entry.path, ignore_errors=True)
            if not os.path.exists(entry.path):
                removed += 1
                freed += size
        finally:
            os.close(fd)
    return removed, freed


class MediaStore:
    """The media of a package being played, read from the archive when first needed.

    Nothing is copied at start (or at a resume): :meth:`data` reads one member's bytes from
    the zip (a picture, decoded from memory, never written out), :meth:`path` writes one
    member into this game's own temporary folder the first time a file is needed (a sound
    for the mixer's stream, a video or an HTML page for the web process) under a generated
    name (``0001.mp3``).  Only the members the package's questions reference, from the media
    folders, are ever read; the sizes are checked on every read (:class:`_Archive`)."""

    def __init__(self, path, members, limits: Limits | None = None, parent: str | None = None):
        import threading
        self.limits = limits or Limits()
        if isinstance(members, Package):
            members = members.media_members()
        self.members = [m for m in members if m.split("/", 1)[0] in MEDIA_FOLDERS.values()]
        self.archive = _Archive(path, self.limits)
        self.folder = Path(tempfile.mkdtemp(prefix=MEDIA_PREFIX, dir=parent))
        self.lock_fd = _lock_folder(self.folder)
        self.files: dict[str, str] = {}
        self.written = 0
        self._lock = threading.Lock()   # the screen, the loop and the web hand-off share the zip

    def _info(self, member: str | None):
        if not member or member not in self.members or self.archive is None:
            return None
        info = self.archive.find(member)
        return None if info is None or info.is_dir() else info

    def data(self, member: str | None) -> bytes | None:
        """The member's bytes (None: not a media file of the package, or no longer open)."""
        with self._lock:
            info = self._info(member)
            return None if info is None else self.archive.read(info, self.limits.file)

    def path(self, member: str | None) -> str | None:
        """The member as a file of this game's media folder, written the first time it is asked for."""
        with self._lock:
            if member in self.files:
                return self.files[member]
            info = self._info(member)
            if info is None:
                return None
            if self.written + info.file_size > self.limits.total:
                raise PackageError(self.archive.path, f"media over the {self.limits.total // MB} MB "
                                   f"allowed for a package")
            m = SAFE_EXT.search(member)
            dest = self.folder / f"{self.members.index(member) + 1:04d}{m.group(0).lower() if m else ''}"
            try:
                with open(dest, "wb") as out:
                    self.archive.read(info, self.limits.file, out)
            except BaseException:
                dest.unlink(missing_ok=True)
                raise
            self.written += dest.stat().st_size
            self.files[member] = str(dest)
            return str(dest)

    def cleanup(self) -> None:
        with self._lock:
            if self.archive is not None:
                self.archive.zip.close()
                self.archive = None
            shutil.rmtree(self.folder, ignore_errors=True)
            if self.lock_fd >= 0:
                os.close(self.lock_fd)
                self.lock_fd = -1
