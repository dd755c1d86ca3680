"""What the table node calls out to (``NodeHooks``: the store, the dashboard, the hall) and
what it counts (``NodeStats``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine.record import Event, Ruling
from vision.sources import Frame
from vision.tracking import Observation


@dataclass
class NodeHooks:
    """Callbacks for the parts around the node; each is optional and must not block long.

    ``on_event(event)``: every record event as written (validated, with ``seq``).
    ``on_evidence(event, paths)``: the JPEGs kept for an event (masked frames before/after).
    ``on_ruling(event, ruling)``: each ruling the referee gave on that event.
    ``on_observation(obs)``: each tracker observation (for live views and debugging).
    ``on_frame(frame)``: every frame read (``node.reader.masked`` hides the hands).
    ``foreign(after_seq)``: events others (the dashboard's referees) stored after that seq;
    the node takes them into its record and referee before it numbers its next event.
    """

    on_event: Callable[[Event], None] | None = None
    on_evidence: Callable[[Event, list[Path]], None] | None = None
    on_ruling: Callable[[Event, Ruling], None] | None = None
    on_observation: Callable[[Observation], None] | None = None
    on_frame: Callable[[Frame], None] | None = None
    foreign: Callable[[int], list[Event]] | None = None


@dataclass
class NodeStats:
    frames: int = 0
    reads: int = 0  # recognizer runs (still frames with a ready area)
    events: int = 0
    needs_referee: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    read_ms: list[float] = field(default_factory=list)
    latency_ms: list[float] = field(default_factory=list)  # first still frame → event written
    wall_s: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        med = float(np.median(self.latency_ms)) if self.latency_ms else None
        return {
            "frames": self.frames,
            "reads": self.reads,
            "events": self.events,
            "needs_referee": self.needs_referee,
            "errors": dict(self.errors),
            "read_ms_median": float(np.median(self.read_ms)) if self.read_ms else None,
            "latency_ms_median": med,
            "frames_per_s": self.frames / self.wall_s if self.wall_s > 0 else None,
        }
