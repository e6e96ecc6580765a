"""The festival's link to the broker: URLs, topics, message formats, the ``[festival]`` config.

Topics (a public interface, documented in docs/festival.md), under ``prefix``
(default ``buzzer/festival``)::

    <prefix>/<competition>/<hall>/<game>/info       retained: the game's header (mode, config, seed)
    <prefix>/<competition>/<hall>/<game>/events     QoS 1: one journaled event per message, with its seq
    <prefix>/<competition>/<hall>/<game>/standings  retained: the latest standings and summary
    <prefix>/<competition>/<hall>/replay            a board asks the hall to re-send events
    <prefix>/<competition>/<hall>/status            retained: the hall online or not (its will)

Every payload is a UTF-8 JSON object with ``"v": 1`` and the ``hall``, ``competition``
and ``game`` of its topic; :func:`parse` checks one message and raises
:class:`BadMessage` for anything malformed or foreign.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from dataclasses import dataclass
from typing import Any, Callable
from urllib.parse import urlsplit

from controller.core.errors import ConfigError
from controller.core.schema import Key, Section, bind_address

log = logging.getLogger(__name__)

VERSION = 1
QUEUE_FULL = 15
"""paho's MQTT_ERR_QUEUE_SIZE."""
DEFAULT_PREFIX = "buzzer/festival"
KINDS = ("info", "events", "standings")
"""Per-game topics."""
MAX_PAYLOAD = 4 * 1024 * 1024
"""A message longer than this is refused unread (a standings summary is far smaller)."""
EVENT_MAX = 64 * 1024
"""An event message longer than this is refused unread (a journal record is a few hundred bytes)."""
MAX_SEQ = 10**9
NAME_MAX = 64
_BAD_NAME = re.compile(r"[/+#\x00-\x1f]")
_GAME_ID = re.compile(r"^[0-9a-f]{6,40}$")


class BadMessage(ValueError):
    """A message on a festival topic that is malformed or not ours (logged, ignored)."""


# --------------------------------------------------------------------------
# names and URLs

def name_problem(value: str) -> str | None:
    """Why ``value`` cannot be a hall or competition name (it is a topic level), or None."""
    if not value.strip():
        return "must not be empty"
    if len(value) > NAME_MAX:
        return f"at most {NAME_MAX} characters"
    if _BAD_NAME.search(value):
        return "must not contain /, +, # or control characters (it is part of an MQTT topic)"
    return None


