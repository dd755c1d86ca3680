"""Procedural index-corner samples: the contract the classifier's training relies on."""

from __future__ import annotations

import numpy as np
import pytest

import vision.detect as D
from models.procedural import _chunk, procedural_bank


@pytest.fixture(scope="module")
def bank() -> tuple[np.ndarray, np.ndarray]:
    return procedural_bank(400, seed=7)


def test_shapes_dtypes_and_labels(bank: tuple[np.ndarray, np.ndarray]) -> None:
    x, y = bank
    assert x.shape == (400, D.CROP_H, D.CROP_W, 3) and x.dtype == np.uint8
    assert y.shape == (400,) and y.dtype == np.int64
    assert y.min() >= 0 and y.max() < len(D.CLASSES)
    assert x.std() > 20  # not blank


def test_class_coverage_and_none_share(bank: tuple[np.ndarray, np.ndarray]) -> None:
    _, y = bank
    none = D.CLASSES.index(D.NONE)
    assert len(set(y.tolist()) - {none}) >= 50  # ~uniform over the 54 faces
    assert 0.04 < float(np.mean(y == none)) < 0.18


def test_deterministic_and_independent_of_chunking() -> None:
    x1, y1 = procedural_bank(24, seed=3)
    x2, y2 = procedural_bank(24, seed=3)
    assert np.array_equal(x1, x2) and np.array_equal(y1, y2)
    x3, _ = procedural_bank(24, seed=4)
    assert not np.array_equal(x1, x3)
    faces = [D.CLASSES[int(i)] for i in y1[10:20]]
    assert np.array_equal(_chunk((3, 10, 20, faces)), x1[10:20])  # what a worker computes


def test_colour_follows_suit(bank: tuple[np.ndarray, np.ndarray]) -> None:
    """Ink in the index area is reddish for hearts/diamonds, neutral for spades/clubs."""
    x, y = bank
    names = [D.CLASSES[int(i)] for i in y]

    def redness(img: np.ndarray) -> float:
        f = img[: D.CROP_H * 2 // 3].astype(np.float32)
        lum = f.mean(axis=2)
        ink = lum <= np.quantile(lum, 0.15)
        return float(f[..., 2][ink].mean() - f[..., 0][ink].mean())

    red = [redness(im) for im, n in zip(x, names, strict=True) if n[-1] in "HD" and n != D.NONE]
    black = [redness(im) for im, n in zip(x, names, strict=True) if n[-1] in "SC" and n != D.NONE]
    assert np.median(red) > np.median(black) + 30
    assert np.median(red) > 30
