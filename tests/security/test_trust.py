"""Issue 27, attacks 1-4: whoever holds the Pi's disk, a bundle, or a table's MQTT account
forges a record that verifies. Each forgery here is made as the attacker would, on real files
from a real run (a node store published through a real Mosquitto to a real desk, which pins
the node key and witnesses its signed heads), and checked with the real CLI: refused given
``--key`` or ``--desk``, exit 3 (intact, key checked against nothing) without them.

Two kinds of disk holder: one with the data folder only (a copied SD card, a backup: the key
lives outside it, so he signs with a key of his own and ``--key`` refuses him), and root on the
Pi, who can read the node key and re-sign with it: only the desk's witness catches him."""

from __future__ import annotations

import io
import json
import shutil
import sqlite3
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from evidence import EvidenceStore
from evidence.chain import link_hash, sha256_bytes
from evidence.export import seal_zip
from evidence.keys import key_path
from evidence.signing import load_or_create_key, read_head, sign, sign_head, write_head
from evidence.verify import SIGNATURE_FILE, SIGNATURE_FORMAT, manifest_hash
from hall.broker import LocalBroker
from hall.config import HallConfig
from hall.desk import Desk
from hall.desk_hub import DeskHub
from hall.publish import start_publisher
from tests.hall.conftest import DESK_PW, TABLE_PW, wait_for
from tests.keys import node_key_id
from tests.security.conftest import ENV, ROOT
from tests.security.test_chain_proof import filled, rehash, tamper


@dataclass(frozen=True)
class Run:
    data: Path  # the node's store
    desk: Path  # the desk's data folder (its store, ledger and witness log)
    bundle: Path  # the genuine export of match t1
    alarms: list[str]  # what the desk alarmed at (forged heads sent on the table's account)
    hall: list[dict[str, Any]]  # the hall page's summary (DeskHub) after the alarms


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return clis([*args])[0]


def clis(*commands: list[str]) -> list[subprocess.CompletedProcess[str]]:
    """Several ``tablescan`` commands as real processes, run side by side (the suite's time)."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "tablescan", *args],
            cwd=ROOT,
            env=ENV,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for args in commands
    ]
    done = []
    for args, p in zip(commands, procs, strict=True):
        out, err = p.communicate(timeout=180)
        assert "Traceback" not in err, err
        done.append(subprocess.CompletedProcess(args, p.returncode, out, err))
    return done


def send_state(broker: LocalBroker, head: dict[str, Any]) -> None:
    """What anyone with table t1's MQTT account can publish: a state carrying a head."""
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="forger-t1")
    client.username_pw_set("t1", TABLE_PW)
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    info = client.publish("tablescan/hall/t1/state", json.dumps({"signed_head": head}), qos=1)
    info.wait_for_publish(10)
    client.disconnect()
    client.loop_stop()


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    root = tmp_path_factory.mktemp("trust")
    data, desk_dir = root / "data", root / "desk"
    filled(data)
    with LocalBroker(root / "broker", {"desk": DESK_PW, "t1": TABLE_PW}) as broker:
        desk_store = EvidenceStore(desk_dir, durable=False)
        desk = Desk(desk_store, HallConfig(broker=broker.url, password=DESK_PW)).start()
        node = EvidenceStore(data, durable=False)
        publisher = start_publisher(node, "t1", HallConfig(broker=broker.url, password=TABLE_PW))
        try:
            last = node.rows()[-1].id

            def witnessed() -> bool:
                tw = desk.witness.log.tables.get("t1")
                return bool(tw and tw.last() and tw.last()["rows"] == last)  # type: ignore[index]

            wait_for(witnessed, 30, "the desk to witness the node's last head")
            publisher.stop()
            node.close()
            # attack 4: a head signed by a foreign key claiming 1 row, on the table's account
            stranger = Ed25519PrivateKey.generate()
            send_state(broker, sign_head(stranger, 1, "0" * 64))
            # root on the Pi re-signs a cut chain with the node's own key and sends it
            real = load_or_create_key(key_path())
            send_state(broker, sign_head(real, last - 2, node_row_hash(data, last - 2)))
            wait_for(lambda: desk.witness.alarms >= 2, 15, "the desk's alarms")
            alarms = list(desk.links()["t1"]["witness"]["alarms"])
            hub = DeskHub(desk_store)
            hub.desk = desk
            hall = hub.summary()
        finally:
            desk.stop()
            desk_store.close()
    bundle = root / "genuine.zip"
    done = cli("export", "--data", str(data), "--match", "t1", "--no-report", "-o", str(bundle))
    assert done.returncode == 0, done.stderr
    yield Run(data, desk_dir, bundle, alarms, hall)


