"""Golden tests for what a set is, what beats what and what is 够级, per sheet (GOUJI.md C5–C7,
§3.1). Each case quotes the sheet line it enforces."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import Card
from engine.gouji import Rules, beats, is_gouji, valid_set
from engine.gouji.plays import analyse, kaidian_kind, opens_point

CORE = Rules.load("gouji-core")


def R(pid: str) -> Rules:
    return Rules.load(pid)


def test_api_accepts_strings_and_card_lists() -> None:
    assert beats("5S 5H", [Card("6", "S"), Card("6", "D")], CORE)
    assert beats(["5S", "5H"], ["6S", "6D"], CORE)
    assert valid_set([Card("BJ", None)], CORE)


def test_same_count_strictly_higher_suits_ignored() -> None:
    # 「同样张数的牌才允许比较大小」(L247), 「点数大的即大」(L247), 「不论花色、点数为准」(L61)
    assert beats("5S 5H", "6C 6D", CORE)
    assert not beats("5S 5H", "5C 5D", CORE)  # equal does not beat
    assert not beats("5S 5H", "6C 6D 6S", CORE)  # count fixed by the lead
    assert not beats("5S 5H", "AC", CORE)


def test_rank_order_big_joker_small_joker_two_ace() -> None:
    # 「大花>小花>2>A>K>Q>J>10」(L247), 「3最小」(L61)
    order = ["3S", "4S", "10S", "JS", "QS", "KS", "AS", "2S", "SJ", "BJ"]
    for lo, hi in itertools.pairwise(order):
        assert beats(lo, hi, CORE) and not beats(hi, lo, CORE), (lo, hi)


def test_ranks_may_not_mix_except_jokers_and_twos() -> None:
    # 「不同点数牌不可混合发出」(L64); the exceptions 「大小花、2（钱）」(L64)
    assert not valid_set("5S 6S", CORE)
    assert valid_set("5S 5H SJ BJ 2C", CORE)
    assert "mixes ranks" in str(analyse("5S 6S", CORE))


def test_tieqian_twos_count_as_the_sets_rank() -> None:
    # 「视为该牌中的普通一员」(L63): 2,2,10,10,10 is five 10s
    r = R("gouji-changshi")
    assert beats("9S 9H 9C 9D 9S", "2S 2H 10S 10H 10C", r)
    assert not beats("JS JH JC JD JS", "2S 2H 10S 10H 10C", r)
    assert is_gouji("2S 2H 10S 10H 10C", r)  # 「5张10为法定最低级别」(L69)


@pytest.mark.parametrize("pid", ["gouji-bie3", "gouji-tongsu"])
def test_no_tieqian_profiles_refuse_attached_twos(pid: str) -> None:
    # bie3 「“2”不可以贴」(L247); tongsu 「本规则亦规定实行不“贴钱”的玩法」(L270)
    assert not valid_set("2S 10S 10H", R(pid))
    assert valid_set("2S 2H", R(pid))
    assert valid_set("SJ 2S", R(pid))  # 2s with jokers only stay 2s (L22)


def test_two_part_comparison_bie3_examples() -> None:
    r = R("gouji-bie3")
    # 2 small jokers + three 8s 「用2个大花带3个9大过」(L248) or 「也可以用3个花带2个9大过」(L248)
    assert beats("SJ SJ 8S 8H 8C", "BJ BJ 9S 9H 9C", r)
    assert beats("SJ SJ 8S 8H 8C", "SJ SJ SJ 9S 9H", r)
    # 「必须在两个方面都大过此牌」(L248): higher natural part alone is not enough
    assert not beats("SJ SJ 8S 8H 8C", "SJ SJ 9S 9H 9C", r)
    assert not beats("SJ SJ 8S 8H 8C", "BJ BJ 7S 7H 7C", r)
    # 「3个2可以大过大花」(L248): 1 small joker + three 6s 「用3个2带3个7大过」(L248)
    assert beats("SJ 6S 6H 6C", "2S 2H 2C 7S 7H 7C", r)
    assert beats("BJ", "2S 2H 2C", r)


def test_tongsu_only_two_big_kill_one_big() -> None:
    r = R("gouji-tongsu")
    # 「仅认同“两大灭一大”」(L270): two big jokers kill one, alone or attached
    assert beats("BJ", "BJ BJ", r)
    assert beats("BJ 5S", "BJ BJ 6S", r)
    # 「三小灭一大」 and 「四钱灭一大」 are rejected (L270)
    assert not beats("BJ", "SJ SJ SJ", r)
    assert not beats("BJ", "2S 2H 2C 2D", r)


def test_changshi_forbids_two_big_kill_one() -> None:
    # 「不允许两个大花杀一个大花」(L52)
    assert not beats("BJ", "BJ BJ", R("gouji-changshi"))


@pytest.mark.parametrize("pid", ["gouji-jinan-2010", "gouji-dianshao"])
def test_two_big_kill_one_where_allowed(pid: str) -> None:
    # jinan 「当发单大王时，对头可用两大王杀牌」(L205); dianshao 「两个大花可以杀一个大花」(L263)
    assert beats("BJ", "BJ BJ", R(pid))


def test_16tiao_big_joker_sets_are_dead_and_small_joker_rule() -> None:
    r = R("gouji-16tiao")
    # 「发牌均为死牌」(L62)
    assert not beats("BJ 5S 5H", "BJ BJ 6S", r)
    assert not beats("BJ", "BJ BJ", r)
    # 「大花挂高于小花所挂牌一点以上」(L62), 「且大花不得少于小花数量」(L62)
    assert beats("SJ 8S 8H", "BJ 9S 9H", r)
    assert not beats("SJ 8S 8H", "BJ 8C 8D", r)
    assert not beats("SJ SJ 8S", "BJ SJ 9S", r)
    assert not beats("SJ 8S 8H", "SJ SJ 9S", r)


def test_pure_joker_sets_compare_big_over_small() -> None:
    # C6: 「Sets made only of jokers, with equal counts: big beats small」
    assert beats("SJ SJ", "BJ BJ", CORE)
    assert not beats("BJ BJ", "SJ SJ", CORE)
    assert beats("SJ SJ", "BJ SJ", CORE)


@pytest.mark.parametrize(
    ("cards", "gouji"),
    [
        ("SJ", True),  # 「1张大、小花和钱」(L69)
        ("BJ", True),
        ("2S", True),
        ("AS", False),
        ("AS AH", True),  # 「2张A，2张K，3张Q」(L69)
        ("KS KH", True),
        ("QS QH", False),
        ("QS QH QC", True),
        ("JS JH JC", False),
        ("JS JH JC JD", True),  # 「4张J，5张10为法定最低级别」(L69)
        ("10S 10H 10C 10D", False),
        ("10S 10H 10C 10D 10S", True),
        ("9S 9H 9C 9D 9S 9H 9C", False),  # below 10: never (C7 default)
        ("2S 2H JS JH", True),  # attached 2s count toward the threshold (C7 interp.)
        ("SJ 5S", True),  # 挂花: 「一律视作“够级牌”」(L22)
    ],
)
def test_gouji_thresholds(cards: str, gouji: bool) -> None:
    assert is_gouji(cards, CORE) is gouji


def test_threes_and_fours_take_no_attachments() -> None:
    # 「3不许挂2，不许挂王，不许掰开出」(L100); 「4既不能贴2，也不能挂花」(L28)
    assert not valid_set("3S SJ", R("gouji-tv-bie3"))
    assert valid_set("3S SJ", R("gouji-paodekuai"))  # no 憋3 there
    assert not valid_set("4S 2S", R("gouji-changshi"))
    assert not valid_set("4S BJ", R("gouji-tiaozhan"))  # 「4不得挂牌」(L232)
    assert valid_set("4S BJ", CORE)


@pytest.mark.parametrize(
    ("pid", "cards", "opens"),
    [
        ("gouji-changshi", "AS AH", True),  # 「开点必须用纯够级牌」(L27)
        ("gouji-changshi", "2S AS AH", False),  # 「贴二、挂花都不算开点」(L27)
        ("gouji-changshi", "SJ AS", False),
        ("gouji-16tiao", "2S 2H", True),  # 「大小花和单张2不开点」(L71): two 2s count (interp.)
        ("gouji-16tiao", "2S", False),
        ("gouji-tv-bie3", "2S AS AH", True),  # 「够级牌开点，可以挂2」(L106)
        ("gouji-tv-bie3", "SJ", False),  # 「单2、单大王、单小王」(L106) 不开点
        ("gouji-kelamayi", "2S", True),  # 「单点2」(L238)
        ("gouji-kelamayi", "SJ KS", True),  # 「小花或挂小花都算开点」(L238)
        ("gouji-kelamayi", "BJ KS", False),  # 「大 花或挂大花不算开点」(L238)
        ("gouji-bie3", "2S 2H", False),  # 「任意张大花，小花，2或者挂花的牌」(L248)
        ("gouji-jinan-2010", "KS KH", True),  # 「够级牌原版开点」(L183)
        ("gouji-dianshao", "2S", False),  # 「单2不“开点”，但可贴牌」(L263)
    ],
)
def test_which_sets_open_the_point(pid: str, cards: str, opens: bool) -> None:
    s = analyse(cards, R(pid))
    assert not isinstance(s, str)
    assert opens_point(s, R(pid)) is opens, kaidian_kind(s, R(pid))


_CARD = st.sampled_from(["3S", "5H", "5D", "9C", "10S", "JS", "QH", "AS", "2S", "2H", "SJ", "BJ"])
_SET = st.lists(_CARD, min_size=1, max_size=5)


@settings(max_examples=300, deadline=None)
@given(a=_SET, b=_SET, pid=st.sampled_from(Rules.ids()))
def test_beats_is_antisymmetric_and_irreflexive(a: list[str], b: list[str], pid: str) -> None:
    r = R(pid)
    assert not beats(a, a, r)
    assert not (beats(a, b, r) and beats(b, a, r))
    if beats(a, b, r):
        assert valid_set(a, r) and valid_set(b, r)


@settings(max_examples=200, deadline=None)
@given(rank=st.sampled_from(["10", "J", "Q", "K", "A", "2"]), n=st.integers(1, 7))
def test_gouji_is_monotone_in_count(rank: str, n: int) -> None:
    cards = [f"{rank}S"] * n
    if is_gouji(cards, CORE):
        assert is_gouji([*cards, f"{rank}H"], CORE)
