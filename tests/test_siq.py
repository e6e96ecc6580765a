"""controller/content/siq.py and `buzzer pack show`: both package versions read from our own
generated packages (tests/packs/make_packs.py); hostile ones refused with one line, exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from controller import cli
from controller.content import siq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "packs"))
import make_packs  # noqa: E402


@pytest.fixture(scope="module")
def packs(tmp_path_factory):
    return make_packs.make(tmp_path_factory.mktemp("packs"))


def run(capsys, *args):
    rc = cli.main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


V5_JSON = {"name": "Тестовый пакет", "rounds": [
    {"name": "Первый раунд", "final": False, "themes": [
        {"name": "Картины", "questions": [
            {"price": 100, "type": "simple", "text": "Что изображено на картинке?"},
            {"price": 200, "type": "noRisk", "text": "Вопрос без риска: столица Франции?"}]},
        {"name": "Звуки", "questions": [
            {"price": 100, "type": "simple", "text": "Послушайте звук."},
            {"price": 200, "type": "secret", "text": "Кот в мешке: сколько лап у кошки?"}]},
        {"name": "Разное", "questions": [
            {"price": 100, "type": "stake", "text": "Аукцион: назовите фильм по кадру."},
            {"price": 200, "type": "forAll", "text": "Вопрос для всех: 2 + 2?"}]}]},
    {"name": "Финал", "final": True, "themes": [
        {"name": "История", "questions": [
            {"price": 0, "type": "stakeAll", "text": "В каком году основан Санкт-Петербург?"}]},
        {"name": "География", "questions": [
            {"price": 0, "type": "stakeAll", "text": "Самая длинная река Европы?"}]}]}]}


def test_pack_show_json_of_a_version_5_package(packs, capsys):
    rc, out, err = run(capsys, "pack", "show", str(packs["v5"]), "--json")
    assert rc == 0, err
    assert json.loads(out) == V5_JSON


def test_pack_show_json_of_a_version_4_package(packs, capsys):
    rc, out, err = run(capsys, "pack", "show", str(packs["v4"]), "--json")
    assert rc == 0, err
    data = json.loads(out)
    assert data["name"] == "Пакет четвёртой версии"
    assert [r["final"] for r in data["rounds"]] == [False, True]
    types = [(q["price"], q["type"]) for th in data["rounds"][0]["themes"] for q in th["questions"]]
    # cat and bagcat are «кот в мешке», sponsored is «без риска», auction is a stake; price -1 is an
    # empty cell, kept in its place
    assert types == [(100, "simple"), (200, "noRisk"), (100, "simple"), (200, "secret"), (300, "secret"),
                     (100, "stake"), (-1, "empty")]
    assert data["rounds"][0]["themes"][1]["questions"][0]["text"] == "Послушайте звук."   # an atom "say"
    assert set(data) == {"name", "rounds"} and set(data["rounds"][0]["themes"][0]["questions"][0]) == \
        {"price", "type", "text"}


def test_pack_show_text_names_what_each_question_holds(packs, capsys):
    rc, out, _ = run(capsys, "pack", "show", str(packs["v5"]))
    assert rc == 0
    assert "Тестовый пакет (пакет SIGame, версия 5)" in out
    assert "Раунд 2: Финал (финал)" in out
    assert "100  обычный  [текст, картинка]  Что изображено на картинке?" in out
    assert "100  обычный  [текст, звук]  Послушайте звук." in out
    assert "100  аукцион  [текст, видео]" in out
    assert "кот в мешке" in out and "без риска" in out
    assert "Красный квадрат" not in out          # the answers are not printed
    rc, out, _ = run(capsys, "pack", "show", str(packs["v4"]), "--lang", "en")
    assert "Round 1: Раунд 1" in out and "[text, audio]" in out and "cat in the bag" in out


def test_media_and_answers_of_both_versions(packs):
    for key in ("v5", "v4"):
        p = siq.read(packs[key])
        q = p.rounds[0].themes[0].questions[0]
        assert [(m.kind, m.name, m.member) for m in q.media] == [("image", "Снимок 1.png", "Images/Снимок 1.png")]
        assert q.answer == "Красный квадрат"
        cat = p.rounds[0].themes[1].questions[1]
        assert (cat.secret_theme, cat.secret_price) == ("Животные", 300)
        audio = p.rounds[0].themes[1].questions[0].media[0]
        assert (audio.kind, audio.member) == ("audio", "Audio/звук.wav")
    v4 = siq.read(packs["v4"])
    assert v4.rounds[0].themes[0].questions[0].answer_text == "Это красный квадрат"   # after the marker


def test_media_are_read_when_first_needed_under_generated_names_only(packs, tmp_path):
    """Nothing is copied when the media open (a start, a resume); a picture is read from the
    archive into memory, a file is written only for the member asked for, under a generated
    name; a member no question references is never read."""
    p = siq.read(packs["v5"])
    store = siq.MediaStore(packs["v5"], p, parent=str(tmp_path))
    try:
        assert sorted(f.name for f in store.folder.iterdir()) == [siq.LOCK_NAME]
        assert store.data("Images/Снимок 1.png") == make_packs.png()
        assert sorted(f.name for f in store.folder.iterdir()) == [siq.LOCK_NAME]   # pictures: never on disk
        wav = store.path("Audio/звук.wav")
        assert Path(wav).name == "0002.wav" and Path(wav).parent == store.folder
        assert Path(wav).read_bytes() == make_packs.wav()
        assert store.path("Audio/звук.wav") == wav
        assert sorted(f.name for f in store.folder.iterdir()) == [siq.LOCK_NAME, "0002.wav"]
        assert store.data("content.xml") is None and store.path("../content.xml") is None
    finally:
        store.cleanup()
    assert not store.folder.exists()


@pytest.mark.parametrize("key, words", [
    ("bomb", "zip bomb"), ("huge", "Video/big.mp4: распакованный — 3072 МБ, а одному файлу можно не больше 300 МБ"),
    ("traversal", "unsafe file name in the archive: '../../evil.png'"), ("entity", "DTD или сущности"),
    ("laughs", "DTD или сущности"), ("notzip", "не пакет .siq (не архив zip: "),
    ("nocontent", "в архиве нет content.xml: это не пакет SIGame"), ("badxml", "content.xml: ошибка в XML (")])
def test_hostile_or_broken_package_is_one_line_and_exit_2(packs, key, words, tmp_path):
    before = set(os.listdir(tmp_path))
    r = subprocess.run([sys.executable, "-m", "controller.cli", "pack", "show", str(packs[key])],
                       capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("buzzer: ") and words in lines[0], r.stderr
    assert "Traceback" not in r.stderr
    assert set(os.listdir(tmp_path)) == before      # nothing written, the traversal's file least of all
    assert not (tmp_path.parent / "evil.png").exists()


def test_a_bomb_is_stopped_while_reading_not_after(packs):
    """The bomb inflates to 64 MB; the reader stops at the declared 4 KB."""
    with pytest.raises(siq.PackageError, match="zip bomb"):
        siq.read(packs["bomb"])


def test_limits_come_from_the_config(packs, tmp_path, capsys):
    cfg = tmp_path / "small.toml"
    cfg.write_text('mode = "own-game"\n[own_game]\npack_max_total_mb = 1\n', encoding="utf-8")
    big = tmp_path / "big.siq"
    import zipfile
    with zipfile.ZipFile(big, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("content.xml", make_packs.V5)
        z.writestr("Video/long.mp4", b"\0" * (2 * 1024 * 1024))
    rc, out, err = run(capsys, "pack", "show", str(big), "-c", str(cfg))
    assert rc == 2 and f"{big}: распакованный — 2 МБ, а пакету можно не больше 1 МБ" in err
    rc, out, err = run(capsys, "pack", "show", str(big), "-c", str(cfg), "--lang", "en")
    assert rc == 2 and f"{big}: 2 MB unpacked, more than the 1 MB allowed for a package" in err
    rc, out, err = run(capsys, "pack", "show", str(big))
    assert rc == 0


def test_lenient_reading_without_namespace_bom_or_optional_attributes(tmp_path):
    import zipfile
    p = tmp_path / "plain.siq"
    xml = ('<package version="5"><rounds><round><themes><theme><questions>'
           '<question><params><param name="question"><item>Только текст</item></param></params></question>'
           '</questions></theme></themes></round></rounds></package>')
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("content.xml", b"\xef\xbb\xbf" + xml.encode())
    data = siq.read(p).summary()
    assert data == {"name": "", "rounds": [{"name": "", "final": False, "themes": [
        {"name": "", "questions": [{"price": 0, "type": "simple", "text": "Только текст"}]}]}]}


def test_a_290_mb_content_xml_is_refused_for_its_size_not_as_a_zip_bomb(tmp_path):
    """Issue 24 item 14: a real 290 MB content.xml (honestly declared) used to be refused as
    "unpacks to more than its declared size (a zip bomb?)"."""
    import zipfile
    big = tmp_path / "text.siq"
    with zipfile.ZipFile(big, "w", zipfile.ZIP_DEFLATED) as z:
        with z.open("content.xml", "w", force_zip64=True) as f:
            f.write(b'<?xml version="1.0" encoding="utf-8"?><package name="x" version="5"><rounds>')
            pad = b" " * (1024 * 1024)
            for _ in range(290):
                f.write(pad)
            f.write(b"</rounds></package>")
    r = subprocess.run([sys.executable, "-m", "controller.cli", "pack", "show", str(big)],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 2, r.stderr
    line = r.stderr.strip()
    assert line == f"buzzer: {big}: content.xml: распакованный — 290 МБ, а тексту пакета можно не больше 32 МБ", line


READ_PEAK = r"""
import sys
sys.path.insert(0, {root!r})
from controller.content import siq
def hwm():   # this process's peak (ru_maxrss would carry the parent's over the exec)
    return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
