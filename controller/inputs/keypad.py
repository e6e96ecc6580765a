"""The host's USB numeric keypad, read with python-evdev.

A pygame window gets keys only while it has focus; a kiosk's projector window
may not.  :class:`Keypad` reads one input device directly from the kernel
(``/dev/input/event*``, readable by the ``input`` group), *grabs* it so that
its keys do not also type into the console, and turns key presses into host
actions through a key map.  The window's keyboard stays as the fallback.

The key map is the ``[keys]`` config section (pygame key names: ``"[+]"`` is
the keypad's plus, ``"enter"`` its Enter) translated to evdev key codes, plus
``[keypad] keymap`` entries (evdev names such as ``KEY_KP1``) that add or
override keys.  With the default config the keypad does:

====================  ============================
key                   action
====================  ============================
``+``                 question (announce the next)
``0``                 reading_done (start the countdown)
``Enter``             right
``-``                 wrong
``/``                 withdraw
``*``                 undo
``.``                 pause
``9``                 next_round
``5``                 start_clock («Время!»)
``7``                 captain (the captain's timer)
====================  ============================

Keys are read from raw key codes, so NumLock does not change them.

A reader thread opens the device (by path, or by part of its name), and when
the keypad is unplugged reports it, then keeps looking for it every
``reconnect_s`` and reports it back.  Everything goes to one ``sink(event)``,
the same the button backends use (``docs/inputs.md``): a key as
:class:`~controller.core.events.HostKey`, which the loop turns into a
:class:`~controller.core.events.Host` event on the engine clock; the keypad coming
and going as :class:`~controller.core.events.InputStatus` (``source="keypad"``).
"""

from __future__ import annotations

import errno
import os
import select
import string
import threading
from typing import Any, Callable, Iterable, Mapping

from controller.core.errors import BackendUnavailable, ConfigError
from controller.core.events import HostKey, InputEvent, InputStatus
from controller.inputs.options import KEYPAD, KEYS

try:
    import evdev
    from evdev import ecodes
except ImportError:  # pragma: no cover - non-Linux machines
    evdev = None
    ecodes = None

Sink = Callable[[InputEvent], None]

# pygame key names (as used in [keys]) -> evdev key names
_PYGAME_TO_EVDEV: dict[str, str] = {
    **{f"[{d}]": f"KEY_KP{d}" for d in string.digits},
    "[+]": "KEY_KPPLUS", "[-]": "KEY_KPMINUS", "[*]": "KEY_KPASTERISK", "[/]": "KEY_KPSLASH",
    "[.]": "KEY_KPDOT", "[=]": "KEY_KPEQUAL", "enter": "KEY_KPENTER",
    "return": "KEY_ENTER", "space": "KEY_SPACE", "backspace": "KEY_BACKSPACE", "tab": "KEY_TAB",
    "escape": "KEY_ESC", "delete": "KEY_DELETE", "insert": "KEY_INSERT", "home": "KEY_HOME",
    "end": "KEY_END", "page up": "KEY_PAGEUP", "page down": "KEY_PAGEDOWN",
    "up": "KEY_UP", "down": "KEY_DOWN", "left": "KEY_LEFT", "right": "KEY_RIGHT",
    "numlock": "KEY_NUMLOCK",
    **{c: f"KEY_{c.upper()}" for c in string.ascii_lowercase},
    **{d: f"KEY_{d}" for d in string.digits},
    **{f"f{n}": f"KEY_F{n}" for n in range(1, 13)},
}

_NOT_HOST_KEYS = {"quit"}
"""[keys] actions not taken from a keypad (a keypad has no business quitting)."""


def evdev_key_name(pygame_name: str) -> str | None:
    """The evdev key name for a ``[keys]`` key name, or None if it has none."""
    return _PYGAME_TO_EVDEV.get(pygame_name.strip().lower())


def _key_code(name: str) -> int | None:
    if ecodes is None:
        return None
    return ecodes.ecodes.get(name)


