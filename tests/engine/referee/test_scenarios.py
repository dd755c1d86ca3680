"""Hand-written referee scenarios, one per rule, each citing the sheet it enforces
(TRACTOR.md, the digest of the seeds). Every scenario also checks that nothing was flagged
before the proving play, and that the violation carries its seqs and evidence ids."""

from __future__ import annotations

from typing import Any

import pytest

from engine.record import read_record, write_record
from engine.tractor.referee import Referee
from engine.tractor.rules import Rules

Table = Any


def _only(t: Table, seq: int, rule: str) -> dict[str, Any]:
    """Exactly one violation, of ``rule``, produced by event ``seq``, and none earlier."""
    found = t.found(seq, rule)
    assert len(found) == 1, t.all_found()
    earlier = [r for s, rs in t.rulings.items() if s < seq for r in rs if r["kind"] == "violation"]
    assert earlier == []
    return found[0]


def test_revoke_is_proven_by_the_later_play_of_the_suit(table: type[Table]) -> None:
    """A6.2 「必须先出首家出的花色」 [000]; C1 #6: proven when the seat later plays the suit."""
    t = table()
    s = t.trick((0, "AH"), (1, "3C"), (2, "4H"), (3, "5H"))
    assert t.ref.state()["hand"]["knowledge"][1]["voids"] == ["H"]
    t2 = t.trick((0, "KD"), (1, "3D"), (2, "4D"), (3, "5D"))
    assert t.all_found() == []  # a void claim alone proves nothing
    t3 = t.trick((0, "KC"), (1, "7H"), (2, "4C"), (3, "5C"))
    v = _only(t, t3[1], "revoke")
    assert (v["seat"], v["at_seq"], v["proven_by_seq"]) == (1, s[1], t3[1])
    assert v["evidence"] == [f"clip-{s[1]}", f"clip-{t3[1]}"]
    assert v["how"] == "retroactive"
    assert v["id"] == f"1:revoke:1:{s[1]}"
    del t2


def test_missed_pair_needs_both_copies_seen(table: type[Table]) -> None:
    """A6.3 「必须有对跟对」 [000]; C1 #7: both copies must come from the seat, neither played
    before the trick."""
    t = table()
    s = t.trick((0, "QH QH"), (1, "4H 6H"), (2, "3H 3H"), (3, "7H 8H"))
    first = t.trick((0, "AD"), (1, "9H"), (2, "3D"), (3, "4D"))
    assert t.all_found() == []  # one 9H proves nothing
    second = t.trick((0, "AC"), (1, "9H"), (2, "3C"), (3, "4C"))
    v = _only(t, second[1], "missed_pair")
    assert (v["seat"], v["at_seq"], v["proven_by_seq"]) == (1, s[1], second[1])
    del first


def test_missed_tractor(table: type[Table]) -> None:
    """A6.4 「没拖拉机的要先跟对子后才跟散牌」 [001]: a tractor must follow a tractor if held."""
    t = table()
    s = t.trick((0, "7H 7H 8H 8H"), (1, "3H 3H 9H JH"), (2, "5C 6C 7C 9C"), (3, "5D 6D 7D 9D"))
    nxt = t.trick((0, "AD AD"), (1, "4H 4H"), (2, "3D 4D"), (3, "8D 8D"))
    v = _only(t, nxt[1], "missed_tractor")
    assert (v["at_seq"], v["proven_by_seq"]) == (s[1], nxt[1])


def test_failed_throw_is_proven_by_a_beating_card_and_charged_per_profile(
    table: type[Table],
) -> None:
    """A4.4 「同样花色的大牌可以连出」 [000]: a throw stands only if nobody can beat a unit;
    xize-1h charges 「甩错牌每张罚10分」 [000] for each card that could not be thrown."""
    t = table("xize-1h")
    s = t.trick((0, "AH KH"), (1, "3H 4H"), (2, "5H 6H"), (3, "7H 8H"))
    assert t.all_found() == []
    nxt = t.trick((0, "AC"), (1, "5C"), (2, "AH"), (3, "6C"))
    v = _only(t, nxt[2], "failed_throw")
    assert (v["seat"], v["at_seq"], v["proven_by_seq"]) == (0, s[0], nxt[2])
    assert v["penalty"]["points"] == 10
    assert "KH" in v["detail"]


def test_throw_that_nobody_beats_is_never_flagged(table: type[Table]) -> None:
    """The same throw, and the other AH never appears: a valid throw is only confirmed at the
    end, and it is never accused."""
    t = table()
    t.trick((0, "AH KH"), (1, "3H 4H"), (2, "5H 6H"), (3, "7H 8H"))
    t.trick((0, "AC"), (1, "5C"), (2, "QH"), (3, "6C"))
    t.add("hand_end", reason="abandoned")
    assert t.all_found() == []


