"""Match results: one match a line (``results.jsonl``), checked against the format.

A result names its stage and round, the two entrants (``a``, ``b``) and its games, each with
its winner and both sides' points (levels gained, or Gouji small points, as the format counts
them). ``check_results`` refuses an unknown entrant, a match played twice, or a result the
format cannot have, with one sentence naming the line; ``outcome`` says who won the match and
why, by the stage's own rule (三局两胜, 累计局分, 比较累计小分).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.tournament.formats import Format, FormatError, Stage

__all__ = ["Game", "Match", "Outcome", "check_results", "match_from_json", "outcome"]

SIDES = ("a", "b", "draw")


@dataclass(frozen=True, slots=True)
class Game:
    """One game (局) of a match: who won it and both sides' points."""

    winner: str  # a | b | draw
    a_points: float
    b_points: float


@dataclass(frozen=True, slots=True)
class Match:
    """One match between entrants ``a`` and ``b`` in a stage's round."""

    stage: int
    round: int
    a: str
    b: str
    games: tuple[Game, ...]
    where: str = ""  # the line it came from, for errors

    def side(self, entrant: str) -> str:
        """``a`` or ``b``: the side ``entrant`` played."""
        return "a" if entrant == self.a else "b"

    def points_of(self, entrant: str) -> float:
        """The points ``entrant`` made over the match's games."""
        s = self.side(entrant)
        return sum(g.a_points if s == "a" else g.b_points for g in self.games)


@dataclass(frozen=True, slots=True)
class Outcome:
    """A match's result: the winner (None on a draw) and the rule that decided it."""

    winner: str | None
    by: str  # games | game_points | extra_game | level


