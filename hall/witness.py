"""The desk's witness of each table's signed head (``evidence.witness``), wired to the stream.

Two hooks in ``hall.desk``: every ``state`` heartbeat hands its ``signed_head`` to ``on_head``
(checked against the pinned key, the heads witnessed and the rows the desk holds, then
witnessed or alarmed); every node row the desk stores goes to ``on_row`` (checked against the
heads witnessed before it arrived). Alarms are logged as errors, kept in the desk's witness
log and shown on the hall page (``view``).
"""

from __future__ import annotations

import logging
import os
from typing import Any

from evidence.outbox import Ledger
from evidence.witness import WitnessLog

log = logging.getLogger(__name__)


class LedgerHeld:
    """The rows the desk holds for one table, asked of its ledger one row at a time."""

    def __init__(self, ledger: Ledger, table: str) -> None:
        self.ledger, self.table = ledger, table

    def hash_at(self, row: int) -> str | None:
        return self.ledger.node_hash(self.table, row)

    def last_row(self) -> int:
        return self.ledger.last_node_row(self.table)


class DeskWitness:
    def __init__(
        self, desk_dir: str | os.PathLike[str], ledger: Ledger, *, key_dir: Any = None
    ) -> None:
        self.log = WitnessLog(desk_dir, key_dir=key_dir)
        self.ledger = ledger
        self.alarms = 0

    def on_head(self, table: str, head: Any) -> None:
        if head is None:
            return
        why = self.log.receive(table, head, LedgerHeld(self.ledger, table))
        if why:
            self.alarms += 1
            log.error("desk: table %s: WITNESS ALARM: %s", table, why)

    def on_row(self, table: str, row: int, hsh: str) -> None:
        why = self.log.check_row(table, row, hsh)
        if why:
            self.alarms += 1
            log.error("desk: table %s: WITNESS ALARM: %s", table, why)

    def view(self, table: str) -> dict[str, Any]:
        """For the hall page: the pinned key's fingerprint, how it was pinned, the last
        witnessed row and the alarms."""
        tw = self.log.tables.get(table)
        if tw is None:
            return {"key_id": None, "enrolled_by": "", "witnessed_rows": None, "alarms": []}
        view = tw.view()
        last = view["last"]
        return {
            "key_id": view["key_id"],
            "enrolled_by": view["enrolled_by"],
            "witnessed_rows": last["rows"] if last else None,
            "alarms": [a["why"] for a in view["alarms"]][-5:],
        }
