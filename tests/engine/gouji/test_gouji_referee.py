"""Hand-written records per rule, each citing the sheet it enforces: the referee flags what the
cards prove, at the play that proves it, and nothing else."""

from __future__ import annotations

from typing import Any

import pytest

from engine.gouji import Rules
from engine.gouji.plays import analyse
from engine.gouji.referee import GoujiReferee
from engine.gouji.table import entry_formula
from engine.record import validate_event


class Deal:
    """A record written by hand: seats 0–5, ``counts`` set through 送 exchanges."""

    def __init__(self, pid: str, banker: int | None = 0, counts: dict[int, int] | None = None):
        self.ref = GoujiReferee(Rules.load(pid))
        self.seq = 0
        self.ev(
            "match_start",
            game="gouji",
            profile=pid,
            seats=["a", "b", "c", "d", "e", "f"],
            teams=[[0, 2, 4], [1, 3, 5]],
            levels=["-", "-"],
        )
        self.ev("hand_start", hand=1, banker=banker, level="-")
        for seat, n in sorted((counts or {}).items()):
            sink = next(s for s in range(6) if s not in (counts or {}))
            self.ev("exchange", seat=seat, to=sink, count=36 - n, what="give", cards=None)

    def ev(self, type_: str, **fields: Any) -> list[dict[str, Any]]:
        e = validate_event({"v": 1, "seq": self.seq, "t": float(self.seq), "type": type_, **fields})
        self.seq += 1
        return self.ref.feed(e)

    def doubt(self, seq: int, cards: list[str]) -> list[dict[str, Any]]:
        """The camera's read ``seq`` awaits a referee (a low-confidence ``needs_referee``)."""
        candidates = [{"cards": cards, "confidence": 0.5}]
        return self.ev("needs_referee", ref=seq, reason="low_confidence", candidates=candidates)

    def play(self, seat: int, cards: str) -> list[dict[str, Any]]:
        return self.ev("play", seat=seat, cards=cards.split(), evidence=f"f{self.seq}")

    def passes(self, *seats: int) -> None:
        for s in seats:
            self.ev("pass", seat=s)

    def rules_flagged(self) -> list[tuple[str, int, int]]:
        return [(v["rule"], v["seat"], v["at_seq"]) for v in self.ref.violations]

    @property
    def t(self) -> Any:
        return self.ref.table


def test_lead_out_of_turn_is_void() -> None:
    d = Deal("gouji-core", banker=0)
    seq = d.seq
    [v] = [r for r in d.play(2, "5S") if r["kind"] == "violation"]
    assert (v["rule"], v["seat"], v["at_seq"], v["proven_by_seq"]) == ("out_of_turn", 2, seq, seq)
    assert v["evidence"] == [f"f{seq}"] and v["penalty"]
    assert d.t.counts[2] == 36  # 错牌不出: the cards go back
    d.play(0, "5S")
    assert len(d.ref.violations) == 1


def test_not_beating_is_withdrawn_and_counts_as_a_pass() -> None:
    # 「须按此张数依次由下家出牌」(L270); 「错牌不出」(L59); jinan 「视为无效出牌」(L181)
    d = Deal("gouji-core")
    d.play(0, "5S 5H")
    d.play(1, "4S 4H")  # lower
    d.play(1, "6S")  # wrong count, and seat 1 already counts as passed
    d.play(2, "5C 5D")  # equal rank does not beat (「点数大的即大」 L247)
    assert [r for r, _, _ in d.rules_flagged()] == [
        "not_beating",
        "played_after_pass",
        "not_beating",
    ]
    d.play(3, "6C 6D")
    assert len(d.ref.violations) == 3


def test_pass_bars_the_round_except_against_duitou() -> None:
    # 「过牌者除“对头牌”外」(L34), 「本轮再无权发牌」(L34)
    d = Deal("gouji-core")
    d.play(0, "5S")
    d.passes(1)
    d.play(2, "6S")
    d.passes(3)
    d.play(4, "7S")  # seat 4 is seat 1's 对头
    d.passes(5, 0)
    d.play(1, "8S")
    assert d.ref.violations == []
    # paodekuai: 「过牌者在这一轮里无权再出牌」(L244): no 对头 exception
    p = Deal("gouji-paodekuai")
    p.play(0, "5S")
    p.passes(1)
    p.play(2, "6S")
    p.passes(3)
    p.play(4, "7S")
    p.passes(5, 0)
    p.play(1, "8S")
    assert p.rules_flagged() == [("played_after_pass", 1, p.seq - 1)]


