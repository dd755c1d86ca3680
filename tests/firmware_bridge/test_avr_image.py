"""The real ATmega328P image (build/seatctl.elf) in simavr, talking to the Python host link
over a socat pty: UART set-up, timer, matrix scan, debouncer, LEDs and the host-lost state,
as the board will run them. The simulation keeps to real time at best, slower on a loaded
machine, so the host link gets patient timers here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from firmware_bridge.link import SeatLink, Timing
from firmware_bridge.protocol import Led, PressKind, ResetReason, SetState

WAIT = 60.0
PATIENT = Timing(lost_after=8.0, hello_for=15.0, resend=0.5)


def pins(leds: list[int], alarm: int = 0, buzzer: int = 0) -> str:
    return "pins " + " ".join(map(str, [*leds, alarm, buzzer]))


def test_firmware_image_end_to_end(avr_board: tuple[Path, Any]) -> None:
    port, avr = avr_board
    with SeatLink(str(port), timing=PATIENT, seats=4) as link:
        assert link.wait_connected(WAIT)
        board = link.stats.board
        assert (board["firmware"], board["seats"], board["buttons"], board["caps"]) == (
            "1.0.0",
            6,
            3,
            0x0F,
        )
        link.set_state(SetState((Led.ON, Led.OFF, Led.OFF, Led.ON)))
        assert link.wait_state_applied(WAIT)
        avr.wait_line(pins([1, 0, 0, 1, 0, 0]), WAIT)

        avr.send("tap 2 1 150")  # held 150 ms of board time: a short press
        ev = link.events.get(timeout=WAIT)
        assert (ev.seat, ev.button, ev.kind) == (2, 1, PressKind.PRESS)
        avr.send("tap 3 2 1200")  # held past 800 ms: one long press, nothing on release
        ev2 = link.events.get(timeout=WAIT)
        assert (ev2.seat, ev2.button, ev2.kind) == (3, 2, PressKind.LONG)
        # Stamped when each press began: the first was held 150 ms before it was reported.
        assert ev2.board_ms - ev.board_ms >= 150
        assert ev2.seq == ev.seq + 1

        avr.send("tap 0 0 10")  # a 10 ms glitch is not a press
        avr.send("tap 1 0 100")
        ev3 = link.events.get(timeout=WAIT)
        assert (ev3.seat, ev3.button) == (1, 0) and ev3.seq == ev2.seq + 1

        boot = board["boot"]
        avr.send("reset 1000")  # once every tap above has been released
        assert link.wait_for(lambda: link.stats.handshakes >= 2, WAIT)
        assert link.stats.board["boot"] == boot + 1  # the boot counter lives in EEPROM
        assert link.stats.board["reset_reason"] == ResetReason.EXTERNAL
        assert link.wait_state_applied(WAIT)
        avr.wait_line(pins([1, 0, 0, 1, 0, 0]), WAIT)
    # Host gone: after three missed heartbeats the seat LEDs go dark and the alarm LED blinks.
    avr.wait_line(pins([0, 0, 0, 0, 0, 0], 1), WAIT)
    assert link.events.empty(), list(link.events.queue)

    # A press while no host listens, then a reset before anyone ACKs it: the EEPROM journal
    # keeps it, and the next host gets it once, under the boot it happened in.
    avr.send("tap 5 0 100")
    avr.send("reset 600")
    with SeatLink(str(port), timing=PATIENT) as again:
        assert again.wait_connected(WAIT)
        kept = again.events.get(timeout=WAIT)
        assert (kept.seat, kept.button, kept.boot, kept.seq) == (5, 0, boot + 1, 1)
        assert again.wait_for(lambda: again.stats.board.get("boot") == boot + 2, WAIT)
        assert again.wait_for(lambda: again.stats.board_pending == 0, WAIT)
        assert again.events.empty()