@dataclass(frozen=True)
class Broker:
    """Where the broker is: ``mqtt://host:port`` (plain) or ``mqtts://host:port`` (TLS)."""

    host: str
    port: int
    tls: bool
    username: str = ""
    password: str = ""

    @property
    def url(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


def url_problem(url: str) -> str | None:
    try:
        parse_url(url)
    except ValueError as exc:
        return str(exc)
    return None


def parse_url(url: str, username: str = "", password: str = "") -> Broker:
    """``mqtt://host[:1883]`` or ``mqtts://host[:8883]``; ``user:password@`` in the URL
    is taken too (the config's keys win when set)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"not a broker URL ({exc}): {url!r}") from None
    if parts.scheme not in ("mqtt", "mqtts"):
        raise ValueError(f"a broker URL starts with mqtt:// or mqtts://, got {url!r}")
    if not parts.hostname:
        raise ValueError(f"no host in the broker URL {url!r}")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError(f"a broker URL is mqtt://host:port, nothing after it: {url!r}")
    tls = parts.scheme == "mqtts"
    return Broker(parts.hostname, port or (8883 if tls else 1883), tls,
                  username or (parts.username or ""), password or (parts.password or ""))


# --------------------------------------------------------------------------
# the [festival] config section

def _schedule(value: list) -> str | None:
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            return f"[{i}]: expected a table {{competition = ..., hall = ..., time = ...}}"
        unknown = sorted(set(item) - {"competition", "hall", "time"})
        if unknown:
            return f"[{i}]: unknown key {unknown[0]!r}; known: competition, hall, time"
        for k in ("competition", "hall"):
            if not isinstance(item.get(k), str):
                return f"[{i}].{k}: expected a string"
            problem = name_problem(item[k])
            if problem:
                return f"[{i}].{k}: {problem}"
        if not isinstance(item.get("time", ""), str):
            return f"[{i}].time: expected a string such as \"14:00\""
    return None


def _optional_name(value: str) -> str | None:
    return name_problem(value) if value else None


SECTION = Section("festival", "A festival of many halls (docs/festival.md): this hall publishes its games "
                  "to an MQTT broker; `buzzer festival` shows them all.", (
    Key("broker", "str", "", "Broker URL, mqtt://host:1883 or mqtts://host:8883 (TLS); \"\": do not publish.",
        check=lambda v: url_problem(v) if v else None),
    Key("hall", "str", "", "This hall's name (a topic level: no /, + or #).", check=_optional_name),
    Key("competition", "str", "", "The competition played in this hall now (ЧГК, Эрудит-квартет ...).",
        check=_optional_name),
    Key("username", "str", "", "User name on the broker (\"\": none)."),
    Key("password", "str", "", "Password on the broker; a config file holding one must be readable by its "
        "owner only (mode 0600), else it is refused: better credentials_file or BUZZER_FESTIVAL_PASSWORD."),
    Key("credentials_file", "str", "", "A file (mode 0600) with username = \"…\" and password = \"…\" for the "
        "broker (\"\": none; BUZZER_FESTIVAL_USERNAME / BUZZER_FESTIVAL_PASSWORD in the environment win)."),
    Key("key_file", "str", "", "The festival's keys (mode 0600, made by `.venv/bin/buzzer festival keys`): a hall signs "
        "with its own, the board verifies every hall's (\"\": none; a hall may take BUZZER_FESTIVAL_KEY)."),
    Key("accept_unsigned", "bool", False, "A board with a key_file: also show halls that have no key in it "
        "(unsigned); a hall with a key must always sign."),
    Key("board_game_mb", "float", 16.0, "A board keeps at most this many MiB of one game's messages (its "
        "header, standings, events waiting past a hole); more is refused and counted.",
        minimum=0.1, maximum=4096.0),
    Key("board_total_mb", "float", 128.0, "A board keeps at most this many MiB of messages of all games; more "
        "is refused and counted.", minimum=1.0, maximum=65536.0),
    Key("replay_max_events", "int", 2000, "A hall re-sends at most this many events for one replay request.",
        minimum=1, maximum=100000),
    Key("replay_window_events", "int", 5000, "A hall re-sends at most this many events per minute for all "
        "replay requests together.", minimum=1, maximum=1000000),
    Key("replay_requests_per_minute", "int", 120, "A hall answers at most this many replay requests per minute "
        "from one board.", minimum=1, maximum=10000),
    Key("prefix", "str", DEFAULT_PREFIX, "First levels of every festival topic.",
        check=lambda v: None if v and not re.search(r"[+#\x00]", v) and not v.startswith("/")
        and not v.endswith("/") else "a topic prefix such as buzzer/festival (no +, #, leading or trailing /)"),
    Key("ca_file", "str", "", "CA certificate file for mqtts:// (\"\": the system's certificates)."),
    Key("standings_interval_ms", "float", 200.0, "At most one standings message per this many milliseconds "
        "(the last standings are always sent).", minimum=0.0, maximum=60000.0),
    Key("schedule", "list", [], "The board's schedule: a list of {competition, hall, time} tables; the "
        "board shows each scheduled game, started or not.", check=_schedule),
    Key("web_port", "int", 8090, "`buzzer festival` serves the board as a read-only web page on this TCP port "
        "(0: no page; the [web] section's limits apply).", minimum=0, maximum=65535),
    Key("web_bind", "str", "127.0.0.1", "Address the board's page listens on: 127.0.0.1 (this computer "
        "only) or 0.0.0.0 (every network, e.g. the organisers' Wi-Fi).", check=bind_address),
))


def festival_cross_check(cfg: dict, hall: bool = False) -> None:
    """A hall's names: with ``[festival] broker``, a config naming the hall or the competition
    names both (the levels of its topics).  A config naming neither is a board's (``buzzer
    festival -c``: the broker, its credentials, the schedule; docs/festival.md); ``hall``
    (``buzzer run``, which publishes the game) asks for both."""
    f = cfg.get("festival")
    if f and f["broker"] and (hall or f["hall"] or f["competition"]):
        for key in ("hall", "competition"):
            if not f[key]:
                raise ConfigError(f"festival.{key}", "needed for this hall to publish its game "
                                  "(festival.broker is set); a board's config needs none")


# --------------------------------------------------------------------------
# topics and messages

def topic(prefix: str, competition: str, hall: str, *rest: str) -> str:
    return "/".join((prefix, competition, hall) + rest)


def split_topic(prefix: str, name: str) -> tuple[str, str, str | None, str]:
    """``(competition, hall, game or None, kind)`` of a festival topic; BadMessage if foreign."""
    if not name.startswith(prefix + "/"):
        raise BadMessage(f"topic {name[:80]!r} is not under {prefix}/")
    levels = name[len(prefix) + 1:].split("/")
    if len(levels) == 3 and levels[2] in ("replay", "status"):
        competition, hall, kind = levels
        game = None
    elif len(levels) == 4 and levels[3] in KINDS:
        competition, hall, game, kind = levels
        if not _GAME_ID.match(game):
            raise BadMessage(f"bad game id in topic {name[:80]!r}")
    else:
        raise BadMessage(f"unknown festival topic {name[:80]!r}")
    for value in (competition, hall):
        if name_problem(value):
            raise BadMessage(f"bad name in topic {name[:80]!r}")
    return competition, hall, game, kind


def encode(payload: dict, large: bool = False) -> bytes:
    """A message's payload.  ``large`` (a summary, a config): encoded piece by piece in
    Python, so the GIL is handed over to the game loop meanwhile (the C encoder holds it
    for the whole object: milliseconds for a long game's summary)."""
    obj = {"v": VERSION, **payload}
    if large:
        encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
        return "".join(encoder.iterencode(obj)).encode("utf-8")
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _int(obj: dict, key: str, low: int = 0, high: int = MAX_SEQ) -> int:
    value = obj.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise BadMessage(f"{key!r} must be a whole number {low}..{high}")
    return value


def parse(prefix: str, name: str, payload: bytes) -> tuple[str, str, str | None, str, dict]:
    """Check one message: ``(competition, hall, game, kind, body)`` or BadMessage."""
    competition, hall, game, kind = split_topic(prefix, name)
    if len(payload) > MAX_PAYLOAD:
        raise BadMessage("message too long")
    if kind == "status" and not payload:
        return competition, hall, game, kind, {"online": False}
    try:
        body = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise BadMessage(f"not UTF-8 JSON: {exc}") from None
    if not isinstance(body, dict):
        raise BadMessage("not a JSON object")
    if body.get("v") != VERSION:
        raise BadMessage(f"unknown version {body.get('v')!r}")
    if body.get("hall") != hall or body.get("competition") != competition:
        raise BadMessage("hall or competition differ from the topic's")
    if game is not None and body.get("game") != game:
        raise BadMessage("game differs from the topic's")
    if kind == "events":
        _int(body, "seq", 1)
        if not isinstance(body.get("event"), dict):
            raise BadMessage("'event' must be an object")
    elif kind == "standings":
        _int(body, "seq", 0)
        if not isinstance(body.get("finished"), bool):
            raise BadMessage("'finished' must be true or false")
        if not isinstance(body.get("standings"), list) or not all(isinstance(r, dict) for r in body["standings"]):
            raise BadMessage("'standings' must be a list of objects")
        if not isinstance(body.get("summary"), dict) or not isinstance(body.get("mode"), str):
            raise BadMessage("'summary' must be an object and 'mode' a string")
        if not isinstance(body.get("view", {}), dict):
            raise BadMessage("'view' must be an object")
        if "table" in body:   # (a hall older than the table sends none: the board reads its standings)
            body["table"] = checked_table(body["table"])
    elif kind == "info":
        if not isinstance(body.get("config"), dict) or not isinstance(body.get("mode"), str):
            raise BadMessage("'config' must be an object and 'mode' a string")
        _int(body, "seed", 0, 2**63)
    elif kind == "replay":
        if not isinstance(body.get("game"), str) or not _GAME_ID.match(body["game"]):
            raise BadMessage("'game' must be a game id")
        _int(body, "from", 1)
        _int(body, "to", 1)
    elif kind == "status":
        if not isinstance(body.get("online"), bool):
            raise BadMessage("'online' must be true or false")
    return competition, hall, game, kind, body


# --------------------------------------------------------------------------
# what a game's standings are, for every mode

def standings_of(summary: dict) -> list:
    """The standings as ``buzzer simulate`` prints them: ``summary["standings"]``; a game
    without a standings list («Мафия») is ranked by its table, ``summary["seats"]``."""
    if isinstance(summary.get("standings"), list):
        return summary["standings"]
    return list(summary.get("seats") or [])


TABLE_ROWS = 200
"""A published table has at most this many rows (a festival hall seats far fewer teams)."""
TABLE_TAGS = 8
"""Tags one row of a published table has at most."""
TABLE_TEXT = 100
"""A row's name, or a tag's text, is at most this many characters."""
TABLE_SHORT = 32
"""A row's place or points as text («1–2», «3,5»), a tag's key or tone: at most this many characters."""


def table_of(model: Any, render: Callable[[Any], str]) -> dict:
    """The hall's table, game-neutral, from its screen model (:class:`controller.core.screen.Screen`):
    ``{"numbered", "rows": [{"place", "name", "points", "tags": [{"key", "tone", "text"}]}]}``.
    The rows are the model's standings when it keeps any (its places, shared ones as their
    range «1–2»), else its cards (a table of numbered seats: the seat's number as its place,
    no points); a row's tags are its card's, each with its catalog key, its tone and its
    text in the hall's language (``render`` turns a :class:`~controller.core.screen.Words` into
    text).  What a board draws, whatever the game."""
    from controller.core.screen import Words

    cards = model.cards.items

    def tags(card) -> list[dict]:
        return [{"key": tag.key, "tone": tag.tone, "text": render(Words(tag.key))}
                for tag in (card.tags if card is not None else ())][:TABLE_TAGS]

    def plain(value: Any) -> Any:
        return value if value is None or isinstance(value, (str, int, float)) else str(value)

    rows: list[dict] = []
    if model.standings.rows:
        by_index = {card.index: card for card in cards}
        for row in model.standings.rows:
            card = by_index.get(row.index) if row.index is not None else None
            rows.append({"place": plain(row.shared or row.place), "name": str(row.name),
                         "points": plain(row.points), "tags": tags(card)})
    else:
        for card in cards:
            place = card.number if model.cards.numbered else card.place
            rows.append({"place": plain(place), "name": str(card.name),
                         "points": None if model.cards.numbered else plain(card.score), "tags": tags(card)})
    return {"numbered": bool(model.cards.numbered), "rows": rows[:TABLE_ROWS]}


def table_of_state(state: Any, lang: str) -> dict | None:
    """A game's table (:func:`table_of`) from its state's screen model, its tags' texts in
    ``lang``; None (said in the log) when the game cannot present it."""
    from controller.games import engine
    from controller.i18n import t

    try:
        return table_of(engine.present(state, None), lambda words: words.render(t, lang))
    except Exception as exc:   # a game that cannot present: its standings alone, as an older hall's
        log.warning("festival: no table: %s", exc)
        return None


def _short(value: Any, what: str) -> None:
    """A place or points: a number, a short text or nothing."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and abs(value) <= MAX_SEQ):
        return
    if isinstance(value, float) and value == value and abs(value) <= MAX_SEQ:
        return
    if isinstance(value, str) and len(value) <= TABLE_SHORT:
        return
    raise BadMessage(f"table: {what} must be a number, a text of at most {TABLE_SHORT} characters or null")


def checked_table(value: Any) -> dict:
    """A published ``table`` (:func:`table_of`) checked for plausibility: an object with a list
    of at most :data:`TABLE_ROWS` rows, each with a name (a text of at most :data:`TABLE_TEXT`
    characters), a place and points (a number, a short text or null) and at most
    :data:`TABLE_TAGS` tags (each ``key``, ``tone``, ``text``: texts); BadMessage (one line
    saying what is wrong) otherwise.  Returns only what a board draws."""
    if not isinstance(value, dict) or not isinstance(value.get("rows"), list):
        raise BadMessage("'table' must be an object with a list of 'rows'")
    if not isinstance(value.get("numbered", False), bool):
        raise BadMessage("table: 'numbered' must be true or false")
    rows = value["rows"]
    if len(rows) > TABLE_ROWS:
        raise BadMessage(f"table: {len(rows)} rows, at most {TABLE_ROWS}")
    out = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise BadMessage(f"table: row {i + 1} must be an object")
        name = row.get("name")
        if not isinstance(name, str) or len(name) > TABLE_TEXT:
            raise BadMessage(f"table: row {i + 1}: 'name' must be a text of at most {TABLE_TEXT} characters")
        _short(row.get("place"), f"row {i + 1}: 'place'")
        _short(row.get("points"), f"row {i + 1}: 'points'")
        tags = row.get("tags", [])
        if not isinstance(tags, list) or len(tags) > TABLE_TAGS:
            raise BadMessage(f"table: row {i + 1}: 'tags' must be a list of at most {TABLE_TAGS}")
        clean = []
        for tag in tags:
            if not isinstance(tag, dict):
                raise BadMessage(f"table: row {i + 1}: a tag must be an object")
            for key, most in (("key", TABLE_SHORT), ("tone", TABLE_SHORT), ("text", TABLE_TEXT)):
                if not isinstance(tag.get(key, ""), str) or len(tag.get(key, "")) > most:
                    raise BadMessage(f"table: row {i + 1}: a tag's {key!r} must be a text of at most "
                                     f"{most} characters")
            clean.append({"key": tag.get("key", ""), "tone": tag.get("tone", ""), "text": tag.get("text", "")})
        out.append({"place": row.get("place"), "name": name, "points": row.get("points"), "tags": clean})
    return {"numbered": value.get("numbered", False), "rows": out}


def finished_of(summary: dict) -> bool:
    return summary.get("stage") == "finished" or summary.get("phase") == "ended"


def headline(summary: dict) -> dict:
    """A few values for the board's line of a hall: the stage, the current question
    (its label or number, theme and nominal, its tour and number in the tour, whether it is a
    shoot-out's: whatever the game has), the leader."""
    out: dict[str, Any] = {}
    for key in ("stage", "phase", "round", "day", "winner"):
        if isinstance(summary.get(key), (str, int)) and not isinstance(summary.get(key), bool):
            out[key] = summary[key]
    questions = summary.get("questions")
    if isinstance(questions, list) and questions and isinstance(questions[-1], dict):
        q = questions[-1]
        out["question"] = {k: q[k] for k in ("label", "number", "theme", "nominal", "tour", "in_tour")
                           if isinstance(q.get(k), (str, int)) and not isinstance(q.get(k), bool)}
        if q.get("shootout") is True:
            out["question"]["shootout"] = True
    rows = standings_of(summary)
    if rows and isinstance(rows[0], dict) and isinstance(summary.get("standings"), list):
        first = rows[0]
        # the column a game ranks its final table by (Брейн-ринг: fights won), else its points
        cols = summary.get("standings_columns") if isinstance(summary.get("standings_columns"), dict) else {}
        column = cols.get("points", "points")
        out["leader"] = {"name": str(first.get("team", first.get("name", ""))),
                         "points": first.get(column, first.get("points", first.get("total")))}
    return out


# --------------------------------------------------------------------------
# the client

def client(broker: Broker, client_id: str | None = None, clean: bool = True, ca_file: str = ""):
    """A paho MQTT 3.1.1 client for ``broker`` (not yet connected)."""
    import paho.mqtt.client as mqtt

    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id or f"buzzer-{uuid.uuid4().hex[:12]}",
                    clean_session=clean, protocol=mqtt.MQTTv311)
    if broker.username:
        c.username_pw_set(broker.username, broker.password or None)
    if broker.tls:
        import ssl   # only for a TLS broker: a hall without one does not load it

        c.tls_set(ca_certs=ca_file or None, cert_reqs=ssl.CERT_REQUIRED)
    c.reconnect_delay_set(min_delay=1, max_delay=2)
    c.max_inflight_messages_set(100)
    return c


def reason_text(reason_code) -> str:
    """A connection refusal in words (wrong password, not authorised ...)."""
    text = str(getattr(reason_code, "getName", lambda: reason_code)())
    return text.lower() if text else "refused"


STATUS_WORDS = {"connected": "festival.status.connected", "unreachable": "festival.status.unreachable",
                "connection lost": "festival.status.lost", "no answer": "festival.status.no_answer",
                "refused": "festival.status.refused"}
"""The broker link's states as the publisher reports them (``URL: word``) -> catalog keys."""


def status_words(detail: str, lang: str) -> str:
    """``mqtt://host:1883: unreachable`` in the host's language («…: брокер не отвечает»); a
    detail of another form (a refusal's reason, an OS error) is kept as it is."""
    from controller.i18n import t

    url, sep, word = str(detail).rpartition(": ")
    key = STATUS_WORDS.get(word)
    return f"{url}: {t(key, lang)}" if sep and key else str(detail)
