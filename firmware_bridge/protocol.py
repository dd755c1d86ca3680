"""Seat-controller wire protocol v1: COBS frames with a CRC-16, and the typed messages.

One frame on the wire is ``COBS(body ‖ crc16) 0x00`` where ``body = version, type, seq(2),
payload`` and ``crc16`` is CRC-16/CCITT-FALSE (big-endian) over the body. The 0x00 delimiter
lets a receiver that joins mid-stream resynchronise at the next frame, and the CRC makes sure a
bumped cable never turns into a phantom button press. PROTOCOL.md is the normative text; the
firmware's ``proto.c`` implements the same bytes.
"""

from __future__ import annotations

import binascii
import logging
import struct
import time
from collections import Counter
from dataclasses import dataclass, field
from enum import IntEnum

from cobs import cobs

log = logging.getLogger(__name__)

PROTOCOL_MAJOR = 1
PROTOCOL_MINOR = 0
HEADER = struct.Struct(">BBH")  # version, type, seq
MAX_BODY = 64  # largest body any v1 message needs; longer frames are noise
MAX_ENCODED = MAX_BODY + 2 + 2  # COBS adds at most one byte per 254, plus the CRC
LOG_WINDOW_S, LOG_PER_WINDOW = 10.0, 20


class MsgType(IntEnum):
    """Message types. HELLO and HELLO_ACK (and HELLO_ACK's first fields) never change across
    major versions, so any host can tell any firmware why it refuses it."""

    HELLO = 0x01
    HELLO_ACK = 0x02
    HEARTBEAT = 0x03
    EVENT = 0x04
    SET_STATE = 0x05
    ACK = 0x06
    ERROR = 0x07


class Led(IntEnum):
    OFF = 0
    ON = 1
    BLINK = 2
    FAST_BLINK = 3


class PressKind(IntEnum):
    PRESS = 1
    LONG = 2


class ResetReason(IntEnum):
    UNKNOWN = 0
    POWER_ON = 1
    EXTERNAL = 2  # the reset pin: on Uno/Nano, the host opening the port (DTR)
    BROWN_OUT = 3
    WATCHDOG = 4


class ErrorCode(IntEnum):
    BAD_FRAME = 1
    UNKNOWN_TYPE = 2
    BAD_PAYLOAD = 3
    VERSION = 4
    NO_SESSION = 5


CAP_LEDS = 0x01
CAP_BUZZER = 0x02
CAP_LONG_PRESS = 0x04
CAP_JOURNAL = 0x08  # unacknowledged presses survive a reset (kept in EEPROM)


