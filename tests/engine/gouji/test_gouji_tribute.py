"""进贡/还贡 exactly as the sheets say: changshi scores each card entered to the 吃贡者 (L8),
jinan names its extras 点贡/闷贡/烧贡 (L211), tiaozhan/kelamayi/dianshao have no tribute
(L232, L238, L264), and the rest are silent. Hand-written records, one per mode; a tribute is
an ``exchange`` with ``what`` tribute/进贡 (进贡) or return/还贡 (还贡)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.gouji import Rules
from engine.gouji.referee import GoujiReferee
from engine.gouji.scoring import Outcome, score
from engine.gouji.table import Burn
from engine.record import RecordError, SeqCounter, validate_event
from tablescan.commands.judge import judge_events
from tests.engine.gouji.test_gouji_referee import Deal


def tribute(
    d: Deal, seat: int, to: int, cards: str | None = None, what: str = "tribute", **extra: Any
) -> list[dict[str, Any]]:
    """A tribute exchange (validated by ``Deal.ev``); ``cards`` None is face-down."""
    listed = None if cards is None else cards.split()
    count = extra.pop("count", len(listed or []))
    return d.ev("exchange", seat=seat, to=to, count=count, what=what, cards=listed, **extra)


def exchange(seq: int, **fields: Any) -> dict[str, Any]:
    """A tribute exchange as fed, unvalidated: only what ``fields`` say besides."""
    return {"v": 1, "seq": seq, "t": 1.0, "type": "exchange", "what": "tribute", **fields}


def items(d: Deal, seat: int) -> list[dict[str, Any]]:
    return list(d.ref.report()["hands"][-1]["scores"]["items"][seat])


def tribute_items(d: Deal) -> list[tuple[int, str, int]]:
    scores = d.ref.report()["hands"][-1]["scores"]
    return [
        (seat, i["what"], i["points"])
        for seat, mine in enumerate(scores["items"])
        for i in mine
        if i.get("tribute")
    ]


def test_changshi_each_card_scores_one_to_the_receiver_and_nothing_to_the_giver() -> None:
    # 「每进贡一张，由吃贡者得1分，进贡者不得分」(L8)
    d = Deal("gouji-changshi")
    [note] = tribute(d, 4, 1, "BJ 2S", by="ref-1")
    assert (note["kind"], note["seat"], note["to"], note["cards"]) == (
        "tribute",
        4,
        1,
        ["BJ", "2S"],
    )
    tribute(d, 2, 5, count=3)  # face-down: the referee counted 3 cards
    tribute(d, 1, 4, "5C", what="return")  # 还贡 scores nothing
    assert tribute_items(d) == [(1, "进贡 ×2", 2), (5, "进贡 ×3", 3)]
    assert not any(i.get("tribute") for i in items(d, 4))  # 进贡者不得分
    assert d.t.counts == [36, 37, 33, 36, 35, 39]  # handed over, never played
    hand = d.ref.report()["hands"][-1]
    assert hand["tributes"] == [
        {"seat": 4, "to": 1, "cards": ["BJ", "2S"], "count": 2, "kind": "jin", "seq": 2},
        {"seat": 2, "to": 5, "cards": [], "count": 3, "kind": "jin", "seq": 3},
        {"seat": 1, "to": 4, "cards": ["5C"], "count": 1, "kind": "huan", "seq": 4},
    ]
    assert hand["scores"]["seats"][1] == 2 and hand["scores"]["seats"][4] == 0
    rule = d.ref.report()["tribute"]
    assert rule["mode"] == "per_card" and "每进贡一张" in rule["rule"]
    assert not d.ref.violations and not d.ref.errors


def test_a_single_card_is_one_point() -> None:
    d = Deal("gouji-changshi")
    tribute(d, 0, 3, "AS")
    assert tribute_items(d) == [(3, "进贡", 1)]


def test_a_face_down_tribute_scores_its_count() -> None:
    d = Deal("gouji-changshi")
    [note] = tribute(d, 4, 1, None, count=2)  # cards null: handed over face-down
    assert (note["kind"], note["cards"], note["count"], note["tribute"]) == (
        "tribute",
        [],
        2,
        "jin",
    )
    assert tribute_items(d) == [(1, "进贡 ×2", 2)]
    assert d.t.counts[4] == 34 and d.t.counts[1] == 38


@pytest.mark.parametrize(("what", "kind"), [("进贡", "jin"), ("return", "huan"), ("还贡", "huan")])
def test_the_chinese_words_and_return_are_tributes_too(what: str, kind: str) -> None:
    d = Deal("gouji-changshi")
    [note] = tribute(d, 4, 1, "BJ", what=what)
    assert note["kind"] == "tribute" and note["tribute"] == kind
    assert d.ref.report()["hands"][-1]["tributes"][0]["kind"] == kind
    assert tribute_items(d) == ([(1, "进贡", 1)] if kind == "jin" else [])


def test_a_bought_card_is_no_tribute_counts_stay_and_nothing_scores() -> None:
    d = Deal("gouji-changshi")
    assert d.ev("exchange", seat=0, to=3, count=1, what="buy", cards=None) == []
    assert d.t.counts == [36] * 6
    assert d.ref.report()["hands"][-1]["tributes"] == [] and tribute_items(d) == []
    d.ev("exchange", seat=0, to=3, count=2, what="give", cards=["4S", "4H"])  # as before
    assert (d.t.counts[0], d.t.counts[3]) == (34, 38) and tribute_items(d) == []
    assert not d.ref.errors and not d.ref.violations


@pytest.mark.parametrize(
    ("pid", "words"),
    [
        ("gouji-tiaozhan", "只记分不进贡"),
        ("gouji-kelamayi", "不进贡,不报牌"),
        ("gouji-dianshao", "每场比赛只计分，不进贡"),
    ],
)
def test_a_sheet_without_tribute_rules_an_error_in_its_words_never_a_violation(
    pid: str, words: str
) -> None:
    d = Deal(pid)
    seq = d.seq
    [err] = tribute(d, 4, 1, "BJ")
    assert err["kind"] == "error" and err["seq"] == seq
    assert words in err["problem"] and f"seq {seq}" in err["problem"]
    assert d.ref.violations == []
    assert d.ref.report()["hands"][-1]["tributes"] == []
    assert d.t.counts == [36] * 6
    assert Rules.load(pid).score.tribute == "none"


def test_jinan_tribute_is_shown_not_scored_and_its_items_read_in_the_sheets_words() -> None:
    d = Deal("gouji-jinan-2010")
    [note] = tribute(d, 4, 1, "BJ")
    assert note["kind"] == "tribute" and "not scored" in note["why"]
    assert d.ref.report()["hands"][-1]["tributes"][0]["cards"] == ["BJ"]
    assert tribute_items(d) == []
    assert d.ref.errors == []


def _extras(pid: str) -> dict[str, Any]:
    """Seat 0 opened, its 对头 3 not; seat 2 burned seat 5 and went out 头科; seat 4 blocked 1."""
    opened = [True, True, True, False, True, True]
    burn = Burn(seat=2, victim=5, seq=10)
    out = Outcome([2, 0, 4, 1, 3, 5], opened, [0] * 6, [burn], [(4, 1, 20)], [])
    return score(Rules.load(pid), out, [2, 0, 4, 1, 3])


def test_jinan_dian_men_shao_gong() -> None:
    # 「点贡得2分，闷、烧贡各得1分」(L211)
    res = _extras("gouji-jinan-2010")
    tagged = [(s, i["what"], i["points"]) for s, m in enumerate(res["items"]) for i in m]
    assert (0, "点贡", 2) in tagged and (2, "烧贡", 1) in tagged and (4, "闷贡", 1) in tagged
    assert all(i.get("tribute") for m in res["items"] for i in m if i["what"].endswith("贡"))
    assert not any(i["what"] in ("开点", "憋3", "烧牌") for m in res["items"] for i in m)
    assert not any(i.get("tribute") for i in res["items"][2] if i["what"] == "头科")


def test_other_profiles_keep_their_item_names() -> None:
    res = _extras("gouji-kelamayi")
    names = {i["what"] for m in res["items"] for i in m}
    assert {"开点", "烧牌", "憋3"} <= names
    assert not any("贡" in n for n in names)
    assert not any(i.get("tribute") for m in res["items"] for i in m)


@pytest.mark.parametrize("pid", ["gouji-core", "gouji-dagang", "gouji-bie3"])
def test_a_silent_sheet_records_the_tribute_and_scores_nothing(pid: str) -> None:
    d = Deal(pid)
    [note] = tribute(d, 0, 3, "2H 2D")
    assert note["kind"] == "tribute" and "says nothing" in note["why"]
    assert tribute_items(d) == [] and d.ref.errors == []
    assert d.ref.report()["tribute"]["mode"] == "unstated"


def test_huan_scores_nothing_under_every_sheet() -> None:
    for pid in Rules.ids():
        if Rules.load(pid).score.tribute == "none":
            continue
        d = Deal(pid)
        [note] = tribute(d, 1, 4, "3S", what="return")
        assert "还贡" in note["why"]
        assert tribute_items(d) == [], pid


def test_tribute_comes_before_the_first_set_of_its_deal() -> None:
    ref = GoujiReferee(Rules.load("gouji-changshi"))
    [err] = ref.feed(exchange(0, seat=0, to=1, count=1, cards=None))
    assert err["kind"] == "error" and "before any hand_start" in err["problem"]
    d = Deal("gouji-changshi")
    d.play(0, "5S")
    [err] = tribute(d, 4, 1, "BJ")
    assert err["kind"] == "error" and "first set" in err["problem"]
    assert tribute_items(d) == [] and d.ref.violations == []


def test_tribute_cards_are_not_counted_against_the_four_decks() -> None:
    d = Deal("gouji-changshi")
    tribute(d, 3, 0, "5S 5S 5S 5S")  # every copy of 5S handed over, then played
    d.play(0, "5S 5S 5S 5S")
    assert d.ref.errors == []


@pytest.mark.parametrize(
    ("fields", "field", "schema_too"),
    [
        ({"seat": 9, "to": 1, "count": 1, "cards": None}, "'seat'", True),
        ({"seat": 0, "to": True, "count": 1, "cards": ["AS"]}, "'to'", True),
        ({"seat": 2, "to": 2, "count": 1, "cards": ["AS"]}, "'to'", False),
        ({"seat": 0, "to": 1, "count": 1, "cards": "AS"}, "'cards'", True),
        ({"seat": 0, "to": 1, "count": 1, "cards": ["XX"]}, "'cards'", True),
        ({"seat": 0, "to": 1, "count": 1, "cards": [7]}, "'cards'", True),
        ({"seat": 0, "to": 1}, "'count'", True),
        ({"seat": 0, "to": 1, "cards": None}, "'count'", True),
        ({"seat": 0, "to": 1, "cards": []}, "'count'", True),
        ({"seat": 0, "to": 1, "cards": ["AS"], "count": 2}, "'count'", False),
        ({"seat": 0, "to": 1, "cards": None, "count": 40}, "'count'", False),
        ({"seat": 0, "to": 1, "cards": None, "count": -1}, "'count'", True),
        ({"seat": 0, "to": 1, "cards": None, "count": 0}, "'count'", False),
        ({"seat": 0, "to": 1, "cards": None, "count": "2"}, "'count'", True),
    ],
)
def test_bad_tribute_fields_are_errors_naming_seq_and_field(
    fields: dict[str, Any], field: str, schema_too: bool
) -> None:
    """The referee checks what the schema cannot say (to ≠ seat, count ≥ 1 and against the
    cards); a bad tribute moves no card."""
    d = Deal("gouji-changshi")
    seq = d.seq
    [err] = d.ref.feed(exchange(seq, **fields))
    assert err["kind"] == "error"
    assert f"tribute seq {seq}: field {field}" in err["problem"]
    assert d.ref.violations == [] and d.t.counts == [36] * 6
    if schema_too:
        with pytest.raises(RecordError):
            validate_event(exchange(seq, **fields))
    else:
        validate_event(exchange(seq, **fields))


def test_with_cards_the_count_defaults_to_their_number() -> None:
    d = Deal("gouji-changshi")
    [note] = d.ref.feed(exchange(d.seq, seat=4, to=1, cards=["BJ", "2S"]))
    assert note["count"] == 2 and tribute_items(d) == [(1, "进贡 ×2", 2)]


def test_the_schema_takes_a_tribute_exchange_and_a_correction_of_it() -> None:
    ok = validate_event(exchange(3, seat=0, to=1, count=1, cards=["BJ"]))
    assert ok["cards"] == ["BJ"]
    validate_event(
        exchange(4, seat=0, to=1, count=2, cards=None, what="return")
        | {"by": "seat 0 buttons", "evidence": None}
    )
    validate_event(
        {"v": 1, "seq": 5, "t": 2.0, "type": "correction", "ref": 4, "by": "r", "why": "j"}
        | {"what": "tribute"}
    )
    with pytest.raises(RecordError, match="count"):
        validate_event(exchange(3, seat=0, to=1, cards=["BJ"]))
    for gone in ({"type": "tribute", "cards": ["BJ"]}, {"kind": "jin"}):  # no second form
        with pytest.raises(RecordError):
            validate_event(exchange(3, seat=0, to=1, count=1, cards=["BJ"]) | gone)
    with pytest.raises(RecordError, match="kind"):
        validate_event(
            {"v": 1, "seq": 5, "t": 2.0, "type": "correction", "ref": 4, "by": "r", "why": "j"}
            | {"kind": "huan"}
        )


def test_a_corrected_tribute_is_rejudged() -> None:
    d = Deal("gouji-changshi")
    seq = d.seq
    tribute(d, 4, 1, "BJ 2S")
    d.ev("correction", ref=seq, cards=["BJ"], count=1, by="ref-1", why="one card only")
    assert tribute_items(d) == [(1, "进贡", 1)]
    d.ev("correction", ref=seq, what="return", by="ref-1", why="it was returned")
    assert tribute_items(d) == []
    assert d.ref.report()["hands"][-1]["tributes"][0]["kind"] == "huan"
    d.ev("correction", ref=seq, what="buy", by="ref-1", why="it was bought")
    assert d.ref.report()["hands"][-1]["tributes"] == [] and d.t.counts == [36] * 6


def test_judge_json_carries_the_deals_tributes() -> None:
    seq = SeqCounter()
    start = {
        "game": "gouji",
        "profile": "gouji-changshi",
        "seats": list("abcdef"),
        "teams": [[0, 2, 4], [1, 3, 5]],
        "levels": ["-", "-"],
    }
    events = [
        seq.event("match_start", 0.0, **start),
        seq.event("hand_start", 1.0, hand=1, banker=0, level="-"),
        seq.event("exchange", 2.0, seat=5, to=0, count=2, what="tribute", cards=["BJ", "BJ"]),
        seq.event("play", 3.0, seat=0, cards=["5S"]),
    ]
    referee, _ = judge_events(events, None)
    report = referee.report()
    assert report["hands"][0]["tributes"][0]["cards"] == ["BJ", "BJ"]
    assert report["hands"][0]["scores"]["seats"][0] == 2


TRIBUTE = st.fixed_dictionaries(
    {
        "type": st.just("exchange"),
        "what": st.sampled_from(["tribute", "进贡", "return", "还贡"]),
        "seat": st.one_of(st.integers(-1, 6), st.none(), st.text(max_size=2)),
        "to": st.one_of(st.integers(-1, 6), st.booleans()),
        "cards": st.one_of(
            st.lists(st.sampled_from(["BJ", "AS", "3H", "XX"]), max_size=3), st.none(), st.text()
        ),
    },
    optional={"count": st.one_of(st.integers(-2, 40), st.text(), st.none())},
)


@settings(max_examples=80, deadline=None)
@given(pid=st.sampled_from(Rules.ids()), body=st.lists(TRIBUTE, max_size=8))
def test_random_tributes_never_crash_or_accuse(pid: str, body: list[dict[str, Any]]) -> None:
    d = Deal(pid)
    for ev in body:
        d.ref.feed({"v": 1, "seq": d.seq, "t": 1.0, **ev})
        d.seq += 1
    assert d.ref.violations == []
    assert sum(d.t.counts) == 216 and min(d.t.counts) >= 0


def test_a_corrected_tribute_sends_its_new_note() -> None:
    """A view follows the notes the judge sends: a tribute whose cards a referee corrected is
    sent again with what it now moves (its seq, seat and kind unchanged)."""
    d = Deal("gouji-changshi")
    seq = d.seq
    tribute(d, 4, 1, "BJ 2S")
    sent = d.ev("correction", ref=seq, cards=["BJ"], count=1, by="ref-1", why="one card only")
    notes = [r for r in sent if r["kind"] == "tribute"]
    assert [(r["at_seq"], r["count"], r["cards"]) for r in notes] == [(seq, 1, ["BJ"])]
