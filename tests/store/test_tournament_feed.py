"""A table's ``match_end`` becomes its pairing's result by itself (real SQLite stores): the
round's table assignment finds the pairing, the seats' players find the side, levels gained
are the points; provisional until a referee's one confirmation, a correction audited; a
best-of-three fills in over three table matches; a match the clock decided is taken with a
note naming the at-time rule only when the format's rule is the one the table applied."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence.store import EvidenceStore
from evidence.tournament import TournamentStore
from evidence.tournament_feed import ResultsFeed
from hall.simnode import append_match

ENTRANTS = "entrant,seed,players\n" + "\n".join(
    f"队{i},{i},P{i}a;P{i}b" for i in range(1, 5)
)  # fmt: skip


def team_seats(x: str, y: str) -> list[str]:
    """Seats 0-2 are entrant x's pair, 1-3 entrant y's."""
    return [f"P{x}a", f"P{y}a", f"P{x}b", f"P{y}b"]


@pytest.fixture
def stores(tmp_path: Path):  # type: ignore[no-untyped-def]
    ev = EvidenceStore(tmp_path, durable=False)
    ts = TournamentStore(tmp_path)
    yield ev, ts
    ts.close()
    ev.close()


def test_a_match_end_becomes_its_pairings_result_then_one_confirmation(
    stores: tuple[EvidenceStore, TournamentStore],
) -> None:
    ev, ts = stores
    ts.setup("xize-1h", "test cup", by="org")
    ts.import_entrants(ENTRANTS, by="org")
    pairs = ts.draw(1, 1, seed=7, by="org", tables=["t1", "t2"])
    feed = ResultsFeed(ev, ts)
    assert feed.poll() == []  # nothing played yet
    p1 = next(p for p in pairs if p.tables == ("t1",))
    a, b = p1.a[1:], p1.b[1:]
    # the table seats b's players on team 0: the side comes from the players, not the order
    append_match(ev, "t1", team_seats(b, a), winner=1, levels=["4", "7"])
    got = feed.poll()
    assert [g.id for g in got] == [p1.id]
    row = ts.pairing(p1.id)
    assert row.status == "provisional" and row.source == "t1#3"
    assert [(g.winner, g.a_points, g.b_points) for g in row.games] == [("a", 5.0, 2.0)]
    assert feed.poll() == [] and len([r for r in ts.audit() if r.kind == "result"]) == 1
    again = ResultsFeed(ev, ts)  # a restarted desk reads both stores again
    assert again.poll() == [] and len([r for r in ts.audit() if r.kind == "result"]) == 1
    shown = again.outcome_of(row)
    assert shown["winner"] == p1.a and shown["tables"][0]["table"] == "t1"
    ts.confirm_result(p1.id, by="ref1")  # the referee's one tap
    ts.correct_result(p1.id, [{"winner": "b", "a_points": 2, "b_points": 5}], "ref1", "misread")
    fixed = [r for r in ts.audit() if r.kind == "correct"]
    assert fixed[-1].data["before"] == [{"winner": "a", "a_points": 5, "b_points": 2}]
    assert ts.pairing(p1.id).status == "confirmed" and feed.poll() == []


def test_a_table_team_that_is_neither_entrant_waits_for_a_referee(
    stores: tuple[EvidenceStore, TournamentStore],
) -> None:
    ev, ts = stores
    ts.setup("xize-1h", "test cup", by="org")
    ts.import_entrants(ENTRANTS, by="org")
    p = next(p for p in ts.draw(1, 1, seed=7, by="org", tables=["t1", "t2"]) if "t2" in p.tables)
    append_match(ev, "t2", ["X", "Y", "Z", "W"], winner=0, levels=["5", "2"])
    feed = ResultsFeed(ev, ts)
    assert feed.poll() == []
    assert "neither" in feed.problems[p.id] and ts.pairing(p.id).status == "open"


def test_best_of_three_fills_in_over_three_table_matches(
    stores: tuple[EvidenceStore, TournamentStore],
) -> None:
    ev, ts = stores
    ts.setup("chaodipi-anchao", "test cup", by="org")  # 「三局两胜」: first to two
    ts.import_entrants("entrant,seed\n" + "\n".join(f"队{i},{i}" for i in range(1, 5)), by="org")
    p = next(p for p in ts.draw(1, 1, seed=3, by="org", tables=["t1", "t2"]) if "t1" in p.tables)
    feed = ResultsFeed(ev, ts)
    seats = ["N", "E", "S", "W"]  # no players listed: team 0 is the pairing's a
    append_match(ev, "t1", seats, 0, ["A", "9"], profile="chaodipi-anchao")
    assert feed.poll() == [] and ts.pairing(p.id).status == "open"  # 1 of 3
    append_match(ev, "t1", seats, 1, ["6", "A"], profile="chaodipi-anchao")
    assert feed.poll() == []  # one game each
    on_time = {"minutes": 60, "at_time": "banker", "finish_deal": True, "by": "level",
               "detail": "the higher level wins (K)", "cite": "..."}  # fmt: skip
    append_match(ev, "t1", seats, 0, ["K", "8"], profile="chaodipi-anchao", reason="time",
                 on_time=on_time)  # fmt: skip
    assert [g.id for g in feed.poll()] == [p.id]
    row = ts.pairing(p.id)
    assert [g.winner for g in row.games] == ["a", "b", "a"] and row.source == "t1#3,t1#7,t1#11"
    assert "decided on time (60 min) by level" in row.note and "「升级相同时" in row.note


def test_a_clock_rule_that_is_not_the_formats_is_left_to_a_referee(
    stores: tuple[EvidenceStore, TournamentStore],
) -> None:
    ev, ts = stores
    ts.setup("xize-1h", "test cup", by="org")  # 「若同级则加赛一盘」: on_tie extra_deal
    ts.import_entrants("entrant,seed\n" + "\n".join(f"队{i},{i}" for i in range(1, 5)), by="org")
    p = next(p for p in ts.draw(1, 1, seed=7, by="org", tables=["t1", "t2"]) if "t1" in p.tables)
    on_time = {"minutes": 60, "at_time": "banker", "by": "banker"}
    append_match(ev, "t1", ["N", "E", "S", "W"], 0, ["5", "5"], reason="time", on_time=on_time)
    feed = ResultsFeed(ev, ts)
    assert feed.poll() == []
    assert "extra_deal" in feed.problems[p.id] and ts.pairing(p.id).status == "open"


def test_a_gouji_deal_brings_its_small_points(
    stores: tuple[EvidenceStore, TournamentStore],
) -> None:
    """gouji-changshi 「相应计分为5、4、3、2、1、0分」: the match_end's points per team are the
    game's points and the side with more wins it (the table's own winner went by deals won);
    a knock-out 局 level on points waits for a referee instead of crashing the feed."""
    ev, ts = stores
    ts.setup("gouji-changshi", "够级杯", by="org")
    ts.import_entrants("entrant,seed\n甲队,1\n乙队,2\n", by="org")
    (p,) = ts.draw(1, 1, seed=1, by="org", tables=["t1"])
    start = {"v": 1, "seq": 0, "t": 0.0, "type": "match_start", "game": "gouji",
             "profile": "gouji-changshi", "seats": ["A1", "B1", "A2", "B2", "A3", "B3"],
             "teams": [[0, 2, 4], [1, 3, 5]], "levels": ["-", "-"]}  # fmt: skip
    end = {"v": 1, "seq": 1, "t": 900.0, "type": "match_end", "reason": "complete",
           "result": {"hands": 1, "teams": [8, 7], "deals_won": [0, 1], "winner": 1}}  # fmt: skip
    ev.append_event("t1", start)
    ev.append_event("t1", end)
    assert [g.id for g in ResultsFeed(ev, ts).poll()] == [p.id]
    (game,) = ts.pairing(p.id).games
    assert (game.winner, game.a_points, game.b_points) == ("a", 8.0, 7.0)


def test_a_result_the_format_cannot_have_waits_for_a_referee(
    stores: tuple[EvidenceStore, TournamentStore],
) -> None:
    ev, ts = stores
    ts.setup("gouji-changshi", "够级杯", by="org")  # a knock-out 局 cannot be drawn
    ts.import_entrants("entrant,seed\n甲队,1\n乙队,2\n", by="org")
    (p,) = ts.draw(1, 1, seed=1, by="org", tables=["t1"])
    start = {"v": 1, "seq": 0, "t": 0.0, "type": "match_start", "game": "gouji",
             "profile": "gouji-changshi", "seats": ["A1", "B1", "A2", "B2", "A3", "B3"],
             "teams": [[0, 2, 4], [1, 3, 5]], "levels": ["-", "-"]}  # fmt: skip
    ev.append_event("t1", start)
    ev.append_event("t1", {"v": 1, "seq": 1, "t": 9.0, "type": "match_end",
                           "result": {"hands": 1, "teams": [6, 6], "winner": None}})  # fmt: skip
    feed = ResultsFeed(ev, ts)
    assert feed.poll() == []
    assert "a draw" in feed.problems[p.id] and ts.pairing(p.id).status == "open"
