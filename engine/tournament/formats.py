"""Tournament formats as data: one TOML per sheet that states how its event is run.

A format's id is the rule-profile id of its sheet (``gouji-qingdao`` is the 青岛 sheet's group
stage and knock-out: a sheet with several stages is one format). Every key of every table must
carry a citation in that table's ``cite`` sub-table, as the rule profiles do, so a way of
running an event never enters the engine without the sheet line that says so; ``open`` lists
what the sheet leaves unsaid. A bad file, key or value is a ``FormatError`` naming the file
and the key.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from engine.errors import ProfileError

__all__ = ["Clock", "Format", "FormatError", "Points", "Stage", "format_ids", "load_format"]

KINDS = ("knockout", "round_robin", "swiss")
#: how a stage's lots fall: ``bracket`` drawn once (byes fill a power of two), ``each_round``
#: drawn again every round among those left (a blank lot is a bye), ``cross`` group winners
#: meet the other group's runners-up, ``berger`` the round robin's circle, ``score`` Swiss
DRAWS = ("bracket", "each_round", "cross", "berger", "score")
#: what decides a match: ``games`` the games' scores summed (局分), ``game_points`` the points
#: summed (small points, 小分)
DECIDERS = ("games", "game_points")
#: tie-break criteria, in the order a stage lists them (the first entry is the main ranking)
CRITERIA = (
    "match_points",
    "game_points",
    "head_to_head",
    "head_to_head_game_points",
    "largest_win",
    "lots",
)
UNITS = ("levels", "place_points")
AT_TIME_TIES = ("unstated", "last_banker", "banker", "extra_deal", "rps_then_race_to_a")


class FormatError(ProfileError):
    """A format file (or a result against it) that cannot be run: names the file and key."""


@dataclass(frozen=True, slots=True)
class Points:
    """What one game's ``a_points``/``b_points`` count, and how a Gouji 局 is scored."""

    unit: str  # levels (80-points: levels gained) | place_points (Gouji: small points)
    places: tuple[int, ...]  # Gouji: small points per place, 头科 … 大落 (empty: not stated)
    positive_only: bool  # 只记正分，不记负分: only the side ahead records its (net) points
    sweep: int  # 串三户: the winning side's points for a sweep (0: the table's own sum)
    cite: dict[str, str]


@dataclass(frozen=True, slots=True)
class Clock:
    """The match clock and its at-time rule, as data for the table node's clock."""

    per: str  # what the limit times: match | game | round | none
    limit_s: int  # 0: no limit stated
    late_limit_s: int  # the limit from ``late_from`` entrants left (semi-finals: 4); 0 = none
    late_from: int  # entrants left when the late limit starts (0: never)
    finish_deal: bool  # at time, the deal in play is finished first
    leader_wins: bool  # at time, the side ahead (higher level) wins
    on_tie: str  # equal levels at time: one of AT_TIME_TIES
    carry_over: bool  # 上局成绩可计入下局: levels carry from game to game
    cite: dict[str, str]

    def limit_for(self, left: int) -> int:
        """Seconds a match may last with ``left`` entrants still in the stage (0: no limit):
        the late limit from ``late_from`` on (chaodipi-anchao: 1.5 h for the semi-finals and
        the final; four-deck: none from the last eight)."""
        if self.late_from and left <= self.late_from:
            return self.late_limit_s
        return self.limit_s


@dataclass(frozen=True, slots=True)
class Stage:
    """One stage of an event: its kind, how lots fall, how a match is won, how to rank."""

    name: str
    kind: str  # knockout | round_robin | swiss
    draw: str  # one of DRAWS
    games: int  # games (局) a match plays at most, before any extra game
    first_to: int  # a match stops once a side won this many games (0: all are played)
    decided_by: str  # one of DECIDERS
    game_score: tuple[float, float, float]  # a game won / drawn / lost, toward ``games``
    level_by_points: bool  # games level: the accumulated points decide (比较累计小分)
    extra_game: bool  # still level: one more game is played (加赛一局)
    match_points: tuple[float, float, float]  # a match won / drawn / lost
    rank: tuple[str, ...]  # CRITERIA in order: the first ranks, the rest break ties
    rounds: int  # rounds the stage plays (0: until it is decided)
    until: int  # knock-out: stop when this many are left (0: one winner)
    groups: int  # round robin: groups (0: one, or as the entrants file says)
    advance: int  # entrants each group sends on (0: all / not stated)
    carry: bool  # scores carried into the next stage
    game_draws: bool  # a single game can be drawn (平局)
    cite: dict[str, str]


