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
from collections.abc import Sequence
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


SESSION_S = 14 * 3600.0  # a session lasts one tournament day at most
MAX_BACKOFF_S = 30.0  # the longest an account waits: the real user is never locked out long
FORGIVE_S = 15 * 60.0


def backoff_s(failures: int, free: int) -> float:
    """Wait after ``failures`` failed tries: none for the first ``free``, then 1, 2, 4 ... s,
    at most ``MAX_BACKOFF_S`` (no permanent lock)."""
    if failures < free:
        return 0.0
    return float(min(MAX_BACKOFF_S, 2.0 ** (failures - free)))


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
            CREATE TABLE IF NOT EXISTS sessions (
                hash TEXT PRIMARY KEY, user TEXT NOT NULL, created REAL NOT NULL,
                expires REAL NOT NULL);
            CREATE INDEX IF NOT EXISTS sessions_user ON sessions(user);
            CREATE TABLE IF NOT EXISTS login_limits (
                key TEXT PRIMARY KEY, failures INTEGER NOT NULL, next_ok REAL NOT NULL,
                last REAL NOT NULL);
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
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(
                "INSERT OR REPLACE INTO users(name, role, pw, created) VALUES (?,?,?,?)",
                (name, role, pw, time.time()),
            )
            # a new password or role ends every session the old one opened (a copied
            # cookie, a forgotten browser), and clears the account's login back-off
            self._db.execute("DELETE FROM sessions WHERE user=?", (name,))
            self._db.execute("DELETE FROM login_limits WHERE key=?", (f"user:{name}",))
            self._db.execute("COMMIT")
        return User(name, role)

    # -- sessions: the cookie holds a random id; the server decides whether it still counts --

    def new_session(self, name: str, lifetime_s: float = SESSION_S) -> str:
        """Open a session for ``name``; returns the id to keep in the (signed) cookie."""
        sid = secrets.token_urlsafe(32)
        now = time.time()
        with self._lock:
            self._db.execute("DELETE FROM sessions WHERE expires < ?", (now,))
            self._db.execute(
                "INSERT INTO sessions(hash, user, created, expires) VALUES (?,?,?,?)",
                (_token_hash(sid), name, now, now + lifetime_s),
            )
        return sid

    def session_user(self, sid: str) -> User | None:
        """The user of a live session id, or None (unknown, ended or expired)."""
        if not sid:
            return None
        with self._lock:
            row = self._db.execute(
                "SELECT u.name, u.role FROM sessions s JOIN users u ON u.name = s.user "
                "WHERE s.hash=? AND s.expires >= ?",
                (_token_hash(sid), time.time()),
            ).fetchone()
        return User(row[0], row[1]) if row else None

    def end_session(self, sid: str) -> None:
        with self._lock:
            self._db.execute("DELETE FROM sessions WHERE hash=?", (_token_hash(sid),))

    def end_sessions(self, name: str) -> int:
        """End every session of ``name`` (e.g. on a role change); returns how many."""
        with self._lock:
            cur = self._db.execute("DELETE FROM sessions WHERE user=?", (name,))
        return int(cur.rowcount)

    # -- login limits: atomic in SQLite, so parallel guesses cannot race past them ------------

    def login_attempt(
        self,
        keys: list[tuple[str, int]],
        now: float | None = None,
        *,
        shared: Sequence[tuple[str, int]] = (),
    ) -> float:
        """Reserve one password try for every ``(key, free tries)``, e.g. the client and the
        account as tried from it. Returns 0.0 when the try may go ahead (it is counted as a
        failure until ``login_succeeded``), else the seconds to wait. ``shared`` keys (the
        account over every client) are counted too, but their back-off holds only a client
        with failures of its own: strangers' guesses never lock out a client that made none.
        One IMMEDIATE transaction, so 40 parallel guesses get exactly the tries allowed."""
        now = time.time() if now is None else now
        every = [*keys, *shared]
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                rows = {
                    k: self._db.execute(
                        "SELECT failures, next_ok FROM login_limits WHERE key=?", (k,)
                    ).fetchone()
                    for k, _free in every
                }

                def live(k: str) -> bool:  # failures not yet forgiven by a quiet spell
                    r = rows[k]
                    return r is not None and int(r[0]) > 0 and now - r[1] <= FORGIVE_S

                holding = [k for k, _ in keys]
                if any(live(k) for k, _ in keys):
                    holding += [k for k, _ in shared]
                wait = max((rows[k][1] - now for k in holding if rows[k]), default=0.0)
                if wait > 0:
                    self._db.execute("COMMIT")
                    return wait
                for k, free in every:
                    failures = int(rows[k][0]) if live(k) else 0
                    failures += 1
                    self._db.execute(
                        "INSERT OR REPLACE INTO login_limits(key, failures, next_ok, last)"
                        " VALUES (?,?,?,?)",
                        (k, failures, now + backoff_s(failures, free), now),
                    )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return 0.0

    def login_succeeded(self, account: str, client: str, *, pair: str | None = None) -> None:
        """The account's back-off ends; the client's try is handed back (not forgiven all:
        an attacker's own good login must not wipe its guesses at other accounts)."""
        with self._lock:
            self._db.execute("DELETE FROM login_limits WHERE key IN (?, ?)", (account, pair))
            self._db.execute(
                "UPDATE login_limits SET failures = max(0, failures - 1) WHERE key=?", (client,)
            )

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
