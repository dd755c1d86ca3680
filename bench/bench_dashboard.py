"""What the referee dashboard costs per event and per client, and its event → screen latency.

1. Hub cost per event at 100 and 4,000 events into a match: one store row appended, then the
   time ``Hub.poll()`` takes to take it in (fold the view, build the SSE bytes). Measured for
   a node-judged table (the rulings are already in the store, written by the "node") and a
   desk-judged one (the dashboard's one referee judges and stores the rulings itself).
2. SSE cost per client per event with 1, 10 and 50 open streams on a table 4,000 events in:
   the time every stream takes to produce its next message, divided by the clients.
3. (unless ``--no-browser``) event → screen latency in real Chromium (Debian's, via
   Playwright): plays appended one by one, the page marks when each play's cards are drawn.

    .venv/bin/python bench/bench_dashboard.py [--no-browser] [--events 40] [--gap 0.25]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.browser import CHROMIUM, CHROMIUM_ARGS, LiveServer  # noqa: E402
from dashboard import sse  # noqa: E402
from dashboard.app import create_app  # noqa: E402
from dashboard.hub import Hub  # noqa: E402
from dashboard.users import UserStore  # noqa: E402
from engine.games import referee_for  # noqa: E402
from engine.tractor.record_sim import simulate  # noqa: E402
from engine.tractor.rules import Rules  # noqa: E402
from evidence import EvidenceStore  # noqa: E402

WATCH = """() => {
  window.__seen = {};
  new MutationObserver(() => {
    for (const el of document.querySelectorAll('.played[data-seq]')) {
      const s = el.dataset.seq;
      if (s && !(s in window.__seen) && el.querySelector('.card')) window.__seen[s] = Date.now();
    }
  }).observe(document.body, {subtree: true, childList: true, attributes: true});
}"""
TIMED = 30  # events timed at each point


def long_match() -> list[dict[str, Any]]:
    """A 42-deal simulated match (4,014 events): long enough for the 4,000-event point."""
    events, _ = simulate(Rules.load("standard"), seed=5, hands=42, inject=20)
    return events


class NodeLike:
    """What a table node does for the store: each event, then its referee's rulings."""

    def __init__(self, store: EvidenceStore, table: str) -> None:
        self.store, self.table, self.referee = store, table, None

    def write(self, event: dict[str, Any]) -> None:
        self.store.append_event(self.table, event)
        if event["type"] == "match_start":
            self.referee = referee_for(event)  # type: ignore[assignment]
        for ruling in self.referee.feed(event) if self.referee is not None else []:
            self.store.append_ruling(self.table, ruling)


def _desk_supported(hub: Hub) -> bool:
    return hasattr(hub, "judge_table")


def _table(tmp: str, mode: str) -> tuple[EvidenceStore, Hub, NodeLike | None]:
    """A store and hub for table t1, judged by a node (``mode`` node) or the desk."""
    store = EvidenceStore(tmp, durable=False)
    hub = Hub(store)
    node = NodeLike(store, "t1") if mode == "node" else None
    if mode == "desk" and _desk_supported(hub):
        hub.judge_table("t1")
    return store, hub, node


def per_event(events: list[dict[str, Any]], at: int, mode: str) -> tuple[float, float, int]:
    """(median ms, max ms, view bytes) of ``Hub.poll`` per event around event ``at``."""
    with tempfile.TemporaryDirectory() as tmp:
        store, hub, node = _table(tmp, mode)
        for e in events[: at - TIMED]:
            node.write(e) if node else store.append_event("t1", e)
        hub.poll()
        costs = []
        for e in events[at - TIMED : at]:
            node.write(e) if node else store.append_event("t1", e)
            t0 = time.perf_counter()
            hub.poll()
            costs.append((time.perf_counter() - t0) * 1000)
        size = _view_size(hub)
        store.close()
    return statistics.median(costs), max(costs), size


def _view_size(hub: Hub) -> int:
    table = hub.tables["t1"]
    if hasattr(table, "state_bytes"):
        return len(table.state_bytes)
    import json

    return len(json.dumps(table.view))


def _next_message(stream: Iterator[Any]) -> Any:
    """The stream's next view message (``state`` or ``delta``), past pings and records."""
    while True:
        msg = next(stream)
        text = msg.decode() if isinstance(msg, bytes) else msg
        if "event: state" in text or "event: delta" in text:
            return msg


