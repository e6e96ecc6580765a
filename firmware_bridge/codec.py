"""Frames and messages of the button-box serial protocol (pure, no I/O).

A frame on the wire is ``b"\\x00" + COBS(type, seq, payload, crc) + b"\\x00"``:

* ``type`` (1 byte) says which message it is (``0x01``..``0x7f`` box to host,
  ``0x81``..``0xff`` host to box);
* ``seq`` (2 bytes, little-endian) is the box's event sequence number: the
  number of an EVENT, or for any other box frame the number the *next* event
  will get (so the host can see that it missed trailing events);
* ``crc`` is CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) of type, seq and
  payload, little-endian.

COBS removes every zero byte from the frame, so ``0x00`` only ever delimits
frames.  The sender puts a zero *before* each frame as well as after it, so
garbage (line noise, a half-sent frame from before a reset) is always cut off
before the next frame starts and that frame is recovered whole.  :class:`StreamDecoder` never raises; it counts what it threw away.
All multi-byte fields are little-endian; times are 48-bit box ticks.
See ``docs/serial-protocol.md`` for the full description.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

PROTOCOL_VERSION = 1
MAX_FRAME = 64
"""Longest frame body (before COBS) either side accepts."""

# Box -> host
HELLO = 0x01
EVENT = 0x02
TIME = 0x03
REPORT = 0x04
# Host -> box
HELLO_REQ = 0x81
TIME_REQ = 0x82
LAMPS = 0x83
REPLAY = 0x84

EDGE_RELEASE = 0
EDGE_PRESS = 1

REPORT_STATUS = 0
REPORT_OVERFLOW = 1
REPORT_RX_ERROR = 2
REPORT_REPLAY_GONE = 3

SEQ_MOD = 1 << 16
TICKS_MASK = (1 << 48) - 1


def crc16_ccitt(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no xorout."""
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


# Table-driven variant used on the hot path; crc16_ccitt above is the reference.
_CRC_TABLE = [crc16_ccitt(bytes([i]), 0) for i in range(256)]


