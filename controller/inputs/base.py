"""The interface every button backend implements.

A backend turns physical (or simulated) button edges into
:class:`~controller.core.events.Press` / :class:`~controller.core.events.Release` events
on the engine clock and hands them to a *sink* (the loop's
:meth:`~controller.app.loop.Loop.enqueue`).  Host buttons a backend reads (GPIO
``host_pins``) go to the same sink as :class:`~controller.core.events.HostKey`.
A backend never decides anything: it does not know which press wins, which
button is locked or what a lamp means.  It only timestamps, enqueues and
switches lamps when the engine asks.

Hooks (the loop calls nothing else, and never probes for a method):

========================  ====  ==============================================
hook                      kind  default here
========================  ====  ==============================================
``start()``               must  nothing (a backend that reads a device opens
                                its thread here)
``close()``               must  nothing
``set_lamp(button, st)``  must  records the state in :attr:`lamps`
``status()``              must  connected, no detail
``beep(name)``            may   no beeper: nothing
``has_lamp(button)``      may   False: no lamp to light
``stats()``               may   ``{}``: no per-input counts (test-buttons)
``edges_seen()``          may   ``{}``: no edge counts
``input_stall_ns()``      may   0: the loop never holds a decision back
``button_keys()``         may   ``{}``: a button is named by its id on the
                                screens (:class:`KeyInput`: the key pressed)
``press_button(b)``,      may   :class:`~controller.core.errors.BackendError`: only
``release_button(b)``           simulated buttons can be pressed by the program
========================  ====  ==============================================

Backends driven by the computer's keys (the keyboard, the virtual serial box)
also derive from :class:`KeyInput`, which declares ``key_down`` / ``key_up``;
the loop hands keys only to a backend that is a KeyInput.

Rules for implementers:

* stamp each edge with the hardware's own time (kernel timestamp,
  microcontroller timer), converted onto the engine clock with
  :class:`~controller.inputs.clock.EngineClock`; never with the time a callback ran,
  unless the hardware gives nothing better;
* apply the same debounce rule to every button, keeping the first edge's
  timestamp;
* the sink is thread-safe; call it from any thread, with one
  :data:`~controller.core.events.InputEvent` at a time;
* :meth:`ButtonBackend.set_lamp` is called from the loop thread and must not
  block for long.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from controller.inputs.clock import EngineClock
from controller.core.errors import BackendError, BackendUnavailable
from controller.core.events import InputEvent

Sink = Callable[[InputEvent], None]
"""Where every input source puts its events: ``sink(event)``, thread-safe."""

LAMP_STATES = ("on", "off", "blink")


@dataclass(frozen=True)
class BackendStatus:
    """What the host and the screen are told about a backend."""

    name: str
    connected: bool
    detail: str = ""
    missing: tuple[str, ...] = ()
    """Buttons the backend cannot currently read."""
    unmapped: tuple[str, ...] = ()
    """Those of ``missing`` that have no input of this backend at all (a team without a key): a
    team whose phone link presses for it is not one that does not answer (Loop.status)."""
    extra: Mapping[str, Any] = field(default_factory=dict)


class NoPinFactory(BackendUnavailable):
    """No GPIO pins here: gpiozero has no pin factory (not a Pi, lgpio missing, no access).
    The message is the log's; the commands say it to the user in their language from
    ``factory`` (``[gpio] pin_factory``, "" for gpiozero's choice) and ``problem``
    (what gpiozero said)."""

    HINT = ("on a Raspberry Pi install python3-lgpio (Raspberry Pi OS has it) and add the user "
            "to the gpio group; without a Pi set GPIOZERO_PIN_FACTORY=mock to try the program")

    def __init__(self, factory: str, problem: str):
        self.factory = factory
        self.problem = problem
        super().__init__(f"no GPIO pin factory {factory or '(default)'}: {problem}; {self.HINT}")

    @property
    def cause(self) -> str:
        """What is missing, with the factory asked for when one was: the catalogs' ``{problem}``."""
        return f'[gpio] pin_factory = "{self.factory}": {self.problem}' if self.factory else self.problem


class ButtonBackend:
    """Base class of button backends (see the module's table of hooks).

    :param buttons: button ids in config order (``"A"``, ``"B"`` ...)
    :param clock: the engine clock, to convert edge timestamps
    :param sink: thread-safe ``sink(event)`` taking the backend's input events
    :param options: the backend's own config section, already validated
    """

    name = "base"
    wired = True
    """The presses come from real buttons, whose race a busy machine could delay: the game says
    so when it cannot run them at the real-time priority (controller/inputs/priority.py).  False
    for the computer's keyboard and the virtual box."""

    def __init__(self, buttons: Sequence[str], clock: EngineClock, sink: Sink,
                 options: Mapping[str, Any] | None = None):
        self.buttons = tuple(buttons)
        self.clock = clock
        self.sink = sink
        self.options = dict(options or {})
        self.lamps: dict[str, str] = {b: "off" for b in self.buttons}

    # -- must ------------------------------------------------------------------

    def start(self) -> None:
        """Begin delivering events to the sink."""

    def close(self) -> None:
        """Stop delivering events and release the hardware."""

    def set_lamp(self, button: str, state: str) -> None:
        """Switch a player's lamp: ``on``, ``off`` or ``blink``."""
        if state not in LAMP_STATES:
            raise ValueError(f"lamp state must be one of {LAMP_STATES}, got {state!r}")
        self.lamps[button] = state

    def status(self) -> BackendStatus:
        return BackendStatus(self.name, True)

    # -- may -------------------------------------------------------------------

    def beep(self, name: str) -> None:
        """Sound the backend's own beeper for the named sound; without one, nothing."""

    def has_lamp(self, button: str) -> bool:
        """True if ``button`` has a lamp that :meth:`set_lamp` lights."""
        return False

    def stats(self) -> Mapping[str, Any]:
        """Per-input counts for ``buzzer test-buttons`` (input id -> stats)."""
        return {}

    def edges_seen(self) -> dict[str, int]:
        """Edges seen per button since start (to list buttons that never moved)."""
        return {}

    def button_keys(self) -> Mapping[str, str]:
        """Button id -> the name of what the player presses for it, where that is not the
        button the id names (a computer key: ``"q"``); the screens show it instead of the id
        («Клавиша Q», not «Кнопка A»).  ``{}``: the ids are what the buttons are called."""
        return {}

    def input_stall_ns(self) -> int:
        """How long the thread delivering this backend's presses has been ready to run without
        a CPU since its latest press, while that press's quiet period lasts
        (:mod:`controller.inputs.stall`).  The loop holds a due decision back by as much, so
        that a quiet period is the input thread's own time.  0 for an ordered stream."""
        return 0

    def press_button(self, button: str) -> None:
        """Press a simulated button (the hardware's own path, as if by hand)."""
        raise BackendError(f"the {self.name} backend's buttons can only be pressed by hand")

    def release_button(self, button: str) -> None:
        """Release a simulated button; see :meth:`press_button`."""
        raise BackendError(f"the {self.name} backend's buttons can only be released by hand")

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.close()


class KeyInput:
    """A backend whose buttons are the computer's keys (declared by deriving from it).

    The loop owns the window (or the terminal) and hands each key that is not
    a host key to :meth:`key_down` / :meth:`key_up` of a backend that is a
    KeyInput; other backends never see keys.  ``options["keys"]`` maps button
    id -> key name (pygame names such as ``"q"``).
    """

    key_to_button: dict[str, str]

    def button_keys(self) -> Mapping[str, str]:
        """Button id -> the key that presses it (the players press keys, not the buttons)."""
        out: dict[str, str] = {}
        for key, button in self.key_to_button.items():
            out.setdefault(button, key)
        return out

    def key_down(self, key: str, engine_ns: int) -> bool:
        """A computer key went down.  Return True if it is one of this backend's
        buttons (then the key does nothing else)."""
        raise NotImplementedError

    def key_up(self, key: str, engine_ns: int) -> bool:
        """A computer key went up; see :meth:`key_down`."""
        raise NotImplementedError
