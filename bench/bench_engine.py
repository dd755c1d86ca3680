"""Engine speed: simulate and judge 10,000 80-points hands with the tractor engine.

Judging replays every hand through the public engine functions with the hands known:
classify each play, ``legal_follow`` for every follow, ``check_throw`` for every throw,
``trick_winner`` for every trick, then the bottom multiplier and the level outcome. Prints
hands/s and microseconds per play for simulating and for judging, then a short per-profile run.

    .venv/bin/python bench/bench_engine.py [--hands 10000] [--profile standard]
"""

from __future__ import annotations

import argparse
import time
from random import Random

from engine.tractor import (
    Rules,
    check_throw,
    classify,
    judge_follow,
    level_outcome,
    profile_ids,
    winner_of,
)
from engine.tractor.scoring import bottom_multiplier
from engine.tractor.sim import SimHand, simulate_hand


def judge(h: SimHand, rules: Rules) -> tuple[int, int]:
    """Judge one simulated hand; returns (plays judged, violations found)."""
    hands = {s: list(cs) for s, cs in h.start_hands().items()}
    trump = h.trump
    plays = bad = 0
    last = None
    for t in h.tricks:
        combos = [classify(cs, trump, rules) for _, cs in t.plays]
        lead = combos[0]
        if lead.is_throw:
            others = [hands[s] for s, _ in t.plays[1:]]
            bad += not check_throw(lead, others, trump, rules).ok
        for (seat, cards), _ in zip(t.plays[1:], combos[1:], strict=True):
            bad += not judge_follow(lead, hands[seat], cards, trump, rules).ok
        w = winner_of(combos, trump, rules)
        bad += t.plays[w][0] != t.winner
        for seat, cards in t.plays:
            hand = hands[seat]
            for c in cards:
                hand.remove(c)
        plays += len(t.plays)
        last = combos[w]
    if last is not None:
        bottom_multiplier(last, trump, rules)
    level_outcome(h.attacker_points, rules, h.level, banker=h.banker)
    return plays, bad


def run(rules: Rules, n: int, seed: int) -> dict[str, float]:
    rng = Random(seed)
    t0 = time.perf_counter()
    sims = [simulate_hand(rules, rng, i + 1) for i in range(n)]
    t1 = time.perf_counter()
    plays = bad = 0
    for h in sims:
        p, b = judge(h, rules)
        plays += p
        bad += b
    t2 = time.perf_counter()
    return {
        "hands": n,
        "plays": plays,
        "violations": bad,
        "sim_s": t1 - t0,
        "judge_s": t2 - t1,
    }


def show(name: str, r: dict[str, float]) -> None:
    n, plays = r["hands"], r["plays"]
    print(
        f"{name:22s} {int(n):6d} hands {int(plays):8d} plays | "
        f"simulate {n / r['sim_s']:8.0f} hands/s {1e6 * r['sim_s'] / plays:6.1f} us/play | "
        f"judge {n / r['judge_s']:8.0f} hands/s {1e6 * r['judge_s'] / plays:6.1f} us/play | "
        f"violations {int(r['violations'])}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=10_000)
    ap.add_argument("--profile", default="standard")
    ap.add_argument("--per-profile", type=int, default=100, help="hands for each other profile")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    main_rules = Rules.load(args.profile)
    show(args.profile, run(main_rules, args.hands, args.seed))
    if args.per_profile:
        for pid in profile_ids():
            if pid != args.profile:
                show(pid, run(Rules.load(pid), args.per_profile, args.seed))


if __name__ == "__main__":
    main()
