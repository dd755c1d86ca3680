"""The framing oracle lives in ``bench/cobs_reference.py`` (the serial bench uses it too)."""

from bench.cobs_reference import reference_frames

__all__ = ["reference_frames"]
