"""The state of one Gouji deal at the table, and what each seat may do next (GOUJI.md C8–C18).

Both the referee (which sees only what lands on the cloth and what the seat buttons say) and the
simulator (which also knows the hands) drive this one state machine, so "legal" means the same
thing to both. Nothing here knows a hand: card counts come from the deal (``rules.deal.hand``
per seat: 36 with the sheets' four decks) and the exchanges.

Seats 0–5 in order of play (counter-clockwise); teams are the even and the odd seats; the 对头 of
seat s is s + 3.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from engine.gouji.plays import Shape, beats_shape, gap, gouji_shape, opens_point, two_big_kill
from engine.gouji.rules import Rules

SEATS = 6


def duitou(seat: int) -> int:
    """The seat opposite (对头 / 对门)."""
    return (seat + 3) % SEATS


def same_team(a: int, b: int) -> bool:
    return a % 2 == b % 2


@dataclass(slots=True)
class PlayRec:
    """One accepted set on the table."""

    seq: int
    seat: int
    cards: list[str]
    shape: Shape
    kind: str  # lead | answer | burn | kill
    dead: bool = False  # a 够死级 set: nobody may answer it


@dataclass(slots=True)
class Round:
    """一轮: from a lead until the cards are turned (扣牌)."""

    leader: int
    plays: list[PlayRec] = field(default_factory=list)
    passes: set[int] = field(default_factory=set)  # passed this round (过牌)
    passes_on_top: set[int] = field(default_factory=set)  # passed since the current top
    yielded: set[int] = field(default_factory=set)  # 让牌 said on the current top

    @property
    def top(self) -> PlayRec | None:
        return self.plays[-1] if self.plays else None


@dataclass(slots=True)
class Burn:
    """One 烧牌: ``seat`` jumped in on ``victim``'s 够级 set."""

    seat: int
    victim: int
    seq: int
    beaten: bool = False  # the burning set itself was beaten (kelamayi: not a success)
    void: bool = False  # killed by the burner's own 对头 where that voids it
    failed: bool = False  # joker duty broken, or an illegal entry proven
    sets: list[Shape] = field(default_factory=list)  # the burner's sets from the burn on


#: the ``what`` of an ``exchange`` that makes it a tribute (docs/record-format.md), and its
#: kind: jin 进贡, huan 还贡 (a card returned)
TRIBUTE_WHAT = {"tribute": "jin", "进贡": "jin", "return": "huan", "还贡": "huan"}


@dataclass(frozen=True, slots=True)
class Tribute:
    """One 进贡 (``kind`` jin) or 还贡 (huan) a referee entered as an ``exchange``: ``count``
    cards from ``seat`` to ``to``; ``cards`` lists them when they were seen (the camera never
    sees it)."""

    seat: int
    to: int
    cards: tuple[str, ...]
    count: int
    kind: str  # jin | huan
    seq: int


def entry_formula(sets: list[Shape]) -> tuple[bool, int, int]:
    """changshi's burn entry: N natural ranks (3…A, 2s and jokers aside) minus J jokers held
    must be ≤ 2 (「除小2和大小鬼外的套数」 L31). ``sets`` are the burner's sets from the burn
    on, which once he is out are exactly his hand at the burn. Returns (ok, N, J)."""
    ranks = {s.rank for s in sets if s.rank is not None and s.rank <= 14}
    jokers = sum(s.big + s.small for s in sets)
    return len(ranks) - jokers <= 2, len(ranks), jokers


@dataclass(slots=True)
class Verdict:
    """What a play is, and the violation it commits if any (``rule`` None when legal)."""

    kind: str  # lead | new_lead | answer | burn | kill
    rule: str | None = None
    why: str = ""
    gap: str = ""  # the sheets do not decide this comparison: ask the human referee


