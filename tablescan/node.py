"""The table node: frames → observations → match record events → referee, with evidence kept.

One code path serves the live camera (``tablescan run``) and a recorded video (``tablescan
replay``): a source, the calibration, motion gating, the recognizer on still frames, the
tracker, the fusion checks, the record and the referee. Other parts plug in through
``NodeHooks``: the evidence store makes the JPEGs durable, the dashboard shows the state.
"""

from __future__ import annotations

import logging
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.games import referee_for
from engine.record import SeqCounter
from tablescan.config import TableConfig
from vision.calibration import (
    Area,
    Calibration,
    CalibrationError,
    Layout,
    calibrate_aruco,
    calibrate_points,
)
from vision.fusion import Decision, Fusion, Trick
from vision.motion import MotionGate
from vision.sources import Frame, FrameSource
from vision.tracking import BACK, MERGE_DOUBT, DetectionLike, Observation, Read, Tracker

log = logging.getLogger(__name__)
Event = dict[str, Any]
# what the camera path writes (a resume replays these; buttons and referees' events it does not)
CAMERA_EVENTS = frozenset({"play", "declare", "bury", "bottom_reveal", "needs_referee", "hand_end"})


def from_camera(ev: Event) -> bool:
    """Written by the camera path (fusion's own corrections included), not a button or a
    referee: a resume replays exactly these."""
    return ev["type"] in CAMERA_EVENTS or (ev["type"] == "correction" and ev.get("by") == "camera")


class Detector(Protocol):
    """``vision.detect.CardDetector`` or anything shaped like it. A detector that also has
    ``seek(frame_index)`` is told which frame it reads (the rendered-truth detector needs it)."""

    def detect(self, image: NDArray[Any]) -> Sequence[DetectionLike]: ...


@dataclass
class NodeHooks:
    """Callbacks for the parts around the node; each is optional and must not block long.

    ``on_event(event)``: every record event as written (validated, with ``seq``).
    ``on_evidence(event, paths)``: the JPEGs kept for an event (masked frames before/after).
    ``on_ruling(event, ruling)``: each ruling the referee gave on that event.
    ``on_observation(obs)``: each tracker observation (for live views and debugging).
    ``on_frame(frame)``: every frame, after gating (``TableNode.masked`` hides the hands).
    ``foreign(after_seq)``: events others (the dashboard's referees) stored after that seq;
    the node takes them into its record and referee before it numbers its next event.
    """

    on_event: Callable[[Event], None] | None = None
    on_evidence: Callable[[Event, list[Path]], None] | None = None
    on_ruling: Callable[[Event, dict[str, Any]], None] | None = None
    on_observation: Callable[[Observation], None] | None = None
    on_frame: Callable[[Frame], None] | None = None
    foreign: Callable[[int], list[Event]] | None = None


@dataclass
class NodeStats:
    frames: int = 0
    reads: int = 0  # recognizer runs (still frames with a ready area)
    events: int = 0
    needs_referee: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    read_ms: list[float] = field(default_factory=list)
    latency_ms: list[float] = field(default_factory=list)  # first still frame → event written
    wall_s: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        med = float(np.median(self.latency_ms)) if self.latency_ms else None
        return {
            "frames": self.frames,
            "reads": self.reads,
            "events": self.events,
            "needs_referee": self.needs_referee,
            "errors": dict(self.errors),
            "read_ms_median": float(np.median(self.read_ms)) if self.read_ms else None,
            "latency_ms_median": med,
            "frames_per_s": self.frames / self.wall_s if self.wall_s > 0 else None,
        }


def layout_from_config(cfg: TableConfig) -> Layout:
    areas = tuple(Area(a.name, a.kind, a.polygon, a.seat) for a in cfg.areas)
    return Layout(cfg.calibration.table_size, areas, cfg.masks)


def calibrate(cfg: TableConfig, frame: NDArray[np.uint8]) -> Calibration:
    """Calibrate from ``frame`` per the config; ArUco falls back to saved points if given."""
    cal = cfg.calibration
    h, w = frame.shape[:2]
    if cal.method == "points":
        return calibrate_points(cal.points, cal.table_size, (w, h))
    try:
        return calibrate_aruco(
            frame, cal.table_size, cal.dictionary, cal.marker_ids, cal.marker_size
        )
    except CalibrationError as e:
        if cal.points:
            log.warning("%s: %s; using the saved manual points", cfg.path, e)
            return calibrate_points(cal.points, cal.table_size, (w, h))
        raise CalibrationError(f"{cfg.path}: calibration: {e}") from None


