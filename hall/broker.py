"""A real Mosquitto on a loopback port, for the tests, the bench and a try-out desk.

``LocalBroker(dir, users={...})`` writes a config with the shipped limits (message size,
queues, client id = user name), the hall's ACL and password file (``hall.passwords``) and
(optionally) a TLS listener, starts ``mosquitto`` and waits for its port; ``kill()`` is a
SIGKILL (what a power cut does to a broker), ``start()`` brings it back on the same port with
the same persistence file.
"""

from __future__ import annotations

import getpass
import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from hall.passwords import write_acl, write_password_file

SHIPPED = Path(__file__).parent / "mosquitto"
# the shipped config's lines a test broker takes as they are (the hall's limits)
LIMITS = (
    "max_queued_messages",
    "max_queued_bytes",
    "max_inflight_messages",
    "max_packet_size",
)
LISTENER = ("use_username_as_clientid",)  # listener options: after each ``listener`` line


def shipped_limits(*, packet_size: bool = True) -> list[str]:
    """The limit lines of ``hall/mosquitto/mosquitto.conf`` (without ``max_packet_size`` to
    try what reaches the desk when a broker lets a big message through)."""
    keep = [k for k in LIMITS if packet_size or k != "max_packet_size"]
    return _shipped(keep)


def _shipped(keys: list[str] | tuple[str, ...]) -> list[str]:
    lines = (SHIPPED / "mosquitto.conf").read_text().splitlines()
    return list(dict.fromkeys(ln.strip() for ln in lines if ln.split(" ", 1)[0] in keys))


MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class TlsFiles:
    ca: Path
    cert: Path
    key: Path


class LocalBroker:
    def __init__(
        self,
        workdir: str | os.PathLike[str],
        users: dict[str, str],
        *,
        port: int | None = None,
        tls: TlsFiles | None = None,
        autosave_s: int = 10,
        hall: str = "hall",
        packet_limit: bool = True,
    ) -> None:
        self.dir = Path(workdir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.tls = tls
        self.proc: subprocess.Popen[bytes] | None = None
        write_password_file(self.dir / "passwd", users)
        write_acl(self.dir / "acl", hall)
        lines = [
            "per_listener_settings false",
            # run as whoever starts it (as root mosquitto would switch to 'mosquitto', which
            # cannot read a private temp dir)
            f"user {getpass.getuser()}",
            "allow_anonymous false",
            f"password_file {self.dir / 'passwd'}",
            f"acl_file {self.dir / 'acl'}",
            "persistence true",
            f"persistence_location {self.dir}/",
            f"autosave_interval {autosave_s}",
            *shipped_limits(packet_size=packet_limit),
            "log_dest stderr",
            "log_type error",
            "log_type warning",
            f"listener {self.port} 127.0.0.1",
            *_shipped(LISTENER),
        ]
        if tls is not None:
            lines += [f"cafile {tls.ca}", f"certfile {tls.cert}", f"keyfile {tls.key}"]
        (self.dir / "mosquitto.conf").write_text("\n".join(lines) + "\n")

    @property
    def url(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://127.0.0.1:{self.port}"

    def start(self, timeout: float = 10.0) -> LocalBroker:
        log = open(self.dir / "mosquitto.log", "ab")  # noqa: SIM115 (lives with the process)
        self.proc = subprocess.Popen(
            [MOSQUITTO, "-c", str(self.dir / "mosquitto.conf")],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mosquitto exited at start: {self.log_tail()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.02)
        raise RuntimeError(f"mosquitto did not listen on {self.port} in {timeout} s")

    def kill(self) -> None:
        """SIGKILL: nothing is saved (what was not autosaved is gone)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(5)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None

    def log_tail(self, n: int = 2000) -> str:
        path = self.dir / "mosquitto.log"
        return path.read_text(errors="replace")[-n:] if path.exists() else ""

    def __enter__(self) -> LocalBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
