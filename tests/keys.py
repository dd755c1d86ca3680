"""The suite's node key (``TABLESCAN_KEY_DIR``, set in tests/conftest.py): its id is what a
test pins with ``verify --key`` when it means "intact and trusted"."""

from __future__ import annotations

from evidence.keys import key_path
from evidence.signing import key_id, load_or_create_key, public_hex


def node_key_id() -> str:
    return key_id(public_hex(load_or_create_key(key_path()).public_key()))