def test_only_duitou_answers_a_gouji_set_others_burn() -> None:
    # 「只有对头才有资格上牌」(L70), 「除“烧牌”或“无头”外」(L69)
    d = Deal("gouji-changshi")
    d.play(0, "AS AH")  # 2 A: 够级
    assert d.t.restricted() and d.t.may_answer(3) and not d.t.may_answer(1)
    notes = d.play(1, "2S 2H")  # a burn
    assert any(r["kind"] == "burn" for r in notes) and 1 in d.t.burning
    assert d.ref.violations == []


def test_no_burn_after_a_pass() -> None:
    # changshi 「过牌既不能打也不能烧」(L9); abqu 「过牌后不得烧牌」(L266)
    d = Deal("gouji-abqu")
    d.play(0, "AS AH")
    d.passes(1)
    d.play(1, "2S 2H")
    assert d.rules_flagged() == [("played_after_pass", 1, d.seq - 1)]


def test_changshi_burn_needs_five_players_in() -> None:
    # 「如果还有至少5个人未走科」(L30): two seats blocked on 3s leave four in play
    d = Deal("gouji-changshi", counts={2: 2, 4: 2})
    d.play(0, "5S")
    d.play(2, "6S")
    d.play(3, "7S")
    d.ev("show", seat=2, cards=["3S"], what="liang3")
    d.play(4, "8S")
    d.play(5, "9S")
    d.ev("show", seat=4, cards=["3H"], what="liang3")
    assert d.t.bottom == [2, 4] and d.t.players_in() == 4
    d.passes(0, 1, 3)
    d.play(5, "KS KH")  # 够级 from seat 5; only seat 2 (out) could answer
    d.play(0, "AS AH")
    assert d.rules_flagged() == [("illegal_burn", 0, d.seq - 1)]


def test_burner_breaking_the_joker_duty_takes_the_bottom_place() -> None:
    # 「其他每一手牌均需要至少挂1个鬼」(L33); 「烧牌不成即为末位」(L13)
    d = Deal("gouji-core")
    d.play(0, "AS AH")
    d.play(1, "2S 2H")  # burn
    d.passes(4)  # the burner's 对头 lets it stand
    d.play(1, "7S")  # no joker, not the last set
    assert d.rules_flagged() == [("burn_no_joker", 1, d.seq - 1)]
    assert d.t.bottom == [1] and not d.t.in_play(1)
    assert d.t.entitled_leader() == 0  # the burnt player leads on (L13)
    d.play(1, "SJ 7S")
    assert [e["problem"] for e in d.ref.errors] == ["seat 1 is out of the deal and holds no cards"]


def test_burn_with_a_joker_is_fine_and_paodekuai_wants_one_on_the_burn_itself() -> None:
    d = Deal("gouji-core")
    d.play(0, "AS AH")
    d.play(1, "2S 2H")
    d.passes(4)
    d.play(1, "SJ 7S")
    assert d.ref.violations == []
    # paodekuai 「如烧牌，除最后一把其他需把把挂王」(L244)
    p = Deal("gouji-paodekuai")
    p.play(0, "AS AH")
    p.play(1, "2S 2H")
    assert p.rules_flagged() == [("illegal_burn", 1, p.seq - 1)]


def test_burn_killed_by_own_duitou_is_void() -> None:
    # jinan 「烧牌者被对头杀」(L203) 「死视为无效烧牌」(L204)
    d = Deal("gouji-jinan-2010")
    d.play(0, "AS AH")
    d.play(1, "2S 2H")
    notes = d.play(4, "SJ SJ")
    assert any(r["kind"] == "burn_void" for r in notes)
    assert 1 not in d.t.burning and d.t.burns[0].void


def test_changshi_entry_formula() -> None:
    # 「除小2和大小鬼外的套数」 − jokers ≤ 2 (L31)
    r = Rules.load("gouji-changshi")
    sets = [analyse(c, r) for c in ("KS KH", "5S SJ", "6S BJ", "3S 3H")]
    assert entry_formula(sets) == (True, 4, 2)  # type: ignore[arg-type]
    sets = [analyse(c, r) for c in ("KS KH", "5S SJ", "6S", "3S")]
    assert entry_formula(sets) == (False, 4, 1)  # type: ignore[arg-type]