def per_client(events: list[dict[str, Any]], clients: int, mode: str) -> float:
    """ms per client per event: every open stream produces its next message after an event."""
    with tempfile.TemporaryDirectory() as tmp:
        store, hub, node = _table(tmp, mode)
        for e in events[: -TIMED - 1]:
            node.write(e) if node else store.append_event("t1", e)
        hub.poll()
        streams = [sse.table_stream(hub, "t1", None, 60.0) for _ in range(clients)]
        for s in streams:
            _next_message(s)  # the first full state
        costs = []
        for e in events[-TIMED - 1 : -1]:
            node.write(e) if node else store.append_event("t1", e)
            hub.poll()
            t0 = time.perf_counter()
            for s in streams:
                _next_message(s)
            costs.append((time.perf_counter() - t0) * 1000 / clients)
        hub.stop()
        store.close()
    return statistics.median(costs)


def costs() -> None:
    events = long_match()
    print(f"hub cost per event (Hub.poll after one stored event; {len(events)}-event match):")
    for mode in ("node", "desk"):
        for at in (100, 4000):
            med, worst, size = per_event(events, at, mode)
            print(
                f"  {mode}-judged table, event {at:>4}: median {med:6.2f} ms, max {worst:6.2f} ms;"
                f" full state {size / 1024:5.1f} KiB"
            )
    print("SSE cost per client per event (table 4,000 events in):")
    for mode in ("node", "desk"):
        for n in (1, 10, 50):
            print(f"  {mode}-judged table, {n:>2} clients: {per_client(events, n, mode):.3f} ms")


def latency(n_events: int, gap: float) -> bool:
    from playwright.sync_api import sync_playwright

    events, _ = simulate(Rules.load("standard"), seed=11, hands=1, inject=2)
    first_play = next(i for i, e in enumerate(events) if e["type"] == "play")
    with tempfile.TemporaryDirectory() as tmp:
        users = UserStore(tmp)
        users.add("bench", "referee", "bench-password", n=2**10)
        store = EvidenceStore(tmp)  # durable: fsync per event, as on the node
        hub = Hub(store)
        if _desk_supported(hub):
            hub.judge_table("t1")
        for e in events[:first_play]:
            store.append_event("t1", e)
        app = create_app(tmp, hub=hub)
        server = LiveServer(app)
        sent: dict[int, float] = {}
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page()
            page.goto(server.url + "/login")
            page.fill("input[name=username]", "bench")
            page.fill("input[name=password]", "bench-password")
            page.click("button[type=submit]")
            page.goto(server.url + "/tables/t1")
            page.wait_for_selector(f'body[data-seq="{first_play - 1}"]')
            page.evaluate(WATCH)
            plays = [e for e in events[first_play:] if e["type"] == "play"][:n_events]
            for e in events[first_play:]:
                sent[e["seq"]] = time.time() * 1000
                store.append_event("t1", e)
                if e["type"] == "play" and e is plays[-1]:
                    break
                time.sleep(gap)
            page.wait_for_function(
                f"() => '{plays[-1]['seq']}' in (window.__seen || {{}})", timeout=5000
            )
            seen = page.evaluate("window.__seen")
            size = len(page.evaluate("() => document.body.innerHTML"))
            browser.close()
        hub.stop()
        server.close()
        store.close()
    lat = sorted(seen[str(p["seq"])] - sent[p["seq"]] for p in plays if str(p["seq"]) in seen)
    missed = len(plays) - len(lat)
    p95 = lat[max(0, round(0.95 * len(lat)) - 1)]
    print(f"dashboard event->screen latency over {len(lat)} plays (real Chromium, waitress, SSE):")
    print(
        f"  median {statistics.median(lat):.0f} ms   p95 {p95:.0f} ms   max {lat[-1]:.0f} ms"
        f"   min {lat[0]:.0f} ms   not drawn: {missed}"
    )
    print(f"  table page DOM size {size / 1024:.0f} KiB; goal: every play on screen within 1000 ms")
    return lat[-1] < 1000 and not missed


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=40, help="plays to time in Chromium")
    ap.add_argument("--gap", type=float, default=0.25, help="seconds between plays")
    ap.add_argument("--no-browser", action="store_true", help="skip the Chromium latency")
    args = ap.parse_args()
    costs()
    return 0 if args.no_browser or latency(args.events, args.gap) else 1


if __name__ == "__main__":
    sys.exit(main())
