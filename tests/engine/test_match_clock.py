"""The match clock: each timed sheet's limit and at-time rule in its profile (silent sheets say
nothing), the pure at-time decision on hand-worked cases from the sheets' own words, and the
record fields that carry it (validated; old records still read)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.match_clock import ClockRule, MatchNow, decide, time_left
from engine.record import RecordError, validate_event
from engine.tractor.rules import ProfileError, Rules

LADDER = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
TIMED = {
    "chaodipi-anchao": (60, "banker", True),
    "four-deck": (360, "playoff", True),
    "xize-1h": (60, "extra_deal", False),
    "jiawang": (60, "banker", False),
    "pass10": (60, "banker", False),
    "timed-45min": (45, "", False),
}


def now(**kw: object) -> MatchNow:
    base: dict[str, object] = dict(
        elapsed_s=3600.0,
        deal_open=False,
        open_at_time=False,
        deals_ended_after=0,
        levels=("5", "5"),
        ladder=LADDER,
        banker_team=1,
    )
    base.update(kw)
    return MatchNow(**base)  # type: ignore[arg-type]


def test_each_timed_sheet_states_its_limit_and_rule_and_cites_it() -> None:
    for pid in Rules.ids():
        clock = Rules.load(pid).clock
        if pid in TIMED:
            assert (clock.minutes, clock.at_time, clock.finish_deal) == TIMED[pid], pid
            assert "minutes:" in clock.cite and "「" in clock.cite, pid
        else:  # a sheet that states no time says nothing
            assert (clock.minutes, clock.at_time, clock.cite) == (0, "", ""), pid


def test_a_bad_clock_in_a_profile_names_the_key(tmp_path: pytest.TempPathFactory) -> None:
    path = tmp_path / "bad.toml"  # type: ignore[operator]
    path.write_text('id = "bad"\n[match]\nminutes = 60\nat_time = "coin"\n')
    with pytest.raises(ProfileError, match=r"match\.at_time.*'coin' is not one of"):
        Rules.load(path)
    path.write_text('id = "bad"\n[match]\nat_time = "banker"\n')
    with pytest.raises(ProfileError, match=r"match\.at_time.*without match\.minutes"):
        Rules.load(path)


def test_before_time_nothing_is_decided() -> None:
    rule = Rules.load("jiawang").clock
    assert decide(rule, now(elapsed_s=3599.9)).action == "running"
    assert time_left(rule, 3300.0) == 300.0 and time_left(rule, 4000.0) == 0.0
    assert time_left(ClockRule(), 99999.0) is None


def test_anchao_finishes_the_deal_then_the_side_ahead_or_the_banker_side_wins() -> None:
    rule = Rules.load("chaodipi-anchao").clock  # 「则打完本副牌后判领先方获胜」
    assert decide(rule, now(deal_open=True, open_at_time=True)).action == "play_on"
    ahead = decide(rule, now(levels=("7", "J"), deals_ended_after=1, open_at_time=True))
    assert (ahead.action, ahead.winner, ahead.by, ahead.stop_deal) == ("end", 1, "level", False)
    tie = decide(rule, now(levels=("9", "9"), banker_team=0))  # 「以最后台上方获胜」
    assert (tie.action, tie.winner, tie.by) == ("end", 0, "banker")
    assert tie.result(rule)["cite"] == rule.cite and tie.result(rule)["minutes"] == 60


def test_jiawang_stops_the_deal_in_play_at_time() -> None:
    rule = Rules.load("jiawang").clock  # no deal finished first: 「比赛时间结束时」
    d = decide(rule, now(deal_open=True, open_at_time=True, levels=("Q", "3")))
    assert (d.action, d.stop_deal, d.winner, d.by) == ("end", True, 0, "level")
    tie = decide(rule, now(deal_open=True, open_at_time=True, banker_team=None))
    assert tie.action == "referee"  # equal levels and no banker known: never guessed


def test_xize_plays_one_extra_deal_on_equal_levels() -> None:
    rule = Rules.load("xize-1h").clock  # 「若同级则加赛一盘」
    assert decide(rule, now()).action == "play_on"  # between deals: the extra deal
    assert decide(rule, now(deal_open=True, open_at_time=True)).action == "play_on"
    won = decide(rule, now(deals_ended_after=1, levels=("6", "5")))
    assert (won.action, won.winner, won.by) == ("end", 0, "level")
    still = decide(rule, now(deals_ended_after=1))
    assert (still.action, still.winner, still.by) == ("end", None, "extra_deal")
    ahead = decide(rule, now(deal_open=True, open_at_time=True, levels=("5", "K")))
    assert (ahead.stop_deal, ahead.winner) == (True, 1)


def test_four_deck_tie_goes_to_the_play_off_and_45min_to_a_referee() -> None:
    four = decide(Rules.load("four-deck").clock, now(elapsed_s=6 * 3600.0))
    assert (four.action, four.winner, four.by) == ("end", None, "playoff")
    timed = decide(Rules.load("timed-45min").clock, now(elapsed_s=2700.0, levels=("A", "2")))
    assert (timed.action, timed.by) == ("referee", "unstated")  # the sheet names no rule


@given(
    st.integers(1, 600),
    st.sampled_from(["banker", "extra_deal", "playoff"]),
    st.booleans(),
    st.sampled_from(LADDER),
    st.sampled_from(LADDER),
    st.booleans(),
    st.integers(0, 3),
)
def test_the_higher_level_always_wins_at_time(
    minutes: int, tie: str, finish: bool, a: str, b: str, open_: bool, ended: int
) -> None:
    rule = ClockRule(minutes, tie, finish)
    d = decide(
        rule, now(elapsed_s=rule.limit_s, deal_open=open_, levels=(a, b), deals_ended_after=ended)
    )
    if open_ and finish:
        assert d.action == "play_on"
    elif a != b:
        assert (d.action, d.winner, d.by) == (
            "end",
            0 if LADDER.index(a) > LADDER.index(b) else 1,
            "level",
        )
        assert d.stop_deal == open_
    else:
        assert d.winner in (None, 1) and d.by in ("", "banker", "extra_deal", "playoff")


def test_the_record_carries_the_clock_and_the_time_result() -> None:
    start = {
        "v": 1, "seq": 0, "t": 0.0, "type": "match_start", "game": "tractor",
        "profile": "jiawang", "seats": ["A", "B", "C", "D"], "teams": [[0, 2], [1, 3]],
        "levels": ["2", "2"], "clock": {"minutes": 90, "from": "table"},
    }  # fmt: skip
    assert validate_event(start)["clock"] == {"minutes": 90, "from": "table"}
    with pytest.raises(RecordError, match=r"clock\.minutes"):
        validate_event({**start, "clock": {"minutes": 0}})
    rule = Rules.load("jiawang").clock
    d = decide(rule, now(levels=("3", "2")))
    end = {
        "v": 1, "seq": 9, "t": 3600.0, "type": "match_end", "reason": "time",
        "result": {"hands": 4, "levels": ["3", "2"], "winner": 0, "time": d.result(rule)},
    }  # fmt: skip
    assert validate_event(end)["result"]["time"]["by"] == "level"
    bad = {**end, "result": {**end["result"], "time": {**d.result(rule), "by": "coin"}}}
    with pytest.raises(RecordError, match=r"result\.time\.by"):
        validate_event(bad)
    old = {k: v for k, v in start.items() if k != "clock"}
    assert "clock" not in validate_event(old)  # a record before the clock still reads
    stop = {"v": 1, "seq": 8, "t": 3600.0, "type": "hand_end", "reason": "time"}
    assert validate_event(stop)["reason"] == "time"
