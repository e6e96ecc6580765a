"""UI strings: Russian by default, English selectable.

Every text the audience or the host sees lives in a gettext catalog, one per
language: ``controller/i18n/locale/<lang>/LC_MESSAGES/buzzer.po`` (see
docs/translating.md).  The message ids are short English keys (``"right"``,
``"time_up"``, ``"round"``); the English catalog holds the English text.
Effects carry keys, not text (:class:`~controller.core.effects.Notice`,
:class:`~controller.core.effects.Flash`); the display turns them into words with
:func:`t`.  The catalogs are read and compiled in memory the first time a
language is used (:mod:`controller.i18n.po`, :mod:`gettext`), so editing a ``.po``
file needs no build step.  Tests check that every key the code uses is in every
catalog, that the catalogs agree on keys and placeholders, and that the bundled
fonts can draw every character (``tests/test_catalogs.py``, ``tests/test_i18n.py``,
``tests/test_fonts.py``).

Placeholders use :meth:`str.format` syntax: ``t("round_n", n=2)`` gives
«Раунд 2».  A counted message has plural forms (``msgid_plural``) and is looked
up with :meth:`~gettext.NullTranslations.ngettext`, so the catalog's
``Plural-Forms`` rule picks «1 очко», «2 очка», «5 очков».

Adding a string: add the key to *every* ``.po`` file.
"""

from __future__ import annotations

import functools
import gettext
import io
import string
from pathlib import Path
from typing import Any, Mapping

from controller.i18n import po

DEFAULT_LANG = "ru"
FALLBACK_LANG = "en"
"""Where a key missing from a language's catalog is looked up next."""

DOMAIN = "buzzer"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
"""``<LOCALE_DIR>/<lang>/LC_MESSAGES/buzzer.po``: one catalog per language."""

LANGUAGES = (DEFAULT_LANG, *sorted(p.parent.parent.name for p in LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.po")
                                   if p.parent.parent.name != DEFAULT_LANG))
"""Every language with a catalog, the default first: adding a ``.po`` file adds a language."""

MINUS = "\u2212"
"""The typographic minus sign (−), used for negative scores instead of ``-``."""


def catalog_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.cache
def _parsed(lang: str) -> tuple[po.Entry, ...]:
    return tuple(po.parse(catalog_path(lang).read_text(encoding="utf-8")))


def entries(lang: str) -> tuple[po.Entry, ...]:
    """The messages of ``lang``'s catalog (the header left out)."""
    return tuple(e for e in _parsed(lang) if e.msgid)


@functools.cache
def messages(lang: str) -> dict[str, str | tuple[str, ...]]:
    """``lang``'s catalog as key -> text, or key -> its plural forms for a counted message."""
    return {e.msgid: (tuple(e.msgstr) if e.msgid_plural is not None else e.msgstr[0])
            for e in entries(lang) if e.translated}


@functools.cache
def translation(lang: str) -> gettext.NullTranslations:
    """The :mod:`gettext` translations of ``lang`` (an unknown language: the default
    language's), falling back to English for a key the catalog lacks."""
    if lang not in LANGUAGES:
        lang = DEFAULT_LANG
    found = gettext.GNUTranslations(io.BytesIO(po.compile_mo(list(_parsed(lang)))))
    if lang != FALLBACK_LANG:
        found.add_fallback(translation(FALLBACK_LANG))
    return found


def reload() -> None:
    """Forget the loaded catalogs (after editing a ``.po`` file or changing :data:`LOCALE_DIR`)."""
    for cached in (_parsed, messages, translation, _counted):
        cached.cache_clear()


@functools.cache
def _counted() -> frozenset[str]:
    return frozenset(e.msgid for lang in LANGUAGES for e in entries(lang) if e.msgid_plural is not None)