class ProtocolError(ValueError):
    """A frame or payload that does not follow the protocol; the text names what and where."""


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor."""
    return binascii.crc_hqx(data, 0xFFFF)


def encode_frame(body: bytes) -> bytes:
    """Wrap one body for the wire (COBS, CRC, delimiter)."""
    if len(body) > MAX_BODY:
        raise ProtocolError(f"body of {len(body)} bytes exceeds the {MAX_BODY}-byte limit")
    return bytes(cobs.encode(body + crc16(body).to_bytes(2, "big"))) + b"\x00"


@dataclass(frozen=True)
class Frame:
    """One checked frame: header fields and the raw payload."""

    version: int
    type: int
    seq: int
    payload: bytes

    def body(self) -> bytes:
        return HEADER.pack(self.version, self.type, self.seq) + self.payload

    def encode(self) -> bytes:
        return encode_frame(self.body())


@dataclass
class FrameDecoder:
    """Turns a byte stream into checked frames; anything else is counted, logged and skipped.

    ``errors`` counts rejects by reason (cobs, short, crc, oversize) so the health page can show
    a dirty cable; ``offset`` is the stream position, used to say where a bad frame was.
    """

    name: str = "serial"
    errors: Counter[str] = field(default_factory=Counter)
    frames: int = 0
    offset: int = 0
    _buf: bytearray = field(default_factory=bytearray)
    _overflow: bool = False
    _window: float = float("-inf")
    _logged: int = 0
    _suppressed: int = 0

    def feed(self, data: bytes) -> list[Frame]:
        out: list[Frame] = []
        for byte in data:
            self.offset += 1
            if byte != 0:
                if len(self._buf) >= MAX_ENCODED:
                    self._overflow = True
                else:
                    self._buf.append(byte)
                continue
            raw, overflow = bytes(self._buf), self._overflow
            self._buf.clear()
            self._overflow = False
            if overflow:
                self._reject("oversize", f"frame longer than {MAX_ENCODED} bytes")
            elif raw:
                frame = self._check(raw)
                if frame is not None:
                    out.append(frame)
        return out

    def _check(self, raw: bytes) -> Frame | None:
        try:
            data = bytes(cobs.decode(raw))
        except cobs.DecodeError as exc:
            self._reject("cobs", f"bad COBS encoding ({exc})")
            return None
        if len(data) < HEADER.size + 2:
            self._reject("short", f"{len(data)} bytes, fewer than header and CRC")
            return None
        body, got = data[:-2], int.from_bytes(data[-2:], "big")
        want = crc16(body)
        if got != want:
            self._reject("crc", f"bad CRC (got 0x{got:04x}, computed 0x{want:04x})")
            return None
        version, mtype, seq = HEADER.unpack_from(body)
        self.frames += 1
        return Frame(version, mtype, seq, body[HEADER.size :])

    def _reject(self, reason: str, text: str) -> None:
        self.errors[reason] += 1
        now = time.monotonic()
        if now - self._window >= LOG_WINDOW_S:
            if self._suppressed:
                log.warning("%s: %d more rejected frames not logged", self.name, self._suppressed)
            self._window, self._logged, self._suppressed = now, 0, 0
        if self._logged >= LOG_PER_WINDOW:  # a noisy cable must not flood the log
            self._suppressed += 1
            return
        self._logged += 1
        log.warning("%s: frame rejected ending at stream byte %d: %s", self.name, self.offset, text)


# ---------------------------------------------------------------------------------------------
# Messages. Each has a fixed struct layout (big-endian); ``pack`` gives the payload.


@dataclass(frozen=True)
class Hello:
    nonce: int
    major: int = PROTOCOL_MAJOR
    minor: int = PROTOCOL_MINOR
    LAYOUT = struct.Struct(">IBB")

    def pack(self) -> bytes:
        return self.LAYOUT.pack(self.nonce, self.major, self.minor)


@dataclass(frozen=True)
class HelloAck:
    nonce: int
    major: int
    minor: int
    firmware: tuple[int, int, int]
    board_id: int
    boot: int
    seats: int
    buttons: int
    caps: int
    reset_reason: int
    LAYOUT = struct.Struct(">IBBBBBIHBBBB")

    def pack(self) -> bytes:
        return self.LAYOUT.pack(
            self.nonce,
            self.major,
            self.minor,
            *self.firmware,
            self.board_id,
            self.boot,
            self.seats,
            self.buttons,
            self.caps,
            self.reset_reason,
        )

    @property
    def firmware_text(self) -> str:
        return ".".join(map(str, self.firmware))


@dataclass(frozen=True)
class Heartbeat:
    """Sign of life; the board's also says how many presses wait, how many were lost to a
    full queue, and how many frames it rejected (the host→board half of cable health)."""

    ms: int
    pending: int = 0
    overflow: int = 0
    bad_frames: int = 0
    LAYOUT = struct.Struct(">IBHH")

    def pack(self) -> bytes:
        return self.LAYOUT.pack(
            self.ms & 0xFFFFFFFF, self.pending, self.overflow & 0xFFFF, self.bad_frames & 0xFFFF
        )


@dataclass(frozen=True)
class Event:
    """A button press. Its identity is (board, boot, seq): ``boot`` is the boot in which it
    happened, so a press kept in the board's journal across a reset is still recognised."""

    boot: int
    seat: int
    button: int
    kind: int
    ms: int
    LAYOUT = struct.Struct(">HBBBI")

    def pack(self) -> bytes:
        return self.LAYOUT.pack(self.boot, self.seat, self.button, self.kind, self.ms & 0xFFFFFFFF)


@dataclass(frozen=True)
class SetState:
    """The whole output state; applying it twice is the same as once (a resend is harmless).
    ``buzz_id`` changes when a new buzz is wanted, so a resent state does not buzz again."""

    leds: tuple[int, ...]
    alarm: int = 0
    buzz: int = 0
    buzz_id: int = 0

    def pack(self) -> bytes:
        return bytes([len(self.leds), *self.leds, self.alarm, self.buzz, self.buzz_id])


