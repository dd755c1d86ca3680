"""``tablescan run --config table.toml``: the live table node (camera → record → referee)."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tablescan.config import TableConfig
from tablescan.node import Detector, NodeHooks, TableNode
from vision.sources import Frame

if TYPE_CHECKING:
    from evidence.store import EvidenceStore
    from firmware_bridge.bridge import SeatBridge

log = logging.getLogger(__name__)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("run", help="run the live table node from the configured camera")
    p.add_argument("--config", type=Path, required=True, help="the table's table.toml")
    p.add_argument("--source", default=None, help="override the config's source uri")
    p.add_argument("-o", "--output", type=Path, default=None, help="append the record here")
    p.add_argument("--model", type=Path, default=None)
    p.add_argument(
        "--detector",
        choices=("model", "labels"),
        default="model",
        help="'labels': a rendered video's own labels stand in for the recognizer (testing)",
    )
    p.add_argument("--max-frames", type=int, default=None, help="stop after N frames")
    p.add_argument(
        "--speed",
        type=float,
        default=0.0,
        help="pace a video file at this many times real time (default 0: as fast as it reads)",
    )
    p.add_argument(
        "--serial",
        default=None,
        metavar="URL",
        help="the seat controller (buttons, LEDs, buzzer): a /dev/serial/by-id/... path or a "
        "pyserial URL such as virtualseat://t1",
    )
    p.add_argument(
        "--data",
        type=Path,
        default=None,
        help="evidence store folder: chain events, rulings and evidence JPEGs there, and share "
        "the live frame and health with the dashboard",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from engine.record import dumps_event
    from tablescan.config import ConfigError, load_config
    from tablescan.node import load_detector, run_source
    from vision.calibration import CalibrationError
    from vision.sources import SourceError, open_source

    try:
        cfg = load_config(args.config)
        if args.data:
            cfg = dashboard_calibration(args.data, cfg)
    except ConfigError as e:
        log.error("%s", e)
        return 2
    stored: list[dict[str, Any]] = []
    if args.data:
        from evidence.lock import TableLocked

        try:
            hooks, closers, store = store_wiring(args.data, cfg)
        except TableLocked as e:  # another node records this table here: never interleave
            log.error("%s", e)
            return 2
        stored = store.events(cfg.table_id)  # a crash left events: resume after them
        ended = [e for e in stored if e["type"] == "hand_end"]
        if ended:  # one hand per run: a finished one is never resumed or written into
            for close in closers:
                close()
            log.error(
                "%s: table %s already holds a finished hand (hand_end at seq %s); "
                "record the next hand under another table id or data folder",
                args.data,
                cfg.table_id,
                ended[0]["seq"],
            )
            return 2
    else:
        hooks, closers = NodeHooks(), []
    path = args.output or cfg.path.with_name(cfg.table_id + ".jsonl")
    with open(path, "a", encoding="utf-8") as out:
        store_event = hooks.on_event

        def on_event(ev: dict[str, Any]) -> None:
            if store_event is not None:  # durable first: the store is the acknowledged record
                store_event(ev)
            line = dumps_event(ev)
            out.write(line + "\n")
            out.flush()
            print(line, flush=True)

        hooks.on_event = on_event

        try:
            source = open_source(args.source or cfg.source, cfg.fps, base=cfg.path.parent)
            detector: Detector
            if args.detector == "labels":
                from vision.render_match import LabelDetector

                detector = LabelDetector.beside(Path(source.name))
            else:
                detector = load_detector(cfg, args.model)
            node = TableNode(cfg, detector, hooks, resume=stored)
            if stored and getattr(source, "live", False):
                node.continue_live()  # a camera goes on from now; a file replays to the crash
            between = None
            if args.serial:
                seats = SeatButtons.open(node, args.serial)
                closers.insert(0, seats.close)
                between = seats.poll
            if args.data:
                serial = seats.bridge.health if args.serial else None
                hooks.on_frame = live_frames(args.data, cfg.table_id, node, serial)
            stats = run_source(
                node, source, max_frames=args.max_frames, speed=args.speed, between=between
            )
            if between is not None:
                between()  # the lights show the hand's end
        except (SourceError, CalibrationError, FileNotFoundError, OSError) as e:
            log.error("%s", e)
            return 1
        finally:
            for close in closers:
                close()
    log.info("stopped: %s", stats.as_dict())
    return 0 if not stats.errors else 1


def store_wiring(
    data: Path, cfg: TableConfig
) -> tuple[NodeHooks, list[Callable[[], None]], EvidenceStore]:
    """Events, rulings and evidence JPEGs chained into the evidence store under ``data``."""
    from evidence.store import EvidenceStore
    from tablescan.store_hooks import store_hooks

    store = EvidenceStore(data)
    hooks = NodeHooks(**store_hooks(store, cfg.table_id))
    return hooks, [store.close], store


def dashboard_calibration(data: Path, cfg: TableConfig) -> TableConfig:
    """Table corners entered on the dashboard's calibration page replace the config's."""
    from evidence.live import LiveFiles
    from tablescan.config import ConfigError

    saved = LiveFiles(data).calibration(cfg.table_id)
    if not saved or saved.get("method") != "points":
        return cfg
    pts = saved.get("points")
    if not (isinstance(pts, list) and len(pts) == 4):
        raise ConfigError(f"{data}/live/{cfg.table_id}/calibration.json: points: expected 4")
    cal = dataclasses.replace(
        cfg.calibration, method="points", points=tuple((float(x), float(y)) for x, y in pts)
    )
    log.info("using the dashboard's calibration points for table %s", cfg.table_id)
    return dataclasses.replace(cfg, calibration=cal)


@dataclass
class SeatButtons:
    """The seat controller in the node: presses become ``pass``/``button`` record events on the
    node's own path (seq, store, referee), and the referee's state drives the lights."""

    node: TableNode
    bridge: SeatBridge
    shown: int = -1  # node.judged when the lights were last set

    @classmethod
    def open(cls, node: TableNode, url: str) -> SeatButtons:
        from firmware_bridge.bridge import SeatBridge

        return cls(node, SeatBridge(url, seats=len(node.cfg.seats)).start())

    def poll(self) -> None:
        """Take the presses that came in, then push the lights if the referee moved on. While
        a resumed node replays its video, presses wait (the referee is behind)."""
        if self.node.catching_up:
            return
        for body in self.bridge.take_events(lambda _arrived: self.node.t_now):
            self.node.external(body)
        if self.node.judged == self.shown or self.node.referee is None:
            return
        try:
            state = self.node.referee.state()
        except Exception as e:  # the lights wait; the camera keeps running
            self.node.stats.errors["referee_state"] += 1
            log.error("referee state failed: %s", e)
            return
        self.shown = self.node.judged
        self.bridge.show(state)

    def close(self) -> None:
        self.bridge.stop()


def live_frames(
    data: Path,
    table: str,
    node: TableNode,
    serial: Callable[[], dict[str, Any]] | None = None,
) -> Callable[[Frame], None]:
    """Share the latest masked frame (2 per second) and the node's health, with the seat
    controller's link (``serial``: state, resend counters), with the dashboard."""
    import cv2

    from evidence.live import LiveFiles

    live = LiveFiles(data)
    last = [0.0]

    def on_frame(frame: Frame) -> None:
        now = time.monotonic()
        if now - last[0] < 0.5 or node.calibration is None:
            return
        last[0] = now
        ok, jpeg = cv2.imencode(".jpg", node.masked(frame.image), [cv2.IMWRITE_JPEG_QUALITY, 80])
        if ok:
            live.put_frame(table, jpeg.tobytes())
        st = node.stats
        live.put_health(
            table,
            {
                "fps": st.frames / max(1e-6, frame.t) if frame.t else None,
                "model_ms": st.read_ms[-1] if st.read_ms else None,
                "queue": 0,
                "needs_referee": st.needs_referee,
                "errors": dict(st.errors),
                **({"serial": serial()} if serial is not None else {}),
            },
        )

    return on_frame
