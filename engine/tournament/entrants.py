"""Entrants: the teams (or pairs) of an event, from an ``entrant,seed`` table.

Reading the file is the caller's; this takes its rows (dicts, as ``csv.DictReader`` gives
them), so the desk's CSV import and the CLI check them the same way: a header ``entrant``
(required), ``seed`` (optional, a whole number), ``group`` (optional: a round robin's group)
and ``players`` (optional: the team's players, separated by ``;`` or ``、``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from engine.tournament.formats import FormatError

__all__ = ["Entrant", "entrants_from_rows"]

COLUMNS = ("entrant", "seed", "group", "players")


@dataclass(frozen=True, slots=True)
class Entrant:
    """One team or pair: its name, seed (None: unseeded), group and players."""

    name: str
    seed: int | None = None
    group: str = ""
    players: tuple[str, ...] = ()


def entrants_from_rows(
    header: Sequence[str] | None, rows: Iterable[Mapping[str, str | None]], where: str
) -> list[Entrant]:
    """The entrants of a table's rows; a FormatError names the row and column that is bad."""
    cols = [c.strip() for c in (header or [])]
    if "entrant" not in cols:
        raise FormatError(f"{where}: line 1: header needs an 'entrant' column (entrant,seed)")
    unknown = [c for c in cols if c not in COLUMNS]
    if unknown:
        raise FormatError(f"{where}: line 1: unknown column {unknown[0]!r} ({', '.join(COLUMNS)})")
    out: list[Entrant] = []
    seen: set[str] = set()
    for n, row in enumerate(rows, 2):
        name = (row.get("entrant") or "").strip()
        if not name:
            raise FormatError(f"{where}: line {n}: empty entrant")
        if name in seen:
            raise FormatError(f"{where}: line {n}: entrant {name!r} listed twice")
        seen.add(name)
        raw_seed = (row.get("seed") or "").strip()
        if raw_seed and not raw_seed.isdigit():
            raise FormatError(f"{where}: line {n}: seed {raw_seed!r} is not a whole number")
        players = tuple(p.strip() for p in re.split("[;、]", row.get("players") or "") if p.strip())
        out.append(
            Entrant(
                name, int(raw_seed) if raw_seed else None, (row.get("group") or "").strip(), players
            )
        )
    if len(out) < 2:
        raise FormatError(f"{where}: an event needs at least two entrants, found {len(out)}")
    return out
