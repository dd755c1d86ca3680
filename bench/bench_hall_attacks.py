"""Bench: a table account attacks the hall's desk (issue 27); events lost and desk memory growth.

Each attack runs against a real Mosquitto (``LocalBroker``: the shipped limits and ACL of the
checkout under test), a real node process (``hall.simnode``) and the desk in this process; the
attacker is a process of its own (``--attacker``), so its payloads never count in the desk's
memory. Printed per attack: genuine events the desk lost (or holds forged), owner drops, the
desk's RSS growth.

    python bench/bench_hall_attacks.py            # the table
    python bench/bench_hall_attacks.py --json

Run it from another checkout (``PYTHONPATH=OLD python bench/bench_hall_attacks.py``) for the
"before" column: it uses only what ``Desk``, ``LocalBroker`` and ``hall.simnode`` had then.
"""

from __future__ import annotations

import argparse
import gc
import inspect
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, str(ROOT))

import paho.mqtt.client as mqtt  # noqa: E402
from paho.mqtt.enums import CallbackAPIVersion  # noqa: E402

from evidence.chain import link_hash  # noqa: E402
from evidence.store import EvidenceStore, row_body  # noqa: E402
from hall.broker import LocalBroker  # noqa: E402
from hall.config import HallConfig  # noqa: E402
from hall.desk import Desk  # noqa: E402
from hall.simnode import sim_event  # noqa: E402

PW = "bench-table"
DESK_PW = "bench-desk"
TABLES = ("t1", "t2", "t3")


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def forged(pos: int, prev: str, row: int, note: str = "") -> dict[str, Any]:
    data: dict[str, Any] = {**sim_event(pos), "cards": ["BJ"]} if pos else sim_event(0)
    if note:
        data["meta"] = {"note": note}
    body = row_body("event", "t1", data["seq"], 1.0, data)
    node = {"row": row, "at": 1.0, "prev": prev, "hash": link_hash(prev, body)}
    return {"v": 1, "table": "t1", "seq": pos, "kind": "event", "data": data, "node": node}


# -- the attacker (its own process) ----------------------------------------------------------


def attacker(port: int, kind: str) -> int:
    def client(user: str, client_id: str = "") -> tuple[mqtt.Client, dict[int, Any]]:
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
        c.username_pw_set(user, PW)
        acks: dict[int, Any] = {}
        c.on_publish = lambda _c, _u, mid, rc, _p: acks.__setitem__(mid, rc)
        c.connect("127.0.0.1", port)
        c.loop_start()
        time.sleep(0.3)
        return c, acks

    def send(c: mqtt.Client, acks: dict[int, Any], name: str, payload: bytes | str) -> None:
        info = c.publish(name, payload, qos=1)
        deadline = time.monotonic() + 10
        while info.mid not in acks and time.monotonic() < deadline and c.is_connected():
            time.sleep(0.01)

    if kind == "poison":
        c, acks = client("t2")
        send(c, acks, "tablescan/hall/t2/events", b"[" * 100_000 + b"]" * 100_000)
        send(c, acks, "tablescan/hall/t2/state", b"{" * 100_000)
    elif kind == "forged":
        c, acks = client("t1")
        bad = forged(100, "0" * 64, 101)
        bad["node"]["hash"] = "f" * 64
        for pos in range(100, 105):  # wrong hashes, positions ahead of the node
            send(c, acks, "tablescan/hall/t1/events", json.dumps({**bad, "seq": pos}))
    elif kind == "takeover":
        for stolen in ("tablescan-desk-hall", "tablescan-hall-t1") * 3:
            c, acks = client("t2", stolen)
            time.sleep(0.5)
            c.disconnect()
            c.loop_stop()
        return 0
    elif kind == "big":
        c, acks = client("t1")
        big = json.dumps(forged(10**6, "0" * 64, 2, note="x" * 10_000_000))
        for n in range(5):
            send(c, acks, "tablescan/hall/t1/events", big.replace("1000000", str(10**6 + n), 1))
    c.disconnect()
    c.loop_stop()
    return 0


# -- the runs -----------------------------------------------------------------------------------


def node(root: Path, url: str, tables: str, events: int) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-m", "hall.simnode", "--root", str(root), "--broker", url]
    cmd += ["--tables", tables, "--password", PW, "--events", str(events), "--pace", "0.01"]
    cmd += ["--durable", "0"]
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH") or str(ROOT)}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    proc.stdout.readline()
    proc.stdout.close()
    return proc


def attack(port: int, kind: str) -> None:
    env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH") or str(ROOT)}
    cmd = [sys.executable, __file__, "--attacker", kind, "--port", str(port)]
    subprocess.run(cmd, env=env, check=True, timeout=120)


