"""Simulated 80-points match records, optionally with injected violations, and their truth.

The referee's tests and bench need records where the hands are known: every deal is dealt
from a seeded shuffle, played by random legal players (the engine's ``build_follow``), and
written as the camera would write it (``match_start`` … ``hand_end``). Injected violations are
real illegal plays made from the true hand (each checked against the engine's own
``judge_follow`` / ``check_throw`` with the full hand), so the truth file can say, for each,
where it happened and which later play first proves it (``proof_of``), computed by brute force
from the true record rather than by the referee's incremental bookkeeping.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any

from engine.cards import Card, deck
from engine.record import Event, SeqCounter, cards_of
from engine.tractor.combos import Combo, classify, split
from engine.tractor.follow import build_follow, judge_follow
from engine.tractor.order import Trump, context
from engine.tractor.rules import Rules
from engine.tractor.scoring import bottom_score, level_outcome
from engine.tractor.throws import check_throw
from engine.tractor.trick import winner_of

INJECTABLE = (
    "revoke",
    "missed_pair",
    "missed_tractor",
    "failed_throw",
    "wrong_count",
    "out_of_turn",
    "illegal_lead",
    "wrong_bury_count",
)
SEATS = ("North", "West", "South", "East")
TEAMS = [[0, 2], [1, 3]]


@dataclass
class Injected:
    """One injected violation: where, by whom, and (from the truth) the first proving seq."""

    hand: int
    rule: str
    seat: int
    at_seq: int
    proven_by_seq: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "hand": self.hand,
            "rule": self.rule,
            "seat": self.seat,
            "at_seq": self.at_seq,
            "proven_by_seq": self.proven_by_seq,
            "provable": self.proven_by_seq is not None,
        }


@dataclass
class Truth:
    """What the camera never sees: the deals, and the violations put into the record."""

    profile: str
    seed: int
    deals: list[dict[str, Any]] = field(default_factory=list)
    injected: list[Injected] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "seed": self.seed,
            "deals": self.deals,
            "injected": [i.as_dict() for i in self.injected],
        }


@dataclass
class _Deal:
    """Play state of one simulated deal."""

    hand: int
    banker: int
    trump: Trump
    hands: list[list[Card]]
    bottom: list[Card]


class MatchSim:
    """Builds one match record. ``inject``: how many violations to put in, spread at random
    over the match (kinds cycle through ``kinds`` so every kind gets its share)."""

    def __init__(
        self,
        rules: Rules,
        seed: int,
        hands: int = 1,
        inject: int = 0,
        kinds: Sequence[str] = INJECTABLE,
    ) -> None:
        self.rules = rules
        self.rng = Random(seed)
        self.seed = seed
        self.n_hands = hands
        self.kinds = [k for k in kinds if k in INJECTABLE]
        if inject and not self.kinds:
            raise ValueError(f"no injectable kind among {list(kinds)}")
        self.to_inject = inject
        self.counter = SeqCounter()
        self.t = 0.0
        self.events: list[Event] = []
        self.truth = Truth(rules.id, seed)
        self.levels = [rules.start, rules.start]
        self.tricks_left = hands * rules.hand

    # --- plumbing -----------------------------------------------------------------------

    def _emit(self, type_: str, **fields: Any) -> Event:
        self.t += 0.5 + self.rng.random() * 2
        ev = self.counter.event(type_, self.t, **fields)
        self.events.append(ev)
        return ev

    def _want(self, kind: str, eager: bool = False) -> bool:
        """Inject ``kind`` here? Only the kind whose turn it is (or, ``eager``, a rare kind
        whenever it is possible), at a rate that spreads the remaining injections over the
        remaining tricks of the match."""
        if self.to_inject <= 0 or kind not in self.kinds:
            return False
        if kind != self.kinds[0] and not eager:
            return False
        return self.rng.random() < min(1.0, 3 * self.to_inject / max(self.tricks_left, 1))

    def _take(self, kind: str) -> None:
        self.to_inject -= 1
        if self.kinds[0] == kind:
            self._rotate()

    def _rotate(self) -> None:
        self.kinds.append(self.kinds.pop(0))

    # --- the match ----------------------------------------------------------------------

    def run(self) -> tuple[list[Event], Truth]:
        r = self.rules
        self._emit(
            "match_start",
            game="tractor",
            profile=r.id,
            seats=list(SEATS),
            teams=[list(t) for t in TEAMS],
            levels=list(self.levels),
        )
        banker: int | None = None
        for hand in range(1, self.n_hands + 1):
            banker = self._deal(hand, banker)
        self._emit("match_end")
        return self.events, self.truth

    def _deal(self, hand: int, banker: int | None) -> int:
        r = self.rules
        cards = deck(r.decks)
        self.rng.shuffle(cards)
        hands = [cards[i * r.hand : (i + 1) * r.hand] for i in range(4)]
        bottom = cards[4 * r.hand :]
        team_level = self.levels[0 if banker is None else (0 if banker in TEAMS[0] else 1)]
        level = team_level
        self._emit("hand_start", hand=hand, banker=banker, level=level)
        declarer = None
        for s in self.rng.sample(range(4), 4):
            shown = [c for c in hands[s] if c.rank == level and c.suit is not None]
            if shown and str(shown[0]) not in r.perm_trumps:
                declarer = s
                self._emit("declare", seat=s, cards=[str(shown[0])], evidence=None)
                suit: str | None = shown[0].suit
                break
        else:
            suit = None
        if banker is None:
            banker = declarer if declarer is not None else 0
            level = self.levels[0 if banker in TEAMS[0] else 1]
        trump = Trump(level, suit)
        self._emit("trump", suit=suit, banker=banker, by="engine")
        # The banker takes the bottom and buries as many cards, at random.
        full = hands[banker] + bottom
        self.rng.shuffle(full)
        bottom = full[: r.bottom]
        hands[banker] = full[r.bottom :]
        deal = _Deal(hand, banker, trump, [list(h) for h in hands], list(bottom))
        self.truth.deals.append(
            {
                "hand": hand,
                "banker": banker,
                "trump": {"level": level, "suit": suit},
                "hands": [[str(c) for c in h] for h in hands],
                "bottom": [str(c) for c in bottom],
            }
        )
        count = r.bottom
        if self._want("wrong_bury_count", eager=True):
            count = r.bottom + self.rng.choice((-1, 1))
            self._take("wrong_bury_count")
        bury = self._emit("bury", seat=banker, count=count, evidence=f"h{hand}-bury")
        if count != r.bottom:
            self._inject(hand, "wrong_bury_count", banker, bury["seq"], bury["seq"])
        leader = banker
        last_play: list[Card] = []
        last_lead: Combo | None = None
        attackers_won: list[tuple[list[Card], bool]] = []
        # A short follow (injected wrong_count) leaves cards that are never played: the deal
        # ends when any seat is out, as at a real table.
        while all(deal.hands):
            leader, last_play, last_lead, won = self._trick(deal, leader)
            attackers_won.append(won)
            self.tricks_left -= 1
            if self.to_inject and self.rng.random() < 0.3:
                self._rotate()
        self._emit("bottom_reveal", cards=[str(c) for c in deal.bottom], evidence=f"h{hand}-bottom")
        self._emit("hand_end")
        # Score as the engine would, to carry levels and the banker into the next deal.
        att = [s for s in range(4) if s not in self._team(banker)]
        pts = sum(sum(c.points for c in cs) for cs, w in attackers_won if w)
        if last_lead is not None and last_play and leader in att:
            pts += bottom_score(last_play, deal.bottom, trump, r)
        out = level_outcome(pts, r, level, banker=banker, trump=trump)
        b_team = 0 if banker in TEAMS[0] else 1
        if out.side == "banker":
            self.levels[b_team] = out.new_level
        else:
            self.levels[1 - b_team] = out.new_level
        if out.game_over:
            self.levels = [r.start, r.start]
        nb = out.next_banker
        return int(nb) if isinstance(nb, int) else (banker + 1) % 4

    def _team(self, seat: int) -> list[int]:
        return TEAMS[0] if seat in TEAMS[0] else TEAMS[1]

    def _inject(self, hand: int, rule: str, seat: int, at: int, proof: int | None) -> None:
        self.truth.injected.append(Injected(hand, rule, seat, at, proof))

    # --- one trick ----------------------------------------------------------------------

    def _trick(
        self, deal: _Deal, leader: int
    ) -> tuple[int, list[Card], Combo | None, tuple[list[Card], bool]]:
        r, trump = self.rules, deal.trump
        hand = deal.hands[leader]
        lead_cards, lead_kind = self._choose_lead(deal, leader)
        lead = classify(lead_cards, trump, r)
        order = [(leader + i) % 4 for i in range(4)]
        plays: dict[int, list[Card]] = {leader: lead_cards}
        kinds: dict[int, str] = {leader: lead_kind}
        for c in lead_cards:
            hand.remove(c)
        for seat in order[1:]:
            h = deal.hands[seat]
            if not h:
                continue
            play, kind = self._choose_follow(deal, seat, lead)
            for c in play:
                h.remove(c)
            plays[seat] = play
            kinds[seat] = kind
        # Emission order: the play order, unless an out-of-turn is injected.
        emit_order = [s for s in order if s in plays]
        swapped = None
        if len(emit_order) == 4 and self._want("out_of_turn"):
            i = self.rng.choice((1, 2))
            emit_order[i], emit_order[i + 1] = emit_order[i + 1], emit_order[i]
            swapped = emit_order[i]
            self._take("out_of_turn")
        seqs: dict[int, int] = {}
        for s in emit_order:
            ev = self._emit(
                "play",
                seat=s,
                cards=[str(c) for c in plays[s]],
                evidence=f"h{deal.hand}-f{self.counter.next_seq}",
                confidence=round(0.9 + self.rng.random() * 0.1, 3),
            )
            seqs[s] = ev["seq"]
        for s, kind in kinds.items():
            if kind in ("revoke", "missed_pair", "missed_tractor", "failed_throw"):
                self._inject(deal.hand, kind, s, seqs[s], None)
            elif kind in ("wrong_count", "illegal_lead"):
                self._inject(deal.hand, kind, s, seqs[s], seqs[s])
        if swapped is not None:
            self._inject(deal.hand, "out_of_turn", swapped, seqs[swapped], seqs[swapped])
        # Winner among plays of the lead's size, in play order.
        counted = [s for s in order if s in plays and len(plays[s]) == len(lead_cards)]
        if lead.suit is None:
            win = leader
        else:
            combos = [classify(plays[s], trump, r) for s in counted]
            win = counted[winner_of(combos, trump, r)]
        cards = [c for p in plays.values() for c in p]
        att = win not in self._team(deal.banker)
        return win, plays[win], lead, (cards, att)

    def _choose_lead(self, deal: _Deal, seat: int) -> tuple[list[Card], str]:
        r, trump = self.rules, deal.trump
        hand = deal.hands[seat]
        ctx = context(trump, r)
        by_suit: dict[str, list[Card]] = {}
        for c in hand:
            by_suit.setdefault(ctx.info[c].suit, []).append(c)
        suits = sorted(by_suit)
        # The others may be short (a wrong_count left this seat cards over): never lead more
        # cards than every other seat still holds.
        room = min(len(deal.hands[o]) for o in range(4) if o != seat)
        if room < 2:
            return [self.rng.choice(hand)], "legal"
        if len(suits) >= 2 and self._want("illegal_lead"):
            a, b = self.rng.sample(suits, 2)
            self._take("illegal_lead")
            return [self.rng.choice(by_suit[a]), self.rng.choice(by_suit[b])], "illegal_lead"
        if r.throw.allowed and self._want("failed_throw"):
            for s in self.rng.sample(suits, len(suits)):
                units = split(by_suit[s], s, ctx, r)
                if len(units) < 2:
                    continue
                pick = units[:2] if self.rng.random() < 0.5 else self.rng.sample(units, 2)
                cards = [c for u in pick for c in u.cards]
                others = self._others(deal, seat)
                if len(cards) <= room and not check_throw(cards, others, trump, r).ok:
                    self._take("failed_throw")
                    return cards, "failed_throw"
        suit = self.rng.choice(suits)
        units = split(by_suit[suit], suit, ctx, r)
        unit = self.rng.choice(units)
        want = {"missed_tractor": 2, "missed_pair": 1}.get(self.kinds[0] if self.to_inject else "")
        if want:
            # give the wanted follow violation a chance: lead a tractor (or pair) in a suit
            # where another seat holds one too, and more cards of that suit than the lead
            shaped = [
                u
                for s in suits
                for u in split(by_suit[s], s, ctx, r)
                if (u.length > 1 if want == 2 else u.width > 1)
                and self._someone_holds(deal, seat, u.suit, want, u.size)
            ]
            if shaped:
                unit = self.rng.choice(shaped)
        cards = list(unit.cards)
        if len(cards) > room:
            return [self.rng.choice(hand)], "legal"
        units = split(by_suit[unit.suit], unit.suit, ctx, r)
        if r.throw.allowed and self.rng.random() < 0.15 and len(units) > 1:
            # try a legal throw: this unit plus another, kept only if nobody can beat it
            other = self.rng.choice(units)
            attempt = cards + list(other.cards)
            others = self._others(deal, seat)
            fits = not Counter(attempt) - Counter(hand)
            if fits and len(attempt) <= room and check_throw(attempt, others, trump, r).ok:
                cards = attempt
        return cards, "legal"

    def _others(self, deal: _Deal, seat: int) -> list[list[Card]]:
        """What a throw is judged against: the other hands, or (``against = "unplayed"``) one
        pool of every unplayed card outside the thrower's hand, the bottom included."""
        others = [deal.hands[o] for o in range(4) if o != seat]
        if self.rules.throw.against == "unplayed":
            return [[c for h in others for c in h] + list(deal.bottom)]
        return others

    def _someone_holds(self, deal: _Deal, seat: int, suit: str, want: int, n: int) -> bool:
        ctx = context(deal.trump, self.rules)
        for o in range(4):
            if o == seat:
                continue
            mine = [c for c in deal.hands[o] if ctx.info[c].suit == suit]
            if len(mine) <= n:
                continue
            units = split(mine, suit, ctx, self.rules)
            if any((u.length > 1 if want == 2 else u.width > 1) for u in units):
                return True
        return False

    def _choose_follow(self, deal: _Deal, seat: int, lead: Combo) -> tuple[list[Card], str]:
        r, trump = self.rules, deal.trump
        hand = deal.hands[seat]
        n = len(lead.cards)
        if lead.suit is None:
            # no obligation after an illegal lead: any cards of the lead's size
            return self.rng.sample(hand, min(n, len(hand))), "legal"
        if len(hand) < n:
            return list(hand), "legal"
        structured = any(u.width > 1 for u in lead.units)
        for kind in ("revoke", "missed_pair", "missed_tractor"):
            if self._want(kind, eager=structured and kind != "revoke"):
                bad = self._illegal_follow(lead, hand, trump, kind)
                if bad is not None:
                    self._take(kind)
                    return bad, kind
        play = build_follow(lead, hand, trump, r, self.rng)
        if n >= 2 and self._want("wrong_count"):
            self._take("wrong_count")
            return play[:-1], "wrong_count"
        return play, "legal"

    def _illegal_follow(
        self, lead: Combo, hand: list[Card], trump: Trump, kind: str
    ) -> list[Card] | None:
        """A follow from ``hand`` that the engine rules ``kind`` with the full hand, if any."""
        r = self.rules
        n = len(lead.cards)
        ctx = context(trump, r)
        in_suit = [c for c in hand if ctx.info[c].suit == lead.suit]
        pool = hand if kind == "revoke" else in_suit
        if len(pool) < n or (kind == "revoke" and not in_suit):
            return None
        for _ in range(25):
            cand = self.rng.sample(pool, n)
            if kind != "revoke" and Counter(cand) == Counter(in_suit[:n]):
                continue
            v = judge_follow(lead, hand, cand, trump, r)
            if not v.ok and v.rule == kind:
                return cand
        return None


