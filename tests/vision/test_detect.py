"""The shipped model (models/cards.onnx) through a real onnxruntime session."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.detect import DEFAULT_MODEL, CardDetector, Detection, ModelError

FIXTURES = Path(__file__).resolve().parent / "fixtures"
EXPECTED: dict[str, list[str]] = json.loads((FIXTURES / "expected.json").read_text())
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def detector() -> CardDetector:
    return CardDetector(DEFAULT_MODEL)


def test_shipped_model_is_small_enough() -> None:
    assert DEFAULT_MODEL.stat().st_size <= 12 * 1024 * 1024


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_scene_yields_exactly_its_cards(detector: CardDetector, name: str) -> None:
    img = cv2.imread(str(FIXTURES / name), cv2.IMREAD_COLOR)
    assert img is not None
    found = detector.detect(img)
    assert sorted(d.card for d in found) == EXPECTED[name]
    h, w = img.shape[:2]
    for d in found:
        assert isinstance(d, Detection) and 0.0 <= d.score <= 1.0
        assert len(d.quad) == 4
        cx = sum(x for x, _ in d.quad) / 4
        cy = sum(y for _, y in d.quad) / 4
        assert -0.2 * w < cx < 1.2 * w and -0.2 * h < cy < 1.2 * h


def test_empty_table_has_no_cards(detector: CardDetector) -> None:
    table = np.full((720, 1280, 3), (40, 110, 30), np.uint8)
    assert detector.detect(table) == []


def test_bad_frames_are_clear_errors(detector: CardDetector) -> None:
    with pytest.raises(ValueError, match="BGR image"):
        detector.detect(np.zeros((10, 10), np.uint8))
    with pytest.raises(ValueError, match="uint8"):
        detector.detect(np.zeros((10, 10, 3), np.float32))


def test_missing_model_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="no such file"):
        CardDetector(tmp_path / "nope.onnx")
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not onnx")
    with pytest.raises(ModelError, match="cannot be loaded"):
        CardDetector(bad)


def test_cli_prints_one_json_list_and_flags_an_unreadable_image(tmp_path: Path) -> None:
    name = sorted(EXPECTED)[0]
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"garbage")
    r = subprocess.run(
        [sys.executable, "-m", "vision.detect", "--json", str(FIXTURES / name), str(junk)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    out = json.loads(r.stdout)
    assert [o["image"] for o in out] == [str(FIXTURES / name), str(junk)]
    assert sorted(c["card"] for c in out[0]["cards"]) == EXPECTED[name]
    assert all(len(c["quad"]) == 4 and 0 <= c["score"] <= 1 for c in out[0]["cards"])
    assert "error" in out[1] and out[1]["cards"] == []
    assert r.returncode == 1 and "junk.jpg" in r.stderr


def test_detect_region_reads_a_part_of_the_frame_in_frame_pixels(detector: CardDetector) -> None:
    """A region is read as that crop alone, with its outlines put back in frame pixels."""
    img = cv2.imread(str(FIXTURES / "scene_013.jpg"), cv2.IMREAD_COLOR)
    assert img is not None
    h, w = img.shape[:2]
    framed = cv2.copyMakeBorder(img, 60, 20, 100, 30, cv2.BORDER_CONSTANT, value=(40, 110, 30))
    whole = detector.detect(img)
    part = detector.detect_region(framed, (100, 60, 100 + w, 60 + h))
    assert [d.card for d in part] == [d.card for d in whole] and whole
    for a, b in zip(whole, part, strict=True):
        assert np.allclose(np.add(a.quad, (100, 60)), b.quad)
    assert detector.detect_region(framed, (-50, -50, 5, 5)) == []  # clipped to nothing


def test_a_lower_card_score_adds_only_the_reads_under_the_floor(detector: CardDetector) -> None:
    """The live pipeline's second look at an area that read nothing: the lowered floor
    keeps every sure card and adds only reads the model's own floor drops."""
    img = cv2.imread(str(FIXTURES / "scene_013.jpg"), cv2.IMREAD_COLOR)
    assert img is not None
    sure = detector.detect(img)
    weak = detector.detect(img, card_score=0.0)
    floor = detector.thresholds.card_score
    assert [d.card for d in weak if d.score >= floor] == [d.card for d in sure]
    extra = [d for d in weak if d.score < floor]
    assert extra and len(weak) == len(sure) + len(extra)
