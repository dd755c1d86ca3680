"""A table account attacking the desk, on a real Mosquitto with the shipped limits and ACL, a
real node process beside it: poison messages, forged future positions, client-id takeover,
big payloads. The desk keeps every genuine event, sets the rest aside, and keeps listening."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from evidence.chain import link_hash
from evidence.store import EvidenceStore, row_body
from hall.broker import LocalBroker
from hall.config import HallConfig
from hall.desk import Desk
from hall.desk_hub import DeskHub
from hall.simnode import sim_event
from tests.hall.conftest import DESK_PW, TABLE_PW, TABLES, sim_nodes, wait_for


class Attacker:
    """A bare paho client on a table's account, publishing whatever it likes."""

    def __init__(self, broker: LocalBroker, user: str, client_id: str = "") -> None:
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5
        )
        self.client.username_pw_set(user, TABLE_PW)
        self.acks: dict[int, Any] = {}
        self.connacks: list[Any] = []
        self.client.on_connect = lambda _c, _u, _f, rc, _p: self.connacks.append(rc)
        self.client.on_publish = lambda _c, _u, mid, rc, _p: self.acks.__setitem__(mid, rc)
        self.client.connect("127.0.0.1", broker.port)
        self.client.loop_start()
        wait_for(lambda: self.connacks, 5, "the attacker's CONNACK")

    def send(self, name: str, payload: bytes | str) -> None:
        info = self.client.publish(name, payload, qos=1)
        wait_for(lambda: info.mid in self.acks, 10, f"the PUBACK for {name}")

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def _node(root: Path, broker: LocalBroker, tables: str, events: int) -> subprocess.Popen[str]:
    node = sim_nodes(root, broker, tables, events, pace=0.01)
    assert node.stdout is not None and node.stdout.readline().strip() == "ready"
    node.stdout.close()
    return node


def _complete(desk: Desk, root: Path, table: str, events: int) -> None:
    wait_for(lambda: (root / table / "done").exists(), 30, f"{table}'s node done")
    wait_for(lambda: desk.store.last_seq(table) == events - 1, 30, f"{table} at the desk")
    mine = EvidenceStore(root / table, durable=False)
    try:
        assert desk.store.events(table) == mine.events(table)  # 0 lost, 0 forged
        node_rulings = [r.data for r in mine.rows(table=table, kind="ruling")]
        assert [r.data for r in desk.store.rows(table=table, kind="ruling")] == node_rulings
    finally:
        mine.close()
    assert desk.verify(table).ok, desk.verify(table).summary()


def test_poison_is_set_aside_and_the_desk_keeps_storing(
    tmp_path: Path, broker: LocalBroker, desk: Desk
) -> None:
    """Before: the 100k-deep message raised RecursionError out of on_message and ended paho's
    thread; nothing was stored after it."""
    root = tmp_path / "nodes"
    node = _node(root, broker, "t1", 60)
    try:
        wait_for(lambda: desk.store.last_seq("t1") >= 5, 15, "the first events")
        bad = Attacker(broker, "t2")
        poison = {
            "events": [
                b"[" * 100_000 + b"]" * 100_000,
                b'{"v":1,"table":"t2","seq":' + b"9" * 100_000 + b"}",
                b'{"v":1,"table":"t2","seq":0,"kind":"event","data":{"x":"\\ud800"}}',
                b"\xff\xfe not JSON",
                b'{"table":"t2","seq":0}',
            ],
            "state": [b"{" * 100_000, b'{"head": "' + b"x" * 10 + b'"}'],
        }
        for what, bodies in poison.items():
            for body in bodies:
                bad.send(f"tablescan/hall/t2/{what}", body)
        bad.close()
        wait_for(lambda: desk.links().get("t2", {}).get("poison") == 7, 10, "7 set aside")
        _complete(desk, root, "t1", 60)  # the desk went on hearing the hall
        kept = desk.poison.listing("t2")
        problems = " | ".join(k["problem"] for k in kept)
        assert "nested 100000 deep" in problems and "100000 digits" in problems
        assert "lone surrogate" in problems and "not UTF-8" in problems
        assert all(k["topic"].startswith("tablescan/hall/t2/") for k in kept)
        assert max(len(k["excerpt"]) for k in kept) <= 2048
        hub = DeskHub(desk.store)  # the hall page's table cards: count and latest problems
        hub.desk = desk
        card = {t["id"]: t for t in hub.summary()}["t2"]
        assert card["poison"] == 7 and len(card["poison_latest"]) == 5
        assert card["poison_latest"][0] == kept[0]["problem"]
    finally:
        node.terminate()
        node.wait(10)
    # acknowledged: a desk started again on the same store is not handed them again
    desk.stop()
    again = Desk(desk.store, HallConfig(broker=broker.url, password=DESK_PW)).start()
    try:
        wait_for(again.connected.is_set, 5, "the second desk")
        time.sleep(0.5)
        assert again.stats["poison"] == 0
        assert again.poison.counts()["t2"] == 7  # still there for a referee
    finally:
        again.stop()


