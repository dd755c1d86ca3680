"""``tablescan replay VIDEO --config table.toml --profile ID -o match.jsonl``.

The live node's code path, fed from a file as fast as the CPU allows.
"""

from __future__ import annotations

import argparse
import dataclasses
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
    p.add_argument("--evidence", type=Path, default=None, help="evidence JPEG folder")
    p.add_argument("--no-evidence", action="store_true", help="keep no evidence JPEGs")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from engine.record import write_record
    from tablescan.config import ConfigError, load_config
    from tablescan.node import Detector, TableNode, load_detector, run_source
    from vision.calibration import CalibrationError
    from vision.sources import SourceError, open_source

    try:
        cfg = load_config(args.config)
    except ConfigError as e:
        log.error("%s", e)
        return 2
    if args.profile:
        cfg = dataclasses.replace(cfg, profile=args.profile)
    detector: Detector
    try:
        if args.detector == "labels":
            from vision.render_match import LabelDetector

            detector = LabelDetector.beside(args.video)
        else:
            detector = load_detector(cfg, args.model)
        source = open_source(str(args.video), cfg.fps)
        node = TableNode(
            cfg,
            detector,
            keep_evidence=not args.no_evidence,
            evidence_dir=args.evidence or args.output.with_name(args.output.stem + ".evidence"),
        )
        stats = run_source(node, source)
    except (SourceError, CalibrationError, FileNotFoundError, OSError) as e:
        log.error("%s", e)
        return 1
    write_record(node.events, args.output)
    summary = {"record": str(args.output), **stats.as_dict()}
    print(json.dumps(summary, indent=None))
    return 0 if not stats.errors else 1
