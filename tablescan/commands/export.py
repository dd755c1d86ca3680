"""``tablescan export --match M [--hand H] -o bundle.zip``: one match (``TABLE`` for its latest,
``TABLE:N`` for the N-th) or one hand of it, as a zip with the record, rulings, referee actions,
evidence frames, the dispute report (``report.html``, ``report.pdf``) and a manifest of hashes
that ``tablescan verify bundle.zip`` checks."""

from __future__ import annotations

import argparse
import sys

from evidence import DEFAULT_DATA_DIR, EvidenceStore, StoreError
from evidence.export import export_bundle


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("export", help="export a match as a verifiable evidence bundle")
    p.add_argument("--match", required=True, help="TABLE (its latest match) or TABLE:N")
    p.add_argument("--hand", type=int, help="only this hand of the match")
    p.add_argument("-o", "--output", required=True, help="bundle.zip to write")
    p.add_argument("--lang", choices=("zh", "en"), default="zh", help="report language (zh)")
    p.add_argument("--violation", help="report on this violation id only (default: all)")
    p.add_argument("--no-report", action="store_true", help="leave out report.html and report.pdf")
    p.add_argument("--data", default=DEFAULT_DATA_DIR, help=f"data directory ({DEFAULT_DATA_DIR})")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not (EvidenceStore.exists(args.data)):
        print(f"tablescan export: no evidence store in {args.data}", file=sys.stderr)
        return 2
    with EvidenceStore(args.data) as store:
        try:
            manifest = export_bundle(
                store,
                args.match,
                args.output,
                hand=args.hand,
                report=not args.no_report,
                lang=args.lang,
                violation=args.violation,
            )
        except StoreError as e:
            print(f"tablescan export: {e}", file=sys.stderr)
            return 2
    n_media = sum(1 for name in manifest["files"] if name.startswith("media/"))
    print(
        f"wrote {args.output}: match {manifest['match']}, seqs {manifest['seqs'][0]}.."
        f"{manifest['seqs'][1]}, {n_media} evidence files, {len(manifest['media_pruned'])} pruned"
        + (", report.html + report.pdf" if "report.pdf" in manifest["files"] else "")
    )
    return 0
