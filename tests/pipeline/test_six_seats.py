"""A 6-seat Gouji table: the layout, the config, the node's wiring to the Gouji referee, and a
whole match: the node ends each deal when the referee's places are decided and opens the next
when the table shows it (the last sets swept, or a seat's press)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from tablescan.config import dump_config, layout_tables, load_config
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
        **layout_tables(layout),
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
    """A simulated match's deals, each without its start and end (what the node must see);
    each press numbered as a seat controller numbers its presses."""
    out: list[list[dict[str, Any]]] = []
    for ev in simulated_deals(profile, seed, hands):
        if ev["type"] == "hand_start":
            out.append([])
        elif ev["type"] not in BOUNDS:
            body = {k: v for k, v in ev.items() if k not in ("v", "seq", "t")}
            if body["type"] != "play":
                body["meta"] = {"press": f"p{ev['seq']}"}
            out[-1].append(body)
    return out


QINGDAO = "gouji-qingdao"  # three deals a match: 「小组循环赛每场赛三局」(L254)


class Table:
    """A six-seat node fed a simulated match as the table would show it: each deal's presses
    (seat buttons), its first lead (after the first deal) and its last set on the cloth."""

    def __init__(self, tmp_path: Path, resume: list[dict[str, Any]] | None = None) -> None:
        self.det = Scripted()
        cfg = load_config(six_seat_config(tmp_path, QINGDAO))
        self.node = build_node(cfg, self.det, keep_evidence=False, resume=resume or ())
        self.frame = 0

    def show(self, seat: int | None, cards: list[str], n: int = 6) -> list[dict[str, Any]]:
        img = BLANK if seat is None else lay(self.node, self.det, seat, cards, BLANK)
        if seat is None:
            self.det.cards = []
        written: list[dict[str, Any]] = []
        for _ in range(n):
            written += self.node.process(Frame(self.frame, self.frame / 20, img))
            self.frame += 1
        return written

    def play(self, played: list[list[dict[str, Any]]], check: bool = True) -> None:
        node = self.node
        self.show(None, [], 3)
        for k, deal in enumerate(played):
            plays = [i for i, e in enumerate(deal) if e["type"] == "play"]
            first, last = plays[0], plays[-1]
            assert all(e["type"] != "play" for e in deal[last + 1 :])
            for body in deal[:first]:
                node.external(body)
            if k:  # the first lead laid on the cloth opens the deal (no press came before it)
                led = self.show(deal[first]["seat"], deal[first]["cards"])
                if check:
                    assert [e["type"] for e in led] == ["hand_start", "play"] and first == 0
                    assert led[0]["hand"] == k + 1 and led[0]["meta"] == {"from": "table"}
            else:
                node.external(deal[first])
            for body in deal[first + 1 : last]:
                node.external(body)
            if check:
                assert node.events[-1]["type"] != "hand_end"
            read = self.show(deal[last]["seat"], deal[last]["cards"])
            kinds = [e["type"] for e in read]
            if check:
                assert kinds[:2] == ["play", "hand_end"]
                assert read[0]["cards"] == deal[last]["cards"]
                assert kinds[2:] == (["match_end"] if k == len(played) - 1 else [])
            assert self.show(None, []) == []  # the last sets swept: no deal yet


def test_the_node_ends_each_deal_and_the_match_and_opens_deals_from_the_table(
    tmp_path: Path,
) -> None:
    """Each deal's last set is read by the camera and the node writes the ``hand_end`` (the
    referee's places are decided); the sweep is not a deal, the next deal's first lead is;
    after the sheet's third deal the node ends the match."""
    table = Table(tmp_path)
    table.play(deals(QINGDAO, 4, 3))
    events = table.node.events
    end = events[-1]
    assert end["type"] == "match_end" and end["meta"] == {"from": "table"}
    assert end["result"]["hands"] == 3
    report = judged(events, QINGDAO)
    assert not report["errors"] and [h["final"] for h in report["hands"]] == [True] * 3
    truth = judged(simulated_deals(QINGDAO, 4, 3), QINGDAO)
    assert [h["finishing_order"] for h in report["hands"]] == [
        h["finishing_order"] for h in truth["hands"]
    ]
    assert end["result"]["teams"] == truth["match"]["teams"]


@pytest.mark.parametrize("where", ["mid-deal", "between deals"])
def test_a_crash_mid_match_resumes_to_the_same_record(tmp_path: Path, where: str) -> None:
    """The node crashed (its record stored up to ``where``); a new one resumes from the store,
    the same frames and presses replayed: nothing is written twice, and the match goes on to
    the very record an uninterrupted node writes."""
    played = deals(QINGDAO, 4, 3)
    whole = Table(tmp_path)
    whole.play(played)
    full = whole.node.events
    ends = [i for i, e in enumerate(full) if e["type"] == "hand_end"]
    cut = ends[0] + 1 if where == "between deals" else (ends[0] + ends[1]) // 2
    again = Table(tmp_path, resume=full[:cut])
    again.play(played, check=False)
    node = again.node
    assert not node.stats.errors, dict(node.stats.errors)

    def key(e: dict[str, Any]) -> tuple[Any, ...]:
        return (e["seq"], e["type"], e.get("seat"), e.get("cards"), e.get("hand"))

    assert [key(e) for e in node.events] == [key(e) for e in full]
    assert node.match_over


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