def build_keymap(keys: Mapping[str, Iterable[str]] | None = None,
                 overrides: Mapping[str, str] | None = None) -> dict[int, str]:
    """Key code -> host action, from ``[keys]`` plus ``[keypad] keymap``.

    :param keys: the ``[keys]`` section (action -> list of pygame key names)
    :param overrides: the ``[keypad] keymap`` table (evdev key name -> action);
        both default to the config defaults
    """
    if keys is None:
        keys = {k.name: k.default for k in KEYS.keys}
    if overrides is None:
        overrides = {k.name: k.default for k in KEYPAD.keys}["keymap"]
    out: dict[int, str] = {}
    for action, names in keys.items():
        if action in _NOT_HOST_KEYS:
            continue
        for name in names:
            evname = evdev_key_name(name)
            code = _key_code(evname) if evname else None
            if code is not None:
                out[code] = action
    for evname, action in (overrides or {}).items():
        if ecodes is None:
            break  # without python-evdev no keypad is read, and its key names cannot be checked
        code = _key_code(evname)
        if code is None:
            raise ConfigError(f"keypad.keymap.{evname}", "unknown evdev key name (see `evtest` "
                              "or `buzzer test-buttons` for the names your keypad sends)")
        out[code] = action
    return out


def keymap_names(keymap: Mapping[int, str]) -> dict[str, str]:
    """The key map with evdev key names instead of codes (for display)."""
    names = {}
    for code, action in sorted(keymap.items()):
        name = ecodes.KEY.get(code, str(code)) if ecodes else str(code)
        names[name if isinstance(name, str) else name[0]] = action
    return names


def key_name(code: int) -> str:
    name = ecodes.KEY.get(code, f"KEY_{code}") if ecodes else str(code)
    return name if isinstance(name, str) else name[0]


def list_keyboards() -> list[tuple[str, str]]:
    """``(path, name)`` of every input device that has keys (needs the input group)."""
    if evdev is None:
        return []
    found = []
    for path in evdev.list_devices():
        try:
            dev = evdev.InputDevice(path)
        except OSError:
            continue
        try:
            if ecodes.EV_KEY in dev.capabilities():
                found.append((path, dev.name))
        finally:
            dev.close()
    return found


def open_device(spec: str):
    """Open the input device named by ``spec``: a path, or part of its name.

    Raises :class:`LookupError` if none matches, :class:`OSError` if it
    cannot be opened.
    """
    if evdev is None:
        raise BackendUnavailable("the USB keypad needs python-evdev (Linux only): pip install evdev")
    if spec.startswith("/"):
        return evdev.InputDevice(spec)
    wanted = spec.lower()
    for path in sorted(evdev.list_devices()):
        try:
            dev = evdev.InputDevice(path)
        except OSError:
            continue
        if wanted in dev.name.lower() and ecodes.EV_KEY in dev.capabilities():
            return dev
        dev.close()
    raise LookupError(f"no input device named like {spec!r}")


