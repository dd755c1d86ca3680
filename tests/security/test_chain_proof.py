"""Fault 4: the chain had no key and no outside anchor: a cut tail, a play rewritten and
re-hashed, or a violation dropped from a bundle all verified; a byte flipped in the WAL a
killed writer left silently dropped rows, and one flip crashed verify. Now the node signs its
chain head (Ed25519), bundles carry the signed head, the public key and a signature over the
manifest, and verify runs SQLite's integrity check and checks the media index."""

from __future__ import annotations

import io
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

from evidence import EvidenceStore
from evidence.chain import GENESIS, link_hash, sha256_bytes
from evidence.export import export_bundle, seal_zip
from evidence.verify import manifest_hash, verify_bundle, verify_store
from tests.security.conftest import ENV, ROOT
from tests.store.records import sample_record

FLIPS = 200
WRITER = [sys.executable, "-m", "tests.store.writer"]


def filled(data: Path) -> None:
    with EvidenceStore(data, durable=False) as store:
        for e in sample_record(hands=1):
            store.append_event("t1", e)
            store.add_media(f"jpeg {e['seq']}".encode(), table="t1", seq=e["seq"])
        seq = store.last_seq("t1") + 1
        store.append_event(
            "t1",
            {"v": 1, "seq": seq, "t": 99.0, "type": "violation", "seat": 1}
            | {"rule": "talking", "by": "ref1"},
        )
        store.append_ruling("t1", {"rule": "talking", "seat": 1, "at_seq": seq})


def tamper(data: Path, sql: str, *params: Any) -> None:
    """What an attacker with the files does: drop the append-only triggers and write."""
    db = sqlite3.connect(data / "evidence.sqlite3")
    db.execute("DROP TRIGGER chain_no_update")
    db.execute("DROP TRIGGER chain_no_delete")
    db.execute(sql, params)
    db.commit()
    db.close()


def rehash(data: Path) -> None:
    """Recompute every link, as a forger who rewrote a row would."""
    db = sqlite3.connect(data / "evidence.sqlite3")
    prev = GENESIS
    for rid, body in db.execute("SELECT id, body FROM chain ORDER BY id").fetchall():
        h = link_hash(prev, body)
        db.execute("UPDATE chain SET prev=?, hash=? WHERE id=?", (prev, h, rid))
        prev = h
    db.commit()
    db.close()


