"""Between the seat buttons and the engine: presses become match-record events, and the
referee's live state becomes what the LEDs and the buzzer show.

Each seat has three buttons (firmware/main_avr.c has the wiring): 0 pass (过牌), 1 claim
(press: 让牌, long: 烧牌), 2 referee (press: call the referee, long: claim the rest). The table
node gives each record event its ``seq``; here we only build the event body.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from firmware_bridge.link import ButtonEvent
from firmware_bridge.protocol import Led, PressKind, SetState

log = logging.getLogger(__name__)

RECORD_VERSION = 1
BUTTON_PASS, BUTTON_CLAIM, BUTTON_REFEREE = 0, 1, 2
BUZZ_SHORT, BUZZ_ALARM = 1, 2

# (button, kind) -> (record event type, what)
DEFAULT_BUTTONS: dict[tuple[int, int], tuple[str, str]] = {
    (BUTTON_PASS, PressKind.PRESS): ("pass", "button"),
    (BUTTON_PASS, PressKind.LONG): ("pass", "button"),
    (BUTTON_CLAIM, PressKind.PRESS): ("button", "yield"),
    (BUTTON_CLAIM, PressKind.LONG): ("button", "burn"),
    (BUTTON_REFEREE, PressKind.PRESS): ("button", "call_referee"),
    (BUTTON_REFEREE, PressKind.LONG): ("button", "claim"),
}


@dataclass
class ButtonMapper:
    """Turns presses into record event bodies (``v``, ``type``, ``seat``, ``what``, ``t``, and
    ``meta`` with the press's identity ``board/boot/seq``).

    ``seat_order[board_seat]`` gives the record's seat index when the controller's seat wiring
    does not follow the playing order. Presses no table seat or meaning is known for are
    logged and counted in ``rejected``, never guessed.
    """

    seats: int
    buttons: Mapping[tuple[int, int], tuple[str, str]] = field(
        default_factory=lambda: dict(DEFAULT_BUTTONS)
    )
    seat_order: Sequence[int] | None = None
    rejected: Counter[str] = field(default_factory=Counter)

    def to_record(self, ev: ButtonEvent, t: float) -> dict[str, Any] | None:
        meaning = self.buttons.get((ev.button, ev.kind))
        if meaning is None:
            return self._reject("unmapped", ev, f"no meaning for button {ev.button} kind {ev.kind}")
        seat = ev.seat
        if self.seat_order is not None:
            if seat >= len(self.seat_order):
                return self._reject("seat", ev, f"board seat {seat} is not wired to a table seat")
            seat = self.seat_order[seat]
        if not 0 <= seat < self.seats:
            return self._reject("seat", ev, f"seat {seat} outside a {self.seats}-seat table")
        kind, what = meaning
        return {
            "v": RECORD_VERSION,
            "type": kind,
            "seat": seat,
            "what": what,
            "t": round(t, 3),
            # The press's identity: lets a restarted host (or the store) spot a press it has
            # already recorded, since the board resends until ACKed.
            "meta": {
                "press": f"{ev.board_id:08x}/{ev.boot}/{ev.seq}",
                "button": ev.button,
                "kind": "long" if ev.kind == PressKind.LONG else "press",
                "board_ms": ev.board_ms,
            },
        }

    def _reject(self, reason: str, ev: ButtonEvent, text: str) -> dict[str, Any] | None:
        self.rejected[reason] += 1
        log.warning("press boot %d seq %d rejected: %s", ev.boot, ev.seq, text)
        return None


@dataclass(frozen=True)
class TableLights:
    """What the lights must say, read from a referee's ``state()`` snapshot."""

    seats: int
    turn: int | None = None
    violations: int = 0
    violator: int | None = None


def lights_from_state(state: Mapping[str, Any]) -> TableLights:
    """Reads the shared referee snapshot (CONTRIBUTING.md): ``seats``, and in ``hand``,
    ``next_seat`` and ``violations``. Missing parts mean "nothing to show", never a guess.
    A provisional violation (it rests on a read awaiting the referee) lights nothing: a
    seat's flashing light and the buzzer are a public accusation."""
    seats = len(state.get("seats") or [])
    hand = state.get("hand") or {}
    turn = hand.get("next_seat")
    violations = [
        v
        for v in hand.get("violations") or []
        if not (isinstance(v, Mapping) and v.get("provisional"))
    ]
    last = violations[-1] if violations else {}
    violator = last.get("seat") if isinstance(last, Mapping) else None
    return TableLights(
        seats=seats,
        turn=turn if isinstance(turn, int) and 0 <= turn < seats else None,
        violations=len(violations),
        violator=violator if isinstance(violator, int) and 0 <= violator < seats else None,
    )


@dataclass
class LedPlanner:
    """Builds the SET_STATE for the table: the seat to play lit, a seat that called the
    referee blinking, the seat of a new violation flashing with the alarm and a buzz.

    It remembers what it already buzzed for, so a state pushed again (a resend, a reconnect,
    the same snapshot twice) never buzzes twice; the referee silences an alarm with
    ``acknowledge()``.
    """

    seats: int
    buzz_id: int = 0
    _buzz: int = 0
    _seen_violations: int = 0
    _acknowledged: int = 0
    _calls: set[int] = field(default_factory=set)

    def referee_called(self, seat: int) -> None:
        if seat not in self._calls:
            self._calls.add(seat)
            self._new_buzz(BUZZ_SHORT)

    def referee_arrived(self, seat: int | None = None) -> None:
        if seat is None:
            self._calls.clear()
        else:
            self._calls.discard(seat)

    def acknowledge(self) -> None:
        self._acknowledged = self._seen_violations

    def plan(self, lights: TableLights) -> SetState:
        if lights.violations > self._seen_violations:
            self._new_buzz(BUZZ_ALARM)
        elif lights.violations < self._seen_violations:  # a correction withdrew one
            self._acknowledged = min(self._acknowledged, lights.violations)
        self._seen_violations = lights.violations
        leds = [Led.OFF] * self.seats
        if lights.turn is not None and lights.turn < self.seats:
            leds[lights.turn] = Led.ON
        for s in self._calls:
            if s < self.seats:
                leds[s] = Led.BLINK
        alarm = lights.violations > self._acknowledged
        if alarm and lights.violator is not None and lights.violator < self.seats:
            leds[lights.violator] = Led.FAST_BLINK
        return SetState(tuple(leds), int(alarm), self._buzz, self.buzz_id)

    def _new_buzz(self, pattern: int) -> None:
        self._buzz = pattern
        self.buzz_id = self.buzz_id % 255 + 1  # never 0: a fresh board has played id 0
