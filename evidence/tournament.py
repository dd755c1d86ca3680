"""``TournamentStore``: one tournament's draw, pairings and results, as an audited log.

Everything an organiser or a referee does is one appended row of ``tournament.sqlite3`` in the
data directory (the desk's, or a single table's), hash-chained like the evidence chain
(``sha256(prev ‖ canonical JSON)``) and refused UPDATE or DELETE by triggers; the current state
(entrants, each round's pairings with their tables and seats, each pairing's result) is folded
from the log on every read, so a correction never overwrites anything and ``audit()`` shows who
did what, when and why. The rules (what a result may be, who meets whom, the standings) are
``engine.tournament``'s; this only records and replays.

The flow of one match::

    store = TournamentStore(data_dir)
    store.setup("gouji-qingdao", "2026 青岛杯", by="lin")
    store.import_entrants(csv_text, by="lin")            # entrant,seed[,group,players]
    store.draw(stage=1, round=1, seed=20261202, by="lin")  # recorded: the same seed, the same draw
    p = store.pairing_at("t3")                          # the open pairing seated at table t3
    store.record_result(p.id, games, source="t3", by="node")  # provisional
    store.confirm_result(p.id, by="wang")               # the referee's one tap
    store.correct_result(p.id, games, by="wang", reason="局2 小分记错")  # audited

``record_result`` may be called again while the result is provisional (a re-sent
``match_end``: the same games are a no-op); once confirmed only ``correct_result`` changes it.
Every bad call is a ``TournamentError`` (a ``FormatError``) naming the pairing and the problem.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from engine.tournament import (
    Entrant,
    Format,
    FormatError,
    Game,
    Match,
    Standing,
    check_results,
    entrants_from_rows,
    load_format,
    match_from_json,
    pair_round,
    seed_of,
    stage_field,
    standings,
    two_table_swap,
)
from evidence.chain import GENESIS, canonical_json, link_hash

__all__ = ["DB_FILE", "AuditRow", "PairingRow", "TournamentError", "TournamentStore"]

DB_FILE = "tournament.sqlite3"
SCHEMA = """
CREATE TABLE IF NOT EXISTS log (
    id    INTEGER PRIMARY KEY,
    at    REAL NOT NULL,
    by    TEXT NOT NULL,
    kind  TEXT NOT NULL,
    data  TEXT NOT NULL,
    prev  TEXT NOT NULL,
    hash  TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS log_no_update BEFORE UPDATE ON log
BEGIN SELECT RAISE(ABORT, 'the tournament log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS log_no_delete BEFORE DELETE ON log
BEGIN SELECT RAISE(ABORT, 'the tournament log is append-only'); END;
"""


class TournamentError(FormatError):
    """A tournament action the store refuses, naming the pairing (or step) and the reason."""


@dataclass(frozen=True, slots=True)
class AuditRow:
    """One logged action: who, when, what (``kind``: setup, entrants, draw, result, confirm,
    correct), its data, and its place in the chain."""

    id: int
    at: float
    by: str
    kind: str
    data: dict[str, Any]
    hash: str


@dataclass(slots=True)
class PairingRow:
    """One pairing of a drawn round: its tables (two for a two-table Gouji match), seats, and
    its result as it stands (``status``: open, provisional, confirmed)."""

    id: str
    stage: int
    round: int
    a: str
    b: str
    tables: tuple[str, ...]
    seats: list[dict[str, Any]]
    status: str = "open"
    games: tuple[Game, ...] = ()
    source: str = ""
    note: str = ""  # e.g. how the clock decided it (the format's at-time rule)
    corrections: int = 0
    history: list[int] = field(default_factory=list)  # the audit ids that touched it

    def match(self) -> Match:
        return Match(self.stage, self.round, self.a, self.b, self.games, f"pairing {self.id}")

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "stage": self.stage,
            "round": self.round,
            "a": self.a,
            "b": self.b,
            "tables": list(self.tables),
            "seats": self.seats,
            "status": self.status,
            "games": [_game_json(g) for g in self.games],
            "source": self.source,
            "note": self.note,
            "corrections": self.corrections,
        }


def _game_json(g: Game) -> dict[str, Any]:
    num = [int(x) if float(x).is_integer() else x for x in (g.a_points, g.b_points)]
    return {"winner": g.winner, "a_points": num[0], "b_points": num[1]}


@dataclass
class _State:
    format_id: str = ""
    name: str = ""
    entrants: list[Entrant] = field(default_factory=list)
    draws: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)
    pairings: dict[str, PairingRow] = field(default_factory=dict)


class TournamentStore:
    """The tournament of one data directory (``<data>/tournament.sqlite3``)."""

    def __init__(
        self,
        data_dir: str | Path,
        clock: Callable[[], float] = time.time,
        formats: Traversable | None = None,
    ) -> None:
        """``formats``: where the format TOMLs lie (default: the shipped ones; a test's own)."""
        self.clock = clock
        self.formats = formats
        self.path = Path(data_dir) / DB_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(SCHEMA)
        self._until: float | None = None

    def as_of(self, until: float) -> TournamentStore:
        """The tournament as it stood at ``until`` (a read-only view: the broadcast overlay
        shows it ``delay`` seconds late, as it does a table)."""
        view = copy.copy(self)
        view._until = until
        return view

    def close(self) -> None:
        self._db.close()

    # -- the log ---------------------------------------------------------------------------

    def _append(self, kind: str, by: str, data: Mapping[str, Any]) -> int:
        if not by.strip():
            raise TournamentError(f"{kind}: who did it (by) is required")
        if self._until is not None:
            raise TournamentError(f"{kind}: a past view of the tournament is read-only")
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute("SELECT hash FROM log ORDER BY id DESC LIMIT 1").fetchone()
                prev = row[0] if row else GENESIS
                at = self.clock()
                body = canonical_json({"at": at, "by": by, "kind": kind, "data": dict(data)})
                cur = self._db.execute(
                    "INSERT INTO log (at, by, kind, data, prev, hash) VALUES (?, ?, ?, ?, ?, ?)",
                    (at, by, kind, canonical_json(dict(data)), prev, link_hash(prev, body)),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return int(cur.lastrowid or 0)

    def audit(self) -> list[AuditRow]:
        """Every action in order (the desk's audit page, and what a dispute cites)."""
        until = float("inf") if self._until is None else self._until
        with self._lock:
            rows = self._db.execute(
                "SELECT id, at, by, kind, data, hash FROM log WHERE at <= ? ORDER BY id", (until,)
            )
            return [AuditRow(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5]) for r in rows]

    def verify(self) -> str | None:
        """None when the chain is whole; else the first broken row, in one sentence."""
        prev = GENESIS
        with self._lock:
            rows = list(
                self._db.execute("SELECT id, at, by, kind, data, prev, hash FROM log ORDER BY id")
            )
        for rid, at, by, kind, data, stored_prev, stored in rows:
            body = canonical_json({"at": at, "by": by, "kind": kind, "data": json.loads(data)})
            if stored_prev != prev or link_hash(prev, body) != stored:
                return f"{self.path.name}: row {rid} ({kind}) does not match its hash"
            prev = stored
        return None

    def _state(self) -> _State:
        st = _State()
        for row in self.audit():
            d = row.data
            if row.kind == "setup":
                st.format_id, st.name = d["format"], d["name"]
            elif row.kind == "entrants":
                st.entrants = [
                    Entrant(
                        e["name"], e.get("seed"), e.get("group", ""), tuple(e.get("players", []))
                    )
                    for e in d["entrants"]
                ]
            elif row.kind == "draw":
                st.draws[(d["stage"], d["round"])] = d
                for p in d["pairs"]:
                    st.pairings[p["id"]] = PairingRow(
                        p["id"], d["stage"], d["round"], p["a"], p["b"], tuple(p["tables"]),
                        p["seats"], history=[row.id],
                    )  # fmt: skip
            elif row.kind in ("result", "confirm", "correct"):
                p = st.pairings[d["pairing"]]
                p.history.append(row.id)
                if row.kind == "confirm":
                    p.status = "confirmed"
                    continue
                p.games = tuple(Game(g["winner"], g["a_points"], g["b_points"]) for g in d["games"])
                p.source, p.note = d.get("source", p.source), d.get("note", "")
                if row.kind == "result":
                    p.status = "provisional"
                else:
                    p.corrections += 1
        return st

    # -- set-up, entrants, the draw --------------------------------------------------------

    @property
    def format(self) -> Format:
        st = self._state()
        if not st.format_id:
            raise TournamentError("no tournament set up yet (setup: a format and a name)")
        return load_format(st.format_id, self.formats)

    def name(self) -> str:
        return self._state().name

    def setup(self, format_id: str, name: str, by: str) -> Format:
        """Name the tournament and its format (once: a second setup is refused)."""
        fmt = load_format(format_id, self.formats)
        if not fmt.stages:
            raise TournamentError(f"format {format_id}: its sheet states a clock but no stages")
        if self._state().format_id:
            raise TournamentError("setup: this tournament is already set up")
        self._append("setup", by, {"format": format_id, "name": name.strip() or format_id})
        return fmt

    def import_entrants(self, csv_text: str, by: str, where: str = "entrants.csv") -> list[Entrant]:
        """The entrants from a CSV (``entrant,seed`` and optionally ``group``, ``players``);
        refused once a round is drawn."""
        if self._state().draws:
            raise TournamentError(f"{where}: the draw has begun; entrants can no longer change")
        reader = csv.DictReader(io.StringIO(csv_text.lstrip("\ufeff")))
        entrants = entrants_from_rows(reader.fieldnames, list(reader), where)
        if self.format.seating != "none":
            for e in entrants:
                if len(e.players) != 6:
                    raise TournamentError(
                        f"{where}: team {e.name}: this format seats six players a team, "
                        f"found {len(e.players)}"
                    )
        data = [
            {"name": e.name, "seed": e.seed, "group": e.group, "players": list(e.players)}
            for e in entrants
        ]
        self._append("entrants", by, {"entrants": data})
        return entrants

    def entrants(self) -> list[Entrant]:
        return self._state().entrants

    def draw(
        self, stage: int, round: int, seed: int, by: str, tables: Sequence[str] | None = None
    ) -> list[PairingRow]:
        """Draw round ``round`` of ``stage`` with ``seed`` from the confirmed results and record
        it with its tables (``tables``: the hall's table ids in order, default t1, t2, …) and
        seats. Drawing a recorded round again with the same seed returns it; another seed is
        refused (the lot was drawn)."""
        st = self._state()
        fmt = self.format
        recorded = st.draws.get((stage, round))
        if recorded is not None:
            if recorded["seed"] != seed:
                raise TournamentError(
                    f"stage {stage} round {round}: already drawn with seed {recorded['seed']}"
                )
            return [p for p in st.pairings.values() if (p.stage, p.round) == (stage, round)]
        if not st.entrants:
            raise TournamentError("draw: no entrants imported yet")
        open_ = [p.id for p in st.pairings.values() if p.status != "confirmed"]
        if open_:
            raise TournamentError(f"draw: pairing {open_[0]} has no confirmed result yet")
        confirmed = [p.match() for p in st.pairings.values()]
        seeds = {**{k: int(d["seed"]) for k, d in st.draws.items()}, (stage, round): seed}
        pairing = pair_round(fmt, stage, round, st.entrants, confirmed, seeds)
        per = 2 if fmt.seating != "none" else 1
        names = (
            list(tables) if tables else [f"t{i}" for i in range(1, per * len(pairing.pairs) + 1)]
        )
        if len(names) < per * len(pairing.pairs):
            raise TournamentError(
                f"draw: {len(pairing.pairs)} pairing(s) need {per * len(pairing.pairs)} tables, "
                f"given {len(names)}"
            )
        players = {e.name: e.players for e in st.entrants}
        rows: list[dict[str, Any]] = []
        for k, (a, b) in enumerate(pairing.pairs):
            mine = tuple(names[per * k : per * k + per])
            seats: list[dict[str, Any]] = []
            if fmt.seating != "none":
                seats = [
                    {
                        "set": s.set,
                        "table": s.table,
                        "seat": s.seat,
                        "team": s.team,
                        "player": s.player,
                    }
                    for s in two_table_swap(a, players[a], b, players[b], (mine[0], mine[1]))
                ]
            rows.append(
                {
                    "id": f"s{stage}r{round}p{k + 1}",
                    "a": a,
                    "b": b,
                    "tables": list(mine),
                    "seats": seats,
                }
            )
        drawn = {"stage": stage, "round": round, "seed": seed, "pairs": rows}
        self._append("draw", by, {**drawn, "byes": list(pairing.byes)})
        return [p for p in self._state().pairings.values() if (p.stage, p.round) == (stage, round)]

    def byes(self, stage: int, round: int) -> list[str]:
        d = self._state().draws.get((stage, round))
        return list(d["byes"]) if d else []

    def rounds(self) -> list[tuple[int, int, int]]:
        """The drawn rounds: (stage, round, seed), in order."""
        return sorted((s, r, d["seed"]) for (s, r), d in self._state().draws.items())

    def pairings(self, stage: int | None = None, round: int | None = None) -> list[PairingRow]:
        return [
            p
            for p in self._state().pairings.values()
            if (stage is None or p.stage == stage) and (round is None or p.round == round)
        ]

    def pairing(self, pairing_id: str) -> PairingRow:
        p = self._state().pairings.get(pairing_id)
        if p is None:
            raise TournamentError(f"unknown pairing {pairing_id!r}")
        return p

    def pairing_at(self, table: str) -> PairingRow | None:
        """The latest pairing seated at ``table`` that has no confirmed result (where a
        table's ``match_end`` belongs), or None."""
        found = [
            p
            for p in self._state().pairings.values()
            if table in p.tables and p.status != "confirmed"
        ]
        return found[-1] if found else None

    # -- results ---------------------------------------------------------------------------

    def _check(
        self, st: _State, pairing_id: str, games: Iterable[Mapping[str, Any]]
    ) -> list[dict[str, Any]]:
        p = st.pairings.get(pairing_id)
        if p is None:
            raise TournamentError(f"unknown pairing {pairing_id!r}")
        raw = {"stage": p.stage, "round": p.round, "a": p.a, "b": p.b, "games": list(games)}
        m = match_from_json(f"pairing {pairing_id}", raw)
        others = [q.match() for q in st.pairings.values() if q.games and q.id != pairing_id]
        check_results(
            load_format(st.format_id, self.formats), [e.name for e in st.entrants], [*others, m]
        )
        return [_game_json(g) for g in m.games]

    def record_result(
        self,
        pairing_id: str,
        games: Iterable[Mapping[str, Any]],
        source: str,
        by: str,
        note: str = "",
    ) -> PairingRow:
        """The result of ``pairing_id`` as it arrives (``games``: ``{"winner": "a"|"b"|"draw",
        "a_points": N, "b_points": M}`` each, sides as the pairing names them), provisional
        until ``confirm_result``. ``source`` says where it came from (a table id, "desk");
        ``note`` how it was decided when not by play (the clock's at-time rule)."""
        st = self._state()
        clean = self._check(st, pairing_id, games)
        p = st.pairings[pairing_id]
        if p.status == "confirmed":
            raise TournamentError(f"pairing {pairing_id}: confirmed; change it with a correction")
        if (
            p.status == "provisional"
            and [_game_json(g) for g in p.games] == clean
            and p.note == note
        ):
            return p  # the same result re-sent
        self._append(
            "result", by, {"pairing": pairing_id, "games": clean, "source": source, "note": note}
        )
        return self.pairing(pairing_id)

    def confirm_result(self, pairing_id: str, by: str) -> PairingRow:
        """A referee's confirmation of the provisional result (the one tap)."""
        p = self.pairing(pairing_id)
        if p.status == "open":
            raise TournamentError(f"pairing {pairing_id}: no result to confirm")
        if p.status == "confirmed":
            return p
        self._append("confirm", by, {"pairing": pairing_id})
        return self.pairing(pairing_id)

    def correct_result(
        self, pairing_id: str, games: Iterable[Mapping[str, Any]], by: str, reason: str
    ) -> PairingRow:
        """Replace a result, confirmed or not, with ``games``: audited with who, why and what
        it read before. The corrected result stands as confirmed by ``by``."""
        if not reason.strip():
            raise TournamentError(f"pairing {pairing_id}: a correction needs its reason")
        st = self._state()
        clean = self._check(st, pairing_id, games)
        p = st.pairings[pairing_id]
        if p.status == "open":
            raise TournamentError(f"pairing {pairing_id}: no result to correct; record one")
        before = [_game_json(g) for g in p.games]
        change = {"pairing": pairing_id, "games": clean, "before": before, "reason": reason}
        self._append("correct", by, {**change, "source": "desk"})
        if p.status != "confirmed":
            self._append("confirm", by, {"pairing": pairing_id})
        return self.pairing(pairing_id)

    def matches(self, confirmed_only: bool = False) -> list[Match]:
        return [
            p.match()
            for p in self._state().pairings.values()
            if p.games and (p.status == "confirmed" or not confirmed_only)
        ]

    def current_stage(self) -> int:
        drawn = self.rounds()
        return drawn[-1][0] if drawn else 1

    def standings(self, stage: int | None = None, confirmed_only: bool = False) -> list[Standing]:
        """The live table of ``stage`` (default: the stage being played), provisional results
        included unless ``confirmed_only``."""
        st = self._state()
        fmt = load_format(st.format_id, self.formats)
        stage = stage or self.current_stage()
        seeds = {(sg, r): s for (sg, r, s) in self.rounds()}
        matches = self.matches(confirmed_only)
        field_ = stage_field(fmt, stage, st.entrants, self.matches(True), seeds)
        lots = seed_of(seeds, stage, 1)
        return standings(fmt, stage, field_, [m for m in matches if m.stage == stage], lots)