def test_wrong_count_is_immediate(table: type[Table]) -> None:
    """A6.1 「出牌数量总和需和连对牌数一致」 [001]: the follow has the lead's number of cards."""
    t = table()
    s = t.trick((0, "QH QH"), (1, "4H"))
    v = _only(t, s[1], "wrong_count")
    assert (v["at_seq"], v["proven_by_seq"], v["how"]) == (s[1], s[1], "immediate")


def test_out_of_turn_is_immediate_and_charged_in_xize(table: type[Table]) -> None:
    """C1 #20; xize-1h 「越序出牌者每次罚10分」 [000]."""
    t = table("xize-1h")
    s = t.trick((0, "AH"), (2, "3H"), (1, "4H"), (3, "5H"))
    v = _only(t, s[1], "out_of_turn")
    assert v["seat"] == 2
    assert v["penalty"]["points"] == 10
    assert t.found(s[2]) == []  # seat 1 then plays in its proper place
    assert t.ref.report()["hands"][0]["tricks"][0]["winner"] == 0


def test_lead_out_of_turn(table: type[Table]) -> None:
    """A5.1 「以后每圈牌由上圈牌牌最大地一家先出」 [000]: the trick's winner leads."""
    t = table()
    t.trick((0, "AH"), (1, "3H"), (2, "4H"), (3, "5H"))
    s = t.play(1, "6H")
    assert _only(t, s, "out_of_turn")["seat"] == 1


def test_mixed_lead_is_illegal(table: type[Table]) -> None:
    """A4.4 「同样花色的大牌可以连出」 [000]; C1 #3: a throw is of one suit."""
    t = table()
    s = t.trick((0, "AH AC"), (1, "3H 4H"), (2, "5D 6D"), (3, "7H 8C"))
    _only(t, s[0], "illegal_lead")
    assert len(t.all_found()) == 1  # follows to an illegal lead carry no obligation


def test_throw_where_the_profile_allows_none(table: type[Table]) -> None:
    """C1 #2: a lead is one unit when the profile forbids throws (option throw.allowed)."""
    t = table(options={"throw.allowed": False})
    s = t.trick((0, "AH KH"), (1, "3H 4H"))
    assert "throw" in _only(t, s[0], "illegal_lead")["detail"]


def test_wrong_bury_count(table: type[Table]) -> None:
    """A9.1 「庄家再根据牌情任意抽取8张作为底牌」 [000]; xize-1h fines 20 [000 「并罚庄家20分」]."""
    t = table("xize-1h", bury=7)
    v = t.all_found()
    assert [x["rule"] for x in v] == ["wrong_bury_count"]
    assert v[0]["seat"] == 0
    assert v[0]["penalty"]["points"] == 20


def test_unprovable_revoke_is_never_flagged(table: type[Table]) -> None:
    """The seat showed void in hearts and never plays a heart in what the camera saw."""
    t = table()
    t.trick((0, "AH"), (1, "3C"), (2, "4H"), (3, "5H"))
    t.trick((0, "KD"), (1, "3D"), (2, "4D"), (3, "5D"))
    t.add("hand_end", reason="abandoned")
    assert t.all_found() == []


def test_show_of_a_hand_audits_earlier_follows(table: type[Table]) -> None:
    """C2.1: pending obligations resolve when the holding becomes known (a shown hand)."""
    t = table()
    s = t.trick((0, "AH"), (1, "3C"), (2, "4H"), (3, "5H"))
    shown = t.add("show", seat=1, cards=["9H", "4D"], what="hand")
    v = _only(t, shown, "revoke")
    assert (v["at_seq"], v["how"]) == (s[1], "audit")


def test_revoke_penalty_is_scored_against_the_offender(table: type[Table]) -> None:
    """xize-1h 「跟错牌每张罚10分」 [000]: 10 points per card, to the other side. Seat 1 is an
    attacker (banker 0), so the attackers lose 10."""
    t = table("xize-1h")
    t.trick((0, "AH"), (1, "3C"), (2, "4H"), (3, "5H"))
    t.trick((0, "KC"), (1, "7H"), (2, "4C"), (3, "5C"))
    hand = t.ref.report()["hands"][0]
    assert hand["penalty_points"] == -10
    assert hand["attacker_points"] == hand["trick_points"] - 10


