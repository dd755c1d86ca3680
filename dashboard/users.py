"""Dashboard users and overlay tokens, in ``users.sqlite3`` beside the evidence store.

Passwords are hashed with the standard library's scrypt (memory-hard; salted per user) and
compared in constant time. Roles: ``head`` (head referee: everything, incl. overlay tokens),
``referee`` (rule and correct), ``viewer`` (read only). Overlay tokens are random strings
stored only as their sha256; they open one table's overlay and nothing else.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROLES = ("head", "referee", "viewer")
USERS_DB = "users.sqlite3"
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1


class UserError(ValueError):
    """A bad user name, role or password, with what is wrong."""


@dataclass(frozen=True)
class User:
    name: str
    role: str

    @property
    def can_rule(self) -> bool:
        return self.role in ("head", "referee")


def hash_password(password: str, *, n: int = SCRYPT_N) -> str:
    salt = os.urandom(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=n, r=SCRYPT_R, p=SCRYPT_P, dklen=32)
    b64 = base64.b64encode
    return f"scrypt${n}${SCRYPT_R}${SCRYPT_P}${b64(salt).decode()}${b64(digest).decode()}"


def check_password(password: str, stored: str) -> bool:
    try:
        algo, n, r, p, salt, digest = stored.split("$")
        if algo != "scrypt":
            return False
        got = hashlib.scrypt(
            password.encode(),
            salt=base64.b64decode(salt),
            n=int(n),
            r=int(r),
            p=int(p),
            dklen=32,
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, base64.b64decode(digest))


LINK_ID = 12  # an overlay link is named by this many hex digits of its token's hash
HEX = frozenset("0123456789abcdef")


@dataclass(frozen=True)
class OverlayLink:
    """A live overlay link as the head referee sees it: never the token, only its id."""

    id: str
    created: float
    by: str

    @property
    def made(self) -> str:
        """When it was made, in the node's local time."""
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(self.created))


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def overlay_link_id(token: str) -> str:
    """The id an overlay link is listed and revoked by (never the token itself)."""
    return _token_hash(token)[:LINK_ID]


class UserStore:
    """Users and overlay tokens of one node (``DATA/users.sqlite3``)."""

    def __init__(self, data_dir: str | os.PathLike[str]) -> None:
        Path(data_dir).mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            Path(data_dir) / USERS_DB, isolation_level=None, check_same_thread=False, timeout=10
        )
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(
            """
            CREATE TABLE IF NOT EXISTS users (
                name TEXT PRIMARY KEY, role TEXT NOT NULL, pw TEXT NOT NULL, created REAL);
            CREATE TABLE IF NOT EXISTS overlay_tokens (
                hash TEXT PRIMARY KEY, table_id TEXT NOT NULL, created REAL, by TEXT);
            """
        )

    def close(self) -> None:
        self._db.close()

    def add(self, name: str, role: str, password: str, *, n: int = SCRYPT_N) -> User:
        """Create or replace a user (replacing is how a password is reset)."""
        if not name or len(name) > 64 or not all(c.isalnum() or c in "-_." for c in name):
            raise UserError(f"user name {name!r}: use 1-64 letters, digits, '-', '_' or '.'")
        if role not in ROLES:
            raise UserError(f"role {role!r}: expected one of {', '.join(ROLES)}")
        if len(password) < 8:
            raise UserError(f"user {name}: password must have at least 8 characters")
        pw = hash_password(password, n=n)
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO users(name, role, pw, created) VALUES (?,?,?,?)",
                (name, role, pw, time.time()),
            )
        return User(name, role)

    def get(self, name: str) -> User | None:
        with self._lock:
            row = self._db.execute("SELECT name, role FROM users WHERE name=?", (name,)).fetchone()
        return User(row[0], row[1]) if row else None

    def authenticate(self, name: str, password: str) -> User | None:
        with self._lock:
            row = self._db.execute("SELECT role, pw FROM users WHERE name=?", (name,)).fetchone()
        if row is None:
            check_password(password, hash_password("timing-equaliser", n=2**10))
            return None
        return User(name, row[0]) if check_password(password, row[1]) else None

    def names(self) -> list[User]:
        with self._lock:
            rows = self._db.execute("SELECT name, role FROM users ORDER BY name").fetchall()
        return [User(r[0], r[1]) for r in rows]

    def new_overlay_token(self, table: str, by: str = "") -> str:
        token = secrets.token_urlsafe(24)
        with self._lock:
            self._db.execute(
                "INSERT INTO overlay_tokens(hash, table_id, created, by) VALUES (?,?,?,?)",
                (_token_hash(token), table, time.time(), by),
            )
        return token

    def overlay_links(self, table: str) -> list[OverlayLink]:
        """The table's live overlay links, newest first (the tokens themselves are not kept)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT hash, created, by FROM overlay_tokens WHERE table_id=? "
                "ORDER BY created DESC",
                (table,),
            ).fetchall()
        return [OverlayLink(r[0][:LINK_ID], float(r[1] or 0.0), str(r[2] or "")) for r in rows]

    def revoke_overlay(self, table: str, link: str | None = None) -> int:
        """Revoke one overlay link of ``table`` (by its id) or, with no id, all of them.
        Returns how many were revoked; an open overlay stream ends within a second."""
        if link is not None and (len(link) != LINK_ID or not all(c in HEX for c in link)):
            raise UserError(f"overlay link id {link!r}: expected {LINK_ID} hex digits")
        with self._lock:
            if link is None:
                cur = self._db.execute("DELETE FROM overlay_tokens WHERE table_id=?", (table,))
            else:
                cur = self._db.execute(
                    "DELETE FROM overlay_tokens WHERE table_id=? AND substr(hash, 1, ?)=?",
                    (table, LINK_ID, link),
                )
        return int(cur.rowcount)

    def overlay_table(self, token: str) -> str | None:
        """The table an overlay token opens, or None."""
        if not token:
            return None
        with self._lock:
            row = self._db.execute(
                "SELECT table_id FROM overlay_tokens WHERE hash=?", (_token_hash(token),)
            ).fetchone()
        return str(row[0]) if row else None
