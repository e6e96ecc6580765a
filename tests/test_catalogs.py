"""The gettext catalogs (controller/i18n/locale/<lang>/LC_MESSAGES/buzzer.po): they compile,
agree with each other, get Russian plurals right, and hold every key the code uses."""

import ast
import gettext
import io
import re
import string
import subprocess
from pathlib import Path

import pytest

from controller import games, i18n
from controller.games.mafia.game import ROLES
from controller.i18n import po

ROOT = Path(__file__).resolve().parents[1]
CONTROLLER = ROOT / "controller"
RU_PLURALS = ("nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && "
              "(n%100<10 || n%100>=20) ? 1 : 2);")
EN_PLURALS = "nplurals=2; plural=(n != 1);"


def _fields(text):
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def _forms(text):
    return text if isinstance(text, tuple) else (text,)


# --- the .po files and their compilation ----------------------------------------------------

@pytest.mark.parametrize("lang, plurals", [("ru", RU_PLURALS), ("en", EN_PLURALS)])
def test_catalog_header(lang, plurals):
    head = po.header(po.parse(i18n.catalog_path(lang).read_text(encoding="utf-8")))
    assert head["Plural-Forms"] == plurals
    assert head["Content-Type"] == "text/plain; charset=UTF-8"
    assert head["Language"] == lang


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_catalog_says_its_language_and_plural_rule(lang):
    head = po.header(po.parse(i18n.catalog_path(lang).read_text(encoding="utf-8")))
    assert head["Language"] == lang and head["Content-Type"] == "text/plain; charset=UTF-8"
    assert re.fullmatch(r"nplurals=\d+; plural=.+;", head["Plural-Forms"]), head["Plural-Forms"]


def test_the_languages_are_the_catalogs():
    assert i18n.LANGUAGES[0] == i18n.DEFAULT_LANG and set(i18n.LANGUAGES) >= {"ru", "en"}


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_catalog_compiles_and_gettext_reads_every_message(lang):
    entries = po.parse(i18n.catalog_path(lang).read_text(encoding="utf-8"))
    found = gettext.GNUTranslations(io.BytesIO(po.compile_mo(entries)))
    assert found.info()["language"] == lang
    for e in entries:
        if not e.msgid:
            continue
        if e.msgid_plural is None:
            assert found.gettext(e.msgid) == e.msgstr[0]
        else:
            assert [found.ngettext(e.msgid, e.msgid_plural, n) for n in (1, 2, 5)] == \
                [e.msgstr[found.plural(n)] for n in (1, 2, 5)]


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_msgfmt_accepts_the_catalog_and_compiles_it_as_we_do(lang, tmp_path):
    path = i18n.catalog_path(lang)
    out = tmp_path / "buzzer.mo"
    subprocess.run(["msgfmt", "--check", "-o", str(out), str(path)], check=True, capture_output=True)
    theirs = gettext.GNUTranslations(io.BytesIO(out.read_bytes()))
    ours = po.translations(path.read_text(encoding="utf-8"))
    for key, text in i18n.messages(lang).items():
        if isinstance(text, tuple):
            assert [theirs.ngettext(key, key, n) for n in range(30)] == [ours.ngettext(key, key, n) for n in range(30)]
        else:
            assert theirs.gettext(key) == ours.gettext(key) == text


def test_po_reader_handles_what_editors_write():
    text = r'''# a translator comment
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"

#. an extracted comment
#: somewhere.py:12
#, fuzzy
msgid "stale"
msgstr "Old"

msgctxt "menu"
msgid "open"
msgstr "Open"

msgid "long"
msgstr ""
"one \"two\" "
"three\tfour\\n"

msgid "apple"
msgid_plural "apples"
msgstr[0] "{n} apple"
msgstr[1] "{n} apples"

msgid "empty"
msgstr ""

#~ msgid "obsolete"
#~ msgstr "Gone"
'''
    entries = po.parse(text)
    assert [e.msgid for e in entries] == ["", "stale", "open", "long", "apple", "empty"]
    assert entries[1].fuzzy and entries[1].comments == ["an extracted comment"]
    found = po.translations(text)
    assert found.gettext("stale") == "stale"               # fuzzy: left out, as msgfmt does
    assert found.pgettext("menu", "open") == "Open"
    assert found.gettext("open") == "open"
    assert found.gettext("long") == 'one "two" three\tfour\\n'
    assert found.gettext("empty") == "empty"               # untranslated: the msgid
    assert [found.ngettext("apple", "apples", n) for n in (1, 2)] == ["{n} apple", "{n} apples"]
    assert found.gettext("obsolete") == "obsolete"


