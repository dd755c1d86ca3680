"""Simulated table nodes (no camera) for the hall's tests and bench: each appends a valid
record (a ``match_start`` then ``play`` events, a ruling every few events) to its own store at
a pace, with a real ``Publisher`` beside it. A killed process resumes where its store ends.

``python -m hall.simnode --root DIR --broker URL --tables t1,t2 --events 100`` runs until
SIGTERM (the publishers must stay up to answer the desk's resend requests) and writes
``DIR/<table>/done`` when a table has appended all its events.
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

from evidence.store import EvidenceStore
from hall.config import HallConfig
from hall.publish import Publisher

SUITS = "SHCD"
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")


def sim_event(seq: int) -> dict[str, Any]:
    """Event ``seq`` of a simulated record (valid against the record schema)."""
    if seq == 0:
        return {
            "v": 1,
            "seq": 0,
            "t": 0.0,
            "type": "match_start",
            "game": "tractor",
            "profile": "sim",
            "seats": ["N", "E", "S", "W"],
            "teams": [[0, 2], [1, 3]],
            "levels": ["2", "2"],
        }
    card = RANKS[seq % len(RANKS)] + SUITS[(seq // len(RANKS)) % 4]
    return {"v": 1, "seq": seq, "t": float(seq), "type": "play", "seat": seq % 4, "cards": [card]}


def sim_ruling(seq: int) -> dict[str, Any]:
    return {"kind": "note", "at_seq": seq, "note": f"simulated ruling after seq {seq}"}


def append_record(
    store: EvidenceStore,
    table: str,
    events: int,
    *,
    pace_s: float = 0.0,
    rulings_every: int = 0,
    wake: Any = None,
    stop: threading.Event | None = None,
) -> None:
    """Append seqs after what the store holds up to ``events - 1`` (resumes after a kill).

    A resumed node first chains the rulings a kill kept from the store (killed between an
    event and its ruling), as ``tablescan`` node's ``chain_missing_rulings`` does; the store
    keeps a ruling once."""
    rng = random.Random(table)
    last = store.last_seq(table)
    if rulings_every:
        for seq in range(rulings_every, last + 1, rulings_every):
            store.append_ruling(table, sim_ruling(seq))
    for seq in range(last + 1, events):
        if stop is not None and stop.is_set():
            return
        store.append_event(table, sim_event(seq))
        if rulings_every and seq and seq % rulings_every == 0:
            store.append_ruling(table, sim_ruling(seq))
        if wake is not None:
            wake()
        if pace_s:
            time.sleep(pace_s * rng.uniform(0.5, 1.5))


def append_match(
    store: EvidenceStore,
    table: str,
    seats: list[str],
    winner: int | None,
    levels: list[str],
    *,
    profile: str = "xize-1h",
    reason: str = "complete",
    on_time: dict[str, Any] | None = None,
    wake: Any = None,
) -> int:
    """One whole simulated table match after what the store holds: ``match_start`` (the
    seats' players, teams 0-2 and 1-3, level 2 each), a deal, and the ``match_end`` a node
    writes with the result (``levels`` per team, ``winner`` the team; ``on_time``: the clock
    decided it). The match_end's seq."""
    seq = store.last_seq(table) + 1
    start = {"v": 1, "t": 0.0, "type": "match_start", "game": "tractor", "profile": profile,
             "seats": list(seats), "teams": [[0, 2], [1, 3]], "levels": ["2", "2"]}  # fmt: skip
    result: dict[str, Any] = {"hands": 1, "levels": list(levels), "winner": winner}
    if on_time is not None:
        result["time"] = on_time
    end = {"v": 1, "t": 60.0, "type": "match_end", "reason": reason, "result": result,
           "meta": {"from": "table"}}  # fmt: skip
    for i, ev in enumerate(
        [
            start,
            {"v": 1, "t": 1.0, "type": "hand_start", "hand": 1, "banker": 0, "level": "2"},
            {"v": 1, "t": 59.0, "type": "hand_end", "reason": "complete"},
            end,
        ]
    ):
        store.append_event(table, {**ev, "seq": seq + i})
        if wake is not None:
            wake()
    return seq + 3


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hall.simnode")
    p.add_argument("--root", required=True, type=Path)
    p.add_argument("--broker", required=True)
    p.add_argument("--hall", default="hall")
    p.add_argument("--tables", required=True, help="comma-separated table ids")
    p.add_argument("--password", default="", help="every table's password (test brokers)")
    p.add_argument("--events", type=int, default=100)
    p.add_argument("--pace", type=float, default=0.05, help="seconds between appends")
    p.add_argument("--rulings-every", type=int, default=10)
    p.add_argument("--durable", type=int, default=1)
    p.add_argument("--poll", type=float, default=0.5, help="publisher poll (it is also woken)")
    args = p.parse_args(argv)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    cfg = HallConfig(broker=args.broker, hall=args.hall, password=args.password or None)
    runs = []
    for table in args.tables.split(","):
        store = EvidenceStore(args.root / table, durable=bool(args.durable))
        pub = Publisher(store, table, cfg, poll_s=args.poll).start()

        def work(store: EvidenceStore = store, table: str = table, pub: Publisher = pub) -> None:
            append_record(
                store,
                table,
                args.events,
                pace_s=args.pace,
                rulings_every=args.rulings_every,
                wake=pub.wake,
                stop=stop,
            )
            if not stop.is_set():
                (args.root / table / "done").write_text("done\n")

        thread = threading.Thread(target=work, daemon=True)
        thread.start()
        runs.append((store, pub, thread))
    print("ready", flush=True)
    stop.wait()
    for store, pub, thread in runs:
        thread.join(5)
        pub.stop(timeout=1.0)
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
