"""``tablescan verify [--data DIR] [bundle.zip]``: check the store's hash chain and every media
file, or an export bundle; names the first broken link. Exit 0 when intact, 1 otherwise."""

from __future__ import annotations

import argparse

from evidence import DEFAULT_DATA_DIR
from evidence.verify import verify_bundle, verify_store


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("verify", help="verify the evidence store or an export bundle")
    p.add_argument("bundle", nargs="?", help="an export bundle (.zip) to check instead")
    p.add_argument("--data", default=DEFAULT_DATA_DIR, help=f"data directory ({DEFAULT_DATA_DIR})")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    report = verify_bundle(args.bundle) if args.bundle else verify_store(args.data)
    print(report.summary())
    return 0 if report.ok else 1
