"""Results flow in by themselves: each table's ``match_end`` in an evidence store (the hall
desk's, which gathers every table, or a single node's) becomes the result of the pairing the
tournament's round seated at that table, provisional until a referee confirms it.

A table's match is one game (局) of its pairing; a pairing's result is recorded once its games
decide the match by the stage's rule (三局两胜: two won), so a best-of-three fills in over three
table matches. Which side of the pairing a table team is comes from the entrants' players (the
seat names of ``match_start``) where the entrants file lists them, else the draw's order (team
0 is the pairing's ``a``). A game's points are what the format counts: levels gained
(80-points; the table's winner wins the game) or the 局's small points (Gouji, the
``match_end`` result's ``teams``; the side with more wins the game, as the formats count a
局, whatever the table's own deals-won winner). A match the
clock decided (``reason: "time"``) is taken only when the format's at-time rule is the one the
table applied, and its note says so; anything the feed cannot take as it stands (a level
knock-out, a table team that is neither entrant, rules that disagree) waits for a referee
with the reason (``problems``), and nothing is guessed.

Stateless over the two stores: a restarted desk reads them again and records nothing twice
(the tournament store keeps a re-sent identical result once).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.games import find_game
from engine.record import Event
from engine.tournament import Format, FormatError, Stage, outcome
from engine.tournament.results import Game, Match
from evidence.store import EvidenceStore
from evidence.tournament import PairingRow, TournamentError, TournamentStore

__all__ = ["FORMAT_AT_TIME", "ResultsFeed", "TableMatch"]

#: the format's ``[clock] on_tie`` as the table's profile names the same rule (``at_time``)
FORMAT_AT_TIME = {
    "unstated": "",
    "last_banker": "banker",
    "banker": "banker",
    "extra_deal": "extra_deal",
    "rps_then_race_to_a": "playoff",
}


@dataclass(frozen=True, slots=True)
class TableMatch:
    """One finished table match: where and when it was stored, its start and its end."""

    table: str
    seq: int  # the match_end's seq
    at: float  # wall time the store took the match_end
    start: Event
    end: Event

    @property
    def key(self) -> str:
        return f"{self.table}#{self.seq}"


def _sides(p: PairingRow, players: Mapping[str, Sequence[str]], start: Event) -> list[str]:
    """Each table team's side of the pairing (``a``/``b``), by the players seated."""
    seats, teams = list(start.get("seats", [])), list(start.get("teams", []))
    if len(teams) != 2:
        raise TournamentError(f"pairing {p.id}: the table plays {len(teams)} teams, not two")
    known = {side: set(players.get(name) or ()) for side, name in (("a", p.a), ("b", p.b))}
    if not known["a"] and not known["b"]:
        return ["a", "b"]  # no players listed: the draw's order
    out = []
    for i, team in enumerate(teams):
        names = {seats[s] for s in team if 0 <= s < len(seats)}
        side = next((s for s, ps in known.items() if names and names <= ps), None)
        if side is None:
            raise TournamentError(
                f"pairing {p.id}: table team {i} ({', '.join(sorted(names))}) is neither "
                f"{p.a} nor {p.b}"
            )
        out.append(side)
    if sorted(out) != ["a", "b"]:
        raise TournamentError(f"pairing {p.id}: both table teams are {out[0]}")
    return out


def _points(fmt: Format, m: TableMatch) -> list[float]:
    """Each table team's points for the game: levels gained, or the 局's small points."""
    result = m.end.get("result") or {}
    if fmt.points.unit == "place_points":
        teams = result.get("teams")
        if not isinstance(teams, list) or len(teams) != 2:
            raise TournamentError(f"{m.key}: the match_end result has no points per team")
        return [float(x) for x in teams]
    rules = find_game(str(m.start.get("game"))).load_rules(
        str(m.start.get("profile")), m.start.get("options") or None
    )
    ladder = list(getattr(rules, "ladder", ()))
    before, after = list(m.start.get("levels", [])), list(result.get("levels", []))
    if len(before) != 2 or len(after) != 2 or not set(before + after) <= set(ladder):
        raise TournamentError(f"{m.key}: the match_end result gives no level per team")
    return [float(ladder.index(after[i]) - ladder.index(before[i])) for i in range(2)]


def _on_time(fmt: Format, m: TableMatch) -> str:
    """A match the clock decided: the note that says by which rule, once the format's at-time
    rule is the one the table applied (else the reason a referee must decide)."""
    if m.end.get("reason") != "time":
        return ""
    t = (m.end.get("result") or {}).get("time") or {}
    want = FORMAT_AT_TIME.get(fmt.clock.on_tie, "")
    if t.get("at_time", "") != want:
        raise TournamentError(
            f"{m.key}: decided on time by {t.get('at_time') or 'no rule'!r}, but format "
            f"{fmt.id} says {fmt.clock.on_tie!r} at time: a referee decides"
        )
    cite = fmt.clock.cite.get("on_tie") or fmt.clock.cite.get("leader_wins") or ""
    return f"decided on time ({t.get('minutes')} min) by {t.get('by')}: {t.get('detail')}" + (
        f"; format {fmt.id}: {cite}" if cite else ""
    )


