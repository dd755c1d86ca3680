"""``tablescan export --match M [--hand H] -o bundle.zip``: one match (``TABLE`` for its latest,
``TABLE:N`` for the N-th) or one hand of it, as a zip with the record, rulings, referee actions,
evidence frames, the dispute report (``report.html``, ``report.pdf``) and a manifest of hashes
that ``tablescan verify bundle.zip`` checks."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from evidence import DEFAULT_DATA_DIR, EvidenceStore, StoreError
from evidence.export import MatchRef, export_bundle
from evidence.signing import key_id
from evidence.witness import WitnessError


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("export", help="export a match as a verifiable evidence bundle")
    p.add_argument("--match", required=True, help="TABLE (its latest match) or TABLE:N")
    p.add_argument("--hand", type=int, help="only this hand of the match")
    p.add_argument("-o", "--output", required=True, help="bundle.zip to write")
    p.add_argument("--lang", choices=("zh", "en"), default="zh", help="report language (zh)")
    p.add_argument("--violation", help="report on this violation id only (default: all)")
    p.add_argument("--no-report", action="store_true", help="leave out report.html and report.pdf")
    p.add_argument("--data", default=DEFAULT_DATA_DIR, help=f"data directory ({DEFAULT_DATA_DIR})")
    p.add_argument(
        "--desk", metavar="DESK_DATA_DIR", help="say in the report whether this desk witnessed"
    )
    p.set_defaults(func=run)


def desk_witness(desk: str, table: str, head: dict[str, Any] | None) -> dict[str, Any] | None:
    """The desk's witness of exactly this head (rows and tip), for the report; else None."""
    from evidence.witness import witnessed

    if head is None:
        return None
    seen = witnessed(desk, table)
    for h in seen["heads"]:
        if h["rows"] == head.get("rows") and h["tip"] == head.get("tip"):
            return {"desk": seen["desk_key_id"], "rows": h["rows"], "at": h["received_at"]}
    return None


def run(args: argparse.Namespace) -> int:
    if not (EvidenceStore.exists(args.data)):
        print(f"tablescan export: no evidence store in {args.data}", file=sys.stderr)
        return 2
    with EvidenceStore(args.data) as store:
        try:
            witness = None
            if args.desk:
                table = MatchRef.parse(args.match).table
                witness = desk_witness(args.desk, table, store.signed_head())
            manifest = export_bundle(
                store,
                args.match,
                args.output,
                hand=args.hand,
                report=not args.no_report,
                lang=args.lang,
                violation=args.violation,
                witness=witness,
            )
        except (StoreError, WitnessError) as e:
            print(f"tablescan export: {e}", file=sys.stderr)
            return 2
    n_media = sum(1 for name in manifest["files"] if name.startswith("media/"))
    print(
        f"wrote {args.output}: match {manifest['match']}, seqs {manifest['seqs'][0]}.."
        f"{manifest['seqs'][1]}, {n_media} evidence files, {len(manifest['media_pruned'])} pruned"
        + (", report.html + report.pdf" if "report.pdf" in manifest["files"] else "")
        + f"; node key {key_id(manifest['public_key'])}"
        + (f", witnessed by desk {witness['desk']}" if witness else "")
    )
    return 0
