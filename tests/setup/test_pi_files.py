"""The Raspberry Pi files: the unit passes ``systemd-analyze verify``, the install script parses
and does what docs/setup.md says."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "scripts" / "tablescan-table@.service"


def test_unit_verifies_with_systemd(tmp_path: Path) -> None:
    fake = tmp_path / "tablescan"  # the installed command, here a stand-in executable
    fake.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    text = UNIT.read_text(encoding="utf-8").replace("/opt/tablescan/venv/bin/tablescan", str(fake))
    unit = tmp_path / "tablescan-table@t1.service"
    unit.write_text(text, encoding="utf-8")
    done = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "SYSTEMD_LOG_LEVEL": "warning"},
    )
    assert done.returncode == 0, done.stderr
    assert "tablescan-table@t1" not in done.stderr, done.stderr
    for line in (
        "Type=notify",
        "WatchdogSec=20",
        "Restart=on-failure",
        "User=tablescan",
        "StandardOutput=journal",
        "ReadWritePaths=/var/lib/tablescan",
        "--data /var/lib/tablescan",
        "LoadCredential=node.key:/etc/tablescan/node.key",
    ):
        assert line in text


def test_install_script_parses_and_covers_the_pi() -> None:
    script = ROOT / "scripts" / "install-pi.sh"
    subprocess.run(["bash", "-n", str(script)], check=True, timeout=30)
    assert os.access(script, os.X_OK)
    text = script.read_text(encoding="utf-8")
    for needle in (
        "python3-picamera2",
        "--system-site-packages",
        "useradd --system",
        "/var/lib/tablescan",
        "tablescan-table@.service",
        "systemctl daemon-reload",
        "key --create --key-dir /etc/tablescan",
    ):
        assert needle in text
