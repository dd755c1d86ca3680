"""Camera → table plane: the homography, the seat play areas, the centre and the hand masks.

Everything the tracker decides ("cards appeared in seat 2's area") is decided on the table
plane, so a camera mounted a little off-centre or tilted still assigns cards to the right seat.
The players' own hands are masked out before any frame is read or stored: a held hand is
hidden information.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

Point = tuple[float, float]
Polygon = tuple[Point, ...]
CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")


class CalibrationError(ValueError):
    """No usable homography: markers missing, points degenerate, frame unreadable."""


@dataclass(frozen=True)
class Area:
    """A region of the table plane; ``seat`` is None for the centre (bottom) area."""

    name: str
    kind: str  # "seat" | "centre"
    polygon: Polygon
    seat: int | None = None

    def contains(self, p: Point) -> bool:
        contour = np.array(self.polygon, dtype=np.float32).reshape(-1, 1, 2)
        return bool(cv2.pointPolygonTest(contour, (float(p[0]), float(p[1])), False) >= 0)


@dataclass(frozen=True)
class Layout:
    """Where things lie on the table plane (units: the table's own, e.g. millimetres)."""

    table_size: tuple[float, float]
    areas: tuple[Area, ...]
    masks: tuple[Polygon, ...]

    @property
    def seat_areas(self) -> dict[int, Area]:
        return {a.seat: a for a in self.areas if a.seat is not None}

    @property
    def centre(self) -> Area:
        return next(a for a in self.areas if a.kind == "centre")

    def area_at(self, p: Point) -> Area | None:
        return next((a for a in self.areas if a.contains(p)), None)


def _rect(cx: float, cy: float, w: float, h: float, angle: float) -> Polygon:
    """Corners of a w×h rectangle centred at (cx, cy), rotated by ``angle`` radians."""
    c, s = math.cos(angle), math.sin(angle)
    pts = [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]
    return tuple((round(cx + x * c - y * s, 1), round(cy + x * s + y * c, 1)) for x, y in pts)


def seat_angle(seat: int, n_seats: int) -> float:
    """Seat 0 sits at the bottom of the plane; play goes counter-clockwise seen from above."""
    return math.pi / 2 - seat * 2 * math.pi / n_seats


def default_layout(n_seats: int, table_size: float = 1000.0, card_h: float = 170.0) -> Layout:
    """Seat areas in a ring around the centre, hand masks at the table edge behind each seat."""
    if not 3 <= n_seats <= 8:
        raise ValueError(f"n_seats: expected 3 to 8, got {n_seats}")
    half = table_size / 2
    areas: list[Area] = []
    masks: list[Polygon] = []
    depth = card_h * 1.35
    # more than four seats: narrower areas further out, so that neighbours' areas do not
    # overlap (a card in an overlap would be given to whichever seat is listed first) and no
    # hand mask covers a play area; four seats (80-points) have the wide areas they were
    # tuned with, the others the six-seat (Gouji) ring's arc share per seat
    four = n_seats == 4
    width = table_size * (0.44 if four else min(0.44, 1.56 / n_seats))
    radius = half * (0.64 if four else 0.68)
    mr = half * (1.06 if four else 1.1)
    for seat in range(n_seats):
        a = seat_angle(seat, n_seats)
        cx, cy = half + radius * math.cos(a), half + radius * math.sin(a)
        # the rectangle's long side runs across the seat's line of sight
        areas.append(
            Area(f"seat{seat}", "seat", _rect(cx, cy, width, depth, a + math.pi / 2), seat)
        )
        masks.append(
            _rect(
                half + mr * math.cos(a),
                half + mr * math.sin(a),
                width * 1.6,
                card_h * 1.1,
                a + math.pi / 2,
            )
        )
    side = half * (0.78 if four else 0.5)
    areas.append(Area("centre", "centre", _rect(half, half, side, card_h * 1.5, 0.0)))
    return Layout((table_size, table_size), tuple(areas), tuple(masks))


@dataclass(frozen=True)
class Calibration:
    """The homography from image pixels to the table plane, and back."""

    image_to_table: NDArray[Any]
    image_size: tuple[int, int]  # (width, height)

    @property
    def table_to_image(self) -> NDArray[Any]:
        return np.linalg.inv(self.image_to_table)

    def to_table(self, pts: Sequence[Point] | NDArray[Any]) -> NDArray[Any]:
        arr = np.asarray(pts, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(arr, self.image_to_table).reshape(-1, 2)

    def to_image(self, pts: Sequence[Point] | NDArray[Any]) -> NDArray[Any]:
        arr = np.asarray(pts, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(arr, self.table_to_image).reshape(-1, 2)

    def mask_image(self, layout: Layout) -> NDArray[Any]:
        """255 where the camera may look, 0 over the players' held hands."""
        w, h = self.image_size
        mask = np.full((h, w), 255, np.uint8)
        for poly in layout.masks:
            pts = np.round(self.to_image(poly)).astype(np.int32)
            cv2.fillPoly(mask, [pts], 0)
        return mask

    def area_masks(self, layout: Layout, scale: float = 1.0) -> dict[str, NDArray[Any]]:
        """Each area as a boolean image mask (at ``scale`` of the frame), for motion gating."""
        w, h = self.image_size
        sw, sh = max(1, round(w * scale)), max(1, round(h * scale))
        out: dict[str, NDArray[Any]] = {}
        for area in layout.areas:
            m = np.zeros((sh, sw), np.uint8)
            pts = np.round(self.to_image(area.polygon) * scale).astype(np.int32)
            cv2.fillPoly(m, [pts], 1)
            out[area.name] = m.astype(bool)
        return out


def corner_targets(table_size: tuple[float, float]) -> NDArray[Any]:
    tw, th = table_size
    return np.array([(0, 0), (tw, 0), (tw, th), (0, th)], dtype=np.float64)


def calibrate_points(
    points: Sequence[Point], table_size: tuple[float, float], image_size: tuple[int, int]
) -> Calibration:
    """The manual fallback: the 4 table corners in image pixels (TL, TR, BR, BL)."""
    src = np.asarray(points, dtype=np.float64)
    if src.shape != (4, 2):
        raise CalibrationError(f"points: expected 4 [x, y] image points, got {src.shape}")
    area = cv2.contourArea(src.astype(np.float32))
    if area < 100 or not cv2.isContourConvex(src.astype(np.float32)):
        raise CalibrationError(
            "points: the 4 corners do not form a convex quadrilateral "
            "(expected top-left, top-right, bottom-right, bottom-left)"
        )
    h = cv2.getPerspectiveTransform(
        src.astype(np.float32), corner_targets(table_size).astype(np.float32)
    )
    return Calibration(h.astype(np.float64), image_size)


def aruco_dictionary(name: str) -> cv2.aruco.Dictionary:
    if not hasattr(cv2.aruco, name):
        raise CalibrationError(f"dictionary: unknown ArUco dictionary {name!r}")
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


def find_markers(
    image: NDArray[Any] | None, dictionary: str = "DICT_4X4_50"
) -> list[dict[str, Any]]:
    """The ArUco markers in a frame (id, corners, centre in image pixels), by id: what the
    calibration page shows. The node looks in the raw frame, before the held-hand masks (which
    reach the table corners, where the markers lie) black parts of it out."""
    if image is None or image.size == 0:
        return []
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    detector = cv2.aruco.ArucoDetector(aruco_dictionary(dictionary), cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(gray)
    if ids is None:
        return []
    out = []
    for c, i in sorted(zip(corners, ids.ravel(), strict=True), key=lambda m: int(m[1])):
        quad = c.reshape(4, 2).astype(float)
        out.append(
            {
                "id": int(i),
                "corners": quad.round(1).tolist(),
                "centre": quad.mean(axis=0).round(1).tolist(),
            }
        )
    return out


def calibrate_aruco(
    frame: NDArray[Any],
    table_size: tuple[float, float],
    dictionary: str = "DICT_4X4_50",
    marker_ids: Sequence[int] = (0, 1, 2, 3),
    marker_size: float = 70.0,
) -> Calibration:
    """Find the four corner markers and fit the homography on all 16 marker corners.

    Marker centres sit at the table corners (TL, TR, BR, BL) and the markers are square with
    side ``marker_size`` in table units, aligned with the table edges.
    """
    if frame is None or frame.ndim < 2 or frame.size == 0:
        raise CalibrationError("frame: empty or unreadable image")
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    detector = cv2.aruco.ArucoDetector(aruco_dictionary(dictionary), cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(gray)
    found: dict[int, NDArray[Any]] = {}
    if ids is not None:
        for c, i in zip(corners, ids.ravel(), strict=True):
            found[int(i)] = c.reshape(4, 2)
    missing = [f"{mid} ({CORNER_NAMES[k]})" for k, mid in enumerate(marker_ids) if mid not in found]
    if missing:
        raise CalibrationError(
            f"ArUco markers not found in the frame: {', '.join(missing)}; "
            f"seen ids: {sorted(found) or 'none'}"
        )
    src, dst = [], []
    half = marker_size / 2
    offsets = [(-half, -half), (half, -half), (half, half), (-half, half)]
    for (cx, cy), mid in zip(corner_targets(table_size), marker_ids, strict=True):
        for (ox, oy), p in zip(offsets, found[mid], strict=True):
            src.append(p)
            dst.append((cx + ox, cy + oy))
    h, _ = cv2.findHomography(np.array(src, np.float64), np.array(dst, np.float64), 0)
    if h is None:
        raise CalibrationError("ArUco markers found but no homography fits them")
    height, width = gray.shape[:2]
    return Calibration(h.astype(np.float64), (int(width), int(height)))


def draw_marker(dictionary: str, marker_id: int, pixels: int) -> NDArray[Any]:
    """A printable marker image (white quiet zone not included)."""
    return np.asarray(
        cv2.aruco.generateImageMarker(aruco_dictionary(dictionary), marker_id, pixels), np.uint8
    )


# --- the operating envelope: how many pixels a card gets ----------------------------------

#: Cards shorter than this (frame pixels) are read worse: an index window of an 80 px card is
#: about 24×34 source pixels, and no crop adds detail the sensor did not take (issue 26).
MIN_CARD_PX = 120.0


def pixels_per_unit(cal: Calibration, p: Point) -> float:
    """Image pixels per table unit at table point ``p``, along the worse of the two directions
    (a card may lie either way; a tilted camera stretches one more than the other)."""
    x, y = float(p[0]), float(p[1])
    img = cal.to_image([(x, y), (x + 1.0, y), (x, y + 1.0)])
    jac = np.stack([img[1] - img[0], img[2] - img[0]], axis=1)
    return float(np.linalg.svd(jac, compute_uv=False).min())


def marker_pixels_per_unit(
    frame: NDArray[Any], dictionary: str, marker_ids: Sequence[int], marker_size: float
) -> dict[int, float]:
    """Each found corner marker's mean side in image pixels over its true side (table units):
    the scale measured straight from the printed squares, no homography involved."""
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    detector = cv2.aruco.ArucoDetector(aruco_dictionary(dictionary), cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(gray)
    out: dict[int, float] = {}
    for c, i in zip(corners, [] if ids is None else ids.ravel(), strict=False):
        if int(i) in marker_ids:
            q = c.reshape(4, 2)
            side = float(np.mean(np.linalg.norm(q - np.roll(q, 1, axis=0), axis=1)))
            out[int(i)] = side / marker_size
    return out


@dataclass(frozen=True)
class Envelope:
    """What the camera gives a card: measured on a frame, stated for the capture mode.

    ``card_px``: a card's height in pixels at the play area that gets fewest (the worst seat
    or the centre) in a frame of ``mode`` size; ``markers``: px per unit measured from each
    marker's printed side in the frame as taken (``frame`` size)."""

    frame: tuple[int, int]
    mode: tuple[int, int]
    card_px: float
    worst_area: str
    markers: dict[int, float]

    @property
    def ok(self) -> bool:
        return self.card_px >= MIN_CARD_PX

    def at_mode(self, mode: tuple[int, int]) -> float:
        """The card height the same camera, at the same place, gives in another mode of the
        same field of view (pixels scale with the width)."""
        return self.card_px * mode[0] / self.mode[0]


def envelope(
    cal: Calibration,
    layout: Layout,
    card_height: float,
    mode: tuple[int, int],
    markers: dict[int, float] | None = None,
) -> Envelope:
    """The card height the calibration ``cal`` (fitted on a frame of ``cal.image_size``)
    gives at each play area's centre, the smallest, scaled to capture mode ``mode``."""
    scale = mode[0] / cal.image_size[0]
    worst = ("", math.inf)
    for area in layout.areas:
        c = np.asarray(area.polygon, np.float64).mean(0)
        px = pixels_per_unit(cal, (float(c[0]), float(c[1]))) * card_height * scale
        if px < worst[1]:
            worst = (area.name, px)
    return Envelope(cal.image_size, mode, worst[1], worst[0], dict(markers or {}))
