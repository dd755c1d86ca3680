"""A seeded dealer and random legal players: whole 80-points hands and matches as data.

It is the source of the property tests and of synthetic matches for the vision, referee and
dashboard work, so it only ever plays legal cards (each follow comes from ``build_follow``,
each throw passes ``check_throw`` against the real hands) and the same seed always gives the
same match. ``match_events`` writes a match as match-record v1 event dicts.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from random import Random
from typing import Any

from engine.cards import Card, deck
from engine.tractor.combos import Combo, Unit, classify, fiveten_in, split
from engine.tractor.declare import (
    Declaration,
    can_overcall,
    fallback_trump,
    read_declaration,
    trump_of,
)
from engine.tractor.follow import build_follow
from engine.tractor.order import Trump, context
from engine.tractor.rules import Rules
from engine.tractor.scoring import (
    Outcome,
    bottom_bonus,
    bottom_multiplier,
    card_points,
    level_outcome,
)
from engine.tractor.throws import beats, check_throw
from engine.tractor.trick import winner_of

SEATS = 4


@dataclass(slots=True)
class Trick:
    leader: int
    plays: list[tuple[int, list[Card]]]
    winner: int
    points: int


@dataclass(slots=True)
class SimHand:
    """One hand as data. Seats 0-3 in playing order; teams are (0, 2) and (1, 3)."""

    hand: int
    level: str
    banker: int
    trump: Trump
    dealt: dict[int, list[Card]]
    declarations: list[Declaration]
    bottom_dealt: list[Card]
    buried: list[Card]
    tricks: list[Trick] = field(default_factory=list)
    attacker_trick_points: int = 0
    bottom_points: int = 0
    multiplier: int = 0
    bottom_added: int = 0
    attacker_points: int = 0
    outcome: Outcome | None = None
    banker_given: bool = True

    @property
    def banker_team(self) -> tuple[int, int]:
        return (self.banker % 2, self.banker % 2 + 2)

    def start_hands(self) -> dict[int, list[Card]]:
        """Each seat's 25 cards at the first lead (after the banker's bury)."""
        out: dict[int, list[Card]] = {s: [] for s in range(SEATS)}
        for t in self.tricks:
            for seat, cards in t.plays:
                out[seat].extend(cards)
        return out


@dataclass(slots=True)
class SimMatch:
    rules: Rules
    seed: int
    hands: list[SimHand]
    levels: list[str]
    winner: int | None = None


def choose_lead(
    hand: list[Card], others: list[list[Card]], trump: Trump, rules: Rules, rng: Random
) -> list[Card]:
    """A random legal lead: usually one unit, sometimes a throw that no other hand beats."""
    ctx = context(trump, rules)
    by: dict[str, list[Card]] = {}
    for c in hand:
        by.setdefault(ctx.info[c].suit, []).append(c)
    suit = rng.choice(sorted(by))
    us = split(by[suit], suit, ctx, rules)
    if rules.throw.allowed and len(us) > 1 and rng.random() < 0.15:
        other_counts = [Counter(c for c in o if ctx.info[c].suit == suit) for o in others]
        good = [u for u in us if _unbeaten(u, other_counts, trump, rules)]
        if len(good) >= 2:
            pick = good[: rng.randint(2, len(good))]
            cards = [c for u in pick for c in u.cards]
            if check_throw(cards, others, trump, rules).ok:
                return cards
    if rules.tractor.fiveten and rng.random() < 0.3:
        ft = fiveten_in(Counter(c for c in hand if ctx.info[c].suit == suit), suit, ctx)
        if ft is not None:
            return ft
    u = rng.choice(us)
    return list(u.cards)


def _unbeaten(u: Unit, counts: list[Counter[Card]], trump: Trump, rules: Rules) -> bool:
    return not any(beats(u, c, trump, rules) for c in counts)


def _declare(
    order: list[tuple[int, Card]],
    level: str,
    rules: Rules,
    rng: Random,
) -> list[Declaration]:
    """Declarations during the draw: first level card shown, pairs overcalling per ladder."""
    held: dict[int, Counter[Card]] = {s: Counter() for s in range(SEATS)}
    decls: list[Declaration] = []
    for seat, card in order:
        held[seat][card] += 1
        if card.rank != level and not card.is_joker and str(card) not in rules.perm_trumps:
            continue
        copies = held[seat][card]
        if not decls:
            if card.rank == level and rng.random() < 0.6:
                try:
                    decls.append(read_declaration(seat, [card] * min(copies, 2), level, rules))
                except ValueError:
                    continue
            continue
        if copies >= 2 and rules.declare.overcall != "none" and rng.random() < 0.3:
            n = copies if rules.declare.overcall == "more_cards" else 2
            try:
                d = read_declaration(seat, [card] * n, level, rules)
            except ValueError:
                continue
            if d.what in ("5H", "BJ"):
                continue  # free-choice declarations need a spoken choice; keep sims card-only
            if can_overcall(decls[-1], d, rules).ok:
                decls.append(d)
    return decls


def simulate_hand(
    rules: Rules,
    rng: Random,
    hand_no: int = 1,
    level: str | None = None,
    banker: int | None = None,
    team_levels: list[str] | None = None,
) -> SimHand:
    """Deal, declare, bury and play one hand with random legal players. ``team_levels``
    (teams (0, 2) and (1, 3)) gives the attackers' own level for the outcome."""
    lvl = level or rules.start
    cards = deck(rules.decks)
    rng.shuffle(cards)
    n_hand = rules.hand
    dealt = {s: cards[s * n_hand : (s + 1) * n_hand] for s in range(SEATS)}
    bottom = cards[SEATS * n_hand :]
    first = banker if banker is not None else 0
    order = []
    for i in range(n_hand):
        for k in range(SEATS):
            s = (first + k) % SEATS
            order.append((s, dealt[s][i]))
    decls = _declare(order, lvl, rules, rng)
    if decls:
        trump = trump_of(decls[-1], lvl)
    else:
        trump, _ = fallback_trump(bottom, lvl, rules)
    given = banker is not None
    if banker is None:
        if decls:
            changes = rules.declare.overcall_changes_banker in ("first_deal", "always")
            banker = decls[-1].seat if changes else decls[0].seat
        else:
            banker = 0
    elif decls and rules.declare.overcall_changes_banker == "always":
        banker = decls[-1].seat
    ctx = context(trump, rules)
    full = dealt[banker] + bottom
    # The banker buries low side cards first, as players do, with some noise.
    full.sort(key=lambda c: (ctx.info[c].suit == "T", ctx.info[c].strength + rng.random() * 6))
    buried = full[: rules.bottom]
    hands = {s: list(dealt[s]) for s in range(SEATS)}
    hands[banker] = full[rules.bottom :]
    sim = SimHand(
        hand=hand_no,
        level=lvl,
        banker=banker,
        trump=trump,
        dealt={s: list(dealt[s]) for s in range(SEATS)},
        declarations=decls,
        bottom_dealt=list(bottom),
        buried=list(buried),
        banker_given=given,
    )
    banker_team = {banker, (banker + 2) % SEATS}
    leader = banker
    last_combo: Combo | None = None
    last_winner = banker
    while hands[leader]:
        others = [hands[(leader + k) % SEATS] for k in range(1, SEATS)]
        if rules.throw.against == "unplayed":
            others.append(buried)  # online-super: judged against every unplayed card
        lead = choose_lead(hands[leader], others, trump, rules, rng)
        lead_c = classify(lead, trump, rules)
        plays: list[tuple[int, list[Card]]] = [(leader, lead)]
        combos = [lead_c]
        for k in range(1, SEATS):
            seat = (leader + k) % SEATS
            f = build_follow(lead_c, hands[seat], trump, rules, rng)
            plays.append((seat, f))
            combos.append(classify(f, trump, rules))
        for seat, played in plays:
            h = hands[seat]
            for c in played:
                h.remove(c)
        wi = winner_of(combos, trump, rules)
        win_seat = plays[wi][0]
        pts = sum(card_points(c) for _, p in plays for c in p)
        sim.tricks.append(Trick(leader, plays, win_seat, pts))
        if win_seat not in banker_team:
            sim.attacker_trick_points += pts
        leader = win_seat
        last_combo = combos[wi]
        last_winner = win_seat
    sim.bottom_points = sum(card_points(c) for c in buried)
    if last_winner not in banker_team and last_combo is not None:
        sim.multiplier = bottom_multiplier(last_combo, trump, rules)
        if sim.multiplier:
            sim.bottom_added = sim.bottom_points * sim.multiplier + bottom_bonus(
                last_combo, trump, rules
            )
    sim.attacker_points = sim.attacker_trick_points + sim.bottom_added
    capture = last_combo if last_winner not in banker_team else None
    attacker_level = team_levels[1 - banker % 2] if team_levels else lvl
    sim.outcome = level_outcome(
        sim.attacker_points,
        rules,
        lvl,
        attacker_level=attacker_level,
        banker=banker,
        capture=capture,
        trump=trump,
    )
    return sim