def _number(where: str, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise FormatError(f"{where}: key {key}: {value!r} is not a number")
    return float(value)


def match_from_json(where: str, raw: Any) -> Match:
    """One ``results.jsonl`` line (already parsed) as a Match, or a FormatError naming it."""
    if not isinstance(raw, dict):
        raise FormatError(f"{where}: expected an object")
    for key in ("stage", "round"):
        if isinstance(raw.get(key), bool) or not isinstance(raw.get(key), int) or raw[key] < 1:
            raise FormatError(f"{where}: key {key}: {raw.get(key)!r} is not a number ≥ 1")
    for key in ("a", "b"):
        if not isinstance(raw.get(key), str) or not raw[key].strip():
            raise FormatError(f"{where}: key {key}: missing entrant")
    if raw["a"] == raw["b"]:
        raise FormatError(f"{where}: {raw['a']} cannot play itself")
    games = raw.get("games")
    if not isinstance(games, list) or not games:
        raise FormatError(f"{where}: key games: expected a list of at least one game")
    out: list[Game] = []
    for i, g in enumerate(games, 1):
        here = f"{where}: game {i}"
        if not isinstance(g, dict):
            raise FormatError(f"{here}: expected an object")
        if g.get("winner") not in SIDES:
            raise FormatError(f"{here}: key winner: {g.get('winner')!r} is not a | b | draw")
        out.append(
            Game(
                str(g["winner"]),
                _number(here, "a_points", g.get("a_points")),
                _number(here, "b_points", g.get("b_points")),
            )
        )
    return Match(raw["stage"], raw["round"], raw["a"], raw["b"], tuple(out), where)


def outcome(stage: Stage, match: Match) -> Outcome:
    """Who won ``match`` by ``stage``'s rule; a level match is a draw (None)."""
    if stage.decided_by == "game_points":
        a = sum(g.a_points for g in match.games)
        b = sum(g.b_points for g in match.games)
        return Outcome(match.a if a > b else match.b if b > a else None, "game_points")
    won, drawn, lost = stage.game_score
    score = {"a": 0.0, "b": 0.0}
    for g in match.games[: stage.games]:
        if g.winner == "draw":
            score["a"] += drawn
            score["b"] += drawn
        else:
            score[g.winner] += won
            score["b" if g.winner == "a" else "a"] += lost
    if score["a"] != score["b"]:
        return Outcome(match.a if score["a"] > score["b"] else match.b, "games")
    if stage.level_by_points:
        a = sum(g.a_points for g in match.games[: stage.games])
        b = sum(g.b_points for g in match.games[: stage.games])
        if a != b:
            return Outcome(match.a if a > b else match.b, "game_points")
    if stage.extra_game and len(match.games) > stage.games:
        last = match.games[-1]
        if last.winner != "draw":
            return Outcome(match.a if last.winner == "a" else match.b, "extra_game")
    return Outcome(None, "level")


def _check_match(fmt: Format, stage: Stage, m: Match) -> None:
    where = m.where or f"stage {m.stage} round {m.round} {m.a} v {m.b}"
    if stage.rounds and m.round > stage.rounds:
        raise FormatError(f"{where}: round {m.round}: stage {m.stage} plays {stage.rounds} rounds")
    extra = 1 if stage.extra_game else 0
    if len(m.games) > stage.games + extra:
        raise FormatError(
            f"{where}: {len(m.games)} games: a match of stage {m.stage} plays at most "
            f"{stage.games}" + (" and one extra game" if extra else "")
        )
    wins = {"a": 0, "b": 0}
    for i, g in enumerate(m.games, 1):
        here = f"{where}: game {i}"
        if stage.first_to and max(wins.values()) >= stage.first_to:
            raise FormatError(f"{here}: played after the match was won ({stage.first_to} games)")
        if g.winner == "draw" and not stage.game_draws:
            raise FormatError(f"{here}: a draw, which a game of format {fmt.id} cannot be")
        if g.winner != "draw":
            wins[g.winner] += 1
        mine, theirs = (g.a_points, g.b_points) if g.winner != "b" else (g.b_points, g.a_points)
        if fmt.points.unit == "place_points":
            if g.winner == "draw" and mine != theirs:
                raise FormatError(f"{here}: a draw with {g.a_points:g} to {g.b_points:g} points")
            if g.winner != "draw" and mine <= theirs:
                raise FormatError(
                    f"{here}: winner {g.winner} with {mine:g} points to {theirs:g} "
                    "(积分多者为胜: the side with more points wins the game)"
                )
        elif g.winner != "draw" and mine < theirs:
            raise FormatError(
                f"{here}: winner {g.winner} gained fewer levels ({mine:g} < {theirs:g})"
            )
        if fmt.points.positive_only and (min(mine, theirs) < 0 or min(mine, theirs) > 0):
            raise FormatError(
                f"{here}: {g.a_points:g} to {g.b_points:g}: 只记正分，不记负分 records the "
                "side ahead only (the other side 0, nobody negative)"
            )
    if len(m.games) > stage.games and outcome(replace(stage, extra_game=False), m).winner:
        raise FormatError(f"{where}: an extra game after a match that was not level")
    if stage.first_to and len(m.games) < stage.games and max(wins.values()) < stage.first_to:
        raise FormatError(
            f"{where}: unfinished: {len(m.games)} game(s) and nobody has won {stage.first_to}"
        )
    if stage.kind == "knockout" and outcome(stage, m).winner is None:
        raise FormatError(f"{where}: a knock-out match needs a winner, and this one is level")


def check_results(fmt: Format, entrants: Iterable[str], matches: Sequence[Match]) -> list[Match]:
    """``matches`` if every one names known entrants, is played once and could happen in
    ``fmt``; else a FormatError on the first that cannot (its line named)."""
    known = set(entrants)
    seen: dict[tuple[int, frozenset[str]], Match] = {}
    busy: dict[tuple[int, int, str], Match] = {}
    out_in: dict[tuple[int, str], Match] = {}  # knock-out: who lost, and where
    for m in matches:
        where = m.where or f"stage {m.stage} round {m.round}"
        stage = fmt.stage(m.stage) if m.stage <= len(fmt.stages) else None
        if stage is None:
            raise FormatError(f"{where}: stage {m.stage}: format {fmt.id} has {len(fmt.stages)}")
        for who in (m.a, m.b):
            if who not in known:
                raise FormatError(f"{where}: unknown entrant {who!r}")
            prior = busy.get((m.stage, m.round, who))
            if prior is not None:
                raise FormatError(
                    f"{where}: {who} already played stage {m.stage} round {m.round} "
                    f"({prior.where or prior.a + ' v ' + prior.b})"
                )
        pair = (m.stage, frozenset((m.a, m.b)))
        twice = seen.get(pair)
        if twice is not None:
            raise FormatError(
                f"{where}: {m.a} v {m.b} played twice in stage {m.stage} "
                f"(also {twice.where or 'round ' + str(twice.round)})"
            )
        _check_match(fmt, stage, m)
        if stage.kind == "knockout":
            for who in (m.a, m.b):
                lost = out_in.get((m.stage, who))
                if lost is not None and lost.round < m.round:
                    raise FormatError(
                        f"{where}: {who} was knocked out in stage {m.stage} round {lost.round} "
                        f"({lost.where or lost.a + ' v ' + lost.b})"
                    )
        seen[pair] = m
        if stage.kind == "knockout" and stage.draw != "cross":  # cross: a third-place match
            won = outcome(stage, m).winner
            out_in[(m.stage, m.b if won == m.a else m.a)] = m
        busy[(m.stage, m.round, m.a)] = m
        busy[(m.stage, m.round, m.b)] = m
    return list(matches)


def by_entrant(matches: Iterable[Match]) -> Mapping[str, list[Match]]:
    """Each entrant's matches, in the order given."""
    out: dict[str, list[Match]] = {}
    for m in matches:
        out.setdefault(m.a, []).append(m)
        out.setdefault(m.b, []).append(m)
    return out
