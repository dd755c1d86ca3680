"""Hall set-up as hall/README.md writes it: ``python -m hall.passwords`` leaves a ``passwd``
that Mosquitto, started as root (it drops to its own user before it reads the file), can read,
and a ``t1.pw`` holding the password alone, which a table logs in with; a credentials.txt line
put in a ``password_file`` is refused by name instead of "Not authorized" every 2 s."""

from __future__ import annotations

import os
import pwd
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from hall.broker import free_port
from hall.config import HallConfig, HallConfigError
from tests.hall.conftest import connack
from tests.security.conftest import ENV


@pytest.fixture
def out() -> Iterator[Path]:
    """A folder Mosquitto's own user may enter (pytest's tmp_path is root's alone)."""
    d = Path(tempfile.mkdtemp(prefix="hallpw-"))
    d.chmod(0o755)
    yield d
    subprocess.run(["rm", "-rf", str(d)], check=False)


def test_the_readme_set_up_logs_a_table_in(out: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "hall.passwords", "--out", str(out), "desk", "t1"],
        env=ENV,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    owner = pwd.getpwuid((out / "passwd").stat().st_uid).pw_name
    if os.geteuid() == 0:
        assert owner == "mosquitto"
    else:
        assert owner == pwd.getpwuid(os.geteuid()).pw_name
    password = (out / "t1.pw").read_text().strip()
    assert password and " " not in password
    assert (out / "t1.pw").stat().st_mode & 0o777 == 0o600
    port = free_port()
    conf = out / "mosquitto.conf"
    conf.write_text(
        f"per_listener_settings false\nallow_anonymous false\npassword_file {out / 'passwd'}\n"
        f"listener {port} 127.0.0.1\n"
    )
    broker = subprocess.Popen(
        ["mosquitto", "-c", str(conf)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        cfg = HallConfig(broker=f"mqtt://127.0.0.1:{port}", password_file=out / "t1.pw")
        user, pw = cfg.credentials("t1")
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="t1-test")
        client.username_pw_set(user, pw)
        rc = connack(client, port, broker, "t1")
        assert not getattr(rc, "is_failure", True), rc
    finally:
        broker.terminate()
        log = broker.communicate(timeout=10)[0]
    assert "Unable to open pwfile" not in log, log


def test_a_credentials_line_is_refused_by_name(tmp_path: Path) -> None:
    line = tmp_path / "hall.pw"
    line.write_text("t1 9sKx-secret\n")
    with pytest.raises(HallConfigError, match=r"hall\.pw'.*'t1' and a password.*alone"):
        HallConfig(broker="mqtt://127.0.0.1:1883", password_file=line)