def simulate(
    profile: Rules, seed: int, hands: int = 1, inject: int = 0, kinds: Sequence[str] = INJECTABLE
) -> tuple[list[Event], dict[str, Any]]:
    """A simulated match record and its truth (with each injection's first proving ``seq``)."""
    events, truth = MatchSim(profile, seed, hands, inject, kinds).run()
    for inj in truth.injected:
        if inj.proven_by_seq is None:
            inj.proven_by_seq = proof_of(events, inj, profile)
    return events, truth.as_dict()


def simulate_record(
    profile: str, seed: int, *, hands: int = 1, inject: int = 0, kinds: list[str] | None = None
) -> tuple[list[Event], dict[str, Any]]:
    """``engine.games.Game.simulate``: ``kinds`` of ``INJECTABLE`` (all of them by default);
    an unknown kind is a ``ValueError`` naming the known ones."""
    chosen = kinds or list(INJECTABLE)
    unknown = [k for k in chosen if k not in INJECTABLE]
    if unknown:
        raise ValueError(f"unknown kinds {unknown} (known: {', '.join(INJECTABLE)})")
    return simulate(Rules.load(profile), seed, hands=hands, inject=inject, kinds=chosen)


def proof_of(events: list[Event], inj: Injected, rules: Rules) -> int | None:
    """The first ``seq`` whose cards prove ``inj`` (brute force over the true record)."""
    deal_events = _deal_of(events, inj.at_seq)
    trump = next(
        Trump(lv, e["suit"])
        for e in deal_events
        if e["type"] == "trump"
        for lv in [next(x["level"] for x in deal_events if x["type"] == "hand_start")]
    )
    plays = [e for e in deal_events if e["type"] == "play"]
    idx = next(i for i, e in enumerate(plays) if e["seq"] == inj.at_seq)
    # the trick of the injected play: its lead is the last lead at or before it
    lead_ev = _lead_of(plays, idx)
    lead = classify(cards_of(lead_ev), trump, rules)
    me = plays[idx]
    if inj.rule in ("revoke", "missed_pair", "missed_tractor"):
        mine = cards_of(me)
        held = list(mine)
        for e in plays[idx + 1 :]:
            if e["seat"] != inj.seat:
                continue
            held += cards_of(e)
            v = judge_follow(lead, held, mine, trump, rules)
            if not v.ok:
                return int(e["seq"])
        return None
    if inj.rule == "failed_throw":
        held_by: dict[int, list[Card]] = {s: [] for s in range(4) if s != inj.seat}
        bottom: list[Card] = []
        pooled = rules.throw.against == "unplayed"
        after = [e for e in deal_events if e["seq"] > inj.at_seq]
        for e in after:
            if e["type"] == "bottom_reveal" and pooled:
                bottom = cards_of(e)
            elif e["type"] == "play" and e["seat"] != inj.seat:
                held_by[e["seat"]] += cards_of(e)
            else:
                continue
            hands = list(held_by.values())
            if pooled:
                hands = [[c for h in hands for c in h] + bottom]
            if not check_throw(lead, hands, trump, rules).ok:
                return int(e["seq"])
        return None
    return inj.at_seq


def _deal_of(events: list[Event], seq: int) -> list[Event]:
    start = max(i for i, e in enumerate(events) if e["type"] == "hand_start" and e["seq"] <= seq)
    end = next(
        (i for i, e in enumerate(events) if i > start and e["type"] == "hand_end"), len(events)
    )
    return events[start : end + 1]


def _lead_of(plays: list[Event], idx: int) -> Event:
    """The lead of the trick holding ``plays[idx]``: tricks are 4 plays (a short record
    ends a trick early only at the end of the deal)."""
    return plays[(idx // 4) * 4]
