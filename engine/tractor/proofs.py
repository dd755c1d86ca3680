"""What the seen cards prove against a seat: the follows and throws the referee keeps open
until a later play, a shown hand or the end of the deal settles them (``knowledge.py`` says
why a seat's later plays are proof of what it held).

Each function returns ``Proof``s and takes what it settled off the deal's open lists; the
referee turns a proof into a violation with the proving event's ``seq`` and evidence.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engine.cards import Card
from engine.tractor.combos import classify
from engine.tractor.deal import HandState, PendingFollow, PlayRec, TrickState
from engine.tractor.follow import judge_follow
from engine.tractor.order import Trump, context
from engine.tractor.rules import Rules
from engine.tractor.throws import check_throw


@dataclass(frozen=True, slots=True)
class Proof:
    """A violation the cards prove: who, where (``at_seq``), the evidence ids, why."""

    rule: str
    seat: int
    at_seq: int
    evidence: tuple[str | None, ...]
    detail: str
    count: int = 1


def register_follow(
    h: HandState, cur: TrickState, rec: PlayRec, index: int, trump: Trump, rules: Rules
) -> None:
    """Keep a follow open to proof unless it is legal for every hand (a full follow in suit
    to singles), and note what it claims about the seat's hand (voids, no pairs, ...)."""
    lead = cur.lead
    if len(rec.cards) != len(lead.cards) or lead.suit is None:
        return
    ctx = context(trump, rules)
    in_suit = [c for c in rec.cards if ctx.info[c].suit == lead.suit]
    # a 5-10-K (width 1, three linked ranks) is a structured unit like a pair or tractor
    structured = any(u.width > 1 or u.length > 1 for u in lead.units)
    kn = h.seats[rec.seat]
    if len(in_suit) < len(lead.cards):
        kn.voids.add(lead.suit)
    elif not structured:
        return
    if structured and len(in_suit) >= 2:
        got = classify(in_suit, trump, rules)
        if got.pairs < min(lead.pairs, len(in_suit) // 2):
            kn.no_pairs.add(lead.suit)
        if any(u.length > 1 for u in lead.units) and not any(u.length > 1 for u in got.units):
            kn.no_tractors.add(lead.suit)
    h.follows.append(
        PendingFollow(
            rec.seat, rec.seq, index, cur.index, lead, tuple(rec.cards), lead.suit, rec.evidence
        )
    )


def follow_proofs(
    h: HandState,
    seat: int,
    suits: set[str],
    skip_seq: int | None,
    trump: Trump,
    rules: Rules,
    evidence: str | None,
) -> list[Proof]:
    """``seat``'s open follows in ``suits`` that its cards now seen make illegal."""
    kn = h.seats[seat]
    out: list[Proof] = []
    for p in [p for p in h.follows if p.seat == seat and p.suit in suits]:
        if p.seq == skip_seq:
            continue
        held = kn.held_from(p.index)
        verdict = judge_follow(p.lead, held, p.play, trump, rules)
        if verdict.ok:
            continue
        h.follows.remove(p)
        out.append(
            Proof(
                verdict.rule or "revoke",
                seat,
                p.seq,
                (p.evidence, evidence),
                f"trick {p.trick + 1}: {verdict.reason}",
                offence_count(verdict.rule, p, held, trump, rules),
            )
        )
    return out


def audit_follows(h: HandState, trump: Trump, rules: Rules) -> list[Proof]:
    """The deal is over: every open follow judged with all that was seen (the legal ones are
    counted in ``h.audited``)."""
    out: list[Proof] = []
    for p in list(h.follows):
        held = h.seats[p.seat].held_from(p.index)
        verdict = judge_follow(p.lead, held, p.play, trump, rules)
        h.follows.remove(p)
        if verdict.ok:
            h.audited += 1
            continue
        out.append(
            Proof(
                verdict.rule or "revoke",
                p.seat,
                p.seq,
                (p.evidence,),
                f"trick {p.trick + 1}: {verdict.reason}",
                offence_count(verdict.rule, p, held, trump, rules),
            )
        )
    return out


def throw_proofs(
    h: HandState,
    seat: int | None,
    suits: Iterable[str] | None,
    trump: Trump,
    rules: Rules,
    evidence: str | None,
) -> list[Proof]:
    """Open throws that another seat's cards now seen show were beatable (``seat``: the seat
    whose cards are new, None for all; ``suits``: the suits of those cards)."""
    out: list[Proof] = []
    wanted = set(suits) if suits is not None else None
    for t in list(h.throws):
        if seat is not None and (t.seat == seat or (wanted is not None and t.suit not in wanted)):
            continue
        others = [h.seats[s].held_from(i) for s, i in t.start.items()]
        if rules.throw.against == "unplayed":
            others = [[c for o in others for c in o] + list(h.bottom or [])]
        check = check_throw(t.lead, others, trump, rules)
        if check.ok:
            continue
        h.throws.remove(t)
        out.append(
            Proof(
                "failed_throw",
                t.seat,
                t.seq,
                (t.evidence, evidence),
                f"trick {t.trick + 1}: {check.reason}; the forced play was "
                + " ".join(str(c) for c in check.forced),
                max(check.cards_back, 1),
            )
        )
    return out


def hand_size_proofs(h: HandState, rules: Rules, end_seq: int) -> list[Proof]:
    """A complete deal: each seat that played more or fewer cards than a hand, beyond what a
    flagged wrong-size follow (or a play the camera missed) explains."""
    out: list[Proof] = []
    for seat, kn in sorted(h.seats.items()):
        played = kn.played_count()
        off = played - rules.hand
        # Cards short or over because of a flagged wrong-size follow are already ruled on.
        wc = sum(
            len(t_p.cards) - len(t.lead.cards)
            for t in h.tricks
            for t_p in t.plays
            if t_p.seat == seat and t_p is not t.plays[0] and len(t_p.cards) != len(t.lead.cards)
        )
        if off != 0 and off != wc and not (seat in h.missed and off < wc):
            out.append(
                Proof(
                    "wrong_hand_size",
                    seat,
                    end_seq,
                    (),
                    f"played {played} cards in the deal; a hand is {rules.hand}",
                    abs(off - wc),
                )
            )
    return out


def offence_count(rule: str, p: PendingFollow, held: list[Card], trump: Trump, rules: Rules) -> int:
    """How many cards (revoke) or pairs (missed_pair) the offence involves, for the
    profile's per-card penalty; 1 for anything else."""
    n = len(p.lead.cards)
    info = context(trump, rules).info
    h_s = sum(1 for c in held if info[c].suit == p.suit)
    p_s = sum(1 for c in p.play if info[c].suit == p.suit)
    if rule == "revoke":
        return max(min(n, h_s) - p_s, 1)
    if rule == "missed_pair":
        got = classify([c for c in p.play if info[c].suit == p.suit], trump, rules)
        held_c = classify([c for c in held if info[c].suit == p.suit], trump, rules)
        return max(min(p.lead.pairs, held_c.pairs, n // 2) - got.pairs, 1)
    return 1
