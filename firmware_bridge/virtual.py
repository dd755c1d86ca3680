"""A virtual seat controller behind a pyserial URL (``virtualseat://NAME?options``).

It runs the same protocol as the AVR firmware in a thread, with a board clock, an event queue
kept in a (simulated) EEPROM journal, heartbeats and the host-lost safe state, so the host link
and the dashboard can be exercised without hardware. Faults are injected on the wire in both
directions (drop, corrupt, delay, duplicate) and on the board (reset, unplug, old firmware).

URL options: ``seats``, ``buttons``, ``firmware`` (e.g. ``0.9.0``; its major is the protocol
major it speaks), ``drop``, ``corrupt``, ``delay``, ``delay_s``, ``duplicate`` (probabilities
per frame), ``seed``, ``reset_on_open`` (0/1, like an Uno/Nano whose DTR line resets it).
The board lives on across port closes: ``board(NAME)`` returns it to press buttons or unplug it.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import random
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import serial
from serial.serialutil import PortNotOpenError, SerialBase, SerialException

from firmware_bridge.protocol import (
    CAP_BUZZER,
    CAP_JOURNAL,
    CAP_LEDS,
    CAP_LONG_PRESS,
    Ack,
    Error,
    ErrorCode,
    Event,
    FrameDecoder,
    Heartbeat,
    Hello,
    HelloAck,
    Led,
    Message,
    MsgType,
    PressKind,
    ProtocolError,
    ResetReason,
    SetState,
    decode_message,
    encode_message,
)

log = logging.getLogger(__name__)

SCHEME = "virtualseat"
FAULT_KINDS = ("drop", "corrupt", "delay", "duplicate")
if "firmware_bridge" not in serial.protocol_handler_packages:
    # pyserial imports ``<package>.protocol_<scheme>`` for a URL; see protocol_virtualseat.py.
    serial.protocol_handler_packages.append("firmware_bridge")


@dataclass
class Faults:
    """Per-frame fault probabilities on the wire, both directions."""

    drop: float = 0.0
    corrupt: float = 0.0
    delay: float = 0.0
    delay_s: float = 0.3
    duplicate: float = 0.0
    seed: int = 0
    reset_on_open: bool = False


@dataclass
class BoardTiming:
    """The firmware's timers (seconds); the same values as firmware/board.h."""

    heartbeat: float = 0.5
    lost_after: float = 1.5
    resend: float = 0.2


class FaultyPipe:
    """One direction of the cable: whole frames, each possibly dropped, corrupted, delayed or
    duplicated. Delivery order follows release time, so a delay also reorders."""

    def __init__(self, faults: Faults, rng: random.Random, counts: dict[str, int]) -> None:
        self.faults = faults
        self._rng = rng
        self._counts = counts
        self._heap: list[tuple[float, int, bytes]] = []
        self._n = itertools.count()
        self.cond = threading.Condition()

    def send(self, data: bytes) -> None:
        f, rng = self.faults, self._rng
        copies = 1
        if rng.random() < f.drop:
            self._counts["drop"] += 1
            return
        if rng.random() < f.duplicate:
            self._counts["duplicate"] += 1
            copies = 2
        now = time.monotonic()
        with self.cond:
            for _ in range(copies):
                item = data
                if rng.random() < f.corrupt and item:
                    self._counts["corrupt"] += 1
                    buf = bytearray(item)
                    buf[rng.randrange(len(buf))] ^= rng.randrange(1, 256)
                    item = bytes(buf)
                release = now
                if rng.random() < f.delay:
                    self._counts["delay"] += 1
                    release += f.delay_s
                heapq.heappush(self._heap, (release, next(self._n), item))
            self.cond.notify_all()

    def take(self) -> bytes:
        """All bytes due now (call with ``cond`` held or not; it locks itself)."""
        now = time.monotonic()
        out = bytearray()
        with self.cond:
            while self._heap and self._heap[0][0] <= now:
                out += heapq.heappop(self._heap)[2]
        return bytes(out)

    def next_due(self) -> float | None:
        with self.cond:
            return self._heap[0][0] if self._heap else None

    def clear(self) -> None:
        with self.cond:
            self._heap.clear()
            self.cond.notify_all()