@dataclass(frozen=True, slots=True)
class Format:
    """One sheet's event: its stages in order, the points it counts, its clock."""

    id: str
    game: str  # tractor | gouji
    title: str
    sheet: str  # the seed file and lines
    stages: tuple[Stage, ...]
    points: Points
    clock: Clock
    seating: str  # none | two_table_swap (两桌互换) | ab_zones (AB区)
    open: tuple[str, ...] = field(default=())  # what the sheet leaves unsaid
    cite: dict[str, str] = field(default_factory=dict)

    def stage(self, number: int) -> Stage:
        """Stage ``number`` (1-based), or a FormatError naming the format."""
        if not 1 <= number <= len(self.stages):
            raise FormatError(
                f"format {self.id}: stage {number}: it has {len(self.stages)} stage(s)"
            )
        return self.stages[number - 1]


def _folder() -> Traversable:
    return resources.files("engine.tournament").joinpath("formats")


def format_ids() -> list[str]:
    """Every format shipped in ``formats/`` (one per sheet that states a format)."""
    return sorted(p.name[:-5] for p in _folder().iterdir() if p.name.endswith(".toml"))


class _Table:
    """Reads one TOML table, each key checked for its type and its citation."""

    def __init__(self, where: str, raw: Any, cited: bool = True) -> None:
        if not isinstance(raw, dict):
            raise FormatError(f"{where}: expected a table")
        self.where = where
        self.raw = raw
        cite = raw.get("cite", {})
        if not isinstance(cite, dict) or not all(
            isinstance(v, str) and v.strip() for v in cite.values()
        ):
            raise FormatError(f"{where}: key cite: expected a table of key = quote")
        self.cite = {str(k): str(v) for k, v in cite.items()}
        self.cited = cited
        self.used: set[str] = {"cite"}

    def _get(self, key: str, default: Any) -> Any:
        self.used.add(key)
        if key not in self.raw:
            if default is None:
                raise FormatError(f"{self.where}: key {key}: missing")
            return default
        if self.cited and key not in self.cite:
            raise FormatError(f"{self.where}: key {key}: set without a cite entry")
        return self.raw[key]

    def text(self, key: str, default: str | None = None, choices: tuple[str, ...] = ()) -> str:
        value = self._get(key, default)
        if not isinstance(value, str) or (choices and value not in choices):
            want = " | ".join(choices) if choices else "a string"
            raise FormatError(f"{self.where}: key {key}: {value!r} is not {want}")
        return value

    def whole(self, key: str, default: int | None = None) -> int:
        value = self._get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise FormatError(f"{self.where}: key {key}: {value!r} is not a whole number ≥ 0")
        return value

    def flag(self, key: str, default: bool | None = None) -> bool:
        value = self._get(key, default)
        if not isinstance(value, bool):
            raise FormatError(f"{self.where}: key {key}: {value!r} is not true or false")
        return value

    def numbers(self, key: str, default: list[Any] | None, size: int = 0) -> tuple[float, ...]:
        value = self._get(key, default)
        if (
            not isinstance(value, list)
            or (size and len(value) != size)
            or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
        ):
            raise FormatError(
                f"{self.where}: key {key}: {value!r} is not a list of {size or 'some'} numbers"
            )
        return tuple(float(v) for v in value)

    def strings(self, key: str, default: list[str] | None, choices: tuple[str, ...]) -> list[str]:
        value = self._get(key, default)
        if not isinstance(value, list) or not all(v in choices for v in value):
            raise FormatError(
                f"{self.where}: key {key}: {value!r} is not a list of {' | '.join(choices)}"
            )
        return [str(v) for v in value]

    def done(self) -> None:
        extra = sorted(set(self.raw) - self.used)
        if extra:
            raise FormatError(f"{self.where}: key {extra[0]}: unknown")


def _three(values: tuple[float, ...]) -> tuple[float, float, float]:
    return (values[0], values[1], values[2])


