"""The desk's witness log on its own (``evidence.witness``): pinning, heads that cut or rewrite,
one line per alarm however often it is sent, a torn last line after a kill."""

from __future__ import annotations

import json
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from evidence.signing import key_id, public_hex, sign_head
from evidence.witness import HeldRows, WitnessLog, read_log

TIP = "ab" * 32


def test_heads_are_pinned_witnessed_and_contradictions_alarmed(tmp_path: Path) -> None:
    node, stranger = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    log = WitnessLog(tmp_path, key_dir=tmp_path / "keys")
    held = HeldRows({5: TIP})
    assert log.receive("t1", sign_head(node, 5, TIP), held) is None
    assert log.receive("t1", sign_head(node, 5, TIP), held) is None  # a heartbeat: no line
    for _ in range(3):  # a forged state every heartbeat: one alarm line
        why = log.receive("t1", sign_head(stranger, 9, TIP), held)
        assert why and "not the pinned key" in why
    assert "cut" in str(log.receive("t1", sign_head(node, 4, "cd" * 32), held))
    assert "rewritten" in str(log.receive("t1", sign_head(node, 5, "cd" * 32), held))
    assert "no signature" in str(log.receive("t1", {"rows": 7}, held))
    tables, desk = read_log(tmp_path)
    assert desk is not None and key_id(desk) == log.desk_key_id
    tw = tables["t1"]
    assert tw.key == public_hex(node.public_key()) and tw.enrolled_by == "first seen"
    assert [h["rows"] for h in tw.heads] == [5] and len(tw.alarms) == 4
    lines = (tmp_path / "witness.jsonl").read_text().splitlines()
    assert [json.loads(x)["type"] for x in lines] == ["enrol", "head", *["alarm"] * 4]


def test_a_torn_last_line_is_dropped_and_the_log_goes_on(tmp_path: Path) -> None:
    node = Ed25519PrivateKey.generate()
    log = WitnessLog(tmp_path, key_dir=tmp_path / "keys")
    log.receive("t1", sign_head(node, 1, TIP), HeldRows({}))
    with open(tmp_path / "witness.jsonl", "ab") as f:
        f.write(b'{"type": "head", "tab')  # the desk killed mid-write
    assert [h["rows"] for h in read_log(tmp_path)[0]["t1"].heads] == [1]
    again = WitnessLog(tmp_path, key_dir=tmp_path / "keys")
    assert again.receive("t1", sign_head(node, 2, "cd" * 32), HeldRows({})) is None
    assert [h["rows"] for h in read_log(tmp_path)[0]["t1"].heads] == [1, 2]
