"""Short video clips for disputes: every violation and every referee prompt gets the seconds
around its play as a WebM (VP8) file, stored as a ``clip`` media row in the hash chain.

Why a clip beside the two still frames: a referee (or a player disputing a ruling) wants to
see the hand go down, as Frigate users see the seconds around an event. The node keeps a
short ring of masked frames (the held hands blacked out, as every stored frame; downscaled, a
few per second) and, when a ruling flags a violation or a ``needs_referee`` is written, waits
for the seconds after the play, then encodes it on a low-priority thread (seconds of CPU
on a Pi: never in the frame loop). The clip is named ``<evidence id>-clip`` after
the play's evidence frames, tied to the play's seq (so a dispute bundle of that hand takes
it), and spooled then removed like the JPEGs.

VP8 in WebM is what opencv-python-headless's own (LGPL) FFmpeg can encode here and on a Pi;
Chromium, Firefox, Android and iOS 17.4+ Safari play it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.record import Event, Ruling
from tablescan.node_hooks import NodeHooks
from vision.sources import Frame

log = logging.getLogger(__name__)

BEFORE_S = 3.0  # seconds of table before the play
AFTER_S = 3.0  # and after it
CLIP_FPS = 5.0  # frames kept per second (a card going down needs no more)
MAX_WIDTH = 640  # phone-sized; an evidence still keeps the full frame
SUFFIX = ".webm"
CLIP_KINDS = ("violation", "needs_referee")  # the rulings that put a play in dispute


@dataclass
class _Wanted:
    evidence: str
    seq: int | None
    t: float  # the play's frame time: the clip's middle


@dataclass
class ClipRecorder:
    """Node hooks (``hooks()``) that keep clips; ``store(path, evidence, seq)`` takes a
    finished clip file (the evidence store's ``add_media``), ``mask`` hides the hands (None
    while the table is not calibrated: nothing is kept unmasked)."""

    spool: Path
    store: Callable[[Path, str, int | None], None]
    mask: Callable[[NDArray[np.uint8]], NDArray[np.uint8] | None]
    before_s: float = BEFORE_S
    after_s: float = AFTER_S
    fps: float = CLIP_FPS
    written: list[str] = field(default_factory=list)  # evidence ids clipped (for logs, tests)
    _ring: deque[tuple[float, NDArray[np.uint8]]] = field(default_factory=deque)
    _wanted: dict[str, _Wanted] = field(default_factory=dict)
    _asked: set[str] = field(default_factory=set)
    _last_t: float = -1e9
    _worker: ThreadPoolExecutor | None = None

    def hooks(self) -> NodeHooks:
        return NodeHooks(on_event=self.on_event, on_ruling=self.on_ruling, on_frame=self.on_frame)

    # --- what needs a clip ---------------------------------------------------------------

    def want(self, ev: Event) -> None:
        """A clip around ``ev`` (once per evidence id: a play flagged twice has one clip)."""
        evidence = ev.get("evidence")
        if not isinstance(evidence, str) or evidence in self._asked:
            return
        self._asked.add(evidence)
        # a prompt's clip belongs to the play it doubts (as its frames do)
        seq = ev.get("ref") if ev["type"] == "needs_referee" else ev.get("seq")
        self._wanted[evidence] = _Wanted(evidence, seq if isinstance(seq, int) else None, ev["t"])

    def on_event(self, ev: Event) -> None:
        if ev["type"] == "needs_referee":
            self.want(ev)

    def on_ruling(self, ev: Event, ruling: Ruling) -> None:
        if ruling.get("kind") in CLIP_KINDS:
            self.want(ev)

    # --- frames --------------------------------------------------------------------------

    def on_frame(self, frame: Frame) -> None:
        if frame.t - self._last_t >= 1.0 / self.fps - 1e-6:
            small = self._small(frame.image)
            if small is not None:
                self._last_t = frame.t
                self._ring.append((frame.t, small))
        for w in [w for w in self._wanted.values() if frame.t >= w.t + self.after_s]:
            self._finish(w)
        oldest = min([w.t for w in self._wanted.values()] + [frame.t]) - self.before_s
        while self._ring and self._ring[0][0] < oldest - 1e-6:
            self._ring.popleft()

    def flush(self) -> None:
        """The source ended: the clips still waiting get what there is, and every clip
        being encoded is stored before this returns."""
        for w in list(self._wanted.values()):
            self._finish(w)
        if self._worker is not None:
            self._worker.shutdown(wait=True)
            self._worker = None

    def _small(self, image: NDArray[Any]) -> NDArray[np.uint8] | None:
        masked = self.mask(np.asarray(image, np.uint8))
        if masked is None:
            return None
        h, w = masked.shape[:2]
        scale = min(1.0, MAX_WIDTH / w)
        size = (int(w * scale) // 2 * 2, int(h * scale) // 2 * 2)  # VP8 wants even sides
        out = cv2.resize(masked, size, interpolation=cv2.INTER_AREA)
        return np.asarray(out, np.uint8)

    def _finish(self, w: _Wanted) -> None:
        del self._wanted[w.evidence]
        lo, hi = w.t - self.before_s - 1e-6, w.t + self.after_s + 1e-6
        shots = [img for t, img in self._ring if lo <= t <= hi]
        if len(shots) < 2:
            log.warning(
                "clip %s: only %d frame(s) kept around t=%.1f; none written",
                w.evidence,
                len(shots),
                w.t,
            )
            return
        if self._worker is None:  # encoding takes seconds on a Pi: never in the frame loop
            self._worker = ThreadPoolExecutor(1, "clips", initializer=_lower_priority)
        self._worker.submit(self._encode, w, shots)

    def _encode(self, w: _Wanted, shots: list[NDArray[np.uint8]]) -> None:
        try:
            path = write_clip(self.spool / f"{w.evidence}-clip{SUFFIX}", shots, self.fps)
            self.store(path, w.evidence, w.seq)
            path.unlink(missing_ok=True)
        except Exception as e:  # a full disk, a store refusal: logged, the node reads on
            log.error("clip %s not kept: %s", w.evidence, e)
            return
        self.written.append(w.evidence)


def _lower_priority() -> None:
    """The encoder thread yields to the camera and the recognizer (Linux: per thread)."""
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)


def write_clip(path: Path, frames: list[NDArray[np.uint8]], fps: float) -> Path:
    """Encode ``frames`` (BGR, one size) as VP8 WebM at ``fps``; OSError when it cannot."""
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.stem + ".part" + path.suffix)  # the muxer reads the suffix
    h, w = frames[0].shape[:2]
    writer = cv2.VideoWriter(str(part), cv2.VideoWriter.fourcc(*"VP80"), fps, (w, h))
    if not writer.isOpened():
        raise OSError(f"{part}: this OpenCV build cannot encode VP8 WebM")
    try:
        for img in frames:
            writer.write(img)
    finally:
        writer.release()
    if not part.exists() or part.stat().st_size == 0:
        raise OSError(f"{part}: the encoder wrote nothing")
    part.replace(path)
    return path


def store_clips(store: Any, table: str) -> Callable[[Path, str, int | None], None]:
    """``ClipRecorder.store`` for an ``EvidenceStore``: a ``clip`` media row, chained."""

    def put(path: Path, evidence: str, seq: int | None) -> None:
        store.add_media(
            path, kind="clip", suffix=SUFFIX, table=table, seq=seq, name=f"{evidence}-clip"
        )

    return put
