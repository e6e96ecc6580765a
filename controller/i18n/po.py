"""Gettext ``.po`` catalogs: a small reader and a ``.mo`` compiler.

The standard library reads compiled ``.mo`` catalogs (:class:`gettext.GNUTranslations`)
but has no ``msgfmt``.  This module fills the gap so the program can load its
``.po`` files directly (``controller/i18n/locale/<lang>/LC_MESSAGES/buzzer.po``) without
a build step: :func:`parse` reads the text, :func:`compile_mo` writes the binary
catalog in memory, :func:`translations` puts the two together.

It understands what ordinary tools (Poedit, msgmerge, msgfmt) write: comments,
``msgctxt``, ``msgid_plural`` / ``msgstr[N]``, strings continued over several
lines, the usual backslash escapes, and the ``fuzzy`` flag (a fuzzy entry, like
an empty translation, is left out of the compiled catalog, as ``msgfmt`` does).
"""

from __future__ import annotations

import gettext
import io
import re
import struct
from dataclasses import dataclass, field

__all__ = ["Entry", "PoError", "parse", "compile_mo", "translations", "header"]


class PoError(ValueError):
    """A ``.po`` file that cannot be read; the message names the file line."""


@dataclass
class Entry:
    """One message of a catalog (the header is the entry whose ``msgid`` is empty)."""

    msgid: str
    msgstr: list[str]
    msgid_plural: str | None = None
    msgctxt: str | None = None
    flags: set[str] = field(default_factory=set)
    comments: list[str] = field(default_factory=list)
    """Translator comments (``# ...``) and extracted comments (``#. ...``), without the marks."""
    line: int = 0

    @property
    def fuzzy(self) -> bool:
        return "fuzzy" in self.flags

    @property
    def translated(self) -> bool:
        return any(self.msgstr) and not self.fuzzy


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
            "\\": "\\", '"': '"', "'": "'", "?": "?"}
_ESCAPE = re.compile(r'\\(x[0-9A-Fa-f]{1,2}|[0-7]{1,3}|.)')


def _unescape(body: str, lineno: int) -> str:
    def one(m: re.Match) -> str:
        code = m.group(1)
        if code in _ESCAPES:
            return _ESCAPES[code]
        if code[0] == "x":
            return chr(int(code[1:], 16))
        if code[0] in "01234567":
            return chr(int(code, 8))
        raise PoError(f"line {lineno}: unknown escape \\{code}")
    return _ESCAPE.sub(one, body)


def _string(text: str, lineno: int) -> str:
    text = text.strip()
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        raise PoError(f"line {lineno}: expected a quoted string, got {text!r}")
    return _unescape(text[1:-1], lineno)


