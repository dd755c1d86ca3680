"""Retention never deletes what a ruling or an open dispute references; verify knows a prune."""

from __future__ import annotations

from pathlib import Path

from evidence import EvidenceStore
from evidence.retention import (
    RetentionLoop,
    close_dispute,
    open_dispute,
    protected_media,
    prune,
)
from evidence.verify import verify_store
from tests.store.records import sample_record


def setup(tmp_path: Path) -> tuple[EvidenceStore, dict[int, str]]:
    clock = [1000.0]
    store = EvidenceStore(tmp_path, clock=lambda: clock[0], durable=False)
    by_seq: dict[int, str] = {}
    for e in sample_record():
        if e["type"] == "play":  # evidence named in the event, plus a frame tied by seq
            store.add_media(f"named {e['seq']}".encode(), name=e["evidence"])
            by_seq[e["seq"]] = store.add_media(
                f"tied {e['seq']}".encode(), table="t1", seq=e["seq"]
            )
        store.append_event("t1", e)
        clock[0] += 10
    return store, by_seq


def test_age_prune_keeps_ruling_and_dispute_evidence(tmp_path: Path) -> None:
    store, by_seq = setup(tmp_path)
    plays = sorted(by_seq)
    store.append_ruling(
        "t1", {"rule": "revoke", "seat": 1, "at_seq": plays[1], "proven_by_seq": plays[5]}
    )
    dispute = open_dispute(store, "t1", [plays[7]], by="ref1", note="seat 3 claims misread")
    protected = protected_media(store)
    for seq in (plays[1], plays[5], plays[7]):
        assert by_seq[seq] in protected
    named = store.resolve_media(store.events("t1", plays[1] - 1)[0]["evidence"])
    assert named in protected

    result = prune(store, max_age_s=0, now=10_000.0)
    assert by_seq[plays[0]] in result.deleted
    assert result.kept_protected == 6
    for seq in (plays[1], plays[5], plays[7]):
        assert store.media_path(by_seq[seq]) is not None
    assert store.media_path(by_seq[plays[0]]) is None
    report = verify_store(tmp_path)
    assert report.ok, report.summary()
    assert report.media_pruned == len(result.deleted)

    close_dispute(store, "t1", dispute, by="head1", note="camera was right")
    assert by_seq[plays[7]] in prune(store, max_age_s=0, now=10_000.0).deleted
    assert store.media_path(by_seq[plays[1]]) is not None  # the ruling still holds it


def test_space_prune_deletes_oldest_first_until_under_budget(tmp_path: Path) -> None:
    store, _ = setup(tmp_path)
    sizes = sum(m["size"] for m in store.media_index())
    result = prune(store, max_media_bytes=sizes - 30, now=2000.0)
    remaining = [m for m in store.media_index() if m["pruned_at"] is None]
    assert 0 < len(result.deleted) < 8
    assert sum(m["size"] for m in remaining) <= sizes - 30
    oldest = min(m["created"] for m in remaining)
    assert all(m["created"] <= oldest for m in store.media_index() if m["sha256"] in result.deleted)
    assert prune(store, max_age_s=10**9, now=2000.0).deleted == []


def test_retention_loop_prunes_on_its_own(tmp_path: Path) -> None:
    store, by_seq = setup(tmp_path)
    loop = RetentionLoop(store, max_age_s=0, min_free_bytes=None, every_s=3600)
    result = loop.run_once()
    assert len(result.deleted) == 2 * len(by_seq)  # nothing is protected: every file goes
    assert verify_store(tmp_path).ok
