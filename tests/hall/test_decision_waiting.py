"""A decision taken at the desk while its table is away is "sent, waiting for the table" (202,
listed as waiting in the hall queue) until the table's record shows it; meanwhile a second
decision on the same violation is refused in the page's language. Real Mosquitto, a node whose
own judge (a hub over its store) rules the record it publishes."""

from __future__ import annotations

import threading
from pathlib import Path

from dashboard.app import create_app
from dashboard.desk import register
from dashboard.hub import DecisionWaiting, Hub
from dashboard.users import UserStore
from evidence.store import EvidenceStore
from hall.broker import LocalBroker
from hall.config import HallConfig
from hall.desk import Desk
from hall.desk_hub import DeskHub
from hall.publish import start_publisher
from tests.dashboard.conftest import FAST_HASH, PASSWORD, login, match_record
from tests.hall.conftest import DESK_PW, TABLE_PW, wait_for

RECORD = match_record()[:40]  # wrong bury count at 4 (and more)
BURY = "1:wrong_bury_count:2:4"


def test_a_desk_decision_waits_for_the_table_and_a_second_is_refused(
    tmp_path: Path, broker: LocalBroker
) -> None:
    data = tmp_path / "desk"
    UserStore(data).add("ref1", "referee", PASSWORD, n=FAST_HASH)
    hub = DeskHub(EvidenceStore(data, durable=False))
    desk = Desk(hub.store, HallConfig(broker=broker.url, password=DESK_PW), on_change=hub.changed)
    hub.desk = desk
    app = create_app(data, hub=hub, start_hub=False)
    desk.start()
    node = EvidenceStore(tmp_path / "t1", durable=False)
    register(node, "t1", by="test")  # the node's judge: a hub over its own store
    judge = Hub(node)
    for e in RECORD:
        node.append_event("t1", e)
    judge.poll()
    cfg = HallConfig(broker=broker.url, password=TABLE_PW)
    pub = start_publisher(node, "t1", cfg)
    try:
        pub.wake()
        wait_for(lambda: hub.store.last_seq("t1") == len(RECORD) - 1, 10, "the record")
        wait_for(lambda: hub.poll() or BURY in {v["id"] for v in _violations(hub)}, 10, "rulings")
        pub.stop()  # the table goes away: a decision now waits for it
        wait_for(lambda: desk.links()["t1"]["link"] == "offline", 5, "t1 offline")
        c = app.test_client()
        csrf = login(c)
        resp = c.post(
            "/api/tables/t1/rulings",
            json={"violation": BURY, "decision": "uphold", "note": "seen on camera"},
            headers={"X-CSRF-Token": csrf},
        )
        assert resp.status_code == 202, resp.get_data(as_text=True)
        body = resp.get_json()
        assert body["pending"] is True and body["seq"] is None
        assert body["waiting"]["decision"] == "upheld" and body["waiting"]["by"] == "ref1"
        item = next(x for x in c.get("/api/violations").get_json() if x["id"] == BURY)
        assert item["waiting"]["decision"] == "upheld"

        for lang, words in (("zh-CN", "等待本桌"), ("en", "waiting for the table")):
            resp = c.post(
                "/api/tables/t1/rulings",
                json={"violation": BURY, "decision": "dismiss", "note": "changed my mind"},
                headers={"X-CSRF-Token": csrf, "Accept-Language": lang},
            )
            assert resp.status_code == 409 and words in resp.get_json()["error"], resp.get_json()
        assert [r.data["action"] for r in hub.store.rows(table="t1", kind="action")] == [
            "hall_decision"
        ]  # the refused one was never chained nor sent

        # two referees at once on another flag, contrary: one is sent, the other refused
        other = next(v["id"] for v in _violations(hub) if v["id"] != BURY)
        results: list[object] = []

        def rule(decision: str) -> None:
            event = {"type": "ruling", "ref": other, "decision": decision, "by": "ref1"}
            try:
                results.append(hub.append("t1", {**event, "note": "at once"}))
            except DecisionWaiting as e:
                results.append(e)

        both = [threading.Thread(target=rule, args=(d,)) for d in ("upheld", "dismissed")]
        for th in both:
            th.start()
        for th in both:
            th.join(10)
        assert sorted(type(r).__name__ for r in results) == ["DecisionWaiting", "int"]
        assert len(hub.store.rows(table="t1", kind="action")) == 2

        pub = start_publisher(node, "t1", cfg)  # the table is back: it takes the decisions
        wait_for(lambda: not hub.waiting("t1"), 15, "the table to take the decision")
        ruled = [e for e in node.events("t1") if e["type"] == "ruling"]
        assert [e["ref"] for e in ruled].count(BURY) == 1 and len(ruled) == 2
        assert next(e["decision"] for e in ruled if e["ref"] == BURY) == "upheld"
        item = next((x for x in c.get("/api/violations").get_json() if x["id"] == BURY), None)
        assert item is None or item["waiting"] is None
    finally:
        if pub.connected.is_set():
            pub.stop()
        desk.stop()
        judge.stop()


def _violations(hub: DeskHub) -> list[dict[str, object]]:
    t = hub.tables.get("t1")
    return list(t.view.get("violations", [])) if t is not None else []