@dataclass(frozen=True)
class Ack:
    type: int
    seq: int
    LAYOUT = struct.Struct(">BH")

    def pack(self) -> bytes:
        return self.LAYOUT.pack(self.type, self.seq)


@dataclass(frozen=True)
class Error:
    code: int
    ref_seq: int
    text: str = ""
    LAYOUT = struct.Struct(">BH")

    def pack(self) -> bytes:
        return self.LAYOUT.pack(self.code, self.ref_seq) + self.text.encode("ascii", "replace")[:40]


Message = Hello | HelloAck | Heartbeat | Event | SetState | Ack | Error

_TYPE_OF: dict[type, MsgType] = {
    Hello: MsgType.HELLO,
    HelloAck: MsgType.HELLO_ACK,
    Heartbeat: MsgType.HEARTBEAT,
    Event: MsgType.EVENT,
    SetState: MsgType.SET_STATE,
    Ack: MsgType.ACK,
    Error: MsgType.ERROR,
}


def message_type(msg: Message) -> MsgType:
    return _TYPE_OF[type(msg)]


def encode_message(msg: Message, seq: int, version: int = PROTOCOL_MAJOR) -> bytes:
    """The wire bytes of one message."""
    body = HEADER.pack(version, message_type(msg), seq & 0xFFFF) + msg.pack()
    return encode_frame(body)


def _fixed(layout: struct.Struct, payload: bytes, what: str) -> tuple[int, ...]:
    if len(payload) != layout.size:
        raise ProtocolError(f"{what} payload has {len(payload)} bytes, expected {layout.size}")
    return layout.unpack(payload)


def decode_message(frame: Frame) -> Message:
    """Parse a checked frame's payload. Raises ProtocolError naming the type and the problem."""
    if frame.type == MsgType.HELLO_ACK:
        # Parsed before the version check: it is how an old firmware is recognised and refused.
        n, ma, mi, f1, f2, f3, bid, boot, seats, btn, caps, rr = _fixed(
            HelloAck.LAYOUT, frame.payload[: HelloAck.LAYOUT.size], "HELLO_ACK"
        )
        return HelloAck(n, ma, mi, (f1, f2, f3), bid, boot, seats, btn, caps, rr)
    if frame.version != PROTOCOL_MAJOR:
        raise ProtocolError(
            f"frame seq {frame.seq} speaks protocol {frame.version}, this host speaks "
            f"{PROTOCOL_MAJOR}"
        )
    p = frame.payload
    match frame.type:
        case MsgType.HELLO:
            nonce, major, minor = _fixed(Hello.LAYOUT, p, "HELLO")
            return Hello(nonce, major, minor)
        case MsgType.HEARTBEAT:
            return Heartbeat(*_fixed(Heartbeat.LAYOUT, p, "HEARTBEAT"))
        case MsgType.EVENT:
            boot, seat, button, kind, ms = _fixed(Event.LAYOUT, p, "EVENT")
            if kind not in (PressKind.PRESS, PressKind.LONG):
                raise ProtocolError(f"EVENT seq {frame.seq}: unknown press kind {kind}")
            return Event(boot, seat, button, kind, ms)
        case MsgType.SET_STATE:
            if not p or len(p) != p[0] + 4:
                raise ProtocolError(f"SET_STATE seq {frame.seq}: length does not match seats")
            n = p[0]
            leds = tuple(p[1 : 1 + n])
            if any(v > Led.FAST_BLINK for v in leds):
                raise ProtocolError(f"SET_STATE seq {frame.seq}: unknown LED mode in {leds}")
            return SetState(leds, p[1 + n], p[2 + n], p[3 + n])
        case MsgType.ACK:
            return Ack(*_fixed(Ack.LAYOUT, p, "ACK"))
        case MsgType.ERROR:
            if len(p) < Error.LAYOUT.size:
                raise ProtocolError(f"ERROR seq {frame.seq}: payload too short")
            code, ref = Error.LAYOUT.unpack_from(p)
            return Error(code, ref, p[Error.LAYOUT.size :].decode("ascii", "replace"))
    raise ProtocolError(f"frame seq {frame.seq}: unknown message type 0x{frame.type:02x}")


def seq_newer(a: int, b: int) -> bool:
    """True when 16-bit sequence number ``a`` comes after ``b`` (serial-number arithmetic)."""
    return 0 < ((a - b) & 0xFFFF) < 0x8000