def _decided(stage: Stage, p: PairingRow, games: Sequence[Game]) -> bool:
    """The games played so far decide the match by the stage's rule (no more to come)."""
    m = Match(p.stage, p.round, p.a, p.b, tuple(games))
    wins = {"a": sum(g.winner == "a" for g in games), "b": sum(g.winner == "b" for g in games)}
    if stage.first_to and max(wins.values()) >= stage.first_to:
        return True
    if len(games) < stage.games:
        return False
    return outcome(stage, m).winner is not None or not stage.extra_game or len(games) > stage.games


class ResultsFeed:
    """Reads ``events`` (new rows only, after the first pass) and records each pairing's result
    in ``tournament`` as its table matches decide it. Call ``poll()`` as often as wanted."""

    def __init__(self, events: EvidenceStore, tournament: TournamentStore, by: str = "desk"):
        self.events = events
        self.tournament = tournament
        self.by = by
        self.matches: list[TableMatch] = []
        self.problems: dict[str, str] = {}  # pairing id → why its result waits for a referee
        self.pending: dict[str, list[TableMatch]] = {}  # pairing id → its table matches so far
        self._after_id = 0
        self._starts: dict[str, Event] = {}

    def _read(self) -> None:
        for row in self.events.rows(after_id=self._after_id, kind="event"):
            self._after_id = row.id
            ev: Event = row.data  # type: ignore[assignment]
            if ev.get("type") == "match_start":
                self._starts[row.table] = ev
            elif ev.get("type") == "match_end" and row.table in self._starts:
                start = self._starts[row.table]
                self.matches.append(TableMatch(row.table, int(ev["seq"]), row.at, start, ev))

    def poll(self) -> list[PairingRow]:
        """Take in the new ``match_end`` rows; the pairings whose result was recorded now."""
        self._read()
        try:
            fmt = self.tournament.format
        except TournamentError:
            return []  # no tournament set up in this data directory
        drawn = {(r.data["stage"], r.data["round"]): r.at for r in self.tournament.audit()
                 if r.kind == "draw"}  # fmt: skip
        players = {e.name: e.players for e in self.tournament.entrants()}
        recorded: list[PairingRow] = []
        self.pending = {}
        for p in self.tournament.pairings():
            if p.status == "confirmed":
                self.problems.pop(p.id, None)
                continue
            since = drawn.get((p.stage, p.round), 0.0)
            mine = [m for m in self.matches if m.table in p.tables and m.at >= since]
            try:
                got = self._take(fmt, p, players, mine)
            except FormatError as e:  # the store's TournamentError, or a result the format refuses
                self.problems[p.id] = str(e)
                continue
            self.problems.pop(p.id, None)
            if got is not None:
                recorded.append(got)
        return recorded

    def _take(
        self,
        fmt: Format,
        p: PairingRow,
        players: Mapping[str, Sequence[str]],
        mine: list[TableMatch],
    ) -> PairingRow | None:
        stage = fmt.stage(p.stage)
        games: list[Game] = []
        used: list[TableMatch] = []
        notes: list[str] = []
        for m in mine:
            sides = _sides(p, players, m.start)
            pts = _points(fmt, m)
            a = pts[sides.index("a")]
            b = pts[sides.index("b")]
            if fmt.points.unit == "place_points":  # 积分多者为胜: the format's points decide
                side = "a" if a > b else "b" if b > a else "draw"
            else:
                winner = (m.end.get("result") or {}).get("winner")
                side = sides[winner] if isinstance(winner, int) and 0 <= winner < 2 else "draw"
            note = _on_time(fmt, m)
            games.append(Game(side, a, b))
            used.append(m)
            if note:
                notes.append(f"{m.key}: {note}")
            if _decided(stage, p, games):
                break
        self.pending[p.id] = used
        if not games or not _decided(stage, p, games):
            return None  # more games to come
        body = [{"winner": g.winner, "a_points": g.a_points, "b_points": g.b_points} for g in games]
        source = ",".join(m.key for m in used)
        if p.status == "provisional" and p.source == source:
            return None  # taken already (a re-read after a restart)
        return self.tournament.record_result(p.id, body, source, self.by, "; ".join(notes))

    def outcome_of(self, p: PairingRow) -> dict[str, Any]:
        """What the referee confirms: each table match behind the result (table, seq, reason,
        the table's own result) and the match's winner by the stage's rule."""
        fmt = self.tournament.format
        won = outcome(fmt.stage(p.stage), p.match()) if p.games else None
        return {
            "tables": [
                {
                    "table": m.table,
                    "seq": m.seq,
                    "reason": m.end.get("reason", "complete"),
                    "result": m.end.get("result"),
                }
                for m in self.pending.get(p.id, [])
            ],
            "winner": won.winner if won else None,
            "by": won.by if won else None,
            "problem": self.problems.get(p.id),
        }
