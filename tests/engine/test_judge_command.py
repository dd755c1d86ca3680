"""``tablescan judge`` builds its referee through the registry: the record's options hold,
``--profile`` swaps the sheet within the record's game only."""

from __future__ import annotations

import pytest

from engine.record import SeqCounter
from tablescan.commands.judge import judge_events


def record(options: dict[str, object] | None = None) -> list[dict[str, object]]:
    seq = SeqCounter()
    start = {
        "game": "tractor",
        "profile": "standard",
        "seats": ["N", "W", "S", "E"],
        "teams": [[0, 2], [1, 3]],
        "levels": ["2", "2"],
    } | ({"options": options} if options else {})
    return [
        seq.event("match_start", 0.0, **start),
        seq.event("hand_start", 1.0, hand=1, banker=0, level="2"),
        seq.event("trump", 2.0, suit="S"),
        seq.event("play", 3.0, seat=0, cards=["AH", "KH"]),
    ]


def test_the_records_options_reach_the_referee() -> None:
    referee, rulings = judge_events(record({"throw.allowed": False}), None)
    assert referee.rules.throw.allowed is False
    assert [r["rule"] for r in rulings if r["kind"] == "violation"] == ["illegal_lead"]
    plain, rulings = judge_events(record(), None)
    assert plain.rules.throw.allowed is True
    assert [r for r in rulings if r["kind"] == "violation"] == []


def test_profile_override_stays_within_the_records_game() -> None:
    referee, _ = judge_events(record(), "xize-1h")
    assert referee.report()["profile"] == "xize-1h"
    with pytest.raises(ValueError, match="profile 'gouji-core' is not a tractor profile"):
        judge_events(record(), "gouji-core")
    with pytest.raises(ValueError, match="no match_start; give --profile"):
        judge_events(record()[1:], None)
