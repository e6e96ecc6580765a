"""Make the test question packages (``.siq``) the tests play and show: our own, written here.

    python tests/packs/make_packs.py OUT_FOLDER

writes

* ``v5.siq`` -- a version-5 package: every question type (simple, noRisk, secret, stake,
  forAll -- played as simple --, a final round), a picture (``Images/Снимок 1.png``, stored
  URI-encoded in the zip), a sound (``Audio/звук.wav``), a named video, Cyrillic everywhere,
  an XML namespace;
* ``v4.siq`` -- the same game in version 4 (``scenario``/``atom``, ``@`` references, a
  ``marker``, types cat/bagcat/auction/sponsored), with a UTF-8 byte-order mark;
* ``rules.siq`` -- every question type as SIGame plays it: «кот в мешке» with a price range
  and step, with the round's minimum-or-maximum (``0``-``0``, to anyone), with its price told
  first, with no question; an empty cell; «без риска» with its own answer time; an auction;
  for all; stakes of all in an ordinary round; a final of three themes; pictures where they
  must wait (the auction's, a cat with no question's) and answer content; ``rules_v4.siq`` --
  the same cats in version 4 (``bagcat`` with ``cost``, ``self``, ``knows``);
* ``content.siq`` (v5) and ``content4.siq`` (v4) -- every content item: a theme whose task
  is its comment, a question comment, answer content (text and a picture; v4 after a marker),
  three pictures in one question (squares of different colours), a select question, a video
  and an HTML page;
* ``sounds.siq`` (v5) and ``sounds4.siq`` (v4) -- several sounds in one question, played one
  after another: two short tones of different pitch (440 Hz, then 880 Hz), and a long one with
  the package's own time of it (v5 ``duration``, v4 ``time``: 1 s of a 3 s tone) before a
  short one, whose answer content is a sound (v5);
* hostile ones, each refused with one line: ``bomb.siq`` (content.xml inflates far past
  the size its header declares), ``huge.siq`` (declares a 3 GB file), ``traversal.siq`` (a
  member named ``../../evil.png``), ``entity.siq`` (an external entity in a DTD),
  ``laughs.siq`` (an entity expansion bomb), ``notzip.siq``, ``nocontent.siq``, ``badxml.siq``.
"""

from __future__ import annotations

import io
import math
import struct
import sys
import urllib.parse
import wave
import zipfile
import zlib
from pathlib import Path


def png(width: int = 64, height: int = 48, square: tuple = (220, 30, 30)) -> bytes:
    """A small picture: a red (``square``) square on a blue field with a yellow stripe (easy to
    find on a screenshot)."""
    rows = []
    for y in range(height):
        row = bytearray([0])
        for x in range(width):
            if width // 4 <= x < width * 3 // 4 and height // 4 <= y < height * 3 // 4:
                rgb = square
            elif y >= height * 5 // 6:
                rgb = (240, 210, 20)
            else:
                rgb = (30, 60, 200)
            row += bytes(rgb)
        rows.append(bytes(row))

    return _png(width, height, b"".join(rows))


