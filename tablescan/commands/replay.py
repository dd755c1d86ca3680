"""``tablescan replay VIDEO --config table.toml --profile ID -o match.jsonl``.

The live node's code path (``tablescan.wiring.TableApp``), fed from a file as fast as the CPU
allows.
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

log = logging.getLogger(__name__)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("replay", help="judge a recorded table video into a match record")
    p.add_argument("video", type=Path, help="video file (or a folder of images)")
    p.add_argument("--config", type=Path, required=True, help="the table's table.toml")
    p.add_argument("--profile", default=None, help="rule profile id (default: the config's)")
    p.add_argument("-o", "--output", type=Path, default=Path("match.jsonl"))
    p.add_argument("--model", type=Path, default=None, help="recognizer ONNX (default: config)")
    p.add_argument(
        "--detector",
        choices=("model", "labels"),
        default="model",
        help="'labels' reads a rendered video's own labels (measures the pipeline alone)",
    )
    p.add_argument(
        "--presses",
        type=Path,
        default=None,
        help="seat presses to feed in (default: a rendered match's NAME.presses.jsonl beside it)",
    )
    p.add_argument("--evidence", type=Path, default=None, help="evidence JPEG folder")
    p.add_argument("--no-evidence", action="store_true", help="keep no evidence JPEGs")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from engine.record import write_record
    from tablescan.config import ConfigError
    from tablescan.recorded_presses import presses_beside
    from tablescan.wiring import TableApp
    from vision.calibration import CalibrationError
    from vision.sources import SourceError

    presses = args.presses or presses_beside(args.video)
    if presses is not None:
        log.info("seat presses from %s", presses)
    app = TableApp(
        args.config,
        profile=args.profile,
        video=args.video,
        detector=args.detector,
        model=args.model,
        keep_evidence=not args.no_evidence,
        presses=presses,
        evidence_dir=args.evidence or args.output.with_name(args.output.stem + ".evidence"),
    )
    try:
        app.start()
        stats = app.run()
    except ConfigError as e:
        log.error("%s", e)
        return 2
    except (SourceError, CalibrationError, FileNotFoundError, OSError, ValueError) as e:
        log.error("%s", e)
        return 1
    finally:
        app.stop()
    write_record(app.node.events, args.output)
    summary = {"record": str(args.output), **stats.as_dict()}
    print(json.dumps(summary, indent=None))
    return 0 if not stats.errors else 1
