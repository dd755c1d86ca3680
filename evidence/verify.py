"""Verify a store directory or an exported bundle, naming the first broken link.

Verification never trusts the store's own indexes: it recomputes every row's
``sha256(prev ‖ body)``, checks each row points at the one before, that the indexed columns
match the hashed body, and re-hashes every media file the chain registered (a file a chained
prune notice removed is reported as pruned, not missing).

Integrity is not trust: anyone can re-hash a chain and sign it with a key of his own. So a
report says what its key was checked against (``pinned``): a key id the caller pins
(``verify --key``) or the desk's pinned key and witnessed heads (``evidence.witness``). An
intact record whose key was checked against nothing exits 3, never 0 (docs/evidence.md).

A bundle is read bounded: members are hashed as streams, each member's size and compression
ratio is checked before it is opened, and only the small JSON members are held in memory, so
a zip bomb is refused in seconds with one line.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import struct
import time
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evidence.chain import GENESIS, canonical_json, link_hash, sha256_bytes, sha256_file
from evidence.schema import DB_NAME, MEDIA_DIR
from evidence.signing import (
    HEAD_NAME,
    SignatureError,
    check,
    key_id,
    read_head,
)

BUNDLE_FORMAT = "tablescan-bundle/1"
SIGNATURE_FILE = "signature.json"
SIGNATURE_FORMAT = "tablescan-bundle-signature/1"
EOCD_SIG = b"PK\x05\x06"
SEAL_PREFIX = b"tablescan-sha256:"

#: the bounds of a bundle's reading (issue 27): what a genuine bundle never comes near
MAX_MEMBERS = 100_000
MAX_MEMBER_BYTES = 2 << 30  # one evidence file (a clip), uncompressed
MAX_TEXT_BYTES = 32 << 20  # one JSON member (chain, record, rulings, manifest), held in memory
MAX_TOTAL_BYTES = 16 << 30  # all members together, uncompressed
MAX_RATIO = 100  # uncompressed / compressed, for a member over RATIO_FLOOR bytes
RATIO_FLOOR = 1 << 20
CHUNK = 1 << 20
TEXT_MEMBERS = ("manifest.json", SIGNATURE_FILE, "chain.jsonl", "record.jsonl", "rulings.jsonl")


@dataclass(frozen=True)
class Problem:
    where: str
    what: str

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


@dataclass
class VerifyReport:
    source: str
    rows: int = 0
    first_row: int | None = None  # the lowest and highest chain row id checked (a bundle holds
    last_row: int | None = None  # only its match's rows, so not every id in between)
    media_checked: int = 0
    media_pruned: int = 0
    problems: list[Problem] = field(default_factory=list)
    signed_rows: int | None = None  # the rows the node's signed head covers
    key: str | None = None  # the signing node's public key (hex)
    pinned: str | None = None  # what the key was checked against: "key" or "desk"
    witnessed_rows: int | None = None  # the last row a desk witnessed (with --desk)
    head: dict[str, Any] | None = None  # the signed head checked
    hashes: dict[int, str] = field(default_factory=dict)  # chain row id → hash, as read
    tables: list[str] = field(default_factory=list)  # the tables whose rows these are

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def trusted(self) -> bool:
        """Intact and signed by a key checked against something outside the record."""
        return self.ok and self.pinned is not None

    @property
    def exit_code(self) -> int:
        """0 intact and trusted; 1 broken or contradicted; 3 intact, key checked against
        nothing."""
        return 1 if self.problems else 0 if self.pinned else 3

    @property
    def key_id(self) -> str | None:
        return key_id(self.key) if self.key else None

    @property
    def first_broken(self) -> Problem | None:
        return self.problems[0] if self.problems else None

    def summary(self) -> str:
        span = f" (row ids {self.first_row}–{self.last_row})" if self.first_row else ""
        head = (
            f"{self.source}: {self.rows} chained rows checked{span}, {self.media_checked} media"
            f" files checked, {self.media_pruned} pruned by retention"
        )
        if self.key:
            head += (
                f"; node key {key_id(self.key)} signed the node's chain up to row"
                f" {self.signed_rows}"
            )
        if self.ok and self.pinned:
            return head + ": OK"
        if self.ok:
            return head + ": intact, but its key was checked against nothing (no --key, no --desk)"
        lines = [head + f": {len(self.problems)} problem(s); first broken link:"]
        lines += [f"  {p}" for p in self.problems]
        return "\n".join(lines)


def _describe(kind: str, table: str, seq: Any) -> str:
    what = kind + (f" table {table}" if table else "")
    return what + (f" seq {seq}" if seq is not None else "")


def check_rows(
    rows: list[tuple[int, str, str, Any, str, str, str]], report: VerifyReport, *, linked: bool
) -> dict[str, Any]:
    """Check (id, kind, table, seq, body, prev, hash) rows; ``linked``: they start at genesis
    and are contiguous. Returns the media registered and pruned, for the file pass."""
    expected_prev = GENESIS
    last_id: int | None = None
    media: dict[str, str] = {}
    pruned: set[str] = set()
    for rid, kind, table, seq, body, prev, hsh in rows:
        where = f"row {rid} ({_describe(kind, table, seq)})"
        report.rows += 1
        report.first_row = rid if report.first_row is None else min(report.first_row, rid)
        report.last_row = rid if report.last_row is None else max(report.last_row, rid)
        contiguous = linked or (last_id is not None and rid == last_id + 1)
        if contiguous and prev != expected_prev:
            report.problems.append(Problem(where, "does not link to the row before it"))
        if link_hash(prev, body) != hsh:
            report.problems.append(Problem(where, "hash mismatch: its content was altered"))
        try:
            parsed = json.loads(body)
            if canonical_json(parsed) != body:
                raise ValueError("not canonical JSON")
            if (parsed["kind"], parsed["table"], parsed["seq"]) != (kind, table, seq):
                report.problems.append(Problem(where, "indexed columns differ from hashed body"))
            data = parsed["data"]
            if kind == "media":
                media[data["sha256"]] = data["file"]
            elif kind == "prune":
                pruned.update(data["media"])
        except (ValueError, KeyError, TypeError) as e:
            report.problems.append(Problem(where, f"body unreadable ({e})"))
        expected_prev = hsh
        last_id = rid
    return {"media": media, "pruned": pruned, "tip": expected_prev}


def verify_store(data_dir: str | Path) -> VerifyReport:
    """Check a node's store: SQLite's own integrity check, the whole chain, that it ends where
    the node last signed it, the media index against the chain, then every media file. A
    damaged file gives a verdict naming it, never a crash."""
    data_dir = Path(data_dir)
    report = VerifyReport(source=str(data_dir))
    try:
        _verify_store(data_dir, report)
    except Exception as e:  # any damage that stops reading is a broken store, never a crash
        report.problems.append(Problem(str(data_dir), f"unreadable ({type(e).__name__}: {e})"))
    return report


def _verify_store(data_dir: Path, report: VerifyReport) -> None:
    db_path = data_dir / DB_NAME
    if not db_path.exists():
        report.problems.append(Problem(str(db_path), "no evidence database here"))
        return
    try:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        try:
            integrity = [str(r[0]) for r in db.execute("PRAGMA integrity_check").fetchall()]
            if integrity != ["ok"]:
                for line in integrity[:5]:
                    report.problems.append(Problem(str(db_path), f"integrity check: {line}"))
            rows = db.execute(
                "SELECT id, kind, table_id, seq, body, prev, hash FROM chain ORDER BY id"
            ).fetchall()
            index = db.execute("SELECT sha256, relpath, pruned_at FROM media").fetchall()
        finally:
            db.close()
    except sqlite3.DatabaseError as e:
        report.problems.append(Problem(str(db_path), f"database unreadable ({e})"))
        return
    found = check_rows(rows, report, linked=True)
    report.hashes = {int(r[0]): str(r[6]) for r in rows}
    report.tables = sorted({str(r[2]) for r in rows if r[1] == "event"})
    if not rows:
        report.problems.append(Problem(str(db_path), "empty chain: no rows, nothing is proven"))
    if rows and rows[0][0] != 1:
        report.problems.append(Problem(f"row {rows[0][0]}", "the rows before it are missing"))
    _check_head(data_dir, rows, report)
    _check_index(index, found, report)
    media_dir = data_dir / MEDIA_DIR
    for sha, rel in found["media"].items():
        path = media_dir / rel
        if not path.exists():
            if sha in found["pruned"]:
                report.media_pruned += 1
            else:
                report.problems.append(Problem(f"media {rel}", "missing (never pruned)"))
            continue
        report.media_checked += 1
        if sha256_file(path) != sha:
            report.problems.append(Problem(f"media {rel}", "content altered (sha256 differs)"))


def _check_head(data_dir: Path, rows: list[Any], report: VerifyReport) -> None:
    """The chain must reach the row the node last signed, with the hash it signed."""
    where = str(data_dir / HEAD_NAME)
    try:
        head = read_head(data_dir)
    except (OSError, ValueError) as e:
        report.problems.append(Problem(where, f"signed head unreadable ({e})"))
        return
    if head is None:
        report.problems.append(
            Problem(where, "missing: no signed head, the end of the chain cannot be proven")
        )
        return
    try:
        check(head)
    except SignatureError as e:
        report.problems.append(Problem(where, f"signed head forged or damaged: {e}"))
        return
    report.signed_rows, report.key, report.head = head.get("rows"), str(head.get("key")), head
    _check_against_head(head, {int(r[0]): str(r[6]) for r in rows}, report, "store")


def _check_against_head(
    head: dict[str, Any], hashes: dict[int, str], report: VerifyReport, what: str
) -> None:
    signed = head.get("rows")
    if not isinstance(signed, int):
        report.problems.append(Problem("signed head", "no row count"))
        return
    last = max(hashes, default=0)
    when = head.get("at")
    at = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(when)) if _number(when) else "?"
    if what == "store" and last < signed:
        report.problems.append(
            Problem(
                f"rows {last + 1}..{signed}",
                f"tail missing: the node signed {signed} rows at {at}, the {what} ends at "
                f"row {last}",
            )
        )
    elif signed in hashes and hashes[signed] != head.get("tip"):
        report.problems.append(
            Problem(
                f"row {signed}",
                f"chain rewritten: its hash differs from the one the node signed at {at}",
            )
        )
    elif what == "bundle" and last > signed:
        report.problems.append(Problem(f"row {last}", "after the signed head it carries"))


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_index(index: list[Any], found: dict[str, Any], report: VerifyReport) -> None:
    """The media index (what the dashboard serves and retention prunes) must agree with the
    chain: every file it lists was chained there, and only chained prunes are marked pruned."""
    chained: dict[str, str] = found["media"]
    listed = set()
    for sha, rel, pruned_at in index:
        listed.add(sha)
        if chained.get(sha) != rel:
            report.problems.append(
                Problem(f"media index {sha[:12]}", "not registered in the chain")
            )
        elif pruned_at is not None and sha not in found["pruned"]:
            report.problems.append(
                Problem(f"media index {sha[:12]}", "marked pruned without a chained prune notice")
            )
    for sha in sorted(set(chained) - listed):
        report.problems.append(Problem(f"media {chained[sha]}", "chained but not in the index"))


def manifest_hash(manifest: dict[str, Any]) -> str:
    body = {k: v for k, v in manifest.items() if k != "manifest_sha256"}
    return sha256_bytes(canonical_json(body).encode())


def pin_key(report: VerifyReport, pin: str) -> None:
    """Check the report's signing key against a pinned key id (``verify --key``)."""
    if report.key is None:
        return  # no head that checks: already a problem
    if key_id(report.key) != pin:
        report.problems.append(
            Problem(
                "node key",
                f"signed by key {key_id(report.key)}, not the pinned key {pin}: "
                "re-signed by someone else",
            )
        )
    elif report.pinned is None:
        report.pinned = "key"