def make_referee(match_start: Event) -> Any:
    """The game's referee with the profile's rules loaded (through the game registry)."""
    return referee_for(match_start)


DEFAULT_MIN_SCORE = 0.6  # a detector without a calibrated sure score (labels, tests)
# An empty seat area that changed and settled but read no card, or fewer cards than the
# rules say the seat must lay, is read once more keeping faces down to this score: a card
# the camera saw land but could not read surely (a joker with no index, the strip of a
# pair's lower card) is written as its best guess and sent to a referee, not left out.
WEAK_READ = 0.2


def min_score_of(cfg: TableConfig, detector: Detector) -> float:
    """The score under which a read goes to a referee: the table config's ``model.min_score``
    when set, else the score the model was calibrated to be sure at (``models.calibrate``)."""
    if cfg.min_score is not None:
        return cfg.min_score
    thresholds = getattr(detector, "thresholds", None)
    return float(getattr(thresholds, "sure_score", DEFAULT_MIN_SCORE))


class TableNode:
    """Drives one table: call ``process(frame)`` per frame, ``finish()`` at the end."""

    def __init__(
        self,
        cfg: TableConfig,
        detector: Detector,
        hooks: NodeHooks | None = None,
        keep_evidence: bool = True,
        evidence_dir: Path | None = None,
        hand: int = 1,
        use_referee: bool = True,
        sure_score: float = 0.85,
        recheck_frames: int = 2,
        resume: Sequence[Event] = (),
    ) -> None:
        self.cfg = cfg
        self.detector = detector
        self.hooks = hooks or NodeHooks()
        self.keep_evidence = keep_evidence
        self.evidence_dir = evidence_dir or cfg.evidence_dir
        self.layout = layout_from_config(cfg)
        self.stats = NodeStats()
        self.events: list[Event] = []
        self.rulings: list[dict[str, Any]] = []
        self.seq = SeqCounter()
        self.calibration: Calibration | None = None
        self.gate: MotionGate | None = None
        self.tracker: Tracker | None = None
        self._mask: NDArray[np.uint8] | None = None
        self._last_read: NDArray[np.uint8] | None = None
        self._last_event_seq: int | None = None
        self._still_since: dict[str, tuple[int, float]] = {}
        self._recheck: dict[str, list[tuple[tuple[str, ...], list[Read], float]]] = {}
        self._held: list[tuple[Event, dict[str, Any]]] | None = None  # see _decide
        self.sure_score = sure_score
        self.recheck_frames = recheck_frames
        self.hand = hand
        team = next((i for i, t in enumerate(cfg.teams) if cfg.banker in t), 0)
        self._level = cfg.levels[team] if team < len(cfg.levels) else cfg.levels[0]
        start = {"v": 1, "seq": 0, "t": 0.0, **cfg.match_start()}
        self.referee = make_referee(start) if use_referee else None
        self.fusion = Fusion(
            len(cfg.seats),
            cfg.decks,
            min_score_of(cfg, detector),
            banker=cfg.banker,
            next_leader=self._next_leader,
            banker_rule=self._banker_rule(),
            bottom_size=getattr(getattr(self.referee, "rules", None), "bottom", None),
            turns=cfg.game == "tractor",
            level=self._level,
        )
        self._replay: deque[Event] = deque()
        self._unfed: deque[Event] = deque()
        self._replayed = False
        self._seed_areas: dict[int, list[str]] = {}  # resumed live: cards on the table
        self._seed_centre = 0  # resumed live: the buried bottom lying face down
        self._presses: set[str] = set()  # seat-button presses recorded (by meta.press)
        self.t_now = 0.0  # the match clock: the latest frame's time
        self.judged = 0  # events the referee has taken (the lights follow it)
        self.resumed_at: float | None = None
        if resume:
            self._restore(resume)
            return
        self._write({**cfg.match_start()}, 0.0)
        self._write(
            {"type": "hand_start", "hand": hand, "banker": cfg.banker, "level": self._level}, 0.0
        )

    # --- resuming after a crash -------------------------------------------------------------

    def _restore(self, stored: Sequence[Event]) -> None:
        """Rebuild from the events already stored for this table (the node crashed): the
        referee is fed them, seq continues after the last one, nothing is written again.

        A recorded source then replays its frames up to the last stored event with every
        event it regenerates matched, in order, to a stored one (the tracker and fusion learn
        exactly what they knew; nothing is emitted); a live source calls ``continue_live``."""
        events = sorted(stored, key=lambda e: int(e["seq"]))
        self.events = list(events)
        self.seq.next_seq = int(events[-1]["seq"]) + 1
        self.resumed_at = max(float(e.get("t", 0.0)) for e in events)
        for ev in events:
            if ev["type"] == "hand_start":
                self.hand = int(ev.get("hand", self.hand))
            press = (ev.get("meta") or {}).get("press")
            if isinstance(press, str):
                self._presses.add(press)
        self._unfed = deque(events)
        self._replay = deque(e for e in events if from_camera(e))
        # the referee learns the stored record as the replay reaches it (fusion asks it whose
        # lead it is, so it must not know the future); what precedes the first play now
        self._feed_stored(int(self._replay[0]["seq"]) - 1 if self._replay else None)
        log.info(
            "table %s: resuming after seq %d (t=%.3f s)",
            self.cfg.table_id,
            self.seq.next_seq - 1,
            self.resumed_at,
        )

    def _feed_stored(self, upto: int | None) -> None:
        """Feed the referee the stored events up to seq ``upto`` (None: all of them)."""
        while self._unfed and (upto is None or int(self._unfed[0]["seq"]) <= upto):
            ev = self._unfed.popleft()
            if ev["type"] in ("play", "declare", "bury", "bottom_reveal"):
                self._last_event_seq = int(ev["seq"])
            if self.referee is None:
                continue
            try:
                rulings = self.referee.feed(ev)
            except Exception as e:
                self.stats.errors["referee"] += 1
                log.error("referee failed on stored seq %s: %s", ev.get("seq"), e)
                continue
            finally:
                self.judged += 1
            for r in rulings:  # re-sent: a crash may have come between an event and its ruling
                self.rulings.append(r)
                if self.hooks.on_ruling:
                    self.hooks.on_ruling(ev, r)

    @property
    def catching_up(self) -> bool:
        """Still replaying frames whose events are already stored (after a crash)."""
        return bool(self._replay)

    def continue_live(self) -> None:
        """A live camera cannot go back: instead of replaying, fusion and the tracker are told
        from the stored record what was played, what was buried, who declared, and which cards
        of the current trick lie in which seat's area (so they are not read as new plays)."""
        from engine.record import apply_corrections

        self._replay.clear()
        self._feed_stored(None)
        f = self.fusion
        events = [e for e in apply_corrections(self.events) if e["type"] != "correction"]
        for ev in events:
            kind = ev["type"]
            if kind == "declare":
                f.declarers.append(int(ev["seat"]))
            elif kind == "bury":
                f.bury_count = ev.get("count")
                f.phase = "play"
                self._seed_centre = int(ev.get("count") or 0)
            elif kind in ("play", "bottom_reveal"):
                f.seen.update(ev.get("cards", []))
                if kind == "play":
                    f.phase = "play"
                else:
                    f.phase = "done"
                    self._seed_centre = 0
            elif kind == "hand_end":
                f.phase = "done"
        hand: dict[str, Any] = {}
        if self.referee is not None:
            try:
                hand = self.referee.state().get("hand") or {}
            except Exception as e:
                self.stats.errors["referee_state"] += 1
                log.error("referee state failed: %s", e)
        trick = hand.get("current_trick") or {}
        plays = [p for p in trick.get("plays", []) if isinstance(p.get("seat"), int)]
        if plays and f.phase == "play":
            f.trick = Trick(
                leader=plays[0]["seat"], plays=[(p["seat"], len(p["cards"])) for p in plays]
            )
            self._seed_areas = {p["seat"]: list(p["cards"]) for p in plays}
        elif f.phase == "play":
            f.trick = Trick(leader=self._next_leader())

    # --- the referee's knowledge, for fusion -------------------------------------------

    def _banker_rule(self) -> str:
        declare = getattr(getattr(self.referee, "rules", None), "declare", None)
        return str(getattr(declare, "first_banker", "first_declarer"))

    def _next_leader(self) -> int | None:
        if self.referee is None:
            return None
        try:
            hand = self.referee.state().get("hand") or {}
        except Exception as e:  # a referee fault must not stop the camera
            self.stats.errors["referee_state"] += 1
            log.error("referee state failed: %s", e)
            return None
        seat = hand.get("next_seat")
        return seat if isinstance(seat, int) else None

    # --- frames ---------------------------------------------------------------------------

    def _setup(self, frame: Frame) -> None:
        self.calibration = calibrate(self.cfg, frame.image)
        h, w = frame.image.shape[:2]
        if self.calibration.image_size != (w, h):
            self.calibration = Calibration(self.calibration.image_to_table, (w, h))
        self._mask = self.calibration.mask_image(self.layout)
        scale = 0.25
        self.gate = MotionGate(
            self.calibration.area_masks(self.layout, scale),
            scale=scale,
            still_frames=self.cfg.still_frames,
            threshold=self.cfg.motion_threshold,
        )
        self.tracker = Tracker(self.layout, self.calibration)
        for area in self.layout.areas:
            if area.kind == "centre" and self._seed_centre:
                self.tracker.tracks[area.name].held = Counter({BACK: self._seed_centre})
            elif area.seat is not None and area.seat in self._seed_areas:
                self.tracker.tracks[area.name].held = Counter(self._seed_areas[area.seat])

    def masked(self, image: NDArray[np.uint8]) -> NDArray[np.uint8]:
        """The frame with the players' held hands blacked out (never read, never stored)."""
        assert self._mask is not None
        return np.asarray(cv2.bitwise_and(image, image, mask=self._mask), np.uint8)

    def process(self, frame: Frame) -> list[Event]:
        """One frame in; the record events it produced (often none)."""
        t0 = time.perf_counter()
        if self.calibration is None:
            self._setup(frame)
        assert self.gate is not None and self.tracker is not None
        self.stats.frames += 1
        self.t_now = frame.t
        if self._replay and self.resumed_at is not None and frame.t > self.resumed_at + 1e-6:
            left = [int(e["seq"]) for e in self._replay]
            self._replay.clear()
            self._feed_stored(None)
            self.stats.errors["resume_mismatch"] += 1
            log.error("resume: stored events %s were not seen again in the replay", left)
        if frame.image is None or frame.image.ndim != 3 or frame.image.shape[2] != 3:
            self.stats.errors["bad_frame"] += 1
            log.warning("frame %d: not a BGR image (skipped)", frame.index)
            return []
        ready = self.gate.update(frame.image)
        if self.hooks.on_frame:
            self.hooks.on_frame(frame)
        for name, st in self.gate.states.items():
            if st.still == 1:
                self._still_since[name] = (frame.index, frame.t)
            if st.moving:
                self._recheck.pop(name, None)  # it moves again: it will be read when still
        ready = sorted(set(ready) | set(self._recheck))
        if not ready:
            return []
        return self._read(frame, ready, t0)

    def _read(self, frame: Frame, ready: list[str], t0: float) -> list[Event]:
        assert self.tracker is not None
        image = self.masked(frame.image)
        r0 = time.perf_counter()
        seek = getattr(self.detector, "seek", None)
        if seek is not None:
            seek(frame.index)
        try:
            reads = self._reads(image, ready)
        except Exception as e:
            self.stats.errors["detector"] += 1
            log.error("frame %d: recognizer failed: %s", frame.index, e)
            return []
        self.stats.read_ms.append((time.perf_counter() - r0) * 1000)
        self.stats.reads += 1
        ready = self._settle_unsure(ready, reads)
        observations = self.tracker.update(ready, reads, frame.index, frame.t)
        written: list[Event] = []
        for obs in observations:
            if self.hooks.on_observation:
                self.hooks.on_observation(obs)
            for decision in self.fusion.feed(obs):
                written += self._decide(decision, frame, image, t0)
        self._last_read = image
        return written

    def _reads(self, image: NDArray[np.uint8], ready: list[str]) -> dict[str, list[Read]]:
        """Each area's card reads. A detector with ``detect_region`` reads each ready seat
        area from its own crop (more pixels per card for the localiser); a card is taken
        only from the crop of the area its centre lies in, so no card is counted twice. A
        seat crop that shows no card at all is read again from the whole frame (the two
        scales miss different cards). The centre, where the bottom lies face down, is read
        from the whole frame (a back's pattern seen large can pass for index corners), and
        also from its crop once the bottom is due to be turned up: of the two, the read
        with more faces (a bottom is a tight fan where every index counts). A fresh seat
        read with no card, or with fewer than the seat must lay, is read once more with
        ``WEAK_READ``; what that adds is doubted (a referee confirms it)."""
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
            assert zoom is not None and self.calibration is not None
            poly = self.calibration.to_image(tracker.areas[name].polygon)
            (x0, y0), (x1, y1) = poly.min(0), poly.max(0)
            m = max(48.0, 0.35 * max(x1 - x0, y1 - y0))  # a card half outside its area
            box = (int(x0 - m), int(y0 - m), int(x1 + m) + 1, int(y1 + m) + 1)
            found = zoom(image, box) if card_score is None else zoom(image, box, card_score)
            return tracker.assign(found)[name]

        reads = dict(whole_frame()) if len(seats) < len(ready) else {n: [] for n in tracker.areas}
        for name in seats:
            reads[name] = zoomed(name) or whole_frame()[name]
            seat = tracker.areas[name].seat
            want = None if seat is None else self.fusion.wanted(seat)
            short = not reads[name] or (want is not None and len(reads[name]) < want)
            if short and not tracker.tracks[name].held:
                more = zoomed(name, WEAK_READ)
                if len(reads[name]) < len(more) <= (want or len(more)):
                    reads[name] = self._doubted(more)  # always to a referee
        if zoom and self.fusion.expects_reveal():
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
        cap = max(0.0, self.fusion.min_score - 0.01)
        return [replace(r, score=min(r.score * MERGE_DOUBT, cap)) for r in reads]

    def finish(self, t: float = 0.0) -> list[Event]:
        """End of the source: settle what is pending, close the hand if it is still open."""
        written: list[Event] = []
        for decision in self.fusion.finish():
            written += self._decide(decision, None, None, None, t)
        if not any(e["type"] == "hand_end" for e in self.events):
            written += self._emit({"type": "hand_end", "reason": "source ended"}, t)
        return written

    # --- events ---------------------------------------------------------------------------

    def _decide(
        self,
        d: Decision,
        frame: Frame | None,
        image: NDArray[np.uint8] | None,
        t0: float | None,
        t_end: float = 0.0,
    ) -> list[Event]:
        t = frame.t if frame is not None else t_end
        ev = dict(d.event)
        if d.flags is not None:  # a late doubt about, or correction of, an event written
            if d.flags.written_seq is None:
                return []
            ev["ref"] = d.flags.written_seq
            if d.unsure is not None:
                ev["meta"] = {"detail": d.unsure.detail}
            if ev["type"] == "needs_referee":
                self.stats.needs_referee += 1
            return self._emit(ev, t)
        if d.ref_previous:
            if self._last_event_seq is None:
                return []
            ev["ref"] = self._last_event_seq
        evidence_id = None
        if frame is not None and ev["type"] != "hand_end":
            evidence_id = f"{self.cfg.table_id}-f{frame.index:06d}"
            ev["evidence"] = evidence_id
        if d.observation is not None:
            ev["meta"] = {"frame": d.observation.frame, "area": d.observation.area}
        if d.unsure is not None:
            self._held = []  # its rulings wait for the doubt: they rest on an unsure read
        try:
            out = self._emit(ev, t)
        finally:
            held, self._held = self._held, None
        if not out:
            self._release(held or [], provisional=False)
            return []
        main = out[0]
        d.written_seq = main["seq"]
        if ev["type"] in ("play", "declare", "bury", "bottom_reveal"):
            self._last_event_seq = main["seq"]
        if d.unsure is not None:
            self.stats.needs_referee += 1
            nr: Event = {
                "type": "needs_referee",
                "ref": main["seq"],
                "candidates": d.unsure.candidates,
                "reason": d.unsure.reason,
            }
            if evidence_id:
                nr["evidence"] = evidence_id
            nr["meta"] = {"detail": d.unsure.detail}
            out += self._emit(nr, t)
            self._release(held or [], provisional=True)
        # kept again when replayed: a crash may have come between the event and its frames
        # (same frames, same bytes: the store holds them once)
        if frame is not None and image is not None and evidence_id and self.keep_evidence:
            self._keep_evidence(main, evidence_id, image)
        if t0 is not None and d.observation is not None and frame is not None:
            since = self._still_since.get(d.observation.area)
            if since is not None and ev["type"] in ("play", "declare", "bury", "bottom_reveal"):
                waited = (frame.t - since[1]) * 1000
                self.stats.latency_ms.append(waited + (time.perf_counter() - t0) * 1000)
        return out

    def _emit(self, fields: Event, t: float) -> list[Event]:
        fields = dict(fields)
        kind = fields.pop("type")
        self._replayed = False
        if self._replay and from_camera({"type": kind, **fields}):
            stored = self._replay.popleft()  # regenerated while catching up: already stored
            self._replayed = True
            self._feed_stored(int(stored["seq"]) if self._replay else None)
            if stored["type"] != kind:
                self.stats.errors["resume_mismatch"] += 1
                log.error(
                    "resume: seq %d was %s, the replay gave %s", stored["seq"], stored["type"], kind
                )
            return [stored]
        for attempt in range(3):
            self._adopt_foreign()
            try:
                ev = self.seq.event(kind, t, table=self.cfg.table_id, **fields)
            except ValueError as e:
                self.stats.errors["invalid_event"] += 1
                log.error("event not written: %s: %s", kind, e)
                return []
            try:
                if self.hooks.on_event:
                    self.hooks.on_event(ev)
            except Exception:
                self.seq.next_seq -= 1  # not written
                if attempt < 2 and self._adopt_foreign():
                    continue  # a referee's event took that seq just now: number it again
                raise
            break
        self.events.append(ev)
        self.stats.events += 1
        self._judge(ev)
        return [ev]

    def _adopt_foreign(self) -> int:
        """Take in what others stored since our last event (a ruling, a correction)."""
        if self.hooks.foreign is None:
            return 0
        taken = 0
        for ev in self.hooks.foreign(self.seq.next_seq - 1):
            if int(ev["seq"]) != self.seq.next_seq:
                continue  # the store keeps seq gap-free; never guess
            self.events.append(ev)
            self.seq.next_seq += 1
            taken += 1
            log.info("seq %d (%s) came from outside the node", ev["seq"], ev["type"])
            held, self._held = self._held, None  # only the node's own event is held back
            try:
                self._judge(ev)
            finally:
                self._held = held
        return taken

    def _judge(self, ev: Event) -> None:
        if self.referee is not None:
            try:
                rulings = self.referee.feed(ev)
            except Exception as e:  # the camera keeps running if the referee trips
                self.stats.errors["referee"] += 1
                log.error("referee failed on seq %d: %s", ev["seq"], e)
                rulings = []
            self.judged += 1
            if self._held is not None:
                self._held += [(ev, r) for r in rulings]
                return
            for r in rulings:
                self.rulings.append(r)
                if self.hooks.on_ruling:
                    self.hooks.on_ruling(ev, r)

    def _release(self, held: list[tuple[Event, dict[str, Any]]], provisional: bool) -> None:
        """Pass on rulings held back while their event's doubt was written. A violation on a
        read that awaits a referee is provisional (as the referee's own report says once
        the doubt is in): it must never be shown, stored or signalled as a firm accusation."""
        for ev, r in held:
            if provisional and r.get("kind") == "violation":
                r = {**r, "provisional": True}
            self.rulings.append(r)
            if self.hooks.on_ruling:
                self.hooks.on_ruling(ev, r)

    def external(self, body: Event) -> list[Event]:
        """An event from outside the camera (a seat button: ``pass``/``button``) through the
        normal path: seq assigned here, stored, judged. A press already recorded (same
        ``meta.press``, e.g. resent by the board after a host restart) is dropped."""
        press = (body.get("meta") or {}).get("press")
        if isinstance(press, str):
            if press in self._presses:
                log.info("press %s already recorded (dropped)", press)
                return []
            self._presses.add(press)
        fields = {k: v for k, v in body.items() if k not in ("v", "seq", "t", "table")}
        t = body.get("t")
        return self._emit(fields, float(t) if isinstance(t, int | float) else self.t_now)

    def _write(self, fields: Event, t: float) -> None:
        self._emit(dict(fields), t)

    def _keep_evidence(self, ev: Event, evidence_id: str, after: NDArray[np.uint8]) -> None:
        """The masked frames before (last read) and after the event, as JPEG."""
        folder = self.evidence_dir
        try:
            folder.mkdir(parents=True, exist_ok=True)
            paths: list[Path] = []
            for tag, img in (("before", self._last_read), ("after", after)):
                if img is None:
                    continue
                p = folder / f"{evidence_id}-{tag}.jpg"
                if not p.exists():  # written whole, then renamed: a crash leaves no torn JPEG
                    ok, jpeg = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 85])
                    if not ok:
                        raise OSError(f"cannot encode {p}")
                    part = p.with_name(p.name + ".part")
                    part.write_bytes(jpeg.tobytes())
                    part.replace(p)
                paths.append(p)
        except OSError as e:
            self.stats.errors["evidence"] += 1
            log.error("evidence for seq %d not kept: %s", ev["seq"], e)
            return
        if self.hooks.on_evidence:
            self.hooks.on_evidence(ev, paths)


