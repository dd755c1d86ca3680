"""The hash chain: append, idempotent re-send, refusals, and tamper detection on real files."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from evidence import EvidenceStore, StoreError
from evidence.verify import verify_store
from tests.store.records import sample_record


def fill(tmp_path: Path) -> EvidenceStore:
    store = EvidenceStore(tmp_path, durable=False)
    for e in sample_record():
        sha = store.add_media(f"jpeg of {e['seq']}".encode(), table="t1", seq=e["seq"])
        assert len(sha) == 64
        store.append_event("t1", e)
    store.append_ruling("t1", {"rule": "revoke", "seat": 1, "at_seq": 5, "proven_by_seq": 9})
    store.append_action("t1", {"action": "uphold", "by": "ref1", "note": "clear revoke"})
    return store


def test_append_assigns_and_checks_seq(tmp_path: Path) -> None:
    store = EvidenceStore(tmp_path, durable=False)
    start, hand, bury = sample_record()[:3]
    assert store.append_event("t1", {k: v for k, v in start.items() if k != "seq"}) == 0
    assert store.append_event("t1", hand) == 1
    # a re-send of a stored event is a no-op returning its seq
    assert store.append_event("t1", dict(hand)) == 1
    assert [e["seq"] for e in store.events("t1")] == [0, 1]
    with pytest.raises(StoreError, match="seq 1 is already stored with different content"):
        store.append_event("t1", {**bury, "seq": 1})
    with pytest.raises(StoreError, match="seq 5 leaves a gap after seq 1"):
        store.append_event("t1", {**bury, "seq": 5})
    with pytest.raises(StoreError, match="table t1: seq 2, field 'count'"):
        store.append_event("t1", {**bury, "count": "eight"})
    with pytest.raises(StoreError, match="unknown event type 'shuffle'"):
        store.append_event("t1", {**bury, "type": "shuffle"})
    with pytest.raises(StoreError, match="table id"):
        store.append_event("../x", bury)
    assert store.rejected == 4
    assert store.append_event("t1", bury) == 2
    # the other table's seq is independent
    assert store.append_event("t2", start) == 0
    assert store.tables() == ["t1", "t2"]


def test_rows_are_append_only(tmp_path: Path) -> None:
    fill(tmp_path).close()
    db = sqlite3.connect(tmp_path / "evidence.sqlite3")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("UPDATE chain SET body = 'x' WHERE id = 3")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("DELETE FROM chain WHERE id = 3")
    db.close()


def test_ruling_is_stored_once(tmp_path: Path) -> None:
    store = EvidenceStore(tmp_path, durable=False)
    ruling = {"rule": "revoke", "seat": 1, "at_seq": 5, "proven_by_seq": 9}
    assert store.append_ruling("t1", ruling) is True
    assert store.append_ruling("t1", dict(ruling)) is False
    assert len(store.rows(kind="ruling")) == 1


def test_clean_store_verifies(tmp_path: Path) -> None:
    fill(tmp_path).close()
    report = verify_store(tmp_path)
    assert report.ok, report.summary()
    assert report.rows > 40 and report.media_checked == len(sample_record())


def test_flipped_byte_in_a_row_is_named(tmp_path: Path) -> None:
    fill(tmp_path).close()
    raw = (tmp_path / "evidence.sqlite3").read_bytes()
    # the WAL is checkpointed on close: the rows live in the main file; flip one byte of a card
    needle = b'"cards":["KH"]'
    pos = raw.index(needle) + len(b'"cards":["K')
    flipped = raw[:pos] + b"Q" + raw[pos + 1 :]
    (tmp_path / "evidence.sqlite3").write_bytes(flipped)
    report = verify_store(tmp_path)
    assert not report.ok
    first = report.first_broken
    assert first is not None
    assert "hash mismatch" in first.what and "event table t1 seq" in first.where


def test_flipped_byte_in_media_is_named(tmp_path: Path) -> None:
    store = fill(tmp_path)
    sha = store.add_media(b"\xff\xd8 a frame \xff\xd9", table="t1", seq=7)
    path = store.media_path(sha)
    store.close()
    assert path is not None
    data = bytearray(path.read_bytes())
    data[3] ^= 0x01
    path.write_bytes(bytes(data))
    report = verify_store(tmp_path)
    assert [str(p) for p in report.problems] == [
        f"media {sha[:2]}/{sha}.jpg: content altered (sha256 differs)"
    ]


def test_missing_media_and_missing_database(tmp_path: Path) -> None:
    store = fill(tmp_path)
    sha = store.add_media(b"lost frame")
    path = store.media_path(sha)
    store.close()
    assert path is not None
    path.unlink()
    assert "missing (never pruned)" in verify_store(tmp_path).summary()
    assert "no evidence database" in verify_store(tmp_path / "nowhere").summary()