def cli_verify(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tablescan", "verify", *args],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_clean_store_verifies_with_its_signed_head(tmp_path: Path) -> None:
    filled(tmp_path)
    report = verify_store(tmp_path)
    assert report.ok, report.summary()
    assert "signed the node's chain up to row" in report.summary()
    key = Path(os.environ["TABLESCAN_KEY_DIR"]) / "node.key"  # outside the data folder
    assert key.stat().st_mode & 0o777 == 0o600 and not (tmp_path / "node.key").exists()


def test_deleted_tail_is_detected(tmp_path: Path) -> None:
    filled(tmp_path)
    tamper(tmp_path, "DELETE FROM chain WHERE id > (SELECT MAX(id) - 3 FROM chain)")
    result = cli_verify("--data", str(tmp_path))
    assert result.returncode == 1 and "tail missing" in result.stdout, result.stdout


def test_rewritten_and_rehashed_play_is_detected(tmp_path: Path) -> None:
    filled(tmp_path)
    db = sqlite3.connect(tmp_path / "evidence.sqlite3")
    rid, body = db.execute(
        "SELECT id, body FROM chain WHERE kind='event' AND body LIKE '%\"play\"%' LIMIT 1"
    ).fetchone()
    db.close()
    forged = body.replace('"seat":0', '"seat":2', 1)
    assert forged != body
    tamper(tmp_path, "UPDATE chain SET body=? WHERE id=?", forged, rid)
    rehash(tmp_path)
    report = verify_store(tmp_path)
    assert not report.ok and any("chain rewritten" in str(p) for p in report.problems)
    (tmp_path / "head.json").unlink()  # and a forger who removes the signed head
    report = verify_store(tmp_path)
    assert not report.ok and any("no signed head" in str(p) for p in report.problems)


def test_dropped_violation_from_a_bundle_is_detected(tmp_path: Path) -> None:
    data = tmp_path / "data"
    filled(data)
    bundle = tmp_path / "b.zip"
    with EvidenceStore(data) as store:
        export_bundle(store, "t1", bundle)
    assert verify_bundle(bundle).ok, verify_bundle(bundle).summary()
    # the forger drops the violation's record line and chain row, re-hashes every file,
    # rebuilds the manifest (self-hash) and reseals the zip
    with zipfile.ZipFile(bundle) as zf:
        files = {n: zf.read(n) for n in zf.namelist()}
    manifest = json.loads(files.pop("manifest.json"))

    def keep(line: bytes) -> bool:
        return b"violation" not in line

    for name in ("record.jsonl", "chain.jsonl"):
        lines = files[name].splitlines(keepends=True)
        files[name] = b"".join(x for x in lines if keep(x))
        assert len(files[name]) < sum(map(len, lines))
    for name, data_ in files.items():
        if name in manifest["files"]:
            manifest["files"][name] = {"sha256": sha256_bytes(data_), "size": len(data_)}
    manifest["manifest_sha256"] = manifest_hash(manifest)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data_ in files.items():
            zf.writestr(name, data_)
        zf.writestr("manifest.json", json.dumps(manifest))
    forged = tmp_path / "forged.zip"
    forged.write_bytes(seal_zip(buf.getvalue()))
    result = cli_verify(str(forged))
    assert result.returncode == 1, result.stdout
    assert "signature" in result.stdout


def killed_writer_store(tmp_path: Path) -> Path:
    """A store whose writer was SIGKILLed mid-record: its last rows live only in the WAL."""
    record = tmp_path / "record.jsonl"
    record.write_text("".join(json.dumps(e) + "\n" for e in sample_record(hands=2)))
    data = tmp_path / "killed"
    writer = subprocess.Popen(
        [*WRITER, "--data", str(data), "--table", "t1", str(record), "--delay", "0.02"],
        cwd=ROOT,
        env=ENV,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdout is not None
    acks = 0
    for line in writer.stdout:
        acks += line.startswith("ack")
        if acks >= 20:
            writer.send_signal(signal.SIGKILL)
            break
    writer.wait(timeout=30)
    writer.stdout.close()
    assert (data / "evidence.sqlite3-wal").stat().st_size > 0
    return data


def chain_rows(data: Path) -> list[tuple[Any, ...]] | None:
    """The rows a plain read-only reader sees in a copy (None if it cannot read them)."""
    copy = data.with_name(data.name + "-read")
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(data, copy)
    try:
        db = sqlite3.connect(f"file:{copy / 'evidence.sqlite3'}?mode=ro", uri=True)
        try:
            return db.execute("SELECT id, body, prev, hash FROM chain ORDER BY id").fetchall()
        finally:
            db.close()
    except sqlite3.DatabaseError:
        return None
    finally:
        shutil.rmtree(copy, ignore_errors=True)


def test_flipped_bytes_never_crash_verify_and_never_pass_silently(tmp_path: Path) -> None:
    original = killed_writer_store(tmp_path)
    truth = chain_rows(original)
    assert truth and verify_store(original).ok, verify_store(original).summary()
    head = original / "head.json"  # what the node signed (all of it, for a node that signs none)
    signed = json.loads(head.read_text())["rows"] if head.exists() else truth[-1][0]
    rng = random.Random(22)
    caught = passed_unchanged = 0
    for n in range(FLIPS):
        damaged = tmp_path / f"flip{n}"
        shutil.copytree(original, damaged)
        target = damaged / rng.choice(["evidence.sqlite3-wal"] * 3 + ["evidence.sqlite3"])
        raw = bytearray(target.read_bytes())
        pos = rng.randrange(len(raw))
        raw[pos] ^= 1 << rng.randrange(8)
        target.write_bytes(bytes(raw))
        seen = chain_rows(damaged)
        report = verify_store(damaged)  # never raises: a damaged file is a verdict
        signed_truth = [r for r in truth if r[0] <= signed]
        signed_seen = None if seen is None else [r for r in seen if r[0] <= signed]
        if signed_seen != signed_truth:  # what the node signed is gone or changed
            assert not report.ok, f"flip {n} ({target.name} byte {pos}) passed silently"
            caught += 1
        elif report.ok:
            passed_unchanged += 1
        shutil.rmtree(damaged)
    print(f"{FLIPS} flips: {caught} changed signed rows (all caught), {passed_unchanged} harmless")
    assert caught > 0
    damaged = tmp_path / "cli"
    shutil.copytree(original, damaged)
    size = (damaged / "evidence.sqlite3").stat().st_size
    (damaged / "evidence.sqlite3").write_bytes(b"\xff" * size)  # and the WAL gone
    (damaged / "evidence.sqlite3-wal").unlink()
    result = cli_verify("--data", str(damaged))
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
