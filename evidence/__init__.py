"""Evidence store: the node's tamper-evident match record, rulings, actions and media.

Who can forge what, and what ``verify`` proves against each: docs/evidence.md."""

from evidence.lock import TableLocked
from evidence.store import DEFAULT_DATA_DIR, EvidenceStore, Row, StoreError
from evidence.verify import Problem, VerifyReport

__all__ = [
    "DEFAULT_DATA_DIR",
    "EvidenceStore",
    "Problem",
    "Row",
    "StoreError",
    "TableLocked",
    "VerifyReport",
]