@dataclass
class Pending:
    """A press waiting for the host's ACK; ``sent`` is when it last went out (None: never)."""

    seq: int
    event: Event
    sent: float | None = None


@dataclass
class Outputs:
    """What a person at the table sees and hears."""

    leds: list[int]
    alarm: int = 0
    buzz: int = 0
    buzz_id: int = 0
    buzzes: int = 0  # how many times the buzzer actually sounded
    host_lost: bool = True


@dataclass
class VirtualBoard:
    """The simulated controller. Thread-safe: tests press buttons from their own thread."""

    name: str
    seats: int = 4
    buttons: int = 3
    firmware: tuple[int, int, int] = (1, 0, 0)
    faults: Faults = field(default_factory=Faults)
    timing: BoardTiming = field(default_factory=BoardTiming)
    queue_size: int = 16
    board_id: int = 0
    boot: int = 1
    overflow: int = 0
    wire: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FAULT_KINDS, 0))
    plugged: bool = True
    _journal: list[Pending] = field(default_factory=list)  # survives resets, like EEPROM

    def __post_init__(self) -> None:
        rng = random.Random(self.faults.seed)
        self.board_id = self.board_id or rng.getrandbits(32)
        self.to_host = FaultyPipe(self.faults, rng, self.wire)
        self.to_board = FaultyPipe(self.faults, rng, self.wire)
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._attached: VirtualSerial | None = None
        self.resets = 0
        self._boot_up(ResetReason.POWER_ON)
        self._thread = threading.Thread(target=self._run, name=f"virtualseat-{self.name}")
        self._thread.daemon = True
        self._thread.start()

    # -- the person at the table --------------------------------------------------------------

    def press(self, seat: int, button: int = 0, long: bool = False) -> tuple[int, int]:
        """Press a button; returns the press's identity (boot, seq)."""
        if not (0 <= seat < self.seats and 0 <= button < self.buttons):
            raise ValueError(f"board {self.name}: no button {button} at seat {seat}")
        with self._lock:
            kind = PressKind.LONG if long else PressKind.PRESS
            ev = Event(self.boot, seat, button, kind, self._ms())
            self._seq = (self._seq + 1) & 0xFFFF
            if len(self._queue) >= self.queue_size:
                self.overflow += 1
                log.warning("board %s: event queue full, press lost", self.name)
                return (self.boot, self._seq)
            p = Pending(self._seq, ev)
            self._queue.append(p)
            self._journal.append(p)
            return (self.boot, self._seq)

    def outputs(self) -> Outputs:
        with self._lock:
            return Outputs(
                list(self._out.leds),
                self._out.alarm,
                self._out.buzz,
                self._out.buzz_id,
                self._out.buzzes,
                self._out.host_lost,
            )

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    @property
    def in_session(self) -> bool:
        with self._lock:
            return self._session

    # -- faults ------------------------------------------------------------------------------

    def reset(self, reason: ResetReason = ResetReason.EXTERNAL) -> None:
        """Reboot: RAM state gone, the journal (EEPROM) and the boot counter kept."""
        with self._lock:
            self.resets += 1
            self.boot = (self.boot + 1) & 0xFFFF or 1
            self._boot_up(reason)
            self.to_board.clear()

    def unplug(self) -> None:
        """Pull the cable: the open port fails on its next read or write; the board stays
        powered (a hub or external supply) and soon notices the host is gone."""
        with self._lock:
            self.plugged = False
            self.to_board.clear()
            self.to_host.clear()

    def plug(self) -> None:
        with self._lock:
            self.plugged = True

    def close(self) -> None:
        """Stop the board's thread (end of a test)."""
        self._stop.set()
        with self.to_board.cond:
            self.to_board.cond.notify_all()
        self._thread.join(timeout=5)
        _BOARDS.pop(self.name, None)

    # -- the firmware ------------------------------------------------------------------------

    _seq: int = field(default=0, init=False, repr=False)

    def _boot_up(self, reason: ResetReason) -> None:
        self._t0 = time.monotonic()
        self._reason = reason
        self._session = False
        self._seq = 0
        self._tx_seq = 0
        self._last_rx = 0.0
        self._last_hb = 0.0
        self._decoder = FrameDecoder(name=f"virtualseat {self.name}")
        self._queue: list[Pending] = [Pending(p.seq, p.event) for p in self._journal]
        self._journal = list(self._queue)
        self._out = Outputs([Led.OFF] * self.seats)

    def _ms(self) -> int:
        return int((time.monotonic() - self._t0) * 1000)

    def _send(self, msg: Message, seq: int | None = None) -> None:
        if seq is None:
            self._tx_seq = (self._tx_seq + 1) & 0xFFFF
            seq = self._tx_seq
        data = encode_message(msg, seq, version=self.firmware[0])
        if self.plugged and self._attached is not None:
            self.to_host.send(data)

    def _run(self) -> None:
        while not self._stop.is_set():
            with self.to_board.cond:
                due = self.to_board.next_due()
                wait = 0.01 if due is None else max(0.0, min(0.01, due - time.monotonic()))
                if wait:
                    self.to_board.cond.wait(wait)
            data = self.to_board.take()
            with self._lock:
                for frame in self._decoder.feed(data):
                    try:
                        msg = decode_message(frame)
                    except ProtocolError as exc:
                        self._last_rx = time.monotonic()
                        self._send(Error(ErrorCode.BAD_PAYLOAD, frame.seq, str(exc)[:40]))
                        continue
                    self._handle(msg, frame.seq)
                self._tick(time.monotonic())

    def _handle(self, msg: Message, seq: int) -> None:
        now = time.monotonic()
        self._last_rx = now
        if isinstance(msg, Hello):
            self._session = True
            self._out.host_lost = False
            self._last_hb = now
            for p in self._queue:
                p.sent = None
            self._send(
                HelloAck(
                    msg.nonce,
                    self.firmware[0],
                    0,
                    self.firmware,
                    self.board_id,
                    self.boot,
                    self.seats,
                    self.buttons,
                    CAP_LEDS | CAP_BUZZER | CAP_LONG_PRESS | CAP_JOURNAL,
                    self._reason,
                )
            )
            return
        if not self._session:
            self._send(Error(ErrorCode.NO_SESSION, seq, "send HELLO first"))
            return
        if isinstance(msg, SetState):
            if len(msg.leds) != self.seats:
                self._send(Error(ErrorCode.BAD_PAYLOAD, seq, f"board has {self.seats} seats"))
                return
            self._out.leds = list(msg.leds)
            self._out.alarm = msg.alarm
            if msg.buzz and msg.buzz_id != self._out.buzz_id:
                self._out.buzzes += 1
            self._out.buzz, self._out.buzz_id = msg.buzz, msg.buzz_id
            self._send(Ack(MsgType.SET_STATE, seq))
        elif (
            isinstance(msg, Ack)
            and msg.type == MsgType.EVENT
            and self._queue
            and self._queue[0].seq == msg.seq
        ):
            done = self._queue.pop(0)
            self._journal = [p for p in self._journal if p is not done]

    def _tick(self, now: float) -> None:
        t = self.timing
        if not self._session:
            return
        if now - self._last_rx > t.lost_after:
            log.info("board %s: host lost, safe state", self.name)
            self._session = False
            # Like the firmware: the last buzz id is kept, so the state pushed after the
            # reconnect does not buzz again.
            self._out = Outputs(
                [Led.OFF] * self.seats, buzz_id=self._out.buzz_id, buzzes=self._out.buzzes
            )
            return
        if now - self._last_hb >= t.heartbeat:
            self._last_hb = now
            self._send(
                Heartbeat(
                    self._ms(), len(self._queue), self.overflow, sum(self._decoder.errors.values())
                )
            )
        if self._queue:
            head = self._queue[0]
            if head.sent is None or now - head.sent >= t.resend:
                head.sent = now
                self._send(head.event, seq=head.seq)

    # -- the USB side ------------------------------------------------------------------------

    def attach(self, port: VirtualSerial) -> None:
        with self._lock:
            if not self.plugged:
                raise SerialException(f"virtualseat://{self.name}: no such device (unplugged)")
            self._attached = port
            self.to_host.clear()
            self.to_board.clear()
            if self.faults.reset_on_open:
                self.reset(ResetReason.EXTERNAL)

    def detach(self, port: VirtualSerial) -> None:
        with self._lock:
            if self._attached is port:
                self._attached = None