def test_bie3_early_three() -> None:
    # 「不是最后一手牌时不许出3」(L100)
    d = Deal("gouji-tv-bie3")
    d.play(0, "3S")
    assert d.rules_flagged() == [("early_three", 0, d.seq - 1)]
    d.play(0, "5S")  # the leader leads again
    assert len(d.ref.violations) == 1 and d.t.counts[0] == 35


def test_last_set_must_be_threes() -> None:
    # 「每人最后一手牌即底牌必须是3牌」(L51); 「无3者本把即为大落」(L238)
    d = Deal("gouji-changshi", counts={0: 2})
    d.play(0, "5S 5H")
    assert d.rules_flagged() == [("last_not_three", 0, d.seq - 1)]
    assert d.t.bottom == [0]


def test_blocked_on_threes_takes_the_bottom_and_scores() -> None:
    # bie3 「最后走3之前的一手牌被人上牌」(L248) 「称为“被闷”」;
    # 「第一个被闷的人将成为本局牌的“大落”」(L248)
    d = Deal("gouji-bie3", counts={0: 3})
    d.play(0, "5S")
    d.play(1, "6S")
    notes = d.ev("show", seat=0, cards=["3S", "3H"], what="liang3")
    assert [n["kind"] for n in notes] == ["blocked"] and notes[0]["by"] == 1
    assert d.t.bottom == [0] and d.t.blocks == [(1, 0, d.seq - 1)]
    # a 亮3 that does not match the count is an error, never a block
    e = Deal("gouji-bie3", counts={0: 3})
    e.play(0, "5S")
    e.play(1, "6S")
    e.ev("show", seat=0, cards=["3S"], what="liang3")
    assert e.t.bottom == [] and e.ref.errors


def test_kaidian_stands_and_fa4() -> None:
    # bie3: a 够级 set that nobody answers 「使得自己获得出牌权」(L248) opens
    d = Deal("gouji-bie3")
    d.play(0, "AS AH")
    d.passes(3)
    d.play(0, "5S")
    assert d.t.opened[0]
    # changshi: 「如果开点后下道牌不发4，仍不算开点」(L28)
    c = Deal("gouji-changshi")
    c.play(0, "AS AH")
    c.passes(3)
    c.play(0, "5S")
    assert not c.t.opened[0]
    c.passes(1, 2, 3, 4, 5)
    c.play(0, "KS KH")
    c.passes(3)
    c.play(0, "4S 4H")
    assert c.t.opened[0]
    # jinan: 「开点前发4，视为放弃开点」(L184)
    j = Deal("gouji-jinan-2010")
    j.play(0, "4S")
    j.passes(1, 2, 3, 4, 5)
    j.play(0, "AS AH")
    j.passes(3)
    j.play(0, "4H")
    assert j.t.forfeit[0] and not j.t.opened[0]


def test_jiefeng_the_xiajia_leads_after_a_last_set() -> None:
    # paodekuai 「上家的底牌无人灭时」(L245) → 「下家接风后将获得发牌权」(L245)
    d = Deal("gouji-paodekuai", counts={0: 1})
    d.play(0, "5S")
    assert d.t.finished == [0]
    d.passes(1, 2, 3, 4, 5)
    d.play(2, "7S")
    assert d.rules_flagged() == [("out_of_turn", 2, d.seq - 1)]
    d.play(1, "4S")
    assert len(d.ref.violations) == 1
    # without recorded passes the 下家's lead is taken as 接风, never as a failed answer
    q = Deal("gouji-paodekuai", counts={0: 1})
    q.play(0, "5S")
    q.play(1, "4S")
    assert q.ref.violations == []


def test_wutou_and_chaos() -> None:
    # 「无头者所发的任何牌都可灭之」(L40); 四户乱缠: 「可在过牌后再上牌」(L42)
    d = Deal("gouji-core", counts={0: 1, 1: 1})
    d.play(0, "5S")  # 头科: seat 3 is 无头
    d.play(1, "6S")  # 二科: chaos from here
    assert d.t.finished == [0, 1] and d.t.chaos()
    d.passes(2, 3, 4, 5)
    d.play(2, "AS AH")  # 够级, but in chaos anyone answers
    d.passes(3)
    d.play(4, "2S 2H")
    d.play(3, "SJ SJ")  # passed before, plays again: allowed in 乱缠
    assert d.ref.violations == []
    w = Deal("gouji-core", counts={0: 1})
    w.play(0, "5S")
    w.passes(1, 2, 3, 4, 5)
    w.play(1, "AS AH")
    w.play(3, "2S 2H")  # 无头 seat 3 may answer anyone's 够级 (L40)
    assert w.ref.violations == [] and w.t.round.plays[-1].kind == "answer"


