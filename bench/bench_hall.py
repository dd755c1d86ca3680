"""Bench: a tournament hall through one real Mosquitto: N simulated table nodes x M events.

Each table is a real ``Publisher`` on its own evidence store (in a temp dir), the tables split
over a few node processes (``hall.simnode``); the desk runs here on its own store. Prints the
events lost and duplicated at the desk, the latency from a node's append to the desk's store
(p50/p99), and how many tables' chains verified. ``--kill-broker`` SIGKILLs the broker at 40 %
and starts it again; ``--kill-node`` SIGKILLs one node process (its share of the tables) at
60 % and starts it again, resuming its stores.

    python bench/bench_hall.py --tables 200 --events 100 --kill-broker --kill-node --json
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evidence.store import EvidenceStore  # noqa: E402
from hall.broker import LocalBroker  # noqa: E402
from hall.config import HallConfig  # noqa: E402
from hall.desk import Desk  # noqa: E402

PASSWORD = "bench-table"
DESK_PASSWORD = "bench-desk"


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)


def start_nodes(args: argparse.Namespace, root: Path, url: str, tables: list[str]) -> Any:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "hall.simnode", "--root", str(root), "--broker", url]
    cmd += ["--tables", ",".join(tables), "--password", PASSWORD, "--events", str(args.events)]
    cmd += ["--pace", str(args.pace), "--rulings-every", str(args.rulings_every)]
    cmd += ["--durable", "1" if args.durable else "0"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    proc.stdout.readline()  # "ready"
    proc.stdout.close()
    return proc


def caught_up(desk: Desk, tables: list[str], root: Path) -> bool:
    """Every node finished, said so in a heartbeat since, and the desk holds its whole head."""
    links = desk.links()
    for t in tables:
        info, done = links.get(t), root / t / "done"
        if info is None or not done.exists():
            return False
        with desk._lock:
            heartbeat = float(desk.tables[t].state.get("at", 0.0))
        if heartbeat <= done.stat().st_mtime:
            return False
        if info["gap"] is not None or info["stored"] < info["node_head"]:
            return False
    return True


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--events", type=int, default=100)
    p.add_argument("--procs", type=int, default=4, help="node processes the tables share")
    p.add_argument("--pace", type=float, default=0.25, help="seconds between a table's events")
    p.add_argument("--rulings-every", type=int, default=10)
    p.add_argument(
        "--durable",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="nodes' stores fsync each append (the source of truth; default on)",
    )
    p.add_argument(
        "--desk-durable",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="the desk's store fsyncs each append too (default off, as tablescan desk)",
    )
    p.add_argument("--kill-broker", action="store_true")
    p.add_argument("--kill-node", action="store_true")
    p.add_argument("--timeout", type=float, default=600.0)
    p.add_argument("--json", action="store_true", help="print one JSON object only")
    args = p.parse_args()

    tables = [f"t{i:03d}" for i in range(args.tables)]
    procs_n = max(1, min(args.procs, len(tables)))
    shares = [tables[i::procs_n] for i in range(procs_n)]
    with tempfile.TemporaryDirectory(prefix="bench-hall-") as tmp:
        work = Path(tmp)
        users = {"desk": DESK_PASSWORD, **dict.fromkeys(tables, PASSWORD)}
        broker = LocalBroker(work / "broker", users).start()
        desk_store = EvidenceStore(work / "desk", durable=args.desk_durable, sign_every_s=1.0)
        desk = Desk(desk_store, HallConfig(broker=broker.url, password=DESK_PASSWORD)).start()
        desk.connected.wait(10)
        nodes_root = work / "nodes"
        expected = args.tables * args.events
        t0 = time.time()
        procs = [start_nodes(args, nodes_root, broker.url, share) for share in shares]
        killed: dict[str, float] = {}
        outages: list[tuple[float, float]] = []
        try:
            while time.time() - t0 < args.timeout:
                done = sum(desk_store.last_seq(t) + 1 for t in list(desk.links()))
                if args.kill_broker and "broker" not in killed and done >= 0.4 * expected:
                    killed["broker"] = time.time() - t0
                    down = time.time()
                    broker.kill()
                    time.sleep(1.0)
                    broker.start()
                    outages.append((down, time.time() + 1.0))
                if args.kill_node and "node" not in killed and done >= 0.6 * expected:
                    killed["node"] = time.time() - t0
                    down = time.time()
                    procs[0].send_signal(signal.SIGKILL)
                    procs[0].wait(10)
                    time.sleep(0.5)
                    procs[0] = start_nodes(args, nodes_root, broker.url, shares[0])
                    outages.append((down, time.time() + 1.0))
                if caught_up(desk, tables, nodes_root):
                    break
                time.sleep(0.25)
            elapsed = time.time() - t0
            result = tally(args, desk, tables, nodes_root, elapsed, killed, outages)
        finally:
            for proc in procs:
                proc.terminate()
            for proc in procs:
                proc.wait(30)
            desk.stop()
            broker.stop()
            desk_store.close()
    if args.json:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print(f"{k:>24}: {v}")
    return 0 if result["lost"] == 0 and result["duplicated"] == 0 else 1


def tally(
    args: argparse.Namespace,
    desk: Desk,
    tables: list[str],
    root: Path,
    elapsed: float,
    killed: dict[str, float],
    outages: list[tuple[float, float]],
) -> dict[str, Any]:
    lost = duplicated = verified = node_events = desk_events = 0
    rulings_lost = 0
    for t in tables:
        node = EvidenceStore(root / t, durable=False)
        mine, theirs = node.events(t), desk.store.events(t)
        node_events += len(mine)
        desk_events += len(theirs)
        seqs = [e["seq"] for e in theirs]
        duplicated += len(seqs) - len(set(seqs))
        have = {json.dumps(e, sort_keys=True) for e in theirs}
        lost += sum(1 for e in mine if json.dumps(e, sort_keys=True) not in have)
        node_r = [r.data for r in node.rows(table=t, kind="ruling")]
        desk_r = [r.data for r in desk.store.rows(table=t, kind="ruling")]
        rulings_lost += sum(1 for r in node_r if r not in desk_r)
        duplicated += len(desk_r) - len({json.dumps(r, sort_keys=True) for r in desk_r})
        if mine == theirs and node_r == desk_r and desk.ledger.check_table(t).ok:
            verified += 1
        node.close()
    store_ok = desk.verify().ok
    lat = [ms for _at, ms in desk.latencies]
    steady = [ms for at, ms in desk.latencies if not any(a <= at <= b for a, b in outages)]
    return {
        "tables": args.tables,
        "events_per_table": args.events,
        "pace_s": args.pace,
        "durable": args.durable,
        "desk_durable": args.desk_durable,
        "node_processes": args.procs,
        "kill_broker_at_s": killed.get("broker"),
        "kill_node_at_s": killed.get("node"),
        "events_expected": args.tables * args.events,
        "events_at_nodes": node_events,
        "events_at_desk": desk_events,
        "lost": lost,  # appended at a node, not at the desk when the run ended
        "not_appended": args.tables * args.events - node_events,  # a node that ran out of time
        "rulings_lost": rulings_lost,
        "duplicated": duplicated,
        "p50_ms": pct(lat, 0.50),
        "p99_ms": pct(lat, 0.99),
        "p99_ms_outside_outages": pct(steady, 0.99),
        "max_ms": round(max(lat), 1) if lat else None,
        "chains_verified": verified,
        "desk_store_verified": store_ok,
        "redelivered_dropped": desk.stats["duplicates"],
        "resend_requests": desk.stats["resends"],
        "refused": desk.stats["refused"],
        "elapsed_s": round(elapsed, 1),
    }


if __name__ == "__main__":
    sys.exit(main())
