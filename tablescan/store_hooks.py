"""Wiring a table node to the store: ``NodeHooks(**store_hooks(store, table))``.

Every record event is chained (``append_event``), the JPEGs the node keeps for an event are
stored by content and tied to its seq (named after their files, so the event's ``evidence`` id
finds them), and every ruling the node's referee gives is chained too; events the dashboard
stored (rulings, corrections) come back to the node through ``foreign``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.record import Event
from evidence.store import EvidenceStore


def store_hooks(store: EvidenceStore, table: str) -> dict[str, Callable[..., Any]]:
    store.lock_table(table)  # one node per table and data folder (raises TableLocked)

    def on_event(event: dict[str, Any]) -> None:
        store.append_event(table, event)

    def on_evidence(event: dict[str, Any], paths: list[Path]) -> None:
        for path in paths:
            store.add_media(
                path,
                table=table,
                seq=event.get("seq"),
                name=path.stem,
                suffix=path.suffix or ".jpg",
            )

    def on_ruling(event: dict[str, Any], ruling: dict[str, Any]) -> None:
        store.append_ruling(table, ruling)

    def foreign(after_seq: int) -> list[Event]:
        # the dashboard appends rulings and corrections to the same record: the node takes
        # them in before numbering its own next event
        return store.events(table, after_seq=after_seq)

    return {
        "on_event": on_event,
        "on_evidence": on_evidence,
        "on_ruling": on_ruling,
        "foreign": foreign,
    }