def test_two_big_kill_one_per_sheet() -> None:
    # dianshao 「二杀一不记过牌，不算烧牌」(L263): even after a pass, and not a burn
    d = Deal("gouji-dianshao")
    d.play(0, "BJ")
    d.passes(1)
    d.play(1, "BJ BJ")
    assert d.ref.violations == [] and d.t.kills == [(1, d.seq - 1)] and not d.t.burning
    # jinan: the 对头 kills (L205)
    j = Deal("gouji-jinan-2010")
    j.play(0, "BJ")
    j.play(3, "BJ BJ")
    assert j.ref.violations == []
    # changshi: 「不允许两个大花杀一个大花」(L52)
    c = Deal("gouji-changshi")
    c.play(0, "BJ")
    c.play(3, "BJ BJ")
    assert c.rules_flagged() == [("not_beating", 3, c.seq - 1)]


def test_16tiao_dead_set_cannot_be_answered() -> None:
    # 「发牌均为死牌」(L62), 「对头应无条件为之“扣牌”」(L62)
    d = Deal("gouji-16tiao")
    d.play(0, "BJ 5S 5H")
    d.play(3, "BJ BJ 6S")
    assert d.rules_flagged() == [("not_beating", 3, d.seq - 1)]


def test_invalid_set_mixed_ranks() -> None:
    # 「不同点数牌不可混合发出」(L64)
    d = Deal("gouji-core")
    d.play(0, "5S 6S")
    assert d.rules_flagged() == [("invalid_set", 0, d.seq - 1)]


def test_record_errors_are_named_and_the_rest_is_judged(caplog: pytest.LogCaptureFixture) -> None:
    ref = GoujiReferee(Rules.load("gouji-core"))
    out = ref.feed({"v": 1, "seq": 0, "t": 0.0, "type": "play", "seat": 0, "cards": ["5S"]})
    assert out[0]["kind"] == "error" and "before any hand_start" in out[0]["problem"]
    d = Deal("gouji-core", counts={0: 1})
    d.ev("play", seat=0, cards=["5S", "5H"])
    d.ref.feed({"v": 1, "seq": d.seq, "t": 9.0, "type": "play", "seat": 9, "cards": ["5S"]})
    assert [e["problem"] for e in d.ref.errors] == [
        "seat 0 played 2 cards but holds 1",
        "seat 9: expected 0–5",
    ]
    d.seq += 1
    d.play(0, "5S")
    assert d.t.finished == [0] and d.ref.violations == []
    assert "seat 9: expected 0–5" in caplog.text  # logged as well as counted


def test_correction_rejudges_deterministically() -> None:
    d = Deal("gouji-core")
    d.play(0, "5S 5H")
    bad = d.seq
    d.play(1, "4S 4H")
    assert d.rules_flagged() == [("not_beating", 1, bad)]
    new = d.ev("correction", ref=bad, cards=["6S", "6H"], by="ref1", why="camera misread")
    assert new == [] and d.ref.violations == []
    assert d.t.round.top.seat == 1
    again = GoujiReferee(Rules.load("gouji-core"))
    for e in d.ref.events:
        again.feed(e)
    assert again.report() == d.ref.report()


def test_report_and_state_are_json_ready() -> None:
    import json

    d = Deal("gouji-kelamayi")
    d.play(0, "5S")
    d.passes(1, 2, 3, 4, 5)
    state = d.ref.state()["hand"]
    assert state["next_seat"] == 0 and state["counts"][0] == 35
    rep = d.ref.report()
    json.dumps(rep, ensure_ascii=False)
    assert rep["hands"][0]["rounds"][0]["winner"] == 0
    assert rep["unjudged"]


@pytest.mark.parametrize("pid", Rules.ids())
def test_every_profile_judges_a_plain_round(pid: str) -> None:
    d = Deal(pid)
    d.play(0, "6S")
    d.play(1, "7S")
    d.passes(2, 3, 4, 5, 0)
    d.play(1, "8S 8H")
    assert d.ref.violations == [] and len(d.ref.report()["hands"][0]["rounds"]) == 2