class _KeepMissing(dict):
    """Format mapping that leaves an unknown ``{name}`` in the text as it is,
    so a missing parameter shows up on screen instead of crashing the display."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _format(template: str, params: Mapping[str, Any]) -> str:
    if not params and "{" not in template:
        return template
    try:
        return string.Formatter().vformat(template, (), _KeepMissing(params))
    except (ValueError, IndexError, KeyError, AttributeError):
        # A malformed template or a bad format spec: show the raw template.
        return template


COUNT_PARAMS = {"skip_not_allowed": "players", "mafia.bad_seat": "seats", "rename_too_long": "max"}
"""Counted messages whose count is not ``{n}``: key -> the parameter that picks the form."""


def plural_count(count: Any) -> int:
    """The whole number that picks a counted message's form for ``count``:
    ``abs(count)`` for a whole number; 2 for a fraction («1,5 очка», "1.5 points")
    and 5 for no number at all («очков», "points")."""
    if isinstance(count, bool) or not isinstance(count, (int, float)):
        return 5
    if count != int(count):
        return 2
    return abs(int(count))


def template(key: str, lang: str = DEFAULT_LANG, /, count: Any = None) -> str:
    """The catalog text of ``key`` in ``lang`` with its placeholders unfilled; for a
    counted message, the form ``count`` asks for (see :func:`plural_count`).
    Falls back to the English text, then to the key itself."""
    found = translation(lang)
    if key in _counted():
        return found.ngettext(key, key, plural_count(count))
    return found.gettext(key)


def has(key: str) -> bool:
    """Whether the English catalog (the reference) has ``key``."""
    return key in messages(FALLBACK_LANG)


def t(key: str, lang: str = DEFAULT_LANG, /, **params: Any) -> str:
    """The UI text for ``key`` in ``lang``, with ``params`` filled in.

    A counted message takes the form its count asks for (gettext's ``ngettext``
    and the catalog's ``Plural-Forms``): ``t("resumed", n=22)`` gives «… 22 события …»;
    the count is ``{n}`` unless :data:`COUNT_PARAMS` names another parameter.  Falls
    back to the English text, then to the key itself, so an unknown key or language
    never breaks the screen.
    """
    return _format(template(key, lang, count=params.get(COUNT_PARAMS.get(key, "n"))), params)


class Text(str):
    """A message for the user kept as its catalog key and parameters, so that it can be
    shown in the host's language where it is printed (the command line's error line):
    ``Text("config.must_be_positive", value="-1.0")``.  As a ``str`` it is the English
    text (logs, ``str(exc)``, the simulate JSON); :meth:`in_lang` gives it in ``lang``.
    A parameter that is itself a :class:`Text` (or an error with ``words``) is put in
    the same language."""

    key: str
    params: dict[str, Any]

    def __new__(cls, key: str, /, **params: Any) -> "Text":
        self = super().__new__(cls, _text_in(key, params, FALLBACK_LANG))
        self.key = key
        self.params = params
        return self

    def __reduce__(self):
        return _rebuilt_text, (self.key, self.params)

    def in_lang(self, lang: str) -> str:
        return _text_in(self.key, self.params, lang)


def _rebuilt_text(key: str, params: dict[str, Any]) -> Text:
    return Text(key, **params)


def _text_in(key: str, params: Mapping[str, Any], lang: str) -> str:
    return t(key, lang, **{name: words(value, lang) for name, value in params.items()})


def words(value: Any, lang: str = DEFAULT_LANG) -> Any:
    """``value`` as the user reads it in ``lang``: a :class:`Text` or an error that can say
    itself in a language (``BuzzerError.words``) in ``lang``; anything else as it is."""
    if isinstance(value, Text):
        return value.in_lang(lang)
    say = getattr(value, "words", None)
    if isinstance(value, BaseException) and callable(say):
        return say(lang)
    return value


PARAM_WORDS: dict[str, dict[str, str]] = {
    "kind": {"minute": "speech", "defence": "defence", "last_word": "last_word"},
}
"""Notice parameters that carry a name from the engine (a kind of speech):
parameter -> value -> the key of its words."""

PARAM_PREFIXES: dict[str, str] = {"role": "role_"}
"""Notice parameters whose value names its words by a prefix (a «Мафия» role ``don``:
the key ``role_don``)."""


def notice(key: str, lang: str = DEFAULT_LANG, /, **params: Any) -> str:
    """A host notice (:class:`~controller.core.effects.Notice` ``key`` and ``params``) in words:
    like :func:`t`, with the engine's names in ``params`` (``role="don"``) put in words too."""
    for name, words in PARAM_WORDS.items():
        value = params.get(name)
        if isinstance(value, str) and value in words:
            params[name] = t(words[value], lang)
    for name, prefix in PARAM_PREFIXES.items():
        value = params.get(name)
        if isinstance(value, str) and prefix + value in messages(lang):
            params[name] = t(prefix + value, lang)
    return t(key, lang, **params)


ACTION_LABELS = {"reading_done": "action_arm", "resume": "action_pause"}
"""Host actions whose key-help label is another action's."""


def action_label(action: str, lang: str = DEFAULT_LANG, own: Mapping[str, str] | None = None) -> str:
    """What a host action does, in words (the key help, «not in this game» notices);
    the action's own name when no label exists.  ``own``: action -> the catalog key of the
    label the game declares for it (``controller.games.label_keys``), used first."""
    key = (own or {}).get(action) or ACTION_LABELS.get(action, f"action_{action}")
    return t(key, lang) if has(key) else action


def tn(key: str, n: int | float, lang: str = DEFAULT_LANG, /, **params: Any) -> str:
    """A counted phrase: ``tn("points_n", 21)`` gives «21 очко».

    The form is picked by ``n`` (:func:`template`); ``{n}`` in the text is filled
    with :func:`signed` ``n`` when negative, else ``n`` itself.
    """
    value = signed(n) if n < 0 else n
    return _format(template(key, lang, count=n), {**params, "n": value})


def labels(prefix: str, lang: str, default: str = DEFAULT_LANG) -> dict[str, str]:
    """Every ``prefix.name`` message of ``lang`` (an unknown language: ``default``'s)
    as name -> unfilled text: the label tables of the protocol page, the tournament
    table and ``buzzer test-buttons``, which fill the placeholders themselves."""
    if lang not in LANGUAGES:
        lang = default
    start = prefix + "."
    names = [k[len(start):] for k in messages(FALLBACK_LANG) if k.startswith(start)]
    return {name: template(start + name, lang) for name in names}


def signed(n: int | float) -> str:
    """A score change as the screen shows it: ``+10``, ``−20`` (true minus), ``0``."""
    if n > 0:
        return f"+{n:g}" if isinstance(n, float) else f"+{n}"
    if n < 0:
        return MINUS + (f"{-n:g}" if isinstance(n, float) else f"{-n}")
    return "0"


def all_strings() -> list[tuple[str, str, str]]:
    """Every (lang, key, text) triple, each plural form on its own: for checks such as font coverage."""
    out = []
    for lang in LANGUAGES:
        for key, text in messages(lang).items():
            out += [(lang, key, form) for form in (text if isinstance(text, tuple) else (text,))]
    return out
