"""Export one match (or one hand of it) as a self-verifying zip bundle for a dispute.

Match ids are ``TABLE:N`` (the N-th ``match_start`` on that table, from 1) or just ``TABLE``
(its latest match). The bundle holds ``record.jsonl`` (the events), ``rulings.jsonl``,
``actions.jsonl`` (referee actions on that table), ``chain.jsonl`` (the chained rows behind
them, hashes included), the evidence files under ``media/``, ``report.html`` and
``report.pdf`` (the committee's reading: ``evidence.report``), ``manifest.json`` with the
sha256 of every file, the node's signed chain head and public key, and ``signature.json``: the
node's Ed25519 signature over the manifest, so that no file can be dropped or edited and the
bundle re-hashed without the node's key.

Export never signs a head: it carries the one the node signed when it appended its last rows,
and refuses a store that does not verify (a cut tail, a missing ``head.json``, a rewritten
row), so a damaged store cannot be laundered into a bundle that verifies.
"""

from __future__ import annotations

import io
import json
import struct
import subprocess
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.record import Event
from evidence.chain import canonical_json, is_sha256, sha256_bytes
from evidence.retention import _cited_seqs, _strings
from evidence.signing import public_hex, sign
from evidence.store import EvidenceStore, Row, StoreError
from evidence.verify import (
    BUNDLE_FORMAT,
    EOCD_SIG,
    SEAL_PREFIX,
    SIGNATURE_FILE,
    SIGNATURE_FORMAT,
    manifest_hash,
    verify_store,
)


@dataclass(frozen=True)
class MatchRef:
    table: str
    number: int | None  # None: the latest

    @classmethod
    def parse(cls, text: str) -> MatchRef:
        table, _, num = text.partition(":")
        if not table or (num and not num.isdigit()):
            raise StoreError(f"match {text!r}: expected TABLE or TABLE:N (N from 1)")
        return cls(table, int(num) if num else None)


def match_spans(events: list[Event]) -> list[tuple[int, int]]:
    """(first seq, last seq) of each match in a table's record, in order."""
    spans: list[tuple[int, int]] = []
    for e in events:
        if e.get("type") == "match_start":
            spans.append((e["seq"], e["seq"]))
        elif spans:
            spans[-1] = (spans[-1][0], e["seq"])
    return spans


def select_events(events: list[Event], ref: MatchRef, hand: int | None) -> list[Event]:
    """The events of one match (and one hand: its match_start, the hand, corrections to it)."""
    spans = match_spans(events)
    if not spans:
        raise StoreError(f"table {ref.table}: no match_start in the record")
    n = ref.number or len(spans)
    if not 1 <= n <= len(spans):
        raise StoreError(f"table {ref.table}: match {n} does not exist (1..{len(spans)})")
    lo, hi = spans[n - 1]
    chosen = [e for e in events if lo <= e["seq"] <= hi]
    if hand is None:
        return chosen
    keep: list[Event] = []
    in_hand = False
    hand_seqs: set[int] = set()
    for e in chosen:
        kind = e.get("type")
        if kind == "hand_start":
            in_hand = e.get("hand") == hand
        if kind == "match_start" or in_hand:
            keep.append(e)
            hand_seqs.add(e["seq"])
        elif kind == "correction" and e.get("ref") in hand_seqs:
            keep.append(e)
        if kind == "hand_end":
            in_hand = False
    if len(keep) <= 1:
        raise StoreError(f"table {ref.table}: match {n} has no hand {hand}")
    return keep


