"""One judge per table. A node-like writer in another process stores events and its referee's
rulings; the hub on the same data folder only reads them (it writes no ruling), and a doubted
read never shows as a firm accusation: not in the store, the API, the SSE stream or the export
bundle. A table no node judges is judged once, by the dashboard's desk referee."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

from flask import Flask

from dashboard.app import create_app
from dashboard.desk import load_record
from dashboard.hub import Hub
from engine.games import referee_for
from evidence import EvidenceStore
from tests.dashboard.conftest import login, match_record
from tests.dashboard.test_api import read_sse

ROOT = Path(__file__).resolve().parents[2]
DOUBTED = "1:wrong_count:2:26"  # an immediate violation on the play at seq 26


def doubted_record() -> list[dict[str, Any]]:
    """The simulated match with a ``needs_referee`` on the play at seq 26 (the wrong count)."""
    events = match_record()
    at = next(i for i, e in enumerate(events) if e["seq"] == 26)
    ask = {
        "v": 1,
        "seq": 27,
        "t": events[at]["t"] + 0.1,
        "type": "needs_referee",
        "ref": 26,
        "candidates": [{"cards": events[at]["cards"], "confidence": 0.55}],
        "reason": "overlap",
    }
    rest = [{**e, "seq": e["seq"] + 1} for e in events[at + 1 :]]
    return [*events[: at + 1], ask, *rest]


def run_node_writer(record: list[dict[str, Any]], data: Path, table: str, hub: Hub) -> int:
    """The node-like writer in a subprocess while ``hub`` polls; returns the rulings it stored."""
    path = data.parent / f"{table}.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in record))
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.dashboard.node_writer",
            str(path),
            "--data",
            str(data),
            "--table",
            table,
            "--delay",
            "0.002",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert out.returncode == 0, out.stderr
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        hub.poll()
        table_ = hub.tables.get(table)
        if table_ is not None and table_.seq == record[-1]["seq"]:
            break
        time.sleep(0.02)
    return int(out.stdout.split("ruled ")[1].split()[0])


def violations_in(rows: list[Any]) -> list[dict[str, Any]]:
    return [r.data for r in rows if r.data.get("kind") == "violation"]


def test_a_node_table_is_judged_by_the_node_alone(tmp_path: Path) -> None:
    record = doubted_record()
    data = tmp_path / "data"
    store = EvidenceStore(data, durable=False)
    hub = Hub(store, poll_s=0.02)
    hub.start()
    try:
        ruled = run_node_writer(record, data, "t5", hub)
    finally:
        hub.stop()
    live = hub.tables["t5"]
    assert live.seq == record[-1]["seq"] and live.judge == "node"
    rows = store.rows(table="t5", kind="ruling")
    assert len(rows) == ruled > 0  # every ruling in the chain is the node's: one ruling set
    found = violations_in(rows)
    assert len({v["id"] for v in found}) == len(found)  # each violation ruled once
    # the node's rulings are what its referee gives for the record: nothing added, nothing lost
    ref = referee_for(record[0])
    direct = [r for e in record for r in ref.feed(e)]
    assert sorted(v["id"] for v in found) == sorted(
        r["id"] for r in direct if r["kind"] == "violation"
    )
    doubted = [v for v in found if v["id"] == DOUBTED]
    assert doubted and all(v["provisional"] for v in doubted)
    view = {v["id"]: v for v in live.view["violations"]}
    assert set(view) == {v["id"] for v in found} and view[DOUBTED]["provisional"] is True
    # trick winners on screen are the node's trick rulings
    tricks = [r.data for r in rows if r.data["kind"] == "trick"]
    assert [t["winner"] for t in live.view["tricks"]] == [t["winner"] for t in tricks]
    # a dashboard restarted on the same store rebuilds the same view and stores nothing
    again = Hub(store)
    again.poll()
    assert again.tables["t5"].view["violations"] == live.view["violations"]
    assert len(store.rows(kind="ruling")) == ruled
    store.close()


def test_a_doubted_read_is_never_firm_anywhere(tmp_path: Path) -> None:
    from dashboard.users import UserStore
    from tests.dashboard.conftest import FAST_HASH, PASSWORD

    data = tmp_path / "data"
    UserStore(data).add("ref1", "referee", PASSWORD, n=FAST_HASH)
    store = EvidenceStore(data, durable=False)
    hub = Hub(store)
    app: Flask = create_app(data, hub=hub, start_hub=False, SSE_PING_S=0.2)
    run_node_writer(doubted_record(), data, "t1", hub)
    desk = doubted_record()  # and the same record loaded for the desk referee
    load_record(store, "d1", desk, by="test")
    hub.poll()
    c = app.test_client()
    login(c, "ref1")
    for tid in ("t1", "d1"):
        ruled = [v for v in violations_in(store.rows(table=tid, kind="ruling"))]
        assert [v["provisional"] for v in ruled if v["id"] == DOUBTED] == [True], tid
        state = c.get(f"/api/tables/{tid}/state").get_json()
        assert _doubted(state["violations"])["provisional"] is True
        (msg,) = read_sse(c, f"/api/tables/{tid}/stream", {}, 1)
        assert msg["event"] == "state"
        assert _doubted(json.loads(msg["data"])["violations"])["provisional"] is True
        bundle = c.get(f"/api/tables/{tid}/export")
        assert bundle.status_code == 200
        with zipfile.ZipFile(io.BytesIO(bundle.data)) as zf:
            lines = zf.read("rulings.jsonl").decode().splitlines()
        exported = [json.loads(x) for x in lines]
        assert [r["provisional"] for r in exported if r.get("id") == DOUBTED] == [True], tid
        assert sum(1 for r in exported if r.get("kind") == "violation") == len(ruled)
    assert hub.tables["d1"].judge == "dashboard" and hub.tables["t1"].judge == "node"
    store.close()


def _doubted(violations: list[dict[str, Any]]) -> dict[str, Any]:
    return next(v for v in violations if v["id"] == DOUBTED)


def test_a_stream_gets_deltas_that_rebuild_the_state(tmp_path: Path) -> None:
    """The hub serialises each change once; a client applying the deltas to its first state
    holds exactly the state a new client gets."""
    store = EvidenceStore(tmp_path, durable=False)
    hub = Hub(store)
    events = match_record()
    load_record(store, "t1", events[:30], by="test")
    hub.poll()
    table = hub.tables["t1"]
    from dashboard.sse import table_stream

    stream = table_stream(hub, "t1", None, 0.01)
    assert next(stream).startswith(b"retry")
    view = _data(next(stream))
    for e in events[30:70]:
        store.append_event("t1", e)
        hub.poll()
        msg = next(stream)
        while msg.startswith(b":"):
            msg = next(stream)
        assert b"event: delta" in msg
        delta = _data(msg)
        assert delta["base"] == view["version"]
        view.update(delta.get("set", {}))
        for key, items in delta.get("append", {}).items():
            view[key] = view[key] + items
        view["version"] = delta["version"]
    assert view == json.loads(table.state_json())
    store.close()


def _data(msg: bytes) -> dict[str, Any]:
    line = next(x for x in msg.decode().splitlines() if x.startswith("data: "))
    return json.loads(line[6:])  # type: ignore[no-any-return]


def test_a_node_table_cannot_be_taken_over_by_the_desk(tmp_path: Path) -> None:
    import pytest

    from evidence import StoreError

    store = EvidenceStore(tmp_path / "data", durable=False)
    hub = Hub(store)
    run_node_writer(match_record()[:40], tmp_path / "data", "t1", hub)
    with pytest.raises(StoreError, match="already judged by its table node"):
        hub.judge_table("t1")
    store.close()


def test_a_deals_result_is_provisional_while_one_of_its_reads_awaits_a_referee() -> None:
    """Levels after a deal rest on every read of the deal: while one awaits a referee the
    deal's row (and the match result after it) is provisional, on the page and the overlay,
    and firm once a referee settles the read."""
    from dashboard.view import TableFold, public_view

    events = [e for e in match_record(seed=2, hands=2, inject=0) if e["type"] != "match_end"]
    ref = referee_for(events[0])
    fold = TableFold("t1")
    first = next(e for e in events if e["type"] == "play")
    seq = events[-1]["seq"]
    for e in events:
        fold.event(e, 0.0)
        for r in ref.feed(e):
            fold.ruling(r)
    doubt = {"v": 1, "seq": seq + 1, "t": 1e4, "type": "needs_referee", "ref": first["seq"]}
    fold.event(doubt, 0.0)
    fold.event({"v": 1, "seq": seq + 2, "t": 1e4, "type": "match_end", "reason": "referee"}, 0.0)
    match = fold.view["match"]
    assert [h["provisional"] for h in match["hands"]] == [True, False] and match["provisional"]
    public = public_view(fold.view)["match"]
    assert public is not None and public["provisional"] and public["hands"][0]["provisional"]
    stands = {"type": "ruling", "ref": f"seq:{first['seq']}", "decision": "stands", "by": "r1"}
    fold.event({"v": 1, "seq": seq + 3, "t": 1e4, **stands}, 0.0)
    match = fold.view["match"]
    assert [h["provisional"] for h in match["hands"]] == [False, False]
    assert not match["provisional"]