def verify_bundle(path: str | Path) -> VerifyReport:
    """Check an export bundle: zip integrity, manifest, every file hash, the chain excerpt,
    that the record and rulings are exactly the chained bodies, and that every ``media/`` file
    is a chained media row's. Read bounded (``MAX_*``): a zip bomb is a verdict, never a
    gigabyte in memory."""
    report = VerifyReport(source=str(path))
    try:
        _check_seal(Path(path), report)
        with zipfile.ZipFile(path) as zf:
            _verify_zip(zf, report)
    except Exception as e:  # any damage that stops reading the zip is a broken bundle
        report.problems.append(Problem(str(path), f"bundle unreadable ({type(e).__name__}: {e})"))
    return report


def _check_seal(path: Path, report: VerifyReport) -> None:
    """The zip comment holds sha256 of all bytes before the end record; the end record itself
    must be the plain single-disk one that points exactly at the central directory. The bytes
    are hashed as a stream."""
    size = path.stat().st_size
    with open(path, "rb") as f:
        back = min(size, 22 + 0xFFFF)
        f.seek(size - back)
        tail = f.read(back)
        found = tail.rfind(EOCD_SIG)
        if found < 0 or len(tail) - found < 22:
            report.problems.append(Problem("zip end record", "missing"))
            return
        eocd = size - back + found
        _sig, disk, cd_disk, n_here, n_all, cd_size, cd_offset, clen = struct.unpack(
            "<4s4H2LH", tail[found : found + 22]
        )
        comment = tail[found + 22 :]
        sane = disk == 0 and cd_disk == 0 and n_here == n_all and cd_offset + cd_size == eocd
        if not sane or clen != len(comment):
            report.problems.append(Problem("zip end record", "altered"))
        f.seek(0)
        h, left = hashlib.sha256(), eocd
        while left > 0:
            block = f.read(min(CHUNK, left))
            if not block:
                break
            h.update(block)
            left -= len(block)
    if comment != SEAL_PREFIX + h.hexdigest().encode():
        report.problems.append(Problem("zip seal", "bytes altered (sha256 in the comment differs)"))


