"""The 80-points referee decides its own match flow (``next_hand``, ``match_result``), as
Gouji's does: the next deal's banker and level are the last deal's ruled outcome's, the
simulator's next ``hand_start`` says the same, and no winner before a side passes its last level."""

from __future__ import annotations

from engine.games import referee_for
from engine.tractor.record_sim import simulate
from engine.tractor.rules import Rules


def test_each_deal_follows_from_the_last_ones_outcome() -> None:
    events, _truth = simulate(Rules.load("standard"), seed=4, hands=3)
    starts = [i for i, e in enumerate(events) if e["type"] == "hand_start"]
    assert len(starts) == 3
    ref = referee_for(events[0])
    assert ref.next_hand() == {"hand": 1, "banker": None, "level": "2"}  # nothing dealt yet
    fed = 0
    for k in starts[1:]:
        for e in events[fed:k]:
            ref.feed(e)
        fed = k
        want = events[k]
        assert ref.next_hand() == {
            "hand": want["hand"],
            "banker": want["banker"],
            "level": want["level"],
        }
    for e in events[fed:]:
        ref.feed(e)
    result = ref.match_result()
    assert result["hands"] == 3 and len(result["levels"]) == 2
    last = ref.report()["hands"][-1]
    assert result["levels"] == last["levels_after"]
    assert (result["winner"] is None) == (not last["outcome"].get("game_over"))
