"""Mosquitto password files without ``mosquitto_passwd``: ``python -m hall.passwords``.

Writes the broker's ``passwd`` (PBKDF2-SHA512, mosquitto 2's ``$7$`` format) for the desk and
each table, owned by the broker's user (``--broker-user``, default ``mosquitto`` when run as
root: Mosquitto drops root before it reads the file), the ``acl`` for the hall's own name (a
table publishes only under ``tablescan/<hall>/<its id>/``, never under another hall's name),
and for each user ``<user>.pw`` (0600) holding only its password, the file a node's
``[hall] password_file`` (or the desk's ``--password-file``) names; ``credentials.txt`` (0600)
lists them all, ``user password`` a line.
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

from hall.topics import DESK_TOPICS, NODE_TOPICS, ROOT

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


# characters that are MQTT wildcards or topic levels: in a user name they would widen the ACL's
# %u pattern, in a hall name its topics
NOT_IN_NAMES = frozenset("/+#:") | frozenset(" \t\r\n\0")


def check_name(what: str, name: str) -> None:
    if not name or any(c in NOT_IN_NAMES or c.isspace() for c in name):
        raise ValueError(f"{what} {name!r}: no '/', '+', '#', ':' or spaces in it")


def acl_text(hall: str, desk: str = "desk") -> str:
    """Mosquitto's ``acl_file`` for one hall: a table (its user name is its table id, ``%u``)
    writes only its own node topics (``hall.topics.NODE_TOPICS``) and reads only its own
    decisions/resend; the desk reads the hall and writes decisions/resend."""
    check_name("hall", hall)
    check_name("user", desk)
    base = f"{ROOT}/{hall}"
    return (
        f"# Mosquitto ACL for the tablescan hall {hall!r} (written by python -m hall.passwords).\n"
        f"# A table's broker user name is its table id (%u); never name a table {desk!r}.\n\n"
        + "".join(f"pattern write {base}/%u/{w}\n" for w in NODE_TOPICS)
        + "".join(f"pattern read {base}/%u/{w}\n" for w in DESK_TOPICS)
        + f"\nuser {desk}\ntopic read {base}/#\n"
        + "".join(f"topic write {base}/+/{w}\n" for w in DESK_TOPICS)
    )


def write_acl(path: str | os.PathLike[str], hall: str, desk: str = "desk") -> None:
    Path(path).write_text(acl_text(hall, desk))


def write_password_file(path: str | os.PathLike[str], users: dict[str, str]) -> None:
    """``user:hash`` lines for mosquitto's ``password_file`` (written 0600)."""
    for name in users:
        check_name("user", name)
    _write_private(Path(path), "".join(f"{u}:{hash_password(p)}\n" for u, p in users.items()))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hall.passwords", description=__doc__)
    p.add_argument("--out", required=True, help="directory for passwd and credentials.txt")
    p.add_argument("--hall", default="hall", help="the hall's name in the topics (the ACL's)")
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
        write_acl(out / "acl", args.hall, args.desk)
    except (ValueError, KeyError) as e:
        print(f"hall.passwords: {e}", file=sys.stderr)
        return 2
    if owner is not None:
        os.chown(out / "passwd", owner.pw_uid, owner.pw_gid)
    for u, pw in users.items():
        _write_private(out / f"{u}.pw", pw + "\n")
    _write_private(out / "credentials.txt", "".join(f"{u} {pw}\n" for u, pw in users.items()))
    who = f", readable by {owner.pw_name}" if owner is not None else ""
    print(f"wrote {out / 'passwd'} ({len(users)} users{who}), {out / 'acl'} (hall {args.hall!r});")
    print(f"each user's password alone in {out}/<user>.pw (a node's [hall] password_file);")
    print("all of them in credentials.txt")
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