_BOARDS: dict[str, VirtualBoard] = {}
_BOARDS_LOCK = threading.Lock()


def create_board(name: str, **kwargs: Any) -> VirtualBoard:
    """Create (replacing any old one) and register the board that ``virtualseat://name`` opens."""
    with _BOARDS_LOCK:
        old = _BOARDS.pop(name, None)
    if old is not None:
        old.close()
    b = VirtualBoard(name, **kwargs)
    with _BOARDS_LOCK:
        _BOARDS[name] = b
    return b


def board(name: str) -> VirtualBoard:
    with _BOARDS_LOCK:
        return _BOARDS[name]


def _parse_url(url: str) -> tuple[str, dict[str, Any]]:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != SCHEME or not parts.netloc:
        raise SerialException(f"expected virtualseat://NAME[?options], got {url!r}")
    kw: dict[str, Any] = {}
    faults = Faults()
    conv: dict[str, Callable[[str], Any]] = {"seats": int, "buttons": int}
    for key, values in urllib.parse.parse_qs(parts.query, keep_blank_values=True).items():
        value = values[-1]
        try:
            if key in conv:
                kw[key] = conv[key](value)
            elif key == "firmware":
                a, b_, c = (int(x) for x in value.split("."))
                kw["firmware"] = (a, b_, c)
            elif key in ("drop", "corrupt", "delay", "delay_s", "duplicate"):
                setattr(faults, key, float(value))
            elif key == "seed":
                faults.seed = int(value)
            elif key == "reset_on_open":
                faults.reset_on_open = value not in ("0", "false", "")
            else:
                raise ValueError("unknown option")
        except ValueError as exc:
            raise SerialException(f"{url}: bad option {key}={value!r} ({exc})") from None
    kw["faults"] = faults
    return parts.netloc, kw


