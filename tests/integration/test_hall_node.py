"""A real ``tablescan run`` with ``[hall]`` in its config, a real Mosquitto (the shipped ACL, a
password file) and the desk: the desk ends up holding every event of the node's store once,
with the node's signed chain head in the table's retained state."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

from evidence.store import EvidenceStore
from hall.broker import LocalBroker
from hall.config import HallConfig
from hall.desk import Desk
from tablescan.config import dump_config, load_config
from tablescan.render import RenderResult

ROOT = Path(__file__).resolve().parents[2]
DESK_PW = "desk-pw"
TABLE_PW = "table-pw"


def config_elsewhere(clip: RenderResult, folder: Path, **sections: dict[str, Any]) -> Path:
    """The clip's table.toml, written in ``folder`` (its video named by absolute path)."""
    raw = tomllib.loads(clip.table.read_text())
    raw["source"]["uri"] = str(clip.video.resolve())
    raw.update(sections)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "table.toml"
    path.write_text(dump_config(raw))
    load_config(path)  # the written file passes the checks
    return path


def node(config: Path, data: Path, cwd: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tablescan", "run", "--config", str(config), "--detector",
         "labels", "--data", str(data), *extra],
        cwd=cwd, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip


def wait_for(cond: Any, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.1)
    return False


def test_a_hall_table_node_delivers_its_whole_record_to_the_desk(
    hand_clip: RenderResult, tmp_path: Path
) -> None:
    table = load_config(hand_clip.table).table_id
    with LocalBroker(
        tmp_path / "broker", {"desk": DESK_PW, table: TABLE_PW}, hall="spring"
    ) as broker:
        (tmp_path / "hall.pw").write_text(TABLE_PW + "\n")
        config = config_elsewhere(
            hand_clip,
            tmp_path / "conf",
            hall={"broker": broker.url, "name": "spring", "password_file": "../hall.pw"},
        )
        desk_store = EvidenceStore(tmp_path / "desk", durable=False)
        desk = Desk(desk_store, HallConfig(broker=broker.url, hall="spring", password=DESK_PW))
        desk.start()
        try:
            assert wait_for(desk.connected.is_set)
            data = tmp_path / "data"
            done = node(config, data, tmp_path)
            assert done.returncode == 0, done.stderr[-3000:]
            mine = EvidenceStore(data)
            try:
                want = [(e["seq"], e["type"]) for e in mine.events(table)]
            finally:
                mine.close()
            assert len(want) > 10 and want[-1][1] == "hand_end"

            def delivered() -> bool:
                got = [(e["seq"], e["type"]) for e in desk_store.events(table)]
                return got == want

            assert wait_for(delivered), desk.links()
            assert desk.stats["refused"] == 0
            assert desk.verify(table).ok
            assert wait_for(lambda: "signed_head" in desk.tables[table].state)
            head = desk.tables[table].state["signed_head"]
            assert head is not None and head["rows"] > 0 and head["sig"], desk.tables[table].state
            assert desk.tables[table].status == "offline"  # it said goodbye at exit
        finally:
            desk.stop()
            desk_store.close()
