"""Fixtures: virtual boards that are always stopped, and the host build of the firmware."""

from __future__ import annotations

import itertools
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge import virtual

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware_bridge" / "firmware"
_names = itertools.count()


@pytest.fixture
def make_board() -> Iterator[Callable[..., virtual.VirtualBoard]]:
    made: list[virtual.VirtualBoard] = []

    def make(**kwargs: Any) -> virtual.VirtualBoard:
        b = virtual.create_board(f"t{next(_names)}", **kwargs)
        made.append(b)
        return b

    yield make
    for b in made:
        b.close()


@pytest.fixture(scope="session")
def seatsim() -> Path:
    """The firmware's protocol code built for this machine (what `make firmware` builds)."""
    subprocess.run(["make", "-s", "-C", str(FIRMWARE), "host"], check=True, capture_output=True)
    return FIRMWARE / "build" / "seatsim"
