"""``tablescan demo``: until the camera pipeline lands, a simulated 80-points match judged by
the engine, printed as a referee's report (trump, tricks, bottom, level outcome)."""

from __future__ import annotations

import argparse

from engine.cards import format_cards
from engine.tractor import ProfileError, Rules
from engine.tractor.sim import SimHand, simulate_match

SEATS = ("North", "West", "South", "East")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("demo", help="simulate an 80-points match and print the referee's report")
    p.add_argument("--seed", type=int, default=1, help="dealer seed (same seed, same match)")
    p.add_argument("--profile", default="standard", help="rule profile id or TOML path")
    p.add_argument("--hands", type=int, default=4, help="at most this many hands")
    p.set_defaults(func=run)


def report_hand(h: SimHand) -> list[str]:
    """The referee's report of one simulated hand, one line per fact."""
    out = h.outcome
    assert out is not None
    team = "/".join(SEATS[s] for s in sorted(h.banker_team))
    shown = ", ".join(f"{SEATS[d.seat]} {format_cards(d.cards)}" for d in h.declarations)
    lines = [
        f"== hand {h.hand}: level {h.level}, banker {SEATS[h.banker]} ({team})",
        f"   trump: {h.trump}"
        + (f"; declared by {shown}" if shown else "; nobody declared, fixed from the bottom"),
    ]
    for i, t in enumerate(h.tricks, 1):
        plays = "  ".join(f"{SEATS[s][0]}:{format_cards(cs)}" for s, cs in t.plays)
        side = "banker" if t.winner in h.banker_team else "attackers"
        lines.append(f"   {i:2d}. {plays}  -> {SEATS[t.winner]} ({side}) {t.points} pts")
    lines.append(
        f"   bottom: {format_cards(h.buried)} = {h.bottom_points} pts, "
        + (
            f"captured x{h.multiplier} (+{h.bottom_added})"
            if h.multiplier
            else "kept by the banker side"
        )
    )
    verdict = (
        f"banker side +{out.levels} to {out.new_level}"
        if out.side == "banker"
        else f"attackers take the stage, +{out.levels} to {out.new_level}"
    )
    nb = SEATS[out.next_banker] if isinstance(out.next_banker, int) else out.next_banker
    lines.append(
        f"   attackers {h.attacker_points} pts: {verdict}; next banker {nb}"
        + (f"; knocked back to {out.knocked_back}" if out.knocked_back else "")
        + (" — game over" if out.game_over else "")
    )
    return lines


def run(args: argparse.Namespace) -> int:
    try:
        rules = Rules.load(args.profile)
    except ProfileError as e:
        print(f"error: {e}")
        return 2
    match = simulate_match(rules, args.seed, max_hands=args.hands)
    print(f"Simulated 80-points match, profile {rules.id} ({rules.name}), seed {args.seed}")
    for h in match.hands:
        print("\n".join(report_hand(h)))
    teams = f"North/South {match.levels[0]}, West/East {match.levels[1]}"
    print(f"levels after {len(match.hands)} hand(s): {teams}")
    return 0
