"""Server-Sent Events: one stream per page, ``id:`` = the table's record seq, so a browser that
reconnects sends ``Last-Event-ID`` and gets exactly the events it missed; a comment line every
``ping_s`` keeps proxies and the browser from timing the stream out."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

from dashboard.hub import Hub


def message(data: Any, *, event: str | None = None, id: int | None = None) -> str:
    lines = []
    if id is not None:
        lines.append(f"id: {id}")
    if event:
        lines.append(f"event: {event}")
    lines.append("data: " + json.dumps(data, separators=(",", ":")))
    return "\n".join(lines) + "\n\n"


def table_stream(hub: Hub, tid: str, last_id: int | None, ping_s: float) -> Iterator[str]:
    """``record`` messages for missed events (on resume), then a ``state`` after each change."""
    yield "retry: 1000\n\n"
    gen = hub.generation
    sent = last_id if last_id is not None else None
    while True:
        table = hub.tables.get(tid)
        if table is not None and (sent is None or table.seq > sent):
            if sent is not None:
                for ev in [e for e in table.events if e["seq"] > sent]:
                    yield message(ev, event="record", id=ev["seq"])
            yield message(table.view, event="state", id=table.seq)
            sent = table.seq
        if hub.stopped:
            return
        new_gen = hub.wait(gen, ping_s)
        if new_gen == gen:
            yield ": ping\n\n"
        gen = new_gen


def hall_stream(hub: Hub, ping_s: float) -> Iterator[str]:
    """The hall page's stream: every table's summary after any change (id = hub generation)."""
    yield "retry: 1000\n\n"
    gen = -1
    while True:
        if gen != hub.generation:
            gen = hub.generation
            yield message(hub.summary(), event="hall", id=gen)
        if hub.stopped:
            return
        if hub.wait(gen, ping_s) == gen:
            yield ": ping\n\n"


def delayed_stream(
    hub: Hub,
    tid: str,
    delay_s: float,
    ping_s: float,
    clock: Callable[[], float],
    allowed: Callable[[], bool] = lambda: True,
) -> Iterator[str]:
    """The overlay's stream: the public view as it was ``delay_s`` ago, sent when it is due.
    It ends, with a ``revoked`` event, once ``allowed()`` says the link was revoked (asked
    about once a second)."""
    yield "retry: 1000\n\n"
    sent: int | None = None
    last_ping = last_check = time.monotonic()
    gen = hub.generation
    while True:
        if time.monotonic() - last_check >= 1.0:
            last_check = time.monotonic()
            if not allowed():
                yield message({"table": tid}, event="revoked")
                return
        table = hub.tables.get(tid)
        view = table.public_at(clock() - delay_s) if table else None
        if view is not None and view["seq"] != sent:
            yield message(view, event="state", id=view["seq"])
            sent = view["seq"]
            last_ping = time.monotonic()
        if hub.stopped:
            return
        if time.monotonic() - last_ping >= ping_s:
            yield ": ping\n\n"
            last_ping = time.monotonic()
        # a delayed view comes due with time, not with a change: look again every 100 ms
        gen = hub.wait(gen, 0.1 if delay_s > 0 else ping_s)
