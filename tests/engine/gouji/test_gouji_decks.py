"""The deck count as a profile setting (``deal.decks``): every sheet plays four decks (C2,
「共216张牌」 L247), a house may play 2 or 3; the deal, the card counts and the physical-limit
check follow the rules' value, never a hard-coded four."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import deck
from engine.games import referee_for
from engine.gouji import ProfileError, Rules
from engine.gouji.referee import GoujiReferee
from engine.gouji.rules import load_profile
from engine.gouji.sim import simulate
from engine.record import validate_event

HEAD = 'id = "gouji-house"\ninherits = "gouji-core"\ntitle = "house"\nlines = "L1"\n'


def test_every_sheet_plays_four_decks_of_36_a_seat() -> None:
    for pid in Rules.ids():
        rules = Rules.load(pid)
        assert (rules.deal.decks, rules.deal.hand) == (4, 36), pid


@pytest.mark.parametrize(("decks", "hand"), [(2, 18), (3, 27), (4, 36)])
def test_a_house_sets_the_decks_by_option_or_by_its_own_file(
    tmp_path: Path, decks: int, hand: int
) -> None:
    assert Rules.load("gouji-bie3", {"deal.decks": decks}).deal.hand == hand
    (tmp_path / "gouji-house.toml").write_text(
        HEAD + f'[deal]\ndecks = {decks}\n[cite]\n"deal.decks" = "house rule"\n',
        encoding="utf-8",
    )
    rules = load_profile("gouji-house", folder=tmp_path)
    assert (rules.deal.decks, rules.deal.hand) == (decks, hand)


@pytest.mark.parametrize("bad", [1, 5, 0, "4", True, 3.0])
def test_a_bad_deck_count_is_refused_naming_the_key(tmp_path: Path, bad: Any) -> None:
    with pytest.raises(ProfileError, match=r"key deal\.decks: expected"):
        Rules.load("gouji-core", {"deal.decks": bad})
    value = f'"{bad}"' if isinstance(bad, str) else str(bad).lower()
    (tmp_path / "gouji-house.toml").write_text(
        HEAD + f'[deal]\ndecks = {value}\n[cite]\n"deal.decks" = "house rule"\n',
        encoding="utf-8",
    )
    with pytest.raises(ProfileError, match=r"gouji-house\.toml: key deal\.decks: expected"):
        load_profile("gouji-house", folder=tmp_path)


def test_an_uncited_deck_count_in_a_profile_is_refused(tmp_path: Path) -> None:
    (tmp_path / "gouji-house.toml").write_text(HEAD + "[deal]\ndecks = 3\n", encoding="utf-8")
    with pytest.raises(ProfileError, match=r"key deal\.decks: overridden without a \[cite\]"):
        load_profile("gouji-house", folder=tmp_path)


def _judged(events: list[Any]) -> GoujiReferee:
    """The referee the record itself asks for (its profile and ``options``)."""
    ref = referee_for(events[0])
    assert isinstance(ref, GoujiReferee)
    for e in events:
        ref.feed(validate_event(e))
    return ref


@pytest.mark.parametrize("decks", [2, 3])
@pytest.mark.parametrize("pid", Rules.ids())
def test_a_house_deal_is_dealt_and_judged_with_its_deck_count(pid: str, decks: int) -> None:
    for seed in range(6):
        events, truth = simulate(pid, seed, options={"deal.decks": decks})
        assert events[0]["options"] == {"deal.decks": decks}
        assert [len(h) for h in truth["dealt"]] == [decks * 9] * 6, (pid, seed)
        assert Counter(c for h in truth["dealt"] for c in h) == Counter(map(str, deck(decks)))
        ref = _judged(events)
        report = ref.report()
        hand = report["hands"][0]
        assert report["errors"] == [] and report["violations"] == [], (pid, decks, seed)
        assert truth["legal_flagged"] == []
        assert hand["final"] and sorted(hand["finishing_order"]) == list(range(6))
        assert hand["finishing_order"] == truth["finishing_order"]


def test_a_house_record_judged_as_four_decks_is_misjudged() -> None:
    """Why the record carries its options: with the sheets' 36 cards a seat nobody of a
    27-card deal ever goes out, so the places stay undecided."""
    events, _ = simulate("gouji-core", 1, options={"deal.decks": 3})
    ref = GoujiReferee(Rules.load("gouji-core"))
    for e in events:
        ref.feed(validate_event(e))
    assert not ref.report()["hands"][0]["final"]


def test_the_sheets_deal_is_unchanged_without_options() -> None:
    events, truth = simulate("gouji-core", 3)
    assert "options" not in events[0]
    assert [len(h) for h in truth["dealt"]] == [36] * 6


def _deal(decks: int) -> tuple[GoujiReferee, list[int]]:
    ref = GoujiReferee(Rules.load("gouji-core", {"deal.decks": decks}))
    seq = [0]

    def ev(type_: str, **fields: Any) -> None:
        ref.feed(
            validate_event({"v": 1, "seq": seq[0], "t": float(seq[0]), "type": type_, **fields})
        )
        seq[0] += 1

    ev(
        "match_start",
        game="gouji",
        profile="gouji-core",
        options={"deal.decks": decks},
        seats=["a", "b", "c", "d", "e", "f"],
        teams=[[0, 2, 4], [1, 3, 5]],
        levels=["-", "-"],
    )
    ev("hand_start", hand=1, banker=0, level="-")
    return ref, seq


def _lead_and_pass(decks: int, sets: list[int]) -> GoujiReferee:
    """Seat 0 leads ``sets`` (counts of 5S), each round passed out by the other five."""
    ref, seq = _deal(decks)
    for n in sets:
        for ev in [
            {"type": "play", "seat": 0, "cards": ["5S"] * n, "evidence": f"f{seq[0]}"},
            *({"type": "pass", "seat": s} for s in range(1, 6)),
        ]:
            ref.feed(validate_event({"v": 1, "seq": seq[0], "t": float(seq[0]), **ev}))
            seq[0] += 1
    return ref


@pytest.mark.parametrize("decks", [2, 3, 4])
def test_the_counts_start_at_the_rules_hand(decks: int) -> None:
    ref, _ = _deal(decks)
    assert ref.state()["hand"]["counts"] == [decks * 9] * 6


def test_a_fifth_copy_is_flagged_with_four_decks_a_fourth_with_three() -> None:
    four = _lead_and_pass(4, [4, 1])
    assert "more than 4 copies of 5S" in four.errors[-1]["problem"]
    assert _lead_and_pass(4, [4]).errors == []
    three = _lead_and_pass(3, [3, 1])
    assert "more than 3 copies of 5S" in three.errors[-1]["problem"]
    assert _lead_and_pass(3, [3]).errors == []
    assert three.violations == [] and four.violations == []


@settings(max_examples=40, deadline=None)
@given(
    decks=st.integers(min_value=2, max_value=4),
    sets=st.lists(st.integers(min_value=1, max_value=3), min_size=1, max_size=4),
)
def test_a_misread_is_flagged_exactly_when_more_copies_than_decks(
    decks: int, sets: list[int]
) -> None:
    ref = _lead_and_pass(decks, sets)
    flagged = [e for e in ref.errors if "copies of 5S" in e["problem"]]
    assert bool(flagged) == (sum(sets) > decks)