def _stage(where: str, raw: Any) -> Stage:
    t = _Table(where, raw)
    kind = t.text("kind", choices=KINDS)
    default_draw = {"knockout": "bracket", "round_robin": "berger", "swiss": "score"}[kind]
    games = t.whole("games")
    if games < 1:
        raise FormatError(f"{where}: key games: a match plays at least one game")
    first_to = t.whole("first_to", 0)
    if first_to > games:
        raise FormatError(f"{where}: key first_to: {first_to} wins cannot come in {games} games")
    rank = t.strings("rank", ["match_points", "game_points"], CRITERIA)
    if not rank:
        raise FormatError(f"{where}: key rank: at least one criterion")
    stage = Stage(
        name=t.text("name"),
        kind=kind,
        draw=t.text("draw", default_draw, DRAWS),
        games=games,
        first_to=first_to,
        decided_by=t.text("decided_by", "games", DECIDERS),
        game_score=_three(t.numbers("game_score", [1, 0.5, 0], 3)),
        level_by_points=t.flag("level_by_points", False),
        extra_game=t.flag("extra_game", False),
        match_points=_three(t.numbers("match_points", [1, 0.5, 0], 3)),
        rank=tuple(rank),
        rounds=t.whole("rounds", 0),
        until=t.whole("until", 0),
        groups=t.whole("groups", 0),
        advance=t.whole("advance", 0),
        carry=t.flag("carry", False),
        game_draws=t.flag("game_draws", False),
        cite=t.cite,
    )
    t.done()
    if kind == "swiss" and not stage.rounds:
        raise FormatError(f"{where}: key rounds: a Swiss stage states its number of rounds")
    if kind == "knockout" and stage.draw not in ("bracket", "each_round", "cross"):
        raise FormatError(
            f"{where}: key draw: a knock-out is drawn by bracket, each_round or cross"
        )
    return stage


def load_format(format_id: str, folder: Traversable | None = None) -> Format:
    """The format ``format_id`` (``gouji-qingdao``), every key checked against its citation."""
    base = folder if folder is not None else _folder()
    path = base.joinpath(f"{format_id}.toml")
    where = f"formats/{format_id}.toml"
    if not path.is_file():
        raise FormatError(f"unknown format {format_id!r} (known: {', '.join(format_ids())})")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise FormatError(f"{where}: {e}") from None
    top = _Table(where, raw)
    if raw.get("id") != format_id:
        raise FormatError(f"{where}: key id: {raw.get('id')!r} is not the file's name")
    top.used.update({"id", "title", "sheet", "game", "open", "stage", "points", "clock"})
    for key in ("title", "sheet"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise FormatError(f"{where}: key {key}: missing")
    game = raw.get("game")
    if game not in ("tractor", "gouji"):
        raise FormatError(f"{where}: key game: {game!r} is not tractor | gouji")
    open_ = raw.get("open", [])
    if not isinstance(open_, list) or not all(isinstance(o, str) for o in open_):
        raise FormatError(f"{where}: key open: expected a list of strings")
    seating = top.text("seating", "none", ("none", "two_table_swap", "ab_zones"))
    top.done()

    p = _Table(f"{where} [points]", raw.get("points", {}))
    unit = p.text("unit", "levels" if game == "tractor" else "place_points", UNITS)
    places = p.numbers("places", [], 0) if "places" in p.raw else ()
    if places and len(places) != 6:
        raise FormatError(f"{where} [points]: key places: six places, 头科 … 大落")
    points = Points(
        unit=unit,
        places=tuple(int(v) for v in places),
        positive_only=p.flag("positive_only", False),
        sweep=p.whole("sweep", 0),
        cite=p.cite,
    )
    p.done()

    c = _Table(f"{where} [clock]", raw.get("clock", {}))
    clock = Clock(
        per=c.text("per", "none", ("match", "game", "round", "none")),
        limit_s=c.whole("limit_s", 0),
        late_limit_s=c.whole("late_limit_s", 0),
        late_from=c.whole("late_from", 0),
        finish_deal=c.flag("finish_deal", False),
        leader_wins=c.flag("leader_wins", False),
        on_tie=c.text("on_tie", "unstated", AT_TIME_TIES),
        carry_over=c.flag("carry_over", False),
        cite=c.cite,
    )
    c.done()

    raw_stages = raw.get("stage", [])
    if not isinstance(raw_stages, list):
        raise FormatError(f"{where}: key stage: expected [[stage]] tables")
    stages = tuple(_stage(f"{where} [[stage]] {i}", s) for i, s in enumerate(raw_stages, 1))
    return Format(
        id=format_id,
        game=str(game),
        title=str(raw["title"]),
        sheet=str(raw["sheet"]),
        stages=stages,
        points=points,
        clock=clock,
        seating=seating,
        open=tuple(str(o) for o in open_),
        cite=top.cite,
    )