def _check_bundle_signature(
    manifest: dict[str, Any], raw: bytes | None, report: VerifyReport
) -> None:
    """The node signed the manifest (so every file hash in it) and its chain head with one key,
    which the manifest names."""
    if raw is None:
        report.problems.append(Problem(SIGNATURE_FILE, "missing: the bundle is not signed"))
        return
    public = manifest.get("public_key")
    try:
        signature = check(json.loads(raw))
        if signature.get("manifest_sha256") != manifest.get("manifest_sha256"):
            raise SignatureError("it signs another manifest")
        if signature.get("key") != public:
            raise SignatureError("signed by another key than the manifest names")
    except (SignatureError, ValueError) as e:
        report.problems.append(Problem(SIGNATURE_FILE, f"bundle signature invalid: {e}"))
        return
    try:
        head = check(manifest.get("head"))
        if head.get("key") != public:
            raise SignatureError("signed by another key")
    except SignatureError as e:
        report.problems.append(Problem("manifest.json head", f"signed head invalid: {e}"))
        return
    report.key, report.signed_rows, report.head = str(public), head.get("rows"), head


def _too_big(info: zipfile.ZipInfo, total: int) -> str | None:
    """Why a member is refused before it is opened (its declared sizes), or None."""
    limit = MAX_TEXT_BYTES if info.filename in TEXT_MEMBERS else MAX_MEMBER_BYTES
    if info.file_size > limit:
        return f"refused: {info.file_size} bytes uncompressed, over the {limit}-byte limit"
    if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
        ratio = info.file_size // max(info.compress_size, 1)
        return (
            f"refused: {info.compress_size} bytes inflating to {info.file_size} "
            f"(ratio {ratio}:1, over {MAX_RATIO}:1): a zip bomb"
        )
    if total + info.file_size > MAX_TOTAL_BYTES:
        return f"refused: the members together pass {MAX_TOTAL_BYTES} bytes uncompressed"
    return None


