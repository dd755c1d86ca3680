"""The store's commands as a user runs them: ``tablescan user add`` (password on stdin),
``tablescan export`` and ``tablescan verify`` (exit status and the first broken link), and the
hooks a table node uses to write into the store."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from dashboard.users import UserStore
from evidence import EvidenceStore
from tablescan.cli import main
from tablescan.store_hooks import store_hooks
from tests.keys import node_key_id
from tests.store.records import sample_record

ROOT = Path(__file__).resolve().parents[2]


def test_user_add_reads_the_password_from_stdin(tmp_path: Path) -> None:
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "tablescan",
            "user",
            "add",
            "lin",
            "--role",
            "referee",
            "--data",
            str(tmp_path),
        ],
        input="s3cret-password\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert run.returncode == 0, run.stderr
    assert "s3cret" not in run.stdout + run.stderr
    users = UserStore(tmp_path)
    assert users.authenticate("lin", "s3cret-password") is not None
    assert users.authenticate("lin", "wrong-password") is None
    raw = (tmp_path / "users.sqlite3").read_bytes()
    assert b"s3cret-password" not in raw  # only the scrypt hash is kept


def test_user_add_refuses_a_bad_role_or_short_password(tmp_path: Path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("short\n"))
    assert main(["user", "--data", str(tmp_path), "add", "bo", "--role", "viewer"]) == 2
    assert "at least 8 characters" in capsys.readouterr().err


def test_overlay_links_listed_and_revoked_from_the_cli(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    d = str(tmp_path)
    assert main(["user", "--data", d, "overlay-token", "t1"]) == 0
    first = capsys.readouterr().out.strip()
    assert main(["user", "--data", d, "overlay-token", "t1"]) == 0
    second = capsys.readouterr().out.strip()
    assert main(["user", "--data", d, "overlay-links", "t1"]) == 0
    listed = capsys.readouterr().out
    assert len(listed.splitlines()) == 2 and first not in listed and second not in listed
    one = UserStore(tmp_path).overlay_links("t1")[0].id
    assert main(["user", "--data", d, "overlay-revoke", "t1", "nothex"]) == 2
    assert "expected 12 hex digits" in capsys.readouterr().err
    assert main(["user", "--data", d, "overlay-revoke", "t1", one]) == 0
    assert "revoked 1 overlay link(s)" in capsys.readouterr().out
    users = UserStore(tmp_path)
    assert [users.overlay_table(t) for t in (first, second)].count("t1") == 1
    assert main(["user", "--data", d, "overlay-revoke", "t1"]) == 0
    assert users.overlay_table(first) is None and users.overlay_table(second) is None


def test_export_and_verify_commands(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    data = tmp_path / "data"
    store = EvidenceStore(data, durable=False)
    hooks = store_hooks(store, "t1")
    for e in sample_record():
        hooks["on_event"](e)
        if e["type"] == "play":
            frame = tmp_path / f"{e['evidence'].removesuffix('.jpg')}-after.jpg"
            frame.write_bytes(f"jpeg {e['seq']}".encode())
            hooks["on_evidence"](e, [frame])
    hooks["on_ruling"]({}, {"rule": "revoke", "seat": 1, "at_seq": 5, "proven_by_seq": 9})
    store.close()

    assert main(["verify", "--data", str(data)]) == 3  # intact, key checked against nothing
    assert "checked against nothing" in capsys.readouterr().out
    assert main(["verify", "--data", str(data), "--key", node_key_id()]) == 0
    assert ": OK" in capsys.readouterr().out
    bundle = tmp_path / "m.zip"
    assert (
        main(["export", "--data", str(data), "--match", "t1", "--hand", "1", "-o", str(bundle)])
        == 0
    )
    assert "12 evidence files, 0 pruned" in capsys.readouterr().out  # hand 1's 12 plays
    assert main(["verify", str(bundle), "--key", node_key_id()]) == 0
    capsys.readouterr()

    raw = bytearray(bundle.read_bytes())
    raw[len(raw) // 2] ^= 0x01
    bundle.write_bytes(bytes(raw))
    assert main(["verify", str(bundle)]) == 1
    assert "first broken link" in capsys.readouterr().out

    assert main(["export", "--data", str(tmp_path / "none"), "--match", "t1", "-o", "x.zip"]) == 2
    assert (
        main(["export", "--data", str(data), "--match", "t9", "-o", str(tmp_path / "y.zip")]) == 2
    )
    assert "no match_start" in capsys.readouterr().err

    media = next((data / "media").rglob("*.jpg"))
    media.write_bytes(media.read_bytes() + b"!")
    assert main(["verify", "--data", str(data)]) == 1
    out = capsys.readouterr().out
    assert f"media {media.parent.name}/{media.name}: content altered" in out
    # a store that does not verify is never exported (issue 27: export launders nothing)
    assert main(["export", "--data", str(data), "--match", "t1", "-o", str(tmp_path / "z.zip")])
    assert "does not verify, nothing exported" in capsys.readouterr().err
    assert not (tmp_path / "z.zip").exists()


def test_node_evidence_ids_resolve_to_stored_frames(tmp_path: Path) -> None:
    store = EvidenceStore(tmp_path, durable=False)
    hooks = store_hooks(store, "t1")
    event = {**sample_record()[3], "evidence": "t1-f000417"}
    hooks["on_event"](sample_record()[0])
    before, after = tmp_path / "t1-f000417-before.jpg", tmp_path / "t1-f000417-after.jpg"
    before.write_bytes(b"before")
    after.write_bytes(b"after")
    hooks["on_evidence"](event, [before, after])
    sha = store.resolve_media("t1-f000417")
    assert sha is not None and store.media_path(sha) is not None
    path = store.media_path(sha)
    assert path is not None and path.read_bytes() == b"after"