class VirtualSerial(SerialBase):  # type: ignore[misc]
    """pyserial's face of a virtual board: ``serial.serial_for_url('virtualseat://t1')``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._board: VirtualBoard | None = None
        self._rx = bytearray()
        self.is_open: bool = False
        super().__init__(*args, **kwargs)

    def open(self) -> None:
        if self.is_open:
            raise SerialException("port is already open")
        if self._port is None:
            raise SerialException("port must be configured before it can be used")
        name, kw = _parse_url(self._port)
        with _BOARDS_LOCK:
            b = _BOARDS.get(name)
        if b is None:
            b = create_board(name, **kw)
        b.attach(self)
        self._board = b
        self._rx.clear()
        self.is_open = True

    def close(self) -> None:
        if self._board is not None:
            self._board.detach(self)
        self._board = None
        self.is_open = False

    def _reconfigure_port(self, force_update: bool = False) -> None:
        pass

    def _live(self) -> VirtualBoard:
        if not self.is_open or self._board is None:
            raise PortNotOpenError()
        b = self._board
        if not b.plugged or b._attached is not self:
            raise SerialException(f"virtualseat://{b.name}: device disconnected")
        return b

    @property
    def in_waiting(self) -> int:
        self._rx += self._live().to_host.take()
        return len(self._rx)

    def read(self, size: int = 1) -> bytes:
        b = self._live()
        deadline = None if self._timeout is None else time.monotonic() + self._timeout
        pipe = b.to_host
        while len(self._rx) < size:
            self._rx += pipe.take()
            if len(self._rx) >= size:
                break
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                break
            due = pipe.next_due()
            wait = 0.05 if deadline is None else deadline - now
            if due is not None:
                wait = min(wait, max(0.0, due - now))
            with pipe.cond:
                if not pipe._heap or pipe._heap[0][0] > now:
                    pipe.cond.wait(min(wait, 0.05))
            b = self._live()
        data = bytes(self._rx[:size])
        del self._rx[:size]
        return data

    def write(self, data: bytes) -> int:
        b = self._live()
        b.to_board.send(bytes(data))
        return len(data)

    def reset_input_buffer(self) -> None:
        self._rx.clear()

    def reset_output_buffer(self) -> None:
        pass
