"""A node-like store writer, in its own process: replays a match record into the store the way
``TableNode`` with ``store_hooks`` writes it — each event, then the rulings its own referee
(``engine.games.referee_for``) gave on it; a read the record follows with a ``needs_referee``
has its rulings held until that doubt is written, and its violations go out provisional (as
``TableNode._release`` does). Prints ``ruled <n>`` (rulings stored) and ``done``.

    python -m tests.dashboard.node_writer RECORD.jsonl --data DIR --table T [--delay S]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

from engine.games import referee_for
from evidence import EvidenceStore


def replay(store: EvidenceStore, table: str, events: list[dict[str, Any]], delay: float) -> int:
    referee: Any = None
    stored = 0
    for i, ev in enumerate(events):
        store.append_event(table, ev)
        if ev["type"] == "match_start":
            referee = referee_for(ev)
        rulings = referee.feed(ev) if referee is not None else []
        nxt = events[i + 1] if i + 1 < len(events) else None
        doubted = nxt is not None and nxt["type"] == "needs_referee" and nxt["ref"] == ev["seq"]
        if doubted:  # the node writes the doubt before the rulings that rest on the read
            store.append_event(table, nxt)  # type: ignore[arg-type]
        for r in rulings:
            if doubted and r.get("kind") == "violation":
                r = {**r, "provisional": True}
            stored += store.append_ruling(table, r)
        if delay:
            time.sleep(delay)
    return stored


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.dashboard.node_writer")
    p.add_argument("record")
    p.add_argument("--data", required=True)
    p.add_argument("--table", required=True)
    p.add_argument("--delay", type=float, default=0.0)
    args = p.parse_args(argv)
    with open(args.record, encoding="utf-8") as f:
        events = [json.loads(line) for line in f if line.strip()]
    store = EvidenceStore(args.data)
    print(f"ruled {replay(store, args.table, events, args.delay)}", flush=True)
    store.close()
    print("done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
