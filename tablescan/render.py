"""Rendered match videos with their truth: simulate a hand, judge it, draw it, write the files.

This is the pipeline's ground truth. The true record is known (it is the simulator's), so a
replay of the video can be scored event by event. The drawing is vision's
(``vision.synth.match_video``); the spine simulates the hand, asks the game's referee who
takes each trick (the sweep direction), and writes beside ``match.mp4``:
``match.truth.jsonl`` (the record, each event's ``t`` the moment its cards have settled: the
first still frame after the last card lands and the hand leaves) and ``match.table.toml``
(calibration by the ArUco markers drawn at the table corners, seat areas, hand masks) which
``tablescan replay`` takes. ``match.labels.jsonl`` (every card's quad per scene change) comes
with the drawing.
"""

from __future__ import annotations

import importlib
import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from engine.games import game_of_profile, referee_for
from engine.record import Event, apply_corrections, cards_text, dumps_event
from tablescan.config import dump_config
from tablescan.render_config import table_config
from vision.synth.match_video import FPS, IMAGE_SIZE, draw_match

log = logging.getLogger(__name__)


@dataclass
class RenderResult:
    video: Path
    truth: Path
    table: Path
    frames: int
    fps: float
    design: str
    events: int


def trick_winners(events: list[dict[str, Any]]) -> dict[int, int]:
    """Index of each trick's last play → the seat that takes the trick, as the game's referee
    judges it at the table; empty when it cannot judge these events (the drawing then takes
    the next trick's leader)."""
    out: dict[int, int] = {}
    try:
        evs = cast(list[Event], events)  # the drawing's events (vision's dicts): a record's
        start = next(e for e in evs if e["type"] == "match_start")
        ref = referee_for(start)
        for idx, e in enumerate(evs):
            for r in ref.feed(e):
                if r.get("kind") == "trick" and isinstance(winner := r.get("winner"), int):
                    out[idx] = winner
    except Exception as e:  # a render must not fail on a judging problem
        log.info("trick winners from the play order (%s)", e)
        out = {}
    return out


def render_match(
    events: Iterable[dict[str, Any]],
    out: Path,
    seed: int,
    split: str = "train",
    fps: float = FPS,
    image_size: tuple[int, int] = IMAGE_SIZE,
    design: str | None = None,
) -> RenderResult:
    """Render ``events`` (a match's record, one deal or more) to ``out`` (.mp4), with truth
    and table config.

    ``design`` picks one deck design by name (e.g. ``gnome/tango_nuevo``); default: seeded.
    """
    evs = [dict(e) for e in events]
    start = next((e for e in evs if e["type"] == "match_start"), None)
    if start is None:
        raise ValueError("events: a match_start event is needed (seats, profile)")
    hand = next((e for e in evs if e["type"] == "hand_start"), None)
    drawn = draw_match(evs, out, seed, split, fps, image_size, design, trick_winners(evs))
    stem = out.with_suffix("")
    truth_path = stem.with_name(stem.name + ".truth.jsonl")
    with open(truth_path, "w", encoding="utf-8") as fh:
        for seq, (frame_i, ev) in enumerate(drawn.timeline.truth):
            ev = {**ev, "seq": seq, "t": round(frame_i / fps, 3)}
            fh.write(dumps_event(ev) + "\n")
    table_path = stem.with_name(stem.name + ".table.toml")
    cfg = table_config(out, start, hand, drawn.camera, drawn.layout)
    table_path.write_text(
        f"# Rendered by tablescan render-match (seed {seed}, design {drawn.design}, {split}).\n"
        + dump_config(cfg),
        encoding="utf-8",
    )
    log.info("rendered %s: %d frames, design %s", out, drawn.frames, drawn.design)
    return RenderResult(
        out, truth_path, table_path, drawn.frames, fps, drawn.design, len(drawn.timeline.truth)
    )


def read_truth(path: Path) -> list[Event]:
    """The true record a render wrote (``match.truth.jsonl``)."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def simulated_hand(
    profile: str, seed: int, tricks: int | None = None, hands: int = 1
) -> list[dict[str, Any]]:
    """Hands from the engine's seeded simulator, as record events: a match of up to
    ``hands`` deals, levels and banker carried (its ``match_end`` only when a side passed
    its last level: a hand limit is no end a table shows); the first ``tricks`` only."""
    from engine.tractor.rules import Rules
    from engine.tractor.sim import match_events, simulate_match

    match = simulate_match(Rules.load(profile), seed, max_hands=hands)
    events = [
        e for e in match_events(match) if e["type"] != "match_end" or match.winner is not None
    ]
    if tricks is None:
        return events
    n = len(next(e for e in events if e["type"] == "match_start")["seats"])
    out: list[dict[str, Any]] = []
    plays = 0
    for e in events:
        if e["type"] == "hand_start":
            plays = 0  # the first ``tricks`` of every deal
        if e["type"] == "play":
            if plays >= tricks * n:
                continue
            plays += 1
        out.append(e)
    return out


#: the rendered-match makers of the games this module does not draw, by the game's view key
#: (``engine.games.Game.view``): a new game's renderer is one line here (CONTRIBUTING.md)
OTHER_RENDERERS = {"gouji": "tablescan.render_gouji:render_simulated_gouji"}


def render_simulated(
    profile: str,
    seed: int,
    out: Path,
    split: str = "train",
    tricks: int | None = None,
    design: str | None = None,
    hands: int | None = None,
    options: dict[str, Any] | None = None,
    image_size: tuple[int, int] = IMAGE_SIZE,
) -> RenderResult:
    """``tablescan render-match``: simulate a match of ``hands`` deals with ``seed`` and
    render it to ``out`` (between deals the cards are gathered and dealt again); a Gouji
    profile renders through ``tablescan.render_gouji``, with a house's ``options``;
    ``image_size``: the frames' (width, height), 1280×720 unless asked (2304×1296 is the
    Camera Module 3's full-field mode, the setup guide's)."""
    other = OTHER_RENDERERS.get(game_of_profile(profile).view)
    if other is not None:
        module, _, attr = other.partition(":")
        draw = getattr(importlib.import_module(module), attr)
        return cast(
            RenderResult, draw(profile, seed, out, split, hands, design, options, image_size)
        )
    if options:
        raise ValueError("--option: the 80-points simulator plays its sheet as written")
    events = simulated_hand(profile, seed, tricks, hands or 1)
    return render_match(events, out, seed, split=split, design=design, image_size=image_size)


def played(events: Iterable[Event]) -> list[tuple[int, tuple[str, ...]]]:
    """The (seat, sorted cards) of every play, after corrections: a replay against its truth."""
    return [
        (e["seat"], tuple(sorted(cards_text(e))))
        for e in apply_corrections(list(events))
        if e["type"] == "play"
    ]
