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

Rooms: ``deal`` (what is kept per deal), ``proofs`` (what seen cards prove), ``hand_report``
(a deal's account and outcome). This file stays one class of about 680 lines on purpose: it
is the record's state machine, one handler per event type over one shared deal state, and
spreading the handlers over modules would split that machine without making any part simpler.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from engine.cards import Card, CardError
from engine.record import (
    Event,
    Ruling,
    apply_corrections,
    banker_of,
    cards_of,
    correction_problem,
)
from engine.tractor.combos import Combo, classify
from engine.tractor.deal import (
    PENALTY_KEY,
    RULES_DOC,
    HandState,
    PendingThrow,
    PlayRec,
    TrickState,
    Violation,
)
from engine.tractor.declare import read_declaration, trump_of
from engine.tractor.hand_report import hand_doc, team_of
from engine.tractor.knowledge import SeatKnowledge, SeenPlay
from engine.tractor.order import Trump, context
from engine.tractor.proofs import (
    Proof,
    audit_follows,
    follow_proofs,
    hand_size_proofs,
    register_follow,
    throw_proofs,
)
from engine.tractor.rules import Rules
from engine.tractor.trick import winner_of

__all__ = ["RULES_DOC", "Referee", "Violation"]


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

    def next_hand(self) -> dict[str, Any] | None:
        """The next deal's ``hand_start`` fields as the last deal's ruled outcome says (its
        banker, and the level of the banker's side), or None once a side passed its last
        level. Without a ruled outcome the declarations decide the banker (None here)."""
        h, last = self._last_deal()
        out = last.get("outcome") or {}
        if out.get("game_over"):
            return None
        banker, nb = last.get("banker"), out.get("next_banker")
        if isinstance(nb, int):
            nxt: int | None = nb
        elif isinstance(banker, int) and nb in ("partner", "next"):
            nxt = (banker + (2 if nb == "partner" else 1)) % len(self.seats)
        else:
            nxt = None
        levels = last.get("levels_after") or []
        team = next((i for i, t in enumerate(self.teams) if nxt in t), None)
        level = str(levels[team]) if team is not None and team < len(levels) else None
        if level is None:
            level = str(last.get("trump", {}).get("level") or "2") if last else "2"
        number = h.hand if h is not None else 0
        return {"hand": int(number or len(self.hands)) + 1, "banker": nxt, "level": level}

    def match_result(self) -> dict[str, Any]:
        """``match_end``'s ``result``: deals played, each team's level, the winning team (the
        side that passed its last level; None before)."""
        h, last = self._last_deal()
        out = last.get("outcome") or {}
        winner = None
        if h is not None and out.get("game_over"):
            winner = team_of(h, self.teams, out["side"])
        levels = list(last.get("levels_after") or [])
        return {"hands": len(self.hands), "levels": levels, "winner": winner}

    def _last_deal(self) -> tuple[HandState | None, dict[str, Any]]:
        """The last deal and its report document (none yet: None and ``{}``)."""
        if not self.hands:
            return None, {}
        return self.hands[-1], self._hand_doc(self.hands[-1])

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
        seq, type_ = ev.get("seq"), ev.get("type")
        self.errors.append({"seq": seq, "type": type_, "problem": problem})
        self._out.append({"kind": "error", "seq": seq, "type": type_, "problem": problem})

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
                h.banker = banker_of(late)

    def _on_declare(self, ev: Event) -> None:
        h = self._hand(ev)
        if h is not None:
            h.declares.append((ev["seq"], int(ev["seat"]), cards_of(ev)))

    def _on_trump(self, ev: Event) -> None:
        h = self._hand(ev)
        if h is None:
            return
        late = bool(h.tricks) and h.trump_unknown and h.hand not in self._late_trump
        h.trump = Trump(level=h.level, suit=ev["suit"])
        h.trump_seq = ev["seq"]
        if "banker" in ev:
            h.banker = banker_of(ev)
        if not late:
            self._out.append(self._trump_ruling(h))
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

    def _on_match_reopen(self, ev: Event) -> None:
        """A head referee reopened the match: nothing to judge; the next deal is judged as any."""

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
        h.seats[seat].show(cards_of(ev))
        self._recheck(h, seat, None, ev, "audit")

    def _on_bottom_reveal(self, ev: Event) -> None:
        h = self.hands[-1] if self.hands else None
        if h is None:
            self._error(ev, "bottom_reveal before any deal")
            return
        h.bottom = cards_of(ev)
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
        self._prove(h, audit_follows(h, trump, self.rules), ev, "audit")
        self._recheck_throws(h, None, ev, "audit")
        if self.rules.throw.against == "unplayed" and h.bottom is None:
            return  # the bottom still counts for these throws: judged at its reveal
        h.audited += len(h.throws)
        h.throws.clear()

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
        cards = cards_of(ev)
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
                register_follow(h, cur, rec, index, trump, self.rules)
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
        self._out.append(self._trump_ruling(h))
        return trump

    @staticmethod
    def _trump_ruling(h: HandState) -> Ruling:
        """The deal's trump and banker as the referee took them (from a ``trump`` event or the
        declarations), or ``trump: null, unknown: true``: what the views show as the trump."""
        known = h.trump is not None
        return {
            "kind": "trump",
            "hand": h.hand,
            "trump": {"level": h.trump.level, "suit": h.trump.suit}
            if h.trump is not None
            else None,
            "unknown": not known,
            "banker": h.banker,
            "at_seq": h.trump_seq if known else None,
        }

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

    def _recheck(self, h: HandState, seat: int, rec: PlayRec | None, ev: Event, how: str) -> None:
        """Re-judge what ``seat``'s newly seen cards can prove: its own earlier follows, and
        other seats' throws."""
        trump = h.trump
        if trump is None:
            return
        ctx = context(trump, self.rules)
        new_cards = rec.cards if rec is not None else list(h.seats[seat].shown)
        suits = {ctx.info[c].suit for c in new_cards}
        skip = rec.seq if rec is not None else None
        found = follow_proofs(h, seat, suits, skip, trump, self.rules, ev.get("evidence"))
        self._prove(h, found, ev, how)
        self._recheck_throws(h, seat, ev, how, suits)

    def _recheck_throws(
        self, h: HandState, seat: int | None, ev: Event, how: str, suits: set[str] | None = None
    ) -> None:
        if h.trump is not None:
            found = throw_proofs(h, seat, suits, h.trump, self.rules, ev.get("evidence"))
            self._prove(h, found, ev, how)

    def _prove(self, h: HandState, proofs: list[Proof], ev: Event, how: str) -> None:
        """Each proof as a violation, proven by ``ev``."""
        for p in proofs:
            self._violate(
                h, p.rule, p.seat, p.at_seq, ev["seq"], p.evidence, how, p.detail, count=p.count
            )

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
        self._prove(h, hand_size_proofs(h, self.rules, ev["seq"]), ev, "audit")

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
        self._out.append(self._violation_ruling(v))

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

    def _violation_ruling(self, v: Violation) -> Ruling:
        # the doc's keys are RulingFields' violation fields (Violation.as_dict)
        return cast(Ruling, {"kind": "violation", **self._violation_doc(v)})

    def _hand_doc(self, h: HandState) -> dict[str, Any]:
        return hand_doc(h, self.rules, self.teams, self._violation_doc)

    def _score(self, h: HandState) -> None:
        """Points, bottom and level outcome of a finished deal."""
        doc = self._hand_doc(h)
        h.result = doc
        out = doc["outcome"]
        if out is not None:
            levels = list(h.levels_before)
            b_team = team_of(h, self.teams, "banker")
            a_team = team_of(h, self.teams, "attackers")
            if b_team is not None and a_team is not None:
                levels[b_team] = str(out["banker_level"])
                if out["side"] == "attackers":
                    levels[a_team] = str(out["new_level"])
                else:
                    levels[b_team] = str(out["new_level"])
            self.levels = levels
            h.levels_after = list(levels)
            doc["levels_after"] = list(levels)
        self._out.append(self._hand_ruling(h))

    @staticmethod
    def _hand_ruling(h: HandState) -> Ruling:
        """A scored deal's ruling: its outcome, the attackers' points and the bottom."""
        doc = h.result or {}
        return {
            "kind": "hand",
            "hand": h.hand,
            "outcome": doc.get("outcome"),
            "attacker_points": doc.get("attacker_points"),
            "bottom": doc.get("bottom"),
            "levels_after": h.levels_after,
            "banker": h.banker,
        }

    def _settled(self) -> dict[tuple[Any, ...], Ruling]:
        """Every trick and deal result the referee has ruled, keyed by what it is about: what a
        re-judgement compares to tell the views which results changed."""
        out: dict[tuple[Any, ...], Ruling] = {}
        for h in self.hands:
            for t in h.tricks:
                if t.winner is not None:
                    out[("trick", h.hand, t.index + 1)] = {
                        "kind": "trick",
                        "hand": h.hand,
                        "trick": t.index + 1,
                        "winner": t.winner,
                        "points": t.points,
                    }
            if h.trump is not None or h.trump_unknown:
                out[("trump", h.hand)] = self._trump_ruling(h)
            if h.result is not None:
                out[("hand", h.hand)] = self._hand_ruling(h)
        return out

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
        settled = self._settled()
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
                out.append(fresh._violation_ruling(v))
        for key, ruling in fresh._settled().items():  # tricks and deals whose result moved
            if settled.get(key) != ruling:
                out.append({**ruling, "by_seq": by_seq})
        self.__dict__.update(fresh.__dict__)
        self._out = out