@pytest.mark.parametrize("bad", [
    'msgid "a"\n',                                    # no msgstr
    'msgid "a"\nmsgstr "b\n',                         # unterminated string
    'msgid "a"\nmsgstr "b"\nmsgid "a"\nmsgstr "c"\n',  # duplicate
    'msgid "a"\nmsgid_plural "as"\nmsgstr "b"\n',     # plural without msgstr[N]
    '"stray"\n',
    'msgstr "b"\n',
])
def test_po_reader_rejects_broken_files(bad):
    with pytest.raises(po.PoError):
        po.parse(bad)


# --- the two catalogs agree ---------------------------------------------------------------------

@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_catalog_has_the_english_keys(lang):
    have, en = set(i18n.messages(lang)), set(i18n.messages("en"))
    assert en - have == set(), f"keys missing in {lang}"
    assert have - en == set(), "keys missing in English"
    untranslated = [e.msgid for e in i18n.entries(lang) if not e.translated]
    assert not untranslated, f"{lang}: untranslated or fuzzy: {untranslated}"


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_catalog_uses_the_english_placeholders(lang):
    en = i18n.messages("en")
    for key, text in i18n.messages(lang).items():
        wanted = _fields(_forms(en[key])[-1])
        for form in _forms(text) + _forms(en[key]):
            assert _fields(form) == wanted, (key, form)


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_counted_messages_have_every_plural_form(lang):
    head = po.header(po.parse(i18n.catalog_path(lang).read_text(encoding="utf-8")))
    forms = int(re.match(r"nplurals=(\d+)", head["Plural-Forms"]).group(1))
    assert forms == {"ru": 3, "en": 2}.get(lang, forms)
    for key, text in i18n.messages(lang).items():
        assert isinstance(text, tuple) == isinstance(i18n.messages("en")[key], tuple), key
        if isinstance(text, tuple):
            assert len(text) == forms and all(f.strip() for f in text), (lang, key)


def test_russian_comments_show_the_current_english_text():
    """ru.po carries the English text as an extracted comment (``#. en: …``) for the translator."""
    en = i18n.messages("en")
    for e in i18n.entries("ru"):
        shown = [c[len("en:"):].strip() for c in e.comments if c.startswith("en:")]
        assert shown == [" | ".join(_forms(en[e.msgid])).strip()], e.msgid  # a comment loses edge spaces


# --- Russian plurals, by ngettext ------------------------------------------------------------------

@pytest.mark.parametrize("n, noun", [(1, "очко"), (2, "очка"), (5, "очков"), (11, "очков"), (21, "очко"),
                                     (22, "очка"), (25, "очков"), (0, "очков"), (12, "очков"), (14, "очков"),
                                     (111, "очков"), (104, "очка"), (1001, "очко")])
def test_russian_plurals_by_ngettext(n, noun):
    text = i18n.translation("ru").ngettext("points_n", "points_n", n)
    assert text.format(n=n) == f"{n} {noun}"


@pytest.mark.parametrize("n, word", [(1, "point"), (2, "points"), (0, "points"), (21, "points")])
def test_english_plurals_by_ngettext(n, word):
    assert i18n.translation("en").ngettext("points_n", "points_n", n).format(n=n) == f"{n} {word}"


# --- every key the code uses is in both catalogs ------------------------------------------------------

KEY_ARGS = {"t": 0, "tn": 0, "notice": 0, "template": 0, "_notice": 0, "Notice": 0, "refuse": 2, "_refuse": 2,
            "BadCell": 1, "ResultsError": 1, "Text": 0}
"""Functions whose argument at this position is a message key."""


