"""The node's Ed25519 key and its signed chain head: the chain proves its own end.

A hash chain alone shows that nothing *inside* it changed, not that nothing was cut off its
end or that it was not rebuilt from scratch: anyone can re-hash. So after every write the node
signs ``{rows, tip}`` (the last row id and its hash) with its own key and keeps the latest in
``DATA/head.json``; every export bundle carries that head, the public key, and a signature
over its manifest. ``verify`` then finds a cut tail (fewer rows than signed), a rewritten and
re-hashed chain (the tip differs) and an edited bundle (bad signature).

The key (``node.key``, PKCS#8 PEM, mode 0600) lives outside the data folder
(``evidence.keys``) and is made on the node's first write; its fingerprint (``key_id``, 16 hex)
is what ``verify --key`` pins and what the desk pins when the node first shows up. A head is
signed only when rows are appended; nothing else ever signs one.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from evidence.chain import canonical_json, sha256_bytes

HEAD_NAME = "head.json"
HEAD_FORMAT = "tablescan-head/1"


class SignatureError(ValueError):
    """A signature or key that does not check, with what is wrong."""


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def public_hex(key: Ed25519PublicKey) -> str:
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return raw.hex()


def key_id(public: str) -> str:
    """A short fingerprint of a public key (hex): what the desk compares."""
    return sha256_bytes(bytes.fromhex(public))[:16]


def parse_key_id(text: str) -> str:
    """A pinned key id as ``verify`` prints it (16 hex digits), lower case; else ValueError."""
    pin = text.strip().lower()
    if len(pin) != 16 or any(c not in "0123456789abcdef" for c in pin):
        raise ValueError(f"key id {text!r}: expected the 16 hex digits verify prints")
    return pin


def load_or_create_key(path: str | os.PathLike[str], *, create: bool = True) -> Ed25519PrivateKey:
    """The signing key at ``path``, made (0600, its folder 0700 when new) on first use unless
    ``create`` is false or ``path`` is a systemd credential. Two processes starting together
    agree on one key: it is written to a temp file and linked into place only if absent."""
    from evidence.keys import is_credential

    path = Path(path)
    if not path.exists():
        if not create or is_credential(path):
            raise SignatureError(f"{path}: no signing key there")
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        pem = Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".key-")
        try:
            os.fchmod(fd, 0o600)
            os.write(fd, pem)
            os.fsync(fd)
            os.close(fd)
            with contextlib.suppress(FileExistsError):  # another process made it first
                os.link(tmp, path)
        finally:
            os.unlink(tmp)
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as e:
        raise SignatureError(f"{path}: signing key unreadable ({e})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SignatureError(f"{path}: not an Ed25519 private key")
    return key


def sign(key: Ed25519PrivateKey, body: dict[str, Any]) -> dict[str, Any]:
    """``body`` with ``key`` (public, hex) and ``sig`` over its canonical JSON."""
    unsigned = {**body, "key": public_hex(key.public_key())}
    return {**unsigned, "sig": _b64(key.sign(canonical_json(unsigned).encode()))}


def check(signed: Any) -> dict[str, Any]:
    """The signed object if its ``sig`` checks against its own ``key``; else SignatureError."""
    if not isinstance(signed, dict) or not isinstance(signed.get("sig"), str):
        raise SignatureError("no signature")
    unsigned = {k: v for k, v in signed.items() if k != "sig"}
    try:
        public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(str(unsigned.get("key"))))
        public.verify(base64.b64decode(signed["sig"]), canonical_json(unsigned).encode())
    except (InvalidSignature, ValueError, TypeError) as e:
        raise SignatureError(f"signature does not check ({type(e).__name__})") from None
    return signed


def sign_head(key: Ed25519PrivateKey, rows: int, tip: str) -> dict[str, Any]:
    return sign(key, {"format": HEAD_FORMAT, "rows": rows, "tip": tip, "at": time.time()})


def write_head(data_dir: str | os.PathLike[str], head: dict[str, Any]) -> None:
    """Replace ``DATA/head.json`` atomically (a reader never sees half of it)."""
    path = Path(data_dir) / HEAD_NAME
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".head-", suffix=".part")
    with os.fdopen(fd, "w") as f:
        f.write(json.dumps(head, sort_keys=True))
    os.replace(tmp, path)


def read_head(data_dir: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The stored signed head (not yet checked), or None when there is none."""
    path = Path(data_dir) / HEAD_NAME
    if not path.exists():
        return None
    value = json.loads(path.read_text())
    if not isinstance(value, dict):
        raise SignatureError(f"{path}: not a JSON object")
    return value
