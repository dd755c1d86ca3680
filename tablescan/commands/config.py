"""``tablescan config check FILE``: check a table.toml against the schema, one line per problem."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("config", help="check a table.toml (docs/table-config.md)")
    inner = p.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    check = inner.add_parser("check", help="check FILE; print file:line: key: why per problem")
    check.add_argument("file", type=Path, metavar="FILE")
    check.set_defaults(func=check_file)


def check_file(args: argparse.Namespace) -> int:
    from tablescan.config import ConfigError, load_config

    try:
        cfg = load_config(args.file)
    except ConfigError as e:
        print(e, file=sys.stderr)
        return 2
    from tablescan.wiring import resolve_model

    if cfg.model is not None and resolve_model(cfg.model) is None:  # a node would fail at start
        print(f"{cfg.path}: model.path: no such file {str(cfg.model)!r}", file=sys.stderr)
        return 2
    print(
        f"{cfg.path}: ok: table {cfg.table_id}, {cfg.game} ({cfg.profile}), "
        f"{len(cfg.seats)} seats, calibration {cfg.calibration.method}, source {cfg.source}"
    )
    return 0
