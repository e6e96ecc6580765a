"""UI strings: every key in both languages, parameters, fallbacks, plurals."""

import string

import pytest

from controller import i18n
from controller.i18n import MINUS, messages, signed, t, tn


def _fields(text):
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_key_exists_in_both_languages():
    ru, en = set(messages("ru")), set(messages("en"))
    assert ru - en == set(), "keys missing in English"
    assert en - ru == set(), "keys missing in Russian"


def test_both_languages_use_the_same_placeholders():
    def forms(text):
        return text if isinstance(text, tuple) else (text,)

    for key, ru_text in messages("ru").items():
        assert {frozenset(_fields(f)) for f in forms(ru_text) + forms(messages("en")[key])} \
            == {frozenset(_fields(forms(ru_text)[0]))}, key


def test_no_empty_texts():
    for lang, key, text in i18n.all_strings():
        assert text.strip(), (lang, key)


def test_issue_words_in_russian_by_default():
    assert t("right") == "Верно"
    assert t("wrong") == "Неверно"
    assert t("time_up") == "Время!"
    assert t("false_start") == "Фальстарт"
    assert t("early") == "Рано"
    assert t("light") == "Светлый бой"
    assert t("half-dark") == "Полутёмный бой"
    assert t("dark") == "Тёмный бой"


def test_english_selectable():
    assert t("right", "en") == "Right"
    assert t("standings", "en") == "Standings"


def test_params_are_filled_in():
    assert t("round_n", "ru", n=2) == "Раунд 2"
    assert t("question_n", "en", n=7) == "Question № 7"
    assert t("theme_name", "ru", name="Реки") == "Тема: «Реки»"


def test_missing_param_shows_placeholder_instead_of_crashing():
    assert t("round_n", "ru") == "Раунд {n}"


@pytest.fixture
def only_english_key(monkeypatch, tmp_path):
    """Catalogs in ``tmp_path`` where the English one has a key the Russian one lacks."""
    for lang in i18n.LANGUAGES:
        path = tmp_path / lang / "LC_MESSAGES" / "buzzer.po"
        path.parent.mkdir(parents=True)
        text = i18n.catalog_path(lang).read_text(encoding="utf-8")
        path.write_text(text + ('\nmsgid "only_en"\nmsgstr "Only {x}"\n' if lang == "en" else ""), encoding="utf-8")
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    i18n.reload()
    yield
    monkeypatch.undo()
    i18n.reload()


def test_unknown_key_falls_back_to_english_then_key(only_english_key):
    assert t("only_en", "ru", x=1) == "Only 1"
    assert t("no_such_key", "ru") == "no_such_key"
    assert t("right", "xx") == "Верно"  # unknown language: default language


@pytest.mark.parametrize("n, form", [
    (0, "many"), (1, "one"), (2, "few"), (4, "few"), (5, "many"), (11, "many"),
    (12, "many"), (14, "many"), (21, "one"), (22, "few"), (111, "many"), (-1, "one"),
    (-30, "many"),
])
def test_russian_plural_forms(n, form):
    one, few, many = messages("ru")["points_n"]
    assert i18n.template("points_n", "ru", count=n) == dict(one=one, few=few, many=many)[form]


@pytest.mark.parametrize("lang, n, text", [
    ("ru", 1.5, "1.5 очка"), ("ru", 0.5, "0.5 очка"), ("en", 1.5, "1.5 points"), ("en", 1.0, "1.0 point"),
])
def test_fractional_counts(lang, n, text):
    assert tn("points_n", n, lang) == text


def test_a_counted_message_without_its_count_takes_the_many_form():
    assert t("resumed", "ru") == "Игра продолжена после перезапуска ({n} событий из журнала)"
    assert t("resumed", "en", n="?") == "Game resumed after a restart (? events from the journal)"


def test_counted_points():
    assert tn("points_n", 1) == "1 очко"
    assert tn("points_n", 23) == "23 очка"
    assert tn("points_n", 50) == "50 очков"
    assert tn("points_n", -10) == f"{MINUS}10 очков"
    assert tn("points_n", 1, "en") == "1 point"
    assert tn("points_n", 3, "en") == "3 points"


def test_plural_keys_complete():
    counted = {k for k, text in messages("ru").items() if isinstance(text, tuple)}
    assert {"points_n", "resumed", "mafia.bad_seat"} <= counted
    for key in counted:
        assert len(messages("ru")[key]) == 3 and len(messages("en")[key]) == 2, key


def test_signed_uses_true_minus():
    assert signed(10) == "+10"
    assert signed(-20) == "−20"
    assert signed(0) == "0"
    assert signed(-0.5) == "−0.5"


# --- counted messages: the number and its noun agree -------------------------------

COUNTS = {1: "one", 2: "few", 5: "many", 11: "many", 21: "one", 22: "few", 25: "many"}

COUNTED = [
    ("resumed", {}, ("событие", "события", "событий")),
    ("events_n", {}, ("событие", "события", "событий")),
    ("records_n", {}, ("запись", "записи", "записей")),
    ("resumed_journal", {}, ("событие", "события", "событий")),
    ("results_loaded", {"path": "jury.csv"}, ("строка", "строки", "строк")),
    ("skip_not_allowed", {"team": "Альфа"}, ("игрок", "игрока", "игроков")),
    ("mafia.bad_seat", {"seat": 12}, ("место", "места", "мест")),
    ("points_n", {}, ("очко", "очка", "очков")),
]


@pytest.mark.parametrize("key, params, nouns", COUNTED, ids=[c[0] for c in COUNTED])
def test_every_counted_russian_message_agrees_with_its_number(key, params, nouns):
    one, few, many = nouns
    for n, form in COUNTS.items():
        text = t(key, "ru", **params, **{i18n.COUNT_PARAMS.get(key, "n"): n})
        assert f"{n} {dict(one=one, few=few, many=many)[form]}" in text.replace("(", " ").replace(")", " "), text


def test_the_resume_notice_says_22_sobytiya_not_22_sobytiy():
    assert "22 события" in t("resumed", "ru", n=22) and "82 события" in t("resumed", "ru", n=82)
    assert "1 event " in t("resumed", "en", n=1) and "5 events" in t("resumed", "en", n=5)


NOT_COUNTS = {"team", "seat", "button", "name", "label", "action", "path", "problem", "b", "first", "second", "key"}
"""Placeholders that name something (a team, a seat number) rather than count it."""


def test_a_number_before_a_russian_noun_is_always_a_counted_message():
    import re

    for key, text in messages("ru").items():
        if isinstance(text, tuple):
            continue
        for name, word in re.findall(r"\{(\w+)\}\s+([а-яё]+)", text):
            assert name in NOT_COUNTS or word in ("с", "из", "в", "мин", "мс", "мкс"), f"{key}: «{text}» needs plural forms"


def test_a_text_is_english_as_a_string_and_the_hosts_language_on_request():
    import pickle

    from controller.core.errors import ConfigError
    from controller.i18n import Text

    problem = Text("config.positive", value="-1.0")
    exc = ConfigError("erudite.think_time_s", problem, "a.toml")
    assert str(exc) == "a.toml: erudite.think_time_s: must be > 0, got -1.0"
    assert exc.words("ru") == "a.toml: erudite.think_time_s: должно быть больше 0, а не -1.0"
    nested = Text("script.setup", problem=exc)   # an error inside a message speaks the same language
    assert nested.in_lang("ru") == "setup: " + exc.words("ru") and str(nested) == "setup: " + str(exc)
    assert pickle.loads(pickle.dumps(problem)).in_lang("ru") == "должно быть больше 0, а не -1.0"