def _png(width: int, height: int, raw: bytes, level: int = -1) -> bytes:
    """A PNG of ``raw`` rows (each a filter byte, then RGB)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, level)) + chunk(b"IEND", b""))


def wav(seconds: float = 0.3, freq: float = 660.0, rate: int = 22050) -> bytes:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * freq * i / rate)))
                               for i in range(int(seconds * rate))))
    return buf.getvalue()


IMAGE = "Снимок 1.png"
AUDIO = "звук.wav"
VIDEO = "ролик.mp4"

V5 = f"""<?xml version="1.0" encoding="utf-8"?>
<package name="Тестовый пакет" version="5" id="test-v5" date="01.01.2025" difficulty="5"
         xmlns="https://github.com/VladimirKhil/SI/blob/master/assets/siq_5.xsd">
  <info><authors><author>Тесты</author></authors></info>
  <rounds>
    <round name="Первый раунд">
      <themes>
        <theme name="Картины">
          <questions>
            <question price="100">
              <params><param name="question" type="content">
                <item>Что изображено на картинке?</item>
                <item type="image" isRef="True">{IMAGE}</item>
              </param></params>
              <right><answer>Красный квадрат</answer></right>
            </question>
            <question price="200" type="noRisk">
              <params><param name="question" type="content"><item>Вопрос без риска: столица Франции?</item></param></params>
              <right><answer>Париж</answer></right>
            </question>
          </questions>
        </theme>
        <theme name="Звуки">
          <questions>
            <question price="100">
              <params><param name="question" type="content">
                <item placement="replic">Послушайте звук.</item>
                <item type="audio" isRef="True" placement="background">{AUDIO}</item>
              </param></params>
              <right><answer>Ля</answer></right>
            </question>
            <question price="200" type="secret">
              <params>
                <param name="question" type="content"><item>Кот в мешке: сколько лап у кошки?</item></param>
                <param name="theme">Животные</param>
                <param name="price" type="numberSet"><numberSet minimum="300" maximum="300" step="0"/></param>
              </params>
              <right><answer>Четыре</answer></right>
            </question>
          </questions>
        </theme>
        <theme name="Разное">
          <questions>
            <question price="100" type="stake">
              <params><param name="question" type="content">
                <item>Аукцион: назовите фильм по кадру.</item>
                <item type="video" isRef="True">{VIDEO}</item>
              </param></params>
              <right><answer>Броненосец «Потёмкин»</answer></right>
            </question>
            <question price="200" type="forAll">
              <params><param name="question" type="content"><item>Вопрос для всех: 2 + 2?</item></param>
              <param name="answer" type="content"><item>Четыре, конечно</item></param></params>
              <right><answer>4</answer></right>
            </question>
          </questions>
        </theme>
      </themes>
    </round>
    <round name="Финал" type="final">
      <themes>
        <theme name="История">
          <questions>
            <question price="0">
              <params><param name="question" type="content"><item>В каком году основан Санкт-Петербург?</item></param></params>
              <right><answer>1703</answer></right>
            </question>
          </questions>
        </theme>
        <theme name="География">
          <questions>
            <question>
              <params><param name="question" type="content"><item>Самая длинная река Европы?</item></param></params>
              <right><answer>Волга</answer></right>
            </question>
          </questions>
        </theme>
      </themes>
    </round>
  </rounds>
</package>
"""

V4 = f"""<?xml version="1.0" encoding="utf-8"?>
<package name="Пакет четвёртой версии" version="4" id="test-v4" xmlns="http://vladimirkhil.com/ygpackage3.0.xsd">
  <rounds>
    <round name="Раунд 1">
      <themes>
        <theme name="Картины">
          <questions>
            <question price="100">
              <scenario><atom>Что изображено?</atom><atom type="image">@{IMAGE}</atom>
                <atom type="marker"/><atom>Это красный квадрат</atom></scenario>
              <right><answer>Красный квадрат</answer></right>
            </question>
            <question price="200">
              <type name="sponsored"/>
              <scenario><atom>Вопрос от спонсора: столица Франции?</atom></scenario>
              <right><answer>Париж</answer></right>
            </question>
          </questions>
        </theme>
        <theme name="Звуки">
          <questions>
            <question price="100">
              <scenario><atom type="say">Послушайте звук.</atom><atom type="voice">@{AUDIO}</atom></scenario>
              <right><answer>Ля</answer></right>
            </question>
            <question price="200">
              <type name="cat"><param name="theme">Животные</param><param name="cost">300</param></type>
              <scenario><atom>Кот в мешке: сколько лап у кошки?</atom></scenario>
              <right><answer>Четыре</answer></right>
            </question>
            <question price="300">
              <type name="bagcat"><param name="theme">Птицы</param><param name="cost">0</param></type>
              <scenario><atom>Сколько крыльев у птицы?</atom></scenario>
              <right><answer>Два</answer></right>
            </question>
          </questions>
        </theme>
        <theme name="Разное">
          <questions>
            <question price="100">
              <type name="auction"/>
              <scenario><atom>Аукцион: назовите фильм.</atom><atom type="video">@{VIDEO}</atom></scenario>
              <right><answer>Броненосец «Потёмкин»</answer></right>
            </question>
            <question price="-1"/>
          </questions>
        </theme>
      </themes>
    </round>
    <round name="Финал" type="final">
      <themes>
        <theme name="История">
          <questions>
            <question price="0">
              <scenario><atom>В каком году основан Санкт-Петербург?</atom></scenario>
              <right><answer>1703</answer></right>
            </question>
          </questions>
        </theme>
      </themes>
    </round>
  </rounds>
