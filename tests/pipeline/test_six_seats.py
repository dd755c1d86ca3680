"""A 6-seat Gouji table: the layout, the config and the node's wiring to the Gouji referee."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from tablescan.config import dump_config, load_config
from tablescan.wiring import build_node
from vision.calibration import default_layout
from vision.sources import Frame

W, H = 960, 720
CORNERS = [[180.0, 0.0], [780.0, 0.0], [780.0, 600.0], [180.0, 600.0]]  # 1000 units → 600 px


@dataclass(frozen=True)
class Det:
    card: str
    score: float
    quad: list[list[float]]


class Scripted:
    """Returns whatever cards are currently drawn on the synthetic frame."""

    def __init__(self) -> None:
        self.cards: list[Det] = []

    def detect(self, image: np.ndarray) -> list[Det]:
        return list(self.cards)


def six_seat_config(tmp_path: Path) -> Path:
    layout = default_layout(6)
    cfg = {
        "table": {
            "id": "gouji-1",
            "game": "gouji",
            "profile": "gouji-abqu",
            "seats": [f"P{i}" for i in range(6)],
            "teams": [[0, 2, 4], [1, 3, 5]],
            "levels": ["-", "-"],
        },
        "calibration": {"method": "points", "table_size": [1000.0, 1000.0], "points": CORNERS},
        "areas": [
            {"name": a.name, "kind": a.kind, **({"seat": a.seat} if a.seat is not None else {}),
             "polygon": [list(p) for p in a.polygon]}
            for a in layout.areas
        ],
        "masks": [{"polygon": [list(p) for p in m]} for m in layout.masks],
    }  # fmt: skip
    path = tmp_path / "gouji.table.toml"
    path.write_text(dump_config(cfg), encoding="utf-8")
    return path


def test_six_seat_table_reads_a_play_in_seat_four(tmp_path: Path) -> None:
    cfg = load_config(six_seat_config(tmp_path))
    assert cfg.decks == 4 and len(cfg.areas) == 7
    det = Scripted()
    node = build_node(cfg, det, keep_evidence=False)
    assert node.events[0]["game"] == "gouji" and len(node.events[0]["seats"]) == 6
    blank = np.full((H, W, 3), 60, np.uint8)
    for i in range(3):
        node.process(Frame(i, i / 20, blank))
    # seat 4's area centre, in image pixels; a card drawn there and reported by the reader
    seat4 = np.array(node.reader.layout.seat_areas[4].polygon).mean(0)
    assert node.reader.calibration is not None
    cx, cy = node.reader.calibration.to_image([seat4])[0]
    img = blank.copy()
    cv2.rectangle(
        img, (int(cx) - 20, int(cy) - 28), (int(cx) + 20, int(cy) + 28), (250, 250, 250), -1
    )
    quad = [[cx - 20, cy - 28], [cx + 20, cy - 28], [cx + 20, cy + 28], [cx - 20, cy + 28]]
    det.cards = [Det("3H", 0.95, quad), Det("3H", 0.93, quad)]
    for i in range(3, 7):
        node.process(Frame(i, i / 20, img))
    plays = [e for e in node.events if e["type"] == "play"]
    assert [(p["seat"], p["cards"]) for p in plays] == [(4, ["3H", "3H"])]
    assert not any(e["type"] == "needs_referee" for e in node.events)


def _overlap(a: tuple[tuple[float, float], ...], b: tuple[tuple[float, float], ...]) -> float:
    area, _ = cv2.intersectConvexConvex(np.array(a, np.float32), np.array(b, np.float32))
    return float(area)


def test_six_seat_areas_do_not_overlap_and_no_mask_covers_one() -> None:
    layout = default_layout(6)
    areas = [a.polygon for a in layout.areas]
    assert all(_overlap(a, b) == 0.0 for i, a in enumerate(areas) for b in areas[i + 1 :])
    assert all(_overlap(a, m) == 0.0 for a in areas for m in layout.masks)
    assert all(0 <= x <= 1000 and 0 <= y <= 1000 for a in areas for x, y in a)
