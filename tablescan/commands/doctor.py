"""``tablescan doctor``: is this box ready to judge a table? One verdict per line.

Each check prints ``ok``, ``warn`` or ``fail`` with why: the config, the camera (one frame
taken), the markers in that frame, the card height they measure at the capture mode (the
envelope, ``tablescan.envelope``), the recognizer model, the seat controller's serial port,
free disk under the data folder, the node's signing key (warned when it sits beside the
record), the clock, the broker. Exit 1 when any check fails.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GIB = 1 << 30


@dataclass(frozen=True)
class Verdict:
    level: str  # ok | warn | fail
    name: str
    why: str

    def line(self) -> str:
        return f"{self.level:<4} {self.name}: {self.why}"


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("doctor", help="check camera, model, serial, disk, clock, broker")
    p.add_argument("--config", type=Path, default=None, help="the table's table.toml")
    p.add_argument("--source", default=None, help="camera uri (default: the config's)")
    p.add_argument("--model", type=Path, default=None, help="recognizer ONNX (default: config)")
    p.add_argument("--serial", default=None, metavar="URL", help="seat controller port")
    p.add_argument(
        "--data",
        type=Path,
        default=Path(os.environ.get("TABLESCAN_DATA", "/var/lib/tablescan")),
        help="data folder (default $TABLESCAN_DATA or /var/lib/tablescan)",
    )
    p.add_argument(
        "--broker", default=None, metavar="HOST[:PORT]", help="MQTT broker (default 127.0.0.1)"
    )
    p.add_argument("--key-dir", default=None, help="where the node key lives (evidence.keys)")
    p.add_argument("--timeout", type=float, default=5.0, help="seconds for the camera's frame")
    p.set_defaults(func=doctor)


def check_config(path: Path | None) -> tuple[Verdict, Any]:
    if path is None:
        return Verdict(
            "warn", "config", "none given (--config): camera and markers unchecked"
        ), None
    from tablescan.config import ConfigError, load_config

    try:
        cfg = load_config(path)
    except ConfigError as e:
        first, *more = str(e).splitlines()
        extra = f" (and {len(more)} more: tablescan config check)" if more else ""
        return Verdict("fail", "config", first + extra), None
    return Verdict("ok", "config", f"{path}: table {cfg.table_id}, {len(cfg.seats)} seats"), cfg


def grab_frame(uri: str, base: Path | None, timeout: float) -> tuple[Any, str]:
    """One frame from ``uri`` within ``timeout`` seconds: (image or None, why)."""
    from vision.sources import SourceError, open_source

    result: dict[str, Any] = {}

    def read() -> None:
        try:
            src = open_source(uri, base=base)
        except SourceError as e:
            result["why"] = str(e)
            return
        result["src"] = src
        try:
            for frame in src.frames():
                result["frame"] = frame.image
                break
        except Exception as e:  # a camera library's own error: reported, not raised
            result["why"] = f"source {uri}: {e}"
        finally:
            src.close()

    t = threading.Thread(target=read, daemon=True)
    t.start()
    t.join(timeout)
    if t.is_alive() and "src" in result:
        result["src"].close()  # a live source that gave nothing: stop it
        t.join(1.0)
    if "frame" in result:
        return result["frame"], ""
    return None, result.get("why", f"source {uri}: no frame within {timeout:g} s")


def check_camera(cfg: Any, source: str | None, timeout: float) -> tuple[Verdict, Any]:
    uri = source or (cfg.source if cfg else None)
    if uri is None:
        return Verdict("warn", "camera", "no source (--source or --config)"), None
    image, why = grab_frame(uri, cfg.path.parent if cfg else None, timeout)
    if image is None:
        return Verdict("fail", "camera", why), None
    h, w = image.shape[:2]
    return Verdict("ok", "camera", f"{uri}: a {w}×{h} frame"), image


def check_markers(cfg: Any, image: Any) -> Verdict:
    if cfg is None or image is None:
        return Verdict("warn", "markers", "no frame to look in")
    cal = cfg.calibration
    if cal.method != "aruco":
        return Verdict("ok", "markers", f"calibration by {len(cal.points)} clicked points")
    from vision.calibration import CalibrationError, calibrate_aruco

    try:
        calibrate_aruco(image, cal.table_size, cal.dictionary, cal.marker_ids, cal.marker_size)
    except CalibrationError as e:
        fallback = " (the saved points stand in)" if cal.points else ""
        return Verdict("fail" if not cal.points else "warn", "markers", f"{e}{fallback}")
    return Verdict("ok", "markers", f"all four found ({', '.join(map(str, cal.marker_ids))})")


def check_cards(cfg: Any, image: Any) -> Verdict:
    """The card height the capture mode gives, measured from the markers (the envelope)."""
    if cfg is None or image is None:
        return Verdict("warn", "cards", "no frame to measure")
    from tablescan.envelope import measure, verdict
    from vision.calibration import CalibrationError

    try:
        level, why = verdict(measure(cfg, image))
    except CalibrationError as e:
        return Verdict("warn", "cards", f"not measured: {e}")
    return Verdict(level, "cards", why)


def check_model(cfg: Any, model: Path | None) -> Verdict:
    path = model or (cfg.model if cfg else None)
    shipped = Path(__file__).resolve().parents[2] / "models" / "cards.onnx"
    if path is None or (not path.exists() and (shipped.parent / path.name).exists()):
        path = shipped.parent / (path.name if path else shipped.name)
    if not path.exists():
        return Verdict("fail", "model", f"{path}: does not exist")
    try:
        import onnxruntime as ort

        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    except Exception as e:
        return Verdict("fail", "model", f"{path}: onnxruntime cannot load it: {e}")
    shape = session.get_inputs()[0].shape
    return Verdict("ok", "model", f"{path} ({path.stat().st_size // 1024} KiB, input {shape})")


def check_serial(url: str | None) -> Verdict:
    if url is None:
        return Verdict("warn", "serial", "none given (--serial): no seat buttons or lights")
    try:
        import serial

        port = serial.serial_for_url(url, timeout=0.2, do_not_open=False)
    except Exception as e:
        return Verdict("fail", "serial", f"{url}: cannot be opened: {e}")
    port.close()
    return Verdict("ok", "serial", f"{url}: opens")


def check_disk(data: Path) -> Verdict:
    where = data
    while not where.exists() and where != where.parent:
        where = where.parent
    free = shutil.disk_usage(where).free
    text = f"{free / GIB:.1f} GiB free under {where}"
    if free < 1 * GIB:
        return Verdict("fail", "disk", text + " (under 1 GiB: evidence images would stop)")
    if free < 5 * GIB:
        return Verdict("warn", "disk", text + " (under 5 GiB: a day of evidence may not fit)")
    return Verdict("ok", "disk", text)


def check_key(data: Path, key_dir: str | None = None) -> Verdict:
    """The node key must live outside the data folder, readable by the service user alone:
    a key beside the record lets whoever copies the folder re-sign a forged one."""
    from evidence.keys import NODE_KEY, beside_record, key_path
    from evidence.signing import SignatureError, key_id, load_or_create_key, public_hex

    path = key_path(NODE_KEY, key_dir)
    beside = data / NODE_KEY
    if beside.exists() or beside_record(path, data):
        where = beside if beside.exists() else path
        return Verdict(
            "warn",
            "key",
            f"{where} sits beside the record: whoever copies the data folder can re-sign a "
            f"forged record with it; keep it in /etc/tablescan (docs/evidence.md)",
        )
    if not path.exists():
        return Verdict("warn", "key", f"no node key at {path} yet (tablescan key --create)")
    try:
        ident = key_id(public_hex(load_or_create_key(path, create=False).public_key()))
    except SignatureError as e:
        return Verdict("fail", "key", str(e))
    if path.stat().st_mode & 0o077:
        return Verdict("warn", "key", f"{path} is readable by others than its owner (chmod 600)")
    return Verdict("ok", "key", f"node key {ident} at {path} (pin it: verify --key {ident})")


def _ntp_synchronised() -> bool | None:
    try:
        out = subprocess.run(
            ["timedatectl", "show", "-p", "NTPSynchronized", "--value"],
            capture_output=True,
            text=True,
            timeout=3,
        )
    except (OSError, subprocess.TimeoutExpired):
        out = None
    if out is not None and out.returncode == 0 and out.stdout.strip() in ("yes", "no"):
        return out.stdout.strip() == "yes"
    if Path("/run/systemd/timesync/synchronized").exists():
        return True
    return None


def check_clock(
    now: float | None = None, synced: Callable[[], bool | None] = _ntp_synchronised
) -> Verdict:
    now = time.time() if now is None else now
    stamp = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(now))
    if time.gmtime(now).tm_year < 2025:
        return Verdict("fail", "clock", f"{stamp}: not set (evidence would carry wrong times)")
    state = synced()
    if state is None:
        return Verdict("warn", "clock", f"{stamp}; cannot tell whether NTP synchronised it")
    if not state:
        return Verdict("warn", "clock", f"{stamp}; not NTP-synchronised (a Pi has no RTC)")
    return Verdict("ok", "clock", f"{stamp}, NTP-synchronised")


def mqtt_connack(host: str, port: int, timeout: float = 2.0) -> str:
    """'' when an MQTT broker accepts a CONNECT at host:port, else why not."""
    client = b"tablescan-doctor"
    var = b"\x00\x04MQTT\x04\x02\x00\x0a"
    payload = len(client).to_bytes(2, "big") + client
    body = var + payload
    packet = b"\x10" + bytes([len(body)]) + body
    try:
        with socket.create_connection((host, port), timeout=timeout) as s:
            s.sendall(packet)
            reply = s.recv(4)
            s.sendall(b"\xe0\x00")  # DISCONNECT
    except OSError as e:
        return f"{host}:{port}: not reachable ({e.strerror or e})"
    if len(reply) < 4 or reply[0] != 0x20:
        return f"{host}:{port}: answers, but not as an MQTT broker"
    if reply[3] != 0:
        return f"{host}:{port}: the broker refused the connection (code {reply[3]})"
    return ""


def check_broker(broker: str | None) -> Verdict:
    given = broker is not None
    host, sep, port = (broker or "127.0.0.1:1883").rpartition(":")
    if not sep:
        host, port = port, "1883"
    try:
        number = int(port)
    except ValueError:
        return Verdict("fail", "broker", f"{broker}: expected HOST[:PORT]")
    why = mqtt_connack(host, number)
    if why:
        return Verdict("fail" if given else "warn", "broker", why)
    return Verdict("ok", "broker", f"{host}:{number}: MQTT broker accepts connections")


def broker_verdict(broker: str | None, cfg: Any) -> Verdict:
    """``--broker`` when given; else the config's ``[hall]`` broker; a table with no
    ``[hall]`` stands alone and needs none (no warning about a broker it never uses)."""
    if broker is not None or cfg is None:
        return check_broker(broker)
    hall = getattr(cfg, "hall", None)
    if hall is None:
        return Verdict("ok", "broker", "no [hall] in the config: this table needs no broker")
    from hall.config import parse_broker

    b = parse_broker(hall.broker)
    if b.tls:
        return Verdict("ok", "broker", f"{hall.broker}: TLS broker configured (not probed)")
    return check_broker(f"{b.host}:{b.port}")


def doctor(args: argparse.Namespace) -> int:
    from tablescan.i18n import choose, use

    use(choose(None))
    verdicts: list[Verdict] = []

    def say(v: Verdict) -> None:
        verdicts.append(v)
        print(v.line(), flush=True)

    v, cfg = check_config(args.config)
    say(v)
    v, image = check_camera(cfg, args.source, args.timeout)
    say(v)
    say(check_markers(cfg, image))
    say(check_cards(cfg, image))
    say(check_model(cfg, args.model))
    say(check_serial(args.serial))
    say(check_disk(args.data))
    say(check_key(args.data, args.key_dir))
    say(check_clock())
    say(broker_verdict(args.broker, cfg))
    fails = sum(v.level == "fail" for v in verdicts)
    warns = sum(v.level == "warn" for v in verdicts)
    print(f"{'fail' if fails else 'ok':<4} verdict: {fails} failed, {warns} warnings")
    return 1 if fails else 0
