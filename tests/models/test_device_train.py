"""The GPU training script works before any GPU is lent: packs, weights read back from the
shipped graph, metadata, and a dry run of ``models/train_on_device.sh`` on the CPU."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import cv2
import numpy as np
import onnxruntime as ort
import torch  # the train extra: make test installs it (the Makefile's training stamp)

from models.enroll import cut_scans, write_enrolled
from models.from_onnx import nets_from_onnx, resize_cls
from models.pack_renders import pack, save_init
from vision.detect import DEFAULT_MODEL, CardDetector, crop_index
from vision.synth.decks import CARD_NAMES, all_decks, render_card

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "vision" / "fixtures"


def test_weights_read_back_from_the_shipped_graph_compute_what_it_does() -> None:
    loc, cls = nets_from_onnx(DEFAULT_MODEL)
    sess = ort.InferenceSession(str(DEFAULT_MODEL), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 255, (1, 3, 96, 128)).astype(np.float32)
    c = rng.uniform(0, 255, (4, 3, 40, 28)).astype(np.float32)
    want_loc, want_cls = sess.run(["loc", "cls"], {"image": x, "crops": c})
    with torch.no_grad():
        got_loc = loc(torch.from_numpy(x)).numpy()
        got_cls = torch.softmax(cls(torch.from_numpy(c)), 1).numpy()
    assert np.abs(got_loc - want_loc).max() < 1e-3
    assert np.abs(got_cls - want_cls).max() < 1e-4


def test_a_larger_classifier_input_starts_from_the_trained_reads() -> None:
    det = CardDetector(DEFAULT_MODEL)
    _, cls = nets_from_onnx(DEFAULT_MODEL)
    big = resize_cls(cls, (32, 48)).eval()
    agree = total = 0
    for p in sorted(FIXTURES.glob("*.jpg")):
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
        peaks, _ = det.find(img, det.thresholds)
        small = np.stack([crop_index(img, q, None, (28, 40)) for q in peaks])
        large = np.stack([crop_index(img, q, None, (32, 48)) for q in peaks])
        with torch.no_grad():
            a = cls(torch.from_numpy(small).permute(0, 3, 1, 2).float()).argmax(1)
            b = big(torch.from_numpy(large).permute(0, 3, 1, 2).float()).argmax(1)
        agree += int((a == b).sum())
        total += len(peaks)
    assert total > 10 and agree / total >= 0.75


def test_train_on_device_dry_run_trains_exports_and_evaluates(tmp_path: Path) -> None:
    pk = tmp_path / "pack"
    pack("train", pk / "renders-train.tar", only=("gnome/anglo",), cards=21)
    pack("eval", pk / "renders-eval.tar", only=("gnome/tango",), cards=20)
    save_init(DEFAULT_MODEL, pk / "init.pt")
    scans = tmp_path / "scans"  # the tournament's own deck, enrolled from scans
    scans.mkdir()
    deck = next(d for d in all_decks() if d.name == "kde/svg-standard")
    for card in CARD_NAMES[:20]:
        cv2.imwrite(str(scans / f"{card}.png"), render_card(deck, card, 320))
    own = write_enrolled(cut_scans(scans), "club", tmp_path / "club")
    out = tmp_path / "out"
    env = os.environ | {"OUT": str(out), "PYTHON": str(Path(os.sys.executable))}
    r = subprocess.run(
        [
            "bash",
            str(ROOT / "models" / "train_on_device.sh"),
            "--dry-run",
            "--renders",
            str(pk / "renders-train.tar"),
            "--eval-renders",
            str(pk / "renders-eval.tar"),
            "--init",
            str(pk / "init.pt"),
            "--enrolled",
            str(own),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    det = CardDetector(out / "cards.onnx")
    assert det.crop_size == (32, 48)
    assert det.thresholds == CardDetector(DEFAULT_MODEL).thresholds  # carried over
    stats = json.loads((out / "train_stats.json").read_text())
    assert stats["loc_steps"] == 3 and stats["scenes"] >= 2
    assert "holdout" in json.loads((out / "eval_new" / "eval.json").read_text())["rows"]
    frame = cv2.imread(str(FIXTURES / "scene_013.jpg"), cv2.IMREAD_COLOR)
    assert isinstance(det.detect(frame), list)
