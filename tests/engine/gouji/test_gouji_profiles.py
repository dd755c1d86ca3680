"""Every Gouji sheet of GOUJI.md loads as a profile; loader errors name the file and the key."""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

import pytest

from engine.gouji import ProfileError, Rules
from engine.gouji.rules import load_profile

SHEETS = [
    "gouji-changshi",
    "gouji-16tiao",
    "gouji-tv-bie3",
    "gouji-jinan-2010",
    "gouji-dagang",
    "gouji-tiaozhan",
    "gouji-kelamayi",
    "gouji-paodekuai",
    "gouji-bie3",
    "gouji-qingdao",
    "gouji-dianshao",
    "gouji-abqu",
    "gouji-tongsu",
]


def test_every_sheet_of_gouji_md_is_a_profile_plus_core() -> None:
    assert sorted(Rules.ids()) == sorted([*SHEETS, "gouji-core"])


@pytest.mark.parametrize("pid", SHEETS)
def test_profile_inherits_core_explicitly_and_cites_every_override(pid: str) -> None:
    folder = resources.files("engine.gouji").joinpath("profiles")
    raw = tomllib.loads(folder.joinpath(f"{pid}.toml").read_text(encoding="utf-8"))
    assert raw["inherits"] == "gouji-core"
    overridden = [
        f"{sec}.{key}"
        for sec, body in raw.items()
        if isinstance(body, dict)
        for key in body
        if sec != "cite"
    ]
    for key in overridden:
        assert raw["cite"][key].strip(), key
    rules = Rules.load(pid)
    assert rules.id == pid and rules.lines.startswith("L")
    assert rules.unjudged, "each profile lists what it leaves unjudged"


def _write(tmp: Path, name: str, text: str) -> Path:
    (tmp / f"{name}.toml").write_text(text, encoding="utf-8")
    return tmp


HEAD = 'id = "gouji-x"\ninherits = "gouji-core"\ntitle = "x"\nlines = "L1"\n'


def test_uncited_override_is_refused_naming_file_and_key(tmp_path: Path) -> None:
    _write(tmp_path, "gouji-x", HEAD + "[sets]\ntieqian = false\n")
    with pytest.raises(ProfileError, match=r"gouji-x\.toml: key sets\.tieqian: .*\[cite\]"):
        load_profile("gouji-x", folder=tmp_path)


def test_bad_value_names_file_and_key(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "gouji-x",
        HEAD + '[sets]\ntieqian = "no"\n[cite]\n"sets.tieqian" = "(L1)"\n',
    )
    with pytest.raises(ProfileError, match=r"gouji-x\.toml: key sets\.tieqian: expected bool"):
        load_profile("gouji-x", folder=tmp_path)


def test_unknown_key_and_choice_are_refused(tmp_path: Path) -> None:
    _write(tmp_path, "gouji-x", HEAD + "[sets]\nbogus = 1\n")
    with pytest.raises(ProfileError, match=r"unknown key sets\.bogus"):
        load_profile("gouji-x", folder=tmp_path)
    _write(
        tmp_path,
        "gouji-x",
        HEAD + '[burn]\nsuccess = "maybe"\n[cite]\n"burn.success" = "(L1)"\n',
    )
    with pytest.raises(ProfileError, match=r"key burn\.success: 'maybe' is not one of"):
        load_profile("gouji-x", folder=tmp_path)


def test_missing_inherits_and_broken_toml_and_unknown_id(tmp_path: Path) -> None:
    _write(tmp_path, "gouji-x", 'id = "gouji-x"\ntitle = "x"\nlines = "L1"\n')
    with pytest.raises(ProfileError, match=r"gouji-x\.toml: key inherits"):
        load_profile("gouji-x", folder=tmp_path)
    _write(tmp_path, "gouji-x", "id = [\n")
    with pytest.raises(ProfileError, match=r"gouji-x\.toml: not valid TOML"):
        load_profile("gouji-x", folder=tmp_path)
    with pytest.raises(ProfileError, match=r"no such Gouji profile 'gouji-nope'"):
        Rules.load("gouji-nope")


def test_score_table_needs_six_places(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "gouji-x",
        HEAD + '[score]\nplaces = [1, 2]\n[cite]\n"score.places" = "(L1)"\n',
    )
    with pytest.raises(ProfileError, match=r"key score\.places: needs 6 numbers"):
        load_profile("gouji-x", folder=tmp_path)


def test_options_override_and_bad_option() -> None:
    assert Rules.load("gouji-core", {"sets.tieqian": False}).sets.tieqian is False
    with pytest.raises(ProfileError, match=r"options: key 'nope'"):
        Rules.load("gouji-core", {"nope": 1})
    with pytest.raises(ProfileError, match=r"options: key 'sets.bogus': unknown"):
        Rules.load("gouji-core", {"sets.bogus": 1})
    with pytest.raises(ProfileError, match=r"key sets\.tieqian: expected bool"):
        Rules.load("gouji-core", {"sets.tieqian": 1})


def test_profiles_differ_where_the_sheets_differ() -> None:
    """§3.1–§3.7 at a glance: the switches each sheet sets."""
    r = {pid: Rules.load(pid) for pid in Rules.ids()}
    assert not r["gouji-bie3"].sets.tieqian and not r["gouji-tongsu"].sets.tieqian  # L247, L270
    assert r["gouji-16tiao"].sets.joker_compare == "dead_big"  # L62
    assert r["gouji-bie3"].sets.three_twos_beat_big  # L248
    assert r["gouji-jinan-2010"].sets.two_big_kill_one == "on"  # L205
    assert r["gouji-dianshao"].sets.two_big_kill_one == "free"  # L263
    assert r["gouji-changshi"].sets.two_big_kill_one == "off"  # L52
    assert not r["gouji-paodekuai"].bie3.enabled  # 「够级比赛不瘪三」(L244)
    assert not r["gouji-paodekuai"].flow.pass_duitou_exception  # L244
    assert r["gouji-changshi"].burn.min_players == 5  # L30
    assert r["gouji-jinan-2010"].burn.success == "top2"  # L202
    assert r["gouji-kelamayi"].burn.success == "first_set"  # L237
    assert r["gouji-bie3"].kaidian.window == 1  # L248
    assert {p for p in r if r[p].kaidian.fa4} == {
        "gouji-changshi",
        "gouji-jinan-2010",
        "gouji-tiaozhan",
    }  # §5.1 item 9
    assert {p for p in r if r[p].score.positive_only} == {"gouji-kelamayi", "gouji-qingdao"}
