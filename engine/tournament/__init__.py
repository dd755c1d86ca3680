"""The tournament: formats as data (one TOML per sheet, ``formats/``), results, standings with
the reason for each tie-break, pairings (knock-out, round robin, Swiss), Gouji seats and 局
points. Pure: no I/O beyond its own format files, no clock; chance only from a given seed."""

from engine.tournament.entrants import Entrant, entrants_from_rows
from engine.tournament.formats import Format, FormatError, Stage, format_ids, load_format
from engine.tournament.pairing import (
    Pairing,
    Seeds,
    bracket_positions,
    pair_round,
    seed_of,
    stage_field,
)
from engine.tournament.results import Game, Match, Outcome, check_results, match_from_json, outcome
from engine.tournament.scoring import game_from_places
from engine.tournament.seating import Seat, two_table_swap
from engine.tournament.standings import Reason, Standing, standings

__all__ = [
    "Entrant",
    "Format",
    "FormatError",
    "Game",
    "Match",
    "Outcome",
    "Pairing",
    "Reason",
    "Seat",
    "Seeds",
    "Stage",
    "Standing",
    "bracket_positions",
    "check_results",
    "entrants_from_rows",
    "format_ids",
    "game_from_places",
    "load_format",
    "match_from_json",
    "outcome",
    "pair_round",
    "seed_of",
    "stage_field",
    "standings",
    "two_table_swap",
]
