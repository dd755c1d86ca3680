"""Every format file loads, is named for a rule profile of its game, and cites every key."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.games import game_of_profile
from engine.tournament import FormatError, format_ids, load_format


@pytest.mark.parametrize("fid", format_ids())
def test_each_format_is_a_sheet_profile_of_its_game(fid: str) -> None:
    fmt = load_format(fid)
    assert game_of_profile(fid).name == fmt.game
    assert fmt.open, "each sheet leaves something open, and the file says what"
    for stage in fmt.stages:
        assert stage.kind in ("knockout", "round_robin", "swiss")
        assert "kind" in stage.cite and "games" in stage.cite


def test_the_sheets_formats_are_all_there() -> None:
    assert {
        "gouji-qingdao", "gouji-paodekuai", "gouji-dianshao", "gouji-kelamayi",
        "gouji-jinan-2010", "gouji-abqu", "gouji-changshi", "chaodipi-anchao", "chaodipi-h5",
        "community-10ka", "four-deck", "xize-1h", "cyclic-eat", "school-2010", "cmec-nj-2013",
        "jiawang", "pass10", "timed-45min",
    } <= set(format_ids())  # fmt: skip
    h5 = load_format("chaodipi-h5")
    assert [s.kind for s in h5.stages] == ["knockout", "swiss"]
    assert h5.stages[0].until == 20 and h5.stages[1].rounds == 3
    clock = load_format("chaodipi-anchao").clock
    assert (clock.limit_s, clock.late_limit_s, clock.late_from) == (3600, 5400, 4)
    assert clock.finish_deal and clock.on_tie == "last_banker"
    assert load_format("xize-1h").clock.on_tie == "extra_deal"
    assert [clock.limit_for(n) for n in (16, 8, 4, 2)] == [3600, 3600, 5400, 5400]
    four = load_format("four-deck").clock
    assert [four.limit_for(n) for n in (32, 9, 8)] == [21600, 21600, 0]


def test_a_key_without_its_citation_is_refused(tmp_path: Path) -> None:
    text = (Path(__file__).parents[3] / "engine/tournament/formats/cyclic-eat.toml").read_text()
    (tmp_path / "cyclic-eat.toml").write_text(text.replace('first_to = "「三局两胜」[001]"\n', ""))
    with pytest.raises(
        FormatError, match=r"cyclic-eat.toml \[\[stage\]\] 1: key first_to: set without"
    ):
        load_format("cyclic-eat", folder=tmp_path)  # type: ignore[arg-type]


def test_an_unknown_kind_is_refused(tmp_path: Path) -> None:
    text = (Path(__file__).parents[3] / "engine/tournament/formats/cyclic-eat.toml").read_text()
    (tmp_path / "cyclic-eat.toml").write_text(text.replace('kind = "knockout"', 'kind = "ladder"'))
    with pytest.raises(FormatError, match="key kind: 'ladder' is not knockout"):
        load_format("cyclic-eat", folder=tmp_path)  # type: ignore[arg-type]
