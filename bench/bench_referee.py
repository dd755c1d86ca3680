"""Referee accuracy and speed on simulated 80-points matches, per profile.

Every profile gets its share of ``--hands`` (default 10,000) simulated deals, in matches of
``--per-match`` deals with about ``--rate`` injected violations per deal (all kinds in turn).
The simulator knows the hands, so for each injected violation we know where it happened and
the first play that proves it; the figures are:

  hands     deals judged
  injected  violations put into the records
  flagged   injected violations the referee flagged, at the right seat and play
  on_time   of those, flagged exactly at the first proving play (never before, never later)
  missed    injected and provable, but not flagged
  unprov    injected but never provable from the cards (e.g. the proving card stayed in a hand
            after a short follow): correctly not flagged
  false     violations flagged that were never injected (false accusations)
  rule≠     flagged under another rule than injected (a missed tractor first proven as a
            missed pair is still a true violation)

and the judging speed (the simulator's time is not counted): hands/s and µs per play. The
deals that got no injection at all are counted apart: legal play, where nothing may be flagged.
Run: ``.venv/bin/python bench/bench_referee.py [--hands N] [--profiles a,b]``.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from engine.tractor.record_sim import simulate
from engine.tractor.referee import Referee
from engine.tractor.rules import Rules, profile_ids

COLUMNS = ("hands", "injected", "flagged", "on_time", "missed", "unprov", "false", "rule≠")


def bench_profile(pid: str, hands: int, per_match: int, rate: float) -> tuple[Counter[str], float]:
    rules = Rules.load(pid)
    stats: Counter[str] = Counter()
    judge_s = 0.0
    seed = 0
    while stats["hands"] < hands:
        n = min(per_match, hands - stats["hands"])
        events, truth = simulate(rules, seed, hands=n, inject=round(rate * n))
        seed += 1
        t0 = time.perf_counter()
        ref = Referee(rules)
        first: dict[str, int] = {}
        for ev in events:
            for r in ref.feed(ev):
                if r["kind"] == "violation":
                    first.setdefault(r["id"], ev["seq"])
        judge_s += time.perf_counter() - t0
        stats["hands"] += len(ref.hands)
        stats["plays"] += sum(1 for e in events if e["type"] == "play")
        flagged = {(v.seat, v.at_seq): v for v in ref.violations()}
        for inj in truth["injected"]:
            stats["injected"] += 1
            v = flagged.pop((inj["seat"], inj["at_seq"]), None)
            if v is None:
                stats["missed" if inj["provable"] else "unprov"] += 1
                continue
            stats["flagged"] += 1
            if first[v.id] == inj["proven_by_seq"] == v.proven_by_seq:
                stats["on_time"] += 1
            if v.rule != inj["rule"]:
                stats["rule≠"] += 1
        stats["false"] += len(flagged)
        dirty = {inj["hand"] for inj in truth["injected"]}
        for h in ref.hands:
            if h.hand not in dirty:
                stats["clean"] += 1
                stats["clean_flagged"] += len(h.violations)
    return stats, judge_s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=10_000, help="deals in all, split by profile")
    ap.add_argument("--profiles", help="comma-separated profile ids (default: all)")
    ap.add_argument("--per-match", type=int, default=5)
    ap.add_argument("--rate", type=float, default=0.8, help="injected violations per deal")
    args = ap.parse_args()
    ids = args.profiles.split(",") if args.profiles else profile_ids()
    base, extra = divmod(args.hands, len(ids))
    total: Counter[str] = Counter()
    total_s = 0.0
    wall = time.perf_counter()
    print(f"{'profile':22s}" + "".join(f"{c:>9s}" for c in COLUMNS) + f"{'µs/play':>9s}")
    for i, pid in enumerate(ids):
        share = max(1, base + (1 if i < extra else 0))
        stats, secs = bench_profile(pid, share, args.per_match, args.rate)
        total += stats
        total_s += secs
        us = 1e6 * secs / max(stats["plays"], 1)
        print(f"{pid:22s}" + "".join(f"{stats[c]:9d}" for c in COLUMNS) + f"{us:9.0f}")
    us = 1e6 * total_s / max(total["plays"], 1)
    print(f"{'all':22s}" + "".join(f"{total[c]:9d}" for c in COLUMNS) + f"{us:9.0f}")
    print(
        f"judging: {total['hands'] / max(total_s, 1e-9):.0f} hands/s, {us:.0f} µs per play; "
        f"detection {total['flagged'] / max(total['injected'], 1):.2%}, "
        f"on time {total['on_time'] / max(total['flagged'], 1):.2%}, "
        f"false accusations {total['false']}; wall {time.perf_counter() - wall:.0f} s"
    )
    print(
        f"legal deals (nothing injected): {total['clean']}, "
        f"violations flagged in them: {total['clean_flagged']}"
    )


if __name__ == "__main__":
    main()
