"""The ``table.toml`` a rendered video comes with, so ``replay`` reads it as a table node
would read a real table: one definition for both games' renderers."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.games import find_game
from tablescan.config import layout_tables
from vision.calibration import Layout
from vision.synth.match_video import FPS, MARKER_SIZE, Camera
from vision.synth.timeline import CARD_H, TABLE


def table_config(
    video: Path,
    start: Mapping[str, Any],
    hand: Mapping[str, Any] | None,
    camera: Camera,
    layout: Layout,
    *,
    decks: int = 2,
) -> dict[str, Any]:
    """The ``table.toml`` content that lets ``replay`` read this video (the game, seats,
    teams, levels and a house's options from the record's ``match_start``; ``decks``: the
    game's deck count)."""
    game = find_game(str(start.get("game", "tractor")))
    n = len(start["seats"])
    return {
        "table": {
            "id": video.stem,
            "game": start.get("game", "tractor"),
            "profile": start["profile"],
            "seats": list(start["seats"]),
            "teams": start.get("teams", [list(range(k, n, 2)) for k in (0, 1)]),
            "levels": start.get("levels", ["2", "2"] if game.levels else ["-", "-"]),
            **({"banker": hand["banker"]} if hand and hand.get("banker") is not None else {}),
            "decks": decks,
            **({"options": dict(start["options"])} if start.get("options") else {}),
        },
        "source": {"uri": video.name, "fps": FPS},
        "model": {"path": "models/cards.onnx"},  # min_score: the model's own sure score
        "calibration": {
            "method": "aruco",
            "table_size": [TABLE, TABLE],
            "dictionary": "DICT_4X4_50",
            "marker_ids": [0, 1, 2, 3],
            "marker_size": MARKER_SIZE,
            "card_height": CARD_H,
            "points": [list(p) for p in camera.table_corners_image()],
        },
        "motion": {"still_frames": 2},
        **layout_tables(layout),
    }
