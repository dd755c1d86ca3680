"""Start-up of a table node, step by step, for ``run``, ``replay`` and ``demo``.

Over 600 lines on purpose: the one start-up reads as one list of steps, and splitting the steps
across files would hide the order they run in.

In the style of Frigate's ``FrigateApp.start()``: ``TableApp.start`` is one readable list of
steps, each a small method; ``stop`` undoes them in reverse; ``run`` is the source loop.

    config → evidence store (+ its hooks, what a crash left) → hall publisher → record file →
    source → detector → reader (vision) → referee (engine.games) → node → seat controller →
    live frame, health and layout for the dashboard;  then the source loop;  then teardown.

The helpers below build each part from the table config; tests and benches that want a bare
node use ``build_node``.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from engine.games import RefereeLike, referee_for
from engine.record import Event, dumps_event
from tablescan.config import TableConfig, load_config
from tablescan.node import NodeHooks, NodeStats, TableNode, rulings_of
from vision.calibration import (
    Area,
    Calibration,
    CalibrationError,
    Layout,
    calibrate_aruco,
    calibrate_points,
)
from vision.progress import Progress
from vision.reading import Detector, TableReader
from vision.sources import FrameSource, open_source

if TYPE_CHECKING:
    from evidence.store import EvidenceStore
    from hall.publish import Publisher
    from tablescan.clips import ClipRecorder
    from tablescan.live_share import LiveShare
    from tablescan.recorded_presses import RecordedPresses
    from tablescan.seat_buttons import SeatButtons

log = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_MIN_SCORE",
    "Detector",
    "StartError",
    "TableApp",
    "build_node",
    "calibrate",
    "chain_hooks",
    "layout_from_config",
    "load_detector",
    "make_reader",
    "match_referee",
    "min_score_of",
    "run_source",
    "store_wiring",
]

DEFAULT_MIN_SCORE = 0.6  # a detector without a calibrated sure score (labels, tests)


class StartError(Exception):
    """A node that must not start (e.g. its match is already finished); the message says why."""


# --- the parts, from the table config -------------------------------------------------------


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


def min_score_of(cfg: TableConfig, detector: Detector) -> float:
    """The score under which a read goes to a referee: the table config's ``model.min_score``
    when set, else the score the model was calibrated to be sure at (``models.calibrate``)."""
    if cfg.min_score is not None:
        return cfg.min_score
    thresholds = getattr(detector, "thresholds", None)
    return float(getattr(thresholds, "sure_score", DEFAULT_MIN_SCORE))


def resolve_model(path: Path) -> Path | None:
    """The model file a node would load: ``path``, else the shipped ``models/<name>`` (a
    config written by ``setup`` or ``render-match`` names it relative to itself)."""
    if path.exists():
        return path
    alt = Path(__file__).resolve().parent.parent / "models" / path.name
    return alt if alt.exists() else None


def load_detector(cfg: TableConfig, model: Path | None = None) -> Detector:
    """The shipped recognizer (``vision.detect.CardDetector``) on the configured model."""
    path = model or cfg.model
    if path is None:
        raise FileNotFoundError(f"{cfg.path}: model.path: no recognizer model configured")
    found = resolve_model(path)
    if found is None:
        raise FileNotFoundError(f"{cfg.path}: model.path: {path} does not exist")
    path = found
    from vision.detect import CardDetector

    detector: Detector = CardDetector(str(path))
    return detector


def make_reader(cfg: TableConfig, detector: Detector, **tuning: Any) -> TableReader:
    """The table's pixel steps: its layout, calibration and motion settings from the config,
    its sure line from the config or the model; ``tuning``: ``TableReader``'s keywords."""
    settings: dict[str, Any] = {
        "still_frames": cfg.still_frames,
        "motion_threshold": cfg.motion_threshold,
        "sure_score": cfg.sure_score,
        "recheck_frames": cfg.recheck_frames,
        "weak_read": cfg.weak_read,
        "every_frame": cfg.every_frame,
        "card_height": cfg.calibration.card_height,
        **tuning,
    }
    return TableReader(
        layout_from_config(cfg),
        detector,
        partial(calibrate, cfg),
        min_score_of(cfg, detector),
        **settings,
    )


def match_referee(cfg: TableConfig) -> RefereeLike:
    """The match's one judge, from the game registry, for the match this table opens."""
    return referee_for({"v": 1, "seq": 0, "t": 0.0, **cfg.match_start()})


