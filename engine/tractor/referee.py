"""Referee mode for 80-points: judge a deal from the cards put on the cloth, and nothing else.

The camera never sees a hand. What the referee can still prove:

* at once, from the table alone: a follow of the wrong size, a play out of turn, a lead that
  is no legal combination (mixed suits; a throw where the profile allows none), a bottom of
  the wrong size;
* later, from the seat's own later plays (``knowledge.py``): a revoke, a missed pair, a missed
  tractor, proven at the first play that makes the earlier follow illegal for *every* hand the
  seat could have held; and a failed throw, at the first play that shows another seat held a
  unit that beats one of its components;
* at the end, with the whole deal known (all cards played, a ``show`` of a hand, the bottom
  revealed): anything those plays prove (``how: "audit"``).

Nothing is flagged before the cards prove it, and every violation names its rule, seat, the
``seq`` where it happened, the ``seq`` that proves it, the evidence ids and the profile's
penalty. Corrections re-judge the whole record from scratch, so the same record always yields
the same rulings. The interface is the shared one of CONTRIBUTING.md: ``feed``, ``state``,
``report``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.cards import Card, CardError, parse_cards
from engine.record import Event, Ruling, apply_corrections, correction_problem
from engine.tractor.combos import Combo, classify
from engine.tractor.declare import read_declaration, trump_of
from engine.tractor.follow import judge_follow
from engine.tractor.knowledge import SeatKnowledge, SeenPlay
from engine.tractor.order import Trump, context
from engine.tractor.rules import Rules
from engine.tractor.scoring import bottom_bonus, bottom_multiplier, level_outcome
from engine.tractor.throws import check_throw
from engine.tractor.trick import winner_of

RULES_DOC = {
    "revoke": "did not follow the led suit while holding it (未跟花色)",
    "missed_pair": "did not follow a pair with a pair while holding one (有对不跟对)",
    "missed_tractor": "did not follow a tractor with a tractor while holding one",
    "failed_throw": "a throw (甩牌) that another seat could beat",
    "wrong_count": "a follow with a different number of cards than the lead",
    "out_of_turn": "played out of turn (越序)",
    "illegal_lead": "a lead that is no legal combination",
    "wrong_bury_count": "a bottom of the wrong number of cards",
    "wrong_hand_size": "a seat played more or fewer cards than its hand",
}


PENALTY_KEY = {"wrong_hand_size": "extra_cards"}
"""Violation ids whose penalty the profiles file under another key."""


@dataclass
class Violation:
    """One ruling against a seat, with the record positions and evidence that prove it."""

    hand: int
    rule: str
    seat: int
    at_seq: int
    proven_by_seq: int
    evidence: list[str]
    penalty: dict[str, Any]
    how: str
    detail: str
    count: int = 1
    status: str = "open"
    provisional: bool = False

    @property
    def id(self) -> str:
        return f"{self.hand}:{self.rule}:{self.seat}:{self.at_seq}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "rule": self.rule,
            "seat": self.seat,
            "at_seq": self.at_seq,
            "proven_by_seq": self.proven_by_seq,
            "evidence": list(self.evidence),
            "penalty": dict(self.penalty),
            "how": self.how,
            "status": self.status,
            "provisional": self.provisional,
            "detail": self.detail,
        }


@dataclass
class PlayRec:
    seq: int
    seat: int
    cards: list[Card]
    evidence: str | None
    confidence: float | None


@dataclass
class TrickState:
    index: int
    leader: int
    lead: Combo
    legal_lead: bool
    plays: list[PlayRec] = field(default_factory=list)
    winner: int | None = None
    points: int = 0
    incomplete: bool = False

    def seats_played(self) -> set[int]:
        return {p.seat for p in self.plays}

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "leader": self.leader,
            "plays": [
                {"seat": p.seat, "cards": [str(c) for c in p.cards], "seq": p.seq}
                for p in self.plays
            ],
            "winner": self.winner,
            "points": self.points,
            **({"incomplete": True} if self.incomplete else {}),
        }


@dataclass
class PendingFollow:
    """A follow whose legality the seat's later plays may still disprove."""

    seat: int
    seq: int
    index: int
    trick: int
    lead: Combo
    play: tuple[Card, ...]
    suit: str
    evidence: str | None


@dataclass
class PendingThrow:
    """A throw that another seat's later plays may still show was beatable."""

    seat: int
    seq: int
    trick: int
    lead: Combo
    suit: str
    start: dict[int, int]
    evidence: str | None


