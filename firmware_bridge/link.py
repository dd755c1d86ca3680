"""The host end of the seat-controller link: handshake, heartbeats, resends and reconnects.

A ``SeatLink`` owns one serial port in its own thread. Every press the board reports is ACKed
and handed on exactly once (de-duplicated by board, boot and sequence number); the wanted LED
state is re-sent until the board ACKs it and pushed again after every reconnect, so the table
shows the engine's state whatever happened to the cable. Counters for the health page are in
``stats``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import random
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import serial

import firmware_bridge.virtual  # noqa: F401  (registers the virtualseat:// URL handler)
from firmware_bridge.protocol import (
    PROTOCOL_MAJOR,
    Ack,
    Error,
    ErrorCode,
    Event,
    FrameDecoder,
    Heartbeat,
    Hello,
    HelloAck,
    Message,
    MsgType,
    ProtocolError,
    SetState,
    decode_message,
    encode_message,
    seq_newer,
)

log = logging.getLogger(__name__)


class FirmwareRefused(RuntimeError):
    """The board speaks another major protocol version; it needs reflashing."""


@dataclass(frozen=True)
class Timing:
    """Link timers in seconds (PROTOCOL.md gives the same numbers)."""

    heartbeat: float = 0.5
    lost_after: float = 1.5  # three missed heartbeats
    resend: float = 0.2
    hello_every: float = 0.25
    hello_for: float = 3.0  # an Uno/Nano boots for ~1-2 s after the port opens
    reopen_every: float = 0.2
    read_timeout: float = 0.02


@dataclass(frozen=True)
class ButtonEvent:
    """One press, delivered once. ``t`` is the host's monotonic clock at arrival."""

    board_id: int
    boot: int
    seq: int
    seat: int
    button: int
    kind: int
    board_ms: int
    t: float


@dataclass
class LinkStats:
    """What the health page shows about the cable and the board."""

    state: str = "closed"  # closed, opening, handshake, connected, refused
    port: str = ""
    frames_in: int = 0
    frames_out: int = 0
    bad_frames: dict[str, int] = field(default_factory=dict)
    protocol_errors: int = 0
    board_errors: int = 0
    events: int = 0
    duplicates: int = 0
    state_sends: int = 0
    state_resends: int = 0
    handshakes: int = 0
    reconnects: int = 0  # port closed and opened again (unplug, no answer)
    silences: int = 0  # board quiet for lost_after: handshake again on the same port
    board_overflow: int = 0
    board_bad_frames: int = 0  # frames the board rejected since it booted
    board_pending: int = 0
    last_error: str = ""
    board: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def prefer_by_id(port: str, by_id_dir: Path = Path("/dev/serial/by-id")) -> str:
    """The stable ``/dev/serial/by-id/...`` name of a device path, when there is one: after an
    unplug the kernel may give the board another ttyUSB number, never another by-id name."""
    if "://" in port or not by_id_dir.is_dir():
        return port
    real = os.path.realpath(port)
    for link in sorted(by_id_dir.iterdir()):
        if os.path.realpath(link) == real:
            return str(link)
    return port