def node_row_hash(data: Path, row: int) -> str:
    db = sqlite3.connect(data / "evidence.sqlite3")
    try:
        return str(db.execute("SELECT hash FROM chain WHERE id=?", (row,)).fetchone()[0])
    finally:
        db.close()


def copy(run: Run, tmp_path: Path) -> Path:
    data = tmp_path / "data"
    shutil.copytree(run.data, data)
    return data


def resign(data: Path, key: Ed25519PrivateKey) -> None:
    """Sign the chain's end as it now is (what a forger does after rewriting it)."""
    db = sqlite3.connect(data / "evidence.sqlite3")
    rid, tip = db.execute("SELECT id, hash FROM chain ORDER BY id DESC LIMIT 1").fetchone()
    db.close()
    write_head(data, sign_head(key, int(rid), str(tip)))


def root_key() -> Ed25519PrivateKey:
    return load_or_create_key(key_path())  # root on the Pi reads the node key


def verdicts(target: str, run: Run, *, via_data: bool = False) -> tuple[int, int, int]:
    """(exit with no pin, with --key, with --desk)."""
    base = ["verify", "--data", target] if via_data else ["verify", target]
    done = clis(base, [*base, "--key", node_key_id()], [*base, "--desk", str(run.desk)])
    return done[0].returncode, done[1].returncode, done[2].returncode


# -- the genuine record -------------------------------------------------------------------


def test_genuine_store_and_bundle_are_trusted_only_when_pinned(run: Run) -> None:
    assert verdicts(str(run.data), run, via_data=True) == (3, 0, 0)
    assert verdicts(str(run.bundle), run) == (3, 0, 0)
    plain = cli("verify", str(run.bundle)).stdout
    assert "checked against nothing" in plain and node_key_id() in plain, plain
    desk = cli("verify", str(run.bundle), "--desk", str(run.desk)).stdout
    assert "the key the desk pinned; witnessed to row" in desk and desk.rstrip().endswith(": OK")
    wrong = cli("verify", str(run.bundle), "--key", "0123456789abcdef")
    assert wrong.returncode == 1 and "not the pinned key 0123456789abcdef" in wrong.stdout
    bad = cli("verify", str(run.bundle), "--key", "xyz")
    assert bad.returncode == 2 and "16 hex digits" in bad.stderr


# -- attack 1: the Pi's disk ----------------------------------------------------------------


def rewrite_play(data: Path) -> None:
    db = sqlite3.connect(data / "evidence.sqlite3")
    rid, body = db.execute(
        "SELECT id, body FROM chain WHERE kind='event' AND body LIKE '%\"play\"%' LIMIT 1"
    ).fetchone()
    db.close()
    forged = body.replace('"seat":0', '"seat":2', 1)
    assert forged != body
    tamper(data, "UPDATE chain SET body=? WHERE id=?", forged, rid)
    rehash(data)


def drop_violation_ruling(data: Path) -> None:
    tamper(data, "DELETE FROM chain WHERE kind='ruling'")
    db = sqlite3.connect(data / "evidence.sqlite3")
    ids = [r[0] for r in db.execute("SELECT id FROM chain ORDER BY id")]
    assert ids == list(range(1, len(ids) + 1))  # the ruling was the last row
    db.close()
    rehash(data)


def cut_tail(data: Path) -> None:
    tamper(data, "DELETE FROM chain WHERE id > (SELECT MAX(id) - 2 FROM chain)")  # the violation