def build_node(
    cfg: TableConfig,
    detector: Detector,
    hooks: NodeHooks | None = None,
    *,
    judge: bool = True,
    keep_evidence: bool = True,
    evidence_dir: Path | None = None,
    resume: Sequence[Event] = (),
    **tuning: Any,
) -> TableNode:
    """A table node with its reader and referee built from the config (tests, benches)."""
    return TableNode(
        cfg,
        make_reader(cfg, detector, **tuning),
        match_referee(cfg) if judge else None,
        hooks,
        keep_evidence=keep_evidence,
        evidence_dir=evidence_dir,
        resume=resume,
    )


def chain_hooks(*hooks: NodeHooks) -> NodeHooks:
    """One ``NodeHooks`` calling each given one in turn (the first is the store: durable
    first); ``foreign`` comes from the first that has one."""

    def each(name: str) -> Callable[..., None] | None:
        calls: list[Callable[..., None]] = [
            f for f in (getattr(h, name) for h in hooks) if f is not None
        ]
        if not calls:
            return None
        if len(calls) == 1:
            return calls[0]

        def call(*args: Any) -> None:
            for f in calls:
                f(*args)

        return call

    foreign = next((h.foreign for h in hooks if h.foreign is not None), None)
    return NodeHooks(
        on_event=each("on_event"),
        on_evidence=each("on_evidence"),
        on_ruling=each("on_ruling"),
        on_observation=each("on_observation"),
        on_frame=each("on_frame"),
        foreign=foreign,
    )


def store_wiring(
    data: Path, cfg: TableConfig
) -> tuple[NodeHooks, list[Callable[[], None]], EvidenceStore]:
    """Events, rulings and evidence JPEGs chained into the evidence store under ``data``."""
    from evidence.store import EvidenceStore
    from tablescan.store_hooks import store_hooks

    store = EvidenceStore(data)
    return NodeHooks(**store_hooks(store, cfg.table_id)), [store.close], store


def layout_json(cfg: TableConfig) -> dict[str, Any]:
    """The table's layout and calibration settings as the dashboard's calibration page draws
    them (``DATA/live/<table>/layout.json``)."""
    cal = cfg.calibration
    return {
        "table_size": list(cal.table_size),
        "areas": [
            {
                "name": a.name,
                "kind": a.kind,
                "seat": a.seat,
                "polygon": [list(p) for p in a.polygon],
            }
            for a in cfg.areas
        ],
        "masks": [[list(p) for p in m] for m in cfg.masks],
        "calibration": {
            "method": cal.method,
            "dictionary": cal.dictionary,
            "marker_ids": list(cal.marker_ids),
            "marker_size": cal.marker_size,
            "points": [list(p) for p in cal.points],
        },
        "seats": list(cfg.seats),
    }


def dashboard_calibration(data: Path, cfg: TableConfig) -> TableConfig:
    """Table corners entered on the dashboard's calibration page replace the config's."""
    from evidence.live import LiveFiles

    saved = LiveFiles(data).calibration(cfg.table_id)
    if not saved or saved.get("method") != "points":
        return cfg
    points = _corners(saved.get("points"))
    if points is None:  # a bad save never stops the node: it keeps the config's calibration
        log.warning(
            "%s/live/%s/calibration.json: points: expected four finite [x, y] corners "
            "around an area; ignored (the config's calibration is used)",
            data,
            cfg.table_id,
        )
        return cfg
    cal = dataclasses.replace(cfg.calibration, method="points", points=points)
    log.info("using the dashboard's calibration points for table %s", cfg.table_id)
    return dataclasses.replace(cfg, calibration=cal)


def _corners(value: Any) -> tuple[tuple[float, float], ...] | None:
    """Four finite image points enclosing an area, or None."""
    try:
        pts = tuple((float(x), float(y)) for x, y in value)
    except (TypeError, ValueError):
        return None
    if len(pts) != 4 or not all(np.isfinite(v) for p in pts for v in p):
        return None
    area = (
        sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1], strict=True))
        / 2
    )
    return pts if abs(area) >= 1.0 else None


