"""Following with the hand known: suit first, then shape, as far as held.

The obligation is measured, not enumerated: ``follow_score`` walks the lead's components
(tractors longest first, then four-deck groups) and records how well a set of cards can match
each, in the profile's fallback order (tractor, then the four-deck ladder, then pairs), within
the lead's card budget, and finally how many of the lead's pairs it supplies. A follow is legal
when its own score equals what the follower's whole holding in that suit could reach: whatever
the hand could have matched, the play must match too (A6, "as far as held").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from random import Random

from engine.cards import Card, parse_cards
from engine.tractor.combos import Combo, Unit, classify, fiveten_in, runs, slot_cards
from engine.tractor.order import Context, Trump, context
from engine.tractor.rules import Rules


@dataclass(frozen=True, slots=True)
class Verdict:
    """``ok`` with a reason a referee can read; ``rule`` is the violation id when not ok."""

    ok: bool
    reason: str
    rule: str = ""

    def __bool__(self) -> bool:
        return self.ok


OK = Verdict(True, "legal")


def _ladder(w: int, length: int, rules: Rules) -> list[list[tuple[int, int]]]:
    """Ordered alternatives for following a tractor of ``length`` groups of width ``w``."""
    opts: list[list[tuple[int, int]]] = [[(w, length)]]
    if w == 2 and length == 5 and len(rules.follow.ladder5) > 1:
        for step in rules.follow.ladder5[1:]:
            parts = sorted((int(p) for p in step.split("+")), reverse=True)
            if parts != [1] * 5:
                opts.append([(2, p) for p in parts])
    elif w > 2:
        opts.append([(w, 1)] * length)
    return opts


def _take(
    counts: Counter[Card], pieces: list[tuple[int, int]], budget: int, ctx: Context, suit: str
) -> list[Card] | None:
    """Remove disjoint units of these shapes from ``counts``; None (untouched) if any misses."""
    need = sum(w * n for w, n in pieces)
    if need > budget:
        return None
    trial = counts.copy()
    taken: list[Card] = []
    for w, length in pieces:
        if (w, length) == (1, 3):  # a 5-10-K
            ft = fiveten_in(trial, suit, ctx)
            if ft is None:
                return None
            trial.subtract(ft)
            taken += ft
            continue
        sc = slot_cards(trial, ctx, w)
        if length == 1:
            if not sc:
                return None
            c = min(sc.values(), key=lambda c: ctx.info[c].strength)
            trial[c] -= w
            taken += [c] * w
            continue
        fits = [r for r in runs(sc, ctx, suit) if len(r) >= length]
        if not fits:
            return None
        run = min(fits, key=len)  # best fit keeps long runs for later components
        for s in run[:length]:
            got = ctx.low_a[suit] if s == -1 else sc[s]
            assert got is not None
            trial[got] -= w
            taken += [got] * w
    counts.clear()
    counts.update({c: n for c, n in trial.items() if n > 0})
    return taken


def _plan(lead: Combo) -> tuple[list[Unit], int]:
    structured = [u for u in lead.units if u.length > 1 or u.width > 2]  # 5-10-K: (1, 3)
    return structured, lead.pairs


def follow_score(
    cards: Iterable[Card], lead: Combo, ctx: Context, rules: Rules, structure: bool = False
) -> tuple[tuple[int, ...], list[Card]]:
    """How well ``cards`` (all of the lead's suit) can match the lead, and the cards that do.

    ``structure``: measure the shape match whatever the profile's follow obligations (a ruff
    must copy the lead's structure even where pairs need not be followed)."""
    n = len(lead.cards)
    assert lead.suit is not None
    counts: Counter[Card] = Counter(cards)
    budget = n
    vec: list[int] = []
    chosen: list[Card] = []
    if not (rules.follow.pairs or structure):
        return (), chosen
    structured, want_pairs = _plan(lead)
    got_pairs = 0
    if rules.follow.tractors or structure:
        for u in structured:
            ladder = _ladder(u.width, u.length, rules)
            for i, pieces in enumerate(ladder):
                taken = _take(counts, pieces, budget, ctx, lead.suit)
                if taken is not None:
                    budget -= len(taken)
                    chosen += taken
                    got_pairs += sum((w // 2) * k for w, k in pieces)
                    vec.append(len(ladder) - i)
                    break
            else:
                vec.append(0)
    # Pairs as far as held: any identity with two copies left, within the budget.
    extra = sorted(
        (c for c, k in counts.items() for _ in range(k // 2)),
        key=lambda c: ctx.info[c].strength,
    )
    room = min(want_pairs - got_pairs, budget // 2, len(extra))
    chosen += [c for c in extra[: max(room, 0)] for _ in range(2)]
    vec.append(min(want_pairs, got_pairs + max(room, 0)))
    return tuple(vec), chosen


def legal_follow(
    lead: str | Iterable[str | Card],
    hand: str | Iterable[str | Card],
    play: str | Iterable[str | Card],
    trump: Trump,
    rules: Rules,
) -> Verdict:
    """Is ``play`` a legal follow to ``lead`` from ``hand`` (the follower's cards before it)?"""
    lead_c = classify(lead, trump, rules)
    hand_l = parse_cards(hand)
    play_l = parse_cards(play)
    return judge_follow(lead_c, hand_l, play_l, trump, rules)


def judge_follow(
    lead: Combo, hand: Sequence[Card], play: Sequence[Card], trump: Trump, rules: Rules
) -> Verdict:
    """``legal_follow`` on already-parsed cards (the hot path of the simulator and bench)."""
    n = len(lead.cards)
    if len(play) != n:
        return Verdict(
            False, f"wrong count: {len(play)} card(s) for a {n}-card lead", "wrong_count"
        )
    hc = Counter(hand)
    pc = Counter(play)
    for c, k in pc.items():
        if hc[c] < k:
            return Verdict(False, f"{c} played but not in hand", "not_in_hand")
    if lead.suit is None:
        return OK
    ctx = context(trump, rules)
    info = ctx.info
    suit = lead.suit
    h_s = [c for c in hand if info[c].suit == suit]
    p_s = [c for c in play if info[c].suit == suit]
    name = "trumps" if suit == "T" else f"suit {suit}"
    if len(p_s) < min(n, len(h_s)):
        return Verdict(
            False,
            f"revoke: {n - len(p_s)} card(s) off {name} while holding {len(h_s)} of it",
            "revoke",
        )
    if len(h_s) <= n:
        return OK
    want, _ = follow_score(h_s, lead, ctx, rules)
    got, _ = follow_score(p_s, lead, ctx, rules)
    if got >= want:
        return OK
    structured, _ = _plan(lead)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        if g < w:
            if i == len(want) - 1:
                return Verdict(
                    False,
                    f"missed pair: {g} pair(s) of {name} played, {w} held and required",
                    "missed_pair",
                )
            # One rule id for every structured unit (four-deck triples and quads included),
            # so the referee's rule list stays the issue's; the reason names the shape.
            unit = structured[i]
            return Verdict(
                False,
                f"missed {unit.kind}: a {unit.kind} of {name} was held and required",
                "missed_tractor",
            )
    return OK  # pragma: no cover - got < want implies a differing position


def build_follow(
    lead: Combo, hand: Sequence[Card], trump: Trump, rules: Rules, rng: Random
) -> list[Card]:
    """A random legal follow (the simulator's player): obligations first, the rest at random."""
    n = len(lead.cards)
    ctx = context(trump, rules)
    info = ctx.info
    assert lead.suit is not None
    h_s = [c for c in hand if info[c].suit == lead.suit]
    if len(h_s) <= n:
        rest = [c for c in hand if info[c].suit != lead.suit]
        return h_s + rng.sample(rest, n - len(h_s))
    _, chosen = follow_score(h_s, lead, ctx, rules)
    left = Counter(h_s)
    left.subtract(chosen)
    pool = [c for c, k in left.items() for _ in range(k)]
    return chosen + rng.sample(pool, n - len(chosen))