</package>
"""


GREEN, MAGENTA, CYAN, ORANGE = (30, 200, 60), (200, 40, 200), (40, 210, 220), (250, 140, 20)
"""The squares of the content and rules packages' pictures: each picture is told apart on a screenshot."""


def _q5(price, text, answer, qtype="", params="", image="", answer_content=()):
    """A v5 question; ``image``: a picture after its text; ``answer_content``: (text, picture)
    shown after the ruling."""
    t = f' type="{qtype}"' if qtype else ""
    pic = f'<item type="image" isRef="True">{image}</item>' if image else ""
    if answer_content:
        params += (f'<param name="answer" type="content"><item>{answer_content[0]}</item>'
                   f'<item type="image" isRef="True">{answer_content[1]}</item></param>')
    return (f'<question price="{price}"{t}><params><param name="question" type="content"><item>{text}</item>'
            f'{pic}</param>{params}</params><right><answer>{answer}</answer></right></question>')


def _price5(lo, hi, step=0):
    return (f'<param name="price" type="numberSet"><numberSet minimum="{lo}" maximum="{hi}" step="{step}"/>'
            f'</param>')


RULES = f"""<?xml version="1.0" encoding="utf-8"?>
<package name="Правила SIGame" version="5" xmlns="https://github.com/VladimirKhil/SI/blob/master/assets/siq_5.xsd">
  <rounds>
    <round name="Раунд правил">
      <themes>
        <theme name="Коты"><questions>
          {_q5(100, "Простой вопрос: цвет неба?", "Голубой")}
          {_q5(200, "Кот с выбором цены: сколько дней в неделе?", "Семь", "secret",
               '<param name="theme">Календарь</param>' + _price5(100, 500, 200))}
          {_q5(300, "Кот «мин или макс»: сколько месяцев в году?", "Двенадцать", "secret",
               '<param name="theme">Год</param>' + _price5(0, 0) + '<param name="selectionMode">any</param>')}
          <question price="-1"/>
          {_q5(500, "Кот с известной ценой: сколько ног у паука?", "Восемь", "secretPublicPrice",
               '<param name="theme">Пауки</param>' + _price5(400, 400))}
        </questions></theme>
        <theme name="Особые"><questions>
          {_q5(100, "Без риска: сколько будет 3 × 3?", "Девять", "noRisk",
               '<param name="answerDuration">12</param>', answer_content=("Три раза по три", "девять.png"))}
          {_q5(200, "", "", "secretNoQuestion", '<param name="theme">Подарок</param>' + _price5(250, 250),
               image="подарок.png")}
          {_q5(300, "Аукцион: столица Италии?", "Рим", "stake", image="рим.png")}
          {_q5(400, "Для всех: сколько цветов у радуги?", "Семь", "forAll")}
          {_q5(500, "Ставки всех: самая высокая гора?", "Эверест", "stakeAll")}
        </questions></theme>
      </themes>
    </round>
    <round name="Финал" type="final">
      <themes>
        <theme name="Реки"><questions>{_q5(0, "Самая длинная река Африки?", "Нил")}</questions></theme>
        <theme name="Горы"><questions>{_q5(0, "Самая высокая гора Европы?", "Эльбрус")}</questions></theme>
        <theme name="Моря"><questions>{_q5(0, "Самое солёное море?", "Мёртвое")}</questions></theme>
      </themes>
    </round>
  </rounds>
</package>
"""
"""The rules package: every question type SIGame plays (tests/test_pack_rules.py)."""

RULES_MEDIA = {f"Images/{urllib.parse.quote(name)}": png(160, 120, colour) for name, colour in (
    ("рим.png", GREEN), ("девять.png", ORANGE), ("подарок.png", MAGENTA))}
"""The rules package's pictures: the auction's (green, hidden until the stake), «без риска»'s
answer content (orange), the picture of a cat with no question (magenta, never shown)."""

