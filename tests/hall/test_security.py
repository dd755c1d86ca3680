"""The shipped ACL and password file on a real Mosquitto: no anonymous access, a wrong password
refused, a table cannot publish under another table's topics nor read its decisions; and the
hall over TLS with a self-made CA."""

from __future__ import annotations

import datetime
import ipaddress
import json
import socket
import ssl
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from paho.mqtt.enums import CallbackAPIVersion

from evidence.store import EvidenceStore
from hall.broker import LocalBroker, TlsFiles
from hall.config import HallConfig
from hall.desk import Desk
from hall.publish import start_publisher
from hall.simnode import append_record
from tests.hall.conftest import DESK_PW, TABLE_PW, wait_for


class Probe:
    """A bare paho client that records what happens to it."""

    def __init__(self, broker: LocalBroker, user: str | None, password: str | None) -> None:
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        if user is not None:
            self.client.username_pw_set(user, password)
        self.connack: Any = None
        self.acks: dict[int, Any] = {}
        self.granted: list[Any] = []
        self.got: list[tuple[str, bytes]] = []
        self.done = threading.Event()
        self.client.on_connect = self._on_connect
        self.client.on_publish = lambda _c, _u, mid, rc, _p: self.acks.__setitem__(mid, rc)
        self.client.on_subscribe = lambda _c, _u, _m, codes, _p: self.granted.extend(codes)
        self.client.on_message = lambda _c, _u, m: self.got.append((m.topic, bytes(m.payload)))
        self.client.connect("127.0.0.1", broker.port)
        self.client.loop_start()
        self.done.wait(5)

    def _on_connect(self, _c: Any, _u: Any, _f: Any, rc: Any, _p: Any) -> None:
        self.connack = rc
        self.done.set()

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def test_no_anonymous_access_and_no_wrong_password(broker: LocalBroker) -> None:
    for user, password in ((None, None), ("t1", "wrong"), ("nobody", TABLE_PW)):
        probe = Probe(broker, user, password)
        wait_for(lambda p=probe: p.connack is not None, 5, "a CONNACK")
        assert probe.connack.is_failure, (user, probe.connack)
        probe.close()


def test_a_table_publishes_only_under_its_own_topics(broker: LocalBroker, desk: Desk) -> None:
    t1 = Probe(broker, "t1", TABLE_PW)
    assert t1.connack is not None and not t1.connack.is_failure
    fake = {"v": 1, "table": "t2", "seq": 0, "kind": "event", "data": {}, "node": {}}
    forged = t1.client.publish("tablescan/hall/t2/events", json.dumps(fake), qos=1)
    own = t1.client.publish("tablescan/hall/t1/status", "online", qos=1, retain=True)
    wait_for(lambda: forged.mid in t1.acks and own.mid in t1.acks, 5, "both PUBACKs")
    assert t1.acks[forged.mid].getName() == "Not authorized"
    assert not t1.acks[own.mid].is_failure
    wait_for(lambda: desk.links().get("t1", {}).get("link") == "online", 5, "t1's own status")
    assert "t2" not in desk.links()  # the forged message never reached the desk
    # nor may a table read another table's decisions (or write decisions at all)
    t1.client.subscribe([("tablescan/hall/t2/decisions", 1), ("tablescan/hall/t1/decisions", 1)])
    wait_for(lambda: len(t1.granted) == 2, 5, "the SUBACK")
    t1.client.publish("tablescan/hall/t1/decisions", json.dumps({"id": "x", "event": {}}), qos=1)
    desk.client.publish("tablescan/hall/t2/decisions", b"for t2 only", qos=1)
    desk.client.publish("tablescan/hall/t1/decisions", b"for t1", qos=1)
    wait_for(lambda: t1.got, 5, "t1's own decision")
    time.sleep(0.3)
    assert t1.got == [("tablescan/hall/t1/decisions", b"for t1")]
    t1.close()


def _tls_files(where: Path) -> TlsFiles:
    """A self-made CA and a server certificate for 127.0.0.1, written as PEM files."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "tablescan test hall CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
            ),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())
    )
    where.mkdir(parents=True, exist_ok=True)
    files = TlsFiles(where / "ca.crt", where / "server.crt", where / "server.key")
    files.ca.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    files.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    files.key.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return files


def test_the_hall_over_tls_with_a_self_made_ca(tmp_path: Path) -> None:
    tls = _tls_files(tmp_path / "pki")
    users = {"desk": DESK_PW, "t1": TABLE_PW}
    with LocalBroker(tmp_path / "broker", users, tls=tls) as broker:
        assert broker.url.startswith("mqtts://")
        desk_store = EvidenceStore(tmp_path / "desk", durable=False)
        desk = Desk(
            desk_store, HallConfig(broker=broker.url, password=DESK_PW, ca_file=tls.ca)
        ).start()
        node_store = EvidenceStore(tmp_path / "node", durable=False)
        pub = start_publisher(
            node_store, "t1", HallConfig(broker=broker.url, password=TABLE_PW, ca_file=tls.ca)
        )
        try:
            append_record(node_store, "t1", 12, rulings_every=5, wake=pub.wake)
            wait_for(lambda: desk_store.last_seq("t1") == 11, 10, "the record over TLS")
            assert desk_store.events("t1") == node_store.events("t1")
            assert desk.verify("t1").ok
        finally:
            pub.stop()
            desk.stop()
        # a client that does not trust the hall's CA gets no connection
        other = ssl.create_default_context(cafile=str(_tls_files(tmp_path / "other").ca))
        with (
            socket.create_connection(("127.0.0.1", broker.port), timeout=5) as raw,
            pytest.raises(ssl.SSLCertVerificationError),
        ):
            other.wrap_socket(raw, server_hostname="127.0.0.1")
        node_store.close()
        desk_store.close()


def test_bad_settings_get_one_line_errors(tmp_path: Path) -> None:
    from hall.config import HallConfigError

    with pytest.raises(HallConfigError, match="expected mqtt://host"):
        HallConfig(broker="http://desk:1883")
    with pytest.raises(HallConfigError, match=r"ca_file .*no such file"):
        HallConfig(broker="mqtts://desk", ca_file=tmp_path / "missing.crt")
    with pytest.raises(HallConfigError, match="hall 'a/b'"):
        HallConfig(broker="mqtt://desk", hall="a/b")


def test_hall_passwords_writes_the_acl_for_the_halls_own_name(tmp_path: Path) -> None:
    """Before: the shipped ACL said tablescan/+/%u/..., so a table could publish under any hall."""
    import subprocess
    import sys

    out = tmp_path / "etc"
    cmd = [sys.executable, "-m", "hall.passwords", "--out", str(out), "--hall", "spring"]
    done = subprocess.run([*cmd, "desk", "t1"], capture_output=True, text=True, check=True)
    assert "acl" in done.stdout
    acl = (out / "acl").read_text()
    assert "pattern write tablescan/spring/%u/events" in acl
    assert "topic read tablescan/spring/#" in acl and "/+/%u" not in acl
    bad = subprocess.run([*cmd, "desk", "t+"], capture_output=True, text=True)
    assert bad.returncode == 2 and "user 't+'" in bad.stderr