class SeatLink:
    """Runs the link to one board. Use as a context manager, or ``start()``/``stop()``."""

    def __init__(
        self,
        url: str,
        *,
        timing: Timing | None = None,
        on_event: Callable[[ButtonEvent], None] | None = None,
        baudrate: int = 115200,
        seats: int | None = None,
    ) -> None:
        self.url = prefer_by_id(url)
        self.timing = timing or Timing()
        self.on_event = on_event
        self.baudrate = baudrate
        self.events: queue.Queue[ButtonEvent] = queue.Queue()
        self.stats = LinkStats(port=self.url)
        self.board: HelloAck | None = None
        self._seats = seats
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._port: Any = None
        self._decoder = FrameDecoder(name=self.url)
        self._session = False
        self._tx_seq = random.getrandbits(16)
        self._want: SetState | None = None
        self._want_seq = 0
        self._want_acked = True
        self._want_sent = 0.0
        self._last_rx = 0.0
        self._last_hb = 0.0
        self._seen: OrderedDict[tuple[int, int], int] = OrderedDict()

    # -- public ------------------------------------------------------------------------------

    def start(self) -> SeatLink:
        self._thread = threading.Thread(target=self._run, name=f"seatlink {self.url}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._close("stopped")

    def __enter__(self) -> SeatLink:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def set_state(self, state: SetState) -> None:
        """The LEDs/alarm/buzzer the table should show; sent until ACKed, and after every
        reconnect."""
        with self._lock:
            if state == self._want:
                return
            self._want = state
            self._want_acked = False
            self._want_sent = 0.0
            self._want_seq = self._next_seq()
            self._changed.notify_all()

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Wait until ``predicate()`` holds (checked at every change of link state)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(min(left, 0.1))
            return True

    def wait_connected(self, timeout: float = 10.0) -> bool:
        return self.wait_for(lambda: self.stats.state == "connected", timeout)

    def wait_state_applied(self, timeout: float = 10.0) -> bool:
        return self.wait_for(lambda: self._session and self._want_acked, timeout)

    # -- the thread --------------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                if self._port is None:
                    self._open()
                    continue
                if not self._session:
                    self._handshake()
                    continue
                self._pump()
            except (serial.SerialException, OSError) as exc:
                self._close(f"port error: {exc}")
                self._stop.wait(self.timing.reopen_every)
            except FirmwareRefused as exc:
                log.error("%s: %s", self.url, exc)
                self._close(str(exc), state="refused")
                self._stop.wait(5.0)  # someone may reflash it; try again slowly
            except Exception as exc:  # a bug here must not end the link for the whole match
                log.exception("%s: link failure", self.url)
                self._close(f"internal error: {exc!r}")
                self._stop.wait(1.0)

    def _open(self) -> None:
        self._set("opening")
        try:
            port = serial.serial_for_url(
                self.url, baudrate=self.baudrate, timeout=self.timing.read_timeout
            )
        except (serial.SerialException, OSError) as exc:
            self.stats.last_error = f"cannot open {self.url}: {exc}"
            self._stop.wait(self.timing.reopen_every)
            return
        self._port = port
        self._decoder = FrameDecoder(name=self.url)
        self._set("handshake")

    def _close(self, why: str, state: str = "closed") -> None:
        with self._lock:
            was = self._port is not None
            port, self._port, self._session = self._port, None, False
            self.stats.state = state
            if was:
                self.stats.last_error = why
            self._changed.notify_all()
        if port is not None:
            if not self._stop.is_set():
                self.stats.reconnects += 1
                log.warning("%s: link down (%s)", self.url, why)
            with contextlib.suppress(serial.SerialException, OSError):
                port.close()

    def _set(self, state: str) -> None:
        with self._lock:
            self.stats.state = state
            self._changed.notify_all()

    def _handshake(self) -> None:
        """Say HELLO until the board answers (it may be booting after the port opened)."""
        nonce = random.getrandbits(32)
        t = self.timing
        deadline = time.monotonic() + t.hello_for
        next_hello = 0.0
        while not self._stop.is_set() and time.monotonic() < deadline:
            now = time.monotonic()
            if now >= next_hello:
                self._send(Hello(nonce))
                next_hello = now + t.hello_every
            for _seq, msg in self._read():
                if isinstance(msg, HelloAck) and msg.nonce == nonce:
                    self._accept(msg)
                    return
        if not self._stop.is_set():
            self._close(f"no HELLO_ACK within {t.hello_for:.1f} s")

    def _accept(self, ack: HelloAck) -> None:
        info = {
            "board_id": f"{ack.board_id:08x}",
            "protocol": f"{ack.major}.{ack.minor}",
            "firmware": ack.firmware_text,
            "boot": ack.boot,
            "seats": ack.seats,
            "buttons": ack.buttons,
            "caps": ack.caps,
            "reset_reason": ack.reset_reason,
        }
        self.stats.board = info
        if ack.major != PROTOCOL_MAJOR:
            raise FirmwareRefused(
                f"board {info['board_id']} runs firmware {ack.firmware_text} speaking protocol "
                f"{ack.major}.{ack.minor}; this host needs protocol {PROTOCOL_MAJOR}.x: "
                "reflash the board (make -C firmware_bridge/firmware flash)"
            )
        if self._seats is not None and ack.seats < self._seats:
            raise FirmwareRefused(f"board has {ack.seats} seats, the table needs {self._seats}")
        now = time.monotonic()
        with self._lock:
            self.board = ack
            self._session = True
            self._last_rx = now
            self._last_hb = 0.0
            self.stats.handshakes += 1
            if self._want is not None:
                self._want_acked = False
                self._want_sent = 0.0
            self.stats.state = "connected"
            self._changed.notify_all()
        log.info(
            "%s: connected to board %s (firmware %s, boot %d, reset reason %d)",
            self.url,
            info["board_id"],
            ack.firmware_text,
            ack.boot,
            ack.reset_reason,
        )

    def _pump(self) -> None:
        for seq, msg in self._read():
            self._handle(seq, msg)
        now = time.monotonic()
        t = self.timing
        if now - self._last_rx > t.lost_after:
            with self._lock:
                self._session = False
                self.stats.state = "handshake"
                self.stats.silences += 1
                self.stats.last_error = f"no frame from the board for {t.lost_after:.1f} s"
                self._changed.notify_all()
            log.warning("%s: board silent, handshaking again", self.url)
            return
        if now - self._last_hb >= t.heartbeat:
            self._last_hb = now
            self._send(Heartbeat(int(now * 1000)))
        with self._lock:
            want, seq, acked, sent = (self._want, self._want_seq, self._want_acked, self._want_sent)
        if want is not None and not acked and now - sent >= t.resend:
            if sent:
                self.stats.state_resends += 1
            else:
                self.stats.state_sends += 1
            with self._lock:
                self._want_sent = now
            self._send(self._fit(want), seq)

    def _fit(self, state: SetState) -> SetState:
        """The state sized to the board: a 6-seat board at a 4-seat table keeps two seats dark
        (SET_STATE must name every seat the board has)."""
        n = self.board.seats if self.board is not None else len(state.leds)
        leds = (state.leds + (0,) * n)[:n]
        return state if leds == state.leds else replace(state, leds=leds)

    def _handle(self, seq: int, msg: Message) -> None:
        if isinstance(msg, Event):
            self._send(Ack(MsgType.EVENT, seq))
            self._deliver(seq, msg)
        elif isinstance(msg, Ack):
            if msg.type == MsgType.SET_STATE:
                with self._lock:
                    if msg.seq == self._want_seq:
                        self._want_acked = True
                        self._changed.notify_all()
        elif isinstance(msg, Heartbeat):
            self.stats.board_pending = msg.pending
            self.stats.board_overflow = msg.overflow
            self.stats.board_bad_frames = msg.bad_frames
        elif isinstance(msg, Error):
            self.stats.board_errors += 1
            self.stats.last_error = f"board error {msg.code} on seq {msg.ref_seq}: {msg.text}"
            log.warning("%s: %s", self.url, self.stats.last_error)
            if msg.code == ErrorCode.NO_SESSION:  # the board rebooted under us
                with self._lock:
                    self._session = False
                    self.stats.state = "handshake"
                    self._changed.notify_all()

    def _deliver(self, seq: int, ev: Event) -> None:
        assert self.board is not None
        key = (self.board.board_id, ev.boot)
        last = self._seen.get(key)
        if last is not None and not seq_newer(seq, last):
            self.stats.duplicates += 1
            return
        self._seen[key] = seq
        self._seen.move_to_end(key)
        while len(self._seen) > 64:
            self._seen.popitem(last=False)
        self.stats.events += 1
        out = ButtonEvent(
            key[0], ev.boot, seq, ev.seat, ev.button, ev.kind, ev.ms, time.monotonic()
        )
        self.events.put(out)
        if self.on_event is not None:
            try:
                self.on_event(out)
            except Exception:  # a consumer's bug must not take the link down
                log.exception("%s: event handler failed", self.url)

    def _read(self) -> list[tuple[int, Message]]:
        port = self._port
        if port is None:
            return []
        data = port.read(max(1, port.in_waiting))
        if not data:
            return []
        out: list[tuple[int, Message]] = []
        for frame in self._decoder.feed(data):
            self.stats.frames_in += 1
            try:
                msg = decode_message(frame)
            except ProtocolError as exc:
                self.stats.protocol_errors += 1
                self.stats.last_error = f"{self.url}: {exc}"
                log.warning("%s: %s", self.url, exc)
                continue
            self._last_rx = time.monotonic()
            out.append((frame.seq, msg))
        self.stats.bad_frames = dict(self._decoder.errors)
        return out

    def _next_seq(self) -> int:
        self._tx_seq = (self._tx_seq + 1) & 0xFFFF
        return self._tx_seq

    def _send(self, msg: Message, seq: int | None = None) -> None:
        port = self._port
        if port is None:
            return
        if seq is None:
            with self._lock:
                seq = self._next_seq()
        port.write(encode_message(msg, seq))
        self.stats.frames_out += 1
