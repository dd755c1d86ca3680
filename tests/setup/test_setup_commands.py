"""``tablescan setup`` writes what ``config check`` accepts; ``tablescan markers`` prints markers
the calibration finds, at true size."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from tablescan.commands.markers import A4, cut_margin, grid_centres
from tablescan.config import load_config
from vision.calibration import calibrate_aruco

ROOT = Path(__file__).resolve().parents[2]


def tablescan(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tablescan", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


@pytest.mark.parametrize(("game", "seats"), [("80-points", 4), ("gouji", 6)])
def test_setup_writes_a_commented_file_config_check_accepts(
    tmp_path: Path, game: str, seats: int
) -> None:
    out = tmp_path / "table-1.toml"
    done = tablescan("setup", "--game", game, "--seats", str(seats), "-o", str(out))
    assert done.returncode == 0, done.stderr
    text = out.read_text(encoding="utf-8")
    assert "# Seat names in playing order" in text and "# sure_score = 0.85" in text
    checked = tablescan("config", "check", str(out))
    assert checked.returncode == 0, checked.stderr
    assert f"{seats} seats" in checked.stdout
    cfg = load_config(out)
    assert cfg.table_id == "table-1" and len(cfg.seats) == seats
    assert cfg.game == ("tractor" if game == "80-points" else "gouji")
    # each seat named by its area's index (seat0 is 0号位), not a 1-based English "Seat 1"
    areas = {a.seat: a.name for a in cfg.areas if a.kind == "seat"}
    assert [f"seat{i}" for i in range(seats)] == [areas[i] for i in range(seats)]
    assert list(cfg.seats) == [f"{i}号位" for i in range(seats)]
    polys = [np.array(a.polygon, np.float32) for a in cfg.areas]
    overlaps = [
        cv2.intersectConvexConvex(a, b)[0] for i, a in enumerate(polys) for b in polys[i + 1 :]
    ]
    assert max(overlaps) == 0.0  # a card in an overlap would go to the first seat listed
    again = tablescan("setup", "--game", game, "-o", str(out))
    assert again.returncode == 2 and "exists; pass --force" in again.stderr


def test_markers_pdf_renders_at_true_size_and_calibrates(tmp_path: Path) -> None:
    pdf = tmp_path / "markers.pdf"
    done = tablescan("markers", "-o", str(pdf))
    assert done.returncode == 0, done.stderr
    dpi = 150
    subprocess.run(
        ["pdftoppm", "-r", str(dpi), "-png", str(pdf), str(tmp_path / "page")],
        check=True,
        timeout=60,
    )
    page = cv2.imread(str(tmp_path / "page-1.png"))
    assert page is not None
    px_per_mm = dpi / 25.4
    assert page.shape[1] == pytest.approx(A4[0] * px_per_mm, abs=2)
    centres = grid_centres(70.0)
    assert centres is not None
    (x0, y0), (x1, _), (_, y2) = centres[0], centres[1], centres[2]
    # the page is a little table: marker centres at its corners, 70 mm markers
    cal = calibrate_aruco(page, (x1 - x0, y2 - y0), "DICT_4X4_50", (0, 1, 2, 3), 70.0)
    probe = [(x0 * px_per_mm, y0 * px_per_mm), (A4[0] / 2 * px_per_mm, A4[1] / 2 * px_per_mm)]
    got = cal.to_table(probe)
    want = [(0.0, 0.0), (A4[0] / 2 - x0, A4[1] / 2 - y0)]
    assert np.abs(got - np.array(want)).max() < 0.5  # mm: printed at true size


@pytest.mark.parametrize(("lang", "words"), [("zh", "校准标记"), ("en", "calibration markers")])
def test_markers_pdf_speaks_the_cli_language_with_cut_lines_and_centre_ticks(
    tmp_path: Path, lang: str, words: str
) -> None:
    pdf = tmp_path / "markers.pdf"
    assert tablescan("markers", "-o", str(pdf), "--lang", lang).returncode == 0
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True)
    assert words in text.stdout and ("左上" in text.stdout) == (lang == "zh")
    dpi = 100
    subprocess.run(["pdftoppm", "-r", str(dpi), "-gray", "-png", str(pdf), str(tmp_path / "p")])
    page = cv2.imread(str(tmp_path / "p-1.png"), cv2.IMREAD_GRAYSCALE)
    mm = dpi / 25.4
    centres = grid_centres(70.0)
    assert centres is not None
    (cx, cy), half = centres[0], 35.0
    cut = half + cut_margin(70.0, True)
    # the dashed cut line left of the marker: dark and light runs along its length
    x = round((cx - cut) * mm)
    col = page[int((cy - half) * mm) : int((cy + half) * mm), x - 1 : x + 2].min(axis=1)
    assert 0.2 < (col < 220).mean() < 0.9
    # the centre ticks: on the marker's centre lines, between the marker and the cut line
    gap = (cx - (half + cut) / 2) * mm
    assert page[int(cy * mm) - 1 : int(cy * mm) + 2, int(gap)].min() < 100  # left tick
    assert (
        page[int((cy - half / 2 - cut / 2) * mm), int(cx * mm) - 1 : int(cx * mm) + 2].min() < 100
    )
    assert page[int((cy - 10) * mm), int(gap)] > 200  # nothing else there


def test_large_markers_go_one_to_a_page(tmp_path: Path) -> None:
    pdf = tmp_path / "big.pdf"
    done = tablescan("markers", "-o", str(pdf), "--size", "150", "--ids", "4", "5", "6", "7")
    assert done.returncode == 0, done.stderr
    assert "on 4 A4 page(s)" in done.stdout
    subprocess.run(["pdftoppm", "-r", "50", "-png", str(pdf), str(tmp_path / "p")], check=True)
    detector = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), cv2.aruco.DetectorParameters()
    )
    seen = []
    for i in range(1, 5):
        img = cv2.imread(str(tmp_path / f"p-{i}.png"), cv2.IMREAD_GRAYSCALE)
        _, ids, _ = detector.detectMarkers(img)
        seen += [int(x) for x in ids.ravel()]
    assert seen == [4, 5, 6, 7]