def test_tv_bie3_mingdian_before_the_first_round() -> None:
    # 「任何人可以向对叫“明点”」(L113), 「所有牌发完，第一轮出牌前」(L113)
    d = Deal("gouji-tv-bie3")
    d.ev("button", seat=1, what="mingdian")
    d.play(0, "5S")
    d.ev("button", seat=2, what="mingdian")
    assert d.t.mingdian == [1] and "第一轮出牌前" in d.ref.errors[-1]["problem"]
    assert Deal("gouji-core").ev("button", seat=1, what="mingdian")[0]["kind"] == "error"


def test_tiaozhan_asking_counts_costs_a_point() -> None:
    # 「不允许询问对手或同伙剩余张数」(L232), 「当局扣1分」(L232)
    d = Deal("gouji-tiaozhan")
    d.ev("button", seat=4, what="ask_count")
    assert d.rules_flagged() == [("asked_count", 4, d.seq - 1)]
    assert d.t.penalties == [(4, -1, "询问张数")]
    c = Deal("gouji-changshi")  # 「十张之内可以报牌」(L10): asking is allowed
    assert c.ev("button", seat=4, what="ask_count")[0]["kind"] == "count_asked"


def test_entered_fouls_follow_the_sheets_ladder() -> None:
    # jinan 「犯规发生一次警告，第二次扣1分」(L218); dianshao 「违者各扣2分并警告」(L264)
    j = Deal("gouji-jinan-2010")
    j.ev("button", seat=2, what="foul")
    j.ev("button", seat=2, what="foul")
    assert [v["penalty"] for v in j.ref.violations] == ["warning", "-1 points"]
    assert j.t.penalties == [(2, -1, "犯规")]
    d = Deal("gouji-dianshao")
    d.ev("button", seat=2, what="foul")
    assert d.t.penalties == [(2, -2, "犯规")]


def test_kou_by_the_wrong_seat_is_noted_never_a_violation() -> None:
    # 「上一轮最后发牌者的对头是法定扣牌人」(L35); 「别人代扣无效」(L238)
    d = Deal("gouji-kelamayi")
    d.play(0, "5S")
    d.passes(1, 2, 3, 4, 5)
    assert d.ev("button", seat=1, what="kou")[0]["kind"] == "kou_wrong_seat"
    assert d.ev("button", seat=3, what="kou")[0]["kind"] == "kou"
    assert d.ref.violations == []


def test_kelamayi_no_three_gives_the_duitou_the_point() -> None:
    # 「无3者本把即为大落」(L238), 「不开点而对方开点」(L238)
    d = Deal("gouji-kelamayi", counts={0: 1})
    d.play(0, "5S")
    assert d.rules_flagged() == [("last_not_three", 0, d.seq - 1)]
    assert d.t.bottom == [0] and d.t.opened[3] and not d.t.opened[0]


def test_a_fifth_copy_of_a_face_is_a_misread_error() -> None:
    # 4 decks, 「共216张牌」(L247): at most 4 of each face
    d = Deal("gouji-core")
    d.play(0, "5S 5S 5S 5S")
    d.passes(1, 2, 3, 4, 5)
    d.play(0, "5S")
    assert "more than 4 copies of 5S" in d.ref.errors[-1]["problem"]
    assert d.ref.violations == []


def test_gaps_in_the_sheets_go_to_the_human_referee() -> None:
    # C6: 「The seeds do not say how to compare two sets whose joker parts both mix big and
    # small jokers」; jinan: 「对头可挂双大王杀牌」(L206) leaves the natural count open
    d = Deal("gouji-core")
    d.play(0, "BJ SJ 5S")
    notes = d.play(3, "BJ SJ 6S")
    assert [n["kind"] for n in notes] == ["needs_referee"] and d.ref.violations == []
    j = Deal("gouji-jinan-2010")
    j.play(0, "BJ 5S 5H")
    notes = j.play(3, "BJ BJ 6S 6H 6C")
    assert [n["kind"] for n in notes] == ["needs_referee"] and j.ref.violations == []


def test_kelamayi_burn_is_decided_by_its_first_set() -> None:
    # 「第一把烧死,未被解烧或反烧」(L237): afterwards no joker duty is judged
    d = Deal("gouji-kelamayi")
    d.play(0, "AS AH")
    d.play(1, "2S 2H")
    d.passes(4)
    d.play(1, "7S")
    assert d.ref.violations == [] and not d.t.burns[0].beaten


