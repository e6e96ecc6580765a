"""Buttons on our USB serial box (``buttons = "serial"``) or on a virtual one
(``buttons = "serial-sim"``).

The box timestamps every edge on its own 0.5 us timer; the link
(:mod:`firmware_bridge.link`) maps box time onto the host's monotonic clock
with one offset per quiet period, so presses keep their exact box-time gaps
and the arbiter orders them by the box's timestamps, never by arrival.
This module only maps box inputs to button ids and passes events on.

Config (``[serial]``): ``port`` (a stable ``/dev/serial/by-id/...`` path),
``baud``, ``inputs`` (box input per button: a list in button order, or a
table ``{A = 0, B = 1}``; default: buttons in order on inputs 0, 1, 2 ...; the buttons
are the wired teams', :func:`~controller.inputs.options.wired_buttons`),
``reconnect_min_s``, ``reconnect_max_s``, ``time_query_interval_s`` and
``debounce_ms`` (the firmware's compiled value; a mismatch is logged).
"""

from __future__ import annotations

import errno
import json
import logging
import os
import threading
from typing import Any, Mapping, Sequence

from controller.inputs.base import BackendStatus, ButtonBackend, KeyInput, Sink
from controller.inputs.clock import EngineClock
from controller.inputs.options import SERIAL, input_map
from controller.core.events import NS_PER_MS, InputStatus, Press, Release
from controller.i18n import DEFAULT_LANG, t

log = logging.getLogger(__name__)

REASON_KEYS = {errno.ENOENT: "serial_box.no_device", errno.ENODEV: "serial_box.no_device",
               errno.ENXIO: "serial_box.no_device", errno.EACCES: "serial_box.no_access",
               errno.EPERM: "serial_box.no_access", errno.EBUSY: "serial_box.busy"}
"""The OS errors a host meets opening the box's port -> the catalog key of their words."""


def unavailable_line(port: str, exc: BaseException, lang: str = DEFAULT_LANG) -> str:
    """The host's one line for a box port that cannot be opened: the port, the ``[serial] port``
    key and the OS reason in a few words (not pyserial's «could not open port …: [Errno 2] …»)."""
    code = getattr(exc, "errno", None)
    if code in REASON_KEYS:
        reason = t(REASON_KEYS[code], lang)
    elif isinstance(code, int):
        reason = os.strerror(code)
    else:
        reason = str(exc)
    return t("serial_box.unavailable", lang, port=port, reason=reason)


def _option_defaults() -> dict[str, Any]:
    """The ``[serial]`` section's defaults, from the one config schema."""
    return {k.name: k.default for k in SERIAL.keys}


