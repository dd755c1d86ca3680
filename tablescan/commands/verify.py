"""``tablescan verify [--data DIR] [bundle.zip]``: check the store's hash chain and every media
file, or an export bundle; names the first broken link. Exit 0 when intact, 1 otherwise."""

from __future__ import annotations

import argparse

from evidence import DEFAULT_DATA_DIR
from evidence.signing import key_id
from evidence.verify import VerifyReport, verify_bundle, verify_store
from tablescan.i18n import _, add_lang_option, choose, use


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("verify", help="verify the evidence store or an export bundle")
    p.add_argument("bundle", nargs="?", help="an export bundle (.zip) to check instead")
    p.add_argument("--data", default=DEFAULT_DATA_DIR, help=f"data directory ({DEFAULT_DATA_DIR})")
    add_lang_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    report = verify_bundle(args.bundle) if args.bundle else verify_store(args.data)
    use(choose(getattr(args, "lang", None)))
    print(summary(report))
    return 0 if report.ok else 1


def summary(report: VerifyReport) -> str:
    """The report's summary in the chosen language (each problem's place and text as found)."""
    head = _(
        "{source}: {rows} chained rows, {media} media files checked, {pruned} pruned by retention",
        source=report.source,
        rows=report.rows,
        media=report.media_checked,
        pruned=report.media_pruned,
    )
    if report.key:
        head += _(
            ", signed to row {n} by node key {key}", n=report.signed_rows, key=key_id(report.key)
        )
    if report.ok:
        return head + _(": OK")
    lines = [head + _(": {n} problem(s); first broken link:", n=len(report.problems))]
    lines += [f"  {p}" for p in report.problems]
    return "\n".join(lines)