def test_state_shows_who_may_report_counts() -> None:
    # 「持牌人手中剩余牌等于或少于10张」(L37); qingdao 「其手中持牌数量应显示给其他玩家」(L253)
    d = Deal("gouji-qingdao", counts={2: 11})
    d.play(0, "5S")
    d.play(1, "6S")
    d.play(2, "7S")
    state = d.ref.state()["hand"]
    assert state["count_report"] == "always" and state["reportable"] == [2]
    assert (
        Deal("gouji-kelamayi").ref.state()["hand"]["count_report"] == "none"
    )  # 「不进贡,不报牌」(L238)


def test_changshi_revolution_drops_out_and_gives_the_duitou_gousiji() -> None:
    # 「大花、小花、钱均无时」「即弃牌不在」(L47); 「其对头取得三次够死级的权力」(L49)
    d = Deal("gouji-changshi", banker=4)
    d.ev("button", seat=1, what="geming")
    assert not d.t.in_play(1) and d.t.gousiji == {4: 3}
    d.play(4, "AS AH")  # 够死级: nobody may answer, not even by burning
    d.play(0, "2S 2H")
    assert d.rules_flagged() == [("dead_set", 0, d.seq - 1)]
    d.play(4, "KS KH")  # the set stood; seat 4 leads again
    assert d.t.gousiji == {4: 1}
    d.ev("button", seat=4, what="waive")  # 「声明放弃此权力即视为无头」(L49)
    assert not d.t.has_head(4)
    d.play(4, "QS QH QC")  # not dead any more
    d.play(5, "2C 2D 2S")  # seat 4 is 无头: anyone may answer its 够级 set (L40)
    assert len(d.ref.violations) == 1 and d.t.round.plays[-1].kind == "answer"
    d.ev("button", seat=3, what="geming")  # after the first set: refused
    assert "after the first set" in d.ref.errors[-1]["problem"]


def test_changshi_revolutionary_place_and_two_revolutions_void_the_deal() -> None:
    # 「为四科，不影响对方串三户」(L49), 「则革命者视为三科」(L49)
    from engine.gouji.table import Table

    t = Table(Rules.load("gouji-changshi"))
    t.drop_out(1)
    t.finished = [0, 2, 4]
    assert t.places()[:4] == [0, 2, 4, 1]
    t.finished = [3, 5]
    assert t.places()[:3] == [3, 5, 1]
    # 「如同时出现2个(含2个)以上革命者」「则该局作废」(L48)
    d = Deal("gouji-changshi")
    d.ev("button", seat=1, what="geming")
    d.ev("button", seat=2, what="geming")
    assert d.t.void and d.t.over
    d.ev("hand_end", reason="redeal")
    assert d.ref.report()["hands"][0]["scores"] is None


def test_revolution_per_sheet() -> None:
    # tv-bie3 「如有一人革命则重新发牌」(L118)
    d = Deal("gouji-tv-bie3")
    assert d.ev("button", seat=1, what="geming")[0]["kind"] == "redeal" and d.t.void
    # tiaozhan 「造反：禁止造反」, 「违者罚一分」(L232)
    z = Deal("gouji-tiaozhan")
    z.ev("button", seat=1, what="造反")
    assert z.rules_flagged() == [("revolution_banned", 1, z.seq - 1)]
    assert z.t.penalties == [(1, -1, "造反")]
    # 16tiao 「均不允许革命」(L94): refused, no points stated
    s = Deal("gouji-16tiao")
    assert s.ev("button", seat=1, what="geming")[0]["kind"] == "error" and not s.t.void
    # jinan's 冲点 革命 is left to the human referee
    j = Deal("gouji-jinan-2010")
    assert j.ev("button", seat=1, what="geming")[0]["kind"] == "needs_referee"


def test_jiefeng_per_sheet() -> None:
    # 16tiao: 「申请由自己重新发牌」(L87) 「如其余持牌人均同意」(L88): the claimant leads
    d = Deal("gouji-16tiao", counts={0: 1})
    d.play(0, "3S")  # 憋3: the 底牌 is a 3
    d.ev("button", seat=4, what="jiefeng")
    d.passes(1, 2, 3, 4, 5)
    d.play(4, "7S")
    assert d.ref.violations == []
    # abqu: 「视为声明“接风”者本人过牌」(L266): the claim is that seat's pass
    a = Deal("gouji-abqu", counts={0: 1})
    a.play(0, "5S")
    a.ev("button", seat=2, what="jiefeng")
    a.play(2, "6S")
    assert a.rules_flagged() == [("played_after_pass", 2, a.seq - 1)]


