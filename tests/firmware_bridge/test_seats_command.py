"""``tablescan seats`` prints presses as record events and sets the LEDs."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from firmware_bridge import virtual
from tablescan.cli import main


def test_seats_prints_presses_as_record_events(
    make_board: Callable[..., virtual.VirtualBoard], capsys: pytest.CaptureFixture[str]
) -> None:
    board = make_board(seats=4)
    presser = threading.Timer(0.0, lambda: (board.press(2, 0), board.press(1, 2)))
    presser.start()
    rc = main(
        [
            "seats",
            "--port",
            f"virtualseat://{board.name}",
            "--count",
            "2",
            "--duration",
            "60",
            "--leds",
            "0,1,0,2",
        ]
    )
    presser.join()
    out, err = capsys.readouterr()
    assert rc == 0
    events = [json.loads(line) for line in out.splitlines()]
    assert [(e["type"], e["seat"], e["what"]) for e in events] == [
        ("pass", 2, "button"),
        ("button", 1, "call_referee"),
    ]
    assert "link stats" in err and '"events": 2' in err
    assert "leds: applied" in err  # the board ACKed --leds before the command ended


def test_seats_rejects_bad_leds(make_board: Callable[..., virtual.VirtualBoard]) -> None:
    board = make_board(seats=4)
    with pytest.raises(SystemExit, match="3 modes for 4 seats"):
        main(["seats", "--port", f"virtualseat://{board.name}", "--leds", "0,1,0"])


def test_seats_says_when_no_board_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc = main(["seats", "--port", str(tmp_path / "ttyUSB9"), "--duration", "0.5"])
    assert rc == 1
    assert "could not open port" in capsys.readouterr().err
