"""The hall's set-up block in hall/README.md, run as written: the passwords, the CA and the
broker's certificate, the shipped ``mosquitto.conf`` (its TLS listener included), Mosquitto
started, then two tables log in over TLS with their ``<id>.pw`` and the hall's ``ca.crt``.
Only what is the machine's own is changed: the folder (``D=``, a temporary one), the ports
(free ones) and the address in the certificate (this machine's loopback). As first written,
Mosquitto refused to start: the certificate files the config names did not exist yet, and,
once made, the key was root's alone after Mosquitto dropped to its own user."""

from __future__ import annotations

import os
import re
import shutil
import ssl
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from hall.broker import free_port
from tests.hall.conftest import connack
from tests.security.conftest import ENV, ROOT

README = ROOT / "hall" / "README.md"


def setup_block() -> list[str]:
    """The commands of the README's set-up block, continuation lines joined."""
    text = README.read_text(encoding="utf-8")
    part = text[text.index("## Set-up") :]
    block = re.search(r"```sh\n(.*?)```", part, re.S)
    assert block is not None, "hall/README.md: no sh block under Set-up"
    joined = block.group(1).replace("\\\n", " ")
    return [line.split("  #")[0].strip() for line in joined.splitlines() if line.strip()]


@pytest.fixture
def folder() -> Iterator[Path]:
    """A folder Mosquitto's own user may enter (pytest's tmp_path is root's alone)."""
    d = Path(tempfile.mkdtemp(prefix="hallreadme-"))
    d.chmod(0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def test_the_readme_set_up_runs_as_written_and_two_tables_log_in(folder: Path) -> None:
    lines = [ln for ln in setup_block() if not ln.startswith("#")]
    assert lines[0] == "D=/etc/mosquitto/tablescan"
    start = next(i for i, ln in enumerate(lines) if ln.startswith("mosquitto "))
    assert lines[start] == "mosquitto -d -c $D/mosquitto.conf"
    assert lines[start + 1].startswith("tablescan desk ")  # the last step: the desk itself
    before = [f"D={folder}", *lines[1:start]]
    script = "\n".join(before).replace("IP:192.168.1.10", "IP:127.0.0.1")
    if os.geteuid() != 0:  # Mosquitto keeps this user: nothing to give away
        script = script.replace("chown mosquitto: $D/server.key", "true")
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=ROOT,
        env={**ENV, "PATH": f"{Path(sys.executable).parent}:{ENV.get('PATH', '')}"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    conf = folder / "mosquitto.conf"
    plain, tls = free_port(), free_port()
    text = conf.read_text().replace("/etc/mosquitto/tablescan", str(folder))
    text = re.sub(r"^listener 1883 ", f"listener {plain} ", text, flags=re.M)
    text = re.sub(r"^listener 8883$", f"listener {tls}", text, flags=re.M)
    assert f"listener {tls}" in text and f"cafile {folder}/ca.crt" in text
    conf.write_text(text)
    broker = subprocess.Popen(
        ["mosquitto", "-c", str(conf)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        got = {t: login_over_tls(folder, t, tls, broker) for t in ("t1", "t2")}
    finally:
        broker.terminate()
        log = broker.communicate(timeout=10)[0]
    assert all(rc == "Success" for rc in got.values()), (got, log)
    assert "Error" not in log, log


def login_over_tls(folder: Path, table: str, port: int, broker: subprocess.Popen[str]) -> str:
    """The table's CONNACK over the TLS listener, as its ``[hall]`` section would log in."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=table)
    client.username_pw_set(table, (folder / f"{table}.pw").read_text().strip())
    client.tls_set(ca_certs=str(folder / "ca.crt"), cert_reqs=ssl.CERT_REQUIRED)
    return str(connack(client, port, broker, table))
