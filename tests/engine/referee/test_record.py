"""The match record: schema validation, seq chain, reading bad files, writing, corrections."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from engine.games import referee_for
from engine.record import (
    RecordError,
    SeqCounter,
    apply_corrections,
    correction_problem,
    event_types,
    read_record,
    validate_event,
    write_record,
)

START = {
    "v": 1,
    "seq": 0,
    "t": 0.0,
    "type": "match_start",
    "game": "tractor",
    "profile": "standard",
    "seats": ["Ann", "Bo", "Cy", "Di"],
    "teams": [[0, 2], [1, 3]],
    "levels": ["2", "2"],
}


def ev(seq: int, type_: str, **kw: object) -> dict[str, object]:
    return {"v": 1, "seq": seq, "t": float(seq), "type": type_, **kw}


def test_every_documented_type_is_in_the_schema_and_the_doc() -> None:
    doc = (Path(__file__).parents[3] / "docs" / "record-format.md").read_text(encoding="utf-8")
    for name in event_types():
        assert f"### `{name}`" in doc, name
    assert {"match_start", "play", "correction", "needs_referee", "ruling"} <= set(event_types())


def test_valid_events_pass() -> None:
    assert validate_event(START) is START
    play = ev(5, "play", seat=1, cards=["10H", "BJ"], evidence=None, confidence=0.5)
    assert validate_event(play)["cards"] == ["10H", "BJ"]
    validate_event(ev(6, "trump", suit=None))
    validate_event(
        ev(7, "needs_referee", ref=5, candidates=[{"cards": ["10H"], "confidence": 0.4}])
    )
    validate_event(ev(8, "correction", ref=5, cards=["9H"], by="r1", why="misread"))
    validate_event(ev(9, "ruling", ref="1:revoke:2:14", decision="dismissed", by="r1"))


@pytest.mark.parametrize(
    ("event", "field", "words"),
    [
        (ev(1, "play", seat=1, cards=["10H", "XH"]), "cards[1]", "'XH' is not valid"),
        (ev(1, "play", seat=1), "cards", "missing required field"),
        (ev(1, "play", seat=9, cards=["AS"]), "seat", "above the maximum"),
        (ev(1, "play", seat=1, cards=[]), "cards", "at least 1"),
        (ev(1, "play", seat=True, cards=["AS"]), "seat", "expected integer"),
        (ev(1, "play", seat=1, cards=["AS"], confidence=1.5), "confidence", "maximum"),
        (ev(1, "play", seat=1, cards=["AS"], colour="red"), "colour", "unknown field"),
        (ev(1, "hand_end") | {"v": 2}, "v", "expected 1"),
        (ev(1, "teleport"), "type", "unknown event type 'teleport'"),
        (ev(1, "ruling", ref="x", decision="maybe", by="r"), "decision", "not one of"),
        ({"v": 1, "t": 0, "type": "hand_end"}, "seq", "missing required field"),
    ],
)
def test_invalid_events_name_the_field(event: dict[str, object], field: str, words: str) -> None:
    with pytest.raises(RecordError) as info:
        validate_event(event)
    assert info.value.field == field
    assert words in str(info.value)
    assert field in str(info.value)


def test_bad_lines_are_reported_with_line_numbers_and_the_rest_is_read() -> None:
    lines = [
        json.dumps(START),
        "this is not json",
        json.dumps(ev(1, "hand_start", hand=1, banker=0, level="2")),
        "",
        json.dumps(ev(2, "mystery", seat=0)),
        json.dumps(ev(3, "play", seat=0, cards=["AS"])),
        json.dumps(ev(3, "play", seat=1, cards=["KS"])),  # repeated seq: dropped
        json.dumps(ev(1, "play", seat=1, cards=["KS"])),  # out of order: dropped
        json.dumps(ev(6, "play", seat=1, cards=["QS"])),  # gap 4..5: kept
        "[1, 2]",
    ]
    events, errors = read_record(lines)
    assert [e["seq"] for e in events] == [0, 1, 3, 6]
    messages = [str(e) for e in errors]
    assert [e.line for e in errors] == [2, 5, 7, 8, 9, 10]
    assert "not JSON" in messages[0]
    assert "unknown event type 'mystery'" in messages[1]
    assert "out of order: seq 3 after seq 3" in messages[2]
    assert "out of order: seq 1 after seq 3" in messages[3]
    assert "gap: seq 4..5 missing" in messages[4]
    assert "must be a JSON object" in messages[5]


def test_a_bad_event_keeps_its_place_in_the_chain() -> None:
    lines = [json.dumps(START), json.dumps(ev(1, "play", seat=0, cards=["ZZ"]))]
    lines.append(json.dumps(ev(2, "play", seat=0, cards=["AS"])))
    events, errors = read_record(lines)
    assert len(events) == 2
    assert len(errors) == 1  # no gap reported for seq 1: it was there, only invalid


def test_write_then_read_round_trip(tmp_path: Path) -> None:
    counter = SeqCounter()
    events = [
        counter.event(
            "match_start",
            0,
            **{k: v for k, v in START.items() if k not in {"v", "seq", "t", "type"}},
        ),
        counter.event("hand_start", 1.25, hand=1, banker=None, level="2"),
        counter.event("play", 2.5, seat=0, cards=["10H", "10H"], evidence="f1", confidence=0.9),
    ]
    path = tmp_path / "m.jsonl"
    assert write_record(events, path) == 3
    text = path.read_text(encoding="utf-8")
    assert text.splitlines()[2].startswith('{"v":1,"seq":2,"t":2.5,"type":"play"')
    again, errors = read_record(path)
    assert errors == []
    assert again == events
    again2, _ = read_record(io.StringIO(text))
    assert again2 == events


def test_write_refuses_an_invalid_event() -> None:
    out = io.StringIO()
    with pytest.raises(RecordError, match="seq 0, field 'game'"):
        write_record([START | {"game": ""}], out)
    with pytest.raises(RecordError, match="seq 0, field 'seats'"):
        write_record([START | {"seats": ["only one"]}], out)
    assert out.getvalue() == ""
    # a game is a name of the registry (engine.games), which refuses one it does not know
    # when a referee is asked for (tablescan judge: "unknown game 'chess' (known: ...)")
    with pytest.raises(RecordError, match=r"unknown game 'chess' \(known: tractor, gouji\)"):
        referee_for(START | {"game": "chess"})


def test_corrections_apply_in_place_and_deterministically() -> None:
    events = [
        START,
        ev(1, "play", seat=0, cards=["AS"]),
        ev(2, "play", seat=1, cards=["KS"]),
        ev(3, "correction", ref=1, cards=["AH"], by="r1", why="misread"),
        ev(4, "correction", ref=2, delete=True, by="r1", why="phantom"),
    ]
    fixed = apply_corrections(events)
    assert fixed == apply_corrections(events)
    assert [e["seq"] for e in fixed] == [0, 1, 3, 4]
    assert fixed[1]["cards"] == ["AH"]
    assert fixed[1]["corrected_by"] == [3]
    assert events[1]["cards"] == ["AS"]  # the input is not changed
    assert correction_problem(events[3], events[1]) is None
    bad = ev(5, "correction", ref=1, level="3", by="r1", why="x")
    assert "field 'level' does not exist on a play" in str(correction_problem(bad, events[1]))
    assert "no event with seq 99" in str(
        correction_problem(ev(6, "correction", ref=99, by="r", why="x"), None)
    )


def test_correction_of_an_event_of_unknown_type_is_a_problem_not_a_crash() -> None:
    from engine.record import correction_problem

    correction = {"v": 1, "seq": 9, "t": 1.0, "type": "correction", "ref": 3, "cards": ["AS"]}
    problem = correction_problem(correction, {"v": 1, "seq": 3, "t": 0.5, "type": "mystery"})
    assert problem is not None and "unknown type" in problem
