"""Retention: free disk by age and space, never deleting evidence a ruling or dispute needs.

A media file is protected when a ruling, or an open dispute, references it: directly (its
sha256 or name among the ruling's values) or through an event the ruling cites (``at_seq``,
``proven_by_seq`` or any other ``*seq*`` field), whose ``evidence`` names the file or to which
the file was tied by ``add_media(..., table=, seq=)``. Each prune is itself a chained row, so
``verify`` can tell a pruned file from a missing one.
"""

from __future__ import annotations

import logging
import shutil
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from engine.record import Event
from evidence.chain import is_sha256
from evidence.store import EvidenceStore

log = logging.getLogger(__name__)


def _strings(value: Any) -> list[str]:
    """Every string inside a JSON value (evidence ids hide in lists and nested objects)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _cited_seqs(value: Any) -> set[int]:
    out: set[int] = set()
    if isinstance(value, dict):
        for k, v in value.items():
            if "seq" in k and isinstance(v, int) and not isinstance(v, bool):
                out.add(v)
            elif "seq" in k and isinstance(v, list):
                out.update(x for x in v if isinstance(x, int) and not isinstance(x, bool))
            else:
                out |= _cited_seqs(v)
    elif isinstance(value, list):
        for v in value:
            out |= _cited_seqs(v)
    return out


def open_disputes(store: EvidenceStore) -> dict[int, dict[str, Any]]:
    """Open disputes by id (the row id of their ``dispute_open`` action)."""
    opened: dict[int, dict[str, Any]] = {}
    for row in store.rows(kind="action"):
        what = row.data.get("action")
        if what == "dispute_open":
            opened[row.id] = {"table": row.table, **row.data}
        elif what == "dispute_close":
            opened.pop(int(row.data.get("dispute", -1)), None)
    return opened


def open_dispute(store: EvidenceStore, table: str, seqs: list[int], by: str, note: str = "") -> int:
    """Open a dispute over some plays: their evidence is kept until it is closed."""
    return store.append_action(
        table, {"action": "dispute_open", "seqs": seqs, "by": by, "note": note}
    )


def close_dispute(store: EvidenceStore, table: str, dispute: int, by: str, note: str = "") -> int:
    return store.append_action(
        table, {"action": "dispute_close", "dispute": dispute, "by": by, "note": note}
    )


def protected_media(store: EvidenceStore) -> set[str]:
    """sha256 of every media file that a ruling or an open dispute references."""
    refs: list[tuple[str, Any]] = [(r.table, r.data) for r in store.rows(kind="ruling")]
    refs += [(d["table"], d) for d in open_disputes(store).values()]
    index = store.media_index()
    by_name = {m["name"]: m["sha256"] for m in index if m["name"]}
    by_seq: dict[tuple[str, int], list[str]] = {}
    for m in index:
        if m["seq"] is not None:
            by_seq.setdefault((m["table"], m["seq"]), []).append(m["sha256"])
    protected: set[str] = set()
    events: dict[str, dict[int, Event]] = {}

    def add_ids(values: list[str]) -> None:
        for s in values:
            ident = s.removeprefix("sha256:")
            if is_sha256(ident):
                protected.add(ident)
            elif ident in by_name:
                protected.add(by_name[ident])

    for table, data in refs:
        add_ids(_strings(data))
        if table not in events:
            events[table] = {e["seq"]: e for e in store.events(table)}
        for seq in _cited_seqs(data):
            protected.update(by_seq.get((table, seq), []))
            event = events[table].get(seq)
            if event is not None:
                add_ids(_strings(event.get("evidence")))
    return protected


@dataclass
class PruneResult:
    deleted: list[str] = field(default_factory=list)
    freed_bytes: int = 0
    kept_protected: int = 0


def prune(
    store: EvidenceStore,
    *,
    max_age_s: float | None = None,
    min_free_bytes: int | None = None,
    max_media_bytes: int | None = None,
    space_budget_bytes: int | None = None,
    now: float | None = None,
) -> PruneResult:
    """Delete unprotected media older than ``max_age_s``, then oldest-first while the disk has
    less than ``min_free_bytes`` free or media exceed ``max_media_bytes``. For free disk it
    deletes at most ``space_budget_bytes`` (None: no cap), so a disk filled by something else
    costs no evidence (``RetentionLoop`` gives how much the evidence itself grew)."""
    now = time.time() if now is None else now
    protected = protected_media(store)
    live = [m for m in store.media_index() if m["pruned_at"] is None]
    result = PruneResult(kept_protected=sum(1 for m in live if m["sha256"] in protected))
    candidates = [m for m in live if m["sha256"] not in protected]  # oldest first
    chosen: list[dict[str, Any]] = []
    if max_age_s is not None:
        chosen = [m for m in candidates if now - m["created"] > max_age_s]
    rest = [m for m in candidates if m not in chosen]
    total = sum(m["size"] for m in live) - sum(m["size"] for m in chosen)
    free = shutil.disk_usage(store.media_dir).free + sum(m["size"] for m in chosen)
    for_space = 0
    for m in rest:
        short_disk = min_free_bytes is not None and free < min_free_bytes
        if short_disk and space_budget_bytes is not None:
            short_disk = for_space + m["size"] <= space_budget_bytes
        too_big = max_media_bytes is not None and total > max_media_bytes
        if not (short_disk or too_big):
            break
        if not too_big:
            for_space += m["size"]
        chosen.append(m)
        total -= m["size"]
        free += m["size"]
    if not chosen:
        return result
    shas = [m["sha256"] for m in chosen]
    reason = {"max_age_s": max_age_s, "min_free_bytes": min_free_bytes}
    reason["max_media_bytes"] = max_media_bytes
    store.record_prune(shas, reason, now)
    for m in chosen:
        path = store.media_dir / m["relpath"]
        path.unlink(missing_ok=True)
        result.deleted.append(m["sha256"])
        result.freed_bytes += m["size"]
    log.info("pruned %d media files (%d bytes)", len(chosen), result.freed_bytes)
    return result


class RetentionLoop:
    """Runs ``prune`` every ``every_s`` seconds in a daemon thread (``tablescan serve``)."""

    def __init__(
        self,
        store: EvidenceStore,
        *,
        max_age_s: float | None,
        min_free_bytes: int | None,
        every_s: float = 600.0,
    ) -> None:
        self.store = store
        self.max_age_s = max_age_s
        self.min_free_bytes = min_free_bytes
        self.every_s = every_s
        self.baseline: int | None = None  # live media bytes when the disk last had room
        self.disk_low = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="retention", daemon=True)

    def start(self) -> RetentionLoop:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def run_once(self) -> PruneResult:
        """One pass. Evidence is deleted for disk space only as far as evidence filled it:
        at most what the media grew since the disk last had ``min_free_bytes`` free (or since
        the loop started). A disk filled by anything else is reported loudly, never paid for
        with evidence."""
        live = sum(m["size"] for m in self.store.media_index() if m["pruned_at"] is None)
        free = shutil.disk_usage(self.store.media_dir).free
        if self.baseline is None:
            self.baseline = live
        budget: int | None = None
        self.disk_low = self.min_free_bytes is not None and free < self.min_free_bytes
        if not self.disk_low:
            self.baseline = live
        else:
            budget = max(0, live - self.baseline)
            mb = 1024 * 1024
            log.error(
                "DISK LOW: %s has %d MB free, under the %d MB asked for; the evidence grew %d MB "
                "since the disk had room, so at most that is pruned: the rest of the shortage "
                "is something else filling the disk (no evidence is deleted for it); free "
                "space or move the data folder",
                self.store.data_dir,
                free // mb,
                (self.min_free_bytes or 0) // mb,
                budget // mb,
            )
        self._note(free)
        return prune(
            self.store,
            max_age_s=self.max_age_s,
            min_free_bytes=self.min_free_bytes,
            space_budget_bytes=budget,
        )

    def _note(self, free: int) -> None:
        """What the dashboard's health page shows: the disk is low (``DATA/live/.disk.json``)."""
        from evidence.live import LiveFiles

        try:
            LiveFiles(self.store.data_dir).put_disk(
                {"low": self.disk_low, "free_bytes": free, "min_free_bytes": self.min_free_bytes}
            )
        except OSError as e:  # a full disk may refuse even this: the log line says it all
            log.warning("disk note not written: %s", e)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.run_once()
            except Exception:  # retention must never take the dashboard down
                log.exception("retention pass failed")
            self._stop.wait(self.every_s)
