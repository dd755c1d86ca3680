"""Gouji bench: simulate deals for every profile, then judge each record with a fresh referee.

Prints per profile: deals, events, violations injected / flagged / missed / false (matched on
rule, seat, the seq where it happened and the seq that proves it; a false one is any violation
the truth does not list, on legal and injected deals alike), burns, 憋3 blocks and 串三户
seen, and in total deals/s and events/s judged (simulating excluded).

    .venv/bin/python bench/bench_gouji.py [--deals 60] [--inject 4]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.gouji import Rules
from engine.gouji.referee import GoujiReferee
from engine.gouji.sim import simulate


def judge(pid: str, events: list[dict[str, Any]]) -> GoujiReferee:
    ref = GoujiReferee(Rules.load(pid))
    for e in events:
        ref.feed(e)
    return ref


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=60, help="deals per profile (half injected)")
    ap.add_argument("--inject", type=int, default=4, help="violations to inject per deal")
    args = ap.parse_args()
    print(
        f"{'profile':18} {'deals':>5} {'events':>7} {'inj':>5} {'flag':>5} {'miss':>5} "
        f"{'false':>5} {'burns':>5} {'blocks':>6} {'串三户':>4}"
    )
    total_deals = total_events = 0
    total_judge = 0.0
    bad = 0
    for pid in Rules.ids():
        row = dict(deals=0, events=0, inj=0, flag=0, miss=0, false=0, burns=0, blocks=0, sweep=0)
        for seed in range(args.deals):
            inject = args.inject if seed % 2 else 0
            events, truth = simulate(pid, seed, inject=inject)
            t0 = time.perf_counter()
            ref = judge(pid, events)
            total_judge += time.perf_counter() - t0
            key = ("rule", "seat", "at_seq", "proven_by_seq")
            want = {tuple(v[k] for k in key) for v in truth["violations"]}
            got = {tuple(v[k] for k in key) for v in ref.violations}
            hand = ref.report()["hands"][0]
            row["deals"] += 1
            row["events"] += len(events)
            row["inj"] += len(want)
            row["flag"] += len(want & got)
            row["miss"] += len(want - got)
            row["false"] += len(got - want)
            row["burns"] += len(hand["burns"])
            row["blocks"] += len(hand["blocks"])
            row["sweep"] += int(hand["scores"]["chuansanhu"])
        total_deals += row["deals"]
        total_events += row["events"]
        bad += row["miss"] + row["false"]
        print(
            f"{pid:18} {row['deals']:>5} {row['events']:>7} {row['inj']:>5} {row['flag']:>5} "
            f"{row['miss']:>5} {row['false']:>5} {row['burns']:>5} {row['blocks']:>6} "
            f"{row['sweep']:>6}"
        )
    print(
        f"judged {total_deals} deals, {total_events} events in {total_judge:.2f} s: "
        f"{total_deals / total_judge:.0f} deals/s, {total_events / total_judge:.0f} events/s; "
        f"missed + false = {bad}"
    )
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