def _read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, keep: bool) -> tuple[str, bytes]:
    """(sha256, the bytes if ``keep``) of one member, read in chunks and never past its
    declared size (zipfile stops there and checks the CRC)."""
    h = hashlib.sha256()
    kept = bytearray()
    read = 0
    with zf.open(info) as f:
        while block := f.read(CHUNK):
            read += len(block)
            if read > info.file_size:
                raise zipfile.BadZipFile("inflates past its declared size")
            h.update(block)
            if keep:
                kept += block
    return h.hexdigest(), bytes(kept)


def _verify_zip(zf: zipfile.ZipFile, report: VerifyReport) -> None:
    infos = zf.infolist()
    if len(infos) > MAX_MEMBERS:
        report.problems.append(
            Problem(str(report.source), f"refused: {len(infos)} members (over {MAX_MEMBERS})")
        )
        return
    digests: dict[str, str] = {}
    texts: dict[str, bytes] = {}
    total = 0
    for info in infos:
        why = _too_big(info, total)
        if why:
            report.problems.append(Problem(info.filename, why))
            return  # a bomb is not read further: one clear line
        total += info.file_size
        try:
            digests[info.filename], data = _read_member(
                zf, info, keep=info.filename in TEXT_MEMBERS
            )
        except (zipfile.BadZipFile, zlib.error, EOFError) as e:  # a byte changed inside it
            report.problems.append(Problem(info.filename, f"damaged in the zip ({e})"))
            continue
        if info.filename in TEXT_MEMBERS:
            texts[info.filename] = data
    if "manifest.json" not in texts:
        report.problems.append(Problem("manifest.json", "missing"))
        return
    manifest = json.loads(texts.pop("manifest.json"))
    digests.pop("manifest.json", None)
    if manifest.get("format") != BUNDLE_FORMAT:
        report.problems.append(Problem("manifest.json", f"unknown format {manifest.get('format')}"))
    if manifest.get("manifest_sha256") != manifest_hash(manifest):
        report.problems.append(Problem("manifest.json", "manifest altered (self-hash differs)"))
    _check_bundle_signature(manifest, texts.pop(SIGNATURE_FILE, None), report)
    digests.pop(SIGNATURE_FILE, None)
    if isinstance(manifest.get("table"), str):
        report.tables = [manifest["table"]]
    listed: dict[str, dict[str, Any]] = manifest.get("files", {})
    for name in sorted(set(digests) - set(listed)):
        report.problems.append(Problem(name, "file not in the manifest"))
    for name, meta in listed.items():
        if name not in digests:
            report.problems.append(Problem(name, "listed in the manifest but missing"))
        elif digests[name] != meta.get("sha256"):
            report.problems.append(Problem(name, "content altered (sha256 differs)"))
    chain_lines = texts.get("chain.jsonl", b"").decode("utf-8", "replace").splitlines()
    rows = []
    for n, line in enumerate(chain_lines, 1):
        try:
            r = json.loads(line)
            rows.append((r["id"], r["kind"], r["table"], r["seq"], r["body"], r["prev"], r["hash"]))
        except (ValueError, KeyError) as e:
            report.problems.append(Problem(f"chain.jsonl line {n}", f"unreadable ({e})"))
    if not rows:
        report.problems.append(Problem("chain.jsonl", "empty chain: no rows, nothing is proven"))
    found = check_rows(rows, report, linked=False)
    report.hashes = {int(r[0]): str(r[6]) for r in rows}
    head = manifest.get("head")
    if isinstance(head, dict) and report.key is not None:
        _check_against_head(head, report.hashes, report, "bundle")
    bodies: dict[str, list[Any]] = {"event": [], "ruling": [], "action": []}
    for row in rows:
        if row[1] in bodies:
            try:
                bodies[row[1]].append(json.loads(row[4])["data"])
            except (ValueError, KeyError):
                continue  # already reported by check_rows
    for name, kind in (("record.jsonl", "event"), ("rulings.jsonl", "ruling")):
        lines = texts.get(name, b"").decode("utf-8", "replace").splitlines()
        try:
            items = [json.loads(x) for x in lines]
        except ValueError as e:
            report.problems.append(Problem(name, f"unreadable ({e})"))
            continue
        if items != bodies[kind]:
            report.problems.append(Problem(name, "differs from the chained rows"))
    _check_bundle_media(digests, found["media"], manifest.get("media_pruned") or [], report)


def _check_bundle_media(
    digests: dict[str, str], chained: dict[str, str], pruned: list[Any], report: VerifyReport
) -> None:
    """Every ``media/`` file is the file of a chained media row (its sha256 is in the row), and
    every chained media row has its file, unless the manifest says retention pruned it."""
    present: set[str] = set()
    for name, sha in digests.items():
        if not name.startswith("media/"):
            continue
        report.media_checked += 1
        rel = chained.get(sha)
        if rel is None or os.path.basename(rel) != os.path.basename(name):
            report.problems.append(
                Problem(name, "media file not bound to the chain: no media row holds its sha256")
            )
        else:
            present.add(sha)
    for sha, rel in chained.items():
        if sha in present:
            continue
        if sha in pruned:
            report.media_pruned += 1
        else:
            report.problems.append(Problem(f"media {rel}", "chained but not in the bundle"))
