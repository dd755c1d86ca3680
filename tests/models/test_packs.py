"""Render packs for a training machine without decks, and ONNX metadata without the
``onnx`` package (neither needs torch)."""

from __future__ import annotations

from pathlib import Path

import onnxruntime as ort
import pytest

from models.onnx_meta import add_metadata
from models.pack_renders import load_pack, pack
from vision.detect import DEFAULT_MODEL, CardDetector


def test_metadata_is_written_without_the_onnx_package(tmp_path: Path) -> None:
    f = tmp_path / "m.onnx"
    f.write_bytes(DEFAULT_MODEL.read_bytes())
    add_metadata(f, {"tile_note": "x" * 200, "card_score": "0.55"})
    meta = ort.InferenceSession(str(f), providers=["CPUExecutionProvider"])
    props = meta.get_modelmeta().custom_metadata_map
    assert props["tile_note"] == "x" * 200 and props["card_score"] == "0.55"
    assert CardDetector(f).thresholds.card_score == pytest.approx(0.55)


def test_packs_keep_their_split(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not all are train designs"):
        pack("train", tmp_path / "t.tar", only=("gnome/tango",), cards=20)
    pack("eval", tmp_path / "e.tar", only=("gnome/tango",), cards=20)
    with pytest.raises(ValueError, match="split 'eval', not 'train'"):
        load_pack(tmp_path / "e.tar", "train")
    decks, usable = load_pack(tmp_path / "e.tar", "eval")
    assert [d.name for d in decks] == ["gnome/tango"] and decks[0].holdout
    assert len(usable["gnome/tango"]) == 20
