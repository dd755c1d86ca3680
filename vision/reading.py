"""Every pixel step of a frame, in one place: a frame in, the table's observations out.

The table node calls ``TableReader.read`` once per frame. The reader calibrates on the first
frame, masks the players' held hands, gates on motion, reads the still areas (seat areas from
their own crops, weak re-reads of short seats, the centre from its crop when the bottom is
due), rechecks reads that do not hold over the next frames, and turns the settled reads into
``Observation``s with the tracker. What it needs to know from the rules (how many cards a
seat must lay, whether the bottom is due to be turned up) is handed in per frame as plain
callables, so vision never imports the spine.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.calibration import Calibration, Layout
from vision.motion import MotionGate
from vision.sources import Frame
from vision.tracking import BACK, MERGE_DOUBT, DetectionLike, Observation, Read, Tracker
from vision.votes import VoteBook

log = logging.getLogger(__name__)

Image = NDArray[np.uint8]
# An empty seat area that changed and settled but read no card, or fewer cards than the
# rules say the seat must lay, is read once more keeping faces down to this score: a card
# the camera saw land but could not read surely (a joker with no index, the strip of a
# pair's lower card) is written as its best guess and sent to a referee, not left out.
WEAK_READ = 0.2
SURE_SCORE = 0.85  # two agreeing still-frame reads, one at least this sure, settle an area
RECHECK_FRAMES = 2  # frames read again when they do not agree, before a vote decides
GATE_SCALE = 0.25  # the motion gate looks at frames this much smaller


class Detector(Protocol):
    """``vision.detect.CardDetector`` or anything shaped like it. A detector that also has
    ``seek(frame_index)`` is told which frame it reads (the rendered-truth detector needs it);
    one with ``detect_region(image, box[, card_score])`` reads seat areas from their crops."""

    def detect(self, image: NDArray[Any]) -> Sequence[DetectionLike]: ...


def _no_count(seat: int) -> int | None:
    return None


def _no_reveal() -> bool:
    return False


@dataclass
class FrameReading:
    """What one frame gave: observations, and what the node keeps or counts of the read.

    ``image``: the masked frame that was read (the evidence JPEGs), None when nothing was
    read. ``read_ms``: the recognizer's time, None when it did not run. ``error``:
    ``bad_frame`` (not a BGR image: skipped) or ``detector`` (the recognizer failed)."""

    observations: list[Observation] = field(default_factory=list)
    image: Image | None = None
    read_ms: float | None = None
    error: str | None = None


class TableReader:
    """The pixel side of one table: calibration, mask, motion gate, reads, rechecks, tracker.

    ``calibrate(first_image)`` gives the calibration (the spine builds it from the table
    config). ``min_score``: the sure line of the reads (under it a referee confirms);
    ``sure_score``, ``recheck_frames`` and ``weak_read`` tune how a read is settled.
    """

    def __init__(
        self,
        layout: Layout,
        detector: Detector,
        calibrate: Callable[[Image], Calibration],
        min_score: float,
        *,
        sure_score: float = SURE_SCORE,
        recheck_frames: int = RECHECK_FRAMES,
        weak_read: float = WEAK_READ,
        still_frames: int = 2,
        motion_threshold: float = 0.004,
        card_height: float = 170.0,
        every_frame: bool = False,
    ) -> None:
        self.layout = layout
        self.detector = detector
        self._calibrate = calibrate
        self.min_score = min_score
        self.sure_score = sure_score
        self.recheck_frames = recheck_frames
        self.weak_read = weak_read
        self.still_frames = still_frames
        self.motion_threshold = motion_threshold
        self.calibration: Calibration | None = None
        self.gate: MotionGate | None = None
        self.tracker: Tracker | None = None
        self._mask: Image | None = None
        self._still_since: dict[str, tuple[int, float]] = {}
        self._recheck: dict[str, list[tuple[tuple[str, ...], list[Read], float]]] = {}
        self._seed_areas: dict[int, list[str]] = {}
        self._seed_centre = 0
        self.every_frame = every_frame
        self.votes = VoteBook(card_height, sure_score, lambda r: self._doubted([r])[0])

    def seed(self, areas: Mapping[int, Sequence[str]], centre_backs: int = 0) -> None:
        """What already lies on the table before the first frame (a live node resumed from
        its record): each seat's cards of the current trick, and the buried bottom's backs."""
        self._seed_areas = {s: list(c) for s, c in areas.items()}
        self._seed_centre = centre_backs

    def _setup(self, image: Image) -> None:
        self.calibration = self._calibrate(image)
        h, w = image.shape[:2]
        if self.calibration.image_size != (w, h):
            self.calibration = Calibration(self.calibration.image_to_table, (w, h))
        self._mask = self.calibration.mask_image(self.layout)
        self.gate = MotionGate(
            self.calibration.area_masks(self.layout, GATE_SCALE),
            scale=GATE_SCALE,
            still_frames=self.still_frames,
            threshold=self.motion_threshold,
        )
        self.tracker = Tracker(self.layout, self.calibration)
        for area in self.layout.areas:
            if area.kind == "centre" and self._seed_centre:
                self.tracker.tracks[area.name].held = Counter({BACK: self._seed_centre})
            elif area.seat is not None and area.seat in self._seed_areas:
                self.tracker.tracks[area.name].held = Counter(self._seed_areas[area.seat])

    def masked(self, image: Image) -> Image:
        """The frame with the players' held hands blacked out (never read, never stored)."""
        assert self._mask is not None
        return np.asarray(cv2.bitwise_and(image, image, mask=self._mask), np.uint8)

    def still_since(self, area: str) -> float | None:
        """The time of the frame from which ``area`` has been still (for the latency)."""
        since = self._still_since.get(area)
        return None if since is None else since[1]

    def read(
        self,
        frame: Frame,
        wanted: Callable[[int], int | None] = _no_count,
        reveal_due: Callable[[], bool] = _no_reveal,
    ) -> FrameReading:
        """One frame in; what it showed. ``wanted(seat)``: how many cards the seat's next
        play must have, when the rules say; ``reveal_due()``: the bottom is likely to be
        turned up next (both from the spine's fusion)."""
        if self.calibration is None:
            self._setup(frame.image)
        assert self.gate is not None and self.tracker is not None
        if frame.image is None or frame.image.ndim != 3 or frame.image.shape[2] != 3:
            log.warning("frame %d: not a BGR image (skipped)", frame.index)
            return FrameReading(error="bad_frame")
        ready = self.gate.update(frame.image)
        for name, st in self.gate.states.items():
            if st.still == 1:
                self._still_since[name] = (frame.index, frame.t)
            if st.moving:
                self._recheck.pop(name, None)  # it moves again: it will be read when still
        ready = sorted(set(ready) | set(self._recheck))
        landing = [
            name
            for name, st in self.gate.states.items()
            if self.every_frame and st.moving and self.tracker.areas[name].kind == "seat"
        ]
        if not ready and not landing:
            return FrameReading()
        image = self.masked(frame.image)
        r0 = time.perf_counter()
        seek = getattr(self.detector, "seek", None)
        if seek is not None:
            seek(frame.index)
        try:
            if not ready:  # cards landing: every frame's reads are votes, nothing settles
                for name, found in self._landing_reads(image, landing).items():
                    self.votes.vote(name, found, frame.index)
                return FrameReading(read_ms=(time.perf_counter() - r0) * 1000)
            reads = self._reads(image, ready, wanted, reveal_due)
        except Exception as e:
            log.error("frame %d: recognizer failed: %s", frame.index, e)
            return FrameReading(error="detector")
        read_ms = (time.perf_counter() - r0) * 1000
        seats = [n for n in ready if self.every_frame and self.tracker.areas[n].seat is not None]
        for name in seats:  # the centre's bottom keeps its own rules (backs, then the reveal)
            self.votes.vote(name, reads.get(name, []), frame.index)
        ready = self._settle_unsure(ready, reads)
        for name in ready:
            seat = self.tracker.areas[name].seat
            if name in seats and seat is not None:
                reads[name] = self.votes.judge(name, reads.get(name, []), wanted(seat))
        observations = self.tracker.update(ready, reads, frame.index, frame.t)
        return FrameReading(observations, image, read_ms)

    def _landing_reads(self, image: Image, names: list[str]) -> dict[str, list[Read]]:
        """The reads of seat areas whose cards are landing (a hand over them): each from its
        own crop when the detector reads regions, else all from one whole-frame read."""
        assert self.tracker is not None
        if getattr(self.detector, "detect_region", None) is None:
            whole = self.tracker.assign(self.detector.detect(image))
            return {n: whole[n] for n in names}
        return {n: self._zoomed(image, n) for n in names}

    def _zoomed(self, image: Image, name: str, card_score: float | None = None) -> list[Read]:
        """Area ``name``'s reads from its own crop (a card half outside its area included)."""
        assert self.tracker is not None and self.calibration is not None
        zoom = getattr(self.detector, "detect_region", None)
        assert zoom is not None
        poly = self.calibration.to_image(self.tracker.areas[name].polygon)
        (x0, y0), (x1, y1) = poly.min(0), poly.max(0)
        m = max(48.0, 0.35 * max(x1 - x0, y1 - y0))
        box = (int(x0 - m), int(y0 - m), int(x1 + m) + 1, int(y1 + m) + 1)
        found = zoom(image, box) if card_score is None else zoom(image, box, card_score)
        return self.tracker.assign(found)[name]

    def _reads(
        self,
        image: Image,
        ready: list[str],
        wanted: Callable[[int], int | None],
        reveal_due: Callable[[], bool],
    ) -> dict[str, list[Read]]:
        """Each area's card reads. A detector with ``detect_region`` reads each ready seat
        area from its own crop (more pixels per card for the localiser); a card is taken
        only from the crop of the area its centre lies in, so no card is counted twice. A
        seat crop that shows no card at all is read again from the whole frame (the two
        scales miss different cards). The centre, where the bottom lies face down, is read
        from the whole frame (a back's pattern seen large can pass for index corners), and
        also from its crop once the bottom is due to be turned up: of the two, the read
        with more faces (a bottom is a tight fan where every index counts). A fresh seat
        read with no card, or with fewer than the seat must lay, is read once more with
        ``weak_read``; what that adds is doubted (a referee confirms it)."""
        assert self.tracker is not None and self.calibration is not None
        tracker = self.tracker
        zoom = getattr(self.detector, "detect_region", None)
        seats = [n for n in ready if zoom and tracker.areas[n].kind == "seat"]
        whole: dict[str, list[Read]] | None = None

        def whole_frame() -> dict[str, list[Read]]:
            nonlocal whole
            if whole is None:
                whole = tracker.assign(self.detector.detect(image))
            return whole

        def zoomed(name: str, card_score: float | None = None) -> list[Read]:
            return self._zoomed(image, name, card_score)

        reads = dict(whole_frame()) if len(seats) < len(ready) else {n: [] for n in tracker.areas}
        for name in seats:
            reads[name] = zoomed(name) or whole_frame()[name]
            seat = tracker.areas[name].seat
            want = None if seat is None else wanted(seat)
            short = not reads[name] or (want is not None and len(reads[name]) < want)
            if short and not tracker.tracks[name].held:
                more = zoomed(name, self.weak_read)
                if len(reads[name]) < len(more) <= (want or len(more)):
                    reads[name] = self._doubted(more)  # always to a referee
        if zoom and reveal_due():
            for name in ready:
                if tracker.areas[name].kind != "seat":
                    near = zoomed(name)
                    if _faces(near) > _faces(reads[name]):
                        reads[name] = near
        return reads

    def _settle_unsure(self, ready: list[str], reads: dict[str, list[Read]]) -> list[str]:
        """Decide an area only on a read that holds: two consecutive still-frame reads with the
        same cards, one of them sure. A hand just leaving or glare can make one frame read a
        card twice or wrongly; so up to ``recheck_frames`` more frames are read, and then the
        reading seen most often (the surest of its copies) is taken, doubts and all."""
        decided = []
        for name in ready:
            current = reads.get(name, [])
            key = tuple(sorted(r.card for r in current))
            score = min((r.score for r in current), default=1.0)
            seen = [*self._recheck.get(name, []), (key, current, score)]
            last_two = seen[-2:]
            agreed = len(last_two) == 2 and last_two[0][0] == last_two[1][0]
            if agreed and max(s for _, _, s in last_two) >= self.sure_score:
                choice = max(last_two, key=lambda x: x[2])
            elif len(seen) > self.recheck_frames:
                votes = Counter(k for k, _, _ in seen)
                choice = max(seen, key=lambda x: (votes[x[0]], x[2]))
                if len(votes) > 1:  # the frames disagreed: the read is a doubt, not a fact
                    choice = (choice[0], self._doubted(choice[1]), choice[2])
            else:
                self._recheck[name] = seen
                continue
            self._recheck.pop(name, None)
            reads[name] = choice[1]
            decided.append(name)
        return decided

    def _doubted(self, reads: list[Read]) -> list[Read]:
        """Reads whose frames disagreed, scored under the sure line so a referee confirms them."""
        cap = max(0.0, self.min_score - 0.01)
        return [replace(r, score=min(r.score * MERGE_DOUBT, cap)) for r in reads]


def _faces(reads: list[Read]) -> int:
    return sum(r.card != "back" for r in reads)
