"""The firmware's C framing and debouncer (host build) against the Python side and the spec."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge.protocol import MAX_BODY, FrameDecoder, encode_frame

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))


def c_frame(sim: Any, body: bytes) -> bytes:
    sim.send(f"frame {body.hex()}")
    return bytes.fromhex(sim.wait_line("frame ").split(" ", 1)[1])


def c_feed(sim: Any, stream: bytes) -> tuple[list[bytes], int]:
    sim.send(f"feed {stream.hex()}")
    bodies: list[bytes] = []
    while True:
        line = sim.wait_line("")
        if line.startswith("bad "):
            return bodies, int(line.split()[1])
        if line.startswith("body"):
            bodies.append(bytes.fromhex(line[5:]))


def py_feed(stream: bytes) -> tuple[list[bytes], int]:
    dec = FrameDecoder()
    return [f.body() for f in dec.feed(stream)], sum(dec.errors.values())


@SETTINGS
@given(st.binary(min_size=0, max_size=MAX_BODY))
def test_c_and_python_encode_the_same_bytes(offline_sim: Any, body: bytes) -> None:
    assert c_frame(offline_sim, body) == encode_frame(body)


@st.composite
def streams(draw: st.DrawFn) -> bytes:
    bodies = draw(st.lists(st.binary(min_size=4, max_size=MAX_BODY), max_size=6))
    stream = bytearray(b"".join(encode_frame(b) for b in bodies))
    for _ in range(draw(st.integers(0, 5))):
        pos = draw(st.integers(0, max(0, len(stream))))
        if draw(st.booleans()) and pos < len(stream):
            stream[pos] ^= draw(st.integers(1, 255))
        else:
            stream[pos:pos] = draw(st.binary(min_size=1, max_size=8))
    return bytes(stream)


@SETTINGS
@given(st.one_of(streams(), st.binary(max_size=400)))
def test_c_and_python_decoders_accept_and_reject_the_same_frames(
    offline_sim: Any, stream: bytes
) -> None:
    assert c_feed(offline_sim, stream) == py_feed(stream)


def test_c_rejects_oversize_frames(offline_sim: Any) -> None:
    assert c_feed(offline_sim, b"\x01" * 500 + b"\x00") == ([], 1)


def debounce(sim: Any, samples: list[tuple[int, int]], seat: int = 1, button: int = 2) -> list[str]:
    out: list[str] = []
    for level, ms in samples:
        sim.send(f"raw {seat} {button} {level} {ms}")
        line = sim.wait_line("deb ")
        if line != "deb none":
            out.append(line)
    return out


def test_debouncer_ignores_bounce_and_stamps_the_press_start(offline_sim: Any) -> None:
    scan = 6  # one sample per row scan
    bouncy = [1, 0, 1, 0, 1, 1, 1, 1, 1, 1] + [1] * 10 + [0, 1, 0, 0, 0, 0, 0, 0]
    got = debounce(offline_sim, [(v, 1000 + i * scan) for i, v in enumerate(bouncy)])
    # Stable after four equal samples; a short press is reported once, on release.
    assert got == [f"deb 1 2 1 {1000 + 7 * scan}"]


def test_debouncer_reports_a_long_press_once_while_held(offline_sim: Any) -> None:
    held = [(1, t) for t in range(0, 1500, 6)] + [(0, 1500 + t) for t in range(0, 60, 6)]
    got = debounce(offline_sim, held, seat=0, button=0)
    assert got == ["deb 0 0 2 18"]


@pytest.mark.parametrize("glitch", [[1], [1, 1], [1, 1, 1]])
def test_debouncer_drops_short_glitches(offline_sim: Any, glitch: list[int]) -> None:
    samples = [0, 0, *glitch, 0, 0, 0, 0, 0]
    assert debounce(offline_sim, [(v, 5000 + 6 * i) for i, v in enumerate(samples)], 3, 1) == []