RULES_V4 = """<?xml version="1.0" encoding="utf-8"?>
<package name="Правила SIGame v4" version="4">
  <rounds>
    <round name="Раунд правил">
      <themes>
        <theme name="Коты"><questions>
          <question price="100"><scenario><atom>Простой вопрос: цвет неба?</atom></scenario>
            <right><answer>Голубой</answer></right></question>
          <question price="200"><type name="bagcat"><param name="theme">Календарь</param>
            <param name="cost">[100;500]/200</param><param name="self">false</param><param name="knows">after</param></type>
            <scenario><atom>Кот с выбором цены: сколько дней в неделе?</atom></scenario>
            <right><answer>Семь</answer></right></question>
          <question price="300"><type name="bagcat"><param name="theme">Год</param><param name="cost">0</param>
            <param name="self">true</param></type>
            <scenario><atom>Кот «мин или макс»: сколько месяцев в году?</atom></scenario>
            <right><answer>Двенадцать</answer></right></question>
          <question price="-1"/>
          <question price="500"><type name="bagcat"><param name="theme">Пауки</param><param name="cost">400</param>
            <param name="knows">before</param></type>
            <scenario><atom>Кот с известной ценой: сколько ног у паука?</atom></scenario>
            <right><answer>Восемь</answer></right></question>
        </questions></theme>
        <theme name="Особые"><questions>
          <question price="200"><type name="bagcat"><param name="theme">Подарок</param><param name="cost">250</param>
            <param name="knows">never</param></type><scenario/><right><answer/></right></question>
        </questions></theme>
      </themes>
    </round>
  </rounds>
</package>
"""
"""The same cats in version 4's words (``bagcat`` with ``cost``, ``self``, ``knows``)."""


CONTENT = """<?xml version="1.0" encoding="utf-8"?>
<package name="Пакет с содержимым" version="5" xmlns="https://github.com/VladimirKhil/SI/blob/master/assets/siq_5.xsd">
  <rounds>
    <round name="Содержимое">
      <themes>
        <theme name="Годы">
          <info><comments>Назовите год события</comments></info>
          <questions>
            <question price="100">
              <info><comments>Дата по новому стилю</comments></info>
              <params>
                <param name="question" type="content"><item>1990</item></param>
                <param name="answer" type="content"><item>Так и было</item>
                  <item type="image" isRef="True">ответ.png</item></param>
              </params>
              <right><answer>Объединение Германии</answer></right>
            </question>
            <question price="200">
              <params>
                <param name="question" type="content">
                  <item>Три картинки подряд: что их объединяет?</item>
                  <item type="image" isRef="True">первая.png</item>
                  <item type="image" isRef="True">вторая.png</item>
                  <item type="image" isRef="True">третья.png</item>
                </param>
              </params>
              <right><answer>Квадраты</answer></right>
            </question>
          </questions>
        </theme>
        <theme name="Выбор">
          <questions>
            <question price="100">
              <params>
                <param name="question" type="content"><item>Какая планета самая большая?</item></param>
                <param name="answerType">select</param>
                <param name="answerOptions" type="group">
                  <param name="A" type="content"><item>Марс</item></param>
                  <param name="B" type="content"><item>Юпитер</item></param>
                  <param name="C" type="content"><item>Венера</item></param>
                </param>
              </params>
              <right><answer>B</answer></right>
            </question>
            <question price="200">
              <params>
                <param name="question" type="content">
                  <item>Посмотрите ролик и страницу</item>
                  <item type="video" isRef="True">кадр.webm</item>
                  <item type="html" isRef="True">страница.html</item>
                </param>
              </params>
              <right><answer>Ролик</answer></right>
            </question>
          </questions>
        </theme>
      </themes>
    </round>
  </rounds>
</package>
"""

CONTENT_V4 = """<?xml version="1.0" encoding="utf-8"?>
<package name="Содержимое v4" version="4" xmlns="http://vladimirkhil.com/ygpackage3.0.xsd">
  <rounds>
    <round name="Раунд">
      <themes>
        <theme name="Картинки">
          <info><comments>Ответ — цвет квадрата</comments></info>
          <questions>
            <question price="100">
              <scenario><atom>Какого цвета квадрат?</atom><atom type="image">@первая.png</atom>
                <atom type="image">@вторая.png</atom>
                <atom type="marker"/><atom>Зелёный, потом пурпурный</atom><atom type="image">@ответ.png</atom></scenario>
              <right><answer>Зелёный</answer></right>
            </question>
          </questions>
        </theme>
      </themes>
    </round>
  </rounds>
</package>
"""

