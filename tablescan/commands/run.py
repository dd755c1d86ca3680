"""``tablescan run --config table.toml``: the live table node (camera → record → referee)."""

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
    p.add_argument("--max-frames", type=int, default=None, help="stop after N frames")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from engine.record import dumps_event
    from tablescan.config import ConfigError, load_config
    from tablescan.node import NodeHooks, TableNode, load_detector, run_source
    from vision.calibration import CalibrationError
    from vision.sources import SourceError, open_source

    try:
        cfg = load_config(args.config)
    except ConfigError as e:
        log.error("%s", e)
        return 2
    path = args.output or cfg.path.with_name(cfg.table_id + ".jsonl")
    with open(path, "a", encoding="utf-8") as out:

        def on_event(ev: dict[str, object]) -> None:
            line = dumps_event(ev)
            out.write(line + "\n")
            out.flush()
            print(line, flush=True)

        try:
            detector = load_detector(cfg, args.model)
            source = open_source(args.source or cfg.source, cfg.fps, base=cfg.path.parent)
            node = TableNode(cfg, detector, NodeHooks(on_event=on_event))
            stats = run_source(node, source, max_frames=args.max_frames)
        except (SourceError, CalibrationError, FileNotFoundError, OSError) as e:
            log.error("%s", e)
            return 1
    log.info("stopped: %s", stats.as_dict())
    return 0 if not stats.errors else 1
