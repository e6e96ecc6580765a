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
  for all; stakes of all in an ordinary round; a final of three themes; ``rules_v4.siq`` --
  the same cats in version 4 (``bagcat`` with ``cost``, ``self``, ``knows``);
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


def png(width: int = 64, height: int = 48) -> bytes:
    """A small picture: a red square on a blue field with a yellow stripe (easy to find on a screenshot)."""
    rows = []
    for y in range(height):
        row = bytearray([0])
        for x in range(width):
            if 16 <= x < 48 and 12 <= y < 36:
                rgb = (220, 30, 30)
            elif y >= 40:
                rgb = (240, 210, 20)
            else:
                rgb = (30, 60, 200)
            row += bytes(rgb)
        rows.append(bytes(row))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"".join(rows))) + chunk(b"IEND", b""))


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


def _q5(price, text, answer, qtype="", params=""):
    t = f' type="{qtype}"' if qtype else ""
    return (f'<question price="{price}"{t}><params><param name="question" type="content"><item>{text}</item>'
            f'</param>{params}</params><right><answer>{answer}</answer></right></question>')


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
               '<param name="answerDuration">12</param>')}
          {_q5(200, "", "", "secretNoQuestion", '<param name="theme">Подарок</param>' + _price5(250, 250))}
          {_q5(300, "Аукцион: столица Италии?", "Рим", "stake")}
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
    _zip(made["rules"], {"content.xml": RULES.encode("utf-8")})
    made["rules_v4"] = out / "rules_v4.siq"
    _zip(made["rules_v4"], {"content.xml": RULES_V4.encode("utf-8")})

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
