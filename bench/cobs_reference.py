"""An independent reading of PROTOCOL.md's framing, the oracle for the decoder's fuzz tests and
the serial bench: every 0x00-delimited segment that COBS-decodes to at least header + CRC with
a matching CRC is a frame (its body is returned); nothing else is."""

from __future__ import annotations

from cobs import cobs

from firmware_bridge.protocol import crc16


def reference_frames(stream: bytes) -> list[bytes]:
    out = []
    for seg in stream.split(b"\x00")[:-1]:
        if not seg or len(seg) > 68:
            continue
        try:
            raw = cobs.decode(seg)
        except cobs.DecodeError:
            continue
        if len(raw) >= 6 and crc16(raw[:-2]) == int.from_bytes(raw[-2:], "big"):
            out.append(raw[:-2])
    return out
