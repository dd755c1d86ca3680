"""Issue 26: more designs (per-card-file decks), real photos turned into index-corner crops,
and the classifier trained on the runtime's own crops, continued across runs."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.detect as D
from models.pack_renders import pack
from models.real_photos import card_of, flip_boxes, labelled_peaks, read_boxes, read_names
from models.runtime_train import PEAK_SHARE, TRUE_SHARE, peak_samples, run
from vision.detect import DEFAULT_MODEL, CardDetector
from vision.synth.decks import DeckError, file_decks, render_card, usable_cards

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "vision" / "fixtures"


def _face(text: str, colour: tuple[int, int, int]) -> np.ndarray:
    img = np.full((210, 150, 3), 255, np.uint8)
    cv2.rectangle(img, (0, 0), (149, 209), (40, 40, 40), 2)
    cv2.putText(img, text, (6, 34), cv2.FONT_HERSHEY_SIMPLEX, 1.0, colour, 2)
    cv2.putText(img, text, (50, 120), cv2.FONT_HERSHEY_SIMPLEX, 1.6, colour, 3)
    return img


def test_a_folder_of_card_files_is_a_training_design(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TABLESCAN_CARD_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "decks" / "toy"
    folder.mkdir(parents=True)
    files = {}
    for card, colour in (("AS", (0, 0, 0)), ("KH", (0, 0, 200)), ("7D", (0, 0, 200))):
        cv2.imwrite(str(folder / f"{card}.png"), _face(card, colour))
        files[card] = f"{card}.png"
    meta = {"name": "toy", "source": "test", "licence": "CC0", "files": files}
    (folder / "deck.json").write_text(json.dumps(meta))
    (deck,) = file_decks((tmp_path / "decks",))
    assert deck.name == "files/toy" and deck.scheme == "files" and not deck.holdout
    img = render_card(deck, "KH", 160)
    assert img.shape[0] == 160 and img.shape[2] == 4 and 0.6 < img.shape[1] / 160 < 0.8
    assert sorted(usable_cards(deck)) == ["7D", "AS", "KH"]
    with pytest.raises(DeckError, match="no file for QC"):
        render_card(deck, "QC", 160)


def test_committed_designs_carry_source_and_licence() -> None:
    decks = [d for d in file_decks() if (ROOT / "models" / "decks") in d.path.parents]
    for d in decks:
        meta = json.loads((d.path / "deck.json").read_text())
        assert meta["licence"] and meta["source"].startswith("github ")
        assert all((d.path / f).is_file() for f in meta["files"].values())
        assert "NC" not in meta["licence"] and "AGPL" not in meta["licence"]


def test_photo_labels_become_faces_at_the_localisers_peaks(tmp_path: Path) -> None:
    assert card_of("10 of clubs") == "10C" and card_of("jack  of clubs") == "JC"
    assert card_of("ace of spades") == "AS"
    with pytest.raises(ValueError, match="not '<rank> of <suit>'"):
        card_of("red joker")
    (tmp_path / "data.yaml").write_text("nc: 2\nnames: ['10 of clubs', 'queen of spades']\n")
    names = read_names(tmp_path / "data.yaml")
    assert names == ["10C", "QS"]
    # a rendered fixture scene with whole-card boxes made from its truth, YOLO style
    truth = json.loads((FIXTURES / "expected.json").read_text())["scene_013.jpg"]
    img = cv2.imread(str(FIXTURES / "scene_013.jpg"), cv2.IMREAD_COLOR)
    h, w = img.shape[:2]
    det = CardDetector(DEFAULT_MODEL)
    reads = [d for d in det.detect(img) if d.card != D.BACK]
    assert reads and truth
    lines = []  # boxes around each read card: what a whole-card label gives
    for d in reads:
        xs, ys = [p[0] for p in d.quad], [p[1] for p in d.quad]
        cx, cy = (min(xs) + max(xs)) / 2 / w, (min(ys) + max(ys)) / 2 / h
        bw, bh = (max(xs) - min(xs)) / w, (max(ys) - min(ys)) / h
        lines.append(f"{D.FACES.index(d.card)} {cx} {cy} {bw} {bh}")
    label = tmp_path / "l.txt"
    label.write_text("\n".join(lines))
    boxes = read_boxes(label, list(D.FACES), w, h)
    assert len(boxes) == len(reads)
    got = labelled_peaks(img, boxes, det)
    assert got, "no peak was given a face"
    probs = det.classify(img, [pk for pk, _ in got])
    agree = sum(1 for i, (_, c) in enumerate(got) if int(probs[i].argmax()) == c)
    assert len(got) >= 3 and agree / len(got) >= 0.7
    flipped = flip_boxes([(10.0, 20.0, 30.0, 60.0, 3)], 100, 80, True, True)
    assert flipped == [(70.0, 20.0, 90.0, 60.0, 3)]


def test_peak_crops_are_labelled_by_the_true_corner_under_them() -> None:
    from vision.synth.decks import all_decks
    from vision.synth.scene import SceneConfig, compose_scene

    deck = next(d for d in all_decks() if d.name == "gnome/anglo")
    usable = {deck.name: [c for c in D.CLASSES if c in ("AS", "KH", "7D", "10C", "QS", "2H")]}
    rng = np.random.default_rng(5)
    scene = compose_scene(rng, [deck], usable, SceneConfig(card_height=(160.0, 240.0)))
    det = CardDetector(DEFAULT_MODEL)
    xs, ys = peak_samples(scene.image, scene.to_json(), det, rng)
    assert len(xs) == len(ys) and xs
    assert all(x.shape == (D.CROP_H, D.CROP_W, 3) for x in xs)
    faces = {D.CLASSES[y] for y in ys} - {D.NONE}
    assert faces <= set(usable[deck.name])


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch.onnx.export's own
def test_runtime_training_continues_from_its_checkpoint(tmp_path: Path) -> None:
    assert PEAK_SHARE >= 0.5 and PEAK_SHARE + TRUE_SHARE < 1
    pk = tmp_path / "pack"
    pack("train", pk / "renders-train.tar", only=("gnome/anglo",), cards=21)
    pack("eval", pk / "renders-eval.tar", only=("gnome/tango",), cards=20)
    ck = tmp_path / "cls_runtime.pt"
    kw = dict(
        workers=0,
        pack=pk / "renders-train.tar",
        eval_pack=pk / "renders-eval.tar",
        holdout_scenes=1,
        cache=tmp_path / "cache",
        batch=16,
    )
    first = run(1.0, ck, tmp_path / "a.onnx", max_steps=2, **kw)  # type: ignore[arg-type]
    assert ck.is_file() and first["steps"] == 2 and first["cpu_s"] > 0
    assert [p["steps"] for p in first["curve"]] == [0, 2]
    again = run(1.0, ck, tmp_path / "b.onnx", max_steps=3, **kw)  # type: ignore[arg-type]
    assert again["steps"] == 5 and again["cpu_s"] > first["cpu_s"]
    assert [p["steps"] for p in again["curve"]] == [0, 2, 5]
    det = CardDetector(tmp_path / "b.onnx")
    assert det.thresholds == CardDetector(DEFAULT_MODEL).thresholds
    frame = cv2.imread(str(FIXTURES / "scene_013.jpg"), cv2.IMREAD_COLOR)
    assert isinstance(det.detect(frame), list)