TIMED = """<?xml version="1.0" encoding="utf-8"?>
<package name="Время картинок" version="5" xmlns="https://github.com/VladimirKhil/SI/blob/master/assets/siq_5.xsd">
  <rounds>
    <round name="Раунд">
      <themes>
        <theme name="Время">
          <questions>
            <question price="100">
              <params>
                <param name="question" type="content">
                  <item>Картинки со своим временем</item>
                  <item type="image" isRef="True" duration="00:00:02">первая.png</item>
                  <item type="image" isRef="True" duration="00:00:08">вторая.png</item>
                  <item type="image" isRef="True">третья.png</item>
                </param>
                <param name="answer" type="content"><item type="image" isRef="True" duration="00:00:09">ответ.png</item></param>
              </params>
              <right><answer>Три</answer></right>
            </question>
          </questions>
        </theme>
      </themes>
    </round>
  </rounds>
</package>
"""
"""Pictures with the package's own times (v5 ``duration``): 2 s, 8 s, then the config's."""

TIMED_V4 = """<?xml version="1.0" encoding="utf-8"?>
<package name="Время картинок v4" version="4" xmlns="http://vladimirkhil.com/ygpackage3.0.xsd">
  <rounds>
    <round name="Раунд">
      <themes>
        <theme name="Время">
          <questions>
            <question price="100">
              <scenario><atom>Две картинки</atom><atom type="image" time="3">@первая.png</atom>
                <atom type="image">@вторая.png</atom></scenario>
              <right><answer>Две</answer></right>
            </question>
          </questions>
        </theme>
      </themes>
    </round>
  </rounds>
</package>
"""

SOUND_TONES = {"низкий.wav": (0.25, 440.0), "высокий.wav": (0.25, 880.0), "долгий.wav": (3.0, 330.0),
               "ответ.wav": (0.25, 660.0)}
"""The sounds of ``sounds.siq``: name -> (seconds, pitch in Hz)."""

SOUNDS = """<?xml version="1.0" encoding="utf-8"?>
<package name="Звуки подряд" version="5" xmlns="https://github.com/VladimirKhil/SI/blob/master/assets/siq_5.xsd">
  <rounds>
    <round name="Раунд">
      <themes>
        <theme name="Мелодии">
          <questions>
            <question price="100">
              <params>
                <param name="question" type="content">
                  <item>Два звука подряд</item>
                  <item type="audio" isRef="True">низкий.wav</item>
                  <item type="audio" isRef="True">высокий.wav</item>
                </param>
              </params>
              <right><answer>Октава</answer></right>
            </question>
            <question price="200">
              <params>
                <param name="question" type="content">
                  <item>Долгий звук, но только секунда</item>
                  <item type="audio" isRef="True" duration="00:00:01">долгий.wav</item>
                  <item type="audio" isRef="True">высокий.wav</item>
                </param>
                <param name="answer" type="content"><item type="audio" isRef="True">ответ.wav</item></param>
              </params>
              <right><answer>Секунда</answer></right>
            </question>
          </questions>
        </theme>
      </themes>
    </round>
  </rounds>
</package>
"""

SOUNDS_V4 = """<?xml version="1.0" encoding="utf-8"?>
<package name="Звуки подряд v4" version="4" xmlns="http://vladimirkhil.com/ygpackage3.0.xsd">
  <rounds>
    <round name="Раунд">
      <themes>
        <theme name="Мелодии">
          <questions>
            <question price="100">
              <scenario><atom>Два звука подряд</atom><atom type="voice">@низкий.wav</atom>
                <atom type="voice">@высокий.wav</atom></scenario>
              <right><answer>Октава</answer></right>
            </question>
            <question price="200">
              <scenario><atom>Долгий звук, но только секунда</atom><atom type="voice" time="1">@долгий.wav</atom>
                <atom type="voice">@высокий.wav</atom></scenario>
              <right><answer>Секунда</answer></right>
            </question>
          </questions>
        </theme>
      </themes>
    </round>
  </rounds>
</package>
"""

HTML_PAGE = "<!doctype html><html><body style='background:#103'><h1 id='own'>Страница из пакета</h1></body></html>"


def webm() -> bytes:
    """A tiny real video is not written by hand; the browser test checks the player, not frames."""
    return b"\x1aE\xdf\xa3" + b"\x00" * 60


def content_media(z: zipfile.ZipFile) -> None:
    for folder, name, data in (("Images", "первая.png", png(160, 120, GREEN)),
                               ("Images", "вторая.png", png(160, 120, MAGENTA)),
                               ("Images", "третья.png", png(160, 120, CYAN)),
                               ("Images", "ответ.png", png(160, 120, ORANGE)),
                               ("Video", "кадр.webm", webm()),
                               ("Html", "страница.html", HTML_PAGE.encode("utf-8"))):
        z.writestr(f"{folder}/{urllib.parse.quote(name)}", data)


