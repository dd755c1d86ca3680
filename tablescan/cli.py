"""``tablescan`` command line. Each sub-command lives in ``tablescan/commands/<name>.py``.

A command module exposes ``register(subparsers)``, which adds its parser and sets ``func`` to a
callable taking the parsed namespace and returning the exit code. Modules are discovered, so
adding a command touches no shared file.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import logging.handlers
import pkgutil
import sys
from collections.abc import Sequence
from pathlib import Path

from tablescan import __version__, commands

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
LOG_BYTES = 5 * 1024 * 1024
LOG_KEEP = 5


def log_to_file(path: Path) -> logging.Handler:
    """Also log to ``path``, rotated at 5 MB with 5 old files kept (a node runs for weeks)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.handlers.RotatingFileHandler(
        path, maxBytes=LOG_BYTES, backupCount=LOG_KEEP, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    logging.getLogger().addHandler(handler)
    return handler


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tablescan", description="Referee's eye for physical card-game tournaments."
    )
    parser.add_argument("--version", action="version", version=f"tablescan {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO, format=LOG_FORMAT)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        sys.stderr.close()
        return 0
