"""Who sent a festival message: per-hall keys, HMAC-SHA256, and the secrets' files.

Every hall gets a key from the organiser (``buzzer festival keys``): a key id and 32
random bytes.  A hall with a key signs every message it publishes; a board with the
organiser's key file verifies them and shows only what a hall's own key signed; a hall
answers only replay requests signed with its key (the board holds every hall's key).
This holds whatever the broker's configuration: a password of the broker, leaked or
shared, lets nobody change the table.

The signature is one more member of the message's JSON object, always the last one::

    {"v":1,"hall":"Зал 1",...,"auth":{"hall":"Зал 1","kid":"k-3f2a","mac":"<64 hex>"}}

``mac`` is HMAC-SHA256 with the hall's key over the *canonical payload*::

    kid "\\n" hall "\\n" topic "\\n" <the message's bytes without its ",\\"auth\\":{...}" member>

(the bytes exactly as published, the auth member cut off and the closing brace kept), so a
message cannot be moved to another topic, hall or game, nor changed by a single byte.

Secrets never go where others can read them: a key file (and a credentials file with the
broker's user name and password) must be readable by its owner only (mode 0600); the
environment (``BUZZER_FESTIVAL_KEY``, ``BUZZER_FESTIVAL_USERNAME`` / ``_PASSWORD``) is the
other way.  A file others can read is refused with one line.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import stat
import tomllib
from dataclasses import dataclass
from pathlib import Path

from controller.core.errors import ConfigError

ENV_KEY = "BUZZER_FESTIVAL_KEY"
"""A hall's key in the environment: ``<key id>:<64 hex digits>``."""
ENV_USERNAME = "BUZZER_FESTIVAL_USERNAME"
ENV_PASSWORD = "BUZZER_FESTIVAL_PASSWORD"
SECRET_BYTES = 32
_KID = re.compile(r"^[A-Za-z0-9_.-]{1,32}$")
_HEX = re.compile(r"^[0-9a-f]{64}$")
MARK = b',"auth":{'

# reasons a message is refused (the catalogs' ``festival.refused.<reason>``)
UNSIGNED = "unsigned"
UNKNOWN_KEY = "unknown_key"
WRONG_HALL = "wrong_hall"
BAD_MAC = "bad_mac"


@dataclass(frozen=True)
class HallKey:
    hall: str
    id: str
    secret: bytes


class Refused(ValueError):
    """A message refused for who sent it (or for its size): ``reason`` is a catalog word."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(detail or reason)
        self.reason = reason


# --------------------------------------------------------------------------
# files only their owner may read

def private_file_problem(path: Path) -> str | None:
    """Why ``path`` may not hold a secret (others may read it), or None."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        return f"{path}: cannot read: {exc.strerror}"
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        return (f"{path} is readable by other users (mode {stat.S_IMODE(mode):04o}); "
                f"chmod 600 {path}")
    return None


def _read_private(path: str | Path, key: str) -> dict:
    p = Path(path).expanduser()
    problem = private_file_problem(p)
    if problem:
        raise ConfigError(key, problem)
    try:
        return tomllib.loads(p.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(key, f"{p}: not a TOML file: {exc}") from None
    except OSError as exc:
        raise ConfigError(key, f"{p}: cannot read: {exc.strerror}") from None


def load_keys(path: str | Path, key: str = "festival.key_file") -> dict[str, HallKey]:
    """Every key of a key file (``[[key]] hall = …, id = …, secret = …``), by key id."""
    data = _read_private(path, key)
    items = data.get("key")
    if not isinstance(items, list) or not items:
        raise ConfigError(key, f"{path}: no [[key]] entries (make them with `.venv/bin/buzzer festival keys`)")
    out: dict[str, HallKey] = {}
    for i, item in enumerate(items):
        where = f"{path}: key {i + 1}"
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in ("hall", "id", "secret")):
            raise ConfigError(key, f"{where}: needs hall, id and secret (strings)")
        if not _KID.match(item["id"]) or not _HEX.match(item["secret"]):
            raise ConfigError(key, f"{where}: id is 1-32 of A-Z a-z 0-9 _ . -, secret 64 hex digits")
        if item["id"] in out:
            raise ConfigError(key, f"{where}: key id {item['id']!r} given twice")
        out[item["id"]] = HallKey(item["hall"], item["id"], bytes.fromhex(item["secret"]))
    return out


def key_from_env(hall: str, value: str) -> HallKey:
    kid, _, secret = value.strip().partition(":")
    if not _KID.match(kid) or not _HEX.match(secret):
        raise ConfigError(ENV_KEY, "expected <key id>:<64 hex digits> (the line of the hall's key file)")
    return HallKey(hall, kid, bytes.fromhex(secret))


def hall_key(fest: dict, hall: str, env=os.environ) -> HallKey | None:
    """The key this hall signs with: ``BUZZER_FESTIVAL_KEY``, else its entry in ``[festival] key_file``."""
    if env.get(ENV_KEY):
        return key_from_env(hall, env[ENV_KEY])
    if not fest.get("key_file"):
        return None
    mine = [k for k in load_keys(fest["key_file"]).values() if k.hall == hall]
    if not mine:
        raise ConfigError("festival.key_file", f"{fest['key_file']}: no key for the hall {hall!r}")
    return mine[-1]


def board_keys(fest: dict) -> dict[str, HallKey] | None:
    """The organiser's keys (every hall's), by id; None: the board verifies nothing."""
    return load_keys(fest["key_file"]) if fest.get("key_file") else None


