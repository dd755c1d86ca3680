"""Event → screen latency of the referee dashboard, measured in real Chromium.

A waitress server runs the dashboard on a fresh store; Chromium (Debian's, via Playwright)
shows the table page; plays from the tractor simulator are appended to the store one by one.
The page records (MutationObserver, Date.now()) when each play's cards are drawn; the latency
is that moment minus the moment ``append_event`` was called. Also prints the SSE state size.

    .venv/bin/python bench/bench_dashboard.py [--events 40] [--gap 0.25]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dashboard.app import create_app  # noqa: E402
from dashboard.hub import Hub  # noqa: E402
from dashboard.users import UserStore  # noqa: E402
from engine.tractor.record_sim import simulate  # noqa: E402
from engine.tractor.rules import Rules  # noqa: E402
from evidence import EvidenceStore  # noqa: E402
from tests.dashboard.browser import CHROMIUM, CHROMIUM_ARGS, LiveServer  # noqa: E402

WATCH = """() => {
  window.__seen = {};
  new MutationObserver(() => {
    for (const el of document.querySelectorAll('.played[data-seq]')) {
      const s = el.dataset.seq;
      if (s && !(s in window.__seen) && el.querySelector('.card')) window.__seen[s] = Date.now();
    }
  }).observe(document.body, {subtree: true, childList: true, attributes: true});
}"""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=40, help="plays to time")
    ap.add_argument("--gap", type=float, default=0.25, help="seconds between plays")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    events, _ = simulate(Rules.load("standard"), seed=11, hands=1, inject=2)
    first_play = next(i for i, e in enumerate(events) if e["type"] == "play")
    with tempfile.TemporaryDirectory() as tmp:
        users = UserStore(tmp)
        users.add("bench", "referee", "bench-password", n=2**10)
        store = EvidenceStore(tmp)  # durable: fsync per event, as on the node
        for e in events[:first_play]:
            store.append_event("t1", e)
        hub = Hub(store)
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
            plays = [e for e in events[first_play:] if e["type"] == "play"][: args.events]
            for e in events[first_play:]:
                sent[e["seq"]] = time.time() * 1000
                store.append_event("t1", e)
                if e["type"] == "play" and e is plays[-1]:
                    break
                time.sleep(args.gap)
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
    hub_cost()
    return 0 if lat[-1] < 1000 and not missed else 1


def hub_cost(hands: int = 10) -> None:
    """Server work per event late in a long match (the referee re-reports, the view rebuilds)."""
    import json

    events, _ = simulate(Rules.load("standard"), seed=5, hands=hands, inject=6)
    with tempfile.TemporaryDirectory() as tmp:
        store = EvidenceStore(tmp, durable=False)
        hub = Hub(store)
        for e in events[:-20]:
            store.append_event("t1", e)
        hub.poll()
        costs = []
        for e in events[-20:]:
            store.append_event("t1", e)
            t0 = time.perf_counter()
            hub.poll()
            costs.append((time.perf_counter() - t0) * 1000)
        view = hub.tables["t1"].view
        store.close()
    print(
        f"hub per event after {len(events)} events ({hands} hands): median"
        f" {statistics.median(costs):.1f} ms, max {max(costs):.1f} ms;"
        f" SSE state {len(json.dumps(view)) / 1024:.0f} KiB"
    )


if __name__ == "__main__":
    sys.exit(main())