base = hwm()
p = siq.read({pack!r})
print(hwm() - base, sum(len(t.questions) for r in p.rounds for t in r.themes))
"""


def test_a_26_mb_content_xml_is_read_as_a_stream_in_bounded_memory(tmp_path):
    """Issue 24 item 14: content.xml was read whole, decoded whole and copied once more before
    parsing (three copies of a 26 MB text beside its tree: the read peaked 158 MB above the
    process's start).  Parsed as the archive hands it on, the peak is the tree and the package."""
    pack = make_packs.big(tmp_path / "big.siq", 26)
    r = subprocess.run([sys.executable, "-c", READ_PEAK.format(root=str(ROOT), pack=str(pack))],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    peak_kb, questions = map(int, r.stdout.split())
    assert questions > 20000
    assert peak_kb < 100 * 1024, f"{peak_kb // 1024} MB above the start"


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "windows-1251"])
def test_a_dtd_cut_by_a_chunks_edge_is_refused_and_every_encoding_still_reads(tmp_path, encoding):
    """The stream parser sees content.xml 64 KB at a time: a <!DOCTYPE split between two chunks
    is still found, and a package in any encoding its declaration names still reads."""
    import zipfile
    head = f'<?xml version="1.0" encoding="{encoding}"?>'
    body = ('<package version="5" xmlns="https://github.com/VladimirKhil/SI/blob/master/assets/siq_5.xsd">'
            '<rounds><round name="Р"><themes><theme name="Т"><questions><question price="100"><params>'
            '<param name="question"><item>Столица Франции?</item></param></params>'
            '<right><answer>Париж</answer></right></question></questions></theme></themes></round></rounds>'
            '</package>')
    good = tmp_path / "good.siq"
    with zipfile.ZipFile(good, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("content.xml", (head + body).encode(encoding))
    q = siq.read(good).rounds[0].themes[0].questions[0]
    assert (q.text, q.answer, q.price) == ("Столица Франции?", "Париж", 100)
    unit = len("x".encode(encoding)) if encoding != "utf-16" else 2
    pad = (64 * 1024 - 4) // unit - len(head) - len("<!---->")
    hostile = tmp_path / "dtd.siq"
    with zipfile.ZipFile(hostile, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("content.xml", (head + "<!--" + "x" * pad + "-->" + '<!DOCTYPE package [<!ENTITY a "b">]>'
                                   + body).encode(encoding))
    with pytest.raises(siq.PackageError, match="DTD or entities"):
        siq.read(hostile)
