"""``tablescan serve --demo``: simulated matches played live into the store, so every screen moves.

The match records come from the tractor engine's simulator (seeded, with a few injected
violations so the violation queue has work); each event is appended at a steady pace, with an
evidence frame drawn for each play and a live frame and node health for the calibration and
health pages. Everything labels itself as simulated. No node runs, so each demo table is
registered for the dashboard's one desk referee (``dashboard.desk``) before its first event.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import cv2
import numpy as np

from dashboard.desk import register
from engine.tractor.record_sim import simulate
from engine.tractor.rules import Rules
from evidence import EvidenceStore
from evidence.live import LiveFiles

log = logging.getLogger(__name__)
SUIT = {"S": "spades", "H": "hearts", "C": "clubs", "D": "diamonds"}


def demo_record(seed: int, hands: int = 2, inject: int = 4, profile: str = "standard") -> list[Any]:
    events, _truth = simulate(Rules.load(profile), seed=seed, hands=hands, inject=inject)
    return events


def _card_text(code: str) -> str:
    return code if code in ("BJ", "SJ") else f"{code[:-1]}{code[-1]}"


def render_frame(title: str, cards: list[str], w: int = 640, h: int = 480) -> bytes:
    """A simulated overhead frame: green cloth, the cards just played, a caption."""
    img = np.zeros((h, w, 3), np.uint8)
    img[:] = (40, 100, 30)
    cv2.rectangle(img, (20, 20), (w - 20, h - 20), (30, 80, 20), 3)
    for i, code in enumerate(cards[:8]):
        x = 60 + i * 70
        y = 170
        cv2.rectangle(img, (x, y), (x + 60, y + 86), (245, 245, 240), -1)
        cv2.rectangle(img, (x, y), (x + 60, y + 86), (120, 120, 120), 1)
        red = code[-1:] in ("H", "D") or code == "BJ"
        colour = (40, 20, 200) if red else (20, 20, 20)
        cv2.putText(
            img, _card_text(code), (x + 4, y + 50), cv2.FONT_HERSHEY_SIMPLEX, 0.7, colour, 2
        )
    cv2.putText(img, title, (30, 60), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (230, 230, 230), 2)
    cv2.putText(
        img, "SIMULATED FRAME", (30, h - 40), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (180, 220, 180), 1
    )
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return buf.tobytes()


class DemoTable(threading.Thread):
    """Plays one simulated match into the store at ``pace_s`` seconds per event."""

    def __init__(
        self, store: EvidenceStore, table: str, seed: int, pace_s: float = 1.0, hands: int = 2
    ) -> None:
        super().__init__(name=f"demo-{table}", daemon=True)
        self.store = store
        self.table = table
        self.events = demo_record(seed, hands=hands)
        self.pace_s = pace_s
        self.live = LiveFiles(store.data_dir)
        self.stop_flag = threading.Event()

    def stop(self) -> None:
        self.stop_flag.set()
        self.join(timeout=5)

    def run(self) -> None:
        names: list[str] = []
        started = time.monotonic()
        register(self.store, self.table, by="demo")
        for i, event in enumerate(self.events):
            if self.stop_flag.wait(self.pace_s if i else 0):
                return
            if event["type"] == "match_start":
                names = event["seats"]
            evidence = event.get("evidence")
            try:
                if evidence and event["type"] in ("play", "bury", "bottom_reveal", "declare"):
                    who = names[event["seat"]] if "seat" in event and names else "table"
                    jpeg = render_frame(
                        f"{self.table} seq {event['seq']}: {who} {event['type']}",
                        list(event.get("cards") or []),
                    )
                    self.store.add_media(jpeg, name=evidence, table=self.table, seq=event["seq"])
                    self.live.put_frame(self.table, jpeg)
                self.store.append_event(self.table, event)
            except Exception:
                log.exception("demo table %s stopped at seq %s", self.table, event.get("seq"))
                return
            elapsed = time.monotonic() - started
            self.live.put_health(
                self.table,
                {
                    "source": "simulated (demo)",
                    "fps": 15.0,
                    "model_ms": 38.0 + (i % 7),
                    "queue": i % 3,
                    "serial": {"state": "up", "port": "simulated"},
                    "uptime_s": round(elapsed, 1),
                },
            )


def start_demo(
    store: EvidenceStore, tables: int = 2, pace_s: float = 1.0, seed: int = 7
) -> list[DemoTable]:
    """Start ``tables`` simulated tables on ids ``demo-1``… not yet used in this store."""
    used = set(store.tables())
    out: list[DemoTable] = []
    n = 1
    while len(out) < tables:
        tid = f"demo-{n}"
        n += 1
        if tid in used:
            continue
        demo = DemoTable(store, tid, seed=seed + n, pace_s=pace_s)
        demo.start()
        out.append(demo)
    return out
