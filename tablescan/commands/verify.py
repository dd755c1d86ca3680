"""``tablescan verify [--data DIR] [bundle.zip] [--key KEY_ID] [--desk DESK_DATA_DIR]``: check
the store's hash chain and every media file, or an export bundle, and what its key was checked
against; names the first broken link.

Exit 0: intact and trusted (its key is the pinned ``--key``, or the key the desk pinned, with
a chain that agrees with every head the desk witnessed); 1: broken or contradicted; 3: intact
but its key checked against nothing (no ``--key``, no ``--desk``); 2: bad arguments."""

from __future__ import annotations

import argparse
import sys

from evidence import DEFAULT_DATA_DIR
from evidence.signing import key_id, parse_key_id
from evidence.verify import VerifyReport, pin_key, verify_bundle, verify_store
from evidence.witness import check_report
from tablescan.i18n import _, add_lang_option, choose, use


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("verify", help="verify the evidence store or an export bundle")
    p.add_argument("bundle", nargs="?", help="an export bundle (.zip) to check instead")
    p.add_argument("--data", default=DEFAULT_DATA_DIR, help=f"data directory ({DEFAULT_DATA_DIR})")
    p.add_argument("--key", metavar="KEY_ID", help="pin the node key (the 16-hex key id printed)")
    p.add_argument(
        "--desk", metavar="DESK_DATA_DIR", help="check against the desk's pinned key and witness"
    )
    add_lang_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    use(choose(getattr(args, "lang", None)))
    pin = None
    if args.key is not None:
        try:
            pin = parse_key_id(args.key)
        except ValueError as e:
            print(f"tablescan verify: --key: {e}", file=sys.stderr)
            return 2
    report = verify_bundle(args.bundle) if args.bundle else verify_store(args.data)
    if pin is not None:
        pin_key(report, pin)
    if args.desk is not None:
        check_report(report, args.desk)
    print(summary(report))
    return report.exit_code


def summary(report: VerifyReport) -> str:
    """The report's summary in the chosen language (each problem's place and text as found)."""
    span = (  # a bundle holds only its match's rows: which ids they are
        _(" (row ids {first}–{last})", first=report.first_row, last=report.last_row)
        if report.first_row is not None
        else ""
    )
    head = _(
        "{source}: {rows} chained rows checked{span}, {media} media files checked, {pruned}"
        " pruned by retention",
        source=report.source,
        rows=report.rows,
        span=span,
        media=report.media_checked,
        pruned=report.media_pruned,
    )
    if report.key:  # the head signs the node's whole chain, other tables' rows included
        head += _(
            "; node key {key} signed the node's chain up to row {n}",
            n=report.signed_rows,
            key=key_id(report.key),
        )
    if report.ok and report.pinned == "key":
        return head + _(" (the pinned key)") + _(": OK")
    if report.ok and report.pinned == "desk":
        return (
            head
            + _(" (the key the desk pinned; witnessed to row {n})", n=report.witnessed_rows)
            + _(": OK")
        )
    if report.ok:
        return head + _(
            ": intact, but its key was checked against nothing (no --key, no --desk): "
            "not proof of who wrote it"
        )
    lines = [head + _(": {n} problem(s); first broken link:", n=len(report.problems))]
    lines += [f"  {p}" for p in report.problems]
    return "\n".join(lines)
