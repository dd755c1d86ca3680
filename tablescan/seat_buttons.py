"""The seat controller in the node: presses in as record events, the referee's state out as
lights (``tablescan run --serial URL``)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tablescan.node import TableNode

if TYPE_CHECKING:
    from firmware_bridge.bridge import SeatBridge

log = logging.getLogger(__name__)


@dataclass
class SeatButtons:
    """Presses become ``pass``/``button`` record events on the node's own path (seq, store,
    referee), and the referee's state drives the lights."""

    node: TableNode
    bridge: SeatBridge
    shown: int = -1  # node.judged when the lights were last set

    @classmethod
    def open(cls, node: TableNode, url: str) -> SeatButtons:
        from firmware_bridge.bridge import SeatBridge

        return cls(node, SeatBridge(url, seats=len(node.cfg.seats)).start())

    def poll(self) -> None:
        """Take the presses that came in, then push the lights if the referee moved on. While
        a resumed node replays its video, presses wait (the referee is behind)."""
        if self.node.catching_up:
            return
        for body in self.bridge.take_events(lambda _arrived: self.node.t_now):
            self.node.external(body)
        if self.node.judged == self.shown or self.node.referee is None:
            return
        try:
            state = self.node.referee.state()
        except Exception as e:  # the lights wait; the camera keeps running
            self.node.stats.errors["referee_state"] += 1
            log.error("referee state failed: %s", e)
            return
        self.shown = self.node.judged
        self.bridge.show(state)

    def close(self) -> None:
        self.bridge.stop()
