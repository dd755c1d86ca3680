"""The desk's dashboard over the hall: tables listed with their link (offline marked), and a
correction made at the desk goes to the table through the broker, is stored once by the node
(even when sent twice) and comes back into the desk's store at the node's seq."""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from dashboard.app import create_app
from dashboard.users import UserStore
from evidence.store import EvidenceStore
from hall.broker import LocalBroker, free_port
from hall.config import HallConfig
from hall.desk import Desk
from hall.desk_hub import DeskHub
from hall.publish import start_publisher
from hall.simnode import append_record
from tests.dashboard.conftest import FAST_HASH, PASSWORD, login
from tests.hall.conftest import DESK_PW, TABLE_PW, wait_for


def test_a_desk_correction_reaches_the_table_once_and_comes_back(
    tmp_path: Path, broker: LocalBroker
) -> None:
    data = tmp_path / "desk"
    UserStore(data).add("ref1", "referee", PASSWORD, n=FAST_HASH)
    hub = DeskHub(EvidenceStore(data, durable=False))
    desk = Desk(hub.store, HallConfig(broker=broker.url, password=DESK_PW), on_change=hub.changed)
    hub.desk = desk
    app = create_app(data, hub=hub, start_hub=False)
    desk.start()
    nodes = {t: EvidenceStore(tmp_path / t, durable=False) for t in ("t1", "t2")}
    pubs = {
        t: start_publisher(s, t, HallConfig(broker=broker.url, password=TABLE_PW))
        for t, s in nodes.items()
    }
    try:
        for t, store in nodes.items():
            append_record(store, t, 6, wake=pubs[t].wake)
        wait_for(lambda: all(hub.store.last_seq(t) == 5 for t in nodes), 10, "both records")
        hub.poll()
        pubs["t2"].stop()  # t2 goes away: its status turns offline
        wait_for(lambda: desk.links()["t2"]["link"] == "offline", 5, "t2 offline")
        client = app.test_client()
        csrf = login(client)
        listed = {t["id"]: t for t in client.get("/api/tables").get_json()}
        assert (listed["t1"]["link"], listed["t2"]["link"]) == ("online", "offline")

        resp = client.post(
            "/api/tables/t1/corrections",
            json={"ref": 3, "cards": "AS", "why": "misread at the desk"},
            headers={"X-CSRF-Token": csrf},
        )
        assert resp.status_code == 201, resp.get_data(as_text=True)
        seq = resp.get_json()["seq"]
        assert seq == 6  # numbered by the table: its next seq
        fixed = nodes["t1"].events("t1", after_seq=5)
        assert [(e["type"], e["ref"], e["cards"]) for e in fixed] == [("correction", 3, ["AS"])]
        assert hub.store.events("t1", after_seq=5) == fixed  # the desk holds the node's event
        actions = [r.data for r in hub.store.rows(table="t1", kind="action")]
        assert [a["action"] for a in actions] == ["hall_decision"]
        assert actions[0]["id"] == fixed[0]["meta"]["decision"]

        # the same decision delivered again (a re-send) is stored once
        pending = desk.pending[actions[0]["id"]]
        desk._send_decision(pending)
        time.sleep(0.5)
        assert nodes["t1"].last_seq("t1") == 6
        assert desk.verify().ok
    finally:
        for pub in pubs.values():
            if pub.connected.is_set():
                pub.stop()
        desk.stop()


def test_tablescan_desk_serves_the_hall(tmp_path: Path, broker: LocalBroker) -> None:
    (tmp_path / "pw").write_text(DESK_PW + "\n")
    port = free_port()
    cmd = [sys.executable, "-m", "tablescan", "desk", "--broker", broker.url]
    cmd += ["--data", str(tmp_path / "desk"), "--password-file", str(tmp_path / "pw")]
    proc = subprocess.Popen([*cmd, "--port", str(port)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert "desk of hall 'hall'" in proc.stdout.readline() + proc.stdout.readline()
        node = EvidenceStore(tmp_path / "t1", durable=False)
        pub = start_publisher(node, "t1", HallConfig(broker=broker.url, password=TABLE_PW))
        append_record(node, "t1", 4, wake=pub.wake)
        check = EvidenceStore(tmp_path / "desk", durable=False)
        wait_for(lambda: check.last_seq("t1") == 3, 10, "the desk command to store t1")

        def login_page() -> int:  # the dashboard listens a moment after the desk's first line
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/login", timeout=5) as page:
                    return int(page.status)
            except OSError:
                return 0

        wait_for(lambda: login_page() == 200, 20, "the desk's dashboard to serve its login page")
        pub.stop()
        check.close()
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stdout is not None:
            proc.stdout.close()


def test_tablescan_desk_names_a_bad_broker_url(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tablescan", "desk", "--broker", "tcp://x", "--data", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "tablescan desk: broker 'tcp://x': expected mqtt://host[:port] or mqtts://host[:port]"
    ]
    assert out.stdout == ""
