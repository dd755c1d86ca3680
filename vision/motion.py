"""Motion gating: read an area only once it changed and then held still.

Running the recognizer on every frame would waste the CPU and, worse, read cards half under a
moving hand. An area is *dirty* when enough of its pixels changed since the previous frame; it
becomes *ready* after ``still_frames`` consecutive quiet frames. Lighting drift and sensor noise
move pixels by a few levels per frame, so changes are counted on a downscaled (averaged) image
against a per-pixel threshold well above the noise.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray


@dataclass
class AreaMotion:
    dirty: bool = True  # unread since the last change (true at start: read the initial table)
    still: int = 0  # consecutive quiet frames
    moving: bool = False


@dataclass
class MotionGate:
    """Per-area change detector. ``masks`` are boolean images at ``scale`` of the frame."""

    masks: dict[str, NDArray[np.bool_]]
    scale: float = 0.25
    still_frames: int = 2
    threshold: float = 0.004  # fraction of an area's pixels that must change to count as motion
    pixel_delta: int = 22  # grey levels a downscaled pixel must move to count as changed
    states: dict[str, AreaMotion] = field(default_factory=dict)
    _prev: NDArray[np.uint8] | None = None

    def __post_init__(self) -> None:
        self.states = {name: AreaMotion() for name in self.masks}
        self._sizes = {name: max(1, int(m.sum())) for name, m in self.masks.items()}

    def _small(self, frame: NDArray[np.uint8]) -> NDArray[np.uint8]:
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        any_mask = next(iter(self.masks.values()))
        h, w = any_mask.shape
        return np.asarray(cv2.resize(gray, (w, h), interpolation=cv2.INTER_AREA), np.uint8)

    def update(self, frame: NDArray[np.uint8]) -> list[str]:
        """Feed one frame; the names of the areas that have just become ready to read."""
        small = self._small(frame)
        ready: list[str] = []
        if self._prev is None:
            self._prev = small
            for st in self.states.values():
                st.still = 1
            return [n for n, st in self.states.items() if st.dirty and self.still_frames <= 1]
        changed = cv2.absdiff(small, self._prev) > self.pixel_delta
        self._prev = small
        for name, mask in self.masks.items():
            st = self.states[name]
            frac = np.count_nonzero(changed & mask) / self._sizes[name]
            if frac > self.threshold:
                st.dirty, st.still, st.moving = True, 0, True
                continue
            st.moving = False
            st.still += 1
            if st.dirty and st.still >= self.still_frames:
                st.dirty = False
                ready.append(name)
        return ready

    def flush(self) -> list[str]:
        """At the end of a source: areas that changed but never settled (read them anyway)."""
        out = [n for n, st in self.states.items() if st.dirty]
        for n in out:
            self.states[n].dirty = False
        return out