def simulate_match(rules: Rules, seed: int, max_hands: int = 8) -> SimMatch:
    """Hands until a side passes the last level or ``max_hands`` are played."""
    rng = Random(seed)
    levels = [rules.start, rules.start]
    hands: list[SimHand] = []
    banker: int | None = None
    winner: int | None = None
    for i in range(1, max_hands + 1):
        team = banker % 2 if banker is not None else None
        level = levels[team] if team is not None else rules.start
        h = simulate_hand(rules, rng, i, level, banker, levels)
        hands.append(h)
        out = h.outcome
        assert out is not None
        bteam = h.banker % 2
        if out.side == "banker":
            levels[bteam] = out.new_level
            if out.game_over:
                winner = bteam
                break
        else:
            levels[bteam] = out.banker_level
            levels[1 - bteam] = out.new_level
        nb = out.next_banker
        banker = nb if isinstance(nb, int) else (h.banker + (2 if nb == "partner" else 1)) % 4
    return SimMatch(rules, seed, hands, levels, winner)


def _cards(cs: list[Card]) -> list[str]:
    return [str(c) for c in cs]


def match_events(
    match: SimMatch,
    seats: tuple[str, ...] = ("North", "West", "South", "East"),
    step: float = 2.5,
) -> list[dict[str, Any]]:
    """The match as record v1 events (match_start, hand_start, declare, trump, bury, play,
    bottom_reveal, hand_end, match_end): ``v`` = 1, gap-free ``seq``, increasing ``t``."""
    out: list[dict[str, Any]] = []
    clock = [0.0]

    def ev(type_: str, **kw: Any) -> None:
        out.append({"v": 1, "seq": len(out), "t": round(clock[0], 3), "type": type_, **kw})
        clock[0] += step

    ev(
        "match_start",
        game="tractor",
        profile=match.rules.id,
        seats=list(seats),
        teams=[[0, 2], [1, 3]],
        levels=[match.rules.start, match.rules.start],
    )
    for h in match.hands:
        ev("hand_start", hand=h.hand, banker=h.banker if h.banker_given else None, level=h.level)
        for d in h.declarations:
            ev("declare", seat=d.seat, cards=_cards(list(d.cards)))
        ev("trump", suit=h.trump.suit, banker=h.banker, by="engine")
        ev("bury", seat=h.banker, count=len(h.buried))
        for t in h.tricks:
            for seat, cs in t.plays:
                ev("play", seat=seat, cards=_cards(cs), evidence=None, confidence=1.0)
        ev("bottom_reveal", cards=_cards(h.buried))
        ev("hand_end")
    ev("match_end", reason="complete" if match.winner is not None else "hand limit")
    return out


def hand_summary(h: SimHand) -> dict[str, Any]:
    """Ground truth for a simulated hand (JSON-ready): what a referee should conclude."""
    assert h.outcome is not None
    return {
        "hand": h.hand,
        "trump": {"level": h.trump.level, "suit": h.trump.suit},
        "banker": h.banker,
        "tricks": [
            {
                "leader": t.leader,
                "plays": [{"seat": s, "cards": _cards(cs)} for s, cs in t.plays],
                "winner": t.winner,
                "points": t.points,
            }
            for t in h.tricks
        ],
        "bottom": {
            "cards": _cards(h.buried),
            "multiplier": h.multiplier,
            "points": h.bottom_points,
        },
        "attacker_points": h.attacker_points,
        "outcome": h.outcome.as_dict(),
    }