def _media(z: zipfile.ZipFile, encoded: bool) -> None:
    for folder, name, data in (("Images", IMAGE, png()), ("Audio", AUDIO, wav()), ("Video", VIDEO, b"\x00" * 64)):
        stored = urllib.parse.quote(name) if encoded else name
        z.writestr(f"{folder}/{stored}", data)


def _zip(path: Path, files: dict) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)


def _patch_size(path: Path, member: str, size: int) -> None:
    """Make the archive lie about ``member``'s unpacked size (local header and central directory)."""
    raw = bytearray(path.read_bytes())
    name = member.encode()
    i = raw.find(b"PK\x03\x04" + b"")
    while i != -1:
        n, extra = struct.unpack_from("<HH", raw, i + 26)
        if raw[i + 30:i + 30 + n] == name:
            struct.pack_into("<I", raw, i + 22, size)
        i = raw.find(b"PK\x03\x04", i + 4)
    i = raw.find(b"PK\x01\x02")
    while i != -1:
        n = struct.unpack_from("<H", raw, i + 28)[0]
        if raw[i + 46:i + 46 + n] == name:
            struct.pack_into("<I", raw, i + 24, size)
        i = raw.find(b"PK\x01\x02", i + 4)
    path.write_bytes(bytes(raw))


def make(out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    made = {}
    p = made["v5"] = out / "v5.siq"
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("content.xml", V5.encode("utf-8"))
        _media(z, encoded=True)
    p = made["v4"] = out / "v4.siq"
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("content.xml", b"\xef\xbb\xbf" + V4.encode("utf-8"))
        _media(z, encoded=False)

    made["rules"] = out / "rules.siq"
    _zip(made["rules"], {"content.xml": RULES.encode("utf-8"), **RULES_MEDIA})
    made["rules_v4"] = out / "rules_v4.siq"
    _zip(made["rules_v4"], {"content.xml": RULES_V4.encode("utf-8")})
    p = made["content"] = out / "content.siq"
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("content.xml", CONTENT.encode("utf-8"))
        content_media(z)
    p = made["content4"] = out / "content4.siq"
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("content.xml", CONTENT_V4.encode("utf-8"))
        content_media(z)
    for key, xml in (("timed", TIMED), ("timed4", TIMED_V4)):
        with zipfile.ZipFile(out / f"{key}.siq", "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("content.xml", xml.encode("utf-8"))
            content_media(z)
        made[key] = out / f"{key}.siq"
    for key, xml in (("sounds", SOUNDS), ("sounds4", SOUNDS_V4)):
        with zipfile.ZipFile(out / f"{key}.siq", "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("content.xml", xml.encode("utf-8"))
            for name, (seconds, freq) in SOUND_TONES.items():
                z.writestr(f"Audio/{urllib.parse.quote(name)}", wav(seconds, freq))
        made[key] = out / f"{key}.siq"

    # hostile and broken packages
    p = made["bomb"] = out / "bomb.siq"
    _zip(p, {"content.xml": V5.encode() + b" " * (64 * 1024 * 1024)})
    _patch_size(p, "content.xml", 4096)
    p = made["huge"] = out / "huge.siq"
    _zip(p, {"content.xml": V5.encode(), "Video/big.mp4": b"\x00" * 1024})
    _patch_size(p, "Video/big.mp4", 3 * 1024 ** 3)
    made["traversal"] = out / "traversal.siq"
    _zip(made["traversal"], {"content.xml": V5.encode(), "../../evil.png": png()})
    made["entity"] = out / "entity.siq"
    _zip(made["entity"], {"content.xml": V5.replace(
        '<?xml version="1.0" encoding="utf-8"?>',
        '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE package [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>')
        .replace("Тестовый пакет", "&xxe;").encode()})
    made["laughs"] = out / "laughs.siq"
    _zip(made["laughs"], {"content.xml": (
        '<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
        + "".join(f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">' for i in range(1, 10))
        + ']>\n<package name="&lol9;" version="5"><rounds/></package>').encode()})
    made["notzip"] = out / "notzip.siq"
    made["notzip"].write_text("это не архив\n", encoding="utf-8")
    made["nocontent"] = out / "nocontent.siq"
    _zip(made["nocontent"], {"Images/a.png": png()})
    made["badxml"] = out / "badxml.siq"
    _zip(made["badxml"], {"content.xml": b"<package name='x' version='5'><rounds><round></package>"})
    return made


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for key, path in make(Path(sys.argv[1])).items():
        print(f"{key}: {path}")


def big(path: Path, xml_mb: float, media_files: int = 0, media_kb: int = 64, questions_per_theme: int = 5,
        themes_per_round: int = 6) -> Path:
    """A large, plausible version-5 package written here: rounds of themes of questions whose
    texts fill ``content.xml`` to about ``xml_mb`` MB, and ``media_files`` pictures of
    ``media_kb`` KB each (random bytes after a PNG signature: they do not compress), each
    referenced by a question."""
    import os
    text = ("Вопрос о реках, горах и городах: назовите то, что здесь описано, подробно и точно. " * 6)
    per_q = len(text.encode("utf-8")) + 300
    n_questions = max(1, int(xml_mb * 1024 * 1024 / per_q))
    per_round = questions_per_theme * themes_per_round
    rounds = []
    q = 0
    while q < n_questions:
        themes = []
        for t in range(themes_per_round):
            qs = []
            for c in range(questions_per_theme):
                media = ""
                if q < media_files:
                    media = f'<item type="image" isRef="True">p{q:05d}.png</item>'
                qs.append(f'<question price="{(c + 1) * 100}"><params><param name="question" type="content">'
                          f'<item>{text} №{q}</item>{media}</param></params>'
                          f'<right><answer>Ответ {q}</answer></right></question>')
                q += 1
            themes.append(f'<theme name="Тема {len(rounds) + 1}.{t + 1}"><questions>{"".join(qs)}</questions></theme>')
        rounds.append(f'<round name="Раунд {len(rounds) + 1}"><themes>{"".join(themes)}</themes></round>')
        if q >= n_questions or len(rounds) * per_round >= n_questions:
            break
    xml = (f'<?xml version="1.0" encoding="utf-8"?><package name="Большой пакет" version="5" '
           f'xmlns="https://github.com/VladimirKhil/SI/blob/master/assets/siq_5.xsd">'
           f'<rounds>{"".join(rounds)}</rounds></package>')
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("content.xml", xml.encode("utf-8"))
        for i in range(media_files):
            z.writestr(zipfile.ZipInfo(f"Images/p{i:05d}.png"), b"\x89PNG\r\n\x1a\n" + os.urandom(media_kb * 1024))
    return path


def noisy_png(width: int, height: int, seed: int) -> bytes:
    """A real picture of random pixels (it does not compress: ``width*height*3`` bytes)."""
    import random
    rnd = random.Random(seed)
    raw = b"".join(b"\x00" + rnd.randbytes(width * 3) for _ in range(height))

    return _png(width, height, raw, 1)


def noisy_pictures(path: Path, pictures: int = 500, width: int = 400, height: int = 174) -> Path:
    """A package of ``pictures`` questions, each with its own real picture of about 200 KB
    (500 of them: about 100 MB), in rounds of 6 themes × 5 prices (the benchmark's package)."""
    per_round = 30
    rounds = []
    for r in range((pictures + per_round - 1) // per_round):
        themes = []
        for t in range(6):
            qs = []
            for c in range(5):
                i = r * per_round + t * 5 + c
                if i >= pictures:
                    break
                qs.append(f'<question price="{(c + 1) * 100}"><params><param name="question" type="content">'
                          f'<item>Что на картинке №{i}?</item><item type="image" isRef="True">n{i:04d}.png</item>'
                          f'</param></params><right><answer>Шум {i}</answer></right></question>')
            if qs:
                themes.append(f'<theme name="Шум {r + 1}.{t + 1}"><questions>{"".join(qs)}</questions></theme>')
        rounds.append(f'<round name="Раунд {r + 1}"><themes>{"".join(themes)}</themes></round>')
    xml = (f'<?xml version="1.0" encoding="utf-8"?><package name="Много картинок" version="5">'
           f'<rounds>{"".join(rounds)}</rounds></package>')
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("content.xml", xml.encode("utf-8"))
        for i in range(pictures):
            z.writestr(f"Images/n{i:04d}.png", noisy_png(width, height, i))
    return path
