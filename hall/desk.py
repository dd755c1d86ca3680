"""The desk side of the hall: every table's record, once each, in the desk's own store.

The desk subscribes to ``tablescan/<hall>/+/events|state|status``. An ``events`` message is
stored when it is the table's next stream position: an event with its own seq
(``append_event``), a ruling as a ruling (``append_ruling``); an earlier position is a
duplicate (dropped), a later one waits while the desk asks the node to resend from the first
missing position (``resend``). The ``state`` heartbeat carries the node's head position, so a
gap at the end (the broker lost the last messages) is found too. Before storing, the desk
re-computes the node's row hash from the message; a message that does not match is refused.

Every stored position goes into the ``Ledger`` with the node's row id, time and hash, so
``Desk.verify(table)`` re-checks the table's chain as the node wrote it. The desk's own store is
one chain over the hall (the store keys each table's record by (table, seq)).

A decision taken at the desk (``decide``) is chained as an action in the desk's store at once,
sent to the table's ``decisions`` topic (QoS 1, re-sent until the node's record shows it), and
stored as a record event when it comes back in the table's stream with the node's seq: the
node numbers its own record, so the two stores never disagree on a seq.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import paho.mqtt.client as mqtt

from evidence.live import LiveFiles
from evidence.outbox import Ledger, ruling_key
from evidence.store import EvidenceStore, StoreError
from evidence.verify import Problem, VerifyReport, verify_store
from hall.client import connect_async, make_client
from hall.clips import ClipRefused, store_clip
from hall.config import HallConfig
from hall.intake import (
    ChainEnd,
    FutureBuffer,
    Poison,
    Poisoned,
    choose,
    parse_item,
    parse_state,
    self_consistent,
)
from hall.live import FrameRefused, store_frame, store_health
from hall.topics import NODE_TOPICS, split, topic
from hall.witness import DeskWitness

log = logging.getLogger(__name__)

RESEND_EVERY_S = 2.0  # ask again for a gap that made no progress for this long
DECISION_RETRY_S = 5.0


@dataclass
class TableLink:
    """What the desk knows of one table's connection."""

    id: str
    status: str = "unknown"  # online / offline (the node's retained status, its Last Will)
    stored: int = -1  # last stream position stored (stored without gaps)
    node_head: int = -1  # the node's own head, from its state heartbeat
    heard: float = 0.0  # wall time of the last message of any kind
    state: dict[str, Any] = field(default_factory=dict)
    buffer: FutureBuffer = field(default_factory=FutureBuffer)
    end: ChainEnd = field(default_factory=ChainEnd)  # the node row stored last
    resend_from: int | None = None
    resend_at: float = 0.0
    resend_stored: int = -1  # what was stored when the desk last asked (progress check)
    duplicates: int = 0
    refused: int = 0

    def gap(self) -> tuple[int, int] | None:
        """The missing positions (first, last), if the desk is behind what it has seen."""
        waiting = self.buffer.positions()
        seen = max([self.node_head, *waiting])
        if seen > self.stored:
            last = min(waiting) - 1 if waiting else seen
            return (self.stored + 1, last)
        return None

    def link(self, now: float, late_s: float) -> str:
        """online / offline / late (online but silent, or a gap not filling) / unknown."""
        if self.status == "offline":
            return "offline"
        if self.status == "online" and (
            now - self.heard > late_s or (self.gap() and now - self.resend_at > late_s)
        ):
            return "late"
        return self.status


@dataclass
class Pending:
    id: str
    table: str
    event: dict[str, Any]
    sent_at: float = 0.0
    seq: int | None = None
    made_at: float = field(default_factory=time.time)
    done: threading.Event = field(default_factory=threading.Event)


