"""The renderer's own labels read back as a detector: the pipeline measured apart from the
recognizer (``replay --detector labels``). Not a recognizer; a ruler for the rest."""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class LabelDetection:
    card: str
    score: float
    quad: list[list[float]]


class LabelDetector:
    """Every card the renderer drew in the frame it is told to read (``seek``), scored 1."""

    def __init__(self, labels_path: Path) -> None:
        self.scenes = [
            json.loads(line)
            for line in labels_path.read_text(encoding="utf-8").splitlines()
            if line
        ]
        self.starts = [sc["frame"] for sc in self.scenes]
        self.frame = 0

    @classmethod
    def beside(cls, video: Path) -> LabelDetector:
        """The labels that ``render-match`` wrote beside ``video`` (``match.labels.jsonl``)."""
        return cls(video.with_name(video.stem + ".labels.jsonl"))

    def seek(self, frame_index: int) -> None:
        self.frame = frame_index

    def detect(self, image: Any) -> list[LabelDetection]:
        k = bisect.bisect_right(self.starts, self.frame) - 1
        if k < 0:
            return []
        return [LabelDetection(c["card"], 1.0, c["quad"]) for c in self.scenes[k]["cards"]]