class Keypad:
    """Reads a keypad in a thread and hands ``sink`` an event per mapped key.

    :param sink: ``sink(event)``, called from the reader thread with a
        :class:`~controller.core.events.HostKey` per key that maps to an action, and
        an :class:`~controller.core.events.InputStatus` when the keypad is opened
        (also after a reconnect; ``detail``: its name) or lost or cannot be
        opened (``detail``: the reason)
    :param device: path or part of the device's name (``[keypad] device``)
    :param grab: take the device exclusively (``[keypad] grab``)
    :param keymap: key code -> action, see :func:`build_keymap` (default:
        the default ``[keys]``)
    :param reconnect_s: how often to look for a missing keypad
    :param opener: opens the device from ``device`` (default
        :func:`open_device`); tests pass their own
    :param options: a ``[keypad]`` config section; when given it supplies
        device, grab, reconnect_s and the keypad keymap (over the default
        ``[keys]``; use :meth:`from_config` to honour a changed ``[keys]``)
    """

    def __init__(self, sink: Sink, device: str = "", *, grab: bool = True,
                 keymap: Mapping[int, str] | None = None, reconnect_s: float = 1.0,
                 opener: Callable[[str], Any] | None = None,
                 options: Mapping[str, Any] | None = None):
        if options is not None:
            device = options.get("device", device)
            grab = options.get("grab", grab)
            reconnect_s = options.get("reconnect_s", reconnect_s)
            if keymap is None:
                keymap = build_keymap(None, options.get("keymap"))
        self.sink = sink
        self.device = device
        self.grab = grab
        self.keymap = dict(build_keymap() if keymap is None else keymap)
        self.reconnect_s = reconnect_s
        self.opener = opener or open_device
        self.digits_wanted: Callable[[], bool] | None = None
        """While it returns true, the digit keys send ``HostKey("digit", {"digit": d})``
        instead of their actions (the loop's line-up entry: controller/app/lineup_entry.py)."""
        self.when_key: Callable[[str, str | None], None] | None = None
        """A diagnostic tap, not an input path: called with ``(key name, action or
        None)`` for every key press, mapped or not (``buzzer test-buttons``)."""
        self.connected = False
        self.name = ""
        self.problem = ""
        self._stop = threading.Event()
        self._wake_r, self._wake_w = os.pipe()
        self._thread: threading.Thread | None = None

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any], sink: Sink, **kwargs) -> "Keypad":
        """A keypad as ``[keypad]`` and ``[keys]`` of a loaded config say."""
        kp = cfg["keypad"]
        return cls(sink, kp["device"], grab=kp["grab"],
                   keymap=build_keymap(cfg.get("keys"), kp["keymap"]),
                   reconnect_s=kp["reconnect_s"], **kwargs)

    # -- events ------------------------------------------------------------------

    def handle(self, event) -> str | None:
        """Act on one evdev event; returns the action it triggered, if any.

        Only key-down events count: auto-repeat (value 2) and key-up (0) do not
        repeat an action.
        """
        if event.type != ecodes.EV_KEY or event.value != 1:
            return None
        action = self.keymap.get(event.code)
        if self.digits_wanted is not None and self.digits_wanted():
            name = key_name(event.code)
            if name.startswith("KEY_KP") and name[6:].isdigit():
                self.sink(HostKey("digit", {"digit": name[6:]}))
                return "digit"
        if self.when_key is not None:
            self.when_key(key_name(event.code), action)
        if action is not None:
            self.sink(HostKey(action))
        return action

    # -- the reader thread ------------------------------------------------------------

    def start(self) -> None:
        if evdev is None:
            raise BackendUnavailable("the USB keypad needs python-evdev (Linux only): pip install evdev")
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="keypad", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.close()

    def _report_lost(self, reason: str) -> None:
        was = self.connected
        self.connected = False
        if was or reason != self.problem:
            self.problem = reason
            self.sink(InputStatus("keypad", False, reason))

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                dev = self.opener(self.device)
            except LookupError as exc:
                self._report_lost(str(exc))
            except PermissionError:
                self._report_lost(f"no permission to read {self.device!r}: add the user to the input group")
            except OSError as exc:
                self._report_lost(f"cannot open {self.device!r}: {exc.strerror or exc}")
            else:
                self._read(dev)
            if self._stop.wait(self.reconnect_s):
                break

    def _read(self, dev) -> None:
        try:
            if self.grab:
                dev.grab()
            self.connected = True
            self.name = dev.name
            self.problem = ""
            self.sink(InputStatus("keypad", True, dev.name))
            while not self._stop.is_set():
                ready, _, _ = select.select([dev.fd, self._wake_r], [], [])
                if self._wake_r in ready:
                    break
                try:
                    events = list(dev.read())
                except BlockingIOError:
                    continue
                for event in events:
                    self.handle(event)
        except OSError as exc:
            if exc.errno in (errno.ENODEV, errno.EIO, errno.EBADF):
                self._report_lost(f"{self.name or self.device} unplugged")
            else:
                self._report_lost(f"{self.name or self.device}: {exc.strerror or exc}")
        finally:
            self.connected = False
            for step in ((dev.ungrab,) if self.grab else ()) + (dev.close,):
                try:
                    step()
                except (OSError, AttributeError):
                    pass

    def status(self) -> dict[str, Any]:
        return {"device": self.device, "connected": self.connected, "name": self.name,
                "problem": self.problem}