def run_source(
    node: TableNode,
    source: FrameSource,
    max_frames: int | None = None,
    speed: float = 0.0,
    between: Callable[[], None] | None = None,
) -> NodeStats:
    """Feed every frame of ``source`` to ``node`` and finish the hand. ``speed`` > 0 paces a
    recorded source at that many times real time (frames replayed after a crash are not).
    ``between()`` runs after every frame (seat buttons in, lights out)."""
    start = time.perf_counter()
    last_t = 0.0
    paced_from: tuple[float, float] | None = None  # (wall clock, video t) pacing started
    try:
        for frame in source.frames():
            if speed > 0 and not node.catching_up:
                now = time.monotonic()
                if paced_from is None:
                    paced_from = (now, frame.t)
                wait = (frame.t - paced_from[1]) / speed - (now - paced_from[0])
                if wait > 0:
                    time.sleep(wait)
            node.process(frame)
            last_t = frame.t
            if between is not None:
                between()
            if max_frames is not None and frame.index + 1 >= max_frames:
                break
    finally:
        source.close()
    for err in source.errors:
        node.stats.errors["source"] += 1
        log.error("%s", err)
    node.finish(last_t)
    node.stats.wall_s = time.perf_counter() - start
    return node.stats


def _faces(reads: list[Read]) -> int:
    return sum(r.card != "back" for r in reads)


