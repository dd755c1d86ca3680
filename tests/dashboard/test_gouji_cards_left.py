"""The table view's cards left per Gouji seat start at the match's deal (``deal.decks`` with the
record's options: a house's 2 or 3 decks deal 18 or 27), not at the sheets' 36."""

from __future__ import annotations

import pytest

from dashboard.view import TableFold
from engine.gouji.sim import simulate


@pytest.mark.parametrize(
    ("options", "hand"), [(None, 36), ({"deal.decks": 3}, 27), ({"deal.decks": 2}, 18)]
)
def test_cards_left_start_at_the_rules_hand(options: dict[str, int] | None, hand: int) -> None:
    events, _ = simulate("gouji-core", 1, options=options)
    first = next(i for i, e in enumerate(events) if e["type"] == "play")
    fold = TableFold("t1")
    for ev in events[: first + 1]:
        fold.event(ev, 0.0)
    left = [s["cards_left"] for s in fold.view["seats"]]
    seat, played = events[first]["seat"], len(events[first]["cards"])
    assert left == [hand - played if s == seat else hand for s in range(6)]


def test_an_unknown_profile_counts_from_the_core_deal() -> None:
    events, _ = simulate("gouji-core", 1)
    fold = TableFold("t1")
    fold.event({**events[0], "profile": "gouji-elsewhere"}, 0.0)
    fold.event(events[1], 0.0)
    assert [s["cards_left"] for s in fold.view["seats"]] == [36] * 6
