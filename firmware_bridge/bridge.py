"""One object for the table node: seat presses in as record events, referee state out as
lights, and the link's health for the dashboard.

    bridge = SeatBridge("/dev/serial/by-id/usb-...", seats=4).start()
    for ev in bridge.take_events(match_clock):   # dicts with v, type, seat, what, t
        node.emit(ev)                            # the node assigns seq
    bridge.show(referee.state())                 # whose turn, violation alarm
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from firmware_bridge.link import SeatLink, Timing
from firmware_bridge.mapping import ButtonMapper, LedPlanner, lights_from_state


class SeatBridge:
    """Link + mapper + LED planner. ``take_events`` and ``show`` never block."""

    def __init__(
        self,
        url: str,
        seats: int,
        *,
        seat_order: Sequence[int] | None = None,
        timing: Timing | None = None,
    ) -> None:
        self.link = SeatLink(url, seats=seats, timing=timing)
        self.mapper = ButtonMapper(seats=seats, seat_order=seat_order)
        self.planner = LedPlanner(seats=seats)
        self._last_state: Mapping[str, Any] = {"seats": [None] * seats}

    def start(self) -> SeatBridge:
        self.link.start()
        return self

    def stop(self) -> None:
        self.link.stop()

    def __enter__(self) -> SeatBridge:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def take_events(self, match_time: Callable[[float], float]) -> list[dict[str, Any]]:
        """Presses since the last call as record event bodies. ``match_time`` turns the host's
        monotonic arrival time into seconds since match start. A call for the referee also
        makes that seat's LED blink until ``referee_arrived``."""
        out = []
        while True:
            try:
                ev = self.link.events.get_nowait()
            except queue.Empty:
                break
            rec = self.mapper.to_record(ev, match_time(ev.t))
            if rec is None:
                continue
            if rec["what"] == "call_referee":
                self.planner.referee_called(rec["seat"])
                self.show(self._last_state)
            out.append(rec)
        return out

    def show(self, referee_state: Mapping[str, Any]) -> None:
        """Light the table from a referee ``state()`` snapshot (sent until ACKed)."""
        self._last_state = referee_state
        self.link.set_state(self.planner.plan(lights_from_state(referee_state)))

    def referee_arrived(self, seat: int | None = None) -> None:
        self.planner.referee_arrived(seat)
        self.show(self._last_state)

    def acknowledge_alarm(self) -> None:
        self.planner.acknowledge()
        self.show(self._last_state)

    def health(self) -> dict[str, Any]:
        """For the dashboard's health page: ``state`` is up, down or refused."""
        s = self.link.stats
        state = {"connected": "up", "refused": "refused"}.get(s.state, "down")
        return {
            "state": state,
            "detail": s.state,
            "at": time.time(),
            **{k: v for k, v in s.as_dict().items() if k != "state"},
            "rejected_presses": dict(self.mapper.rejected),
        }
