"""Buttons to record events, referee state to lights."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine.record import validate_event
from firmware_bridge import virtual
from firmware_bridge.link import ButtonEvent, SeatLink
from firmware_bridge.mapping import ButtonMapper, LedPlanner, TableLights, lights_from_state
from firmware_bridge.protocol import Led, PressKind


def press(seat: int, button: int, kind: int = PressKind.PRESS) -> ButtonEvent:
    return ButtonEvent(1, 1, 1, seat, button, kind, 0, 0.0)


@pytest.mark.parametrize(
    ("button", "kind", "type_", "what"),
    [
        (0, PressKind.PRESS, "pass", "button"),
        (1, PressKind.PRESS, "button", "yield"),
        (1, PressKind.LONG, "button", "burn"),
        (2, PressKind.PRESS, "button", "call_referee"),
        (2, PressKind.LONG, "button", "claim"),
    ],
)
def test_presses_become_valid_record_events(button: int, kind: int, type_: str, what: str) -> None:
    ev = ButtonMapper(seats=6).to_record(press(5, button, kind), 12.3456)
    assert ev is not None
    assert {k: ev[k] for k in ("v", "type", "seat", "what", "t")} == {
        "v": 1,
        "type": type_,
        "seat": 5,
        "what": what,
        "t": 12.346,
    }
    assert ev["meta"]["press"] == "00000001/1/1"
    validate_event({**ev, "seq": 7})  # the record schema accepts it once the node adds seq


def test_unknown_buttons_and_seats_are_rejected_and_counted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    m = ButtonMapper(seats=4, seat_order=[2, 3, 0, 1])
    assert m.to_record(press(0, 0), 1.0)["seat"] == 2  # type: ignore[index]
    assert m.to_record(press(0, 9), 1.0) is None
    assert m.to_record(press(4, 0), 1.0) is None
    assert m.rejected == {"unmapped": 1, "seat": 1}
    assert "no meaning for button 9" in caplog.text and "board seat 4" in caplog.text


def test_lights_read_the_referee_snapshot() -> None:
    state = {
        "seats": ["a", "b", "c", "d"],
        "hand": {"next_seat": 2, "violations": [{"rule": "revoke", "seat": 1}]},
    }
    assert lights_from_state(state) == TableLights(seats=4, turn=2, violations=1, violator=1)
    assert lights_from_state({"seats": ["a", "b"], "hand": None}) == TableLights(seats=2)
    assert lights_from_state({"seats": ["a"], "hand": {"next_seat": 7}}).turn is None
    # a violation resting on a read that awaits the referee flashes no seat, buzzes nothing
    unsure = {"rule": "revoke", "seat": 3, "provisional": True}
    state["hand"]["violations"].append(unsure)  # type: ignore[index]
    assert lights_from_state(state) == TableLights(seats=4, turn=2, violations=1, violator=1)


def test_planner_turn_violation_alarm_and_single_buzz() -> None:
    p = LedPlanner(seats=4)
    s = p.plan(TableLights(4, turn=1))
    assert s.leds == (Led.OFF, Led.ON, Led.OFF, Led.OFF) and s.alarm == 0 and s.buzz == 0
    s = p.plan(TableLights(4, turn=2, violations=1, violator=3))
    assert s.leds[3] == Led.FAST_BLINK and s.leds[2] == Led.ON and s.alarm == 1
    assert s.buzz and s.buzz_id == 1
    assert p.plan(TableLights(4, turn=2, violations=1, violator=3)) == s  # same state: no new buzz
    p.acknowledge()
    s = p.plan(TableLights(4, turn=2, violations=1, violator=3))
    assert s.alarm == 0 and s.leds[3] == Led.OFF and s.buzz_id == 1
    p.referee_called(0)
    s = p.plan(TableLights(4, turn=2, violations=1, violator=3))
    assert s.leds[0] == Led.BLINK and s.buzz_id == 2
    p.referee_arrived(0)
    assert p.plan(TableLights(4, turn=2, violations=1)).leds[0] == Led.OFF


def test_end_to_end_press_to_record_and_lights_to_leds(
    make_board: Callable[..., virtual.VirtualBoard],
) -> None:
    board = make_board(seats=4, faults=virtual.Faults(drop=0.2, seed=5))
    mapper, planner = ButtonMapper(seats=4), LedPlanner(seats=4)
    with SeatLink(f"virtualseat://{board.name}") as link:
        assert link.wait_connected(30)
        link.set_state(planner.plan(TableLights(4, turn=3, violations=1, violator=0)))
        board.press(3, 0)
        board.press(0, 2, long=True)
        events = [mapper.to_record(link.events.get(timeout=30), 1.5) for _ in range(2)]
        assert [(e["type"], e["seat"], e["what"]) for e in events if e] == [
            ("pass", 3, "button"),
            ("button", 0, "claim"),
        ]
        assert link.wait_state_applied(30)
        out = board.outputs()
        assert out.leds == [Led.FAST_BLINK, Led.OFF, Led.OFF, Led.ON] and out.alarm == 1
        assert out.buzzes == 1
