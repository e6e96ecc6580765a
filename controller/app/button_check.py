"""``buzzer test-buttons``: check the table's wiring before a game.

Shows every configured button, host button, lamp and keypad key live in the
terminal: each press and release as it happens, how long the button was held
and how many bounce edges its contacts made, and which keypad key maps to
which host action.  Meanwhile it lights each lamp in turn, and lights a
button's lamp while the button is held, so one person can walk round the
table and see that every button and lamp is where the config says.

At the end (Ctrl+C, or ``--seconds N``) it prints a summary and lists the
buttons that never moved: unplugged, miswired, or on another pin.  A team that
presses with a phone (``phone = true`` in its ``[[teams]]``) has no wire to check:
it is listed as «телефон» ("phone") and never waited for.

With ``GPIOZERO_PIN_FACTORY=mock`` it runs on gpiozero's mock pins, and
``--script FILE`` drives them (for tests and demonstrations)::

    # seconds  input       what
    0.10       A           down        # contacts close
    0.10       A           bounce 4    # 4 chatter edges, 0.2 ms apart after A's last edge
    0.30       A           up
    0.50       host:right  tap         # a host button on GPIO
    1.000      A           edge        # contacts close, the callback is held back ...
    1.001      B           down
    1.004      A           deliver     # ... and runs 3 ms after B's (as lgpio may do)

Two presses less than 50 ms apart are checked for fairness: which edge came
first and by how much, in which order their callbacks ran and how far apart.
The arbiter names the earlier edge as long as its callback runs within
``[gpio] quiet_ms`` of the other's (docs/raspberry-pi.md); a pair beyond that
is reported with what to change.
"""

from __future__ import annotations

import argparse
import queue
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from controller.app import config as config_mod
from controller.inputs.clock import EngineClock
from controller.core.errors import BackendUnavailable, ConfigError
from controller.inputs.base import NoPinFactory
from controller.core.events import NS_PER_MS, HostKey, InputStatus, Press, Release
from controller.i18n import LANGUAGES, labels, t
from controller.app.commands import default_config_path
from controller.inputs import keypad as keypad_mod




def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("test-buttons", help="check buttons, lamps and the host keypad before a game")
    p.add_argument("--config", "-c", help="config file (default: config/default.toml)")
    p.add_argument("--seconds", type=float, default=None, help="stop after this many seconds "
                   "(default: run until Ctrl+C)")
    p.add_argument("--lamp-s", type=float, default=0.7, help="how long each lamp is lit in the "
                   "round of lamps (default 0.7 s)")
    p.add_argument("--no-lamps", action="store_true", help="do not switch the lamps")
    p.add_argument("--script", help="drive mock pins from this file (GPIOZERO_PIN_FACTORY=mock)")
    p.add_argument("--lang", choices=LANGUAGES, help="language of the output")
    p.set_defaults(func=run)


@dataclass
class _Tally:
    pressed_at: int | None = None
    bounces: list[int] = field(default_factory=list)


def _parse_script(path: str) -> list[tuple[float, str, str, int]]:
    steps = []
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError("", f"{path}: file not found") from None
    except IsADirectoryError:
        raise ConfigError("", f"{path}: is a folder, not a file") from None
    except UnicodeDecodeError:
        raise ConfigError("", f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise ConfigError("", f"{path}: cannot read: {exc.strerror}") from None
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].split()
        if not line:
            continue
        try:
            at, ident, what = float(line[0]), line[1], line[2]
            count = int(line[3]) if len(line) > 3 else 0
        except (ValueError, IndexError):
            raise ConfigError("", f"{path}:{n}: expected 'SECONDS INPUT down|up|tap|bounce N|edge|deliver'") from None
        if what not in ("down", "up", "tap", "bounce", "edge", "deliver"):
            raise ConfigError("", f"{path}:{n}: unknown action {what!r}")
        steps.append((at, ident, what, count))
    return sorted(steps, key=lambda s: s[0])


