"""A random legal six-player Gouji deal as a match record, with its ground truth.

The simulator knows every hand; it chooses random legal actions (leads, answers, burns with a
joker plan, 让牌, passes, 亮3 when blocked) and feeds each event to a ``GoujiReferee`` so that
"legal" is the engine's own notion. With ``inject=K`` it also puts up to K illegal plays into the
record (an invalid set, a set that does not beat, a play after a pass, a lead out of turn, an
early 3 under 憋3) and names in the ground truth the ``seq`` where each must be flagged. The same
profile and seed always give the same record.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from typing import Any, cast

from engine.cards import Card, deck
from engine.gouji.plays import RANK_VALUE, Shape, analyse, beats_shape
from engine.gouji.referee import GoujiReferee
from engine.gouji.rules import Rules
from engine.gouji.table import SEATS, Table, duitou
from engine.record import Event, Ruling

NAMES = ["东一", "南二", "西三", "北四", "中五", "外六"]
_JOKER_VALUE = {"BJ": 2, "SJ": 1}


def _value(c: Card) -> int:
    return 16 + _JOKER_VALUE[c.rank] if c.is_joker else RANK_VALUE[c.rank]


class _Sim:
    def __init__(
        self, profile_id: str, seed: int, inject: int, options: Mapping[str, Any] | None = None
    ) -> None:
        self.rules = Rules.load(profile_id, options)
        self.options = dict(options or {})
        self.rng = random.Random(f"{profile_id}/{seed}")
        self.ref = GoujiReferee(self.rules)
        self.events: list[Event] = []
        self.t = 0.0
        self.inject_left = inject
        self.injected: list[dict[str, Any]] = []
        self.legal_violations: list[Ruling] = []
        self.claim: tuple[int, int, Counter[str]] | None = None
        cards = deck(self.rules.deal.decks)
        self.rng.shuffle(cards)
        n = self.rules.deal.hand
        self.hands: list[list[Card]] = [cards[i * n : (i + 1) * n] for i in range(SEATS)]
        if seed % 3 == 2:
            self.stack_for_burning(seed % SEATS)
        self.dealt = [sorted(map(str, h)) for h in self.hands]

    # --- events ------------------------------------------------------------------------------
    def emit(self, type_: str, **fields: Any) -> list[Ruling]:
        self.t += round(self.rng.uniform(0.4, 4.0), 2)
        # unvalidated on purpose: a simulated violation may be any shape the sim injects
        ev = cast(
            Event, {"v": 1, "seq": len(self.events), "t": round(self.t, 2), "type": type_, **fields}
        )
        self.events.append(ev)
        return self.ref.feed(ev)

    @property
    def table(self) -> Table:
        assert self.ref.table is not None
        return self.ref.table

    def play(self, seat: int, cards: list[Card], legal: bool = True) -> bool:
        """Emit a play; remove the cards when the referee accepted it. Returns accepted."""
        seq = len(self.events)
        prev_top = self.table.round.top
        self._track_claim(seat, cards, seq)
        rulings = self.emit(
            "play",
            seat=seat,
            cards=[str(c) for c in cards],
            evidence=f"sim-frame-{seq}",
            confidence=1.0,
        )
        flagged = [
            r for r in rulings if r.get("kind") == "violation" and r["rule"] != "false_claim"
        ]
        if legal and flagged:
            self.legal_violations.extend(flagged)
        if flagged:
            return False
        for c in cards:
            self.hands[seat].remove(c)
        t = self.table if self.ref.table is not None else None
        if t is not None and prev_top is not None and prev_top.seat != seat and not t.over:
            self._maybe_blocked(prev_top.seat)
        return True

    def false_claim(self) -> None:
        """bie3, with injections: a seat claims 「没有任意够级牌」 though it holds some; the
        claim is proven false by the first of its sets that shows 够级 material (L248)."""
        seat = self.rng.randrange(SEATS)
        self.claim = (seat, len(self.events), Counter())
        self.emit("button", seat=seat, what="no_gouji")

    def _track_claim(self, seat: int, cards: list[Card], seq: int) -> None:
        """Independent of the engine: a joker, a 2, 2 A, 2 K, 3 Q, 4 J or 5 10s seen."""
        if self.claim is None or self.claim[0] != seat:
            return
        _, at, seen = self.claim
        seen.update(c.rank for c in cards)
        need = {"A": 2, "K": 2, "Q": 3, "J": 4, "10": 5}
        if seen["BJ"] or seen["SJ"] or seen["2"] or any(seen[r] >= n for r, n in need.items()):
            self.injected.append(
                {"rule": "false_claim", "seat": seat, "at_seq": at, "proven_by_seq": seq}
            )
            self.claim = None
            self.inject_left -= 1

    def _maybe_blocked(self, seat: int) -> None:
        hand = self.hands[seat]
        t = self.table
        top = t.round.top
        blocked = top is not None and top.seat != seat and all(c.rank == "3" for c in hand)
        if self.rules.bie3.enabled and t.in_play(seat) and hand and blocked:
            self.emit("show", seat=seat, cards=[str(c) for c in hand], what="liang3")

    # --- setup -------------------------------------------------------------------------------
    def stack_for_burning(self, seat: int) -> None:
        """Every third seed: swap cards so that ``seat`` holds 5 jokers and few ranks, a hand
        that can burn (random deals almost never can, so burns would go untested)."""
        hand = self.hands[seat]
        others = [s for s in range(SEATS) if s != seat]

        def swap(mine: Card, want: object) -> None:
            for s in others:
                for i, c in enumerate(self.hands[s]):
                    if c.rank == want:
                        self.hands[s][i] = mine
                        hand[hand.index(mine)] = c
                        return

        keep = ["3", "A", "K", "Q"] if self.rules.bie3.enabled else ["A", "K", "Q", "J"]
        jokers = sum(1 for c in hand if c.is_joker)
        for c in [c for c in hand if not c.is_joker and c.rank not in keep]:
            if jokers < 5:
                swap(c, self.rng.choice(["BJ", "SJ"]))
                jokers += 1
            else:
                swap(c, self.rng.choice(keep))

    def buy(self, rank: str, optional: bool = False) -> None:
        """A seat with no card of ``rank`` buys one from its 对头 (paying a 2, a joker or its
        biggest card), else a teammate gives one (C2, §3.2); a lone card is never sold
        (「《单4不得卖》」 L232). 3s under 憋3 must be bought; 4s (开点发4) may be."""
        for buyer in range(SEATS):
            if any(c.rank == rank for c in self.hands[buyer]):
                continue
            if optional and self.rng.random() < 0.5:
                continue

            def spare(s: int) -> list[Card]:
                return [c for c in self.hands[s] if c.rank == rank]

            mates = [s % SEATS for s in (buyer + 2, buyer + 4) if len(spare(s % SEATS)) >= 2]
            others = [s for s in range(SEATS) if s != buyer and len(spare(s)) >= 2]
            if len(spare(duitou(buyer))) >= 2:
                seller, what = duitou(buyer), "buy"
            elif mates:
                seller, what = mates[0], "give"
            elif others:
                seller, what = others[0], "buy"
            else:
                continue
            card = spare(seller)[0]
            self.hands[seller].remove(card)
            self.hands[buyer].append(card)
            if what == "buy":
                pay = [c for c in self.hands[buyer] if c.rank == "2"] or [
                    c for c in self.hands[buyer] if c.is_joker
                ]
                price = pay[0] if pay else max(self.hands[buyer], key=_value)
                self.hands[buyer].remove(price)
                self.hands[seller].append(price)
            self.emit("exchange", seat=seller, to=buyer, count=1, cards=None, what=what)

    # --- choosing sets -----------------------------------------------------------------------
    def groups(self, seat: int) -> dict[str, list[Card]]:
        out: dict[str, list[Card]] = {}
        for c in self.hands[seat]:
            out.setdefault(c.rank, []).append(c)
        return out

    def shape(self, cards: list[Card]) -> Shape | None:
        s = analyse(cards, self.rules)
        return s if isinstance(s, Shape) else None

    def legal(self, seat: int, cards: list[Card]) -> str | None:
        """The kind of play (lead/answer/burn/...) if the engine would accept it, else None."""
        s = self.shape(cards)
        if s is None or s.count > len(self.hands[seat]):
            return None
        v = self.table.judge(seat, s)
        return v.kind if v.rule is None else None

    def flags(self, seat: int, cards: list[Card]) -> str | None:
        """The rule the engine would flag for this play now (None: legal)."""
        s = analyse(cards, self.rules)
        if not isinstance(s, Shape):
            return "invalid_set"
        return self.table.judge(seat, s).rule

    def burn_plan(self, seat: int, rest: list[Card]) -> list[list[Card]] | None:
        """How a burner would play ``rest``: middle sets with one joker each, a last set
        without; None when the hand cannot keep the joker duty."""
        jokers = sorted((c for c in rest if c.is_joker), key=_value, reverse=True)
        twos = [c for c in rest if c.rank == "2"]
        nat: dict[str, list[Card]] = {}
        for c in rest:
            if not c.is_joker and c.rank != "2":
                nat.setdefault(c.rank, []).append(c)
        order = sorted(nat, key=RANK_VALUE.__getitem__, reverse=True)
        if self.rules.bie3.enabled:
            if "3" not in nat:
                return None
            order.remove("3")
            last: list[Card] = nat["3"]
        elif order:
            last = nat[order.pop()]
        else:
            return [rest] if rest else []
        middle = [list(nat[r]) for r in order]
        if twos and not self.rules.sets.tieqian:
            middle.append(list(twos))
            twos = []
        if self.rules.sets.fours_bare and any(m[0].rank == "4" for m in middle):
            return None
        if len(jokers) < len(middle):
            return None
        for m in middle:
            m.append(jokers.pop())
        spare = jokers + twos
        if spare:
            if middle:
                middle[0].extend(spare)
            elif self.rules.bie3.enabled:
                if not any(c.is_joker for c in spare):
                    return None
                middle.append(spare)
            else:
                last = last + spare
        return [*middle, last]

    def choose_lead(self, seat: int) -> list[Card]:
        t, hand = self.table, self.hands[seat]
        if seat in t.burning:
            plan = self.burn_plan(seat, list(hand))
            if plan:
                return plan[0]
        g = self.groups(seat)
        if t.pending[seat] and "4" in g:
            return g["4"]
        bie3 = self.rules.bie3.enabled
        ranks = [r for r in g if r not in ("BJ", "SJ", "2") and not (bie3 and r == "3")]
        if not ranks:
            rest = [c for c in hand if not (bie3 and c.rank == "3")]
            return rest if rest else list(hand)
        r = self.rng.choice(ranks)
        if self.rules.kaidian.fa4 and r == "4" and len(ranks) > 1 and not t.opened[seat]:
            r = self.rng.choice([x for x in ranks if x != "4"])
        cards = list(g[r])
        if len(cards) > 1 and self.rng.random() < 0.3:
            cards = cards[: self.rng.randint(1, len(cards) - 1)]
        bare = (bie3 and r == "3") or (self.rules.sets.fours_bare and r == "4")
        if not bare:
            if self.rng.random() < 0.12 and (g.get("SJ") or g.get("BJ")):
                cards.append((g.get("SJ") or g["BJ"])[0])
            elif self.rules.sets.tieqian and g.get("2") and self.rng.random() < 0.12:
                cards.append(g["2"][0])
        return cards

    def answers(self, seat: int) -> list[list[Card]]:
        """Candidate sets that beat the top, cheapest first (legality checked by the engine)."""
        top = self.table.round.top
        assert top is not None
        ts = top.shape
        g = self.groups(seat)
        jokers = sorted(g.get("BJ", []) + g.get("SJ", []), key=_value, reverse=True)
        cands: list[list[Card]] = []
        floor = ts.rank or 99
        for r in sorted(g, key=lambda x: RANK_VALUE.get(x, 99)):
            if r in ("BJ", "SJ") or RANK_VALUE[r] <= floor:
                continue
            cs = g[r]
            for k in range(0, min(len(jokers), ts.units) + 1):
                need = ts.units - k
                if need < 1 or need > len(cs) + (len(g.get("2", [])) if r != "2" else 0):
                    continue
                body = cs[:need]
                if len(body) < need:
                    if not self.rules.sets.tieqian:
                        continue
                    body = body + g["2"][: need - len(body)]
                cands.append(body + jokers[:k])
        if len(jokers) >= ts.units:
            cands.append(jokers[: ts.units])
        if self.rules.sets.two_big_kill_one != "off" and ts.big == 1 and ts.rank is None:
            bigs = g.get("BJ", [])
            if len(bigs) >= 2:
                cands.append(bigs[:2])
        out = []
        for c in cands:
            s = self.shape(c)
            if s is not None and beats_shape(ts, s, self.rules):
                out.append(c)
        return out

    # --- injections --------------------------------------------------------------------------
    def try_inject(self, seat: int, where: str) -> bool:
        """Maybe put one illegal play by ``seat`` into the record; True if one was put."""
        t, hand = self.table, self.hands[seat]
        rare = where == "lead" and seat in t.burning and seat == t.entitled_leader()
        if self.inject_left <= 0 or self.rng.random() > (0.5 if rare else 0.06):
            return False
        naturals = [c for c in hand if not c.is_joker and c.rank not in ("2", "3")]
        by_rank = Counter(c.rank for c in naturals)
        options: list[tuple[str, list[Card], int]] = []
        if where == "answer" and t.may_answer(seat) and not t.settled():
            top = t.round.top
            assert top is not None
            if len(by_rank) >= 2:
                a, b = list(by_rank)[:2]
                pick = [
                    next(c for c in naturals if c.rank == a),
                    next(c for c in naturals if c.rank == b),
                ]
                options.append(("invalid_set", pick, seat))
            if naturals:
                if top.shape.units >= 2:
                    options.append(("not_beating", [naturals[0]], seat))
                elif top.shape.rank is not None:
                    low = [c for c in naturals if RANK_VALUE[c.rank] <= top.shape.rank]
                    if low:
                        options.append(("not_beating", [low[0]], seat))
        if where == "lead":
            lead = t.entitled_leader()
            if self.rules.bie3.enabled and seat == lead and naturals:
                threes = [c for c in hand if c.rank == "3"]
                if threes:
                    options.append(("early_three", threes[:1], seat))
            if seat == lead and seat in t.burning:
                plan = self.burn_plan(seat, list(hand)) or []
                if len(plan) > 1:
                    bare = [c for c in plan[0] if not c.is_joker]
                    options.append(("burn_no_joker", bare, seat))
            other = [s for s in range(SEATS) if s != lead and t.in_play(s) and self.hands[s]]
            if other:
                o = self.rng.choice(other)
                card = [c for c in self.hands[o] if c.rank != "3"][:1] or self.hands[o][:1]
                options.append(("out_of_turn", card, o))
        if where == "barred" and t.barred(seat) and not t.settled() and naturals:
            options.append(("played_after_pass", [naturals[-1]], seat))
        options = [o for o in options if self.flags(o[2], o[1]) == o[0]]
        if not options:
            return False
        rule, cards, who = self.rng.choice(options)
        seq = len(self.events)
        if self.play(who, cards, legal=False):
            raise AssertionError(f"injected {rule} at seq {seq} was accepted")
        self.injected.append({"rule": rule, "seat": who, "at_seq": seq, "proven_by_seq": seq})
        self.inject_left -= 1
        return True

    # --- the deal ------------------------------------------------------------------------------
    def run(self) -> tuple[list[Event], dict[str, Any]]:
        leader = self.rng.randrange(SEATS)
        self.emit(
            "match_start",
            game="gouji",
            profile=self.rules.id,
            seats=NAMES,
            teams=[[0, 2, 4], [1, 3, 5]],
            levels=["-", "-"],
            **({"options": self.options} if self.options else {}),
        )
        self.emit("hand_start", hand=1, banker=leader, level="-")
        if self.rules.bie3.enabled:
            self.buy("3")
        if self.rules.kaidian.fa4:
            self.buy("4", optional=True)
        if self.rules.kaidian.auto_open_claim and self.inject_left > 0 and self.rng.random() < 0.5:
            self.false_claim()
        if self.rules.kaidian.mingdian and self.rng.random() < 0.4:
            self.emit("button", seat=self.rng.randrange(SEATS), what="mingdian")
        after = [sorted(map(str, h)) for h in self.hands]
        steps = 0
        while self.ref.table is not None and not self.table.over:
            steps += 1
            if steps > 5000:
                raise AssertionError(f"{self.rules.id}: the deal does not end")
            self.step()
        places = self.table.places()
        report = self.ref.report()["hands"][-1]
        self.emit("hand_end", reason="complete")
        truth = {
            "profile": self.rules.id,
            "dealt": self.dealt,
            "hands": after,
            "left": [sorted(map(str, h)) for h in self.hands],
            "finishing_order": places,
            "scores": report["scores"],
            "violations": self.injected,
            "legal_flagged": self.legal_violations,
        }
        return self.events, truth

    def step(self) -> None:
        """One lead, then the answers until the set stands."""
        t = self.table
        for s in range(SEATS):
            if t.in_play(s) and self.try_inject(s, "lead"):
                break
        if self.ref.table is None or t.over:
            return
        lead = t.entitled_leader()
        self.play(lead, self.choose_lead(lead))
        self.answer_cycle()

    def answer_cycle(self) -> None:
        t = self.table
        while not t.over:
            top = t.round.top
            assert top is not None
            if self.burn_phase(top.seat):
                continue
            played = False
            for k in range(1, SEATS):
                x = (top.seat + k) % SEATS
                if t.over:
                    return
                if t.in_play(x) and t.barred(x) and self.try_inject(x, "barred"):
                    continue
                if not t.may_answer(x):
                    continue
                if self.try_inject(x, "answer"):
                    continue
                if (
                    self.rules.flow.rangpai
                    and t.restricted()
                    and x == duitou(top.seat)
                    and self.rng.random() < 0.1
                ):
                    self.emit("button", seat=x, what="yield")
                    if self.burn_phase(top.seat, only=((x + 1) % SEATS, (x + 2) % SEATS)):
                        played = True
                        break
                if x not in t.burning and self.rng.random() < 0.65:
                    cands = [c for c in self.answers(x) if self.legal(x, c)]
                    if cands:
                        pick = cands[0] if self.rng.random() < 0.7 else self.rng.choice(cands)
                        if self.play(x, pick):
                            played = True
                            break
                self.emit("pass", seat=x, what="button")
            if not played:
                if not t.over and not t.settled():
                    raise AssertionError(f"{self.rules.id}: the answer cycle left the set open")
                kou = duitou(top.seat)  # 「上一轮最后发牌者的对头是法定扣牌人」(L35)
                if not t.over and t.in_play(kou) and self.rng.random() < 0.5:
                    self.emit("button", seat=kou, what="kou")
                return

    def burn_phase(self, top_seat: int, only: tuple[int, ...] | None = None) -> bool:
        """Right after a 够级 set: each seat that may burn does so at random, with a plan."""
        t = self.table
        if not t.restricted():
            return False
        order = only or tuple((top_seat + k) % SEATS for k in range(1, SEATS))
        for x in order:
            if not t.may_burn(x) or x in t.burning or self.rng.random() > 0.35:
                continue
            for cand in self.answers(x):
                rest = list(self.hands[x])
                for c in cand:
                    rest.remove(c)
                if not rest or self.legal(x, cand) != "burn" or self.burn_plan(x, rest) is None:
                    continue
                self.emit("button", seat=x, what="burn")
                if self.play(x, cand):
                    return True
        return False


def simulate(
    profile_id: str, seed: int, inject: int = 0, options: Mapping[str, Any] | None = None
) -> tuple[list[Event], dict[str, Any]]:
    """A random legal deal for ``profile_id`` as record events, and its ground truth (hands
    dealt and after the exchanges, finishing order, scores, injected violations with the
    ``seq`` where each must be flagged). ``options`` (``{"deal.decks": 3}``) go to
    ``Rules.load`` and into the ``match_start``, so the record names the rules it was
    dealt under (a house's deck count judged as the sheet's would misjudge every count)."""
    return _Sim(profile_id, seed, inject, options).run()


def simulate_record(
    profile: str, seed: int, *, hands: int = 1, inject: int = 0, kinds: list[str] | None = None
) -> tuple[list[Event], dict[str, Any]]:
    """``engine.games.Game.simulate``: one deal (``hands`` is the 80-points simulator's), the
    simulator's own kinds in turn (``kinds`` too)."""
    del hands, kinds
    return simulate(profile, seed, inject=inject)
