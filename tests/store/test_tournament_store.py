"""``TournamentStore`` on a real SQLite file: the draw recorded, results provisional until
confirmed, corrections audited, the log append-only and hash-chained."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from engine.tournament import FormatError
from evidence.tournament import DB_FILE, TournamentError, TournamentStore

CSV = "entrant,seed\n队1,1\n队2,2\n队3,3\n队4,4\n队5,5\n"


def won(a: int = 12, b: int = 3) -> list[dict[str, object]]:
    return [{"winner": "a", "a_points": a, "b_points": b}]


def test_a_knockout_from_draw_to_final(tmp_path: Path) -> None:
    store = TournamentStore(tmp_path)
    store.setup("community-10ka", "社区杯", by="lin")
    store.import_entrants(CSV, by="lin")
    r1 = store.draw(1, 1, seed=42, by="lin")
    assert len(r1) == 1 and len(store.byes(1, 1)) == 3
    assert r1[0].tables == ("t1",)
    assert store.draw(1, 1, seed=42, by="lin")[0].id == r1[0].id  # recorded, not redrawn
    with pytest.raises(TournamentError, match="already drawn with seed 42"):
        store.draw(1, 1, seed=7, by="lin")
    with pytest.raises(TournamentError, match="pairing s1r1p1 has no confirmed result yet"):
        store.draw(1, 2, seed=42, by="lin")
    assert store.pairing_at("t1") == r1[0]
    p = store.record_result(r1[0].id, won(), source="t1", by="node")
    assert p.status == "provisional"
    assert store.record_result(r1[0].id, won(), source="t1", by="node") == p  # re-sent: no-op
    store.confirm_result(p.id, by="wang")
    with pytest.raises(TournamentError, match="confirmed; change it with a correction"):
        store.record_result(p.id, won(12, 5), source="t1", by="node")
    r2 = store.draw(1, 2, seed=42, by="lin")
    assert len(r2) == 2 and not store.byes(1, 2)
    for q in r2:
        store.record_result(q.id, won(), source=q.tables[0], by="node")
        store.confirm_result(q.id, by="wang")
    final = store.draw(1, 3, seed=42, by="lin")
    assert len(final) == 1
    kinds = [row.kind for row in store.audit()]
    assert kinds[:4] == ["setup", "entrants", "draw", "result"]
    assert store.verify() is None
    # the same seed on a fresh store draws the same bracket
    other = TournamentStore(tmp_path / "again")
    other.setup("community-10ka", "社区杯", by="lin")
    other.import_entrants(CSV, by="lin")
    assert [(x.a, x.b) for x in other.draw(1, 1, seed=42, by="lin")] == [(r1[0].a, r1[0].b)]


def test_each_round_drawn_with_its_own_lot_seed_keeps_the_bracket(tmp_path: Path) -> None:
    """A referee types a new lot seed for round 2: the bracket drawn in round 1 stands (a new
    seed used to redraw it, and round 2 failed: 'has no result yet')."""
    store = TournamentStore(tmp_path)
    store.setup("community-10ka", "社区杯", by="lin")
    store.import_entrants(CSV, by="lin")
    (first,) = store.draw(1, 1, seed=42, by="lin")
    store.record_result(first.id, won(), source="t1", by="node")
    store.confirm_result(first.id, by="wang")
    r2 = store.draw(1, 2, seed=7, by="lin")
    same = TournamentStore(tmp_path / "one-seed")
    same.setup("community-10ka", "社区杯", by="lin")
    same.import_entrants(CSV, by="lin")
    (again,) = same.draw(1, 1, seed=42, by="lin")
    same.record_result(again.id, won(), source="t1", by="node")
    same.confirm_result(again.id, by="wang")
    assert [(p.a, p.b) for p in r2] == [(p.a, p.b) for p in same.draw(1, 2, seed=42, by="lin")]
    assert first.a in {x for p in r2 for x in (p.a, p.b)}  # round 1's winner goes on
    for p in r2:
        store.record_result(p.id, won(), source=p.tables[0], by="node")
        store.confirm_result(p.id, by="wang")
    assert len(store.draw(1, 3, seed=99, by="lin")) == 1
    assert [s.rank for s in store.standings()][:1] == [1]


def test_correction_is_audited_and_bad_results_lose_nothing(tmp_path: Path) -> None:
    store = TournamentStore(tmp_path)
    store.setup("gouji-qingdao", "青岛杯", by="lin")
    store.import_entrants(CSV.replace("队5,5\n", ""), by="lin")
    pairs = store.draw(1, 1, seed=1, by="lin")
    three = [{"winner": "a", "a_points": 6, "b_points": 0}] * 3
    store.record_result(pairs[0].id, three, source="t1", by="node")
    with pytest.raises(FormatError, match="只记正分"):
        store.record_result(
            pairs[1].id, [{"winner": "a", "a_points": 6, "b_points": 2}] * 3, "t2", "n"
        )
    assert store.pairing(pairs[1].id).status == "open"  # nothing stored
    store.confirm_result(pairs[0].id, by="wang")
    fixed = [{"winner": "a", "a_points": 6, "b_points": 0}] * 2 + [
        {"winner": "b", "a_points": 0, "b_points": 2}
    ]
    with pytest.raises(TournamentError, match="needs its reason"):
        store.correct_result(pairs[0].id, fixed, by="wang", reason=" ")
    p = store.correct_result(pairs[0].id, fixed, by="wang", reason="局3 记错")
    assert p.status == "confirmed" and p.corrections == 1
    last = store.audit()[-1]
    assert (last.kind, last.by, last.data["reason"]) == ("correct", "wang", "局3 记错")
    assert last.data["before"] == three
    top = store.standings()[0]
    assert (top.entrant, top.match_points, top.game_points) == (pairs[0].a, 1, 12)


def test_the_log_is_append_only_and_chained(tmp_path: Path) -> None:
    store = TournamentStore(tmp_path)
    store.setup("cyclic-eat", "杯", by="lin")
    store.import_entrants(CSV, by="lin")
    db = sqlite3.connect(tmp_path / DB_FILE)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("UPDATE log SET by = 'x'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("DELETE FROM log")
    db.execute("DROP TRIGGER log_no_update")
    db.execute("UPDATE log SET by = 'mallory' WHERE id = 1")
    db.commit()
    assert store.verify() == f"{DB_FILE}: row 1 (setup) does not match its hash"


def test_gouji_two_table_pairings_carry_their_seats(tmp_path: Path) -> None:
    store = TournamentStore(tmp_path)
    store.setup("gouji-paodekuai", "代表队赛", by="lin")
    with pytest.raises(
        TournamentError, match="team 甲: this format seats six players a team, found 2"
    ):
        store.import_entrants("entrant,players\n甲,a;b\n乙,c;d;e;f;g;h\n", by="lin")
    rows = "entrant,players\n" + "".join(
        f"{t},{';'.join(f'{t}{i}' for i in range(1, 7))}\n" for t in "甲乙丙丁"
    )
    store.import_entrants(rows, by="lin")
    pairs = store.draw(1, 1, seed=3, by="lin", tables=["h1", "h2", "h3", "h4"])
    assert [p.tables for p in pairs] == [("h1", "h2"), ("h3", "h4")]
    seats = pairs[0].seats
    assert len(seats) == 24  # 12 players, two sets
    first = [s for s in seats if s["set"] == 1 and s["table"] == "h1"]
    assert [s["team"] for s in sorted(first, key=lambda s: s["seat"])] == [
        pairs[0].a,
        pairs[0].b,
    ] * 3
    assert store.pairing_at("h2") == pairs[0]