def test_qingdao_gousiji_after_touke_yields_only_to_a_burn() -> None:
    # 「分别有一次无对头够级机会」(L254), 「除有烧牌者外」(L254) 「够死级者即获重新发牌权」
    d = Deal("gouji-qingdao", counts={0: 1})
    d.play(0, "5S")  # 头科: seat 3 gets one 够死级
    d.passes(1, 2, 3, 4, 5)
    d.play(1, "6S")
    d.passes(2)
    d.play(3, "7S")
    d.passes(4, 5, 1, 2)
    d.play(3, "KS KH")  # seat 3's 够级 set: 够死级, nobody may answer it ...
    assert d.t.round.plays[-1].dead and d.t.gousiji == {3: 0}
    d.play(4, "2S 2H")  # ... but a burn
    assert d.ref.violations == [] and d.t.round.plays[-1].kind == "burn"
    e = Deal("gouji-qingdao", counts={0: 1})
    e.play(0, "5S")
    e.passes(1, 2, 3, 4, 5)
    e.play(1, "6S")
    e.passes(2, 3, 4, 5)
    e.play(1, "7S")
    e.play(3, "8S")
    e.passes(4, 5, 1, 2)
    e.play(3, "QS QH QC")
    e.passes(4)
    e.play(4, "KS KH KC")  # after a pass: neither answer nor burn
    assert e.rules_flagged() == [("dead_set", 4, e.seq - 1)]


def test_bad_corrections_are_errors_and_a_delete_rejudges() -> None:
    d = Deal("gouji-core")
    d.play(0, "5S 5H")
    bad = d.seq
    d.play(1, "4S 4H")
    out = d.ev("correction", ref=999, cards=["6S"], by="ref1", why="typo")
    assert out[0]["kind"] == "error" and "999" in out[0]["problem"]
    assert d.rules_flagged() == [("not_beating", 1, bad)]
    d.ev("correction", ref=bad, delete=True, by="ref1", why="not a play: a hand over the cloth")
    assert d.ref.violations == [] and d.t.round.top.seat == 0
    assert any("999" in e["problem"] for e in d.ref.errors)  # kept across the re-judging


def test_bie3_no_gouji_claim_is_proven_false_only_by_the_cards() -> None:
    # 「若一局中某人手中没有任意够级牌」「则可以判定该人自动开点」(L248);
    # 「一旦被发现，直接判定为“大落“」(L248)
    d = Deal("gouji-bie3", counts={1: 4})
    claim = d.seq
    d.ev("button", seat=1, what="no_gouji")
    assert d.t.opened[1]
    d.play(0, "5S")
    d.play(1, "KS")  # one K: no proof yet
    d.passes(2, 3, 4, 5, 0)
    assert d.ref.violations == []
    d.play(1, "KH")  # a second K: the hand held 2 K, a 够级 set
    [v] = d.ref.violations
    assert (v["rule"], v["at_seq"], v["proven_by_seq"]) == ("false_claim", claim, d.seq - 1)
    assert d.t.bottom == [1] and not d.t.opened[1]
    # an honest claim is never flagged: the seat goes out showing nothing 够级
    h = Deal("gouji-bie3", counts={1: 3})
    h.ev("button", seat=1, what="no_gouji")
    h.play(0, "5S")
    h.play(1, "9S")
    h.passes(2, 3, 4, 5, 0)
    h.play(1, "3S 3H")
    assert h.ref.violations == [] and h.t.finished == [1] and h.t.opened[1]


def test_tiaozhan_a_burning_set_opens_nothing() -> None:
    # 「同伙帮助烧牌时的够级牌不算自己的开点牌」(L232) (interp.)
    for pid, opens in (("gouji-tiaozhan", False), ("gouji-core", True)):
        d = Deal(pid)
        d.play(0, "KS KH")
        d.play(2, "AS AH")  # seat 2 burns its teammate's 够级 set
        d.passes(5)
        d.play(2, "SJ 5S")  # the burning set stood (joker duty kept); core: 开点
        assert d.ref.violations == [] and d.t.opened[2] is opens, pid


def test_slow_sets_are_noted_for_the_referee_never_ruled() -> None:
    # paodekuai 「每位队员出一套牌的时间限时15秒」(L245), 「逾时视为“过牌”」(L245)
    d = Deal("gouji-paodekuai")
    d.play(0, "5S")  # at t = seq = 3
    notes = d.ev("play", seat=1, cards=["6S"], t=30.0)
    assert [n["kind"] for n in notes] == ["needs_referee"] and "limit 15 s" in notes[0]["why"]
    assert d.ref.violations == []
    assert Deal("gouji-core").rules_flagged() == []  # no limit in the core


