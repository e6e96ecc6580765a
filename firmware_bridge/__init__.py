"""The serial button box: firmware, its wire protocol and the host bridge.

* :mod:`firmware_bridge.codec` -- frames on the wire (COBS + CRC-16), pure;
* :mod:`firmware_bridge.link` -- one serial port to one box: reconnects,
  sequence checks, replay, clock mapping, lamp commands (a thread);
* :mod:`firmware_bridge.virtual_box` -- a box in pure Python behind a pty,
  for trying the program and for tests without the AVR toolchain;
* :mod:`firmware_bridge.simavr_box` -- drives the real firmware inside simavr
  through the C harness in ``firmware_bridge/sim/``.

The protocol is described in ``docs/serial-protocol.md``.
"""
