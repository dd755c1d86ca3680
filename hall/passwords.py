"""Mosquitto password files without ``mosquitto_passwd``: ``python -m hall.passwords``.

Writes the broker's ``passwd`` (PBKDF2-SHA512, mosquitto 2's ``$7$`` format) for the desk and
each table, and ``credentials.txt`` (0600) with the generated passwords to hand out, one line
per table: copy a table's password into its node's ``password_file``.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import secrets
import sys
from pathlib import Path

ITERATIONS = 101  # mosquitto_passwd's own default


def hash_password(password: str, *, salt: bytes | None = None) -> str:
    salt = salt if salt is not None else secrets.token_bytes(12)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, ITERATIONS)
    b64 = base64.b64encode
    return f"$7${ITERATIONS}${b64(salt).decode()}${b64(digest).decode()}"


def _write_private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)


def write_password_file(path: str | os.PathLike[str], users: dict[str, str]) -> None:
    """``user:hash`` lines for mosquitto's ``password_file`` (written 0600)."""
    for name in users:
        if not name or ":" in name or any(c.isspace() for c in name):
            raise ValueError(f"user {name!r}: no colons or spaces in a broker user name")
    _write_private(Path(path), "".join(f"{u}:{hash_password(p)}\n" for u, p in users.items()))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hall.passwords", description=__doc__)
    p.add_argument("--out", required=True, help="directory for passwd and credentials.txt")
    p.add_argument("--desk", default="desk", help="the desk's user name (the ACL's 'desk')")
    p.add_argument("tables", nargs="+", help="table ids (each becomes a broker user)")
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    users = {name: secrets.token_urlsafe(18) for name in [args.desk, *args.tables]}
    try:
        write_password_file(out / "passwd", users)
    except ValueError as e:
        print(f"hall.passwords: {e}", file=sys.stderr)
        return 2
    _write_private(out / "credentials.txt", "".join(f"{u} {pw}\n" for u, pw in users.items()))
    print(f"wrote {out / 'passwd'} ({len(users)} users) and {out / 'credentials.txt'} (0600)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
