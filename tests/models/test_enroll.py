"""Enrollment cuts a deck's faces from one photo of them laid out in order."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.enroll import LAYOUT_COLS, EnrollError, cut_layout, cut_scans, write_enrolled
from models.pack_renders import load_pack
from vision.synth.decks import all_decks, render_card

ORDER = ("2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS", "AS",
         "2H", "3H", "4H", "5H", "6H")  # fmt: skip


def _layout(rng: np.random.Generator) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    deck = next(d for d in all_decks() if d.name == "gnome/anglo")
    W, H, ch = 1500, 560, 200
    photo = np.zeros((H, W, 3), np.float32)
    photo[:] = (40, 90, 30)
    photo += rng.normal(0, 4, photo.shape)
    faces = {}
    for i, card in enumerate(ORDER):
        src = render_card(deck, card, 320)
        faces[card] = src
        r, c = divmod(i, LAYOUT_COLS)
        cx, cy = 90 + c * 165 + rng.uniform(-8, 8), 130 + r * 280 + rng.uniform(-8, 8)
        ang = math.radians(rng.uniform(-4, 4))
        s = ch / src.shape[0]
        m = cv2.getRotationMatrix2D((src.shape[1] / 2, src.shape[0] / 2), math.degrees(ang), s)
        m[:, 2] += (cx - src.shape[1] / 2, cy - src.shape[0] / 2)
        warped = cv2.warpAffine(src, m, (W, H), flags=cv2.INTER_AREA)
        a = warped[..., 3:].astype(np.float32) / 255
        photo = photo * (1 - a) + warped[..., :3] * a
    return np.clip(photo, 0, 255).astype(np.uint8), faces


def test_layout_photo_is_cut_into_named_upright_faces(tmp_path: Path) -> None:
    photo, faces = _layout(np.random.default_rng(3))
    cuts = cut_layout(photo, ORDER)
    assert [c.card for c in cuts] == list(ORDER)
    for c in cuts:
        assert c.image.shape[0] == 320 and c.image.shape[2] == 4
        want = cv2.resize(faces[c.card][..., :3], c.image.shape[1::-1])
        got = c.image[..., :3]
        score = cv2.matchTemplate(got[8:-8, 8:-8], want, cv2.TM_CCOEFF_NORMED).max()
        assert score > 0.6, (c.card, score)
        assert c.printed == (True, True)
    pack = write_enrolled(cuts, "club-deck", tmp_path)
    decks, usable = load_pack(pack, "enrolled")
    assert [d.name for d in decks] == ["enrolled/club-deck"]
    assert sorted(usable["enrolled/club-deck"]) == sorted(ORDER)
    assert (tmp_path / "7S.png").exists()


def test_a_layout_with_missing_cards_is_a_clear_error() -> None:
    photo, _ = _layout(np.random.default_rng(4))
    photo[:, 700:] = (40, 90, 30)  # half the cards gone
    with pytest.raises(EnrollError, match="expected 18"):
        cut_layout(photo, ORDER)


def test_scans_need_named_faces(tmp_path: Path) -> None:
    (tmp_path / "7C.png").write_bytes(b"")
    with pytest.raises(EnrollError):
        cut_scans(tmp_path)


def test_cli_prints_the_order_and_names_a_bad_scan_folder(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    r = subprocess.run(
        [sys.executable, "-m", "tablescan", "deck", "order"],
        capture_output=True, text=True, cwd=root, timeout=120, check=False,
    )  # fmt: skip
    assert r.returncode == 0 and "row 6: 8D 9D 10D JD QD KD AD BJ SJ" in r.stdout
    r = subprocess.run(
        [sys.executable, "-m", "tablescan", "deck", "enroll", "--scans", str(tmp_path),
         "--name", "club", "--out", str(tmp_path / "o")],
        capture_output=True, text=True, cwd=root, timeout=120, check=False,
    )  # fmt: skip
    assert r.returncode == 2 and "need 20 or more" in r.stderr
