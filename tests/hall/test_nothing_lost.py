"""A real broker killed with SIGKILL mid-run, a real node process killed and resumed: the desk
ends with every event and ruling of every table exactly once, each table's chain verified."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

from evidence.store import EvidenceStore
from hall.broker import LocalBroker
from hall.desk import Desk
from hall.simnode import append_record, sim_event, sim_ruling
from tests.hall.conftest import sim_nodes, wait_for

EVENTS = 80


def _caught_up(desk: Desk, tables: tuple[str, ...]) -> bool:
    links = desk.links()
    return all(
        desk.store.last_seq(t) == EVENTS - 1
        and links[t]["gap"] is None
        and links[t]["stored"] == links[t]["node_head"]
        for t in tables
        if t in links
    ) and all(t in links for t in tables)


def test_broker_kill_and_node_kill_lose_and_double_nothing(
    tmp_path: Path, broker: LocalBroker, desk: Desk
) -> None:
    root = tmp_path / "nodes"
    tables = ("t1", "t2", "t3")
    node = start_node(root, broker, tables)
    wait_for(lambda: desk.stats["stored"] >= 20, what="the first events at the desk")
    broker.kill()  # SIGKILL: whatever it acknowledged and had not delivered is gone
    time.sleep(0.3)
    broker.start()
    wait_for(lambda: desk.stats["stored"] >= 80, what="events after the broker came back")
    node.send_signal(signal.SIGKILL)  # the node dies mid-record
    node.wait(5)
    assert not all((root / t / "done").exists() for t in tables)
    wait_for(lambda: desk.links()["t1"]["link"] == "offline", 10, "the Last Will")
    node = start_node(root, broker, tables)  # resumes where its store ends
    try:
        wait_for(lambda: desk.links()["t1"]["link"] == "online", 10, "the node back online")
        for t in tables:
            wait_for(lambda t=t: (root / t / "done").exists(), 20, f"{t} done")
        wait_for(lambda: _caught_up(desk, tables), 20, "every table complete at the desk")
        for t in tables:
            mine = EvidenceStore(root / t, durable=False)
            assert desk.store.events(t) == mine.events(t)  # every event once, in seq order
            node_rulings = [r.data for r in mine.rows(table=t, kind="ruling")]
            desk_rulings = [r.data for r in desk.store.rows(table=t, kind="ruling")]
            assert desk_rulings == node_rulings and len(node_rulings) >= EVENTS // 10 - 1
            mine.close()
        report = desk.verify()
        assert report.ok, report.summary()
        assert report.rows >= 3 * EVENTS
    finally:
        node.terminate()
        node.wait(10)


def test_a_node_killed_between_an_event_and_its_ruling_chains_the_ruling_on_resume(
    tmp_path: Path,
) -> None:
    store = EvidenceStore(tmp_path, durable=False)
    append_record(store, "t1", 60, rulings_every=10)
    store.append_event("t1", sim_event(60))  # the kill comes before ruling 60 is chained
    append_record(store, "t1", 62, rulings_every=10)
    rulings = [r.data["at_seq"] for r in store.rows(table="t1", kind="ruling")]
    assert rulings == [10, 20, 30, 40, 50, 60]
    assert store.last_seq("t1") == 61
    assert [r.data for r in store.rows(table="t1", kind="ruling")][-1] == sim_ruling(60)
    store.close()


def start_node(root: Path, broker: LocalBroker, tables: tuple[str, ...]) -> subprocess.Popen[str]:
    node = sim_nodes(root, broker, ",".join(tables), EVENTS, pace=0.02)
    assert node.stdout is not None and node.stdout.readline().strip() == "ready"
    node.stdout.close()
    return node
