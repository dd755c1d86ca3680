"""Server-Sent Events: one stream per page. The hub serialises every message once; a stream
only picks the bytes its client still lacks and writes them (no JSON work per client).

``id:`` is the table's record seq, so a browser that reconnects sends ``Last-Event-ID`` and
gets a ``record`` message per event it missed, then a full ``state``; on a live connection each
change is a small ``delta`` (shapes in dashboard/README.md). A comment line every ``ping_s``
keeps proxies and the browser from timing the stream out."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

from dashboard.hub import Hub

RETRY = b"retry: 1000\n\n"
PING = b": ping\n\n"


def message(data: Any, *, event: str | None = None, id: int | None = None) -> str:
    """One SSE message (for the few messages the hub does not build: ``revoked``)."""
    lines = []
    if id is not None:
        lines.append(f"id: {id}")
    if event:
        lines.append(f"event: {event}")
    lines.append("data: " + json.dumps(data, separators=(",", ":")))
    return "\n".join(lines) + "\n\n"


def table_stream(hub: Hub, tid: str, last_id: int | None, ping_s: float) -> Iterator[bytes]:
    """On resume (``last_id``) a ``record`` per missed event; then a ``state``, then a
    ``delta`` per change (a ``state`` again if this client fell too far behind)."""
    yield RETRY
    gen = hub.generation
    version: int | None = None
    while True:
        table = hub.tables.get(tid)
        if table is not None:
            if version is None:
                if last_id is not None:
                    yield from table.records_after(last_id)
                version, msg = table.state_message()
                yield msg
            else:
                missed = table.deltas_after(version)
                if missed is None:  # behind by more than the hub keeps: start again
                    version, msg = table.state_message()
                    yield msg
                else:
                    version += len(missed)
                    yield from missed
        if hub.stopped:
            return
        new_gen = hub.wait(gen, ping_s)
        if new_gen == gen:
            yield PING
        gen = new_gen


def hall_stream(hub: Hub, ping_s: float) -> Iterator[bytes]:
    """The hall page's stream: every table's summary after any change (id = hub generation)."""
    yield RETRY
    gen = -1
    while True:
        if gen != hub.generation:
            gen, msg = hub.hall_message()
            yield msg
        if hub.stopped:
            return
        if hub.wait(gen, ping_s) == gen:
            yield PING


def delayed_stream(
    hub: Hub,
    tid: str,
    delay_s: float,
    ping_s: float,
    clock: Callable[[], float],
    allowed: Callable[[], bool] = lambda: True,
) -> Iterator[bytes]:
    """The overlay's stream: the public view as it was ``delay_s`` ago, sent when it is due.
    It ends, with a ``revoked`` event, once ``allowed()`` says the link was revoked (asked
    about once a second)."""
    yield RETRY
    sent: tuple[int, str, bytes] | None = None
    last_ping = last_check = time.monotonic()
    gen = hub.generation
    while True:
        if time.monotonic() - last_check >= 1.0:
            last_check = time.monotonic()
            if not allowed():
                yield message({"table": tid}, event="revoked").encode()
                return
        table = hub.tables.get(tid)
        due = table.public_at(clock() - delay_s) if table else None
        if due is not None and due is not sent:
            yield due[2]
            sent = due
            last_ping = time.monotonic()
        if hub.stopped:
            return
        if time.monotonic() - last_ping >= ping_s:
            yield PING
            last_ping = time.monotonic()
        # a delayed view comes due with time, not with a change: look again every 100 ms
        gen = hub.wait(gen, 0.1 if delay_s > 0 else ping_s)
