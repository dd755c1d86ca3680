"""Calibration from a rendered ArUco frame, the manual fallback, and the seat layouts."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tablescan.config import load_config
from tablescan.render import RenderResult
from tablescan.wiring import calibrate, layout_from_config
from vision.calibration import (
    CalibrationError,
    calibrate_aruco,
    calibrate_points,
    default_layout,
)


def first_frame(clip: RenderResult) -> np.ndarray:
    cap = cv2.VideoCapture(str(clip.video))
    ok, frame = cap.read()
    cap.release()
    assert ok
    return frame


def test_aruco_homography_matches_the_rendered_camera(clip: RenderResult) -> None:
    cfg = load_config(clip.table)
    frame = first_frame(clip)
    cal = calibrate_aruco(frame, cfg.calibration.table_size)
    # the renderer knows where the table corners landed in the image: the markers agree
    truth = np.array(cfg.calibration.points)
    got = cal.to_image([(0, 0), (1000, 0), (1000, 1000), (0, 1000)])
    assert np.abs(got - truth).max() < 3.0
    # every seat area's centre maps back inside that area
    layout = layout_from_config(cfg)
    for area in layout.areas:
        c = np.array(area.polygon).mean(0)
        assert layout.area_at((float(c[0]), float(c[1]))) == area


def test_missing_markers_are_named(clip: RenderResult) -> None:
    frame = first_frame(clip)
    cfg = load_config(clip.table)
    pts = np.array(cfg.calibration.points[1], dtype=int)  # cover the top-right marker
    covered = frame.copy()
    cv2.circle(covered, (int(pts[0]), int(pts[1])), 45, (0, 0, 0), -1)
    with pytest.raises(CalibrationError, match=r"1 \(top-right\)"):
        calibrate_aruco(covered, cfg.calibration.table_size)
    with pytest.raises(CalibrationError, match="empty"):
        calibrate_aruco(np.zeros((0, 0, 3), np.uint8), (1000, 1000))


def test_saved_points_are_the_fallback_when_markers_are_hidden(clip: RenderResult) -> None:
    cfg = load_config(clip.table)
    blank = np.full_like(first_frame(clip), 90)
    cal = calibrate(cfg, blank)  # no marker visible: the saved manual points are used
    got = cal.to_table(cfg.calibration.points)
    assert np.abs(got - [(0, 0), (1000, 0), (1000, 1000), (0, 1000)]).max() < 1e-3


def test_manual_points_must_be_a_convex_quad() -> None:
    with pytest.raises(CalibrationError, match="convex"):
        calibrate_points([(0, 0), (100, 100), (100, 0), (0, 100)], (1000, 1000), (640, 480))
    with pytest.raises(CalibrationError, match="4"):
        calibrate_points([(0, 0), (100, 0), (100, 100)], (1000, 1000), (640, 480))


@pytest.mark.parametrize("seats", [3, 4, 5, 6, 7, 8])
def test_layouts_keep_areas_apart(seats: int) -> None:
    layout = default_layout(seats)
    assert sorted(layout.seat_areas) == list(range(seats))
    # the centre of each area lies in that area only, and never under a hand mask
    for area in layout.areas:
        cx, cy = np.array(area.polygon).mean(0)
        inside = [a.name for a in layout.areas if a.contains((float(cx), float(cy)))]
        assert inside == [area.name]
        for mask in layout.masks:
            contour = np.array(mask, np.float32).reshape(-1, 1, 2)
            assert cv2.pointPolygonTest(contour, (float(cx), float(cy)), False) < 0
    for bad in (2, 9):
        with pytest.raises(ValueError, match="n_seats: expected 3 to 8"):
            default_layout(bad)


def test_hand_masks_black_out_held_cards(clip: RenderResult) -> None:
    cfg = load_config(clip.table)
    frame = first_frame(clip)
    cal = calibrate(cfg, frame)
    mask = cal.mask_image(layout_from_config(cfg))
    assert 0.05 < (mask == 0).mean() < 0.5  # the edges behind each seat, not the play areas
    for mask_poly in cfg.masks:
        cx, cy = cal.to_image([np.array(mask_poly).mean(0)])[0]
        if 0 <= cx < mask.shape[1] and 0 <= cy < mask.shape[0]:
            assert mask[int(cy), int(cx)] == 0
