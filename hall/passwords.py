"""Mosquitto password files without ``mosquitto_passwd``: ``python -m hall.passwords``.

Writes the broker's ``passwd`` (PBKDF2-SHA512, mosquitto 2's ``$7$`` format) for the desk and
each table, owned by the broker's user (``--broker-user``, default ``mosquitto`` when run as
root: Mosquitto drops root before it reads the file), and for each user ``<user>.pw`` (0600)
holding only its password, the file a node's ``[hall] password_file`` (or the desk's
``--password-file``) names; ``credentials.txt`` (0600) lists them all, ``user password`` a line.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import pwd
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
    p.add_argument(
        "--broker-user",
        default=None,
        help="the user Mosquitto runs as, who must read passwd (default: mosquitto when run "
        "as root and that user exists; else passwd stays the caller's)",
    )
    p.add_argument("tables", nargs="+", help="table ids (each becomes a broker user)")
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    users = {name: secrets.token_urlsafe(18) for name in [args.desk, *args.tables]}
    try:
        owner = _broker_owner(args.broker_user)
        write_password_file(out / "passwd", users)
    except (ValueError, KeyError) as e:
        print(f"hall.passwords: {e}", file=sys.stderr)
        return 2
    if owner is not None:
        os.chown(out / "passwd", owner.pw_uid, owner.pw_gid)
    for u, pw in users.items():
        _write_private(out / f"{u}.pw", pw + "\n")
    _write_private(out / "credentials.txt", "".join(f"{u} {pw}\n" for u, pw in users.items()))
    who = f", readable by {owner.pw_name}" if owner is not None else ""
    print(f"wrote {out / 'passwd'} ({len(users)} users{who}); each user's password alone in")
    print(f"{out}/<user>.pw (a node's [hall] password_file); all of them in credentials.txt")
    return 0


def _broker_owner(name: str | None) -> pwd.struct_passwd | None:
    """Who must own ``passwd``: the named user (an unknown one is an error), or mosquitto when
    we are root and it exists (Mosquitto started as root reads its files as that user)."""
    if name is not None:
        try:
            return pwd.getpwnam(name)
        except KeyError:
            raise KeyError(f"--broker-user {name}: no such user on this machine") from None
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam("mosquitto")
    except KeyError:
        return None


if __name__ == "__main__":
    sys.exit(main())
