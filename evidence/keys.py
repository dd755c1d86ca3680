"""Where the signing keys live: outside the data folder, readable only by the service user.

A key beside the record proves nothing against whoever holds the disk: he re-signs what he
rewrote. So the node key (``node.key``) and the desk's key (``desk.key``) are looked up, first
match wins, in:

1. the directory a caller names (``key_dir``: tests, ``--key-dir``);
2. ``$TABLESCAN_KEY_DIR``;
3. ``$CREDENTIALS_DIRECTORY`` when the file is there (a systemd credential:
   ``LoadCredential=node.key:/etc/tablescan/node.key`` in the Pi's unit; never written);
4. ``/etc/tablescan/`` when that folder exists (the Pi: made by ``scripts/install-pi.sh``);
5. ``$XDG_CONFIG_HOME/tablescan/`` (``~/.config/tablescan/``: a developer's machine, the demo).

Root on the Pi can still read the key wherever it lives: custody only keeps it out of every
copy of the data folder (backups, bundles, a stolen SD card image of ``/var/lib``). What catches
a re-signed record is the desk's witness (``evidence.witness``, docs/evidence.md).
"""

from __future__ import annotations

import os
from pathlib import Path

NODE_KEY = "node.key"
DESK_KEY = "desk.key"
KEY_DIR_ENV = "TABLESCAN_KEY_DIR"
SYSTEM_KEY_DIR = Path("/etc/tablescan")


def key_path(name: str = NODE_KEY, key_dir: str | os.PathLike[str] | None = None) -> Path:
    """The path of key ``name`` by the rules above (the file need not exist yet)."""
    if key_dir is not None:
        return Path(key_dir) / name
    env = os.environ.get(KEY_DIR_ENV)
    if env:
        return Path(env) / name
    creds = os.environ.get("CREDENTIALS_DIRECTORY")
    if creds and (Path(creds) / name).exists():
        return Path(creds) / name
    if SYSTEM_KEY_DIR.is_dir():
        return SYSTEM_KEY_DIR / name
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "tablescan" / name


def is_credential(path: Path) -> bool:
    """Whether ``path`` is a systemd credential (read-only: never made there)."""
    creds = os.environ.get("CREDENTIALS_DIRECTORY")
    return bool(creds) and path.parent == Path(str(creds))


def beside_record(key: Path, data_dir: str | os.PathLike[str]) -> bool:
    """Whether ``key`` lies inside the data folder (where every copy of the record takes it)."""
    data = Path(data_dir).resolve()
    return key.resolve().is_relative_to(data)