def test_level_penalty_in_pass10(table: type[Table]) -> None:
    """pass10: a following error costs a level
    [001 「出错牌一方罚降一级，累计三次，直接被判负」]."""
    t = table("pass10")
    t.trick((0, "AH"), (1, "3C"), (2, "4H"), (3, "5H"))
    s = t.trick((0, "KC"), (1, "7H"), (2, "4C"), (3, "5C"))
    assert _only(t, s[1], "revoke")["penalty"]["levels"] == 1


def test_referee_entered_violation_is_scored_per_profile(table: type[Table]) -> None:
    """Violations the camera cannot see are entered by the referee: pass10 「悔牌一方罚降一级」
    [001]."""
    t = table("pass10")
    seq = t.add("violation", seat=3, rule="take_back", by="ref-1", note="took back a 9")
    v = _only(t, seq, "take_back")
    assert (v["how"], v["penalty"]["levels"]) == ("referee", 1)


def test_correction_withdraws_a_violation_and_rejudges_deterministically(
    table: type[Table],
) -> None:
    t = table()
    t.trick((0, "AH"), (1, "3C"), (2, "4H"), (3, "5H"))
    s = t.trick((0, "KC"), (1, "7H"), (2, "4C"), (3, "5C"))
    (v,) = t.all_found()
    fix = t.add("correction", ref=s[1], cards=["7C"], by="ref-1", why="misread 7C as 7H")
    assert t.rulings[fix] == [{"kind": "withdrawn", "id": v["id"], "by_seq": fix}]
    assert t.ref.violations() == []
    # the same record judged again from the file gives the same report
    again = Referee(t.rules)
    for ev in t.events:
        again.feed(ev)
    assert again.report() == t.ref.report()


def test_correction_can_also_reveal_a_violation(table: type[Table]) -> None:
    t = table()
    s = t.trick((0, "AH"), (1, "3C"), (2, "4H"), (3, "5H"))
    t2 = t.trick((0, "KC"), (1, "7C"), (2, "4C"), (3, "5C"))
    assert t.all_found() == []
    fix = t.add("correction", ref=t2[1], cards=["7H"], by="ref-1", why="it was 7H")
    (v,) = [r for r in t.rulings[fix] if r["kind"] == "violation"]
    assert (v["rule"], v["at_seq"], v["proven_by_seq"]) == ("revoke", s[1], t2[1])


def test_bad_correction_is_an_error_not_a_crash(table: type[Table]) -> None:
    t = table()
    fix = t.add("correction", ref=999, cards=["7C"], by="ref-1", why="typo")
    assert t.rulings[fix][0]["kind"] == "error"
    assert "no event with seq 999" in t.rulings[fix][0]["problem"]


def test_unsure_reading_makes_its_violations_provisional_until_settled(
    table: type[Table],
) -> None:
    t = table()
    t.trick((0, "AH"), (1, "3C"), (2, "4H"), (3, "5H"))
    s = t.trick((0, "KC"), (1, "7H"), (2, "4C"), (3, "5C"))
    t.add(
        "needs_referee",
        ref=s[1],
        candidates=[{"cards": ["7H"], "confidence": 0.55}, {"cards": ["7C"], "confidence": 0.4}],
    )
    (v,) = t.ref.report()["hands"][0]["violations"]
    assert v["provisional"] is True
    t.add("ruling", ref=f"seq:{s[1]}", decision="upheld", by="ref-1")
    (v,) = t.ref.report()["hands"][0]["violations"]
    assert v["provisional"] is False


def test_dismissed_violation_carries_no_penalty(table: type[Table]) -> None:
    t = table("xize-1h")
    t.trick((0, "AH"), (1, "3C"), (2, "4H"), (3, "5H"))
    t.trick((0, "KC"), (1, "7H"), (2, "4C"), (3, "5C"))
    (v,) = t.all_found()
    t.add("ruling", ref=v["id"], decision="dismissed", by="ref-2", note="claim window passed")
    hand = t.ref.report()["hands"][0]
    assert hand["violations"][0]["status"] == "dismissed"
    assert hand["penalty_points"] == 0


