"""``tablescan run --config table.toml``: the live table node (camera → record → referee).

The start-up steps are ``tablescan.wiring.TableApp``'s. With ``--data`` everything the node
writes lives in the data folder: the record is the store (a JSON-lines copy only with ``-o``),
evidence JPEGs are spooled under ``DATA/spool/<table>/``, logs rotate under ``DATA/logs/``.
Under systemd (``scripts/tablescan-table@.service``, ``Type=notify``) the node says READY once
started and ticks the watchdog every frame and while the camera is lost.
"""

from __future__ import annotations

import argparse
import logging
import signal
from pathlib import Path
from types import FrameType

log = logging.getLogger(__name__)


class Stopped(BaseException):  # not an Exception: no `except Exception` swallows it
    """SIGTERM (``systemctl stop``): leave the loop, tear down in order, keep the hand open."""


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("run", help="run the live table node from the configured camera")
    p.add_argument("--config", type=Path, required=True, help="the table's table.toml")
    p.add_argument("--source", default=None, help="override the config's source uri")
    p.add_argument(
        "-o",
        "--output",
        type=Path,
        default=None,
        help="append a JSON-lines copy of the record here (without --data: default "
        "<table>.jsonl beside the config)",
    )
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
        "--presses",
        type=Path,
        default=None,
        help="recorded seat presses to feed in, as the video reaches their times (default: a "
        "rendered match's NAME.presses.jsonl beside a video-file source); a Gouji deal's start "
        "and end need the seat presses, from this file or --serial",
    )
    p.add_argument(
        "--data",
        type=Path,
        default=None,
        help="evidence store folder: chain events, rulings and evidence JPEGs there, share "
        "the live frame and health with the dashboard, and log to DATA/logs/",
    )
    p.set_defaults(func=run)


def _log_name(config: Path) -> str:
    """The table id when the config names one (the file's stem otherwise): one log per node."""
    from tablescan.config import ConfigError, load_config

    try:
        return load_config(config).table_id
    except ConfigError:
        return config.stem or "tablescan"


def _presses(args: argparse.Namespace) -> Path | None:
    """``--presses``, else the presses file beside a video-file source (as ``replay`` finds it);
    a table whose deals start in the seat areas (Gouji) with neither that nor a seat
    controller is warned about: without presses the node cannot see where a deal starts and
    ends, and every play waits for a referee."""
    from engine.games import find_game
    from tablescan.config import ConfigError, load_config
    from tablescan.recorded_presses import presses_beside

    if args.presses is not None:
        return Path(args.presses)
    try:
        cfg = load_config(args.config)
    except ConfigError:
        return None  # start() reports it
    uri = args.source or cfg.source
    found = None
    if "://" not in uri and not uri.isdigit() and not uri.startswith("/dev/"):
        video = Path(uri) if Path(uri).is_absolute() else cfg.path.parent / uri
        if video.is_file():
            found = presses_beside(video)
    if found is not None:
        log.info("seat presses from %s", found)
    game = find_game(cfg.game)
    if found is None and args.serial is None and game.new_deal == "seat_areas":
        log.warning(  # a deal that starts in the seat areas needs the seats' presses to be seen
            "table %s (%s): no seat presses (no --serial, no --presses, no %s beside the "
            "video): the node cannot see a deal start or end, and each play waits for a referee",
            cfg.table_id,
            game.name.capitalize(),
            "NAME.presses.jsonl",
        )
    return found


def _on_sigterm(_sig: int, _frame: FrameType | None) -> None:
    raise Stopped


def run(args: argparse.Namespace) -> int:
    from tablescan.cli import log_to_file
    from tablescan.config import ConfigError
    from tablescan.watchdog import Notifier
    from tablescan.wiring import StartError, TableApp
    from vision.calibration import CalibrationError
    from vision.sources import SourceError

    handler = None
    if args.data is not None:
        try:
            handler = log_to_file(args.data / "logs" / f"{_log_name(args.config)}.log")
        except OSError as e:
            log.error("%s: cannot log there: %s", args.data, e.strerror or e)
            return 1
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    notifier = Notifier()
    app = TableApp(
        args.config,
        source=args.source,
        detector=args.detector,
        model=args.model,
        data=args.data,
        append_record=True,
        record=args.output,
        serial=args.serial,
        presses=_presses(args),
    )
    stats = None

    def tick() -> None:
        notifier.tick()

    try:
        app.start()
        notifier.ready(f"table {app.cfg.table_id}: reading {app.frames.name}")
        stats = app.run(
            max_frames=args.max_frames,
            speed=args.speed,
            each_frame=tick,
            idle=tick,
        )
        log.info("stopped: %s", stats.as_dict())
    except Stopped:
        log.info("stopped by SIGTERM; the hand stays open (a restart resumes it)")
    except (ConfigError, StartError) as e:
        log.error("%s", e)
        return 2
    except (SourceError, CalibrationError, FileNotFoundError, OSError) as e:
        log.error("%s", e)
        return 1
    finally:
        notifier.stopping()
        app.stop()
        signal.signal(signal.SIGTERM, previous)
        if handler is not None:
            logging.getLogger().removeHandler(handler)
            handler.close()
    return 0 if stats is None or not stats.errors else 1