def crc16(data: bytes) -> int:
    crc = 0xFFFF
    table = _CRC_TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ byte]
    return crc


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: the result has no zero byte."""
    out = bytearray()
    block = bytearray()
    for byte in data:
        if byte == 0:
            out.append(len(block) + 1)
            out += block
            block.clear()
        else:
            block.append(byte)
            if len(block) == 254:
                out.append(255)
                out += block
                block.clear()
    out.append(len(block) + 1)
    out += block
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Undo :func:`cobs_encode`; raises ValueError on a malformed block."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ValueError("zero byte inside a COBS frame")
        end = i + code
        if end > n:
            raise ValueError("COBS block runs past the end of the frame")
        block = data[i + 1:end]
        if 0 in block:
            raise ValueError("zero byte inside a COBS frame")
        out += block
        i = end
        if code != 255 and i < n:
            out.append(0)
    return bytes(out)


@dataclass(frozen=True, slots=True)
class Frame:
    """One checked frame: message ``type``, ``seq`` and the raw ``payload``."""

    type: int
    seq: int
    payload: bytes


def encode_frame(type_: int, seq: int, payload: bytes = b"") -> bytes:
    """The bytes to put on the wire for one frame, delimiter included."""
    body = struct.pack("<BH", type_ & 0xFF, seq % SEQ_MOD) + payload
    if len(body) + 2 > MAX_FRAME:
        raise ValueError(f"frame too long: {len(body) + 2} > {MAX_FRAME}")
    body += struct.pack("<H", crc16(body))
    return b"\x00" + cobs_encode(body) + b"\x00"


def decode_frame(encoded: bytes) -> Frame:
    """Check and unpack one frame given *without* its zero delimiter.

    Raises ValueError for anything that is not a whole, correct frame.
    """
    body = cobs_decode(encoded)
    if len(body) < 5:
        raise ValueError("frame too short")
    if len(body) > MAX_FRAME:
        raise ValueError("frame too long")
    (crc,) = struct.unpack_from("<H", body, len(body) - 2)
    if crc16(body[:-2]) != crc:
        raise ValueError("CRC mismatch")
    type_, seq = struct.unpack_from("<BH", body)
    return Frame(type_, seq, bytes(body[3:-2]))


class StreamDecoder:
    """Turns a byte stream into frames; garbage is counted, never raised.

    Bytes are collected up to each zero byte; a collected chunk that is not a
    valid frame (bad COBS, bad CRC, too long) is dropped and counted in
    :attr:`errors`, and decoding resumes with the next byte, so the first
    valid frame after any garbage is recovered.
    """

    def __init__(self, max_frame: int = MAX_FRAME):
        # COBS adds one byte per 254 plus one: a frame body of max_frame
        # bytes is at most max_frame + 2 bytes encoded.
        self._limit = max_frame + 2
        self._buf = bytearray()
        self._overlong = False
        self.frames = 0
        self.errors = 0
        self.discarded_bytes = 0

    def reset(self) -> None:
        """Forget a partial frame (e.g. after reopening the port)."""
        self._buf.clear()
        self._overlong = False

    def feed(self, data: bytes) -> list[Frame]:
        out: list[Frame] = []
        start = 0
        while True:
            zero = data.find(0, start)
            if zero < 0:
                self._take(data[start:])
                return out
            self._take(data[start:zero])
            start = zero + 1
            frame = self._finish()
            if frame is not None:
                out.append(frame)

    def _take(self, chunk: bytes) -> None:
        if not chunk:
            return
        if self._overlong:
            self.discarded_bytes += len(chunk)
            return
        self._buf += chunk
        if len(self._buf) > self._limit:
            self.discarded_bytes += len(self._buf)
            self._buf.clear()
            self._overlong = True

    def _finish(self) -> Frame | None:
        if self._overlong:
            self._overlong = False
            self.errors += 1
            return None
        if not self._buf:
            return None  # back-to-back delimiters are harmless padding
        chunk = bytes(self._buf)
        self._buf.clear()
        try:
            frame = decode_frame(chunk)
        except ValueError:
            self.errors += 1
            self.discarded_bytes += len(chunk) + 1
            return None
        self.frames += 1
        return frame


# ---------------------------------------------------------------- messages

def _u48(value: int) -> bytes:
    return (value & TICKS_MASK).to_bytes(6, "little")


def _read_u48(data: bytes, offset: int) -> int:
    return int.from_bytes(data[offset:offset + 6], "little")


@dataclass(frozen=True, slots=True)
class Hello:
    """Sent by the box at boot and on request: who it is and how it counts."""

    seq: int                # next event sequence number
    boot_id: int
    n_inputs: int
    tick_hz: int
    debounce_us: int
    now: int                # box ticks when the frame was built
    fw_version: tuple[int, int] = (1, 0)
    protocol: int = PROTOCOL_VERSION

    def encode(self) -> bytes:
        payload = struct.pack("<BBBBIII", self.protocol, self.fw_version[0], self.fw_version[1],
                              self.n_inputs, self.boot_id, self.tick_hz, self.debounce_us)
        return encode_frame(HELLO, self.seq, payload + _u48(self.now))


@dataclass(frozen=True, slots=True)
class Event:
    """A debounced edge of box input ``input`` at box time ``at`` (ticks)."""

    seq: int
    input: int
    pressed: bool
    at: int

    def encode(self) -> bytes:
        payload = struct.pack("<BB", self.input, EDGE_PRESS if self.pressed else EDGE_RELEASE)
        return encode_frame(EVENT, self.seq, payload + _u48(self.at))


@dataclass(frozen=True, slots=True)
class TimeReply:
    """Answer to a time query: the box clock when the reply was built."""

    seq: int
    token: int
    boot_id: int
    now: int

    def encode(self) -> bytes:
        return encode_frame(TIME, self.seq, struct.pack("<II", self.token, self.boot_id) + _u48(self.now))


@dataclass(frozen=True, slots=True)
class Report:
    """Error and overflow counters since boot (cumulative, so a lost report
    loses nothing) plus the oldest event the box can still replay."""

    seq: int
    reason: int
    snapshots_dropped: int
    events_dropped: int
    rx_errors: int
    oldest_seq: int

    def encode(self) -> bytes:
        return encode_frame(REPORT, self.seq, struct.pack(
            "<BIIIH", self.reason, self.snapshots_dropped, self.events_dropped,
            self.rx_errors, self.oldest_seq))


@dataclass(frozen=True, slots=True)
class HelloRequest:
    seq: int = 0

    def encode(self) -> bytes:
        return encode_frame(HELLO_REQ, self.seq)


@dataclass(frozen=True, slots=True)
class TimeRequest:
    token: int
    seq: int = 0

    def encode(self) -> bytes:
        return encode_frame(TIME_REQ, self.seq, struct.pack("<I", self.token & 0xFFFFFFFF))


@dataclass(frozen=True, slots=True)
class SetLamps:
    """Lamp outputs: a bit per input; ``blink`` wins over ``on``."""

    on_mask: int
    blink_mask: int
    seq: int = 0

    def encode(self) -> bytes:
        return encode_frame(LAMPS, self.seq, struct.pack("<HH", self.on_mask & 0xFFFF, self.blink_mask & 0xFFFF))


@dataclass(frozen=True, slots=True)
class Replay:
    """Ask the box to send again every event from ``from_seq`` on."""

    from_seq: int
    seq: int = 0

    def encode(self) -> bytes:
        return encode_frame(REPLAY, self.seq, struct.pack("<H", self.from_seq % SEQ_MOD))


Message = Hello | Event | TimeReply | Report | HelloRequest | TimeRequest | SetLamps | Replay


def parse_message(frame: Frame) -> Message | None:
    """The message a checked frame carries, or None for an unknown type or a
    payload of the wrong length (a newer peer, or a bug: ignored, not fatal)."""
    p = frame.payload
    t = frame.type
    try:
        if t == HELLO and len(p) == 22:
            proto, major, minor, n, boot, hz, deb = struct.unpack_from("<BBBBIII", p)
            return Hello(frame.seq, boot, n, hz, deb, _read_u48(p, 16), (major, minor), proto)
        if t == EVENT and len(p) == 8:
            return Event(frame.seq, p[0], p[1] == EDGE_PRESS, _read_u48(p, 2))
        if t == TIME and len(p) == 14:
            token, boot = struct.unpack_from("<II", p)
            return TimeReply(frame.seq, token, boot, _read_u48(p, 8))
        if t == REPORT and len(p) == 15:
            return Report(frame.seq, *struct.unpack("<BIIIH", p))
        if t == HELLO_REQ and not p:
            return HelloRequest(frame.seq)
        if t == TIME_REQ and len(p) == 4:
            return TimeRequest(struct.unpack("<I", p)[0], frame.seq)
        if t == LAMPS and len(p) == 4:
            on, blink = struct.unpack("<HH", p)
            return SetLamps(on, blink, frame.seq)
        if t == REPLAY and len(p) == 2:
            return Replay(struct.unpack("<H", p)[0], frame.seq)
    except struct.error:  # pragma: no cover - lengths are checked above
        return None
    return None


def seq_diff(a: int, b: int) -> int:
    """``a - b`` on the 16-bit sequence circle, in -32768..32767."""
    d = (a - b) % SEQ_MOD
    return d - SEQ_MOD if d >= SEQ_MOD // 2 else d
