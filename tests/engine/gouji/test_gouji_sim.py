"""Random legal six-player deals per profile: whole deals end with a full finishing order, scores
sum as each sheet says, legal deals get no violation, injected illegal plays all get flagged at
their seq and nothing else does."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from engine.cards import deck
from engine.gouji import Rules
from engine.gouji.referee import GoujiReferee
from engine.gouji.sim import simulate
from engine.record import validate_event

PROFILES = Rules.ids()
SEEDS = range(12)


def judge(pid: str, events: list[dict[str, Any]]) -> GoujiReferee:
    ref = GoujiReferee(Rules.load(pid))
    for e in events:
        ref.feed(validate_event(e))
    return ref


@pytest.mark.parametrize("pid", PROFILES)
def test_legal_deals_end_and_get_no_violation(pid: str) -> None:
    for seed in SEEDS:
        events, truth = simulate(pid, seed)
        ref = judge(pid, events)
        hand = ref.report()["hands"][0]
        assert ref.violations == [] and ref.errors == [], (pid, seed)
        assert not [r for r in ref.rulings if r["kind"] in ("kou_wrong_seat", "needs_referee")]
        order = truth["finishing_order"]
        assert sorted(order) == list(range(6)) and hand["finishing_order"] == order
        assert hand["final"]
        # every card is accounted for: dealt = played + left in the hands of blocked seats
        dealt = Counter(c for h in truth["dealt"] for c in h)
        assert dealt == Counter(map(str, deck(4)))
        played = Counter(c for r in hand["rounds"] for p in r["plays"] for c in p["cards"])
        left = Counter(c for h in truth["left"] for c in h)
        assert played + left == dealt, (pid, seed)
        assert [e["seq"] for e in events] == list(range(len(events)))
        assert all(
            b > a
            for a, b in zip((e["t"] for e in events), (e["t"] for e in events[1:]), strict=False)
        )


@pytest.mark.parametrize("pid", PROFILES)
def test_scores_sum_as_the_sheet_says(pid: str) -> None:
    rules = Rules.load(pid)
    table = list(rules.score.places)
    for seed in SEEDS:
        _events, truth = simulate(pid, seed)
        sc, order = truth["scores"], truth["finishing_order"]
        for place, seat in enumerate(order):
            got = [i["points"] for i in sc["items"][seat] if i["what"] in PLACE]
            assert got == ([table[place]] if table[place] else []), (pid, seed, seat)
        assert sc["teams"] == [sum(sc["seats"][0::2]), sum(sc["seats"][1::2])]
        swept = len({s % 2 for s in order[:3]}) == 1
        assert sc["chuansanhu"] is swept
        if pid in ("gouji-bie3", "gouji-kelamayi"):
            # every extra is ± between two seats and the place table sums to 0 (L237, L248)
            assert sum(sc["seats"]) == 0
        if pid in ("gouji-paodekuai", "gouji-core", "gouji-dagang", "gouji-abqu"):
            assert sum(sc["seats"]) == sum(table)  # no extras in these sheets
        if pid == "gouji-changshi" and swept:
            assert sorted(sc["teams"]) == [0, 9]  # 「胜利方直接得9分，负方不得分」(L45)
        if rules.score.positive_only:
            # 「正负相加后只记录正分」(L237), 「只记正分，不记负分」(L254)
            net = sc["teams"][0] - sc["teams"][1]
            assert sorted(sc["recorded"]) == [0, abs(net)]


PLACE = {"头科", "二科", "三科", "四科", "二落", "大落"}


@pytest.mark.parametrize("pid", PROFILES)
def test_injected_violations_are_all_flagged_and_nothing_else(pid: str) -> None:
    kinds: Counter[str] = Counter()
    for seed in SEEDS:
        events, truth = simulate(pid, seed, inject=4)
        assert truth["legal_flagged"] == []
        ref = judge(pid, events)
        key = ("rule", "seat", "at_seq", "proven_by_seq")
        want = {tuple(v[k] for k in key) for v in truth["violations"]}
        got = {tuple(v[k] for k in key) for v in ref.violations}
        assert want and got == want, (pid, seed)
        for v in ref.violations:
            assert v["evidence"][0] and v["penalty"]
        kinds.update(v["rule"] for v in truth["violations"])
    assert {"out_of_turn", "invalid_set", "not_beating"} <= set(kinds)


def test_simulation_is_deterministic_and_seeds_differ() -> None:
    a, ta = simulate("gouji-bie3", 3, inject=2)
    b, tb = simulate("gouji-bie3", 3, inject=2)
    assert a == b and ta == tb
    c, _ = simulate("gouji-bie3", 4, inject=2)
    assert c != a


def test_bie3_deals_block_and_buy_threes() -> None:
    seen: Counter[str] = Counter()
    for seed in SEEDS:
        events, truth = simulate("gouji-tv-bie3", seed)
        seen.update(e["type"] for e in events)
        assert all(any(c.startswith("3") for c in h) for h in truth["hands"])
    assert seen["show"] > 0 and seen["exchange"] > 0


def test_two_deals_in_one_record_sum_in_the_match_totals() -> None:
    a, _ = simulate("gouji-qingdao", 1)
    b, _ = simulate("gouji-qingdao", 2)
    second = [dict(e) for e in b if e["type"] != "match_start"]
    second[0]["hand"] = 2  # the hand_start of the second deal
    events = [{**e, "seq": i} for i, e in enumerate([*a, *second])]
    ref = judge("gouji-qingdao", events)
    rep = ref.report()
    assert [h["hand"] for h in rep["hands"]] == [1, 2] and rep["match"]["deals"] == 2
    assert rep["match"]["teams"] == [
        sum(h["scores"]["recorded"][t] for h in rep["hands"]) for t in (0, 1)
    ]