def test_record_with_garbage_is_judged_around_the_bad_lines(
    table: type[Table], tmp_path: Any
) -> None:
    """Garbage lines, unknown events and out-of-order seqs: clear errors, the rest judged."""
    t = table()
    t.trick((0, "AH"), (1, "3C"), (2, "4H"), (3, "5H"))
    t.trick((0, "KC"), (1, "7H"), (2, "4C"), (3, "5C"))
    path = tmp_path / "m.jsonl"
    write_record(t.events, path)
    lines = path.read_text(encoding="utf-8").splitlines()
    lines.insert(5, "%%% camera hiccup %%%")
    lines.insert(7, '{"v":1,"seq":6,"t":6.0,"type":"teleport","seat":1}')
    lines.insert(9, lines[3])  # a repeated (out-of-order) event
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    events, errors = read_record(path)
    assert [e.line for e in errors] == [6, 8, 10]
    assert "not JSON" in str(errors[0])
    assert "unknown event type 'teleport'" in str(errors[1])
    assert "out of order" in str(errors[2])
    ref = Referee(Rules.load("standard"))
    for ev in events:
        ref.feed(ev)
    assert [v.rule for v in ref.violations()] == ["revoke"]


@pytest.mark.parametrize("rule", ["revoke", "missed_pair", "missed_tractor", "failed_throw"])
def test_every_retroactive_rule_has_a_penalty_entry_or_a_note(rule: str) -> None:
    for pid in ("standard", "xize-1h", "jiawang", "pass10", "school-2010"):
        pen = Rules.load(pid).penalty(rule)
        assert pen.points or pen.per_card or pen.levels or pen.note


def test_a_seat_that_ends_with_cards_missing_is_ruled_at_hand_end(table: type[Table]) -> None:
    """school-2010: 「手上多牌、少牌者，多或少一张罚10分」 [001] (extra or missing cards)."""
    t = table("school-2010", level="3", suit="H")
    t.trick((0, "AS"), (1, "3S"), (2, "4S"), (3, "5S"))
    end = t.add("hand_end")
    found = t.found(end, "wrong_hand_size")
    assert [v["seat"] for v in found] == [0, 1, 2, 3]
    assert found[0]["penalty"]["points"] == 10 * (t.rules.hand - 1)


def test_impossible_copies_are_a_misread_not_a_proof(table: type[Table]) -> None:
    """A third AH in a two-deck deal cannot be: the play is reported and whatever it would
    prove stays provisional (a referee never accuses on a misread)."""
    t = table()
    t.trick((0, "AH"), (1, "3C"), (2, "AH"), (3, "5H"))
    s = t.trick((0, "KC"), (1, "AH"), (2, "4C"), (3, "5C"))
    assert any(r["kind"] == "error" and "more copies" in r["problem"] for r in t.rulings[s[1]])
    (v,) = t.found(s[1], "revoke")
    assert v["provisional"] is True


def test_unvalidated_garbage_fed_directly_is_an_error_not_a_crash(table: type[Table]) -> None:
    t = table()
    for bad in (
        {"type": "teleport", "seq": 90},
        {"type": "play", "seq": 91},
        {"type": "correction"},
    ):
        (r,) = t.ref.feed(bad)
        assert r["kind"] == "error"
    assert len(t.ref.errors) == 3
    s = t.trick((0, "AH"), (1, "3H"), (2, "4H"), (3, "5H"))
    assert t.ref.report()["hands"][0]["tricks"][0]["winner"] == 0
    del s


def test_referee_can_override_the_penalty(table: type[Table]) -> None:
    """The referee's own penalty replaces the profile's (e.g. a time limit the sheet prices)."""
    t = table("chaodipi-anchao")
    seq = t.add(
        "violation", seat=1, rule="bury_time", by="ref-1", penalty={"points": 80, "note": "2nd"}
    )
    v = _only(t, seq, "bury_time")
    assert v["penalty"]["points"] == 80
    assert t.ref.report()["hands"][0]["penalty_points"] == -80  # seat 1 is an attacker


def test_a_play_missed_by_the_camera_accuses_nobody(table: type[Table]) -> None:
    """Seat 3's play never reached the record: seat 0 leading again is not ruled out of turn;
    the trick closes incomplete with a record error, and judging goes on."""
    t = table()
    t.trick((0, "AH"), (1, "3H"), (2, "4H"))
    s = t.trick((0, "AD"), (1, "3D"), (2, "4D"), (3, "5D"))
    assert t.all_found() == []
    assert any(
        r["kind"] == "error" and "missed by the camera" in r["problem"] for r in t.rulings[s[0]]
    )
    tricks = t.ref.report()["hands"][0]["tricks"]
    assert tricks[0]["incomplete"] is True
    assert tricks[1]["winner"] == 0
    end = t.add("hand_end")
    assert 3 not in [v["seat"] for v in t.found(end, "wrong_hand_size")]


