"""UI strings: every key in both languages, parameters, fallbacks, plurals."""

import string

import pytest

from controller import i18n
from controller.i18n import MINUS, STRINGS, plural_form, signed, t, tn


def _fields(text):
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_key_exists_in_both_languages():
    ru, en = set(STRINGS["ru"]), set(STRINGS["en"])
    assert ru - en == set(), "keys missing in English"
    assert en - ru == set(), "keys missing in Russian"


def test_both_languages_use_the_same_placeholders():
    for key, ru_text in STRINGS["ru"].items():
        assert _fields(ru_text) == _fields(STRINGS["en"][key]), key


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


def test_unknown_key_falls_back_to_english_then_key(monkeypatch):
    monkeypatch.setitem(STRINGS, "en", {**STRINGS["en"], "only_en": "Only {x}"})
    assert t("only_en", "ru", x=1) == "Only 1"
    assert t("no_such_key", "ru") == "no_such_key"
    assert t("right", "xx") == "Верно"  # unknown language: default language


@pytest.mark.parametrize("n, form", [
    (0, "many"), (1, "one"), (2, "few"), (4, "few"), (5, "many"), (11, "many"),
    (12, "many"), (14, "many"), (21, "one"), (22, "few"), (111, "many"), (-1, "one"),
    (-30, "many"),
])
def test_russian_plural_forms(n, form):
    assert plural_form(n, "ru") == form


def test_counted_points():
    assert tn("points_n", 1) == "1 очко"
    assert tn("points_n", 23) == "23 очка"
    assert tn("points_n", 50) == "50 очков"
    assert tn("points_n", -10) == f"{MINUS}10 очков"
    assert tn("points_n", 1, "en") == "1 point"
    assert tn("points_n", 3, "en") == "3 points"


def test_plural_keys_complete():
    forms = (".one", ".few", ".many")
    bases = {k.rsplit(".", 1)[0] for k in STRINGS["ru"] if k.endswith(forms)}
    assert "points_n" in bases
    for base in bases:
        for form in ("one", "few", "many"):
            assert f"{base}.{form}" in STRINGS["ru"]


def test_signed_uses_true_minus():
    assert signed(10) == "+10"
    assert signed(-20) == "−20"
    assert signed(0) == "0"
    assert signed(-0.5) == "−0.5"