@dataclass
class HandState:
    """Everything about one deal."""

    hand: int
    banker: int | None
    level: str
    start_seq: int
    trump: Trump | None = None
    trump_seq: int | None = None
    declares: list[tuple[int, int, list[Card]]] = field(default_factory=list)
    bury: tuple[int, int] | None = None
    tricks: list[TrickState] = field(default_factory=list)
    seats: dict[int, SeatKnowledge] = field(default_factory=dict)
    follows: list[PendingFollow] = field(default_factory=list)
    throws: list[PendingThrow] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    bottom: list[Card] | None = None
    bottom_seq: int | None = None
    ended: bool = False
    end_seq: int | None = None
    end_reason: str = ""
    result: dict[str, Any] | None = None
    levels_before: list[str] = field(default_factory=list)
    levels_after: list[str] | None = None
    """Each team's level once the deal is scored (None before, or without an outcome)."""
    seen: Counter[Card] = field(default_factory=Counter)
    trump_unknown: bool = False
    missed: set[int] = field(default_factory=set)
    """Seats with a play the record lacks (an incomplete trick): their card count proves
    nothing."""
    audited: int = 0
    """Follows and throws still open at the end of the deal and not disproved by its cards."""

    def current(self) -> TrickState | None:
        return self.tricks[-1] if self.tricks else None


