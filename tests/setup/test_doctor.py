"""``tablescan doctor`` against real parts: a camera folder holding the printed marker page, a
real mosquitto on loopback, a pyserial loop port, the shipped model."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from evidence.signing import load_or_create_key
from tablescan.commands.doctor import Verdict, check_broker, check_clock, check_disk, check_key

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[int]:
    port = free_port()
    conf = tmp_path / "mosquitto.conf"
    conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\n", encoding="utf-8")
    proc = subprocess.Popen(
        ["mosquitto", "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_doctor_all_ok_on_a_ready_box(tmp_path: Path, broker: int) -> None:
    camera = tmp_path / "camera"
    camera.mkdir()
    pdf = tmp_path / "markers.pdf"
    run = [sys.executable, "-m", "tablescan"]
    subprocess.run([*run, "markers", "-o", str(pdf)], check=True, cwd=ROOT, timeout=60)
    subprocess.run(["pdftoppm", "-r", "100", "-png", str(pdf), str(camera / "page")], check=True)
    cfg = tmp_path / "t1.toml"
    subprocess.run(
        [*run, "setup", "--game", "gouji", "-o", str(cfg), "--source", "camera"],
        check=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    done = subprocess.run(
        [*run, "doctor", "--config", str(cfg), "--serial", "loop://", "--data", str(tmp_path),
         "--broker", f"127.0.0.1:{broker}"],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    lines = done.stdout.splitlines()
    names = [line.split(":")[0].split()[-1] for line in lines]
    assert names == [
        "config", "camera", "markers", "cards", "model", "serial", "disk", "key", "clock",
        "broker", "verdict",
    ]  # fmt: skip
    by_name = dict(zip(names, lines, strict=True))
    for name in ("config", "camera", "markers", "model", "serial", "broker"):
        assert by_name[name].startswith("ok "), by_name[name]
    assert "all four found" in by_name["markers"]
    assert done.returncode == (1 if any(line.startswith("fail") for line in lines) else 0)


def test_doctor_fails_clearly(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[table]\nidd = "x"\n', encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "tablescan", "doctor", "--config", str(bad), "--source",
         str(tmp_path / "nothing"), "--serial", "/dev/ttyNONE9", "--broker",
         f"127.0.0.1:{free_port()}", "--data", str(tmp_path)],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1
    out = done.stdout
    assert f"fail config: {bad}:1: table.game: missing (and 5 more: tablescan config check)" in out
    assert "fail camera: source " in out and "no such file or folder" in out
    assert "fail serial: /dev/ttyNONE9: cannot be opened" in out
    assert "fail broker: 127.0.0.1:" in out and "not reachable" in out
    assert "Traceback" not in done.stderr


def test_clock_disk_and_broker_verdicts(tmp_path: Path) -> None:
    assert check_clock(now=0.0).level == "fail"  # 1970: a Pi that booted without network
    assert check_clock(now=1.8e9, synced=lambda: False).level == "warn"
    assert check_clock(now=1.8e9, synced=lambda: True) == Verdict(
        "ok", "clock", "2027-01-15 08:00:00 UTC, NTP-synchronised"
    )
    assert check_disk(tmp_path / "not" / "yet").level in ("ok", "warn", "fail")
    assert check_broker("localhost:notaport").why == "localhost:notaport: expected HOST[:PORT]"


def test_doctor_warns_when_the_key_sits_beside_the_record(tmp_path: Path) -> None:
    data, keys = tmp_path / "data", tmp_path / "etc"
    data.mkdir()
    load_or_create_key(keys / "node.key")
    ok = check_key(data, str(keys))
    assert ok.level == "ok" and "verify --key" in ok.why, ok
    load_or_create_key(data / "node.key")  # the old place: inside the data folder
    beside = check_key(data, str(keys))
    assert beside.level == "warn" and "beside the record" in beside.why, beside
    assert check_key(data, str(data)).level == "warn"  # a key dir that is the data folder
    (keys / "node.key").chmod(0o644)
    (data / "node.key").unlink()
    assert "readable by others" in check_key(data, str(keys)).why
    assert check_key(data, str(tmp_path / "none")).level == "warn"


def test_key_command_makes_and_shows_the_key(tmp_path: Path) -> None:
    run = [sys.executable, "-m", "tablescan", "key", "--key-dir", str(tmp_path / "etc")]
    missing = subprocess.run(run, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert missing.returncode == 1 and "no signing key" in missing.stderr
    made = subprocess.run([*run, "--create"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert made.returncode == 0, made.stderr
    ident = made.stdout.split()[2]
    assert len(ident) == 16 and (tmp_path / "etc" / "node.key").stat().st_mode & 0o777 == 0o600
    again = subprocess.run(run, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert again.stdout == made.stdout  # the same key, not a new one


def test_doctor_needs_no_broker_for_a_table_without_hall(tmp_path: Path) -> None:
    """A config with no ``[hall]`` never talks to a broker: no warning about one (there is
    none on 127.0.0.1 here)."""
    run = [sys.executable, "-m", "tablescan"]
    cfg = tmp_path / "t1.toml"
    subprocess.run(
        [*run, "setup", "--game", "gouji", "-o", str(cfg), "--source", str(tmp_path)],
        check=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    done = subprocess.run(
        [*run, "doctor", "--config", str(cfg), "--serial", "loop://", "--data", str(tmp_path)],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    line = next(x for x in done.stdout.splitlines() if x.split(":")[0].endswith("broker"))
    assert line.startswith("ok ") and "no [hall]" in line, line
