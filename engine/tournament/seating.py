"""Seats for the Gouji team formats: two tables that swap (两桌互换) and AB zones (AB区).

``gouji-paodekuai`` (L244): each six-player team splits into two groups of three; group 1 of
甲 and of 乙 sit at table 1 on seats 1-3-5 and 2-4-6, group 2 likewise at table 2. When both
tables are done they change over: 甲's players take the other table's 2-4-6 (乙's seats), 乙's
players the other table's 1-3-5. ``gouji-abqu`` (L267) plays the same two sets a round over its
A and B zones (每轮比赛共打2套牌, AB区交换座位). Six players a team, always.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.tournament.formats import FormatError

__all__ = ["Seat", "two_table_swap"]


@dataclass(frozen=True, slots=True)
class Seat:
    """One player's place for one set: the set (1, 2), table, seat (1–6), team, player."""

    set: int
    table: str
    seat: int
    team: str
    player: str


def two_table_swap(
    team_a: str,
    players_a: Sequence[str],
    team_b: str,
    players_b: Sequence[str],
    tables: tuple[str, str] = ("1", "2"),
) -> list[Seat]:
    """Both sets' seats of one team match: 甲 (``team_a``, seats 1-3-5 in set 1) against 乙;
    each team's first three players are its group 1. ``tables`` names the two tables (or the
    zones ``("A", "B")``)."""
    for team, players in ((team_a, players_a), (team_b, players_b)):
        if len(players) != 6:
            raise FormatError(
                f"team {team}: a two-table match needs 6 players, found {len(players)}"
            )
    out: list[Seat] = []
    odd, even = (1, 3, 5), (2, 4, 6)
    for group in (0, 1):
        a = players_a[3 * group : 3 * group + 3]
        b = players_b[3 * group : 3 * group + 3]
        here, there = tables[group], tables[1 - group]
        out += [Seat(1, here, s, team_a, p) for s, p in zip(odd, a, strict=True)]
        out += [Seat(1, here, s, team_b, p) for s, p in zip(even, b, strict=True)]
        out += [Seat(2, there, s, team_a, p) for s, p in zip(even, a, strict=True)]
        out += [Seat(2, there, s, team_b, p) for s, p in zip(odd, b, strict=True)]
    return sorted(out, key=lambda s: (s.set, s.table, s.seat))
