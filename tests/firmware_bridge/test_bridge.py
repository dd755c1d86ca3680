"""SeatBridge: what the table node sees of the seat controller."""

from __future__ import annotations

import time
from collections.abc import Callable

from firmware_bridge import virtual
from firmware_bridge.bridge import SeatBridge
from firmware_bridge.protocol import Led

WAIT = 30.0


def test_bridge_events_lights_and_health(make_board: Callable[..., virtual.VirtualBoard]) -> None:
    board = make_board(seats=4, faults=virtual.Faults(duplicate=0.3, seed=2))
    state = {"seats": ["a", "b", "c", "d"], "hand": {"next_seat": 1, "violations": []}}
    with SeatBridge(f"virtualseat://{board.name}", seats=4) as bridge:
        assert bridge.link.wait_connected(WAIT)
        assert bridge.health()["state"] == "up"
        bridge.show(state)
        assert bridge.link.wait_state_applied(WAIT)
        assert board.outputs().leds == [Led.OFF, Led.ON, Led.OFF, Led.OFF]

        t0 = time.monotonic()
        board.press(1, 0)
        board.press(3, 2)  # seat 3 calls the referee
        got: list[dict[str, object]] = []
        deadline = time.monotonic() + WAIT
        while len(got) < 2 and time.monotonic() < deadline:
            got += bridge.take_events(lambda t: t - t0)
            bridge.link.wait_for(lambda: not bridge.link.events.empty(), 0.2)
        assert [(e["type"], e["seat"], e["what"]) for e in got] == [
            ("pass", 1, "button"),
            ("button", 3, "call_referee"),
        ]
        assert all(isinstance(e["t"], float) and 0 <= e["t"] < WAIT for e in got)
        assert bridge.link.wait_for(lambda: board.outputs().leds[3] == Led.BLINK, WAIT)
        assert board.outputs().buzzes == 1

        bridge.show({**state, "hand": {"next_seat": 2, "violations": [{"seat": 0}]}})
        assert bridge.link.wait_for(lambda: board.outputs().alarm == 1, WAIT)
        assert board.outputs().leds == [Led.FAST_BLINK, Led.OFF, Led.ON, Led.BLINK]
        bridge.referee_arrived()
        bridge.acknowledge_alarm()
        assert bridge.link.wait_for(lambda: board.outputs().alarm == 0, WAIT)
        assert board.outputs().leds == [Led.OFF, Led.OFF, Led.ON, Led.OFF]
        assert board.outputs().buzzes == 2
        health = bridge.health()
        assert health["events"] == 2 and health["board"]["seats"] == 4
    assert bridge.health()["state"] == "down"