def load_detector(cfg: TableConfig, model: Path | None = None) -> Detector:
    """The shipped recognizer (``vision.detect.CardDetector``) on the configured model."""
    path = model or cfg.model
    if path is None:
        raise FileNotFoundError(f"{cfg.path}: model.path: no recognizer model configured")
    if not path.exists():
        alt = Path(__file__).resolve().parent.parent / "models" / path.name
        if alt.exists():
            path = alt
        else:
            raise FileNotFoundError(f"{cfg.path}: model.path: {path} does not exist")
    from vision.detect import CardDetector

    detector: Detector = CardDetector(str(path))
    return detector


def played(events: Iterable[Event]) -> list[tuple[int, tuple[str, ...]]]:
    """The (seat, sorted cards) of every play, after corrections, for comparisons."""
    from engine.record import apply_corrections

    return [
        (e["seat"], tuple(sorted(e["cards"])))
        for e in apply_corrections(list(events))
        if e["type"] == "play"
    ]


# --- the offline demo ---------------------------------------------------------------------


class TerminalView:
    """A live-updating terminal view of the node: the trick on the table, the points, the
    latest events and rulings. Redraws in place on a terminal; plain lines otherwise."""

    def __init__(self, node: TableNode, stream: Any, title: str) -> None:
        self.node = node
        self.stream = stream
        self.title = title
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.lines: list[str] = []
        self.t = 0.0
        self._last_draw = 0.0

    def event(self, ev: Event) -> None:
        kind = ev["type"]
        seat = ev.get("seat")
        who = self.node.cfg.seats[seat] if isinstance(seat, int) else ""
        text = {
            "play": f"{who} plays {' '.join(ev.get('cards', []))}",
            "declare": f"{who} declares {' '.join(ev.get('cards', []))}",
            "bury": f"{who} buries {ev.get('count')} cards",
            "bottom_reveal": f"bottom turned up: {' '.join(ev.get('cards', []))}",
            "needs_referee": f"NEEDS REFEREE (seq {ev.get('ref')}): {ev.get('reason')}",
            "correction": f"correction of seq {ev.get('ref')}: {ev.get('why')}",
        }.get(kind, kind)
        line = f"{ev['t']:7.2f}s  #{ev['seq']:<3} {text}"
        self.lines.append(line)
        if not self.tty:
            print(line, file=self.stream, flush=True)
        else:
            self.draw(force=True)

    def ruling(self, ev: Event, ruling: dict[str, Any]) -> None:
        if ruling.get("kind") == "violation":
            # a ruling on a read awaiting the referee is not an accusation yet: say so
            kind = "provisional" if ruling.get("provisional") else "VIOLATION"
            line = f"          {kind} {ruling.get('rule')} seat {ruling.get('seat')}: "
            line += str(ruling.get("detail", ""))
            self.lines.append(line)
            if not self.tty:
                print(line, file=self.stream, flush=True)

    def draw(self, force: bool = False) -> None:
        now = time.monotonic()
        if not self.tty or (not force and now - self._last_draw < 0.2):
            return
        self._last_draw = now
        state: dict[str, Any] = {}
        if self.node.referee is not None:
            try:
                state = self.node.referee.state().get("hand") or {}
            except Exception:
                state = {}
        trick = state.get("current_trick") or {}
        on_table = {p.get("seat"): " ".join(p.get("cards", [])) for p in trick.get("plays", [])}
        st = self.node.stats
        out = [
            f"\x1b[H\x1b[2J{self.title}",
            f"video {self.t:6.1f}s   frames {st.frames}   reads {st.reads}   events {st.events}"
            f"   needs_referee {st.needs_referee}",
            f"trump {state.get('trump')}   banker {state.get('banker')}   next to play "
            f"{state.get('next_seat')}   points {state.get('points')}",
            "",
        ]
        for s, name in enumerate(self.node.cfg.seats):
            out.append(f"  {name:>8}: {on_table.get(s, '')}")
        out += ["", *self.lines[-14:]]
        self.stream.write("\n".join(out) + "\n")
        self.stream.flush()