def _drive(backend, steps, t0: float, stop: threading.Event) -> None:
    """Play a script on the mock pins (its own thread, in real time)."""
    pins = {}
    for ident, stat in backend.stats().items():
        pins[ident] = backend.factory.pin(stat.pin)
    active_low = backend.options["active_low"]

    def level(pin, pressed):
        (pin.drive_low if pressed == active_low else pin.drive_high)()

    for at, ident, what, count in steps:
        if stop.wait(max(0.0, t0 + at - time.monotonic())):
            return
        pin = pins.get(ident)
        if pin is None:
            continue
        if what == "edge":  # the level changes now; its callback waits for "deliver"
            pin._change_state(not active_low)
        if what == "deliver":
            pin._call_when_changed()
        if what in ("down", "tap"):
            level(pin, True)
        if what == "up":
            level(pin, False)
        if what == "tap":
            time.sleep(0.03)
            level(pin, False)
        if what == "bounce":
            # chatter edges 0.2 ms apart after the input's last edge, stamped
            # exactly (real sleeps that short stretch under load)
            pressed = bool(pin.state) != active_low
            base = pin._last_change
            for k in range(1, count + 1):
                pressed = not pressed
                pin._state = pressed != active_low
                pin._last_change = base + k * 0.0002
                pin._call_when_changed()


PAIR_NS = 50 * NS_PER_MS
"""Two presses closer than this are checked as a race."""


def _say_pair(say, text, a: Press, b: Press, quiet_ms: float) -> None:
    """How a race of two presses reached the program: edge order and gap, callback
    order and spacing, and whether the arbiter's quiet period covers it."""
    first, second = (a, b) if a.at <= b.at else (b, a)
    follow_ms = abs(b.delivered - a.delivered) / NS_PER_MS
    in_order = first.delivered <= second.delivered
    fair = in_order or follow_ms < quiet_ms
    say("pair", first=first.button, second=second.button, gap=f"{(second.at - first.at) / 1000:.0f}",
        order=text["pair_in_order"] if in_order else text["pair_reversed"].format(second=second.button),
        follow=f"{follow_ms:.2f}", delay=f"{(first.delivered - first.at) / NS_PER_MS:.2f}",
        verdict=(text["pair_fair"] if fair else text["pair_unfair"]).format(quiet=f"{quiet_ms:g}"))


def _kernel_edge(backend, clock, press: Press):
    """The kernel's report of a press's edge (chip, line, stamp, sequence numbers), or None."""
    mono = press.at + clock.origin_ns
    for e in reversed(backend.recent):
        if e.ident == press.button and e.timestamp_ns == mono:
            return e
    return None


def _say_race(say, text, backend, clock, a: Press, b: Press) -> None:
    """A race as the kernel reported it (buttons = "gpiod"): the two edges in the kernel's
    order with their stamps and sequence numbers, the gap, and whether it is a tie."""
    first, second = sorted((a, b), key=lambda p: p.at)
    ea, eb = _kernel_edge(backend, clock, first), _kernel_edge(backend, clock, second)

    def edge(p, e):
        if e is None:
            return text["race_edge_unknown"].format(b=p.button)
        return text["race_edge"].format(b=p.button, line=e.line, stamp=f"{e.timestamp_ns / 1e9:.9f}",
                                        seq=e.global_seqno, line_seq=e.line_seqno)

    gap_us = (second.at - first.at) / 1000
    tie_us = backend.status().extra["tie_us"]
    verdict = text["race_tie"].format(tie=f"{tie_us:g}") if gap_us < tie_us or gap_us == 0 else \
        text["race_first"].format(b=first.button)
    order = text["race_kernel_order"] if ea is None or eb is None or ea.global_seqno < eb.global_seqno \
        else text["race_kernel_reversed"]
    say("race", first=edge(first, ea), second=edge(second, eb), gap=f"{gap_us:.1f}", order=order,
        verdict=verdict)


def _checked_args(args, text) -> list[tuple[float, str, str, int]]:
    """The command line's own mistakes, each its one-line error: a duration below zero, a
    script file that cannot be read. Returns the script's steps (none without ``--script``)."""
    if args.seconds is not None and not args.seconds >= 0:
        raise ConfigError("", text["bad_seconds"].format(value=f"{args.seconds:g}"))
    if not args.lamp_s > 0:
        raise ConfigError("", text["bad_lamp_s"].format(value=f"{args.lamp_s:g}"))
    return _parse_script(args.script) if args.script else []


