"""Tiled localisation: tiles cover the frame, their cores split it, and no card is counted
twice where tiles overlap."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vision.detect import DEFAULT_MODEL, CardDetector, tile_boxes

FIXTURES = Path(__file__).resolve().parent / "fixtures"
EXPECTED: dict[str, list[str]] = json.loads((FIXTURES / "expected.json").read_text())


@given(
    st.integers(64, 2400),
    st.integers(64, 2400),
    st.integers(1, 4),
    st.floats(0.0, 0.3),
    st.data(),
)
def test_tiles_cover_the_frame_and_their_cores_partition_it(
    w: int, h: int, grid: int, overlap: float, data: st.DataObject
) -> None:
    tiles = tile_boxes(w, h, grid, overlap)
    assert len(tiles) == grid * grid
    for t in tiles:
        x0, y0, x1, y1 = t.box
        assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h
    x = data.draw(st.floats(-50, w + 50))
    y = data.draw(st.floats(-50, h + 50))
    owners = [t for t in tiles if t.owns(x, y)]
    assert len(owners) == 1  # every point, even just outside the frame, has one owner
    x0, y0, x1, y1 = owners[0].box
    if 0 <= x < w and 0 <= y < h:
        assert x0 <= x <= x1 and y0 <= y <= y1  # and that tile sees it


def test_overlap_is_shared_and_cores_sit_inside_boxes() -> None:
    tiles = tile_boxes(1280, 720, 2, 0.12)
    left, right = tiles[0].box, tiles[1].box
    assert left[2] - right[0] == pytest.approx(0.12 * 1280, abs=2)
    for t in tiles:
        cx0, cy0, cx1, cy1 = (max(v, 0) for v in t.core)
        x0, y0, x1, y1 = t.box
        assert x0 <= cx0 and y0 <= cy0 and min(cx1, 1280) <= x1 and min(cy1, 720) <= y1


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_tiled_detector_reads_each_fixture_card_once(name: str) -> None:
    det = CardDetector(DEFAULT_MODEL, tiles=2)
    img = cv2.imread(str(FIXTURES / name), cv2.IMREAD_COLOR)
    assert sorted(d.card for d in det.detect(img)) == EXPECTED[name]


def test_small_cards_in_the_overlap_are_counted_once() -> None:
    """A fixture scene shrunk so its cards are small and moved to where all four tiles
    overlap: the tiled reader may find more, never a card twice."""
    img = cv2.imread(str(FIXTURES / "scene_069.jpg"), cv2.IMREAD_COLOR)
    small = cv2.resize(img, (640, 360), interpolation=cv2.INTER_AREA)
    frame = cv2.copyMakeBorder(small, 180, 180, 320, 320, cv2.BORDER_REPLICATE)
    found = sorted(d.card for d in CardDetector(DEFAULT_MODEL, tiles=2).detect(frame))
    truth = EXPECTED["scene_069.jpg"]
    for card in set(found):
        assert found.count(card) <= truth.count(card), found


def test_bad_tile_count_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="tiles 9"):
        CardDetector(DEFAULT_MODEL, tiles=9)