@pytest.mark.parametrize("forge", [rewrite_play, drop_violation_ruling, cut_tail])
def test_disk_forgery_resigned(run: Run, tmp_path: Path, forge: Any) -> None:
    """With a key of his own (he has the folder, not /etc/tablescan): --key and --desk refuse.
    Root on the Pi re-signs with the node key itself: --key cannot tell (docs/evidence.md),
    the desk's witness refuses it."""
    own, root = tmp_path / "own", tmp_path / "root"
    for data, key in ((own, Ed25519PrivateKey.generate()), (root, root_key())):
        shutil.copytree(run.data, data)
        forge(data)
        resign(data, key)
    desk = ["--desk", str(run.desk)]
    res = clis(
        ["verify", "--data", str(own)],
        ["verify", "--data", str(own), "--key", node_key_id()],
        ["verify", "--data", str(own), *desk],
        ["verify", "--data", str(root)],
        ["verify", "--data", str(root), *desk],
    )
    assert [r.returncode for r in res] == [3, 1, 1, 3, 1], [r.stdout for r in res]
    assert "not the pinned key" in res[1].stdout, res[1].stdout
    assert "the desk" in res[4].stdout and ("differs" in res[4].stdout or "cut" in res[4].stdout)


def test_deleted_head_is_never_resigned(run: Run, tmp_path: Path) -> None:
    data = copy(run, tmp_path)
    (data / "head.json").unlink()
    with EvidenceStore(data, durable=False) as store:
        assert store.signed_head() is None  # opening the store makes no head up
    assert not (data / "head.json").exists()
    assert verdicts(str(data), run, via_data=True) == (1, 1, 1)
    assert "no signed head" in cli("verify", "--data", str(data)).stdout


def test_brand_new_key_in_the_data_folder(run: Run, tmp_path: Path) -> None:
    data = copy(run, tmp_path)
    rewrite_play(data)
    planted = load_or_create_key(data / "node.key")  # the old place of the key
    resign(data, planted)
    assert verdicts(str(data), run, via_data=True) == (3, 1, 1)
    with EvidenceStore(data, durable=False) as store:  # the store never signs with it
        assert store.key_path != data / "node.key"


def test_emptied_chain_is_never_ok(run: Run, tmp_path: Path) -> None:
    data = copy(run, tmp_path)
    tamper(data, "DELETE FROM chain")
    (data / "head.json").unlink()
    assert verdicts(str(data), run, via_data=True) == (1, 1, 1)
    out = cli("verify", "--data", str(data)).stdout
    assert "empty chain" in out and ": OK" not in out, out


# -- attack 2: export launders a cut store -------------------------------------------------


def test_export_refuses_a_store_that_does_not_verify(run: Run, tmp_path: Path) -> None:
    for damage in ("cut", "no head"):
        data = tmp_path / damage
        shutil.copytree(run.data, data)
        if damage == "cut":
            cut_tail(data)
        else:
            (data / "head.json").unlink()
        out = tmp_path / f"{damage}.zip"
        done = cli("export", "--data", str(data), "--match", "t1", "--no-report", "-o", str(out))
        assert done.returncode == 2 and "does not verify, nothing exported" in done.stderr
        assert ("tail missing" if damage == "cut" else "no signed head") in done.stderr
        assert not out.exists()
        assert read_head(data) == (None if damage == "no head" else read_head(run.data))


# -- attack 3: a bundle-only forger ------------------------------------------------------------


def open_bundle(path: Path) -> tuple[dict[str, bytes], dict[str, Any]]:
    with zipfile.ZipFile(path) as zf:
        files = {n: zf.read(n) for n in zf.namelist()}
    files.pop(SIGNATURE_FILE)
    return files, json.loads(files.pop("manifest.json"))


def rebuild(files: dict[str, bytes], manifest: dict[str, Any], key: Any, out: Path) -> Path:
    """Re-hash every file, re-sign the head and the manifest with ``key``, reseal the zip."""
    rows = [json.loads(x) for x in files["chain.jsonl"].splitlines()]
    prev_id, prev_hash = None, None
    for r in rows:
        if prev_id is not None and r["id"] == prev_id + 1:
            r["prev"] = prev_hash
        r["hash"] = link_hash(r["prev"], r["body"])
        prev_id, prev_hash = r["id"], r["hash"]
    files["chain.jsonl"] = b"".join(
        json.dumps(r, sort_keys=True, separators=(",", ":")).encode() + b"\n" for r in rows
    )
    manifest["files"] = {n: {"sha256": sha256_bytes(b), "size": len(b)} for n, b in files.items()}
    head = sign_head(key, manifest["head"]["rows"], rows[-1]["hash"])
    manifest["head"], manifest["public_key"] = head, head["key"]
    manifest["chain_tip"] = rows[-1]["hash"]
    manifest["manifest_sha256"] = manifest_hash(manifest)
    signature = sign(key, {"format": SIGNATURE_FORMAT, "manifest_sha256": manifest_hash(manifest)})
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
        zf.writestr("manifest.json", json.dumps(manifest))
        zf.writestr(SIGNATURE_FILE, json.dumps(signature))
    out.write_bytes(seal_zip(buf.getvalue()))
    return out