class SerialBackend(ButtonBackend):
    """Buttons read by the serial button box."""

    name = "serial"

    def __init__(self, buttons: Sequence[str], clock: EngineClock, sink: Sink,
                 options: Mapping[str, Any] | None = None):
        super().__init__(buttons, clock, sink, options)
        opts = {**_option_defaults(), **{k: v for k, v in self.options.items() if v is not None}}
        self.port = str(opts["port"])
        self.baud = int(opts["baud"])
        self.button_of_input = input_map(self.buttons, opts["inputs"])
        self.input_of_button = {b: i for i, b in self.button_of_input.items()}
        self._opts = opts
        self._tie_wait = int(round(float(opts["tie_wait_ms"]) * NS_PER_MS))
        self._edges: dict[str, int] = {}
        self._down: set[str] = set()
        self._lock = threading.Lock()
        self.unknown_inputs = 0
        self.link = None

    def _make_link(self, port: str):
        from firmware_bridge.link import SerialLink
        # the link's when_event(BoxEvent) stays between the link and this backend: what
        # reaches the loop is Press / Release through the one sink (_on_box_event)
        return SerialLink(
            port, self.baud, when_event=self._on_box_event,
            reconnect_min_s=float(self._opts["reconnect_min_s"]),
            reconnect_max_s=float(self._opts["reconnect_max_s"]),
            time_query_interval_s=float(self._opts["time_query_interval_s"]),
            debounce_us=int(round(float(self._opts["debounce_ms"]) * 1000)),
            inputs_in_use=set(self.button_of_input),
            stamp_tolerance_ms=float(self._opts["stamp_tolerance_ms"]),
            when_problem=self._on_box_problem, when_unavailable=self._on_box_unavailable)

    def _on_box_unavailable(self, exc: Exception) -> None:
        """The port cannot be opened (no box, no permission): one line in the host's language."""
        log.warning("%s", unavailable_line(self.port, exc, str(self.options.get("lang") or DEFAULT_LANG)))

    def _on_box_problem(self, kind: str, details: dict) -> None:
        """The link refused something the box sent, or delivered it out of order: the host is
        told (a notice naming the button), never left to find it in a log."""
        shown = dict(details)
        if "input" in shown:
            shown["button"] = self.button_of_input.get(shown["input"], f"#{shown['input']}")
        self.sink(InputStatus("serial", True, json.dumps({"kind": kind, **shown})))

    def start(self) -> None:
        if self.link is None:
            self.link = self._make_link(self.port)
            self._push_lamps()
            self.link.start()

    def close(self) -> None:
        if self.link is not None:
            self.link.close()
            self.link = None

    def _on_box_event(self, ev) -> None:
        button = self.button_of_input.get(ev.input)
        if button is None:
            self.unknown_inputs += 1
            return
        with self._lock:
            self._edges[button] = self._edges.get(button, 0) + 1
            if ev.pressed:
                self._down.add(button)
            else:
                self._down.discard(button)
        at = self.clock.from_monotonic_ns(ev.monotonic_ns)
        delivered = self.clock.from_monotonic_ns(ev.received_ns)
        if ev.pressed and ev.late:
            # out of sequence order (the host was told why): not part of the ordered stream,
            # so the arbiter's settle window applies to it
            self.sink(Press(button, at, delivered))
        elif ev.pressed:
            # the link delivers the box's events in sequence order (a gap is replayed before
            # anything after it), and the box queues them in edge order: an ordered stream
            self.sink(Press(button, at, delivered, self._tie_wait, stream=True))
        else:
            self.sink(Release(button, at, delivered))

    def set_lamp(self, button: str, state: str) -> None:
        super().set_lamp(button, state)
        self._push_lamps()

    def _push_lamps(self) -> None:
        on = blink = 0
        for button, state in self.lamps.items():
            index = self.input_of_button.get(button)
            if index is None:
                continue
            if state == "on":
                on |= 1 << index
            elif state == "blink":
                blink |= 1 << index
        if self.link is not None:
            self.link.set_lamps(on, blink)

    def edges_seen(self) -> dict[str, int]:
        with self._lock:
            return dict(self._edges)

    def status(self) -> BackendStatus:
        if self.link is None:
            return BackendStatus(self.name, False, f"{self.port}: not started", missing=self.buttons)
        st = self.link.status()
        up = st.connected and st.responding
        if up:
            detail = f"{self.port}: box {st.boot_id:08x}"
        elif st.connected:
            detail = f"{self.port}: open, box not answering"
        else:
            detail = f"{self.port}: not connected" + (f" ({st.last_error})" if st.last_error else "")
        problems = []
        if st.seq_gaps:
            problems.append(f"gaps {st.seq_gaps}")
        if st.lost_events:
            problems.append(f"LOST {st.lost_events}")
        if st.overflows:
            problems.append(f"overflows {st.overflows}")
        if st.resets:
            problems.append(f"resets {st.resets}")
        if st.refused:
            problems.append(f"refused {st.refused}")
        if st.conflicts:
            problems.append(f"conflicts {st.conflicts}")
        if problems:
            detail += "; " + ", ".join(problems)
        extra = {
            "port": self.port, "boot_id": st.boot_id, "connects": st.connects, "resets": st.resets,
            "seq_gaps": st.seq_gaps, "replays": st.replays, "lost_events": st.lost_events,
            "duplicates": st.duplicates, "overflows": st.overflows,
            "snapshots_dropped": st.snapshots_dropped, "events_dropped": st.events_dropped,
            "box_rx_errors": st.box_rx_errors, "host_rx_errors": st.host_rx_errors,
            "offset_ns": st.offset_ns, "rtt_ns": st.rtt_ns, "unknown_inputs": self.unknown_inputs,
            "refused": st.refused, "conflicts": st.conflicts, "late_events": st.late_events,
        }
        return BackendStatus(self.name, up, detail, missing=() if up else self.buttons, extra=extra)


class SerialSimBackend(KeyInput, SerialBackend):
    """A :class:`~firmware_bridge.virtual_box.VirtualBox` started in-process,
    read through the real serial path (pty, pyserial, link).  Keys from the
    ``keys`` option (button id -> key, as for the keyboard backend) press its
    buttons; so does :meth:`press_button`."""

    name = "serial-sim"
    wired = False

    def __init__(self, buttons: Sequence[str], clock: EngineClock, sink: Sink,
                 options: Mapping[str, Any] | None = None):
        super().__init__(buttons, clock, sink, options)
        keys = self.options.get("keys") or {}
        self.key_to_button = {str(k).lower(): b for b, k in keys.items() if k}
        self.box = None

    def start(self) -> None:
        from firmware_bridge.virtual_box import VirtualBox
        if self.box is None:
            n = max(8, max(self.button_of_input, default=0) + 1)
            self.box = VirtualBox(n_inputs=n, debounce_us=int(round(float(self._opts["debounce_ms"]) * 1000)))
            self.box.start()
            self.port = self.box.path
        super().start()

    def close(self) -> None:
        super().close()
        if self.box is not None:
            self.box.close()
            self.box = None

    def press_button(self, button: str) -> None:
        self.box.press(self.input_of_button[button])

    def release_button(self, button: str) -> None:
        self.box.release(self.input_of_button[button])

    def key_down(self, key: str, engine_ns: int) -> bool:
        button = self.key_to_button.get(key.lower())
        if button is None or self.box is None or button not in self.input_of_button:
            return False
        self.press_button(button)  # a held key (auto-repeat) is ignored by the box
        return True

    def key_up(self, key: str, engine_ns: int) -> bool:
        button = self.key_to_button.get(key.lower())
        if button is None or self.box is None or button not in self.input_of_button:
            return False
        self.release_button(button)
        return True