def lost(desk: Desk, root: Path, tables: list[str]) -> tuple[int, int, int]:
    """(genuine events, missing at the desk, held there but not the node's)."""
    total = missing = wrong = 0
    for t in tables:
        mine = EvidenceStore(root / t, durable=False)
        theirs = {e["seq"]: e for e in desk.store.events(t)}
        for ev in mine.events(t):
            total += 1
            if ev["seq"] not in theirs:
                missing += 1
            elif theirs[ev["seq"]] != ev:
                wrong += 1
        mine.close()
    return total, missing, wrong


def settle(desk: Desk, root: Path, tables: list[str], events: int, limit_s: float) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if all((root / t / "done").exists() for t in tables) and all(
            desk.store.last_seq(t) == events - 1 for t in tables
        ):
            time.sleep(0.5)
            return
        time.sleep(0.1)


def run(kind: str, work: Path) -> dict[str, Any]:
    users = {"desk": DESK_PW, **{t: PW for t in TABLES}}
    broker = LocalBroker(work / "broker", users).start()
    store = EvidenceStore(work / "desk", durable=False)
    desk = Desk(store, HallConfig(broker=broker.url, password=DESK_PW)).start()
    drops = {"desk": 0, "node": -1}  # the node's first "online" is no drop
    desk.client.on_disconnect = lambda *a: (drops.__setitem__("desk", drops["desk"] + 1),)
    heard = desk.client.on_message

    def on_message(c: Any, u: Any, msg: Any) -> None:  # count the node's comebacks
        if msg.topic == "tablescan/hall/t1/status" and msg.payload == b"online":
            drops["node"] += 1
        heard(c, u, msg)

    desk.client.on_message = on_message
    time.sleep(0.5)
    gc.collect()
    before = rss_mib()
    root = work / "nodes"
    tables = ["t1", "t3"] if kind == "poison" else ["t1"]
    events = {"forged": 300, "poison": 400}.get(kind, 100)
    proc = None
    try:
        if kind == "forged":
            attack(broker.port, kind)  # ahead of the node
        proc = node(root, broker.url, ",".join(tables), events)
        if kind != "forged":  # mid-run: once the desk stores
            deadline = time.monotonic() + 10
            while desk.stats["stored"] < 10 and time.monotonic() < deadline:
                time.sleep(0.02)
            attack(broker.port, kind)
        settle(desk, root, tables, events, 40)
        gc.collect()
        grown = rss_mib() - before
        total, missing, wrong = lost(desk, root, tables)
        seen = dict(drops)  # before our own disconnect
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)
        desk.stop()
        store.close()
        broker.stop()
    return {
        "attack": kind,
        "events": total,
        "lost": missing,
        "forged_held": wrong,
        "desk_drops": seen["desk"],
        "node_drops": max(0, seen["node"]),
        "desk_growth_mib": round(grown, 1),
        "stats": dict(desk.stats),
    }


def run_loose(work: Path) -> dict[str, Any] | None:
    """The big-payload attack through a broker without a size limit: the desk's own bounds."""
    if "packet_limit" not in inspect.signature(LocalBroker).parameters:
        return None
    users = {"desk": DESK_PW, **{t: PW for t in TABLES}}
    broker = LocalBroker(work / "broker", users, packet_limit=False).start()  # type: ignore[call-arg]
    store = EvidenceStore(work / "desk", durable=False)
    desk = Desk(store, HallConfig(broker=broker.url, password=DESK_PW)).start()
    try:
        time.sleep(0.5)
        gc.collect()
        before = rss_mib()
        attack(broker.port, "big")
        time.sleep(1.0)
        gc.collect()
        grown = rss_mib() - before
    finally:
        desk.stop()
        store.close()
        broker.stop()
    return {
        "attack": "big (broker without size limit)",
        "events": 0,
        "lost": 0,
        "forged_held": 0,
        "desk_drops": 0,
        "node_drops": 0,
        "desk_growth_mib": round(grown, 1),
        "stats": dict(desk.stats),
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json", action="store_true")
    p.add_argument("--only", help="one attack: poison, forged, takeover, big")
    p.add_argument("--attacker", help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.attacker:
        return attacker(args.port, args.attacker)
    rows = []
    kinds = [args.only] if args.only else ["poison", "forged", "takeover", "big"]
    for kind in kinds:
        with tempfile.TemporaryDirectory(prefix=f"bench-attack-{kind}-") as tmp:
            rows.append(run(kind, Path(tmp)))
    if not args.only or args.only == "big":
        with tempfile.TemporaryDirectory(prefix="bench-attack-loose-") as tmp:
            loose = run_loose(Path(tmp))
            if loose is not None:
                rows.append(loose)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    head = f"{'attack':34} {'events':>6} {'lost':>5} {'forged':>6} {'drops desk/node':>15}"
    print(head + f" {'growth MiB':>10}")
    for r in rows:
        drops = f"{r['desk_drops']}/{r['node_drops']}"
        print(
            f"{r['attack']:34} {r['events']:6} {r['lost']:5} {r['forged_held']:6} {drops:>15}"
            f" {r['desk_growth_mib']:10.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