_KEYWORD = re.compile(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s+(".*)$')


def parse(text: str) -> list[Entry]:
    """Every entry of a ``.po`` file's text, the header first if it has one.
    Obsolete entries (``#~``) are skipped.  Raises :class:`PoError`."""
    entries: list[Entry] = []
    fields: dict[str, str] = {}
    plurals: dict[int, str] = {}
    flags: set[str] = set()
    comments: list[str] = []
    current: tuple[str, int | None] | None = None
    start = 0

    def finish() -> None:
        nonlocal fields, plurals, flags, comments, current
        if "msgid" in fields:
            if "msgid_plural" in fields:
                if "msgstr" in fields or not plurals:
                    raise PoError(f"line {start}: a plural message needs msgstr[0], msgstr[1], …")
                msgstr = [plurals.get(i, "") for i in range(max(plurals) + 1)]
            else:
                if plurals:
                    raise PoError(f"line {start}: msgstr[N] without msgid_plural")
                if "msgstr" not in fields:
                    raise PoError(f"line {start}: msgid without msgstr")
                msgstr = [fields["msgstr"]]
            entries.append(Entry(fields["msgid"], msgstr, fields.get("msgid_plural"), fields.get("msgctxt"),
                                 flags, comments, start))
        elif fields or plurals:
            raise PoError(f"line {start}: an entry without msgid")
        fields, plurals, flags, comments, current = {}, {}, set(), [], None

    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if current is not None and current[0].startswith("msgstr"):
                finish()
            if line.startswith("#~"):
                continue
            if line.startswith("#,"):
                flags |= {f.strip() for f in line[2:].split(",") if f.strip()}
            elif line.startswith("#.") or line.startswith("# ") or line == "#":
                comments.append(line[2:].strip())
            continue
        if line.startswith('"'):
            if current is None:
                raise PoError(f"line {lineno}: a string continues nothing")
            name, index = current
            value = _string(line, lineno)
            if index is None:
                fields[name] += value
            else:
                plurals[index] += value
            continue
        m = _KEYWORD.match(line)
        if not m:
            raise PoError(f"line {lineno}: cannot read {line!r}")
        keyword, index, rest = m.group(1), m.group(2), m.group(3)
        if keyword in ("msgctxt", "msgid") and (current is not None and current[0].startswith("msgstr")):
            finish()
        if not fields and not plurals:
            start = lineno
        value = _string(rest, lineno)
        if index is not None:
            i = int(index)
            if i in plurals:
                raise PoError(f"line {lineno}: msgstr[{i}] twice")
            plurals[i] = value
            current = ("msgstr", i)
        else:
            if keyword in fields:
                raise PoError(f"line {lineno}: {keyword} twice in one entry")
            fields[keyword] = value
            current = (keyword, None)
    finish()
    seen: set[tuple[str | None, str]] = set()
    for entry in entries:
        if (entry.msgctxt, entry.msgid) in seen:
            raise PoError(f"line {entry.line}: duplicate msgid {entry.msgid!r}")
        seen.add((entry.msgctxt, entry.msgid))
    return entries


def header(entries: list[Entry]) -> dict[str, str]:
    """The header entry's fields (``Plural-Forms``, ``Language``, …) as a dict."""
    for entry in entries:
        if entry.msgid == "" and entry.msgctxt is None:
            out = {}
            for line in entry.msgstr[0].splitlines():
                name, sep, value = line.partition(":")
                if sep:
                    out[name.strip()] = value.strip()
            return out
    return {}


def compile_mo(entries: list[Entry]) -> bytes:
    """The GNU ``.mo`` bytes of ``entries`` (UTF-8), as ``msgfmt`` would write them:
    fuzzy and untranslated messages are left out; the header is kept."""
    pairs: dict[bytes, bytes] = {}
    for entry in entries:
        if not (entry.translated or (entry.msgid == "" and any(entry.msgstr))):
            continue
        key = entry.msgid
        if entry.msgid_plural is not None:
            key += "\0" + entry.msgid_plural
        if entry.msgctxt is not None:
            key = entry.msgctxt + "\x04" + key
        pairs[key.encode("utf-8")] = "\0".join(entry.msgstr).encode("utf-8")
    keys = sorted(pairs)
    n = len(keys)
    originals_at = 28
    translations_at = originals_at + 8 * n
    data_at = translations_at + 8 * n
    blob = bytearray()
    table_o, table_t = [], []
    for key in keys:
        table_o.append((len(key), data_at + len(blob)))
        blob += key + b"\0"
    for key in keys:
        value = pairs[key]
        table_t.append((len(value), data_at + len(blob)))
        blob += value + b"\0"
    out = bytearray(struct.pack("<7I", 0x950412DE, 0, n, originals_at, translations_at, 0, data_at))
    for length, offset in table_o + table_t:
        out += struct.pack("<2I", length, offset)
    return bytes(out + blob)


def translations(text: str) -> gettext.GNUTranslations:
    """A :class:`gettext.GNUTranslations` for the ``.po`` file's ``text``
    (compiled in memory: no ``.mo`` file needed)."""
    return gettext.GNUTranslations(io.BytesIO(compile_mo(parse(text))))