def test_a_late_liang3_still_proves_the_block() -> None:
    # 「憋3后必须亮3」(L197): shown after the round moved on
    d = Deal("gouji-jinan-2010", counts={0: 3})
    d.play(0, "5S")
    d.play(1, "6S")
    d.passes(2, 3, 4, 5)
    d.play(1, "7S")  # a new round
    d.ev("show", seat=0, cards=["3S", "3H"], what="liang3")
    assert d.t.bottom == [0] and d.t.blocks[0][:2] == (1, 0)


def test_a_doubted_read_keeps_the_deals_later_violations_provisional() -> None:
    # who holds the round and who passed follow from every play before: while a camera read
    # awaits a referee, nothing later in the deal is a firm accusation
    d = Deal("gouji-core", banker=0)
    doubted = d.seq
    d.play(0, "5S")
    d.doubt(doubted, ["5S"])
    [v] = [r for r in d.play(1, "4S") if r["kind"] == "violation"]  # lower: does not beat
    assert v["rule"] == "not_beating" and v["provisional"] is True
    settled = d.ev("ruling", ref=f"seq:{doubted}", decision="upheld", by="ref1")
    assert [r["provisional"] for r in settled if r["kind"] == "violation"] == [False]
    assert [x["provisional"] for x in d.ref.report()["violations"]] == [False]


def test_a_new_deal_starts_with_no_doubt() -> None:
    d = Deal("gouji-core", banker=0)
    doubted = d.seq
    d.play(0, "5S")
    d.doubt(doubted, ["5S"])
    d.ev("hand_start", hand=2, banker=0, level="-")
    [v] = [r for r in d.play(2, "5S") if r["kind"] == "violation"]  # seat 0 leads
    assert v["rule"] == "out_of_turn" and v["provisional"] is False


def test_a_corrected_read_is_no_longer_doubted() -> None:
    d = Deal("gouji-core", banker=0)
    doubted = d.seq
    d.play(0, "5S")
    d.doubt(doubted, ["5S"])
    d.ev("correction", ref=doubted, cards=["5C"], why="misread", by="ref1")
    [v] = [r for r in d.play(1, "4C") if r["kind"] == "violation"]
    assert v["rule"] == "not_beating" and v["provisional"] is False


def _played(profile: str, seed: int, hands: int) -> GoujiReferee:
    from tablescan.render_gouji import simulated_deals

    ref = GoujiReferee(Rules.load(profile))
    for ev in simulated_deals(profile, seed, hands):
        if ev["type"] != "match_end":
            ref.feed(ev)
    return ref


def test_the_sheets_number_of_deals_ends_the_match() -> None:
    """gouji-qingdao: 「小组循环赛每场赛三局」(L254); gouji-core states no number (a referee
    ends it). The next deal has no banker: its first lead is the table's."""
    assert _played("gouji-qingdao", 3, 2).next_hand() == {"hand": 3, "banker": None, "level": "-"}
    done = _played("gouji-qingdao", 3, 3)
    assert done.next_hand() is None
    result = done.match_result()
    assert result["hands"] == 3 and result["teams"] == done.report()["match"]["teams"]
    teams = result["teams"]
    assert result["winner"] == (None if teams[0] == teams[1] else int(teams[1] > teams[0]))
    assert _played("gouji-core", 3, 5).next_hand() is not None


def test_best_of_three_ends_once_a_team_won_two_deals() -> None:
    """gouji-jinan-2010: 「比赛实行三局二胜计分制」(L209), 「得分多者为胜局」(L211)."""
    for seed in range(1, 6):
        ref = _played("gouji-jinan-2010", seed, 4)
        won, after = [0, 0], []  # deals won after each deal
        for h in ref.hands:
            a, b = h["scores"]["recorded"]
            if a != b:
                won[int(b > a)] += 1
            after.append(list(won))
        n = next((i + 1 for i, w in enumerate(after) if max(w) == 2), None)
        if n is None:
            continue
        won = after[n - 1]
        cut = _played("gouji-jinan-2010", seed, n)
        assert cut.next_hand() is None and cut.match_result()["deals_won"] == won
        assert cut.match_result()["winner"] == won.index(2)
        if n > 2:
            assert _played("gouji-jinan-2010", seed, n - 1).next_hand() is not None
        return
    raise AssertionError("no seed gave a team two deals in four")