def run_source(
    node: TableNode,
    source: FrameSource,
    max_frames: int | None = None,
    speed: float = 0.0,
    between: Callable[[], None] | None = None,
    progress: bool = True,
) -> NodeStats:
    """Feed every frame of ``source`` to ``node`` and finish the hand. ``speed`` > 0 paces a
    recorded source at that many times real time (frames replayed after a crash are not).
    ``between()`` runs after every frame (seat buttons in, lights out, a view redrawn).
    ``progress``: a bar on stderr (plain lines off a terminal) when the source knows its
    frame count, i.e. a recorded file, never a live camera; off where a view shows the hand."""
    start = time.perf_counter()
    last_t = 0.0
    paced_from: tuple[float, float] | None = None  # (wall clock, video t) pacing started
    total = source.frame_count if progress else None  # a live source has none
    if total is not None and max_frames is not None:
        total = min(total, max_frames)
    bar = Progress(total, f"replaying {source.name} (frames)") if total else None
    try:
        for frame in source.frames():
            if bar is not None:
                bar.update()
            if speed > 0 and not node.catching_up:
                now = time.monotonic()
                if paced_from is None:
                    paced_from = (now, frame.t)
                wait = (frame.t - paced_from[1]) / speed - (now - paced_from[0])
                if wait > 0:
                    time.sleep(wait)
            node.process(frame)
            last_t = frame.t
            node.poll()  # the dashboard's events, even when the camera writes none
            if between is not None:
                between()
            if node.match_over:
                log.info("table %s: the match is over", node.cfg.table_id)
                break
            if max_frames is not None and frame.index + 1 >= max_frames:
                break
    finally:
        if bar is not None:
            bar.close()
        source.close()
    for err in source.errors:
        node.stats.errors["source"] += 1
        log.error("%s", err)
    if source.errors:  # a source error never ends the hand: a restart resumes it
        log.error("the hand is left open (no hand_end); restart the node to go on")
    else:
        node.finish(last_t)
    node.stats.wall_s = time.perf_counter() - start
    return node.stats


def _unspool(_ev: Event, paths: list[Path]) -> None:
    """After the store took the evidence JPEGs (it copies them): the spooled files go."""
    for path in paths:
        path.unlink(missing_ok=True)


# --- the start-up -------------------------------------------------------------------------


