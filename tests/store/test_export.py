"""Export bundles: what goes in, and that ``verify`` catches any altered byte."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from evidence import EvidenceStore, StoreError
from evidence.export import export_bundle
from evidence.verify import verify_bundle
from tests.store.records import sample_record


def make_bundle(tmp_path: Path, hand: int | None = None) -> Path:
    store = EvidenceStore(tmp_path / "data", durable=False)
    for e in sample_record():
        if e["type"] == "play":
            store.add_media(f"frame {e['seq']}".encode(), name=e["evidence"])
        store.append_event("t1", e)
    store.append_ruling("t1", {"rule": "revoke", "seat": 1, "at_seq": 5, "proven_by_seq": 9})
    store.append_action("t1", {"action": "uphold", "by": "ref1", "at_seq": 5, "note": "ok"})
    out = tmp_path / "bundle.zip"
    export_bundle(store, "t1:1", out, hand=hand)
    store.close()
    return out


def test_bundle_holds_record_rulings_frames_and_verifies(tmp_path: Path) -> None:
    out = make_bundle(tmp_path)
    report = verify_bundle(out)
    assert report.ok, report.summary()
    with zipfile.ZipFile(out) as zf:
        names = zf.namelist()
        record = [json.loads(x) for x in zf.read("record.jsonl").splitlines()]
        manifest = json.loads(zf.read("manifest.json"))
    assert len(record) == len(sample_record())
    assert sum(n.startswith("media/") for n in names) == 24
    assert {"rulings.jsonl", "actions.jsonl", "chain.jsonl"} <= set(names)
    assert manifest["match"] == "t1:1" and manifest["files"]["record.jsonl"]["sha256"]


def test_hand_bundle_has_only_that_hand(tmp_path: Path) -> None:
    out = make_bundle(tmp_path, hand=2)
    assert verify_bundle(out).ok
    with zipfile.ZipFile(out) as zf:
        record = [json.loads(x) for x in zf.read("record.jsonl").splitlines()]
    assert record[0]["type"] == "match_start"
    assert [e.get("hand") for e in record if e["type"] == "hand_start"] == [2]


def test_unknown_match_or_hand_is_a_clear_error(tmp_path: Path) -> None:
    make_bundle(tmp_path)
    store = EvidenceStore(tmp_path / "data", durable=False)
    with pytest.raises(StoreError, match="match 3 does not exist"):
        export_bundle(store, "t1:3", tmp_path / "x.zip")
    with pytest.raises(StoreError, match="has no hand 9"):
        export_bundle(store, "t1", tmp_path / "x.zip", hand=9)
    with pytest.raises(StoreError, match="expected TABLE or TABLE:N"):
        export_bundle(store, "t1:x", tmp_path / "x.zip")


def test_every_altered_byte_is_detected(tmp_path: Path) -> None:
    out = make_bundle(tmp_path)
    raw = out.read_bytes()
    # flip one byte at many positions across the whole zip (headers, data, directory)
    step = max(1, len(raw) // 150)
    for pos in range(0, len(raw), step):
        bad = bytearray(raw)
        bad[pos] ^= 0x20
        (tmp_path / "bad.zip").write_bytes(bytes(bad))
        assert not verify_bundle(tmp_path / "bad.zip").ok, f"flip at byte {pos} went unnoticed"


def test_rewritten_member_with_fresh_crc_is_detected(tmp_path: Path) -> None:
    out = make_bundle(tmp_path)
    with zipfile.ZipFile(out) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    members["record.jsonl"] = members["record.jsonl"].replace(b'"KH"', b'"QH"', 1)
    with zipfile.ZipFile(tmp_path / "forged.zip", "w") as zf:
        for n, d in members.items():
            zf.writestr(n, d)
    problems = [str(p) for p in verify_bundle(tmp_path / "forged.zip").problems]
    assert "record.jsonl: content altered (sha256 differs)" in problems
