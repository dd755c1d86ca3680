"""The seat controller in the node: presses in as record events, the referee's state out as
lights (``tablescan run --serial URL``).

A referee at the table can start and end deals and end the match from the head seat's
controller (the record's seat ``referee_seat``, 0 unless told), with a two-button chord held
together until both report a long press (800 ms, ``firmware_bridge/PROTOCOL.md``):

- pass + referee (buttons 0 and 2): the deal in play ends (``hand_end``, reason ``referee``),
  or, between deals, the next deal starts (``hand_start`` with the banker and level the
  engine's outcome of the last deal gives);
- claim + referee (buttons 1 and 2): the match ends (``match_end``, reason ``referee``).

These are the dashboard's ``POST /api/tables/<id>/match`` events, with the two presses'
identities in ``meta``. The protocol gives every (button, kind) a player's meaning, so only a
chord is free, and no player holds 过 and 叫裁判 (or 烧 and 叫裁判) together by accident. A
long press of those buttons at the head seat waits up to ``CHORD_WAIT_S`` for its partner
before it counts as the player's own (a long pass, a burn, a claim of the rest).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from firmware_bridge.mapping import BUTTON_CLAIM, BUTTON_PASS, BUTTON_REFEREE
from tablescan.match import match_result, next_deal
from tablescan.node import TableNode

if TYPE_CHECKING:
    from firmware_bridge.bridge import SeatBridge

log = logging.getLogger(__name__)

CHORD_MS = 300  # the two presses of a chord began at most this far apart (board time)
CHORD_WAIT_S = 0.6  # how long a chord's first long press waits for its partner (host time)
CHORDS = {
    frozenset({BUTTON_PASS, BUTTON_REFEREE}): "hand",
    frozenset({BUTTON_CLAIM, BUTTON_REFEREE}): "match",
}
CHORD_BUTTONS = frozenset().union(*CHORDS)


def _press_key(body: dict[str, Any]) -> tuple[str, int, int]:
    """(board/boot, button, board ms) of a mapped press body."""
    meta = body.get("meta") or {}
    board_boot = str(meta.get("press", "")).rsplit("/", 1)[0]
    return board_boot, int(meta.get("button", -1)), int(meta.get("board_ms", 0))


@dataclass
class SeatButtons:
    """Presses become ``pass``/``button`` record events on the node's own path (seq, store,
    referee), a referee's chord at the head seat a deal's start or end or the match's end,
    and the referee's state drives the lights."""

    node: TableNode
    bridge: SeatBridge
    shown: int = -1  # node.judged when the lights were last set
    referee_seat: int = 0
    _waiting: list[tuple[float, dict[str, Any]]] = field(default_factory=list)

    @classmethod
    def open(cls, node: TableNode, url: str, referee_seat: int = 0) -> SeatButtons:
        from firmware_bridge.bridge import SeatBridge

        bridge = SeatBridge(url, seats=len(node.cfg.seats)).start()
        return cls(node, bridge, referee_seat=referee_seat)

    def poll(self) -> None:
        """Take the presses that came in, then push the lights if the referee moved on. While
        a resumed node replays its video, presses wait (the referee is behind)."""
        if self.node.catching_up:
            return
        now = time.monotonic()
        for body in self.bridge.take_events(lambda _arrived: self.node.t_now):
            self._take(body, now)
        while self._waiting and now - self._waiting[0][0] >= CHORD_WAIT_S:
            self.node.external(self._waiting.pop(0)[1])  # no partner came: the player's own
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

    def _take(self, body: dict[str, Any], now: float) -> None:
        meta = body.get("meta") or {}
        if not (
            body.get("seat") == self.referee_seat
            and meta.get("kind") == "long"
            and meta.get("button") in CHORD_BUTTONS
        ):
            self.node.external(body)
            return
        boot, button, ms = _press_key(body)
        for i, (_, other) in enumerate(self._waiting):
            o_boot, o_button, o_ms = _press_key(other)
            chord = CHORDS.get(frozenset({button, o_button}))
            if chord and o_boot == boot and abs(ms - o_ms) <= CHORD_MS:
                del self._waiting[i]
                self._referee(chord, other, body)
                return
        self._waiting.append((now, body))

    def _referee(self, chord: str, first: dict[str, Any], second: dict[str, Any]) -> None:
        """The referee's chord as the dashboard's match control would write it."""
        node = self.node
        seat = self.referee_seat
        meta = {
            "press": first["meta"]["press"],
            "presses": [first["meta"]["press"], second["meta"]["press"]],
            "by": f"seat {seat} buttons",
        }
        if node.match_over:
            log.warning("referee chord at seat %d: the match is over (ignored)", seat)
            return
        body: dict[str, Any]
        if chord == "match":
            body = {"type": "match_end", "reason": "referee", "by": meta["by"], "meta": meta}
            if node.referee is not None:
                body["result"] = match_result(node.referee)
        elif not node.between:
            body = {"type": "hand_end", "reason": "referee", "meta": meta}
        else:
            nxt = next_deal(node.referee, node.hand)
            if nxt is None:
                log.warning("referee chord at seat %d: the engine says the match is over", seat)
                return
            body = {**nxt, "meta": meta}
        body["t"] = second.get("t", node.t_now)
        log.info("referee chord at seat %d: %s", seat, body["type"])
        node.external(body, referee=True)

    def close(self) -> None:
        for _, body in self._waiting:  # presses are never dropped: what waited is a player's
            self.node.external(body)
        self._waiting.clear()
        self.bridge.stop()
