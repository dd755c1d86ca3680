"""A minimal store-writing process: replays a match record into the store, acknowledging each
event on stdout (``ack <seq>``) only after ``append_event`` returned (the event is durable).

It is what the crash test kills with SIGKILL and restarts: on restart it re-sends the record
from the start, and the store's idempotent re-send turns already stored events into no-ops, so
nothing acknowledged is lost and nothing is stored twice. Usage::

    python -m tests.store.writer --data DIR --table T RECORD.jsonl [--delay 0.01]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence

from evidence.lock import TableLocked
from evidence.store import DEFAULT_DATA_DIR, EvidenceStore


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.store.writer")
    p.add_argument("record", help="match record (JSON Lines) to replay")
    p.add_argument("--data", default=DEFAULT_DATA_DIR)
    p.add_argument("--table", required=True)
    p.add_argument("--delay", type=float, default=0.0, help="seconds between events")
    args = p.parse_args(argv)
    store = EvidenceStore(args.data)
    try:
        store.lock_table(args.table)  # a table node's writer: one per table and folder
    except TableLocked as e:
        print(f"writer: {e}", file=sys.stderr)
        return 2
    resumed_from = store.last_seq(args.table)
    print(f"resume {resumed_from}", flush=True)
    with open(args.record, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            seq = store.append_event(args.table, json.loads(line))
            if seq > resumed_from:
                store.add_media(f"frame {args.table} {seq}".encode(), table=args.table, seq=seq)
            print(f"ack {seq}", flush=True)
            if args.delay:
                time.sleep(args.delay)
    store.close()
    print("done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