def test_state_shows_the_live_deal(table: type[Table]) -> None:
    """What the dashboard and the table node read: trick in progress, whose turn, points per
    side, tricks with winners, violations and per-seat knowledge."""
    t = table()
    t.trick((0, "KH"), (1, "3C"), (2, "4H"), (3, "5H"))
    t.play(0, "AD")
    hand = t.ref.state()["hand"]
    assert hand["trump"] == {"level": "2", "suit": "S"}
    assert hand["current_trick"]["plays"] == [
        {"seat": 0, "cards": ["AD"], "seq": hand["current_trick"]["plays"][0]["seq"]}
    ]
    assert hand["next_seat"] == 1
    assert hand["tricks"][0]["winner"] == 0
    assert hand["points"] == {"attackers": 0, "banker": 15}
    assert hand["knowledge"][1]["voids"] == ["H"]
    assert hand["knowledge"][1]["cards_seen"] == ["3C"]
    assert hand["violations"] == []
    assert hand["outcome"] is None


def test_trump_from_the_declaration_when_no_trump_event(table: type[Table]) -> None:
    """A12.1 「第一局的庄家由第一个亮2的玩家担任」 [000]: the declarer of a first deal banks."""
    from engine.record import SeqCounter
    from engine.tractor.referee import Referee

    ref = Referee(Rules.load("standard"))
    c = SeqCounter()
    start = {"seats": ["N", "W", "S", "E"], "teams": [[0, 2], [1, 3]], "levels": ["2", "2"]}
    events = [
        c.event("match_start", 0, game="tractor", profile="standard", **start),
        c.event("hand_start", 1, hand=1, banker=None, level="2"),
        c.event("declare", 2, seat=2, cards=["2H"]),
        c.event("play", 3, seat=2, cards=["AS"]),
        c.event("play", 4, seat=3, cards=["3D"]),
    ]
    for ev in events:
        ref.feed(ev)
    hand = ref.state()["hand"]
    assert hand["trump"] == {"level": "2", "suit": "H"}
    assert hand["banker"] == 2
    assert hand["knowledge"][3]["voids"] == ["S"]


def test_unknown_trump_judges_no_follow(table: type[Table]) -> None:
    """Without a trump event or a declaration that fixes it, a wrong guess could accuse a
    seat falsely: follows are not judged, and the report says the trump is unknown."""
    from engine.record import SeqCounter
    from engine.tractor.referee import Referee

    ref = Referee(Rules.load("standard"))
    c = SeqCounter()
    start = {"seats": ["N", "W", "S", "E"], "teams": [[0, 2], [1, 3]], "levels": ["2", "2"]}
    events = [
        c.event("match_start", 0, game="tractor", profile="standard", **start),
        c.event("hand_start", 1, hand=1, banker=0, level="2"),
        *[
            c.event("play", 2 + i, seat=i, cards=[x])
            for i, x in enumerate(["AH", "3C", "4H", "5H"])
        ],
        *[
            c.event("play", 6 + i, seat=i, cards=[x])
            for i, x in enumerate(["KC", "7H", "4C", "5C"])
        ],
    ]
    rulings = [r for ev in events for r in ref.feed(ev)]
    assert ref.violations() == []
    assert any(r["kind"] == "error" and "trump is not known" in r["problem"] for r in rulings)
    assert ref.report()["hands"][0]["trump"]["unknown"] is True


def test_a_late_trump_event_judges_the_whole_deal(table: type[Table]) -> None:
    """The referee enters the trump after play began: the deal is judged again as if it had
    come first, and the revoke the plays prove is found at its proving play."""
    from engine.record import SeqCounter
    from engine.tractor.referee import Referee

    ref = Referee(Rules.load("standard"))
    c = SeqCounter()
    start = {"seats": ["N", "W", "S", "E"], "teams": [[0, 2], [1, 3]], "levels": ["2", "2"]}
    events = [
        c.event("match_start", 0, game="tractor", profile="standard", **start),
        c.event("hand_start", 1, hand=1, banker=0, level="2"),
        *[
            c.event("play", 2 + i, seat=i, cards=[x])
            for i, x in enumerate(["AH", "3C", "4H", "5H"])
        ],
        *[
            c.event("play", 6 + i, seat=i, cards=[x])
            for i, x in enumerate(["KC", "7H", "4C", "5C"])
        ],
    ]
    for ev in events:
        ref.feed(ev)
    assert ref.violations() == []
    late = c.event("trump", 10, suit="S", by="ref-1")
    (found,) = [r for r in ref.feed(late) if r["kind"] == "violation"]
    assert (found["rule"], found["at_seq"], found["proven_by_seq"]) == ("revoke", 3, 7)
    assert ref.report()["hands"][0]["trump"] == {"level": "2", "suit": "S"}
