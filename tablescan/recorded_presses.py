"""Seat-button presses from a file, fed in as a recorded video reaches their times.

What a camera cannot see at a Gouji table (passes, 烧/让/扣, the exchanges of 3s and 4s, 亮3
in the hand, a referee's "match over") reaches a live node from the seat controller or the
referee's desk; the deals' ends and starts the node sees itself (the referee's places, the
swept areas). A rendered match writes those as ``match.presses.jsonl`` (one event body a
line, with ``t``); ``tablescan replay`` gives them to the node through the same path a press
takes (``TableNode.external``), each after the frame at its time: the same record a live
table would have.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablescan.node import TableNode

log = logging.getLogger(__name__)


def presses_beside(video: Path) -> Path | None:
    """``NAME.presses.jsonl`` beside ``NAME.mp4`` (a rendered match), if there is one."""
    path = video.with_name(video.stem + ".presses.jsonl")
    return path if path.is_file() else None


def load_presses(path: Path) -> list[dict[str, Any]]:
    """The presses in ``path``, in time order; a bad line is an error naming file and line."""
    out: list[dict[str, Any]] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            body = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}:{n}: not JSON: {e.msg}") from None
        if (
            not isinstance(body, dict)
            or "type" not in body
            or not isinstance(body.get("t"), int | float)
        ):
            raise ValueError(f"{path}:{n}: a press needs a type and a time t")
        # each press its own id (file and line), as a seat controller numbers its presses: a
        # replay resumed after a crash drops the ones already recorded (TableNode.external)
        meta = body.get("meta")
        body["meta"] = {"press": f"{path.name}:{n}", **(meta if isinstance(meta, dict) else {})}
        out.append(body)
    return sorted(out, key=lambda b: float(b["t"]))


@dataclass
class RecordedPresses:
    """Feeds ``presses`` to ``node`` once its clock (the latest frame's time) reaches each."""

    node: TableNode
    presses: list[dict[str, Any]]
    next: int = 0
    fed: Counter[str] = field(default_factory=Counter)

    def poll(self) -> None:
        while (
            self.next < len(self.presses)
            and float(self.presses[self.next]["t"]) <= self.node.t_now + 1e-6
        ):
            body = self.presses[self.next]
            self.next += 1
            # a deal or the match started or ended by hand is a referee's (a seat chord)
            by_hand = body["type"] in ("hand_start", "hand_end", "match_end")
            self.node.external(body, referee=by_hand)
            self.fed[str(body["type"])] += 1