def _gpio_backend(cfg, text, buttons, clock, sink, lang):
    """The GPIO backend the check listens to. Without GPIO (a laptop) and a config whose buttons
    are not on GPIO, say what the check is for and what to do instead of the pin factory's
    error: the buttons of such a config need no check here.  A GPIO table without pins gets
    the pin factory's problem in the user's language, with what to install."""
    if cfg["buttons"] == "gpiod":   # the kernel's own order (controller/inputs/gpiochip.py)
        from controller.inputs.gpiochip import GpiodBackend
        return GpiodBackend(buttons, clock, sink, {**cfg["gpio"], "settle_ms": cfg["arbiter"]["settle_ms"]})
    from controller.inputs.gpio import GPIOBackend

    try:
        return GPIOBackend(buttons, clock, sink, cfg["gpio"])
    except BackendUnavailable as exc:
        if cfg["buttons"] == "gpio":
            if isinstance(exc, NoPinFactory):
                raise BackendUnavailable(t("gpio_no_pin_factory", lang, problem=exc.cause)) from None
            raise
        key = "no_gpio_keyboard" if cfg["buttons"].startswith("keyboard") else "no_gpio_other"
        raise NothingToCheck(text[key].format(backend=cfg["buttons"])) from None


class NothingToCheck(Exception):
    """Buttons that are not on GPIO, on a machine without it: nothing is wrong, there is just
    nothing for this check to listen to (said on stdout, exit code 0)."""