class Table:
    """One deal: card counts, rounds, passes, burns, 开点, 憋3 and the finishing order."""

    def __init__(self, rules: Rules, leader: int | None = 0) -> None:
        self.rules = rules
        self.counts = [rules.deal.hand] * SEATS
        self.finished: list[int] = []  # went out, in order (头科 first)
        self.bottom: list[int] = []  # assigned bottom places, first = 大落
        self.out: set[int] = set()
        self.free_lead = leader is None  # no banker in the record: the first lead decides
        self.leader = leader or 0
        self.round = Round(self.leader)
        self.history: list[Round] = []
        self.burning: dict[int, Burn] = {}
        self.burns: list[Burn] = []
        self.blocks: list[tuple[int, int, int]] = []  # (blocker, victim, seq)
        self.kills: list[tuple[int, int]] = []  # (seat, seq) two-big-kill-one, free kind
        self.opened = [False] * SEATS
        self.open_count = [0] * SEATS
        self.forfeit = [False] * SEATS
        self.pending = [False] * SEATS
        self.last_seat_left: int | None = None
        self.mingdian: list[int] = []  # seats that declared 明点 on their 对门
        self.revolutionary: int | None = None  # changshi: dropped out of the deal (革命)
        self.gousiji: dict[int, int] = {}  # seat → unanswerable 够级 sets left
        self.void = False  # the deal is void (two 革命, or a redeal)
        # who leads when the top seat is out: a 16tiao 接风 claimant, or the burnt player
        # after his burner failed on the lead (「仍由被烧者继续出牌」 L13)
        self.jiefeng_claim: int | None = None
        self.claims: dict[int, tuple[int, Counter[str]]] = {}  # bie3 无够级: seat → (seq, seen)
        self.penalties: list[tuple[int, int, str]] = []  # (seat, points, what) entered fouls
        self.tributes: list[Tribute] = []  # entered before the first set (referee.py)

    # --- derived state -------------------------------------------------------------------
    def in_play(self, seat: int) -> bool:
        return seat not in self.out

    def players_in(self) -> int:
        return SEATS - len(self.out)

    @property
    def over(self) -> bool:
        return self.void or self.players_in() <= 1

    def chaos(self) -> bool:
        """四户乱缠: 头科 and 二科 are out (C14)."""
        return len(self.finished) >= self.rules.flow.chaos_after

    def has_head(self, seat: int) -> bool:
        """有头: the 对头 has not gone out (a failed burner or a blocked seat keeps it 有头);
        a revolutionary's 对头 is 无头 once his 够死级 sets are used or waived (L49)."""
        if duitou(seat) == self.revolutionary:
            return self.gousiji.get(seat, 0) > 0
        return duitou(seat) not in self.finished

    def restricted(self) -> bool:
        """The top set is 够级 and only its 对头 may answer it (C8)."""
        top = self.round.top
        return (
            top is not None
            and gouji_shape(top.shape, self.rules)
            and not self.chaos()
            and self.has_head(top.seat)
        )

    def barred(self, seat: int) -> bool:
        """A pass ends the seat's right this round, except against its 对头 (C9, C14)."""
        top = self.round.top
        if self.chaos() or seat not in self.round.passes:
            return False
        exception = self.rules.flow.pass_duitou_exception
        return not (exception and top is not None and top.seat == duitou(seat))

    def may_answer(self, seat: int) -> bool:
        """May ``seat`` answer the top set normally (not as a burn)?"""
        top = self.round.top
        if top is None or seat == top.seat or not self.in_play(seat) or self.barred(seat):
            return False
        if top.dead:
            return False
        if not self.restricted():
            return True
        return seat == duitou(top.seat) or not self.has_head(seat)

    def may_burn(self, seat: int) -> bool:
        """May ``seat`` burn (烧牌) the top 够级 set (C18, §3.4)?"""
        b = self.rules.burn
        top = self.round.top
        if top is not None and top.dead:
            return self._may_burn_dead(seat)
        if not b.allowed or top is None or not self.restricted() or not self.in_play(seat):
            return False
        if seat in (top.seat, duitou(top.seat)) or not self.has_head(seat):
            return False
        if not b.after_pass and seat in self.round.passes:
            return False
        return self.players_in() >= b.min_players

    def _may_burn_dead(self, seat: int) -> bool:
        """qingdao's 够死级 yields to a burn (「除有烧牌者外」 L254); changshi's does not."""
        top = self.round.top
        b = self.rules.burn
        ok = self.rules.flow.gousiji_top2 > 0 and b.allowed and not self.chaos()
        fresh = b.after_pass or seat not in self.round.passes
        return ok and fresh and top is not None and seat != top.seat and self.in_play(seat)

    def settled(self) -> bool:
        """Every seat that may still answer the top has passed on it: the set stands."""
        top = self.round.top
        if top is None:
            return False
        return all(s in self.round.passes_on_top for s in range(SEATS) if self.may_answer(s))

    def next_in_play(self, seat: int) -> int:
        for k in range(1, SEATS + 1):
            s = (seat + k) % SEATS
            if self.in_play(s):
                return s
        return seat

    def entitled_leader(self) -> int:
        """Who leads next: the seat whose set stood, or, when it went out, its 下家 (接风)."""
        top = self.round.top
        if top is None:
            return self.leader if self.in_play(self.leader) else self.next_in_play(self.leader)
        if self.in_play(top.seat):
            return top.seat
        claim = self.jiefeng_claim
        if claim is not None and self.in_play(claim):
            return claim  # 「申请由自己重新发牌」(L87)
        return self.next_in_play(top.seat)

    def window_open(self, seat: int) -> bool:
        k = self.rules.kaidian
        if len(self.finished) >= k.window:
            return False
        return not (k.close_on_duitou_out and duitou(seat) in self.finished)

    # --- judging ---------------------------------------------------------------------------
    def judge(self, seat: int, shape: Shape) -> Verdict:
        """Classify a valid set played by ``seat`` now and find the first rule it breaks."""
        v = self._judge_turn(seat, shape)
        if v.rule is None:
            v.rule, v.why = self._judge_hand(seat, shape, v.kind)
        return v

    def _judge_turn(self, seat: int, shape: Shape) -> Verdict:
        top = self.round.top
        if top is None:
            lead = self.entitled_leader()
            if self.free_lead:
                return Verdict("lead")
            if seat != lead:
                return Verdict("lead", "out_of_turn", f"seat {lead} holds the lead")
            return Verdict("lead")
        if seat == top.seat:
            return Verdict("new_lead")
        if top.dead:
            if self.may_burn(seat) and beats_shape(top.shape, shape, self.rules):
                return Verdict("burn")
            if self.settled() and seat == self.entitled_leader():
                return Verdict("new_lead")
            return Verdict("answer", "dead_set", "够死级: nobody may answer this set (L49, L254)")
        if self.rules.sets.two_big_kill_one == "free" and two_big_kill(top.shape, shape):
            return Verdict("kill")  # 「二杀一不记过牌，不算烧牌」(L263)
        burner = self.restricted() and seat != duitou(top.seat) and self.has_head(seat)
        if self.settled():
            lead = self.entitled_leader()
            if seat == lead:
                return Verdict("new_lead")
            if not burner:  # a late burn is judged as a burn below
                return Verdict("answer", "out_of_turn", f"the set stood; seat {lead} leads")
        if burner:
            kind = "burn"
            if not self.rules.burn.allowed:
                return Verdict(kind, "no_right", "only the 对头 may answer a 够级 set (C8)")
            if seat in self.round.passes and not self.rules.burn.after_pass:
                return Verdict(kind, "played_after_pass", "过牌既不能打也不能烧 (C9, L9)")
            if self.players_in() < self.rules.burn.min_players:
                why = f"burning needs {self.rules.burn.min_players} players in (L30)"
                return Verdict(kind, "illegal_burn", why)
        else:
            kind = "answer"
            if self.barred(seat):
                return Verdict(kind, "played_after_pass", "a pass ends the right this round (C9)")
        if not beats_shape(top.shape, shape, self.rules):
            if not self.in_play(top.seat) and seat == self.entitled_leader():
                return Verdict("new_lead")  # 接风 after a 底牌 whose passes were not recorded
            unclear = gap(top.shape, shape, self.rules)
            if unclear:
                return Verdict(kind, gap=unclear)  # never accuse on a gap in the sheets
            return Verdict(kind, "not_beating", "same count and strictly higher needed (C6)")
        return Verdict(kind)

    def _judge_hand(self, seat: int, shape: Shape, kind: str) -> tuple[str | None, str]:
        empties = shape.count >= self.counts[seat]
        if self.rules.bie3.enabled:
            if shape.rank == 3 and not empties:
                return "early_three", "3s only as the very last set (憋3, L100)"
            if empties and shape.rank != 3:
                return "last_not_three", "the last set (底牌) must be 3s (憋3, L51)"
        burn = self.burning.get(seat)
        first_needs_joker = not self.rules.burn.joker_exempt_first
        if kind == "burn" and first_needs_joker and not empties and not shape.jokers:
            return "illegal_burn", "a burn needs a joker on every set but the last (L244)"
        duty = burn is not None and self.rules.burn.success != "first_set"
        if duty and kind != "burn" and not empties and not shape.jokers:
            return "burn_no_joker", "a burner attaches a joker to every set but the last (C18)"
        return None, ""

    # --- applying --------------------------------------------------------------------------
    def close_round(self) -> None:
        """扣牌: the top set stood; settle 开点 and first-set burns, start the next round."""
        top = self.round.top
        if top is None:
            return
        s = top.seat
        if top.kind == "burn" and self.rules.burn.success == "first_set":
            self.burning.pop(s, None)  # 「第一把烧死,未被解烧或反烧」: success, duty done (L237)
        if (
            self.in_play(s)
            and (top.kind != "burn" or self.rules.kaidian.burn_sets_open)
            and self.window_open(s)
            and not self.forfeit[s]
            and opens_point(top.shape, self.rules)
        ):
            if self.rules.kaidian.fa4:
                self.pending[s] = True
            else:
                self.opened[s] = True
                self.open_count[s] += 1
        self.history.append(self.round)
        self.leader = self.entitled_leader()
        self.jiefeng_claim = None
        self.round = Round(self.leader)

    def play(self, seat: int, cards: list[str], shape: Shape, kind: str, seq: int) -> list[str]:
        """Apply a legal play; returns events worth a ruling ('finish', 'burn', 'open')."""
        news: list[str] = []
        if kind == "new_lead":
            self.close_round()
        top = self.round.top
        if top is not None and top.kind == "burn":
            b = self._burn_of(top)
            if b is not None:
                b.beaten = True
                if self.rules.burn.void_if_killed_by_duitou and seat == duitou(top.seat):
                    b.void = True  # 「死视为无效烧牌」(L204)
                    self.burning.pop(top.seat, None)
                    news.append("burn_void")
                elif self.rules.burn.success == "first_set":
                    self.burning.pop(top.seat, None)  # decided by the first set alone (L237)
        if top is None:
            self.free_lead = False
            self.round.leader = self.leader = seat
        rec = PlayRec(seq, seat, list(cards), shape, "lead" if top is None else kind)
        if self.gousiji.get(seat, 0) > 0 and gouji_shape(shape, self.rules):
            rec.dead = True  # 「三次够死级的权力」(L49)
            self.gousiji[seat] -= 1
            news.append("gousiji")
        self.round.plays.append(rec)
        self.round.passes_on_top = set()
        self.round.yielded = set()
        self.counts[seat] -= shape.count
        if kind == "burn":
            b = Burn(seat, top.seat if top else seat, seq)
            self.burns.append(b)
            self.burning[seat] = b
            news.append("burn")
        elif kind == "kill":
            self.kills.append((seat, seq))
        if seat in self.burning:
            self.burning[seat].sets.append(shape)
        if self.rules.kaidian.fa4:
            if self.pending[seat] and rec.kind == "lead":
                self.pending[seat] = False
                if shape.rank == 4 and not shape.jokers:
                    self.opened[seat] = True
                    self.open_count[seat] += 1
                    news.append("open")
            elif shape.rank == 4 and not self.opened[seat]:
                self.forfeit[seat] = True  # 「开点前发4，视为放弃开点」(L184)
        if self.counts[seat] <= 0:
            self.finished.append(seat)
            self.out.add(seat)
            if len(self.finished) <= 2 and self.rules.flow.gousiji_top2:
                self.gousiji[duitou(seat)] = self.rules.flow.gousiji_top2  # qingdao (L254)
            self.burning.pop(seat, None)
            news.append("finish")
            self._check_over()
        return news

    def _burn_of(self, rec: PlayRec) -> Burn | None:
        for b in reversed(self.burns):
            if b.seat == rec.seat and b.seq == rec.seq:
                return b
        return None

    def pass_(self, seat: int) -> None:
        self.round.passes.add(seat)
        self.round.passes_on_top.add(seat)

    def started(self) -> bool:
        """Has any set been played in this deal?"""
        return bool(self.history or self.round.plays)

    def no_three(self, seat: int) -> None:
        """kelamayi: 「无3者本把即为大落」, 「不开点而对方开点」(L238)."""
        if self.rules.bie3.no_three_opens_duitou:
            self.opened[seat] = False
            self.forfeit[seat] = True
            self.opened[duitou(seat)] = True
        self.assign_bottom(seat)

    def assign_bottom(self, seat: int) -> None:
        """A failed burner or a blocked seat: out, at the lowest free place (先闷为落)."""
        if seat in self.out:
            return
        self.bottom.append(seat)
        self.out.add(seat)
        self.burning.pop(seat, None)
        if self.round.top is None and self.leader == seat:
            self.leader = self.next_in_play(seat)
        self._check_over()

    def blocked_by(self, seat: int) -> int | None:
        """The seat whose play beat ``seat``'s last set (憋3), or None when that set stood.
        The 亮3 may come late, so earlier rounds are searched too."""
        for rnd in (self.round, *reversed(self.history)):
            plays = rnd.plays
            for i in range(len(plays) - 1, -1, -1):
                if plays[i].seat == seat:
                    return plays[i + 1].seat if i + 1 < len(plays) else None
        return None

    def _check_over(self) -> None:
        if self.players_in() == 1:
            self.last_seat_left = next(s for s in range(SEATS) if self.in_play(s))

    def drop_out(self, seat: int) -> None:
        """changshi 革命: 「即弃牌不在」(L47); his 对头 gets the 够死级 sets (L49)."""
        self.revolutionary = seat
        self.out.add(seat)
        if self.rules.flow.gousiji:
            self.gousiji[duitou(seat)] = self.rules.flow.gousiji
        if self.leader == seat:
            self.leader = self.next_in_play(seat)
        self._check_over()

    def places(self) -> list[int | None]:
        """Seats by place, 头科 first (None where not decided yet): finishers fill from the
        top, assigned places from the bottom, the last seat in play takes the gap. A
        revolutionary is 四科, or 三科 when his teammates took 头科 and 二科 (L49)."""
        slots: list[int | None] = [None] * SEATS
        rev = self.revolutionary
        if rev is not None:
            mates = {s for s in range(SEATS) if same_team(s, rev) and s != rev}
            slots[2 if set(self.finished[:2]) == mates else 3] = rev
        free = [i for i in range(SEATS) if slots[i] is None]
        for seat in self.finished:
            slots[free.pop(0)] = seat
        for seat in self.bottom:
            slots[free.pop()] = seat
        if self.last_seat_left is not None and free:
            slots[free.pop(0)] = self.last_seat_left
        return slots
