"""The hash chain: every stored row commits to everything written before it.

A row's hash is ``sha256(previous hash ‖ canonical JSON of the row)``. Canonical JSON (sorted
keys, no spaces, UTF-8, no NaN) makes the hash independent of dict order or the writer's JSON
library, so an export can be re-verified by any tool that can sort keys.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

GENESIS = "0" * 64


def canonical_json(value: Any) -> str:
    """The one byte-exact JSON text that a row's hash is computed over."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def link_hash(prev_hash: str, body: str) -> str:
    """``sha256(prev ‖ body)`` as hex: ``prev`` is the previous row's hex hash."""
    return hashlib.sha256(prev_hash.encode("ascii") + body.encode("utf-8")).hexdigest()


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str | Any, chunk: int = 1 << 20) -> str:
    """Hash a file in chunks (clips can be large; never read them whole)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def is_sha256(text: object) -> bool:
    return isinstance(text, str) and len(text) == 64 and all(c in "0123456789abcdef" for c in text)