def export_bundle(
    store: EvidenceStore,
    match: str,
    out: str | Path,
    *,
    hand: int | None = None,
    report: bool = True,
    lang: str = "zh",
    violation: str | None = None,
    witness: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Write the bundle to ``out``; returns its manifest. With ``report`` (the default) it
    also holds ``report.html`` and ``report.pdf`` (``evidence.report``: ``lang`` zh or en,
    ``violation`` one id to report on), inside the manifest like every other file.
    ``witness``: what a desk's witness log says of this head (``evidence.witness``), printed
    in the report. Raises StoreError, writing nothing, when the store does not verify."""
    head = store.signed_head()  # signs only rows this process appended and left unsigned
    check = verify_store(store.data_dir)
    if not check.ok:
        more = f" (and {len(check.problems) - 1} more)" if len(check.problems) > 1 else ""
        raise StoreError(
            f"{store.data_dir} does not verify, nothing exported: {check.problems[0]}{more}"
        )
    ref = MatchRef.parse(match)
    events = select_events(store.events(ref.table), ref, hand)
    seqs = {e["seq"] for e in events}
    rows = store.rows(table=ref.table)
    event_rows = [r for r in rows if r.kind == "event" and r.seq in seqs]
    rulings = [r for r in rows if r.kind == "ruling" and _cited_seqs(r.data) & seqs]
    lo, hi = min(seqs), max(seqs)
    first_id, last_id = event_rows[0].id, event_rows[-1].id
    actions = [
        r
        for r in rows
        if r.kind == "action" and (first_id <= r.id <= last_id or _cited_seqs(r.data) & seqs)
    ]
    media_ids: set[str] = set()
    for e in events:
        media_ids.update(_strings(e.get("evidence")))
    for r in rulings:
        media_ids.update(_strings(r.data))
    shas = {s for s in (store.resolve_media(m) for m in media_ids if m) if s}
    shas |= {
        m["sha256"]
        for m in store.media_index()
        if m["table"] == ref.table and m["seq"] is not None and lo <= m["seq"] <= hi
    }
    media_rows = [r for r in store.rows(kind="media") if r.data.get("sha256") in shas]
    chain = sorted(event_rows + rulings + actions + media_rows, key=lambda r: r.id)
    files: dict[str, bytes] = {
        "record.jsonl": _jsonl(e for e in events),
        "rulings.jsonl": _jsonl(r.data for r in rulings),
        "actions.jsonl": _jsonl({"at": r.at, **r.data} for r in actions),
        "chain.jsonl": _jsonl(_raw(r) for r in chain),
    }
    missing: list[str] = []
    member: dict[str, str] = {}  # sha256 → its file in the bundle
    for r in media_rows:
        sha = r.data["sha256"]
        path = store.media_path(sha)
        if path is None:
            missing.append(sha)
            continue
        member[sha] = f"media/{Path(r.data['file']).name}"
        files[member[sha]] = path.read_bytes()
    exported_at = time.time()
    if report:  # the human report, built from the bundle's own files (issue 19)
        from evidence.report import build_report, print_pdf

        info = {
            "match": f"{ref.table}:{ref.number}" if ref.number else ref.table,
            "table": ref.table,
            "exported_at": exported_at,
            "chain_tip": chain[-1].hash if chain else None,
            "chain_rows": [chain[0].id, chain[-1].id] if chain else [],
            "head": head,
            "witness": witness,
            "media": {
                m: member[sha] for m in media_ids if (sha := store.resolve_media(m)) in member
            },
        }
        page = build_report(files, info, lang=lang, violation=violation)
        try:
            files["report.pdf"] = print_pdf(page)
        except (RuntimeError, OSError, subprocess.SubprocessError) as e:
            raise StoreError(str(e)) from e
        files["report.html"] = page.encode("utf-8")
    manifest: dict[str, Any] = {
        "format": BUNDLE_FORMAT,
        "match": f"{ref.table}:{ref.number}" if ref.number else ref.table,
        "hand": hand,
        "table": ref.table,
        "seqs": [lo, hi],
        "exported_at": exported_at,
        "chain_rows": [chain[0].id, chain[-1].id] if chain else [],
        "chain_tip": chain[-1].hash if chain else None,
        "media_pruned": missing,
        "files": {n: {"sha256": sha256_bytes(b), "size": len(b)} for n, b in files.items()},
    }
    key = store.signing_key()
    if head is None or head.get("key") != public_hex(key.public_key()):
        raise StoreError(f"{store.data_dir}: its head is not signed by this node's key")
    manifest["head"] = head  # the node's signed end of its chain when the bundle was made
    manifest["public_key"] = head["key"] if head else None
    manifest["manifest_sha256"] = manifest_hash(manifest)
    signature = sign(
        key, {"format": SIGNATURE_FORMAT, "manifest_sha256": manifest["manifest_sha256"]}
    )
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
        zf.writestr("manifest.json", json.dumps(manifest, indent=2, sort_keys=True))
        zf.writestr(SIGNATURE_FILE, json.dumps(signature, indent=2, sort_keys=True))
    Path(out).write_bytes(seal_zip(buf.getvalue()))
    return manifest


def seal_zip(raw: bytes) -> bytes:
    """Put sha256 of every byte before the end record into the zip comment, so that even bytes
    zip readers ignore (local header CRCs, timestamps) are covered by ``verify``."""
    if raw[-22:-18] != EOCD_SIG or raw[-2:] != b"\0\0":
        raise StoreError("zip writer produced an unexpected end record")
    comment = SEAL_PREFIX + sha256_bytes(raw[:-22]).encode()
    return raw[:-2] + struct.pack("<H", len(comment)) + comment


def _jsonl(items: Any) -> bytes:
    return "".join(canonical_json(x) + "\n" for x in items).encode()


def _raw(r: Row) -> dict[str, Any]:
    return {
        "id": r.id,
        "kind": r.kind,
        "table": r.table,
        "seq": r.seq,
        "body": r.body,
        "prev": r.prev,
        "hash": r.hash,
    }


__all__ = ["MatchRef", "export_bundle", "is_sha256", "match_spans", "select_events"]
