"""Issue 26 item 5: the tournament's deck enrolled from frames of the table camera, each
corner named by the layout (never by a guess), and the runtime-crop recipe tuned on them."""

from __future__ import annotations

import math
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.detect as D
from models.enroll_capture import (
    CAPTURE_COLS,
    CAPTURE_LAYOUTS,
    CaptureError,
    find_slots,
    label_peaks,
    read_capture,
)
from vision.detect import DEFAULT_MODEL, CardDetector
from vision.synth.decks import CARD_NAMES, all_decks
from vision.synth.scene import Scene, SceneConfig, compose_layout

ROOT = Path(__file__).resolve().parents[2]
CFG = SceneConfig(width=1280, height=720, card_height=(115.0, 130.0))


def _capture(layout: tuple[str, ...], seed: int) -> Scene:
    deck = next(d for d in all_decks() if d.name == "gnome/anglo")
    return compose_layout(np.random.default_rng([seed, 26]), deck, layout, CAPTURE_COLS, CFG)


@pytest.fixture(scope="module")
def det() -> CardDetector:
    return CardDetector(DEFAULT_MODEL, threads=1)


def test_the_layouts_hold_every_face_once() -> None:
    assert sorted(c for lay in CAPTURE_LAYOUTS for c in lay) == sorted(CARD_NAMES)
    assert all(len(lay) % CAPTURE_COLS == 0 for lay in CAPTURE_LAYOUTS)


def test_each_corner_is_named_by_the_card_laid_there(det: CardDetector) -> None:
    right = shown = 0
    for n, layout in enumerate(CAPTURE_LAYOUTS, 1):
        scene = _capture(layout, n)
        sure, _ = det.find(scene.image, det.thresholds)
        weak, _ = det.find(scene.image, replace(det.thresholds, index_heat=0.2))
        slots = find_slots(sure, layout, CAPTURE_COLS, f"layout {n}", tuple(weak))
        truth = {c.card: c for c in scene.cards}
        assert [s.card for s in slots] == list(layout)
        assert all(math.dist(s.centre, truth[s.card].centre) < 0.25 * s.height for s in slots)
        corners = [(ix.xy, c.card, ix.height) for c in scene.cards for ix in c.indices]
        for p, y in zip(weak, label_peaks(weak, slots), strict=True):
            if y is None:
                continue
            d, card = min((math.dist((p.x, p.y), xy) / h, card) for xy, card, h in corners)
            if y == D.CLASSES.index(D.NONE):
                assert d > 0.3, "a card's own corner was taken for the table"
            else:
                assert (D.CLASSES[y], d < 0.25) == (card, True), "a corner named wrong"
                right += 1
        shown += sum(ix.visible > 0.75 for c in scene.cards for ix in c.indices)
    assert right >= 0.8 * shown, (right, shown)


def test_a_capture_missing_a_card_is_refused_by_name(det: CardDetector) -> None:
    layout = CAPTURE_LAYOUTS[0]
    scene = _capture(layout[:4] + layout[5:], 1)  # the 6th of spades forgotten, the rest moved up
    with pytest.raises(
        CaptureError, match=f"capture x.png: no card seen where the layout has {layout[-1]}"
    ):
        read_capture(scene.image, 1, det, np.random.default_rng(0), "capture x.png")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tablescan", "deck", *args],
        capture_output=True, text=True, cwd=ROOT, timeout=300, check=False,
    )  # fmt: skip


def test_the_cli_enrolls_a_deck_from_its_captures(tmp_path: Path) -> None:
    from models.pack_renders import load_pack

    r = _run("order", "--captures")
    assert (
        r.returncode == 0
        and "layout 3:" in r.stdout
        and " ".join(CAPTURE_LAYOUTS[2][:6]) in r.stdout
    )
    shots = tmp_path / "shots"
    shots.mkdir()
    for n, layout in enumerate(CAPTURE_LAYOUTS[:2], 1):
        cv2.imwrite(str(shots / f"{n}.png"), _capture(layout, n).image)
    r = _run("enroll", "--captures", str(shots), "--name", "club", "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and "no capture of layout 3" in r.stderr
    cv2.imwrite(str(shots / "3-lamp.jpg"), _capture(CAPTURE_LAYOUTS[2], 3).image)
    (shots / "3-blank.png").write_bytes(b"not an image")
    r = _run("enroll", "--captures", str(shots), "--name", "club", "--out", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr
    assert "3-blank.png: cannot be read as an image" in r.stdout  # refused, the rest kept
    assert "layout 3, cards 1" in r.stdout
    decks, usable = load_pack(tmp_path / "o" / "renders-enrolled.tar", "enrolled")
    assert [d.name for d in decks] == ["enrolled/club"] and len(usable["enrolled/club"]) >= 40
    z = np.load(tmp_path / "o" / "captures.npz")
    assert z["x"].shape[1:] == (D.CROP_H, D.CROP_W, 3) and len(z["y"]) == len(z["x"]) > 200
    assert set(D.CLASSES[int(y)] for y in z["y"]) - {D.NONE} <= set(CARD_NAMES)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch.onnx.export's own
def test_runtime_training_tunes_on_an_enrolled_deck_and_its_captures(
    tmp_path: Path, det: CardDetector
) -> None:
    from models.enroll import write_enrolled
    from models.enroll_capture import upright_faces
    from models.runtime_train import run

    scene = _capture(CAPTURE_LAYOUTS[0], 1)
    xs, ys, info = read_capture(scene.image, 1, det, np.random.default_rng(0), "1.png", jitters=2)
    pack = write_enrolled(upright_faces([(scene.image, info)]), "club", tmp_path)
    np.savez_compressed(tmp_path / "captures.npz", x=np.stack(xs), y=np.asarray(ys))
    rec = run(
        1.0, tmp_path / "ck.pt", tmp_path / "t.onnx", workers=0, pack=pack, batch=16,
        pack_split="enrolled", capture_bank=tmp_path / "captures.npz", holdout_scenes=0,
        cache=tmp_path / "cache", max_steps=2,
    )  # fmt: skip
    assert rec["steps"] == 2 and rec["curve"] == []
    tuned = CardDetector(tmp_path / "t.onnx")
    assert tuned.thresholds == det.thresholds
    assert isinstance(tuned.detect(scene.image), list)


def test_deck_capture_saves_a_frame_only_when_its_layout_is_seen_whole(tmp_path: Path) -> None:
    camera = tmp_path / "camera"  # a folder source: the frames a camera would give
    camera.mkdir()
    cv2.imwrite(str(camera / "f.png"), _capture(CAPTURE_LAYOUTS[1], 2).image)
    out = tmp_path / "captures"
    args = ("capture", "--source", str(camera), "--out", str(out))
    r = _run(*args, "--layout", "2")
    assert r.returncode == 0 and "layout 2 seen whole in a 1280x720 frame" in r.stdout, r.stderr
    assert "sure reads agree with the layout, 0 not" in r.stdout
    assert _run(*args, "--layout", "2").returncode == 0
    assert sorted(p.name for p in out.iterdir()) == ["2-2.png", "2.png"]
    r = _run(*args, "--layout", "1")  # layout 2 on the table, layout 1 asked for: refused
    assert r.returncode == 1 and "nothing saved" in r.stderr
    assert "the cards do not read as layout 1" in r.stderr and "0 sure reads agree" in r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["2-2.png", "2.png"]
    r = _run(*args, "--layout", "4")
    assert r.returncode == 2 and "the layouts are 1 to 3" in r.stderr
