"""``tablescan key [--key-dir DIR] [--create] [--desk]``: the node's signing key, for set-up.

Prints the key id (``verify --key`` pins it) and the public key (``tablescan witness enrol``
pins it at the desk), and where the key lives (``evidence.keys``: outside the data folder).
``--create`` makes it when there is none (``scripts/install-pi.sh`` does, as root, into
``/etc/tablescan``); without it a missing key is exit 1.
"""

from __future__ import annotations

import argparse
import sys

from evidence.keys import DESK_KEY, NODE_KEY, key_path


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("key", help="the node's signing key: its id and public key")
    p.add_argument("--key-dir", help="where the key lives (default: evidence.keys' rules)")
    p.add_argument("--create", action="store_true", help="make the key when there is none")
    p.add_argument("--desk", action="store_true", help="the desk's key instead of the node's")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from evidence.signing import SignatureError, key_id, load_or_create_key, public_hex

    path = key_path(DESK_KEY if args.desk else NODE_KEY, args.key_dir)
    try:
        key = load_or_create_key(path, create=args.create)
    except SignatureError as e:
        print(f"tablescan key: {e} (make it with --create)", file=sys.stderr)
        return 1
    public = public_hex(key.public_key())
    print(f"key id {key_id(public)}")
    print(f"public key {public}")
    print(f"file {path}")
    return 0