def _forged(pos: int, prev: str, row: int, note: str = "") -> dict[str, Any]:
    """A self-consistent forgery: its hash is right for its body, its body is not the node's."""
    data = {**sim_event(pos), "cards": ["BJ"]} if pos else sim_event(0)
    if note:
        data["meta"] = {"note": note}
    at = 1.0
    body = row_body("event", "t1", data["seq"], at, data)
    node = {"row": row, "at": at, "prev": prev, "hash": link_hash(prev, body)}
    return {"v": 1, "table": "t1", "seq": pos, "kind": "event", "data": data, "node": node}


def test_forged_future_positions_never_evict_the_genuine_events(
    tmp_path: Path, broker: LocalBroker, desk: Desk
) -> None:
    """Before: the forged messages were buffered, the genuine ones dropped as duplicates and
    the forgeries then refused (or, hashed right, stored): events lost or replaced."""
    bad = Attacker(broker, "t1")
    wrong_hash = _forged(40, "0" * 64, 41)
    for pos in range(40, 45):  # wrong hashes for positions ahead of the node
        bad.send("tablescan/hall/t1/events", json.dumps({**wrong_hash, "seq": pos}))
    for pos in range(60, 65):  # right hashes over forged bodies, far rows
        bad.send("tablescan/hall/t1/events", json.dumps(_forged(pos, "1" * 64, 10**6 + pos)))
    for pos in range(70, 75):  # the next row, naming a prev that is not the node's
        bad.send("tablescan/hall/t1/events", json.dumps(_forged(pos, "2" * 64, 1)))
    bad.close()
    root = tmp_path / "nodes"
    node = _node(root, broker, "t1", 150)
    try:
        _complete(desk, root, "t1", 150)
        assert desk.links()["t1"]["poison"] >= 15
    finally:
        node.terminate()
        node.wait(10)


def test_no_table_account_takes_over_the_desk_or_another_node(
    tmp_path: Path, broker: LocalBroker, desk: Desk
) -> None:
    """Before: t2 connecting with the desk's (or t1's) client id made the broker drop it."""
    drops: list[object] = []
    desk.client.on_disconnect = lambda *a: (drops.append(a), desk.connected.clear())
    root = tmp_path / "nodes"
    node = _node(root, broker, "t1", 60)
    try:
        wait_for(lambda: desk.store.last_seq("t1") >= 3, 15, "the first events")
        for stolen in (f"tablescan-desk-{desk.cfg.hall}", "tablescan-hall-t1", "desk", "t1"):
            thief = Attacker(broker, "t2", client_id=stolen)
            time.sleep(0.3)
            thief.close()
        assert drops == []
        assert desk.links()["t1"]["link"] == "online"
        _complete(desk, root, "t1", 60)
    finally:
        node.terminate()
        node.wait(10)
    # the ACL names the hall: t1 cannot publish as t1 of another hall
    t1 = Attacker(broker, "t1")
    info = t1.client.publish("tablescan/other/t1/events", b"{}", qos=1)
    wait_for(lambda: info.mid in t1.acks, 5, "the PUBACK")
    assert t1.acks[info.mid].getName() == "Not authorized"
    t1.close()


