"""The node side of the hall: publish the table's stored record to the broker, nothing lost.

The store is the source of truth. A worker takes each newly chained event and ruling into the
outbox (``evidence.outbox``), hands it to paho (QoS 1, stream order) and deletes it from the
outbox on its PUBACK. paho re-sends what it holds, in order, after a reconnect; a restarted
publisher re-sends what the outbox still holds. The desk de-duplicates by (table, position),
and when it sees a gap (a broker killed before it delivered what it acknowledged) it asks on
``resend``; the answer comes from the chain itself.

Decisions taken at the desk arrive on the table's ``decisions`` topic and are appended to the
node's own store as record events (the node takes them in through its ``foreign`` hook);
each carries its decision id in ``meta.decision``, so one delivered twice is stored once.

Message on ``events`` (JSON)::

    {"v": 1, "table": T, "seq": POS, "kind": "event"|"ruling", "data": {...},
     "node": {"row": ROW_ID, "at": AT, "prev": PREV_HASH, "hash": ROW_HASH}}

``seq`` is the table's stream position (0, 1, 2, … over events and rulings in chain order;
for a table with only events it is the event's own seq); ``data`` is the event or ruling as
chained, ``node`` lets the desk re-check the node's hash: ``sha256(prev ‖ row_body)``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

import paho.mqtt.client as mqtt

from engine.boundedjson import parse
from evidence.live import LiveFiles
from evidence.outbox import Outbox, StreamItem
from evidence.signing import read_head
from evidence.store import EvidenceStore, StoreError
from hall.client import connect_async, make_client
from hall.clips import ClipSender
from hall.config import HallConfig
from hall.live import FrameSender
from hall.topics import NODE_TOPICS, topic

log = logging.getLogger(__name__)

MAX_DECISION_BYTES = 16 * 1024
MAX_RESEND_BYTES = 256
STATE_EVERY_S = 2.0  # while the record moves, the retained state follows at most this often


def message(item: StreamItem) -> dict[str, Any]:
    """The ``events`` payload for one stream item."""
    return {
        "v": 1,
        "table": item.table,
        "seq": item.pos,
        "kind": item.kind,
        "data": item.data,
        "node": {"row": item.row_id, "at": item.at, "prev": item.prev, "hash": item.hash},
    }


class Publisher:
    """Publishes one table's record from ``store``; ``start()``, ``wake()`` after an append
    (optional: it also polls every ``poll_s``), ``stop()``."""

    def __init__(
        self, store: EvidenceStore, table: str, cfg: HallConfig, *, poll_s: float = 0.1
    ) -> None:
        self.store = store
        self.table = table
        self.cfg = cfg
        self.poll_s = poll_s
        self.outbox = Outbox(store.data_dir, table)
        self.topics = {w: topic(cfg.hall, table, w) for w in NODE_TOPICS}
        self.clips = ClipSender(store, table)  # hall.clips: each clip to the desk once
        self.frames = FrameSender(store.data_dir, table)  # hall.live: the camera, low rate
        self._decisions = topic(cfg.hall, table, "decisions")
        self._resend = topic(cfg.hall, table, "resend")
        self.client, self._props = make_client(
            cfg, f"tablescan-{cfg.hall}-{table}", table, will=(self.topics["status"], "offline")
        )
        self.client.on_connect = self._on_connect
        self.client.on_publish = self._on_publish
        self.client.on_message = self._on_message
        self.client.on_disconnect = self._on_disconnect
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._inbox: queue.SimpleQueue[tuple[str, bytes]] = queue.SimpleQueue()
        self._acked: deque[int] = deque()  # mids paho reported, for the worker to settle
        self._mids: dict[int, int] = {}  # mid → stream position (tracked items only)
        self._handed = -1  # highest position handed to paho by this process
        self._applied = self._stored_decisions()
        self._state: dict[str, Any] = {}
        self._state_at = 0.0
        self._state_dirty = True
        self._thread: threading.Thread | None = None
        self.connected = threading.Event()
        self.stats = {"published": 0, "acked": 0, "resent": 0, "decisions": 0, "refused": 0}
        self._scan_state(store.events(table))

    # -- life -------------------------------------------------------------------------------

    def start(self) -> Publisher:
        connect_async(self.client, self.cfg, self._props)
        self._thread = threading.Thread(target=self._run, name=f"hall-pub-{self.table}")
        self._thread.daemon = True
        self._thread.start()
        return self

    def wake(self) -> None:
        """Something was appended: publish it now rather than at the next poll."""
        self._wake.set()

    def stop(self, timeout: float = 5.0) -> None:
        """Flush what can be flushed within ``timeout``, say ``offline``, disconnect."""
        deadline = time.monotonic() + timeout
        self._wake.set()
        while time.monotonic() < deadline and self.connected.is_set():
            with_backlog = self.outbox.take_new() or self.outbox.count()
            if not with_backlog:
                break
            self._wake.set()
            time.sleep(0.02)
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
        if self.connected.is_set():
            self._publish_state()  # the retained state ends as the record does
            info = self.client.publish(self.topics["status"], "offline", qos=1, retain=True)
            with contextlib.suppress(RuntimeError, ValueError):
                info.wait_for_publish(max(0.1, deadline - time.monotonic()))
        self.client.disconnect()
        self.client.loop_stop()
        self.outbox.close()

    # -- paho callbacks (network thread): hand over to the worker ---------------------------

    def _on_connect(self, client: mqtt.Client, _u: Any, _f: Any, rc: Any, _p: Any) -> None:
        if rc.is_failure:
            log.warning("table %s: broker refused the connection: %s", self.table, rc)
            return
        client.subscribe([(self._decisions, 1), (self._resend, 1)])
        client.publish(self.topics["status"], "online", qos=1, retain=True)
        self._state_dirty = True
        self.connected.set()
        self._wake.set()

    def _on_disconnect(self, *_a: Any) -> None:
        self.connected.clear()

    def _on_publish(self, _c: Any, _u: Any, mid: int, rc: Any, _p: Any) -> None:
        if rc.is_failure:  # e.g. not authorized: keep it in the outbox, say so
            log.error("table %s: broker refused message %s: %s", self.table, mid, rc)
            self.stats["refused"] += 1
            return
        self._acked.append(mid)
        self._wake.set()

    def _on_message(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        self._inbox.put((msg.topic, bytes(msg.payload)))
        self._wake.set()

    # -- the worker --------------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(self.poll_s)
            self._wake.clear()
            try:
                self._tick()
            except Exception:  # the publisher must outlive one bad turn (a busy database)
                log.exception("table %s: hall publisher turn failed", self.table)
                time.sleep(self.poll_s)

    def _tick(self) -> None:
        while not self._inbox.empty():
            name, payload = self._inbox.get()
            if name == self._decisions:
                self._apply_decision(payload)
            elif name == self._resend:
                self._answer_resend(payload)
        self._settle_acks()
        if self.outbox.take_new():
            self._state_dirty = True
        for item in self.outbox.pending(after_pos=self._handed):
            info = self.client.publish(self.topics["events"], json.dumps(message(item)), qos=1)
            self._mids[info.mid] = item.pos
            self._handed = item.pos
            self.stats["published"] += 1
            if item.kind == "event":
                self._scan_state([item.data])
        self._settle_acks()
        if self.connected.is_set():
            self.clips.tick(lambda body: self.client.publish(self.topics["clip"], body, qos=1))
            self.frames.tick(
                lambda jpeg: self.client.publish(self.topics["frame"], jpeg, qos=0, retain=True)
            )
        now = time.monotonic()
        due = now - self._state_at >= self.cfg.heartbeat_s
        if self.connected.is_set() and (
            due or (self._state_dirty and now - self._state_at > STATE_EVERY_S)
        ):
            self._publish_state()

    def _settle_acks(self) -> None:
        done = []
        while self._acked:  # a mid not in _mids was a status/state/resend message
            pos = self._mids.pop(self._acked.popleft(), None)
            if pos is not None:
                done.append(pos)
        if done:
            self.outbox.ack(*done)
            self.stats["acked"] += len(done)

    # -- state ----------------------------------------------------------------------------------

    def _scan_state(self, events: Sequence[Mapping[str, Any]]) -> None:
        for ev in events:
            self._state["seq"] = ev.get("seq")
            if ev["type"] == "match_start":
                self._state["match"] = {
                    k: ev.get(k) for k in ("game", "profile", "seats", "teams", "levels")
                }
                self._state.pop("hand", None)
            elif ev["type"] == "hand_start":
                self._state["hand"] = {k: ev.get(k) for k in ("hand", "banker", "level")}
            elif ev["type"] == "match_end":
                self._state["ended"] = True

    def _publish_state(self) -> None:
        state = {
            **self._state,
            "table": self.table,
            "hall": self.cfg.hall,
            "head": self.outbox.head(),
            "outbox": self.outbox.count(),
            "health": LiveFiles(self.store.data_dir).health(self.table),
            "signed_head": self._signed_head(),
            "at": time.time(),
        }
        self.client.publish(self.topics["state"], json.dumps(state), qos=1, retain=True)
        self._state_at = time.monotonic()
        self._state_dirty = False

    def _signed_head(self) -> dict[str, Any] | None:
        """The node's signed chain head (``DATA/head.json``): the desk can tell a cut tail."""
        try:
            return read_head(self.store.data_dir)
        except (OSError, ValueError):
            return None

    # -- from the desk ----------------------------------------------------------------------

    def _stored_decisions(self) -> set[str]:
        return {
            str(ev["meta"]["decision"])
            for ev in self.store.events(self.table)
            if isinstance(ev.get("meta"), dict) and "decision" in ev["meta"]
        }

    def _apply_decision(self, payload: bytes) -> None:
        """Append a desk decision to the node's record once (its id is kept in the event)."""
        try:
            msg = parse(payload, max_bytes=MAX_DECISION_BYTES)  # bounded: a BadJson line
            if not isinstance(msg, dict):
                raise ValueError("not a JSON object")
            ident, event = msg["id"], msg["event"]
            if not isinstance(ident, str) or not ident or not isinstance(event, dict):
                raise ValueError("expected {'id': str, 'event': {...}}")
        except (ValueError, KeyError, TypeError) as e:
            log.warning("table %s: decision from the desk refused: %s", self.table, e)
            self.stats["refused"] += 1
            return
        if ident in self._applied:
            return
        meta: dict[str, Any] = event["meta"] if isinstance(event.get("meta"), dict) else {}
        ev = {k: v for k, v in event.items() if k != "seq"}
        ev["meta"] = {**meta, "decision": ident}
        try:
            self.store.append_event(self.table, ev)
        except StoreError as e:
            log.warning("table %s: decision %s not stored: %s", self.table, ident, e)
            self.stats["refused"] += 1
            return
        self._applied.add(ident)
        self.stats["decisions"] += 1
        self._wake.set()

    def _answer_resend(self, payload: bytes) -> None:
        try:
            msg = parse(payload, max_bytes=MAX_RESEND_BYTES)
            start = msg["from"] if isinstance(msg, dict) else None
            if not isinstance(start, int) or isinstance(start, bool):
                raise ValueError(f"'from' is {str(start)[:20]!r}, not a position")
        except (ValueError, KeyError, TypeError) as e:
            log.warning("table %s: resend request refused: %s", self.table, e)
            self.stats["refused"] += 1
            return
        self.outbox.take_new()
        for item in self.outbox.since(start):
            self.client.publish(self.topics["events"], json.dumps(message(item)), qos=1)
            self.stats["resent"] += 1


def start_publisher(store: EvidenceStore, table_id: str, hall_cfg: HallConfig) -> Publisher:
    """What the node's start-up calls when its config names a hall broker."""
    return Publisher(store, table_id, hall_cfg).start()