def _literals(node):
    """The strings an argument can be: a literal, or either branch of ``a if c else b``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _literals(node.body) + _literals(node.orelse)
    return []


def _name(func):
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _keys_in_code():
    from controller.screens import notices, common as screen
    from controller.screens import scoreboard
    from controller.festival import board as festival_board

    keys = {}
    for path in sorted(CONTROLLER.rglob("*.py")):
        where = str(path.relative_to(ROOT))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = _name(node.func)
            if name in KEY_ARGS and len(node.args) > KEY_ARGS[name]:
                for key in _literals(node.args[KEY_ARGS[name]]):
                    keys.setdefault(key, where)
            if name == "Flash" and node.args:
                for kind in _literals(node.args[0]):
                    if kind not in screen.SILENT_FLASHES:
                        keys.setdefault(screen.FLASH_TEXT.get(kind, kind), where)
            if name == "ProtocolError":
                for kw in node.keywords:
                    if kw.arg == "reason":
                        for reason in _literals(kw.value):
                            keys.setdefault(f"protocol.{reason}", where)
    tables = {
        "screen.py": [*(games.get(n).title_key for n in games.names()), *screen.FLASH_TEXT.values(), *screen.TAG_KEYS.values(),
                      *screen.PRESS_TAG_KEYS.values(), *screen.COUNTDOWN_LABELS.values()],
        "board.py": [*festival_board.OLDER_HALL_SEAT_TAGS.values()],
        "scoreboard.py": [k for k, _ in scoreboard.TAGS.values()] + [k for k, _ in scoreboard.PRESS_TAGS.values()]
        + [f"backend_{b}" for b in ("keyboard", "gpio", "serial")],
        "i18n.py": [*i18n.ACTION_LABELS.values(), *i18n.COUNT_PARAMS,
                    *(k for words in i18n.PARAM_WORDS.values() for k in words.values())]
        + [f"role_{r}" for r in ROLES],
        "notices.py": [k for k in (*notices.scopes(), *notices.LIFETIME_NS) if k != "entry"],
    }
    from controller.core import schema
    tables["schema.py"] = [f"config.expected_{k}" for k in schema._KIND_KEY.values()]
    tables["config.py"] = [f"config.team_duplicate_{what}" for what in ("name", "button", "key")]
    for where, found in tables.items():
        for key in found:
            keys.setdefault(key, where)
    # the label tables: L["name"] (protocol page, tournament), text["name"] / say("name") (test-buttons)
    for module, prefix, pattern in [
        ("games/mafia/protocol.py", "protocol_html", r'\bL\[\s*["\'](\w+)["\']'),
        ("games/mafia/tournament.py", "tournament", r'\bL\[\s*["\'](\w+)["\']'),
        ("app/button_check.py", "test_buttons", r'\b(?:text\[|say\()\s*["\'](\w+)["\']'),
    ]:
        for name in re.findall(pattern, (CONTROLLER / module).read_text(encoding="utf-8")):
            keys.setdefault(f"{prefix}.{name}", module)
    from controller.games.mafia import protocol as mafia_protocol, tournament


    keys.update({f"tournament.{c}": "tournament.py" for c in tournament.COLUMNS})
    keys.update({f"protocol_html.{'mafia_role' if r == 'mafia' else r}": "mafia_protocol.py" for r in ROLES})
    keys.update({f"protocol_html.{w}": "mafia_protocol.py" for w in ("town", "mafia")})
    assert mafia_protocol.labels is i18n.labels
    return keys


def test_the_code_scan_finds_keys_everywhere():
    keys = _keys_in_code()
    for key in ("right", "mafia.bad_seat", "chgk.csv_fields", "protocol.role_twice", "no_answer_holder",
                "winner", "think_time", "rename_too_long", "test_buttons.pair_fair", "tournament.lot",
                "protocol_html.signature", "hand_in", "backend_serial", "role_don", "action_pause",
                "config.not_found", "config.expected_int", "config.team_duplicate_key"):
        assert key in keys, key


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_key_the_code_uses_is_in_the_catalog(lang):
    have = i18n.messages(lang)
    missing = {key: where for key, where in _keys_in_code().items() if key not in have}
    assert not missing, f"{lang}/LC_MESSAGES/buzzer.po lacks: " + ", ".join(
        f"{key} ({where})" for key, where in sorted(missing.items()))


def test_every_counted_key_is_counted_in_the_catalog():
    for key in i18n.COUNT_PARAMS:
        assert isinstance(i18n.messages("en")[key], tuple), key
