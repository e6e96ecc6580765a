"""buzzer-controller: a fair buzzer and timer controller for quiz games.

The package is split the way gpiozero splits devices from pin factories:

* a pure game engine (:mod:`controller.games.engine`, :mod:`controller.core.arbiter`,
  :mod:`controller.games`) that takes events and returns a new state plus
  effects, with no I/O and no clock of its own;
* thin shells around it: button backends (:mod:`controller.inputs`), the
  loop that owns the state (:mod:`controller.app.loop`), the display, audio and
  the journal.
"""

__version__ = "0.1.0"
