"""Motion gating: an area is read once after it changed and held still, never while moving,
and lighting drift or sensor noise alone never triggers a read."""

from __future__ import annotations

import numpy as np

from vision.motion import MotionGate


def gate(still: int = 2) -> MotionGate:
    left = np.zeros((45, 80), bool)
    left[:, :40] = True
    return MotionGate({"left": left, "right": ~left}, scale=0.25, still_frames=still)


def frame(level: int = 100, box: int | None = None) -> np.ndarray:
    f = np.full((180, 320, 3), level, np.uint8)
    if box is not None:
        f[60:120, box : box + 40] = 250
    return f


def test_initial_read_then_quiet() -> None:
    g = gate()
    got = [g.update(frame()) for _ in range(6)]
    assert got[0] == [] and sorted(got[1]) == ["left", "right"]  # first read of the table
    assert all(r == [] for r in got[2:])


def test_changed_area_is_read_after_it_holds_still() -> None:
    g = gate(still=3)
    for _ in range(4):
        g.update(frame())
    seq = [frame(box=20), frame(box=30), frame(box=40), frame(box=40), frame(box=40), frame(box=40)]
    got = [g.update(f) for f in seq]
    # moving for 3 frames, then still: ready on the third still frame, once, left only
    assert got == [[], [], [], [], [], ["left"]]
    assert not g.states["right"].dirty


def test_drift_and_noise_do_not_trigger() -> None:
    g = gate()
    rng = np.random.default_rng(0)
    for _ in range(3):
        g.update(frame())
    for i in range(40):
        f = frame(100 + i // 4).astype(np.int16) + rng.normal(0, 4, (180, 320, 3)).astype(np.int16)
        assert g.update(np.clip(f, 0, 255).astype(np.uint8)) == []


def test_flush_reads_an_area_that_never_settled() -> None:
    g = gate(still=5)
    g.update(frame())
    g.update(frame(box=200))
    assert g.flush() == ["left", "right"]
    assert g.flush() == []