@dataclass
class TableApp:
    """One table node and everything around it, started in order and stopped in reverse.

    ``config``: the table.toml; ``profile``: another rule profile than the config's.
    ``video``: a recorded file to read (as given); else ``source`` or the config's source
    (relative to the config's folder). ``detector``: ``model`` (``model`` or the config's)
    or ``labels`` (a rendered video's own labels). ``data``: the evidence store folder (the
    record chained there, a crashed hand resumed, the live frame shared). ``record``: a
    JSON-lines file the record is appended to, each event echoed on stdout (``run``).
    ``hooks``: more listeners, called after the store and the record file.
    """

    config: Path
    profile: str | None = None
    video: Path | None = None
    source: str | None = None
    detector: str = "model"
    model: Path | None = None
    data: Path | None = None
    append_record: bool = False
    record: Path | None = None
    hooks: NodeHooks | None = None
    keep_evidence: bool = True
    evidence_dir: Path | None = None
    serial: str | None = None
    presses: Path | None = None  #: recorded seat presses to feed in (tablescan.recorded_presses)

    cfg: TableConfig = field(init=False)
    store: EvidenceStore | None = field(init=False, default=None)
    stored: list[Event] = field(init=False, default_factory=list)
    frames: FrameSource = field(init=False)
    recognizer: Detector = field(init=False)
    reader: TableReader = field(init=False)
    referee: RefereeLike = field(init=False)
    node: TableNode = field(init=False)
    seats: SeatButtons | None = field(init=False, default=None)
    publisher: Publisher | None = field(init=False, default=None)
    live: LiveShare | None = field(init=False, default=None)
    clips: ClipRecorder | None = field(init=False, default=None)
    recorded: RecordedPresses | None = field(init=False, default=None)
    _listeners: list[NodeHooks] = field(init=False, default_factory=list)
    _closers: list[Callable[[], None]] = field(init=False, default_factory=list)

    def start(self) -> TableApp:
        """Every start-up step, in order; on a failure what was started is stopped."""
        try:
            self.init_config()
            self.init_store()
            self.init_hall()
            self.init_record_file()
            self.init_source()
            self.init_detector()
            self.init_reader()
            self.init_referee()
            self.init_node()
            self.init_seats()
            self.init_presses()
            self.init_live()
        except BaseException:
            self.stop()
            raise
        return self

    def init_config(self) -> None:
        """The table config; the dashboard's calibration points; the profile override."""
        cfg = load_config(self.config)
        if self.data is not None:
            cfg = dashboard_calibration(self.data, cfg)
        if self.profile:
            cfg = dataclasses.replace(cfg, profile=self.profile)
        self.cfg = cfg

    def init_store(self) -> None:
        """The evidence store and its hooks; the events a crash left (resumed mid-deal or
        between deals). A finished match (``match_end``) is not resumed unless a head referee
        reopened it (``match_reopen``, from the dashboard): its rulings a crash left unchained
        are chained (each once) and the start is refused."""
        if self.data is None:
            return
        from evidence.lock import TableLocked

        try:
            hooks, closers, self.store = store_wiring(self.data, self.cfg)
        except TableLocked as e:  # another node records this table here: never interleave
            raise StartError(str(e)) from None
        self._closers += closers
        self._listeners.append(hooks)
        self.stored = self.store.events(self.cfg.table_id)
        ends = [e for e in self.stored if e["type"] in ("match_end", "match_reopen")]
        ended = [e for e in ends[-1:] if e["type"] == "match_end"]  # unless a head reopened it
        if ended:
            self.chain_missing_rulings()
            raise StartError(
                f"{self.data}: table {self.cfg.table_id} holds a finished match (match_end "
                f"at seq {ended[0]['seq']}); a head referee may reopen it on the dashboard; "
                "else record the next match under another table id or data folder"
            )

    def init_hall(self) -> None:
        """``[hall]``: the stored record published to the hall's broker (the store is the
        source of truth, so only with ``--data``), woken on each new event and ruling."""
        if self.cfg.hall is None:
            return
        if self.store is None:
            log.warning(
                "%s: [hall] is set but there is no --data store: not published", self.config
            )
            return
        from hall.publish import start_publisher

        pub = self.publisher = start_publisher(self.store, self.cfg.table_id, self.cfg.hall)
        self._closers.append(pub.stop)
        self._listeners.append(
            NodeHooks(on_event=lambda _e: pub.wake(), on_ruling=lambda _e, _r: pub.wake())
        )

    def chain_missing_rulings(self) -> int:
        """Judge the stored record again and chain the rulings a crash kept from the store
        (a kill right after ``hand_end``); the store keeps a ruling once. How many were new."""
        assert self.store is not None
        try:
            rulings = rulings_of(match_referee(self.cfg), self.stored)
        except Exception as e:  # a record the referee cannot take: nothing to add
            log.error("table %s: stored record not judged again: %s", self.cfg.table_id, e)
            return 0
        new = sum(self.store.append_ruling(self.cfg.table_id, r) for r in rulings)
        if new:
            log.info("table %s: %d ruling(s) a crash left unchained", self.cfg.table_id, new)
        return new

    def init_record_file(self) -> None:
        """``run``: each event echoed on stdout and appended to a JSON-lines file: ``record``,
        else (without a ``--data`` store, which is the record) ``<id>.jsonl`` beside the
        config."""
        if not self.append_record:
            return
        path = self.record
        if path is None and self.data is None:
            path = self.cfg.path.with_name(self.cfg.table_id + ".jsonl")
        out: IO[str] | None = None
        if path is not None:
            missing = self._not_in_record_file(path)
            out = open(path, "a", encoding="utf-8")  # noqa: SIM115 (closed in stop)
            self._closers.append(out.close)
            for ev in missing:  # the store is the acknowledged record: the file follows it
                out.write(dumps_event(ev) + "\n")
            out.flush()

        def on_event(ev: Event) -> None:
            line = dumps_event(ev)
            if out is not None:
                out.write(line + "\n")
                out.flush()
            print(line, flush=True)

        self._listeners.append(NodeHooks(on_event=on_event))

    def _not_in_record_file(self, path: Path) -> list[Event]:
        """The stored events (a crash left) that the record file lacks: a kill may come
        between the store's write and the file's. A torn last line is ended first."""
        if not self.stored:
            return []
        have: set[int] = set()
        torn = False
        if path.exists():
            text = path.read_text(encoding="utf-8", errors="replace")
            torn = bool(text) and not text.endswith("\n")
            for line in text.splitlines():
                try:
                    ev = json.loads(line)
                except ValueError:
                    continue
                ours = (
                    isinstance(ev, dict) and ev.get("table", self.cfg.table_id) == self.cfg.table_id
                )
                if ours and isinstance(ev.get("seq"), int):
                    have.add(ev["seq"])
        if torn:
            with open(path, "a", encoding="utf-8") as fh:
                fh.write("\n")
        return [e for e in self.stored if int(e["seq"]) not in have]

    def init_source(self) -> None:
        if self.video is not None:
            self.frames = open_source(str(self.video), self.cfg.fps)
        else:
            uri = self.source or self.cfg.source
            self.frames = open_source(
                uri,
                self.cfg.fps,
                base=self.cfg.path.parent,
                size=self.cfg.camera_size,
                lost_after_s=self.cfg.lost_after_s,
                retry_max_s=self.cfg.retry_max_s,
            )

    def init_detector(self) -> None:
        if self.detector == "labels":
            from vision.synth.labels import LabelDetector

            self.recognizer = LabelDetector.beside(self.video or Path(self.frames.name))
        else:
            self.recognizer = load_detector(self.cfg, self.model)

    def init_reader(self) -> None:
        self.reader = make_reader(self.cfg, self.recognizer)

    def init_referee(self) -> None:
        self.referee = match_referee(self.cfg)

    def init_node(self) -> None:
        """The node; a live camera resumed after a crash goes on from now (a file replays
        its frames up to the crash). With a store, evidence JPEGs are spooled under
        ``DATA/spool/<table>/`` and removed once the store holds them."""
        if self.hooks is not None:
            self._listeners.append(self.hooks)
        evidence_dir = self.evidence_dir
        if self.store is not None and evidence_dir is None:
            evidence_dir = self.store.data_dir / "spool" / self.cfg.table_id
            self._listeners.insert(1, NodeHooks(on_evidence=_unspool))
            if self.keep_evidence:
                self._listeners.insert(2, self.init_clips(evidence_dir))
        self.node = TableNode(
            self.cfg,
            self.reader,
            self.referee,
            chain_hooks(*self._listeners),
            keep_evidence=self.keep_evidence,
            evidence_dir=evidence_dir,
            resume=self.stored,
        )
        if self.stored and self.frames.live:
            self.node.continue_live()

    def init_clips(self, spool: Path) -> NodeHooks:
        """A clip (the seconds around the play, WebM) for every violation and referee
        prompt, chained as a ``clip`` media row (``tablescan.clips``)."""
        from tablescan.clips import ClipRecorder, store_clips

        reader = self.reader

        def mask(image: Any) -> Any:
            return reader.masked(image) if reader.calibration is not None else None

        assert self.store is not None
        self.clips = ClipRecorder(spool, store_clips(self.store, self.cfg.table_id), mask)
        self._closers.append(self.clips.flush)  # before the store closes (reverse order)
        return self.clips.hooks()

    def init_seats(self) -> None:
        if self.serial is None:
            return
        from tablescan.seat_buttons import SeatButtons

        self.seats = SeatButtons.open(self.node, self.serial)
        self._closers.append(self.seats.close)

    def init_presses(self) -> None:
        if self.presses is None:
            return
        from tablescan.recorded_presses import RecordedPresses, load_presses

        self.recorded = RecordedPresses(self.node, load_presses(self.presses))

    def init_live(self) -> None:
        """The latest masked frame, the node's health (the camera's with it, written at once
        when it is lost or back) and the table's layout, for the dashboard."""
        if self.data is None:
            return
        from evidence.live import LiveFiles
        from tablescan.live_share import LiveShare

        serial = self.seats.bridge.health if self.seats is not None else None
        camera = self.frames.health
        self.live = LiveShare(
            self.data,
            self.cfg.table_id,
            self.node,
            serial,
            camera,
            getattr(self.frames, "name", None),
        )
        self.node.hooks.on_frame = chain_hooks(
            self.node.hooks, NodeHooks(on_frame=self.live.on_frame)
        ).on_frame
        LiveFiles(self.data).put_layout(self.cfg.table_id, layout_json(self.cfg))
        self.live.write_health()

    def run(
        self,
        max_frames: int | None = None,
        speed: float = 0.0,
        each_frame: Callable[[], None] | None = None,
        idle: Callable[[], None] | None = None,
        progress: bool = True,
    ) -> NodeStats:
        """The source loop: every frame through the node, the hand finished at the end.
        ``each_frame()`` runs after every frame (after the seat controller's poll); while a
        live camera is lost, the source's ``on_idle`` polls the seats, refreshes the health
        file and calls ``idle()`` (the watchdog's tick). ``progress``: see ``run_source``."""
        steps: list[Callable[[], None]] = []
        if self.seats is not None:
            steps.append(self.seats.poll)
        if self.recorded is not None:
            steps.append(self.recorded.poll)
        if each_frame is not None:
            steps.append(each_frame)
        idle_steps: list[Callable[[], None]] = [self.seats.poll] if self.seats else []
        if self.live is not None:
            idle_steps.append(self.live.idle)
        if idle is not None:
            idle_steps.append(idle)
        if self.frames.live and idle_steps:

            def on_idle() -> None:
                for step in idle_steps:
                    step()

            self.frames.on_idle = on_idle

        def between() -> None:
            for step in steps:
                step()

        stats = run_source(
            self.node, self.frames, max_frames, speed, between if steps else None, progress
        )
        if self.seats is not None:
            self.seats.poll()  # the lights show the hand's end
        if self.clips is not None:
            self.clips.flush()  # the source ended: the clips still waiting get what there is
        return stats

    def stop(self) -> None:
        """Teardown, in reverse order of start-up."""
        while self._closers:
            self._closers.pop()()