def credentials(fest: dict, env=os.environ) -> tuple[str, str]:
    """The broker's user name and password: the environment, else ``[festival] credentials_file``
    (mode 0600), else the config's ``username`` / ``password``."""
    user, password = fest.get("username", ""), fest.get("password", "")
    if fest.get("credentials_file"):
        data = _read_private(fest["credentials_file"], "festival.credentials_file")
        user = str(data.get("username", user))
        password = str(data.get("password", password))
    user = env.get(ENV_USERNAME, user)
    password = env.get(ENV_PASSWORD, password)
    return user, password


def url_password(url: str) -> bool:
    from urllib.parse import urlsplit

    try:
        return bool(urlsplit(url).password)
    except ValueError:
        return False


SAFE = ("[festival] credentials_file (a file of mode 0600 with username and password) or the environment "
        f"({ENV_USERNAME}, {ENV_PASSWORD})")


def cli_url_problem(option: str, url: str | None) -> str | None:
    """A broker URL given on the command line with a password (every user sees it in ps): refused."""
    if url and url_password(url):
        return f"a password in the URL is visible to every user of this computer (ps); give it in {SAFE}"
    return None


def config_secret_problem(cfg: dict, path: Path) -> str | None:
    """A config file with the broker's password in it must be readable by its owner only."""
    fest = cfg.get("festival") or {}
    if not (fest.get("password") or url_password(fest.get("broker", ""))):
        return None
    problem = private_file_problem(path)
    return f"the broker's password is in {problem}, or move it to {SAFE}" if problem else None


# --------------------------------------------------------------------------
# signing and verifying

def _mac(key: HallKey, topic: str, body: bytes) -> str:
    head = f"{key.id}\n{key.hall}\n{topic}\n".encode("utf-8")
    return hmac.new(key.secret, head + body, hashlib.sha256).hexdigest()


def sign(key: HallKey, topic: str, payload: bytes) -> bytes:
    """``payload`` (a JSON object's bytes) with its auth member appended."""
    auth = json.dumps({"hall": key.hall, "kid": key.id, "mac": _mac(key, topic, payload)},
                      ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return payload[:-1] + MARK[:-1] + auth + b"}"


def split(payload: bytes) -> tuple[bytes, dict | None]:
    """``(the canonical payload, the auth member)``; ``(payload, None)`` when it has none."""
    i = payload.rfind(MARK)
    if i < 0 or not payload.endswith(b"}}"):
        return payload, None
    try:
        auth = json.loads(payload[i + len(MARK) - 1:-1])
    except (UnicodeDecodeError, ValueError, RecursionError):
        return payload, None
    if not isinstance(auth, dict) or set(auth) != {"hall", "kid", "mac"} or not all(
            isinstance(v, str) for v in auth.values()):
        return payload, None
    return payload[:i] + b"}", auth


def verify(keys: dict[str, HallKey], topic: str, hall: str, payload: bytes,
           accept_unsigned: bool = False) -> tuple[bytes, HallKey | None]:
    """The canonical payload of a message on ``topic`` (of ``hall``) and the key that signed it;
    Refused when it is unsigned (unless ``accept_unsigned`` and no key of ``keys`` is the hall's),
    signed by an unknown key, by another hall's key, or its MAC is wrong."""
    body, auth = split(payload)
    if auth is None:
        if accept_unsigned and not any(k.hall == hall for k in keys.values()):
            return payload, None
        raise Refused(UNSIGNED, "not signed")
    key = keys.get(auth["kid"])
    if key is None:
        raise Refused(UNKNOWN_KEY, f"signed with an unknown key {auth['kid'][:32]!r}")
    if key.hall != hall or auth["hall"] != hall:
        raise Refused(WRONG_HALL, f"signed with the key of {key.hall!r}, not of {hall!r}")
    if not hmac.compare_digest(_mac(key, topic, body), auth["mac"]):
        raise Refused(BAD_MAC, "the signature does not match")
    return body, key


# --------------------------------------------------------------------------
# the organiser's keys: `buzzer festival keys DIR --hall NAME ...`

def _write_private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)


def _entry(k: HallKey) -> str:
    return f'[[key]]\nhall = {json.dumps(k.hall, ensure_ascii=False)}\nid = "{k.id}"\nsecret = "{k.secret.hex()}"\n'


HEADER = ("# buzzer festival keys (docs/festival.md «Trust»). Secret: keep it readable by its owner only\n"
          "# (chmod 600); give each hall only its own file.\n")


def make_keys(folder: str | Path, halls: list[str]) -> list[Path]:
    """A key per hall: ``<folder>/board.keys`` (every key: the organisers' board) and one
    ``<folder>/<hall>.key`` per hall (its own key only), each mode 0600; existing files stay."""
    from controller.festival.link import name_problem

    for h in halls:
        problem = name_problem(h)
        if problem:
            raise ConfigError("--hall", f"{h!r}: {problem}")
    if len(set(halls)) != len(halls) or not halls:
        raise ConfigError("--hall", "give each hall once (at least one)")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    keys = [HallKey(h, f"k-{secrets.token_hex(4)}", secrets.token_bytes(SECRET_BYTES)) for h in halls]
    written = []
    board = folder / "board.keys"
    targets = [(board, keys)] + [(folder / f"{k.hall}.key", [k]) for k in keys]
    for path, _ in targets:
        if path.exists():
            raise ConfigError("festival keys", f"{path} exists already; keys are never overwritten")
    for path, entries in targets:
        _write_private(path, HEADER + "\n".join(_entry(k) for k in entries))
        written.append(path)
    return written
