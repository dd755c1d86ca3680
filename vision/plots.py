"""Pictures where people look rather than read (matplotlib, PNG, no display needed): the
recognizer's confusion matrix with axis titles, a colour scale and the counts, a per-design F1
bar chart, and latency histograms for the bench scripts. Each returns the path it wrote."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np


def _figure(w: float, h: float) -> Any:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    return Figure(figsize=(w, h), dpi=110)


def _save(fig: Any, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, format="png")
    return path


def confusion_png(m: np.ndarray, classes: Sequence[str], path: Path, title: str = "") -> Path:
    """Row-normalised colours (truth rows, predicted columns) with each non-zero count printed."""
    m = np.asarray(m)
    n = len(classes)
    norm = m / np.maximum(m.sum(1, keepdims=True), 1)
    size = max(6.0, 0.22 * n + 2)
    fig = _figure(size + 1.2, size)
    ax = fig.add_subplot()
    im = ax.imshow(norm, cmap="viridis", vmin=0, vmax=1)
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="share of the true class")
    ax.set_xticks(range(n), list(classes), rotation=90, fontsize=6)
    ax.set_yticks(range(n), list(classes), fontsize=6)
    ax.set_xlabel("predicted class")
    ax.set_ylabel("true class")
    ax.set_title(title or f"confusion matrix ({int(m.sum())} crops)")
    small = 4 if n > 30 else 7
    for i, j in zip(*np.nonzero(m), strict=True):
        ax.text(
            j,
            i,
            str(int(m[i, j])),
            ha="center",
            va="center",
            fontsize=small,
            color="black" if norm[i, j] > 0.5 else "white",
        )
    return _save(fig, path)


def f1_bars_png(f1: Mapping[str, float], path: Path, title: str = "F1 per deck design") -> Path:
    """One bar per design, best first, with its value printed."""
    items = sorted(((k, float(v)) for k, v in f1.items()), key=lambda kv: -kv[1])
    fig = _figure(max(6.0, 0.45 * len(items) + 2), 4)
    ax = fig.add_subplot()
    names = [k for k, _ in items]
    vals = [0.0 if np.isnan(v) else v for _, v in items]
    bars = ax.bar(range(len(items)), vals, color="#3b82f6")
    ax.bar_label(bars, labels=[f"{v:.2f}" for v in vals], fontsize=7)
    ax.set_xticks(range(len(items)), names, rotation=60, ha="right", fontsize=7)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("F1")
    ax.set_xlabel("deck design")
    ax.set_title(title)
    return _save(fig, path)


def latency_png(samples_ms: Mapping[str, Sequence[float]], path: Path, title: str) -> Path:
    """A histogram per series (ms), with its median and p95 in the legend."""
    fig = _figure(7, 4)
    ax = fig.add_subplot()
    for name, xs in samples_ms.items():
        arr = np.asarray(list(xs), float)
        if arr.size == 0:
            continue
        p50, p95 = np.percentile(arr, [50, 95])
        ax.hist(
            arr,
            bins=min(40, max(5, arr.size // 5)),
            alpha=0.6,
            label=f"{name}: median {p50:.1f} ms, p95 {p95:.1f} ms",
        )
    ax.set_xlabel("latency (ms)")
    ax.set_ylabel("count")
    ax.set_title(title)
    ax.legend(fontsize=8)
    return _save(fig, path)


__all__ = ["confusion_png", "f1_bars_png", "latency_png"]