def demo_pipeline(
    seed: int = 1,
    profile: str = "standard",
    out_dir: Path | None = None,
    speed: float = 4.0,
    split: str = "eval",
    tricks: int | None = None,
    stream: Any = None,
    model: Path | None = None,
    video: Path | None = None,
    hooks: NodeHooks | None = None,
    labels: bool = False,
) -> int:
    """``make demo``: render (or reuse) a simulated hand as an overhead video, then judge it
    live through the whole pipeline (video → recognizer → record → referee) with a terminal
    view, ``speed`` times faster than real time (0: as fast as the CPU allows).

    Offline and camera-free. Uses ``models/cards.onnx``; without it the renderer's own labels
    stand in for the recognizer, and the view says so. ``video``: replay this rendered video
    (with its ``.table.toml``/``.truth.jsonl`` beside it) instead of rendering one.
    ``hooks``: more listeners (e.g. the evidence store, so the dashboard follows the match).
    ``labels``: read the renderer's labels instead of the model (checks the rest of the chain).
    """
    import os
    import sys

    from vision.render_match import LabelDetector, read_truth, render_simulated
    from vision.sources import open_source

    stream = stream or sys.stdout
    if out_dir is None:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        out_dir = Path(base) / "tablescan" / "demo"
    video = video or out_dir / f"{profile}-{seed}{'' if tricks is None else f'-{tricks}t'}.mp4"
    table = video.with_name(video.stem + ".table.toml")
    if not (video.exists() and table.exists()):
        print(f"rendering a simulated {profile} hand (seed {seed}) to {video} ...", file=stream)
        render_simulated(profile, seed, video, split=split, tricks=tricks)
    from tablescan.config import load_config

    cfg = load_config(table)
    detector: Detector
    model_path = model or Path(__file__).resolve().parent.parent / "models" / "cards.onnx"
    if model_path.exists() and not labels:
        detector = load_detector(cfg, model_path)
        reader = f"recognizer {model_path.name}"
    else:
        detector = LabelDetector.beside(video)
        reader = "renderer labels" + ("" if labels else f" ({model_path.name} not found)")
    title = f"tablescan demo: {video.name}, profile {profile}, reader: {reader}"
    node_box: list[TableNode] = []
    view_box: list[TerminalView] = []
    extra = hooks or NodeHooks()

    def on_event(ev: Event) -> None:
        if extra.on_event is not None:
            extra.on_event(ev)
        if view_box:
            view_box[0].event(ev)

    def on_ruling(ev: Event, r: dict[str, Any]) -> None:
        if extra.on_ruling is not None:
            extra.on_ruling(ev, r)
        if view_box:
            view_box[0].ruling(ev, r)

    node_hooks = replace(extra, on_event=on_event, on_ruling=on_ruling)
    node = TableNode(
        cfg, detector, node_hooks, evidence_dir=video.with_name(video.stem + ".evidence")
    )
    node_box.append(node)
    view = TerminalView(node, stream, title)
    view_box.append(view)
    if not view.tty:
        print(title, file=stream)
    source = open_source(str(video), cfg.fps)
    start = time.monotonic()
    last_t = 0.0
    try:
        for frame in source.frames():
            if speed > 0:
                wait = frame.t / speed - (time.monotonic() - start)
                if wait > 0:
                    time.sleep(wait)
            node.process(frame)
            view.t = last_t = frame.t
            view.draw()
    finally:
        source.close()
    node.finish(last_t)
    view.draw(force=True)
    truth = read_truth(video.with_name(video.stem + ".truth.jsonl"))
    want, got = played(truth), played(node.events)
    right = sum(a == b for a, b in zip(want, got, strict=False))
    report = node.referee.report() if node.referee is not None else {}
    hand = (report.get("hands") or [{}])[0]
    found = hand.get("violations", [])
    unsure = sum(bool(v.get("provisional")) for v in found)
    print(
        f"\nplays read exactly: {right}/{len(want)}; needs_referee: {node.stats.needs_referee}; "
        f"attacker points {hand.get('attacker_points')}; violations {len(found) - unsure} "
        f"(+{unsure} provisional, awaiting the referee); outcome {hand.get('outcome')}",
        file=stream,
    )
    return 0