class Desk:
    """Subscribes to one hall and keeps every table's record in ``store``."""

    def __init__(
        self,
        store: EvidenceStore,
        cfg: HallConfig,
        *,
        user: str = "desk",
        late_s: float = 15.0,
        on_change: Callable[[str], None] | None = None,
        key_dir: str | None = None,
    ) -> None:
        self.store = store
        self.cfg = cfg
        self.late_s = late_s
        self.on_change = on_change
        self.ledger = Ledger(store.data_dir)
        self.poison = Poison(store.data_dir)
        self.witness = DeskWitness(store.data_dir, self.ledger, key_dir=key_dir)
        self.live = LiveFiles(store.data_dir)
        self.tables: dict[str, TableLink] = {}
        ends = self.poison.chain_ends()
        for tid, head in self.ledger.heads().items():
            self.tables[tid] = TableLink(tid, stored=head, end=ends.get(tid, ChainEnd()))
        # (node append time, ms from the node's append to this store): for the bench
        self.latencies: list[tuple[float, float]] = []
        self.stats = {
            "received": 0,
            "stored": 0,
            "duplicates": 0,
            "refused": 0,
            "resends": 0,
            "poison": 0,
            "clips": 0,
        }
        self.pending: dict[str, Pending] = {}
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.connected = threading.Event()
        self.client, self._props = make_client(cfg, f"tablescan-desk-{cfg.hall}", user)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = lambda *_a: self.connected.clear()
        self.client.on_message = self._on_message
        self._load_pending()

    # -- life -------------------------------------------------------------------------------

    def start(self) -> Desk:
        connect_async(self.client, self.cfg, self._props)
        self._thread = threading.Thread(target=self._run, name="hall-desk", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        self.client.disconnect()
        self.client.loop_stop()
        self.ledger.close()
        self.poison.close()

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            try:
                self._housekeeping()
            except Exception:
                log.exception("desk housekeeping failed")

    def _housekeeping(self) -> None:
        now = time.time()
        with self._lock:
            for link in self.tables.values():
                gap = link.gap()
                if gap is None:
                    continue
                if link.stored != link.resend_stored:  # the gap is filling: give it time
                    link.resend_at, link.resend_stored = now, link.stored
                elif now - link.resend_at >= RESEND_EVERY_S:
                    self._ask_resend(link, gap[0], now)
            for p in list(self.pending.values()):
                if p.seq is None and now - p.sent_at >= DECISION_RETRY_S:
                    self._send_decision(p)
        if self.on_change is not None:
            self.on_change("")

    # -- paho callbacks -----------------------------------------------------------------------

    def _on_connect(self, client: mqtt.Client, _u: Any, flags: Any, rc: Any, _p: Any) -> None:
        if rc.is_failure:
            log.warning("desk: broker refused the connection: %s", rc)
            return
        hall = self.cfg.hall
        client.subscribe([(topic(hall, "+", w), 1) for w in NODE_TOPICS])
        self.connected.set()
        if not flags.session_present:  # the broker lost what it queued for us: ask every table
            with self._lock:
                for link in self.tables.values():
                    self._ask_resend(link, link.stored + 1, time.time())

    def _on_message(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        """Never raises: paho acknowledges the message when this returns, and an exception
        out of here would end paho's network thread (and the desk's hearing) for good."""
        try:
            self._take(msg)
        except Exception as e:  # a bug met by a message: keep it aside, keep listening
            log.exception("desk: %s: message not handled", msg.topic)
            self._keep_poison(msg, f"not handled: {type(e).__name__}")

    def _take(self, msg: mqtt.MQTTMessage) -> None:
        where = split(msg.topic)
        if where is None or where[0] != self.cfg.hall:
            return
        _hall, tid, what = where
        try:
            with self._lock:
                link = self.tables.setdefault(tid, TableLink(tid))
                link.heard = time.time()
                if what == "events":
                    self._on_item(link, parse_item(tid, msg.payload), len(msg.payload))
                elif what == "state":
                    self._on_state(link, parse_state(msg.payload))
                    store_health(self.live, tid, link.state)  # hall.live: for the hall page
                elif what == "status":
                    link.status = msg.payload.decode("utf-8", "replace")[:16]
                elif what == "clip":  # hall.clips: checked against the sha256 it carries
                    store_clip(self.store, tid, bytes(msg.payload))
                    self.stats["clips"] += 1
                elif what == "frame":  # hall.live: the camera, not evidence
                    store_frame(self.live, tid, bytes(msg.payload))
        except (Poisoned, ClipRefused, FrameRefused) as e:
            self._keep_poison(msg, str(e))
            return
        if self.on_change is not None:
            self.on_change(tid)

    def _keep_poison(self, msg: mqtt.MQTTMessage, problem: str) -> None:
        """One line naming table, topic and problem; the message kept for a referee."""
        where = split(msg.topic)
        tid = where[1] if where is not None else "?"
        self.stats["refused"] += 1
        self.stats["poison"] += 1
        log.warning("desk: table %s, %s: message set aside: %s", tid, msg.topic, problem)
        try:
            self.poison.keep(tid, msg.topic, problem, bytes(msg.payload))
        except Exception:  # a full disk must not stop the hearing either
            log.exception("desk: could not keep the refused message of table %s", tid)

    # -- the stream ----------------------------------------------------------------------------

    def _on_item(self, link: TableLink, item: dict[str, Any], size: int) -> None:
        self.stats["received"] += 1
        pos = item["seq"]
        if not self_consistent(link.id, item):
            raise Poisoned(f"position {pos}: not what the node chained (hash differs)")
        if pos <= link.stored:
            link.duplicates += 1
            self.stats["duplicates"] += 1
            return
        if pos > link.stored + 1:
            why = link.buffer.add(link.stored, item, size)
            if why is not None:
                log.warning("desk: table %s: position %s not kept: %s", link.id, pos, why)
            if link.resend_from != link.stored + 1:
                self._ask_resend(link, link.stored + 1, time.time())
            return
        arrived: dict[str, Any] | None = item
        while True:
            waiting = link.buffer.take(link.stored + 1)
            best = choose(link.end, waiting, arrived)
            if best is None and arrived is None:  # nothing that links strictly waits here
                for other in waiting:  # back: they may come in order (a resend) or be refused
                    link.buffer.add(link.stored, other, len(json.dumps(other)))
                break
            for other in [*waiting, *([arrived] if arrived is not None else [])]:
                if best is None or other["node"]["hash"] != best["node"]["hash"]:
                    self._refuse_candidate(link, other, best is not None)
            if best is None:  # none links: wait for the genuine one (asked again)
                self._ask_resend(link, link.stored + 1, time.time())
                break
            self._store(link, best)
            arrived = None
            if link.stored + 1 not in link.buffer:
                break
        if not link.buffer and link.node_head <= link.stored:
            link.resend_from = None

    def _refuse_candidate(self, link: TableLink, item: dict[str, Any], lost: bool) -> None:
        why = "another message took its place" if lost else "does not link to the chain held"
        problem = f"position {item['seq']}: {why}"
        link.refused += 1
        self.stats["refused"] += 1
        self.stats["poison"] += 1
        log.warning("desk: table %s: message set aside: %s", link.id, problem)
        body = json.dumps(item, ensure_ascii=False).encode()
        self.poison.keep(link.id, topic(self.cfg.hall, link.id, "events"), problem, body)

    def _on_state(self, link: TableLink, state: dict[str, Any]) -> None:
        link.state = state
        self.witness.on_head(link.id, state.get("signed_head"))
        head = state.get("head")
        if isinstance(head, int):
            link.node_head = head
            if head > link.stored and not link.buffer and link.resend_from is None:
                self._ask_resend(link, link.stored + 1, time.time())

    def _ask_resend(self, link: TableLink, start: int, now: float) -> None:
        link.resend_from, link.resend_at, link.resend_stored = start, now, link.stored
        self.stats["resends"] += 1
        self.client.publish(
            topic(self.cfg.hall, link.id, "resend"), json.dumps({"from": start}), qos=1
        )

    def _store(self, link: TableLink, item: dict[str, Any]) -> None:
        """Store one in-order item (or refuse it and move on, counted and logged)."""
        pos, kind, data, node = item["seq"], item["kind"], item["data"], item["node"]
        seq = data.get("seq") if kind == "event" else None
        try:
            if kind == "event":
                self.store.append_event(link.id, data)
                ref = str(seq)
            else:
                self.store.append_ruling(link.id, data)
                ref = ruling_key(data)
        except StoreError as e:
            link.refused += 1
            self.stats["refused"] += 1
            log.error("desk: table %s pos %s refused by the store: %s", link.id, pos, e)
            link.stored = pos  # the node chained it: a resend brings the same; do not stall
            link.end = ChainEnd(int(node["row"]), node["hash"])
            return
        self.ledger.record(
            link.id, pos, kind, ref, int(node["row"]), float(node["at"]), node["prev"], node["hash"]
        )
        self.witness.on_row(link.id, int(node["row"]), node["hash"])
        link.stored = pos
        link.end = ChainEnd(int(node["row"]), node["hash"])
        self.stats["stored"] += 1
        at = float(node["at"])
        self.latencies.append((at, (time.time() - at) * 1000.0))
        meta = data.get("meta") if kind == "event" else None
        if isinstance(meta, dict) and meta.get("decision") in self.pending:
            done = self.pending[meta["decision"]]
            done.seq = seq
            done.done.set()

    # -- decisions --------------------------------------------------------------------------

    def _load_pending(self) -> None:
        """Decisions chained here earlier that no table's record shows yet (a desk restart)."""
        applied = set()
        for row in self.store.rows(kind="event"):
            meta = row.data.get("meta")
            if isinstance(meta, dict) and "decision" in meta:
                applied.add(meta["decision"])
        for row in self.store.rows(kind="action"):
            if row.data.get("action") == "hall_decision" and row.data["id"] not in applied:
                self.pending[row.data["id"]] = Pending(row.data["id"], row.table, row.data["event"])

    def decide(self, table: str, event: dict[str, Any]) -> Pending:
        """Chain a referee decision here and send it to the table; ``.done`` is set (and
        ``.seq`` known) once the table's record shows it."""
        ident = uuid.uuid4().hex
        ev = {k: v for k, v in event.items() if k != "seq"}
        meta: dict[str, Any] = ev["meta"] if isinstance(ev.get("meta"), dict) else {}
        ev["meta"] = {**meta, "decision": ident}
        self.store.append_action(
            table,
            {"action": "hall_decision", "by": str(ev.get("by", "")), "id": ident, "event": ev},
        )
        pending = Pending(ident, table, ev)
        with self._lock:
            self.pending[ident] = pending
            self._send_decision(pending)
        return pending

    def waiting(self, table: str) -> dict[str, Pending]:
        """The rulings sent to ``table`` that its record does not show yet, by what they rule
        (a violation id or ``seq:<n>``): "sent, waiting for the table"."""
        with self._lock:
            return {
                str(p.event.get("ref")): p
                for p in self.pending.values()
                if p.table == table and p.seq is None and p.event.get("type") == "ruling"
            }

    def _send_decision(self, p: Pending) -> None:
        p.sent_at = time.time()
        payload = json.dumps({"id": p.id, "event": p.event})
        self.client.publish(topic(self.cfg.hall, p.table, "decisions"), payload, qos=1)

    # -- views ------------------------------------------------------------------------------

    def links(self) -> dict[str, dict[str, Any]]:
        """Per table: link (online/offline/late), stored position, gap, duplicates dropped."""
        now = time.time()
        poison = self.poison.counts()
        with self._lock:
            return {
                tid: {
                    "link": t.link(now, self.late_s),
                    "stored": t.stored,
                    "node_head": t.node_head,
                    "gap": t.gap(),
                    "duplicates": t.duplicates,
                    "refused": t.refused,
                    "heard_s_ago": round(now - t.heard, 1) if t.heard else None,
                    "poison": poison.get(tid, 0),
                    "pending_decisions": sum(
                        1 for p in self.pending.values() if p.table == tid and p.seq is None
                    ),
                    "witness": self.witness.view(tid),
                }
                for tid, t in sorted(self.tables.items())
            }

    def verify(self, table: str | None = None) -> VerifyReport:
        """The desk's store chain, then (each) table's chain as its node wrote it."""
        report = verify_store(self.store.data_dir)
        for tid in [table] if table else sorted(self.ledger.heads()):
            sub = self.ledger.check_table(tid)
            report.problems += sub.problems
        if table is not None and table not in self.ledger.heads():
            report.problems.append(Problem(f"table {table}", "nothing received from it"))
        return report
