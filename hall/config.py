"""``HallConfig``: how a table node (or the desk) reaches the hall's broker.

A table's config needs one line to join a hall (``broker = "mqtts://desk.local:8883"``); the
rest has defaults. Credentials and TLS files are optional so a loopback test broker works too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

HALL_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


class HallConfigError(ValueError):
    """A broker URL or hall setting that cannot work, with the reason."""


@dataclass(frozen=True)
class Broker:
    host: str
    port: int
    tls: bool
    username: str | None = None
    password: str | None = None


def parse_broker(url: str) -> Broker:
    """``mqtt://[user:pass@]host[:1883]`` or ``mqtts://host[:8883]`` (TLS)."""
    parts = urlsplit(url)
    if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
        raise HallConfigError(f"broker {url!r}: expected mqtt://host[:port] or mqtts://host[:port]")
    tls = parts.scheme == "mqtts"
    try:
        port = parts.port or (8883 if tls else 1883)
    except ValueError:
        raise HallConfigError(f"broker {url!r}: the port is not a number 1-65535") from None
    return Broker(
        parts.hostname,
        port,
        tls,
        unquote(parts.username) if parts.username else None,
        unquote(parts.password) if parts.password else None,
    )


@dataclass(frozen=True)
class HallConfig:
    """The ``[hall]`` settings of a table node or the desk.

    ``username`` defaults to the table id (the shipped ACL keys a table's topics on it);
    ``password_file`` holds the password on its first line (keeps it out of the config).
    ``ca_file`` (and for client certificates ``cert_file``/``key_file``) are used with
    ``mqtts://``; without ``ca_file`` the system's trusted CAs are used.
    """

    broker: str
    hall: str = "hall"
    username: str | None = None
    password: str | None = None
    password_file: Path | None = None
    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None
    keepalive_s: int = 10
    heartbeat_s: float = 5.0

    def __post_init__(self) -> None:
        parse_broker(self.broker)
        if not HALL_NAME.match(self.hall):
            raise HallConfigError(f"hall {self.hall!r}: use 1-64 letters, digits, '-', '_', '.'")
        for name in ("ca_file", "cert_file", "key_file", "password_file"):
            path = getattr(self, name)
            if path is not None:  # a config file gives strings
                path = Path(path)
                object.__setattr__(self, name, path)
            if path is not None and not path.is_file():
                raise HallConfigError(f"hall {name} {str(path)!r}: no such file")
        if self.password_file is not None:
            first = (Path(self.password_file).read_text().splitlines() or [""])[0].strip()
            if len(first.split()) > 1:  # "t1 9sK…": a credentials.txt line, user and password
                raise HallConfigError(
                    f"hall password_file {str(self.password_file)!r}: its first line holds "
                    f"{first.split()[0]!r} and a password (a credentials.txt line?); it must hold "
                    "the password alone, as the <user>.pw that hall.passwords writes"
                )
        if (self.cert_file is None) != (self.key_file is None):
            raise HallConfigError("hall cert_file and key_file: give both or neither")

    def credentials(self, default_user: str) -> tuple[str | None, str | None]:
        """(username, password): the URL's, then the fields', then the password file's."""
        b = parse_broker(self.broker)
        user = self.username or b.username or default_user
        password = self.password or b.password
        if password is None and self.password_file is not None:
            lines = Path(self.password_file).read_text().splitlines()
            password = lines[0].strip() if lines else ""
        return user, password
