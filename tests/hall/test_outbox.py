"""The outbox and the desk's ledger on a real SQLite store: positions, acks, resends, and the
node's hashes re-checked from the desk's copy."""

from __future__ import annotations

from pathlib import Path

from evidence.outbox import Ledger, Outbox, ruling_key
from evidence.store import EvidenceStore
from hall.simnode import sim_event, sim_ruling


def test_positions_follow_the_chain_and_survive_a_restart(tmp_path: Path) -> None:
    store = EvidenceStore(tmp_path, durable=False)
    box = Outbox(tmp_path, "t1")
    for seq in range(3):
        store.append_event("t1", sim_event(seq))
    store.add_media(b"jpeg bytes", table="t1", seq=2)  # not part of the stream
    store.append_ruling("t1", sim_ruling(2))
    store.append_event("t2", sim_event(0))  # another table's row: not this stream
    assert box.take_new() == 4
    assert box.take_new() == 0
    items = box.pending()
    assert [(i.pos, i.kind, i.seq) for i in items] == [
        (0, "event", 0),
        (1, "event", 1),
        (2, "event", 2),
        (3, "ruling", None),
    ]
    box.ack(0, 2)
    assert [i.pos for i in box.pending()] == [1, 3]
    box.close()
    reopened = Outbox(tmp_path, "t1")  # a restarted publisher: the same outbox, same positions
    assert [i.pos for i in reopened.pending()] == [1, 3]
    assert reopened.head() == 3
    assert [(i.pos, i.hash) for i in reopened.since(1)] == [(i.pos, i.hash) for i in items[1:]]
    assert reopened.since(4) == []


def test_ledger_recomputes_node_hashes_and_finds_a_forgery(tmp_path: Path) -> None:
    node = EvidenceStore(tmp_path / "node", durable=False)
    desk = EvidenceStore(tmp_path / "desk", durable=False)
    box, ledger = Outbox(node.data_dir, "t1"), Ledger(desk.data_dir)
    node.append_event("t1", sim_event(0))
    node.append_ruling("t1", sim_ruling(0))
    node.append_event("t1", sim_event(1))
    box.take_new()
    for item in box.pending():
        if item.kind == "event":
            desk.append_event("t1", item.data)
            ref = str(item.seq)
        else:
            desk.append_ruling("t1", item.data)
            ref = ruling_key(item.data)
        ledger.record("t1", item.pos, item.kind, ref, item.row_id, item.at, item.prev, item.hash)
    assert ledger.check_table("t1").ok
    assert ledger.heads() == {"t1": 2}
    # a desk row that says the node chained something else is caught
    ledger.record("t1", 3, "event", "1", 99, 0.0, "0" * 64, "f" * 64)
    problems = [str(p) for p in ledger.check_table("t1").problems]
    assert problems == ["table t1 pos 3 (event 1): differs from what the node chained"]
