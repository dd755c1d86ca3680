"""A whole tournament through the hall with no result typed: eight simulated tables publish
their matches over a real Mosquitto broker to the desk; each ``match_end`` becomes its
pairing's provisional result by itself, a referee confirms each with one tap (the API the
results page posts to), and the organiser draws the next round: four Swiss rounds of sixteen
entrants, then the top eight's knock-out bracket down to one winner. Some matches end on the
clock and say so."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from dashboard.app import create_app
from dashboard.users import UserStore
from evidence.store import EvidenceStore
from evidence.tournament import TournamentStore
from hall.broker import LocalBroker
from hall.config import HallConfig
from hall.desk import Desk
from hall.desk_hub import DeskHub
from hall.publish import start_publisher
from hall.simnode import append_match
from tests.dashboard.conftest import FAST_HASH, PASSWORD, login
from tests.hall.conftest import DESK_PW, TABLE_PW, wait_for

FORMATS = Path(__file__).with_name("formats")
TABLES = [f"t{i}" for i in range(1, 9)]
ENTRANTS = ["entrant,seed,players"] + [f"队{i},{i},P{i}甲;P{i}乙" for i in range(1, 17)]
ON_TIME = {"minutes": 60, "at_time": "banker", "finish_deal": False, "by": "level",
           "detail": "the higher level wins", "cite": "「60分钟定时制」"}  # fmt: skip


def play(
    store: EvidenceStore, table: str, a: str, b: str, rng: random.Random, pub: Any
) -> tuple[str, bool]:
    """The table plays a v b (a's pair on seats 0 and 2); the stronger seed wins more often.
    Returns the winner and whether the clock decided it."""
    sa, sb = int(a[1:]), int(b[1:])
    a_wins = rng.random() < (0.75 if sa < sb else 0.25)
    timed = rng.random() < 0.25
    win, lose = ("A", rng.choice("3456")) if not timed else (rng.choice("QK"), rng.choice("89"))
    levels = [win, lose] if a_wins else [lose, win]
    seats = [f"P{sa}甲", f"P{sb}甲", f"P{sa}乙", f"P{sb}乙"]
    append_match(
        store, table, seats, 0 if a_wins else 1, levels, profile="jiawang",
        reason="time" if timed else "complete", on_time=ON_TIME if timed else None,
        wake=pub.wake,
    )  # fmt: skip
    return (a if a_wins else b), timed


def test_eight_tables_feed_a_swiss_and_a_knockout_with_no_typing(tmp_path: Path) -> None:
    users = {"desk": DESK_PW, **{t: TABLE_PW for t in TABLES}}
    broker = LocalBroker(tmp_path / "broker", users).start()
    data = tmp_path / "desk"
    UserStore(data).add("ref1", "referee", PASSWORD, n=FAST_HASH)
    hub = DeskHub(EvidenceStore(data, durable=False))
    desk = Desk(hub.store, HallConfig(broker=broker.url, password=DESK_PW), on_change=hub.changed)
    hub.desk = desk
    app = create_app(data, hub=hub, start_hub=False, TOURNAMENT_FORMATS=FORMATS)
    desk.start()
    nodes = {t: EvidenceStore(tmp_path / t, durable=False) for t in TABLES}
    pubs = {
        t: start_publisher(s, t, HallConfig(broker=broker.url, password=TABLE_PW))
        for t, s in nodes.items()
    }
    organiser = TournamentStore(data, formats=FORMATS)
    rng = random.Random(2026)
    try:
        organiser.setup("swiss-ko", "hall cup", by="org")
        organiser.import_entrants("\n".join(ENTRANTS), by="org")
        client = app.test_client()
        csrf = login(client)
        met: set[frozenset[str]] = set()
        played: dict[str, tuple[str, bool]] = {}
        for stage, rounds in ((1, 4), (2, 3)):
            for rnd in range(1, rounds + 1):
                # one seed a stage: a bracket is drawn once (each round's own seed redraws it)
                pairs = organiser.draw(stage, rnd, seed=100 * stage, by="org", tables=TABLES)
                assert len(pairs) == (8 if stage == 1 else 8 >> rnd)
                for p in pairs:
                    if stage == 1:
                        assert frozenset((p.a, p.b)) not in met  # no pair meets twice
                        met.add(frozenset((p.a, p.b)))
                    (table,) = p.tables
                    played[p.id] = play(nodes[table], table, p.a, p.b, rng, pubs[table])
                ends = {t: nodes[t].last_seq(t) for t in TABLES}
                wait_for(
                    lambda ends=ends: all(hub.store.last_seq(t) == n for t, n in ends.items()),
                    20,
                    f"stage {stage} round {rnd} at the desk",
                )
                got = client.get("/api/tournament/results").get_json()
                now = [x for x in got["pairings"] if (x["stage"], x["round"]) == (stage, rnd)]
                assert len(now) == len(pairs) and got["problems"] == {}
                for x in now:
                    winner, timed = played[x["id"]]
                    assert x["status"] == "provisional", x  # arrived by itself
                    assert x["outcome"]["winner"] == winner  # the outcome the referee sees
                    assert x["source"].startswith(tuple(x["tables"]))
                    assert ("decided on time" in x["note"]) == timed
                    tap = client.post(
                        f"/api/tournament/results/{x['id']}/confirm",
                        headers={"X-CSRF-Token": csrf},
                    )
                    assert tap.status_code == 200 and tap.get_json()["status"] == "confirmed"
        final = organiser.pairings(stage=2, round=3)
        assert len(final) == 1 and final[0].status == "confirmed"
        champion = played[final[0].id][0]
        swiss = organiser.standings(stage=1)
        assert len(swiss) == 16 and sum(s.match_points for s in swiss) == 32
        eight = {s.entrant for s in swiss if s.rank <= 8}
        assert champion in eight  # the knock-out was the Swiss's top eight
        audit = organiser.audit()
        assert [r.kind for r in audit].count("result") == 32 + 7  # every one from a table
        assert {r.by for r in audit if r.kind == "result"} == {"desk"}
        assert {r.by for r in audit if r.kind == "confirm"} == {"ref1"}
        assert not [r for r in audit if r.kind == "correct"]  # nothing typed
        assert organiser.verify() is None
    finally:
        for pub in pubs.values():
            if pub.connected.is_set():
                pub.stop()
        desk.stop()
        organiser.close()
        for s in nodes.values():
            s.close()
        broker.stop()
