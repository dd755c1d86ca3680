"""``tablescan run --config table.toml``: the live table node (camera → record → referee).

The start-up steps are ``tablescan.wiring.TableApp``'s."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

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
    from tablescan.config import ConfigError
    from tablescan.wiring import StartError, TableApp
    from vision.calibration import CalibrationError
    from vision.sources import SourceError

    app = TableApp(
        args.config,
        source=args.source,
        detector=args.detector,
        model=args.model,
        data=args.data,
        append_record=True,
        record=args.output,
        serial=args.serial,
    )
    try:
        app.start()
        stats = app.run(max_frames=args.max_frames, speed=args.speed)
    except (ConfigError, StartError) as e:
        log.error("%s", e)
        return 2
    except (SourceError, CalibrationError, FileNotFoundError, OSError) as e:
        log.error("%s", e)
        return 1
    finally:
        app.stop()
    log.info("stopped: %s", stats.as_dict())
    return 0 if not stats.errors else 1
