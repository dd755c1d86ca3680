"""Observations checked against the rules → match record events, or an honest "unsure".

The camera is fallible and the referee must never accuse on a misread. So each read is checked
against what the cards themselves allow: no more copies of a card than there are decks (no
third 7H with two decks), the seat whose turn it is, and as many cards as the lead requires.
A read that fails a check, or one the recognizer scored low, is still written as the play (its
best candidate, so the turn order keeps going) but followed at once by a ``needs_referee``
event naming the candidates and the reason; the referee's rulings on it stay provisional until
a human settles it.

Over 600 lines on purpose: every check reads and updates one play-by-play state (the trick,
the cards seen, the pending follow); split up, each part would reach into the others'.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from vision.tracking import BACK, Observation

log = logging.getLogger(__name__)


LATE_HAND = 0.85  # share of the hands' cards seen played from which a partial reveal counts


@dataclass
class Unsure:
    """Why a written event needs a referee, and what else it could have been."""

    reason: str
    candidates: list[dict[str, Any]]
    detail: str


@dataclass
class Decision:
    """A record event to write (without ``v``/``seq``/``t``), maybe with an ``Unsure``."""

    event: dict[str, Any]
    observation: Observation | None
    unsure: Unsure | None = None
    ref_previous: bool = False  # a correction of the last event written for this seat/area
    flags: Decision | None = None  # a needs_referee or correction about that earlier decision
    written_seq: int | None = None  # set by the writer once the event has its seq
    scores: tuple[float, ...] = ()  # a play's per-card recognizer scores
    doubted: bool = False  # a later read already sent it to the referee


def camera_fix(why: str, **fields: Any) -> dict[str, Any]:
    """A ``correction`` event by the camera of its own earlier read (``ref`` is set when
    it is written)."""
    return {"type": "correction", "by": "camera", "why": why, **fields}


def with_reads(ev: dict[str, Any], obs: Observation, cards: Sequence[str]) -> dict[str, Any]:
    """``ev`` with the record's optional ``reads`` (where each written card lies in the frame,
    docs/record-format.md) when the tracker located them: one read per card copy written."""
    left = Counter(cards)
    reads = []
    for r in obs.reads:
        if r.box is not None and left[r.card] > 0:
            left[r.card] -= 1
            read: dict[str, Any] = {"card": r.card, "box": list(r.box), "score": round(r.score, 3)}
            if r.history:
                read["history"] = [[f, c, round(s, 3)] for f, c, s in r.history]
            reads.append(read)
    return {**ev, "reads": reads} if reads else ev


@dataclass
class Trick:
    leader: int | None
    plays: list[tuple[int, int]] = field(default_factory=list)  # (seat, number of cards)
    decisions: list[Decision] = field(default_factory=list)
    swept_short: bool = False  # swept off the table before every play was read

    @property
    def lead_count(self) -> int | None:
        return self.plays[0][1] if self.plays else None


@dataclass
class Pending:
    """A follow laid with fewer cards than the lead needs: wait for the rest of it."""

    seat: int
    cards: list[str]
    scores: list[float]
    obs: Observation
    noted: list[tuple[str, str]] = field(default_factory=list)  # doubts found as it was laid


class Fusion:
    """The play-by-play state the checks need; fed observations, returns decisions.

    ``next_leader`` (optional) tells who leads the next trick (the referee knows who won).
    ``banker`` is the configured banker; when it is None the declarations decide it
    (``banker_rule``: ``first_declarer``, or ``last_declarer``/``overcaller`` for the last).
    """

    def __init__(
        self,
        n_seats: int,
        decks: int,
        min_score: float,
        banker: int | None = None,
        next_leader: Callable[[], int | None] | None = None,
        banker_rule: str = "first_declarer",
        bottom_size: int | None = None,
        turns: bool = True,
        level: str | None = None,
        extra_checks: Callable[[int, list[str]], list[tuple[str, str]]] | None = None,
        answered: Callable[[], tuple[int, list[str]] | None] | None = None,
    ) -> None:
        self.n = n_seats
        self.decks = decks
        self.min_score = min_score
        self.banker = banker
        self.next_leader = next_leader or (lambda: None)
        self.phase = "deal"  # deal → play → done
        self.seen: Counter[str] = Counter()  # cards played (or revealed) so far this hand
        self.played: list[Decision] = []  # this hand's plays, for doubts found later
        self.trick = Trick(leader=None)
        self.pending: Pending | None = None
        self.bury_count: int | None = None
        self.bury: Decision | None = None  # the bury as written (a reveal may correct it)
        self.last_leader_seq_ready = False
        self.checks_failed: Counter[str] = Counter()
        self.banker_rule = banker_rule
        self.bottom_size = bottom_size
        self.turns = turns  # 80-points: fixed order, the lead sets the count (Gouji: neither)
        self.level = level  # a declaration shows level cards or jokers, nothing else
        if not turns:
            self.phase = "play"  # Gouji: no declaring and no bottom, the hand opens with a play
        self.declarers: list[int] = []
        self.cleared: set[int] = set()  # seats whose area was cleared since they last played
        self.extra_checks = extra_checks  # a game's own checks of a play (fusion.answers)
        self.answered = answered  # the set a play answers, doubted with an answer that disagrees

    def bury_seat(self) -> int | None:
        """Who buries: the configured banker, else the one the declarations made."""
        if self.banker is not None:
            return self.banker
        if not self.declarers:
            return None
        return self.declarers[0] if self.banker_rule == "first_declarer" else self.declarers[-1]

    # --- checks ---------------------------------------------------------------------------

    def _impossible(self, cards: Sequence[str]) -> list[str]:
        """Cards of which this read would make more copies than the decks hold."""
        add = Counter(cards)
        return sorted(c for c, k in add.items() if c != BACK and self.seen[c] + k > self.decks)

    def _unsure(
        self,
        cards: list[str],
        scores: Sequence[float],
        problems: list[tuple[str, str]],
        whole: tuple[list[str], Sequence[float]] | None = None,
    ) -> Unsure | None:
        """Why the read needs a referee (None: it holds). ``whole``: the whole read (cards and
        scores), when ``cards`` left some of it out: the referee's second candidate."""
        low = [c for c, s in zip(cards, scores, strict=False) if s < self.min_score]
        if low:
            problems = [("low_confidence", f"low recognizer score on {' '.join(low)}"), *problems]
        if not problems:
            return None
        conf = min(scores) if scores else 0.0
        for reason, _ in problems:
            self.checks_failed[reason] += 1
        candidates = [{"cards": cards, "confidence": round(float(conf), 3)}]
        if whole is not None and whole[0] != cards:
            candidates.append({"cards": whole[0], "confidence": round(float(min(whole[1])), 3)})
        return Unsure(
            reason=problems[0][0], candidates=candidates, detail="; ".join(d for _, d in problems)
        )

    # --- observations -------------------------------------------------------------------

    def feed(self, obs: Observation) -> list[Decision]:
        if obs.kind == "appeared" and obs.seat is not None:
            return self._appeared(obs)
        if obs.kind == "cleared" and obs.seat is not None:
            out: list[Decision] = []
            if self.pending is not None and self.pending.seat == obs.seat:
                out = self._flush_pending()  # swept: the short follow was all of it
            self.cleared.add(obs.seat)
            return out
        if obs.area == "centre" or obs.seat is None:
            return self._centre(obs)
        if obs.kind == "changed" and self.phase == "play":
            # an area's cards changed under us (a card replaced?): never guess which read is right
            cards = list(obs.cards)
            un = Unsure(
                "changed",
                [{"cards": cards, "confidence": round(min(obs.scores, default=0.0), 3)}],
                f"seat {obs.seat}: cards changed from {' '.join(obs.before)} to {' '.join(cards)}",
            )
            self.checks_failed["changed"] += 1
            ev = {"type": "play", "seat": obs.seat, "cards": cards or ["back"]}
            if not cards:
                return []
            return [Decision(ev, obs, un)]
        return []

    def _appeared(self, obs: Observation) -> list[Decision]:
        seat = obs.seat
        assert seat is not None
        cards, scores = list(obs.cards), list(obs.scores)
        noted: list[tuple[str, str]] = []
        if BACK in cards:
            # a face-down card in a seat area: cards the camera cannot read. Only the faces
            # are written, and the play goes to a referee; backs alone are no play to write.
            faces = [c for c in cards if c != BACK]
            if self.phase != "play":
                return []
            n = len(cards) - len(faces)
            log.warning("seat %d: %d face-down card(s) in its area", seat, n)
            if not faces:
                self.checks_failed["face_down"] += 1
                return []
            noted.append(("face_down", f"{n} face-down card(s) beside {' '.join(faces)}"))
            cards, scores = faces, [s for c, s in zip(cards, scores, strict=True) if c != BACK]
        if self.phase == "deal" and not self._could_declare(cards):
            # not a declaration: the bottom was buried unseen and play has begun
            self.checks_failed["bury_unseen"] += 1
            log.warning("seat %d laid %s before any bury was seen: play has begun", seat, cards)
            self.phase = "play"
            self.trick = Trick(leader=self.bury_seat())
        if self.phase == "deal":
            problems = []
            bad = self._impossible(cards)
            if bad:
                problems.append(
                    ("impossible", f"more copies than {self.decks} decks: {' '.join(bad)}")
                )
            self.declarers.append(seat)
            ev = {"type": "declare", "seat": seat, "cards": cards}
            return [Decision(ev, obs, self._unsure(cards, scores, problems))]
        if self.phase != "play":
            return []
        out: list[Decision] = []
        # more cards from the seat that is completing a short follow
        if self.pending is not None:
            if self.pending.seat == seat:
                self.pending.cards += cards
                self.pending.scores += scores
                need = self.trick.lead_count or 0
                if len(self.pending.cards) < need:
                    return []
                p, self.pending = self.pending, None
                return self._play(seat, p.cards, p.scores, obs, p.noted + noted)
            out += self._flush_pending()
        # more cards from the leader before anyone followed: the lead was not complete
        if (
            self.turns
            and len(self.trick.plays) == 1
            and self.trick.plays[0][0] == seat
            and not self._trick_complete()
        ):
            return out + self._extend_lead(seat, cards, scores, obs, noted)
        if self._swept_short():
            out += self._short_trick(obs)
        if self._trick_complete():
            self._new_trick()
        lead = self.trick.lead_count if self.turns else None
        if lead is not None and len(cards) < lead and self._expected() == seat:
            self.pending = Pending(seat, cards, scores, obs, noted)
            return out
        return out + self._play(seat, cards, scores, obs, noted)

    def wanted(self, seat: int) -> int | None:
        """How many cards the seat's next play must have, when the rules say (a follower in
        fixed turn order: the lead's count, less any short follow it is completing)."""
        if not self.turns or self.phase != "play":
            return None
        lead = self.trick.lead_count
        if self.pending is not None and self.pending.seat == seat and lead is not None:
            return lead - len(self.pending.cards)
        if lead is None or self._trick_complete() or self._expected() != seat:
            return None
        return lead

    def expects_reveal(self) -> bool:
        """Late in the hand: the next faces in the centre are likely the bottom turned up."""
        return self.phase == "play" and self.bottom_size is not None and self._all_played(LATE_HAND)

    def _all_played(self, share: float = 1.0) -> bool:
        """Whether ``share`` of the cards dealt to the hands were seen played."""
        if self.bottom_size is None:
            return True
        total = self.decks * 54 - self.bottom_size
        return sum(self.seen.values()) >= share * total

    def _could_declare(self, cards: Sequence[str]) -> bool:
        if self.level is None:
            return True
        return all(c in ("BJ", "SJ") or c[:-1] == self.level for c in cards)

    def _expected(self) -> int | None:
        if not self.turns or self.trick.leader is None:
            return None
        return (self.trick.leader + len(self.trick.plays)) % self.n

    def _trick_complete(self) -> bool:
        return len(self.trick.plays) >= self.n

    def _swept_short(self) -> bool:
        """The trick's cards were swept off the table before every seat's play was read."""
        seats = {s for s, _ in self.trick.plays}
        if self.trick.swept_short or not self.turns or self._trick_complete():
            return False
        return bool(seats) and seats <= self.cleared

    def _short_trick(self, obs: Observation) -> list[Decision]:
        """A trick swept with plays missing: the camera missed a play, so the trick's plays
        were checked against an incomplete trick. Each is flagged (after the fact). The
        plays still count toward the trick (the referee's record has no trick boundaries:
        a referee restores the missed play)."""
        self.checks_failed["trick_short"] += 1
        self.trick.swept_short = True
        k = len(self.trick.plays)
        why = f"the trick was swept with {k} of {self.n} plays read: a play was missed"
        return self._flag_late(self.trick.decisions, obs, "trick_short", why)

    def _new_trick(self) -> None:
        self.trick = Trick(leader=self.next_leader())

    def _play(
        self,
        seat: int,
        cards: list[str],
        scores: list[float],
        obs: Observation,
        noted: Sequence[tuple[str, str]] = (),
    ) -> list[Decision]:
        problems: list[tuple[str, str]] = list(noted)
        if self.trick.swept_short:
            why = "laid after its trick was swept short: a play was missed, the turn is unknown"
            problems.append(("trick_short", why))
        expected = self._expected()
        if expected is not None and seat != expected:
            problems.append(
                ("out_of_turn", f"cards in seat {seat}'s area, seat {expected} to play")
            )
        need = self.trick.lead_count if self.turns else None
        whole = (cards, scores)
        trimmed = self._trim(cards, scores, need) if need is not None else None
        if trimmed is not None:
            # more cards than the lead, and the ones too many are unsure reads (a face's
            # middle or a corner seen twice): write the sure ones, the referee sees both
            cards, scores, left = trimmed
            problems.append(("low_confidence", f"unsure {' '.join(left)} left out: lead of {need}"))
        elif need is not None and len(cards) != need:
            problems.append(("count", f"read {len(cards)} card(s), the lead has {need}"))
        bad = self._impossible(cards)
        if bad:
            problems.append(("impossible", f"more copies than {self.decks} decks: {' '.join(bad)}"))
        disputed: list[Decision] = []  # the set answered, when this answer's count disagrees
        if self.extra_checks is not None:
            extra = self.extra_checks(seat, cards)
            problems += extra
            standing = self.answered() if extra and self.answered is not None else None
            if standing is not None:
                disputed = [
                    d
                    for d in self.played[::-1]
                    if d.event.get("seat") == standing[0] and d.event.get("cards") == standing[1]
                ][:1]
        if self.trick.leader is None:
            self.trick.leader = seat
        self.cleared.discard(seat)
        self.trick.plays.append((seat, len(cards)))
        self.seen.update(c for c in cards if c not in bad)
        ev = {
            "type": "play",
            "seat": seat,
            "cards": cards,
            "confidence": round(float(min(scores, default=0.0)), 3),
        }
        ev = with_reads(ev, obs, cards)
        unsure = self._unsure(cards, scores, problems, whole)
        d = Decision(ev, obs, unsure, scores=tuple(scores))
        late = self._doubt_earlier(obs, bad, out_of_turn=expected not in (None, seat))
        why = "a later answer's card count disagrees with this set: it may be misread"
        late += self._flag_late(disputed, obs, "later_doubt", why)
        self.trick.decisions.append(d)
        self.played.append(d)
        fixed = self._trim_lead(obs) or self._fit_to_trick(obs)
        return [d, *late, *fixed, *self._count_conflict(obs)]

    def _doubt_earlier(
        self, obs: Observation, bad: Sequence[str], out_of_turn: bool
    ) -> list[Decision]:
        """Plays written as sure that a new read proves doubtful, flagged after the fact:
        a card with more copies than the decks hold means one of its reads is wrong, maybe
        an earlier one; a play out of turn means the trick was not seen as it was laid, so
        its earlier plays passed checks made against the wrong trick."""
        out: list[Decision] = []
        for c in sorted(set(bad)):
            why = f"a later read makes more copies of {c} than {self.decks} decks hold"
            earlier = [d for d in self.played if c in d.event.get("cards", [])]
            out += self._flag_late(earlier, obs, "later_doubt", why)
        if out_of_turn:
            why = "a later play came out of turn: this trick was not seen as it was laid"
            out += self._flag_late(self.trick.decisions, obs, "later_doubt", why)
        return out

    def _trim(
        self, cards: list[str], scores: Sequence[float], need: int
    ) -> tuple[list[str], list[float], list[str]] | None:
        """More reads than ``need``, and all beyond the ``need`` surest under the sure line:
        (the surest ``need`` cards in their order, their scores, the cards left out)."""
        order = sorted(range(len(cards)), key=lambda i: -scores[i])
        if len(cards) <= need or any(scores[i] >= self.min_score for i in order[need:]):
            return None
        keep = sorted(order[:need])
        left = [c for i, c in enumerate(cards) if i not in keep]
        return [cards[i] for i in keep], [scores[i] for i in keep], left

    def _trick_read_whole(self) -> bool:
        """A trick in fixed turn order with every seat's play read: its counts can be compared."""
        return self.turns and len(self.trick.plays) == self.n and bool(self.trick.decisions)

    def _trim_lead(self, obs: Observation) -> list[Decision]:
        """Every follower laid the same number of cards, fewer than the lead was read with,
        and the lead's reads beyond that many are unsure: the lead was its sure cards.
        Corrected by the camera after the fact (the lead stays flagged for its doubt)."""
        if not self._trick_read_whole():
            return []
        lead = self.trick.decisions[0]
        counts = {k for _, k in self.trick.plays[1:]}
        cards = list(lead.event.get("cards", []))
        if lead.event.get("type") != "play" or len(counts) != 1 or len(lead.scores) != len(cards):
            return []
        n = counts.pop()
        trimmed = self._trim(cards, lead.scores, n)
        if trimmed is None:
            return []
        kept, _, left = trimmed
        self.seen.subtract(c for c in left if self.seen[c] > 0)
        self.trick.plays[0] = (self.trick.plays[0][0], n)
        why = f"every follower laid {n} card(s); the lead's unsure {' '.join(left)} left out"
        return [Decision(camera_fix(why, cards=kept), obs, flags=lead)]

    def _fit_to_trick(self, obs: Observation) -> list[Decision]:
        """A trick read whole where most plays have ``n`` cards, and a play read one card off
        in the way the camera errs with identical cards: ``n - 1`` cards with one left
        without its copy (a pair's lower card showed only a strip: most likely that pair),
        or ``n + 1`` with one card read twice (one corner seen twice: most likely one copy).
        The camera corrects the play and sends it to a referee (its read as it was stays
        in the record). Only against a majority, or a tie of ``n`` and ``n - 1``: a lead read
        with a card too many must not turn every single that follows it into a pair."""
        if not self._trick_read_whole():
            return []
        counts = [k for _, k in self.trick.plays]
        n, most = Counter(counts).most_common(1)[0]
        if most <= self.n / 2:
            # no majority: a tie between the largest count and one fewer goes to the
            # largest (cards are missed far more often than invented); nothing is dropped
            top = max(counts)
            if set(counts) != {top, top - 1} or counts.count(top) * 2 < self.n:
                return []
            n = top
        out: list[Decision] = []
        for i, d in enumerate(self.trick.decisions):
            cards = list(d.event.get("cards", []))
            if d.event.get("type") != "play" or BACK in cards:
                continue
            tally = Counter(cards)
            odd = [c for c, k in tally.items() if k % 2]
            twice = [c for c, k in tally.items() if k >= 2]
            if len(cards) == n - 1 and len(odd) == 1 and not self._impossible(odd):
                fixed, why = [*cards, odd[0]], f"{odd[0]} read without its pair"
                self.seen[odd[0]] += 1
            elif len(cards) == n + 1 and len(twice) == 1:
                fixed, why = cards[:], f"{twice[0]} read twice"
                fixed.remove(twice[0])
                self.seen.subtract(c for c in twice if self.seen[c] > 0)
            else:
                continue
            self.trick.plays[i] = (self.trick.plays[i][0], n)
            why = f"most plays of the trick have {n} cards; {why}"
            fix = Decision(camera_fix(why, cards=fixed), obs, flags=d)
            out += [fix, *self._flag_late([d], obs, "count", why)]
        return out

    def _count_conflict(self, obs: Observation) -> list[Decision]:
        """A finished trick whose plays were read with different numbers of cards: every
        play must have the lead's count, so some read is wrong. A card is missed (a pair
        read as one, a card under a hand) far more often than one is invented, so the
        largest count is the likeliest truth: flag each play read with fewer cards, and
        the largest ones too unless most plays agree on it. After the fact, and only the
        plays not flagged already."""
        if not self._trick_read_whole():
            return []
        counts = [k for _, k in self.trick.plays]
        top = max(counts)
        if min(counts) == top:
            return []
        self.checks_failed["trick_count"] += 1
        top_trusted = counts.count(top) > self.n / 2
        read = ", ".join(str(k) for k in counts)
        why = f"the trick's plays were read with {read} card(s); all must have the lead's"
        doubted = [
            d
            for d, k in zip(self.trick.decisions, counts, strict=False)
            if not (k == top and top_trusted)
        ]
        return self._flag_late(doubted, obs, "count", why)

    def _flag_late(
        self, decisions: Sequence[Decision], obs: Observation, reason: str, why: str
    ) -> list[Decision]:
        """needs_referee events about plays already written as sure (each flagged once)."""
        out: list[Decision] = []
        for d in decisions:
            if d.unsure is not None or d.event.get("type") != "play" or d.doubted:
                continue
            d.doubted = True
            candidates = [{"cards": d.event["cards"], "confidence": d.event["confidence"]}]
            ev = {"type": "needs_referee", "candidates": candidates, "reason": reason}
            out.append(Decision(ev, obs, Unsure(reason, candidates, why), flags=d))
        return out

    def _extend_lead(
        self,
        seat: int,
        cards: list[str],
        scores: list[float],
        obs: Observation,
        noted: Sequence[tuple[str, str]] = (),
    ) -> list[Decision]:
        """The leader laid more cards after its play was written: correct the play."""
        bad = self._impossible(cards)
        self.seen.update(c for c in cards if c not in bad)
        whole = list(obs.before) + cards
        self.trick.plays[0] = (seat, len(whole))
        ev = camera_fix("the leader laid more cards after the play was read", cards=whole)
        problems = [
            *noted,
            *([("impossible", f"too many copies of {' '.join(bad)}")] if bad else []),
        ]
        return [Decision(ev, obs, self._unsure(whole, scores, problems), ref_previous=True)]

    def _flush_pending(self) -> list[Decision]:
        if self.pending is None:
            return []
        p, self.pending = self.pending, None
        return self._play(p.seat, p.cards, p.scores, p.obs, p.noted)

    def _centre(self, obs: Observation) -> list[Decision]:
        if obs.kind == "facedown":
            if not (self.phase == "deal" or (self.phase == "play" and not self.seen)):
                return []
            was = self.bury_count
            self.bury_count = obs.count
            self.phase = "play"
            banker = self.bury_seat()
            self.trick = Trick(leader=banker)
            problems: list[tuple[str, str]] = []
            if banker is None:
                problems.append(("unknown_banker", "bury seen but the banker is not known"))
            if self.bottom_size is not None and obs.count != self.bottom_size:
                problems.append(
                    (
                        "count",
                        f"counted {obs.count} face-down cards; the bottom is {self.bottom_size}",
                    )
                )
            low = [s for s in obs.scores if s < self.min_score]
            if low:
                problems.append(("low_confidence", f"{len(low)} face-down card(s) read unsure"))
            un = None
            if problems:
                for reason, _ in problems:
                    self.checks_failed[reason] += 1
                conf = round(float(min(obs.scores, default=0.0)), 3)
                un = Unsure(
                    problems[0][0],
                    [{"cards": [], "confidence": conf}],
                    "; ".join(d for _, d in problems),
                )
            if was is not None:
                why = "the face-down bottom changed before the first play"
                fix = camera_fix(why, count=obs.count)
                return [Decision(fix, obs, un, ref_previous=True)]
            seat = banker if banker is not None else 0
            bury = {"type": "bury", "seat": seat, "count": obs.count}
            self.bury = Decision(with_reads(bury, obs, [BACK] * obs.count), obs, un)
            return [self.bury]
        if obs.kind == "revealed" and self.phase == "play":  # once a hand: then it is over
            complete = self.bottom_size is None or len(obs.cards) == self.bottom_size
            # most of a bottom, when all but a few tricks' cards were seen (some plays may
            # have been misread or missed): the bottom turned up at the end, read in part
            most = 2 * len(obs.cards) >= (self.bottom_size or 0) and self._all_played(LATE_HAND)
            if not complete and not most and not self._all_played():
                # faces in the centre mid-hand that are not a whole bottom: a misread back or
                # a card passing through in a sweep; the bottom is turned up only at the end
                self.checks_failed["early_reveal"] += 1
                return []
            if not complete and self._impossible(obs.cards):
                # part of a bottom read with more copies than the decks hold: backs misread
                # while it is being turned; the whole bottom, read next, is the reveal
                self.checks_failed["impossible_reveal"] += 1
                return []
            swept = Counter(c for d in self.trick.decisions for c in d.event.get("cards", []))
            if obs.cards and Counter(obs.cards) <= swept:
                # the trick just played, swept over the bottom face up: not the bottom (a
                # last trick of as many cards as the bottom would otherwise end the deal)
                self.checks_failed["sweep_over_bottom"] += 1
                return []
            out = self._flush_pending()
            cards, scores = list(obs.cards), list(obs.scores)
            whole = (cards, scores)
            problems = []
            size = self.bottom_size or self.bury_count
            trimmed = self._trim(cards, scores, size - obs.count) if size is not None else None
            if trimmed is not None:  # more faces than the bottom holds, the extra ones unsure
                cards, scores, left = trimmed
                problems.append(
                    ("low_confidence", f"unsure {' '.join(left)} left out of the bottom")
                )
            elif size is not None and len(cards) + obs.count != size:
                problems.append(("count", f"read {len(cards)} bottom card(s) of {size}"))
            elif obs.count:
                problems.append(("count", f"{obs.count} bottom card(s) still face down"))
            bad = self._impossible(cards)
            if bad:
                problems.append(
                    ("impossible", f"more copies than {self.decks} decks: {' '.join(bad)}")
                )
            self.phase = "done"
            ev = with_reads({"type": "bottom_reveal", "cards": cards}, obs, cards)
            reveal = Decision(ev, obs, self._unsure(cards, scores, problems, whole))
            return [
                *out,
                reveal,
                *self._recount_bury(reveal, len(cards) + obs.count, obs),
                *self._doubt_earlier(obs, bad, out_of_turn=False),
                Decision({"type": "hand_end"}, obs),
            ]
        return []

    def _recount_bury(self, reveal: Decision, shown: int, obs: Observation) -> list[Decision]:
        """A bury counted wrong from above (a squared pile shows one back) and a bottom turned
        up whole and sure, with the profile's number of cards: the faces are the better
        count, so the camera corrects the bury (and no wrong-bury ruling rests on a
        miscount). A reveal that is itself in doubt corrects nothing."""
        if (
            self.bury is None
            or reveal.unsure is not None
            or shown != self.bottom_size
            or self.bury_count == shown
        ):
            return []
        self.bury_count = shown
        why = f"the bottom turned up shows {shown} cards"
        return [Decision(camera_fix(why, count=shown), obs, flags=self.bury)]

    def finish(self) -> list[Decision]:
        """End of the stream: a short follow still waiting is written, flagged."""
        return self._flush_pending()
