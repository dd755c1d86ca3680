"""Framing and messages: known CRC vectors, round trips, resync, and the decoder under fuzzing."""

from __future__ import annotations

import contextlib
import random

import pytest
from cobs import cobs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge.protocol import (
    MAX_BODY,
    Ack,
    Error,
    Event,
    Frame,
    FrameDecoder,
    Heartbeat,
    Hello,
    HelloAck,
    Message,
    MsgType,
    ProtocolError,
    SetState,
    crc16,
    decode_message,
    encode_frame,
    encode_message,
    seq_newer,
)
from tests.firmware_bridge.reference import reference_frames

MESSAGES: list[Message] = [
    Hello(0xDEADBEEF),
    HelloAck(1, 1, 0, (1, 2, 3), 0xCAFEF00D, 7, 6, 3, 0x0F, 2),
    Heartbeat(123456, 2, 1),
    Event(7, 5, 2, 2, 99_000),
    SetState((0, 1, 2, 3), 1, 2, 9),
    Ack(MsgType.EVENT, 0xFFFF),
    Error(3, 12, "SET_STATE seats"),
]


def test_crc_is_ccitt_false() -> None:
    assert crc16(b"123456789") == 0x29B1  # the catalogue check value of CRC-16/CCITT-FALSE


def test_frame_layout_is_cobs_body_crc_delimiter() -> None:
    body = bytes([1, MsgType.ACK, 0, 5, MsgType.EVENT, 0, 5])
    wire = encode_frame(body)
    assert wire.endswith(b"\x00") and b"\x00" not in wire[:-1]
    raw = cobs.decode(wire[:-1])
    assert raw[:-2] == body and int.from_bytes(raw[-2:], "big") == crc16(body)


@pytest.mark.parametrize("msg", MESSAGES, ids=lambda m: type(m).__name__)
def test_every_message_round_trips(msg: Message) -> None:
    dec = FrameDecoder()
    frames = dec.feed(encode_message(msg, 0x1234))
    assert len(frames) == 1 and frames[0].seq == 0x1234
    assert decode_message(frames[0]) == msg


def test_decoder_resyncs_after_garbage_and_counts_it() -> None:
    dec = FrameDecoder()
    good = encode_message(Heartbeat(1), 1)
    stream = b"\x13\x37garbage\x00" + good[:5] + b"\x00" + good + b"\x00\x00" + good
    frames = dec.feed(stream)
    assert [f.seq for f in frames] == [1, 1]
    assert sum(dec.errors.values()) == 2


def test_decoder_rejects_bad_crc_and_says_where(caplog: pytest.LogCaptureFixture) -> None:
    body = bytes([1, MsgType.HEARTBEAT, 0, 1, 0, 0, 0, 1, 0, 0, 0])
    raw = body + ((crc16(body) ^ 1).to_bytes(2, "big"))
    dec = FrameDecoder(name="ttyTEST")
    assert dec.feed(b"\x00" + cobs.encode(raw) + b"\x00") == []
    assert dec.errors["crc"] == 1
    assert "ttyTEST" in caplog.text and "bad CRC" in caplog.text and "stream byte" in caplog.text


def test_a_noisy_cable_does_not_flood_the_log(caplog: pytest.LogCaptureFixture) -> None:
    dec = FrameDecoder()
    dec.feed(b"\x05\x01\x00" * 500)
    assert dec.errors["cobs"] + dec.errors["short"] == 500
    assert 0 < len(caplog.records) <= 20


def test_oversize_frames_are_dropped_without_unbounded_buffering() -> None:
    dec = FrameDecoder()
    assert dec.feed(b"\x01" * 10_000 + b"\x00") == []
    assert dec.errors["oversize"] == 1
    assert len(dec._buf) == 0


def test_payload_errors_name_the_message() -> None:
    with pytest.raises(ProtocolError, match="EVENT payload has 3 bytes"):
        decode_message(Frame(1, MsgType.EVENT, 4, b"abc"))
    with pytest.raises(ProtocolError, match="unknown LED mode"):
        decode_message(Frame(1, MsgType.SET_STATE, 4, bytes([2, 1, 9, 0, 0, 0])))
    with pytest.raises(ProtocolError, match="speaks protocol 0"):
        decode_message(Frame(0, MsgType.EVENT, 4, Event(1, 1, 1, 1, 1).pack()))
    with pytest.raises(ProtocolError, match="unknown message type 0x7f"):
        decode_message(Frame(1, 0x7F, 4, b""))
    with pytest.raises(ProtocolError, match="exceeds"):
        encode_frame(bytes(MAX_BODY + 1))


def test_seq_newer_wraps() -> None:
    assert seq_newer(1, 0) and seq_newer(0, 0xFFFF) and not seq_newer(5, 5)
    assert not seq_newer(0xFFFF, 0)


def _check_stream(stream: bytes, chunk: int) -> None:
    dec = FrameDecoder()
    frames: list[Frame] = []
    for i in range(0, len(stream), chunk):
        frames += dec.feed(stream[i : i + chunk])
    assert [f.body() for f in frames] == reference_frames(stream)
    for f in frames:
        with contextlib.suppress(ProtocolError):
            decode_message(f)


FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.binary(max_size=600), st.integers(1, 64))
def test_fuzz_random_bytes_never_crash_nor_pass_a_bad_crc(stream: bytes, chunk: int) -> None:
    _check_stream(stream, chunk)


@st.composite
def mutated_streams(draw: st.DrawFn) -> bytes:
    msgs = draw(st.lists(st.sampled_from(MESSAGES), min_size=1, max_size=8))
    stream = bytearray(b"".join(encode_message(m, i) for i, m in enumerate(msgs)))
    for _ in range(draw(st.integers(0, 6))):
        op = draw(st.sampled_from(["flip", "drop", "insert", "dup"]))
        pos = draw(st.integers(0, max(0, len(stream) - 1)))
        if op == "flip" and stream:
            stream[pos] ^= draw(st.integers(1, 255))
        elif op == "drop" and stream:
            del stream[pos]
        elif op == "insert":
            stream.insert(pos, draw(st.integers(0, 255)))
        elif op == "dup":
            stream[pos:pos] = stream[pos : pos + draw(st.integers(1, 20))]
    return bytes(stream)


@FUZZ
@given(mutated_streams(), st.integers(1, 64))
def test_fuzz_mutated_frames_never_crash_nor_pass_a_bad_crc(stream: bytes, chunk: int) -> None:
    _check_stream(stream, chunk)


def test_single_byte_corruption_is_always_caught() -> None:
    """CRC-16 catches every error burst up to 16 bits; exhaustively over one frame."""
    wire = encode_message(SetState((1, 0, 2, 0, 0, 1), 1, 2, 3), 77)
    for pos in range(len(wire) - 1):
        for x in (1, 0x80, 0xFF, random.Random(pos).randrange(1, 256)):
            bad = bytearray(wire)
            bad[pos] ^= x
            assert FrameDecoder().feed(bytes(bad)) == [], (pos, x)