def forged_bundle(run: Run, tmp_path: Path, what: str, key: Any) -> Path:
    files, manifest = open_bundle(run.bundle)
    lines = files["chain.jsonl"].splitlines()
    record = files["record.jsonl"].splitlines()
    if what == "play":
        n = next(i for i, x in enumerate(lines) if b'\\"play\\"' in x and b'\\"seat\\":0' in x)
        lines[n] = lines[n].replace(b'\\"seat\\":0', b'\\"seat\\":2', 1)
        m = next(i for i, x in enumerate(record) if b'"play"' in x and b'"seat":0' in x)
        record[m] = record[m].replace(b'"seat":0', b'"seat":2', 1)
    else:  # drop the violation: its event, its ruling
        lines = [x for x in lines if b"talking" not in x]
        record = [x for x in record if b"talking" not in x]
        files["rulings.jsonl"] = b""
        manifest["head"]["rows"] = json.loads(lines[-1])["id"]
    files["chain.jsonl"] = b"\n".join(lines) + b"\n"
    files["record.jsonl"] = b"\n".join(record) + b"\n"
    tmp_path.mkdir(exist_ok=True)
    return rebuild(files, manifest, key, tmp_path / f"{what}.zip")


@pytest.mark.parametrize("what", ["play", "violation"])
def test_bundle_forgery(run: Run, tmp_path: Path, what: str) -> None:
    """A bundle shipping its own key: --key and --desk refuse it. Re-signed with the node
    key (root on the Pi): the desk's witness refuses it."""
    own = forged_bundle(run, tmp_path / "own", what, Ed25519PrivateKey.generate())
    root = forged_bundle(run, tmp_path / "root", what, root_key())
    res = clis(
        ["verify", str(own)],
        ["verify", str(own), "--key", node_key_id()],
        ["verify", str(own), "--desk", str(run.desk)],
        ["verify", str(root), "--desk", str(run.desk)],
    )
    assert [r.returncode for r in res] == [3, 1, 1, 1], [r.stdout for r in res]


def test_swapped_frame_fails_even_when_the_manifest_is_resigned(run: Run, tmp_path: Path) -> None:
    files, manifest = open_bundle(run.bundle)
    old = next(n for n in files if n.startswith("media/"))
    other = b"another frame entirely"
    del files[old]
    files[f"media/{sha256_bytes(other)}.jpg"] = other  # named by its own hash
    forged = rebuild(files, manifest, root_key(), tmp_path / "swapped.zip")
    assert verdicts(str(forged), run) == (1, 1, 1)
    out = cli("verify", str(forged), "--key", node_key_id()).stdout
    assert "not bound to the chain" in out and "chained but not in the bundle" in out, out


# -- attack 4: the desk reads the signed head ---------------------------------------------------


def test_desk_refuses_a_foreign_head_and_a_cut_one(run: Run) -> None:
    assert any("not the pinned key" in a for a in run.alarms), run.alarms
    assert any("cut" in a for a in run.alarms), run.alarms
    shown = cli("witness", "show", "--data", str(run.desk), "--table", "t1", "--json")
    assert shown.returncode == 1  # alarms
    seen = json.loads(shown.stdout)
    assert seen["key_id"] == node_key_id() and seen["enrolled_by"] == "first seen"
    assert [h["rows"] for h in seen["heads"]] == sorted(h["rows"] for h in seen["heads"])
    assert all(h["received_at"] > 0 for h in seen["heads"]) and len(seen["alarms"]) == 2
    upto = cli("witness", "show", "--data", str(run.desk), "--table", "t1", "--upto", "3")
    assert "witnessed to row" in upto.stdout


