"""``tablescan witness``: what the hall desk witnessed, and pinning a node's key there.

    tablescan witness show --data DESK_DATA --table T [--upto N] [--json]
    tablescan witness enrol --data DESK_DATA --table T --public-key HEX

``show`` answers "what did the desk witness for table T up to row N": the pinned node key,
every signed head with the desk's receive time, the alarms (exit 1 when there is any).
``enrol`` pins a table's key from its set-up (``tablescan key`` prints it on the table) before
the node first shows up; a table already pinned to another key is refused (exit 1).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from evidence import DEFAULT_DATA_DIR


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("witness", help="what the hall desk witnessed; pin a node's key there")
    verbs = p.add_subparsers(dest="verb", required=True)
    show = verbs.add_parser("show", help="the heads witnessed for one table")
    show.add_argument("--data", default=DEFAULT_DATA_DIR, help="the desk's data directory")
    show.add_argument("--table", required=True, help="table id")
    show.add_argument("--upto", type=int, help="only heads up to this row")
    show.add_argument("--json", action="store_true", help="the JSON document")
    show.set_defaults(func=run_show)
    enrol = verbs.add_parser("enrol", help="pin a table's node key (from its set-up)")
    enrol.add_argument("--data", default=DEFAULT_DATA_DIR, help="the desk's data directory")
    enrol.add_argument("--table", required=True, help="table id")
    enrol.add_argument("--public-key", required=True, help="the node's public key (64 hex)")
    enrol.add_argument("--key-dir", help="where the desk's key lives (evidence.keys)")
    enrol.set_defaults(func=run_enrol)


def run_show(args: argparse.Namespace) -> int:
    from evidence.witness import WitnessError, witnessed

    try:
        seen = witnessed(args.data, args.table, args.upto)
    except (OSError, WitnessError) as e:
        print(f"tablescan witness: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(seen, indent=2, sort_keys=True))
        return 1 if seen["alarms"] else 0
    if seen["key"] is None:
        print(f"table {args.table}: the desk at {args.data} never saw it")
        return 1
    print(
        f"table {args.table}: node key {seen['key_id']} (pinned: {seen['enrolled_by']}, "
        f"{_when(seen['enrolled_at'])}); desk key {seen['desk_key_id']}"
    )
    for h in seen["heads"]:
        print(f"  row {h['rows']}  tip {h['tip'][:16]}…  received {_when(h['received_at'])}")
    for a in seen["alarms"]:
        print(f"  ALARM {_when(a['received_at'])}: {a['why']}")
    last = seen["last"]
    print(f"witnessed to row {last['rows'] if last else '–'}, {len(seen['alarms'])} alarm(s)")
    return 1 if seen["alarms"] else 0


def run_enrol(args: argparse.Namespace) -> int:
    from evidence.signing import key_id
    from evidence.witness import WitnessError, WitnessLog

    try:
        public = args.public_key.strip().lower()
        if len(public) != 64:
            raise ValueError(f"public key {args.public_key!r}: expected 64 hex digits")
        WitnessLog(args.data, key_dir=args.key_dir).enrol(args.table, public, by="enrolled")
    except (ValueError, OSError) as e:
        print(f"tablescan witness: {e}", file=sys.stderr)
        return 2 if not isinstance(e, WitnessError) else 1
    print(f"table {args.table}: node key {key_id(public)} pinned at the desk {args.data}")
    return 0


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at))
