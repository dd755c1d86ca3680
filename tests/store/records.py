"""A small hand-made match record for store tests (the store does not judge, only keeps)."""

from __future__ import annotations

from typing import Any

SEATS = ["Ann", "Bo", "Cy", "Di"]


def sample_record(hands: int = 2, tricks: int = 3) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []

    def add(kind: str, **fields: Any) -> None:
        events.append({"v": 1, "seq": len(events), "t": len(events) * 1.5, "type": kind, **fields})

    add(
        "match_start",
        game="tractor",
        profile="shanghai-2000",
        seats=SEATS,
        teams=[[0, 2], [1, 3]],
        levels=["2", "2"],
    )
    cards = ["5H", "10H", "KH", "AH", "3S", "4S", "6S", "7S", "2C", "9C", "JC", "QC"]
    for hand in range(1, hands + 1):
        add("hand_start", hand=hand, banker=0, level="2")
        add("bury", seat=0, count=8)
        for trick in range(tricks):
            for seat in range(4):
                card = cards[(trick * 4 + seat) % len(cards)]
                add(
                    "play",
                    seat=seat,
                    cards=[card],
                    evidence=f"h{hand}-t{trick}-s{seat}.jpg",
                    confidence=0.98,
                )
        add("hand_end")
    return events
