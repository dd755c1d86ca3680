"""``python -m tests.security.killer WHEN N -- TABLESCAN-ARGS``: the real ``tablescan`` CLI in
this process, SIGKILLed by itself at an exact point of the store's write path, so a crash test
hits the window it means to (a kill from outside lands anywhere):

* ``after-hand-end``: when the first ruling after a stored ``hand_end`` is about to be chained
  (the hand's outcome rulings are not yet stored);
* ``after-event N``: right after the N-th event is durable in the store (before the node's
  ``-o`` JSONL line is written).
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

from evidence.store import EvidenceStore


def main() -> int:
    when, n = sys.argv[1], int(sys.argv[2])
    args = sys.argv[sys.argv.index("--") + 1 :]
    real_event, real_ruling = EvidenceStore.append_event, EvidenceStore.append_ruling
    seen: dict[str, Any] = {"events": 0, "last": None}

    def append_event(self: EvidenceStore, table: str, event: dict[str, Any]) -> int:
        seq = real_event(self, table, event)
        seen["events"] += 1
        seen["last"] = event.get("type")
        if when == "after-event" and seen["events"] == n:
            os.kill(os.getpid(), signal.SIGKILL)
        return seq

    def append_ruling(self: EvidenceStore, table: str, ruling: dict[str, Any]) -> bool:
        if when == "after-hand-end" and seen["last"] == "hand_end":
            os.kill(os.getpid(), signal.SIGKILL)
        return real_ruling(self, table, ruling)

    EvidenceStore.append_event = append_event  # type: ignore[method-assign]
    EvidenceStore.append_ruling = append_ruling  # type: ignore[method-assign]
    from tablescan.cli import main as cli

    return int(cli(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
