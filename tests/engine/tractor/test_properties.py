"""Hypothesis properties over simulated hands of every profile, and a brute-force oracle for
the following rule: the engine's obligation must equal the best any subset of the hand reaches."""

from __future__ import annotations

import itertools
from collections import Counter
from random import Random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import Card, deck
from engine.tractor import Rules, Trump, card_points, classify, judge_follow, profile_ids, winner_of
from engine.tractor.follow import follow_score
from engine.tractor.order import context
from engine.tractor.sim import simulate_hand

PROFILES = {pid: Rules.load(pid) for pid in profile_ids()}


@settings(max_examples=40, deadline=None)
@given(pid=st.sampled_from(sorted(PROFILES)), seed=st.integers(0, 2**32 - 1))
def test_simulated_hand_conserves_cards_and_points(pid: str, seed: int) -> None:
    rules = PROFILES[pid]
    h = simulate_hand(rules, Random(seed))
    start = h.start_hands()
    assert all(len(cs) == rules.hand for cs in start.values())
    seen = Counter(c for cs in start.values() for c in cs) + Counter(h.buried)
    assert seen == Counter(deck(rules.decks))  # 108 cards (216 with four decks), each once
    table = sum(t.points for t in h.tricks)
    assert table + sum(card_points(c) for c in h.buried) == 100 * rules.decks  # 200 points
    assert len(h.tricks) >= rules.hand // 4 and h.outcome is not None


@settings(max_examples=40, deadline=None)
@given(pid=st.sampled_from(sorted(PROFILES)), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_every_follow_legal_and_winner_order_invariant(
    pid: str, seed: int, data: st.DataObject
) -> None:
    rules = PROFILES[pid]
    h = simulate_hand(rules, Random(seed))
    hands = {s: list(cs) for s, cs in h.start_hands().items()}
    for t in h.tricks:
        lead = classify(t.plays[0][1], h.trump, rules)
        assert lead.suit is not None, "a lead is one suit"
        for seat, cards in t.plays[1:]:
            verdict = judge_follow(lead, hands[seat], cards, h.trump, rules)
            assert verdict.ok, (verdict.reason, [str(c) for c in cards])
        shuffled = [data.draw(st.permutations(cs)) for _, cs in t.plays]
        combos = [classify(cs, h.trump, rules) for cs in shuffled]
        assert t.plays[winner_of(combos, h.trump, rules)][0] == t.winner
        for seat, cards in t.plays:
            for c in cards:
                hands[seat].remove(c)


SPADES = [Card(r, "S") for r in ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")]
LEADS = ["3S 3S", "3S 3S 4S 4S", "3S 3S 4S 4S 5S 5S", "AS AS KS", "AS AS KS KS QS", "AS KS"]


@settings(max_examples=150, deadline=None)
@given(
    lead=st.sampled_from(LEADS),
    spades=st.lists(st.sampled_from(SPADES[1:11]), min_size=2, max_size=9),
    others=st.integers(0, 3),
    pid=st.sampled_from(["standard", "community-10ka", "shanghai-2000"]),
)
def test_follow_matches_brute_force(lead: str, spades: list[Card], others: int, pid: str) -> None:
    """A follow is legal exactly when no other choice of cards from the hand scores better
    (the engine computes the best greedily; this enumerates every choice)."""
    rules = PROFILES[pid]
    trump = Trump("2", "H")
    ctx = context(trump, rules)
    counts = Counter(spades)
    hand = [c for c, k in counts.items() for _ in range(min(k, 2))] + [Card("7", "D")] * others
    lead_c = classify(lead, trump, rules)
    n = len(lead_c.cards)
    if len(hand) < n:
        return
    choices = {tuple(sorted(map(str, p))): list(p) for p in itertools.combinations(hand, n)}
    in_suit = [c for c in hand if c.suit == "S"]
    scores: dict[tuple[str, ...], tuple[int, ...] | None] = {}
    for key, play in choices.items():
        p_s = [c for c in play if c.suit == "S"]
        if len(p_s) < min(n, len(in_suit)):
            scores[key] = None  # revoke
        else:
            scores[key] = follow_score(p_s, lead_c, ctx, rules)[0] if len(in_suit) > n else ()
    best = max((s for s in scores.values() if s is not None), default=())
    for key, play in choices.items():
        ok = judge_follow(lead_c, hand, play, trump, rules).ok
        assert ok == (scores[key] is not None and scores[key] == best), (lead, key, hand)


@settings(max_examples=30, deadline=None)
@given(pid=st.sampled_from(sorted(PROFILES)), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_swapping_in_a_discard_while_holding_the_suit_is_a_revoke(
    pid: str, seed: int, data: st.DataObject
) -> None:
    """Mutate legal follows: one led-suit card swapped for an off-suit card the seat holds,
    while the seat still held more of the led suit than it played, is always a revoke."""
    rules = PROFILES[pid]
    h = simulate_hand(rules, Random(seed))
    ctx = context(h.trump, rules)
    hands = {s: list(cs) for s, cs in h.start_hands().items()}
    checked = 0
    for t in h.tricks:
        lead = classify(t.plays[0][1], h.trump, rules)
        assert lead.suit is not None
        for seat, cards in t.plays[1:]:
            held = hands[seat]
            in_suit = [c for c in cards if ctx.info[c].suit == lead.suit]
            off_hand = [c for c in held if ctx.info[c].suit != lead.suit]
            if in_suit and off_hand and len(in_suit) == len(cards):
                play = list(cards)
                play.remove(data.draw(st.sampled_from(in_suit)))
                play.append(data.draw(st.sampled_from(off_hand)))
                v = judge_follow(lead, held, play, h.trump, rules)
                assert v.rule == "revoke", (v, [str(c) for c in play])
                checked += 1
        for seat, cards in t.plays:
            for c in cards:
                hands[seat].remove(c)
    assert checked > 0, "every hand has follows to mutate"