def test_big_payloads_neither_pass_the_broker_nor_grow_the_desk(tmp_path: Path) -> None:
    """Before: the shipped broker let 10 MB messages through and the desk buffered each one at
    its far-future position (91 MiB for five)."""
    users = {"desk": DESK_PW, **{t: TABLE_PW for t in TABLES}}
    big = json.dumps(_forged(10**6, "0" * 64, 2, note="x" * 10_000_000))
    with LocalBroker(tmp_path / "b1", users) as shipped:  # the shipped limits: refused there
        store = EvidenceStore(tmp_path / "d1", durable=False)
        desk = Desk(store, HallConfig(broker=shipped.url, password=DESK_PW)).start()
        try:
            wait_for(desk.connected.is_set, 5, "the desk")
            bad = Attacker(shipped, "t1")
            bad.client.publish("tablescan/hall/t1/events", big, qos=1)
            time.sleep(1.0)
            bad.close()
            assert desk.stats["received"] == 0 and desk.connected.is_set()
        finally:
            desk.stop()
            store.close()
    # a broker without the size limit: the desk refuses them itself and buffers nothing
    with LocalBroker(tmp_path / "b2", users, packet_limit=False) as loose:
        store = EvidenceStore(tmp_path / "d2", durable=False)
        desk = Desk(store, HallConfig(broker=loose.url, password=DESK_PW)).start()
        try:
            wait_for(desk.connected.is_set, 5, "the desk")
            bad = Attacker(loose, "t1")
            for _ in range(5):
                bad.send("tablescan/hall/t1/events", big)
            for pos in range(5, 12):  # near positions, under the size limit: capped in bytes
                near = _forged(pos, "0" * 64, pos + 1, note="y" * 900_000)
                bad.send("tablescan/hall/t1/events", json.dumps(near))
            bad.close()
            wait_for(lambda: desk.stats["poison"] >= 5, 10, "the big ones set aside")
            kept = desk.poison.listing("t1")
            assert sum("bytes (at most" in k["problem"] for k in kept) == 5
            assert all(len(k["excerpt"]) <= 2048 for k in kept)
            from hall.intake import MAX_BUFFER_BYTES

            held = desk.tables["t1"].buffer
            assert 0 < held.count < 7 and held.bytes <= MAX_BUFFER_BYTES  # capped in bytes
        finally:
            desk.stop()
            store.close()


def test_the_node_refuses_poison_commands_in_one_line_and_takes_the_next(
    tmp_path: Path, broker: LocalBroker, desk: Desk, caplog: Any
) -> None:
    """Before: an 8,000-deep decision raised RecursionError inside the publisher's turn (a
    traceback, not counted) and a nested resend request was not refused as one."""
    from hall.publish import start_publisher

    store = EvidenceStore(tmp_path / "node", durable=False)
    pub = start_publisher(store, "t1", HallConfig(broker=broker.url, password=TABLE_PW))
    try:
        wait_for(pub.connected.is_set, 5, "the node")
        wait_for(lambda: desk.links().get("t1", {}).get("link") == "online", 5, "t1 online")
        for what, body in (
            ("decisions", b"[" * 8000 + b"]" * 8000),
            ("decisions", b'{"id": "\\udc00", "event": {}}'),
            ("resend", b'{"from": ' + b"[" * 100 + b"]" * 100 + b"}"),
            ("resend", b'{"from": true}'),
        ):
            desk.client.publish(f"tablescan/hall/t1/{what}", body, qos=1)
        good = {"v": 1, "t": 0.0, "type": "match_start", "game": "tractor", "profile": "sim"}
        good |= {"seats": ["N", "E", "S", "W"], "teams": [[0, 2], [1, 3]], "levels": ["2", "2"]}
        pending = desk.decide("t1", good)
        assert pending.done.wait(10), "the good decision after the poison"
        assert pub.stats["refused"] == 4
        refusals = [r for r in caplog.records if "refused" in r.getMessage()]
        assert len(refusals) == 4 and all(r.exc_info is None for r in refusals)
        assert "nested 8000 deep" in refusals[0].getMessage()
    finally:
        pub.stop()
        store.close()


def test_the_hall_page_shows_what_the_desk_set_aside(
    tmp_path: Path, broker: LocalBroker, desk: Desk
) -> None:
    """The referee sees it: the table's card on the hall page (real Chromium) counts the
    messages set aside and names the latest problem."""
    from playwright.sync_api import sync_playwright

    from dashboard.app import create_app
    from dashboard.users import UserStore
    from tests.dashboard.browser import CHROMIUM, CHROMIUM_ARGS, LiveServer
    from tests.dashboard.conftest import FAST_HASH, PASSWORD

    bad = Attacker(broker, "t2")
    bad.send("tablescan/hall/t2/events", b"[" * 100_000 + b"]" * 100_000)
    bad.close()
    wait_for(lambda: desk.links().get("t2", {}).get("poison") == 1, 10, "the poison set aside")
    UserStore(desk.store.data_dir).add("ref1", "referee", PASSWORD, n=FAST_HASH)
    hub = DeskHub(desk.store, poll_s=0.05)
    hub.desk = desk
    server = LiveServer(create_app(desk.store.data_dir, hub=hub, SSE_PING_S=1.0))
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page()
            page.goto(server.url + "/login")
            page.fill("input[name=username]", "ref1")
            page.fill("input[name=password]", PASSWORD)
            page.click("button[type=submit]")
            page.wait_for_selector('a.tcard .poison[data-poison="1"]', timeout=10_000)
            text = page.inner_text("a.tcard .poison")
            assert "nested 100000 deep" in text and "1" in text
            browser.close()
    finally:
        hub.stop()
        server.close()