class Referee:
    """The 80-points referee (see the module docstring). ``Referee(Rules.load("xize-1h"))``."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.seats: list[str] = ["0", "1", "2", "3"]
        self.teams: list[list[int]] = [[0, 2], [1, 3]]
        self.levels: list[str] = [rules.start, rules.start]
        self.match: Event | None = None
        self.hands: list[HandState] = []
        self.errors: list[dict[str, Any]] = []
        self.decisions: dict[str, tuple[str, str, str]] = {}
        self.unsure: set[int] = set()
        self._log: list[Event] = []
        self._out: list[Ruling] = []
        self._corrected: set[int] = set()
        self._late_trump: dict[int, Event] = {}

    # --- the shared interface -----------------------------------------------------------

    def feed(self, event: Event) -> list[Ruling]:
        """Consume one validated record event; the rulings it produced (violations found,
        violations withdrawn by a correction, tricks won, a deal's result, record errors)."""
        self._out = []
        if not isinstance(event, dict):
            self._error({}, f"an event must be a dict, got {type(event).__name__}")
        elif event.get("type") == "correction":
            try:
                self._correct(event)
            except (KeyError, TypeError, ValueError) as e:
                self._error(event, f"cannot apply this correction: {e!r}")
        else:
            self._log.append(event)
            self._dispatch(event)
        return self._out

    def state(self) -> dict[str, Any]:
        """Live snapshot for views: the current deal as the report shows it, plus the trick
        in progress, whose turn it is and what is known of each seat."""
        h = self.hands[-1] if self.hands else None
        out: dict[str, Any] = {
            "game": "tractor",
            "profile": self.rules.id,
            "seats": list(self.seats),
            "teams": [list(t) for t in self.teams],
            "errors": len(self.errors),
            "hand": None,
        }
        if h is None:
            return out
        doc = self._hand_doc(h)
        cur = h.current()
        doc["current_trick"] = cur.as_dict() if cur and cur.winner is None else None
        doc["next_seat"] = self._next_seat(h)
        doc["points"] = {
            "attackers": doc["trick_points"],
            "banker": sum(t.points for t in h.tricks if t.winner is not None) - doc["trick_points"],
        }
        doc["knowledge"] = [h.seats[s].as_dict() for s in sorted(h.seats)]
        out["hand"] = doc
        return out

    def report(self) -> dict[str, Any]:
        """The ``tablescan judge --json`` document."""
        return {
            "game": "tractor",
            "profile": self.rules.id,
            "seats": list(self.seats),
            "teams": [list(t) for t in self.teams],
            "hands": [self._hand_doc(h) for h in self.hands],
            "errors": list(self.errors),
        }

    def violations(self) -> list[Violation]:
        """Every violation so far, in the order found."""
        return [v for h in self.hands for v in h.violations]

    # --- dispatch -------------------------------------------------------------------------

    def _dispatch(self, ev: Event) -> None:
        handler = getattr(self, "_on_" + str(ev.get("type")), None)
        if handler is None:
            self._error(ev, f"event type {ev.get('type')!r} is not judged by the tractor referee")
            return
        try:
            handler(ev)
        except (KeyError, TypeError, ValueError, CardError) as e:
            self._error(ev, f"cannot judge this event: {e}")

    def _error(self, ev: Event, problem: str) -> None:
        err = {"seq": ev.get("seq"), "type": ev.get("type"), "problem": problem}
        self.errors.append(err)
        self._out.append({"kind": "error", **err})

    def _hand(self, ev: Event) -> HandState | None:
        h = self.hands[-1] if self.hands else None
        if h is None or h.ended:
            self._error(ev, f"{ev['type']} outside a deal (no hand_start before it)")
            return None
        return h

    def _on_match_start(self, ev: Event) -> None:
        if ev.get("game") != "tractor":
            self._error(ev, f"game {ev.get('game')!r} given to the tractor referee")
            return
        self.match = ev
        self.seats = list(ev["seats"])
        self.teams = [list(t) for t in ev["teams"]]
        self.levels = list(ev["levels"])
        n = len(self.seats)
        if n != 4 or sorted(s for t in self.teams for s in t) != list(range(n)):
            self._error(ev, "80-points needs 4 seats split into teams covering every seat once")

    def _on_hand_start(self, ev: Event) -> None:
        prev = self.hands[-1] if self.hands else None
        if prev is not None and not prev.ended:
            self._error(ev, f"hand {prev.hand} had no hand_end; closing it unfinished")
            prev.ended = True
            prev.end_reason = "unfinished"
        banker = ev["banker"]
        h = HandState(
            hand=int(ev["hand"]), banker=banker, level=str(ev["level"]), start_seq=ev["seq"]
        )
        h.seats = {s: SeatKnowledge(s) for s in range(len(self.seats))}
        if banker is not None:
            # the record's level for the deal is the banker side's level: it wins over ours
            for i, team in enumerate(self.teams):
                if banker in team and i < len(self.levels):
                    self.levels[i] = h.level
        h.levels_before = list(self.levels)
        if h.level not in self.rules.ladder:
            self._error(ev, f"level {h.level!r} is not on this profile's ladder")
        self.hands.append(h)
        late = self._late_trump.get(h.hand)
        if late is not None:
            h.trump = Trump(level=h.level, suit=late["suit"])
            h.trump_seq = late["seq"]
            if "banker" in late:
                h.banker = int(late["banker"])

    def _on_declare(self, ev: Event) -> None:
        h = self._hand(ev)
        if h is not None:
            h.declares.append((ev["seq"], int(ev["seat"]), parse_cards(ev["cards"])))

    def _on_trump(self, ev: Event) -> None:
        h = self._hand(ev)
        if h is None:
            return
        late = bool(h.tricks) and h.trump_unknown and h.hand not in self._late_trump
        h.trump = Trump(level=h.level, suit=ev["suit"])
        h.trump_seq = ev["seq"]
        if "banker" in ev:
            h.banker = int(ev["banker"])
        if late:
            # entered after play began (the trump was unknown): it holds for the whole deal,
            # so the deal is judged again as if it had come first
            self._late_trump[h.hand] = ev
            self._rejudge(int(ev["seq"]))

    def _on_bury(self, ev: Event) -> None:
        h = self._hand(ev)
        if h is None:
            return
        h.bury = (ev["seq"], int(ev["count"]))
        if int(ev["count"]) != self.rules.bottom:
            self._violate(
                h,
                "wrong_bury_count",
                int(ev["seat"]),
                ev["seq"],
                ev["seq"],
                [ev.get("evidence")],
                "immediate",
                f"buried {ev['count']} cards; the profile's bottom is {self.rules.bottom}",
                count=abs(int(ev["count"]) - self.rules.bottom),
            )

    def _on_pass(self, ev: Event) -> None:
        self._error(ev, "a pass has no meaning in 80-points (every seat plays each trick)")

    def _on_button(self, ev: Event) -> None:
        """Seat buttons are logged by the store; they change no judging by themselves."""

    def _on_exchange(self, ev: Event) -> None:
        self._error(ev, "card exchanges (吃牌) are not judged by the tractor referee yet")

    def _on_match_end(self, ev: Event) -> None:
        """Nothing to judge: the report is already complete."""

    def _on_needs_referee(self, ev: Event) -> None:
        if ev["ref"] not in self._corrected:
            self.unsure.add(int(ev["ref"]))

    def _on_ruling(self, ev: Event) -> None:
        ref = str(ev["ref"])
        if ref.startswith("seq:"):
            self.unsure.discard(int(ref[4:]))
            return
        known = {v.id for v in self.violations()}
        if ref not in known:
            self._error(ev, f"ruling on unknown violation {ref!r}")
            return
        self.decisions[ref] = (str(ev["decision"]), str(ev["by"]), str(ev.get("note", "")))
        for v in self.violations():
            if v.id == ref:
                v.status = str(ev["decision"])

    def _on_violation(self, ev: Event) -> None:
        h = self.hands[-1] if self.hands else None  # the deal in progress or just ended
        if h is None:
            self._error(ev, "a referee violation before any deal")
            return
        at = int(ev["at"]) if "at" in ev else int(ev["seq"])
        pen = ev.get("penalty")
        self._violate(
            h,
            str(ev["rule"]),
            int(ev["seat"]),
            at,
            ev["seq"],
            [ev.get("evidence")],
            "referee",
            f"entered by {ev['by']}" + (f": {ev['note']}" if ev.get("note") else ""),
            penalty=(
                {"points": 0, "levels": 0, "lose_bank": False, "note": "set by the referee"}
                | dict(pen)
                if isinstance(pen, dict)
                else None
            ),
        )

    def _on_show(self, ev: Event) -> None:
        h = self._hand(ev)
        if h is None or ev["what"] != "hand":
            return
        seat = int(ev["seat"])
        h.seats[seat].show(parse_cards(ev["cards"]))
        self._recheck(h, seat, None, ev, "audit")

    def _on_bottom_reveal(self, ev: Event) -> None:
        h = self.hands[-1] if self.hands else None
        if h is None:
            self._error(ev, "bottom_reveal before any deal")
            return
        h.bottom = parse_cards(ev["cards"])
        h.bottom_seq = ev["seq"]
        if len(h.bottom) != self.rules.bottom and not any(
            v.rule == "wrong_bury_count" for v in h.violations
        ):
            self._violate(
                h,
                "wrong_bury_count",
                h.banker if h.banker is not None else 0,
                h.bury[0] if h.bury else ev["seq"],
                ev["seq"],
                [ev.get("evidence")],
                "audit",
                f"the bottom holds {len(h.bottom)} cards; the profile's is {self.rules.bottom}",
                count=abs(len(h.bottom) - self.rules.bottom),
            )
        if self.rules.throw.against == "unplayed":
            self._recheck_throws(h, None, ev, "audit")
        if h.ended:
            self._score(h)

    def _on_hand_end(self, ev: Event) -> None:
        h = self._hand(ev)
        if h is None:
            return
        h.ended = True
        h.end_seq = ev["seq"]
        h.end_reason = str(ev.get("reason", "complete"))
        if h.end_reason == "complete":
            self._check_hand_sizes(h, ev)
        self._audit(h, ev)
        self._score(h)

    def _audit(self, h: HandState, ev: Event) -> None:
        """The deal is over: judge every follow and throw still open with all that was seen.

        When every seat played its whole hand, what each seat held at each trick is known
        exactly, so an open follow or throw is now proven legal (or, if the cards say
        otherwise, ruled here with ``how: "audit"``)."""
        trump = h.trump
        if trump is None:
            return
        for p in list(h.follows):
            held = h.seats[p.seat].held_from(p.index)
            verdict = judge_follow(p.lead, held, p.play, trump, self.rules)
            h.follows.remove(p)
            if verdict.ok:
                h.audited += 1
                continue
            self._violate(
                h,
                verdict.rule or "revoke",
                p.seat,
                p.seq,
                ev["seq"],
                [p.evidence],
                "audit",
                f"trick {p.trick + 1}: {verdict.reason}",
                count=self._offence_count(verdict.rule, p, held, trump),
            )
        self._recheck_throws(h, None, ev, "audit")
        if self.rules.throw.against == "unplayed" and h.bottom is None:
            return  # the bottom still counts for these throws: judged at its reveal
        h.audited += len(h.throws)
        h.throws.clear()

    def _deal_known(self, h: HandState) -> bool:
        """Every card of the deal seen: each seat played a whole hand, the bottom revealed."""
        return (
            h.bottom is not None
            and len(h.bottom) == self.rules.bottom
            and all(k.played_count() == self.rules.hand for k in h.seats.values())
        )

    # --- plays ----------------------------------------------------------------------------

    def _on_play(self, ev: Event) -> None:
        h = self._hand(ev)
        if h is None:
            return
        if ev.get("corrected_by"):
            self._corrected.add(int(ev["seq"]))
        seat = int(ev["seat"])
        if not 0 <= seat < len(self.seats):
            self._error(ev, f"seat {seat} is not at this table")
            return
        cards = parse_cards(ev["cards"])
        self._check_copies(h, ev, cards)
        trump = self._trump(h, ev)
        rec = PlayRec(ev["seq"], seat, cards, ev.get("evidence"), ev.get("confidence"))
        cur = h.current()
        if cur is not None and cur.winner is None and seat in cur.seats_played():
            # A seat plays again before the trick is full: a play the camera missed, or a
            # jump into the next trick. Which one the cards cannot tell, so nobody is accused:
            # the trick closes as incomplete and this play leads the next one.
            missing = sorted(set(range(len(self.seats))) - cur.seats_played())
            self._error(
                ev,
                f"trick {cur.index + 1} closed without a play from seat(s) {missing} "
                "(missed by the camera?); its winner is judged from the plays seen",
            )
            cur.incomplete = True
            h.missed.update(missing)
            self._finish_trick(h, cur, trump)
            self._lead(h, rec, trump, check_turn=False)
        elif cur is None or cur.winner is not None:
            self._lead(h, rec, trump, check_turn=not (cur is not None and cur.incomplete))
        else:
            self._follow(h, cur, rec, trump)
        cur = h.current()
        assert cur is not None
        kn = h.seats[seat]
        index = kn.add(SeenPlay(rec.seq, cur.index, tuple(cards), rec.evidence))
        if trump is not None:
            if cur.plays[0] is not rec and cur.legal_lead:
                self._register_follow(h, cur, rec, index, trump)
            self._recheck(h, seat, rec, ev, "retroactive")
        if cur.seats_played() == set(range(len(self.seats))):
            self._finish_trick(h, cur, trump)

    def _check_copies(self, h: HandState, ev: Event, cards: list[Card]) -> None:
        """More copies of a card than the decks hold is a misread, not a violation: it is
        reported, and every ruling resting on this play stays provisional until a referee
        settles it (a correction, or a ``ruling`` on ``seq:<n>``)."""
        h.seen.update(cards)
        over = sorted({str(c) for c in cards if h.seen[c] > self.rules.decks})
        if over:
            self.unsure.add(int(ev["seq"]))
            self._error(
                ev,
                f"{', '.join(over)}: more copies than {self.rules.decks} deck(s) hold "
                "(a misread?); rulings on this play are provisional",
            )

    def _trump(self, h: HandState, ev: Event) -> Trump | None:
        """The deal's trump: a ``trump`` event, else the last declaration when it names the
        suit by itself (level cards of one suit; a SJ pair for no-trump). Otherwise it is
        unknown: plays are recorded but follows are not judged (a wrong trump would accuse
        falsely) until a ``trump`` event or a correction fixes it."""
        if h.trump is not None or h.trump_unknown:
            return h.trump
        trump: Trump | None = None
        if h.declares:
            seq, seat, cards = h.declares[-1]
            try:
                d = read_declaration(seat, cards, h.level, self.rules)
            except ValueError as e:
                self._error(ev, f"declaration seq {seq} does not fix the trump: {e}")
            else:
                if d.what not in ("BJ", "5H"):  # those let the declarer choose
                    trump = trump_of(d, h.level)
                    h.trump_seq = seq
                    if h.banker is None:
                        first = self.rules.declare.first_banker == "first_declarer"
                        h.banker = h.declares[0][1] if first else seat
        if trump is None:
            h.trump_unknown = True
            self._error(
                ev,
                "the trump is not known (no trump event, no declaration that fixes it): "
                "follows are not judged in this deal",
            )
        h.trump = trump
        return trump

    def _lead(
        self, h: HandState, rec: PlayRec, trump: Trump | None, check_turn: bool = True
    ) -> None:
        n = len(self.seats)
        prev = h.current()
        expected = h.banker if prev is None else prev.winner
        combo = (
            classify(rec.cards, trump, self.rules) if trump else Combo(tuple(rec.cards), None, ())
        )
        legal = trump is not None and combo.suit is not None
        trick = TrickState(index=len(h.tricks), leader=rec.seat, lead=combo, legal_lead=legal)
        trick.plays.append(rec)
        h.tricks.append(trick)
        if check_turn and expected is not None and rec.seat != expected and 0 <= expected < n:
            self._immediate(
                h,
                "out_of_turn",
                rec,
                f"led trick {trick.index + 1} but seat {expected} was to lead",
            )
        if trump is None:
            return
        if combo.suit is None:
            self._immediate(h, "illegal_lead", rec, "a lead of several suits is no combination")
        elif combo.is_throw and not self.rules.throw.allowed:
            trick.legal_lead = False
            self._immediate(
                h, "illegal_lead", rec, "a throw (甩牌), which this profile does not allow"
            )
        elif combo.is_throw:
            start = {s: len(k.plays) for s, k in h.seats.items() if s != rec.seat}
            h.throws.append(
                PendingThrow(rec.seat, rec.seq, trick.index, combo, combo.suit, start, rec.evidence)
            )

    def _follow(self, h: HandState, cur: TrickState, rec: PlayRec, trump: Trump | None) -> None:
        n = len(self.seats)
        done = cur.seats_played()
        expected = next(
            (s for s in ((cur.leader + i) % n for i in range(1, n)) if s not in done), None
        )
        cur.plays.append(rec)
        if expected is not None and rec.seat != expected:
            self._immediate(
                h, "out_of_turn", rec, f"played in trick {cur.index + 1} before seat {expected}"
            )
        want = len(cur.lead.cards)
        if len(rec.cards) != want:
            self._violate(
                h,
                "wrong_count",
                rec.seat,
                rec.seq,
                rec.seq,
                [rec.evidence, cur.plays[0].evidence],
                "immediate",
                f"{len(rec.cards)} card(s) on a {want}-card lead",
                count=abs(len(rec.cards) - want),
            )

    def _register_follow(
        self, h: HandState, cur: TrickState, rec: PlayRec, index: int, trump: Trump
    ) -> None:
        lead = cur.lead
        if len(rec.cards) != len(lead.cards) or lead.suit is None:
            return
        ctx = context(trump, self.rules)
        in_suit = [c for c in rec.cards if ctx.info[c].suit == lead.suit]
        # a 5-10-K (width 1, three linked ranks) is a structured unit like a pair or tractor
        structured = any(u.width > 1 or u.length > 1 for u in lead.units)
        kn = h.seats[rec.seat]
        if len(in_suit) < len(lead.cards):
            kn.voids.add(lead.suit)
        elif not structured:
            return  # a full follow in suit to singles: legal for every hand
        if structured and len(in_suit) >= 2:
            got = classify(in_suit, trump, self.rules)
            if got.pairs < min(lead.pairs, len(in_suit) // 2):
                kn.no_pairs.add(lead.suit)
            if any(u.length > 1 for u in lead.units) and not any(u.length > 1 for u in got.units):
                kn.no_tractors.add(lead.suit)
        h.follows.append(
            PendingFollow(
                rec.seat, rec.seq, index, cur.index, lead, tuple(rec.cards), lead.suit, rec.evidence
            )
        )

    def _recheck(self, h: HandState, seat: int, rec: PlayRec | None, ev: Event, how: str) -> None:
        """Re-judge what ``seat``'s newly seen cards can prove: its own earlier follows, and
        other seats' throws."""
        trump = h.trump
        if trump is None:
            return
        ctx = context(trump, self.rules)
        kn = h.seats[seat]
        new_cards = rec.cards if rec is not None else list(kn.shown)
        suits = {ctx.info[c].suit for c in new_cards}
        for p in [p for p in h.follows if p.seat == seat and p.suit in suits]:
            if rec is not None and p.seq == rec.seq:
                continue
            held = kn.held_from(p.index)
            verdict = judge_follow(p.lead, held, p.play, trump, self.rules)
            if verdict.ok:
                continue
            h.follows.remove(p)
            count = self._offence_count(verdict.rule, p, held, trump)
            self._violate(
                h,
                verdict.rule or "revoke",
                seat,
                p.seq,
                ev["seq"],
                [p.evidence, ev.get("evidence")],
                how,
                f"trick {p.trick + 1}: {verdict.reason}",
                count=count,
            )
        self._recheck_throws(h, seat, ev, how, suits)

    def _recheck_throws(
        self, h: HandState, seat: int | None, ev: Event, how: str, suits: set[str] | None = None
    ) -> None:
        trump = h.trump
        if trump is None:
            return
        for t in list(h.throws):
            if seat is not None and (t.seat == seat or (suits is not None and t.suit not in suits)):
                continue
            others = [h.seats[s].held_from(i) for s, i in t.start.items()]
            if self.rules.throw.against == "unplayed":
                pool = [c for o in others for c in o] + list(h.bottom or [])
                others = [pool]
            check = check_throw(t.lead, others, trump, self.rules)
            if check.ok:
                continue
            h.throws.remove(t)
            self._violate(
                h,
                "failed_throw",
                t.seat,
                t.seq,
                ev["seq"],
                [t.evidence, ev.get("evidence")],
                how,
                f"trick {t.trick + 1}: {check.reason}; the forced play was "
                + " ".join(str(c) for c in check.forced),
                count=max(check.cards_back, 1),
            )

    def _offence_count(self, rule: str, p: PendingFollow, held: list[Card], trump: Trump) -> int:
        """How many cards (revoke) or pairs (missed_pair) the offence involves, for the
        profile's per-card penalty; 1 for anything else."""
        n = len(p.lead.cards)
        info = context(trump, self.rules).info
        h_s = sum(1 for c in held if info[c].suit == p.suit)
        p_s = sum(1 for c in p.play if info[c].suit == p.suit)
        if rule == "revoke":
            return max(min(n, h_s) - p_s, 1)
        if rule == "missed_pair":
            got = classify([c for c in p.play if info[c].suit == p.suit], trump, self.rules)
            held_c = classify([c for c in held if info[c].suit == p.suit], trump, self.rules)
            return max(min(p.lead.pairs, held_c.pairs, n // 2) - got.pairs, 1)
        return 1

    def _finish_trick(self, h: HandState, cur: TrickState, trump: Trump | None) -> None:
        n = len(self.seats)
        order = {(cur.leader + i) % n: i for i in range(n)}
        counted = sorted(
            (p for p in cur.plays if len(p.cards) == len(cur.lead.cards)),
            key=lambda p: order[p.seat],
        )
        cur.points = sum(c.points for p in cur.plays for c in p.cards)
        if trump is None or not counted or counted[0].seat != cur.leader:
            cur.winner = cur.leader
        else:
            combos = [cur.lead] + [classify(p.cards, trump, self.rules) for p in counted[1:]]
            cur.winner = counted[winner_of(combos, trump, self.rules)].seat
        self._out.append(
            {
                "kind": "trick",
                "hand": h.hand,
                "trick": cur.index + 1,
                "winner": cur.winner,
                "points": cur.points,
            }
        )

    def _next_seat(self, h: HandState) -> int | None:
        cur = h.current()
        n = len(self.seats)
        if cur is None:
            return h.banker
        if cur.winner is not None:
            return cur.winner
        done = cur.seats_played()
        return next((s for s in ((cur.leader + i) % n for i in range(1, n)) if s not in done), None)

    def _check_hand_sizes(self, h: HandState, ev: Event) -> None:
        for seat, kn in sorted(h.seats.items()):
            played = kn.played_count()
            off = played - self.rules.hand
            # Cards short or over because of a flagged wrong-size follow are already ruled on.
            wc = sum(
                len(t_p.cards) - len(t.lead.cards)
                for t in h.tricks
                for t_p in t.plays
                if t_p.seat == seat
                and t_p is not t.plays[0]
                and len(t_p.cards) != len(t.lead.cards)
            )
            if off != 0 and off != wc and not (seat in h.missed and off < wc):
                self._violate(
                    h,
                    "wrong_hand_size",
                    seat,
                    ev["seq"],
                    ev["seq"],
                    [],
                    "audit",
                    f"played {played} cards in the deal; a hand is {self.rules.hand}",
                    count=abs(off - wc),
                )

    # --- violations and scoring --------------------------------------------------------

    def _immediate(self, h: HandState, rule: str, rec: PlayRec, detail: str) -> None:
        """A violation the play itself proves (its own seq and frames are the evidence)."""
        self._violate(h, rule, rec.seat, rec.seq, rec.seq, [rec.evidence], "immediate", detail)

    def _violate(
        self,
        h: HandState,
        rule: str,
        seat: int,
        at_seq: int,
        proven_by: int,
        evidence: Sequence[str | None],
        how: str,
        detail: str,
        count: int = 1,
        penalty: dict[str, Any] | None = None,
    ) -> None:
        ids = [e for e in evidence if e]
        v = Violation(
            hand=h.hand,
            rule=rule,
            seat=seat,
            at_seq=at_seq,
            proven_by_seq=proven_by,
            evidence=list(dict.fromkeys(ids)),
            penalty=penalty if penalty is not None else self._penalty(rule, count),
            how=how,
            detail=detail,
            count=count,
        )
        if any(x.id == v.id for x in h.violations):
            return
        decided = self.decisions.get(v.id)
        if decided:
            v.status = decided[0]
        h.violations.append(v)
        self._out.append({"kind": "violation", **self._violation_doc(v)})

    def _penalty(self, rule: str, count: int) -> dict[str, Any]:
        pen = self.rules.penalty(PENALTY_KEY.get(rule, rule))
        return {
            "points": pen.points + pen.per_card * count,
            "levels": pen.levels,
            "lose_bank": False,
            "floor0": pen.floor0,
            "note": pen.note,
        }

    def _violation_doc(self, v: Violation) -> dict[str, Any]:
        d = v.as_dict()
        d["provisional"] = v.at_seq in self.unsure or v.proven_by_seq in self.unsure
        return d

    def _side_of(self, h: HandState, seat: int) -> str:
        if h.banker is None:
            return "attackers"
        team = next((t for t in self.teams if h.banker in t), [])
        return "banker" if seat in team else "attackers"

    def _score(self, h: HandState) -> None:
        """Points, bottom and level outcome of a finished deal."""
        doc = self._hand_doc(h)
        h.result = doc
        out = doc["outcome"]
        if out is not None:
            levels = list(h.levels_before)
            b_team = self._team_of(h, "banker")
            a_team = self._team_of(h, "attackers")
            if b_team is not None and a_team is not None:
                levels[b_team] = str(out["banker_level"])
                if out["side"] == "attackers":
                    levels[a_team] = str(out["new_level"])
                else:
                    levels[b_team] = str(out["new_level"])
            self.levels = levels
            h.levels_after = list(levels)
            doc["levels_after"] = list(levels)
        self._out.append({"kind": "hand", "hand": h.hand, "outcome": doc["outcome"]})

    def _hand_doc(self, h: HandState) -> dict[str, Any]:
        trump = h.trump
        trick_points = sum(
            t.points
            for t in h.tricks
            if t.winner is not None and self._side_of(h, t.winner) == "attackers"
        )
        bottom: dict[str, Any] = {
            "cards": [str(c) for c in h.bottom] if h.bottom is not None else None,
            "multiplier": None,
            "points": None,
        }
        attacker_points = trick_points
        last = h.tricks[-1] if h.tricks else None
        if (
            h.ended
            and last is not None
            and last.winner is not None
            and trump is not None
            and self._side_of(h, last.winner) == "attackers"
        ):
            win_play = next(p for p in last.plays if p.seat == last.winner)
            mult, bonus = bottom_factor(win_play.cards, last.lead, trump, self.rules)
            bottom["multiplier"] = mult
            if h.bottom is not None:
                pts = sum(c.points for c in h.bottom) * mult + bonus
                bottom["points"] = pts
                attacker_points += pts
        elif h.ended and h.bottom is not None:
            bottom["multiplier"] = 0
            bottom["points"] = 0
        penalty_points = 0
        penalty_levels: list[dict[str, Any]] = []
        for v in h.violations:
            if v.status == "dismissed":
                continue
            side = self._side_of(h, v.seat)
            pts = int(v.penalty.get("points", 0))
            if pts:
                penalty_points += -pts if side == "attackers" else pts
            lv = int(v.penalty.get("levels", 0))
            if lv:
                other = "banker" if side == "attackers" else "attackers"
                penalty_levels.append({"side": other, "levels": lv, "violation": v.id})
        attacker_points += penalty_points
        if penalty_points < 0 and any(v.penalty.get("floor0") for v in h.violations):
            attacker_points = max(attacker_points, 0)
        outcome: dict[str, Any] | None = None
        if h.ended and h.banker is not None and trump is not None and h.end_reason == "complete":
            outcome = self._outcome(h, attacker_points)
            if penalty_levels:
                outcome["penalty_levels"] = penalty_levels
        return {
            "hand": h.hand,
            "trump": {"level": h.level, "suit": trump.suit if trump else None}
            | ({"unknown": True} if trump is None else {}),
            "banker": h.banker,
            "tricks": [t.as_dict() for t in h.tricks],
            "bottom": bottom,
            "trick_points": trick_points,
            "penalty_points": penalty_points,
            "attacker_points": attacker_points,
            "violations": [self._violation_doc(v) for v in h.violations],
            "outcome": outcome,
            "end": h.end_reason or None,
            **({"levels_after": list(h.levels_after)} if h.levels_after is not None else {}),
            "audit": {
                "deal_known": self._deal_known(h),
                # with the whole deal known an open follow or throw is proven legal; without
                # it, it is only unproven (never a violation)
                "confirmed_legal": h.audited if self._deal_known(h) else 0,
                "unproven": 0 if self._deal_known(h) else h.audited,
            }
            if h.ended
            else None,
        }

    def _outcome(self, h: HandState, attacker_points: int) -> dict[str, Any]:
        """``level_outcome`` for this deal, with the capture (knock-backs) and the seats."""
        assert h.banker is not None and h.trump is not None
        capture = None
        last = h.tricks[-1] if h.tricks else None
        if (
            last is not None
            and last.winner is not None
            and self._side_of(h, last.winner) == "attackers"
        ):
            capture = next(p for p in last.plays if p.seat == last.winner).cards
        a_team = self._team_of(h, "attackers")
        a_level = h.levels_before[a_team] if a_team is not None else None
        res = level_outcome(
            attacker_points,
            self.rules,
            h.level,
            attacker_level=a_level if a_level in self.rules.ladder else None,
            banker=h.banker,
            capture=capture,
            trump=h.trump,
        )
        return res.as_dict()

    def _team_of(self, h: HandState, side: str) -> int | None:
        for i, team in enumerate(self.teams):
            if h.banker is not None and (h.banker in team) == (side == "banker"):
                return i
        return None

    # --- corrections ------------------------------------------------------------------------

    def _correct(self, ev: Event) -> None:
        target = next((e for e in self._log if e.get("seq") == ev["ref"]), None)
        problem = correction_problem(ev, target)
        if problem:
            self._error(ev, problem)
            return
        self._log.append(ev)
        self._rejudge(int(ev["seq"]))

    def _rejudge(self, by_seq: int) -> None:
        """Judge the whole (corrected) record again from scratch, and report the difference:
        violations withdrawn and violations found. Deterministic by construction."""
        before = {v.id: v for v in self.violations()}
        fresh = Referee(self.rules)
        fresh._late_trump = dict(self._late_trump)
        for e in apply_corrections(self._log):
            if e.get("type") != "correction":
                fresh._dispatch(e)
        fresh._log = self._log
        fresh.errors = [*self.errors] + [e for e in fresh.errors if e not in self.errors]
        after = {v.id: v for v in fresh.violations()}
        out: list[Ruling] = [*self._out]
        for vid in before:
            if vid not in after:
                out.append({"kind": "withdrawn", "id": vid, "by_seq": by_seq})
        for vid, v in after.items():
            if vid not in before:
                out.append({"kind": "violation", **fresh._violation_doc(v)})
        self.__dict__.update(fresh.__dict__)
        self._out = out


def bottom_factor(
    winning: Sequence[Card], lead: Combo, trump: Trump, rules: Rules
) -> tuple[int, int]:
    """(multiplier, flat bonus) for the bottom won with ``winning`` on the last trick."""
    combo = classify(winning, trump, rules)
    return bottom_multiplier(combo, trump, rules), bottom_bonus(combo, trump, rules)
