"""A 6-seat Gouji table: the layout, the config, the node's wiring to the Gouji referee, and a
whole match: the node ends each deal when the referee's places are decided and opens the next
when the table shows it (the last sets swept, or a seat's press)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from tablescan.config import dump_config, load_config
from tablescan.node import TableNode
from tablescan.render_gouji import judged, simulated_deals
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


def six_seat_config(tmp_path: Path, profile: str = "gouji-abqu") -> Path:
    layout = default_layout(6)
    cfg = {
        "table": {
            "id": "gouji-1",
            "game": "gouji",
            "profile": profile,
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


BLANK = np.full((H, W, 3), 60, np.uint8)


def lay(
    node: TableNode, det: Scripted, seat: int, cards: list[str], blank: np.ndarray
) -> np.ndarray:
    """A frame with ``cards`` drawn in ``seat``'s area, and the reader told to report them."""
    centre = np.array(node.reader.layout.seat_areas[seat].polygon).mean(0)
    assert node.reader.calibration is not None
    cx, cy = node.reader.calibration.to_image([centre])[0]
    img = blank.copy()
    cv2.rectangle(
        img, (int(cx) - 20, int(cy) - 28), (int(cx) + 20, int(cy) + 28), (250, 250, 250), -1
    )
    quad = [[cx - 20, cy - 28], [cx + 20, cy - 28], [cx + 20, cy + 28], [cx - 20, cy + 28]]
    det.cards = [Det(c, 0.95, quad) for c in cards]
    return img


def test_six_seat_table_reads_a_play_in_seat_four(tmp_path: Path) -> None:
    cfg = load_config(six_seat_config(tmp_path))
    assert cfg.decks == 4 and len(cfg.areas) == 7
    det = Scripted()
    node = build_node(cfg, det, keep_evidence=False)
    assert node.events[0]["game"] == "gouji" and len(node.events[0]["seats"]) == 6
    blank = np.full((H, W, 3), 60, np.uint8)
    for i in range(3):
        node.process(Frame(i, i / 20, blank))
    img = lay(node, det, 4, ["3H", "3H"], blank)
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


BOUNDS = ("match_start", "hand_start", "hand_end", "match_end")


def deals(profile: str, seed: int, hands: int) -> list[list[dict[str, Any]]]:
    """A simulated match's deals, each without its start and end (what the node must see)."""
    out: list[list[dict[str, Any]]] = []
    for ev in simulated_deals(profile, seed, hands):
        if ev["type"] == "hand_start":
            out.append([])
        elif ev["type"] not in BOUNDS:
            out[-1].append({k: v for k, v in ev.items() if k not in ("v", "seq", "t")})
    return out


def test_the_node_ends_each_deal_and_the_match_and_opens_deals_from_the_table(
    tmp_path: Path,
) -> None:
    """gouji-qingdao plays three deals (「小组循环赛每场赛三局」(L254)). Each deal's last set is
    read by the camera and the node writes the ``hand_end`` (the referee's places are
    decided); the sweep is not a deal, the next deal's first lead is; after the third deal the
    node ends the match."""
    profile = "gouji-qingdao"
    det = Scripted()
    node = build_node(load_config(six_seat_config(tmp_path, profile)), det, keep_evidence=False)
    frame = 0

    def show(seat: int | None, cards: list[str], n: int = 6) -> list[dict[str, Any]]:
        nonlocal frame
        img = BLANK if seat is None else lay(node, det, seat, cards, BLANK)
        if seat is None:
            det.cards = []
        written: list[dict[str, Any]] = []
        for _ in range(n):
            written += node.process(Frame(frame, frame / 20, img))
            frame += 1
        return written

    show(None, [], 3)
    played = deals(profile, 4, 3)
    for k, deal in enumerate(played):
        plays = [i for i, e in enumerate(deal) if e["type"] == "play"]
        first, last = plays[0], plays[-1]
        assert all(e["type"] != "play" for e in deal[last + 1 :])
        for body in deal[:first]:
            node.external(body)
        if k:  # the first lead laid on the cloth opens the deal (no press came before it)
            led = show(deal[first]["seat"], deal[first]["cards"])
            assert [e["type"] for e in led] == ["hand_start", "play"] and first == 0
            assert led[0]["hand"] == k + 1 and led[0]["meta"] == {"from": "table"}
        else:
            node.external(deal[first])
        for body in deal[first + 1 : last]:
            node.external(body)
        assert node.events[-1]["type"] != "hand_end"
        read = show(deal[last]["seat"], deal[last]["cards"])
        kinds = [e["type"] for e in read]
        assert kinds[:2] == ["play", "hand_end"] and read[0]["cards"] == deal[last]["cards"]
        assert show(None, []) == []  # the last sets swept: no deal yet
        if k == len(played) - 1:
            assert kinds[2:] == ["match_end"]
    end = node.events[-1]
    assert end["type"] == "match_end" and end["meta"] == {"from": "table"}
    assert end["result"]["hands"] == 3
    report = judged(node.events, profile)
    assert not report["errors"] and [h["final"] for h in report["hands"]] == [True] * 3
    truth = judged(simulated_deals(profile, 4, 3), profile)
    assert [h["finishing_order"] for h in report["hands"]] == [
        h["finishing_order"] for h in truth["hands"]
    ]
    assert end["result"]["teams"] == truth["match"]["teams"]


def test_a_seat_press_opens_the_next_deal_and_a_finished_match_stays_finished(
    tmp_path: Path,
) -> None:
    """gouji-core states no number of deals: the referee's "match over" ends it. Between
    deals a seat's press is the next deal's (3s exchanged, a pass); a deal the node ended is
    not ended again, and nothing is written after the match is over."""
    profile = "gouji-core"
    node = build_node(
        load_config(six_seat_config(tmp_path, profile)), Scripted(), keep_evidence=False
    )
    first, second = deals(profile, 2, 2)
    for body in first:
        node.external(body)
    assert node.events[-1]["type"] == "hand_end" and node.between
    assert node.external({"type": "hand_end", "reason": "a late press"}) == []
    opened = node.external(second[0])
    assert [e["type"] for e in opened] == ["hand_start", second[0]["type"]]
    for body in second[1:]:
        node.external(body)
    assert node.events[-1]["type"] == "hand_end" and not node.match_over
    ended = node.external({"type": "match_end", "reason": "referee"}, referee=True)
    assert [e["type"] for e in ended] == ["match_end"] and node.match_over
    assert node.external(second[0]) == []
    report = judged(node.events, profile)
    assert not report["errors"] and [h["final"] for h in report["hands"]] == [True, True]