def test_witness_log_edited_by_hand_is_refused(run: Run, tmp_path: Path) -> None:
    desk = tmp_path / "desk"
    shutil.copytree(run.desk, desk)
    log = desk / "witness.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:1] + lines[2:]))  # one witnessed head removed
    done = cli("verify", str(run.bundle), "--desk", str(desk))
    assert done.returncode == 1 and "witness log unreadable" in done.stdout, done.stdout


def test_enrolled_key_refuses_another(run: Run, tmp_path: Path) -> None:
    desk = tmp_path / "desk"
    shutil.copytree(run.desk, desk)
    other = Ed25519PrivateKey.generate()
    hexkey = sign(other, {})["key"]
    done = cli("witness", "enrol", "--data", str(desk), "--table", "t1", "--public-key", hexkey)
    assert done.returncode == 1 and "already pinned" in done.stderr
    fresh = cli("witness", "enrol", "--data", str(desk), "--table", "t9", "--public-key", hexkey)
    assert fresh.returncode == 0 and "pinned" in fresh.stdout
    assert cli("verify", str(run.bundle), "--desk", str(desk)).returncode == 0


def test_report_prints_the_fingerprint_and_the_desk_witness(run: Run, tmp_path: Path) -> None:
    from evidence.report import build_report

    out = tmp_path / "witnessed.zip"
    done = cli("export", "--data", str(run.data), "--match", "t1", "--lang", "en", "--desk")
    assert done.returncode == 2  # --desk needs its folder (argparse), nothing written
    done = cli(
        *("export", "--data", str(run.data), "--match", "t1", "--lang", "en"),
        *("--desk", str(run.desk), "-o", str(out)),
    )
    assert done.returncode == 0, done.stderr
    assert f"node key {node_key_id()}, witnessed by desk" in done.stdout, done.stdout
    with zipfile.ZipFile(out) as zf:
        page = zf.read("report.html").decode()
        assert zf.read("report.pdf").startswith(b"%PDF")
    assert node_key_id() in page and "witnessed by the desk (key" in page
    files, _manifest = open_bundle(run.bundle)
    plain = build_report(files, {"match": "t1", "table": "t1", "head": _manifest["head"]}, "en")
    assert node_key_id() in plain and "not checked with a desk at export" in plain


def test_hall_page_and_api_show_the_alarm(run: Run, tmp_path: Path) -> None:
    from dashboard.app import create_app
    from dashboard.users import UserStore
    from tests.dashboard.conftest import FAST_HASH, PASSWORD, login

    (t1,) = [t for t in run.hall if t["id"] == "t1"]
    assert t1["witness"]["key_id"] == node_key_id() and len(t1["witness"]["alarms"]) == 2
    desk = tmp_path / "desk"
    shutil.copytree(run.desk, desk)
    users = UserStore(desk)
    users.add("ref1", "referee", PASSWORD, n=FAST_HASH)
    users.close()
    with EvidenceStore(desk, durable=False) as store:
        hub = DeskHub(store)
        hub.desk = Desk(store, HallConfig(broker="mqtt://127.0.0.1:9", password=DESK_PW))
        client = create_app(desk, hub=hub, start_hub=False).test_client()
        csrf = login(client)
        seen = client.get("/api/hall/witness/t1?upto=3").get_json()
        assert seen["key_id"] == node_key_id() and all(h["rows"] <= 3 for h in seen["heads"])
        assert len(seen["alarms"]) == 2
        assert client.get("/api/hall/witness/t1?upto=x").status_code == 400
        confirm = "/api/hall/witness/t1/confirm"
        headers = {"X-CSRF-Token": csrf}
        wrong = client.post(confirm, json={"key_id": "0" * 16}, headers=headers)
        assert wrong.status_code == 409 and "not the pinned key" in wrong.get_json()["error"]
        right = client.post(confirm, json={"key_id": node_key_id()}, headers=headers)
        assert right.status_code == 200, right.get_json()
        seen = client.get("/api/hall/witness/t1").get_json()
        assert seen["enrolled_by"] == "confirmed by ref1" and len(seen["alarms"]) == 3
        hub.desk.ledger.close()