def run(args) -> int:
    cfg = config_mod.load(args.config or default_config_path())
    lang = args.lang or cfg.get("language", "ru")
    text = labels("test_buttons", lang, default="en")
    out = sys.stdout

    def say(msg, /, **kw):
        print(text[msg].format(**kw), file=out, flush=True)

    teams = {tm["button"]: tm["name"] for tm in cfg["teams"]}
    gpio = cfg["gpio"]
    # a team with phone = true presses with a phone (docs/phones.md): no wire of it to check,
    # its pin (if it has one) is not opened; it is listed as such
    phones = {tm["button"] for tm in cfg["teams"] if tm.get("phone")}
    listed = list(teams) + [b for b in gpio["pins"] if b not in teams]
    buttons = [b for b in listed if b not in phones]
    events: queue.Queue = queue.Queue()
    clock = EngineClock()

    def sink(ev):
        """The one input sink, as the loop's: presses as they are (stamped by the
        backend), host keys and the keypad's comings and goings with the time they came."""
        events.put(ev if isinstance(ev, (Press, Release)) else (clock.now(), ev))

    def keypad_sink(ev):
        if not isinstance(ev, HostKey):   # its keys are shown by when_key, with their names
            sink(ev)

    steps = _checked_args(args, text)   # a bad argument first: its own error, before any hardware
    try:
        backend = _gpio_backend(cfg, text, buttons, clock, sink, lang)
    except NothingToCheck as exc:
        print(exc)
        return 0
    keypad = None
    stop = threading.Event()
    driver = None
    try:
        status = backend.status()
        say("title")
        if cfg["buttons"] == "keyboard":
            say("not_gpio_keyboard")
        elif cfg["buttons"] not in ("gpio", "gpiod"):
            say("not_gpio", backend=cfg["buttons"])
        gpiod_path = cfg["buttons"] == "gpiod"
        if gpiod_path:
            x = status.extra
            say("path_gpiod", chip=x["chip"], label=x["label"], why=x["chosen"], tie=f"{x['tie_us']:g}")
        else:
            say("path_gpio", factory=status.extra["pin_factory"])
            say("factory", factory=status.extra["pin_factory"], stamps=status.extra["timestamps"])
        for b in listed:
            if b in phones:
                say("phone", b=b, team=teams[b])
                continue
            say("button", b=b, pin=gpio["pins"][b], lamp=gpio["lamps"].get(b, text["no_lamp"]),
                team=teams.get(b, ""))
            if gpiod_path:
                say("line", b=b, chip=status.extra["chip"], line=status.extra["lines"][b])
        for action, pin in gpio["host_pins"].items():
            say("host_pin", action=action, pin=pin)
        if gpio["buzzer_pin"]:
            say("buzzer", pin=gpio["buzzer_pin"])
        keymap = keypad_mod.build_keymap(cfg["keys"], cfg["keypad"]["keymap"])
        if cfg["keypad"]["device"]:
            say("keypad", device=cfg["keypad"]["device"])
            keypad = keypad_mod.Keypad.from_config(cfg, keypad_sink)
            keypad.when_key = lambda key, action: events.put(("key", key, action, clock.now()))
        else:
            say("keypad_none")
            devices = keypad_mod.list_keyboards()
            for path, name in devices:
                say("device", path=path, name=name)
            if not devices:
                say("no_devices")
        say("keys_title")
        for key, action in keypad_mod.keymap_names(keymap).items():
            say("keypad_key", key=key, action=action)

        if steps and type(getattr(backend, "factory", None)).__name__ != "MockFactory":
            raise ConfigError("", text["script_mock"])

        start_ns = clock.now()
        backend.start()
        for b, st in backend.stats().items():
            if st.pressed and not b.startswith("host:"):
                say("held_at_start", b=b)
        if gpiod_path:   # from here on every edge is the kernel's, in its order
            say("listening", chip=status.extra["chip"])
        if keypad is not None:
            keypad.start()
        t0 = time.monotonic()
        if steps:
            driver = threading.Thread(target=_drive, args=(backend, steps, t0, stop), daemon=True)
            driver.start()

        tallies = {b: _Tally() for b in buttons}
        last_press: Press | None = None
        lamp_order = [b for b in buttons if backend.has_lamp(b)] if not args.no_lamps else []
        sweep_i, sweep_next, lit = 0, t0, None
        deadline = None if args.seconds is None else t0 + args.seconds

        def secs(ns):
            return (ns - start_ns) / 1e9

        try:
            while deadline is None or time.monotonic() < deadline:
                now = time.monotonic()
                # the round of lamps: one at a time, each for --lamp-s
                if lamp_order and now >= sweep_next:
                    if lit is not None and tallies[lit].pressed_at is None:
                        backend.set_lamp(lit, "off")
                    lit = lamp_order[sweep_i % len(lamp_order)]
                    sweep_i += 1
                    backend.set_lamp(lit, "on")
                    if sweep_i <= len(lamp_order):  # name them in the first round only
                        say("lamp", b=lit)
                    sweep_next = now + args.lamp_s
                timeout = 0.05 if deadline is None else max(0.0, min(0.05, deadline - now))
                try:
                    ev = events.get(timeout=timeout)
                except queue.Empty:
                    continue
                if isinstance(ev, Press):
                    tally = tallies[ev.button]
                    tally.pressed_at = ev.at
                    say("pressed", t=secs(ev.at), b=ev.button)
                    if last_press is not None and abs(ev.at - last_press.at) < PAIR_NS:
                        if gpiod_path:
                            _say_race(say, text, backend, clock, last_press, ev)
                        else:
                            _say_pair(say, text, last_press, ev, gpio["quiet_ms"])
                    last_press = ev
                    if not args.no_lamps:
                        backend.set_lamp(ev.button, "on")
                elif isinstance(ev, Release):
                    tally = tallies[ev.button]
                    bounces = backend.stats()[ev.button].press_bounces
                    tally.bounces.append(bounces)
                    held = "?" if tally.pressed_at is None else f"{(ev.at - tally.pressed_at) / NS_PER_MS:.0f}"
                    tally.pressed_at = None
                    say("released", t=secs(ev.at), b=ev.button, held=held, bounces=bounces)
                    if not args.no_lamps and ev.button != lit:
                        backend.set_lamp(ev.button, "off")
                elif ev[0] == "key":
                    if ev[2] is None:
                        say("key_unmapped", t=secs(ev[3]), key=ev[1])
                    else:
                        say("key", t=secs(ev[3]), key=ev[1], action=ev[2])
                else:
                    at, ev = ev
                    if isinstance(ev, HostKey):
                        say("host", t=secs(at), action=ev.action)
                    elif isinstance(ev, InputStatus) and ev.source == "gpio-overflow":
                        say("gpio_overflow", detail=ev.detail)
                    elif isinstance(ev, InputStatus) and ev.source == "gpio":
                        say("gpio_lost", detail=ev.detail)
                    elif isinstance(ev, InputStatus) and ev.connected:
                        say("kp_on", name=ev.detail)
                    elif isinstance(ev, InputStatus):
                        say("kp_off", reason=ev.detail)
        except KeyboardInterrupt:
            pass  # Ctrl+C ends the check; the summary follows

        say("summary")
        stats = backend.stats()
        never = []
        for b in listed:
            if b in phones:
                say("phone_row", b=b)
                continue
            st, bl = stats[b], tallies[b].bounces
            if st.edges == 0:
                never.append(f"{b} ({st.pin})")
            say("row", b=b, pin=st.pin, presses=st.presses, edges=st.edges,
                max=max(bl) if bl else 0, avg=f"{sum(bl) / len(bl):.1f}" if bl else "0")
        if never:
            say("never", buttons=", ".join(never))
        else:
            say("all_seen")
        return 0
    finally:
        stop.set()
        if driver is not None:
            driver.join(timeout=1.0)
        if keypad is not None:
            keypad.close()
        backend.close()
