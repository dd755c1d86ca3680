"""The record's optional ``reads`` (where each card lies in the evidence frame): accepted on
play, bury and bottom_reveal, refused with the field named when a box names a card the event
does not hold, and written by the fusion from the tracker's reads."""

from __future__ import annotations

from typing import Any

import pytest

from engine.record import RecordError, validate_event
from fusion.plays import with_reads
from vision.tracking import Observation, Read

PLAY: dict[str, Any] = {
    "v": 1,
    "seq": 17,
    "t": 84.5,
    "type": "play",
    "seat": 2,
    "cards": ["KH", "KH"],
}
BOX = [412.0, 230.0, 96.0, 138.0]


def test_reads_are_accepted_where_documented() -> None:
    reads = [{"card": "KH", "box": BOX, "score": 0.97}, {"card": "KH", "box": BOX}]
    assert validate_event({**PLAY, "reads": reads})["reads"] == reads
    bury = {"v": 1, "seq": 4, "t": 9.0, "type": "bury", "seat": 0, "count": 2}
    validate_event({**bury, "reads": [{"card": "back", "box": BOX}] * 2})
    bottom = {"v": 1, "seq": 90, "t": 400.0, "type": "bottom_reveal", "cards": ["5D", "BJ"]}
    validate_event({**bottom, "reads": [{"card": "BJ", "box": BOX}]})


@pytest.mark.parametrize(
    ("reads", "field", "words"),
    [
        ([{"card": "AS", "box": BOX}], "reads[0]", "'AS' is not a card of this event"),
        ([{"card": "KH", "box": BOX}] * 3, "reads[2]", "'KH' is not a card of this event"),
        ([{"card": "KH", "box": [1, 2, 3]}], "reads[0].box", "at least 4"),
        ([{"card": "KH", "box": [-1, 2, 3, 4]}], "reads[0].box[0]", "below the minimum"),
        ([{"card": "KH", "box": BOX, "why": 1}], "reads[0].why", "unknown field"),
    ],
)
def test_bad_reads_name_the_field(reads: list[dict[str, Any]], field: str, words: str) -> None:
    with pytest.raises(RecordError) as err:
        validate_event({**PLAY, "reads": reads})
    assert err.value.field == field and words in str(err.value)


def test_fusion_passes_the_trackers_boxes_through() -> None:
    reads = (
        Read("KH", 0.97, 0.1, 0.2, (412.0, 230.0, 96.0, 138.0)),
        Read("QS", 0.91, 0.3, 0.2, (10.0, 20.0, 90.0, 130.0)),  # lay there before: not this play
        Read("KH", 0.884, 0.2, 0.2, (520.0, 228.0, 95.0, 139.0)),
    )
    obs = Observation("appeared", "seat2", 2, 417, 84.5, cards=("KH", "KH"), reads=reads)
    ev = with_reads({"type": "play", "cards": ["KH", "KH"]}, obs, ["KH", "KH"])
    assert ev["reads"] == [
        {"card": "KH", "box": [412.0, 230.0, 96.0, 138.0], "score": 0.97},
        {"card": "KH", "box": [520.0, 228.0, 95.0, 139.0], "score": 0.884},
    ]
    bare = Observation(
        "appeared", "seat2", 2, 417, 84.5, cards=("KH",), reads=(Read("KH", 0.9, 0, 0),)
    )
    assert "reads" not in with_reads({"type": "play"}, bare, ["KH"])  # no box: no field


def test_a_reads_history_is_validated_and_shown_in_the_report() -> None:
    """``reads[].history``: the frames' reads of a card, [frame, card, score]; a bad one names
    its place; the dispute report lists it under the frame."""
    history = [[440, "KH", 0.95], [441, "KH", 0.96], [452, "KC", 0.41]]
    ok = {**PLAY, "reads": [{"card": "KH", "box": BOX, "score": 0.95, "history": history}]}
    assert validate_event(ok)["reads"][0]["history"] == history
    for bad, field in (
        ([[440, "KX", 0.9]], "reads[0].history[0][1]"),
        ([[440, "KH"]], "reads[0].history[0]"),
        ([[-1, "KH", 0.9]], "reads[0].history[0][0]"),
        ([[440, "KH", 1.5]], "reads[0].history[0][2]"),
    ):
        with pytest.raises(RecordError) as err:
            validate_event({**PLAY, "reads": [{"card": "KH", "box": BOX, "history": bad}]})
        assert err.value.field == field
    from evidence.report import _history

    shown = _history(ok, "en")
    assert "Read in each frame" in shown and "452: KC 0.41" in shown
    assert "逐帧识别" in _history(ok, "zh") and _history(PLAY, "en") == ""


def test_fusion_passes_a_reads_history_through() -> None:
    read = Read("KH", 0.97, 0.1, 0.2, (412.0, 230.0, 96.0, 138.0), ((3, "KH", 0.9712),))
    obs = Observation("appeared", "seat2", 2, 417, 84.5, cards=("KH",), reads=(read,))
    ev = with_reads({"type": "play", "cards": ["KH"]}, obs, ["KH"])
    assert ev["reads"][0]["history"] == [[3, "KH", 0.971]]
