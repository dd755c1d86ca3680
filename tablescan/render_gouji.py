"""Rendered Gouji matches with their truth: simulate deals, judge them, draw them, write files.

``tablescan render-match --profile gouji-XXX`` comes here (``tablescan.render`` dispatches by
the profile's game). The engine's simulator (``engine.gouji.sim``) plays each deal with the
sheet's 够级 answering, 烧, 开点 and 憋3; the Gouji referee says where each round opens (the
drawing sweeps the cloth there). Written beside ``match.mp4``:

- ``match.truth.jsonl``: the whole record, each event's ``t`` the frame it settled on;
- ``match.presses.jsonl``: what a camera cannot see and a seat controller or the referee's
  desk enters (passes, 烧/让/扣 buttons, the exchanges of 3s and 4s, 亮3; the referee's
  "end the deal" a moment after each deal's last set, and "match over" where the sheet states
  no number of deals), with the same times: ``tablescan replay`` feeds them in when the video
  reaches them (``tablescan.recorded_presses``). The node ends a deal itself when its reads
  decide every place (the referee's press then finds it ended and is dropped) and begins the
  next at its first lead: the bench counts which deals the table closed;
- ``match.table.toml``: six seats, the rules' decks (four on every sheet), the calibration
  and the six-seat areas.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from engine.gouji.referee import GoujiReferee
from engine.gouji.rules import Rules
from engine.gouji.sim import simulate
from engine.record import Event, dumps_event
from tablescan.config import dump_config
from tablescan.render_config import table_config
from vision.synth.gouji_video import draw_gouji
from vision.synth.match_video import FPS, IMAGE_SIZE

log = logging.getLogger(__name__)
CAMERA_SEES = ("play",)
NODE_SEES = ("hand_start",)  # a deal's first lead (or a seat's press) begins it
#: the referee at the table ends a deal the camera could not close (its places undecided after
#: a misread); where the node's own reads closed it already, the node drops this press
REFEREE_ENDS = {"reason": "referee", "meta": {"by": "referee"}}


@dataclass
class GoujiRender:
    """What ``render-match`` prints (the fields of ``tablescan.render.RenderResult``)."""

    video: Path
    truth: Path
    table: Path
    presses: Path
    frames: int
    fps: float
    design: str
    events: int


def simulated_deals(
    profile: str, seed: int, hands: int = 2, options: Mapping[str, Any] | None = None
) -> list[Event]:
    """``hands`` deals of the engine's seeded simulator as one match record (each deal its
    own seeded shuffle; the sheets' match is a series of independent deals); ``options``: a
    house's variation of the sheet (``{"deal.decks": 3}``), recorded in ``match_start``."""
    if hands < 1:
        raise ValueError(f"hands: at least 1 deal, got {hands}")
    out: list[Event] = []
    for k in range(1, hands + 1):
        events, _ = simulate(profile, seed * 100 + k, options=dict(options) if options else None)
        for ev in events:
            if ev["type"] == "match_start" and k > 1:
                continue
            ev = ev.copy()
            if ev["type"] == "hand_start":
                ev["hand"] = k
            out.append(ev)
    out.append({"v": 1, "type": "match_end", "reason": f"{hands} deals played"})
    for seq, ev in enumerate(out):
        ev["seq"] = seq
    return out


def _referee(events: list[Event], profile: str) -> GoujiReferee:
    """A Gouji referee for ``profile`` with the record's ``options`` (a house's deck count)."""
    start = next((e for e in events if e["type"] == "match_start"), None)
    return GoujiReferee(Rules.load(profile, (start or {}).get("options") or None))


def round_openings(events: list[Event], profile: str) -> tuple[set[int], dict[int, int]]:
    """Indexes of the plays that open a round, and for each the seat whose set stood last
    (who gathers the cards), as the Gouji referee judges the record."""
    ref = _referee(events, profile)
    leads: set[int] = set()
    sweepers: dict[int, int] = {}
    for idx, ev in enumerate(events):
        before = ref.table.history[-1] if ref.table is not None and ref.table.history else None
        prev_top = ref.table.round.top if ref.table is not None else None
        ref.feed(ev)
        t = ref.table
        if ev["type"] != "play" or t is None:
            continue
        plays = t.round.plays
        if len(plays) == 1 and plays[0].seq == ev["seq"]:
            leads.add(idx)
            last = prev_top or (before.top if before is not None else None)
            if last is not None:
                sweepers[idx] = last.seat
    return leads, sweepers


def sheet_ends_match(events: list[Event], profile: str) -> bool:
    """Whether the sheet's own match (its number of deals, or deals won) is over after the
    deals in ``events``: the node then ends it, and no referee's "match over" is pressed."""
    ref = _referee(events, profile)
    for ev in events:
        if ev["type"] != "match_end":
            ref.feed(ev)
    return ref.next_hand() is None


def judged(events: list[Event], profile: str) -> dict[str, Any]:
    """The Gouji referee's report on ``events`` (``tablescan judge --json``'s document)."""
    ref = _referee(events, profile)
    for ev in events:
        ref.feed(ev)
    return ref.report()


def render_gouji(
    events: list[Event],
    out: Path,
    seed: int,
    split: str = "train",
    design: str | None = None,
    image_size: tuple[int, int] = IMAGE_SIZE,
) -> GoujiRender:
    """Draw Gouji ``events`` to ``out`` and write the truth, the presses and the config."""
    start = next((e for e in events if e["type"] == "match_start"), None)
    if start is None:
        raise ValueError("events: a match_start event is needed (seats, profile)")
    hand = next((e for e in events if e["type"] == "hand_start"), None)
    leads, sweepers = round_openings(events, str(start["profile"]))
    plain = cast(list[dict[str, Any]], events)  # vision draws plain dicts, never the record
    drawn = draw_gouji(
        plain, out, seed, leads, sweepers, split=split, design=design, image_size=image_size
    )
    stem = out.with_suffix("")
    truth_path = stem.with_name(stem.name + ".truth.jsonl")
    presses_path = stem.with_name(stem.name + ".presses.jsonl")
    by_sheet = sheet_ends_match(events, str(start["profile"]))
    with (
        open(truth_path, "w", encoding="utf-8") as truth,
        open(presses_path, "w", encoding="utf-8") as presses,
    ):
        for seq, (frame_i, ev) in enumerate(drawn.timeline.truth):
            ev = {**ev, "seq": seq, "t": round(frame_i / FPS, 3)}
            truth.write(dumps_event(ev) + "\n")
            if ev["type"] in (*CAMERA_SEES, *NODE_SEES, "match_start"):
                continue
            if ev["type"] == "match_end" and by_sheet:
                continue
            if ev["type"] == "hand_end":
                ev = {**ev, **REFEREE_ENDS}
            press = {k: v for k, v in ev.items() if k not in ("v", "seq", "evidence")}
            presses.write(dumps_event(press) + "\n")
    decks = Rules.load(str(start["profile"]), start.get("options") or None).deal.decks
    cfg = table_config(out, start, hand, drawn.camera, drawn.layout, decks=decks)
    table_path = stem.with_name(stem.name + ".table.toml")
    table_path.write_text(
        f"# Rendered by tablescan render-match (Gouji, seed {seed}, design {drawn.design}, "
        f"{split}).\n" + dump_config(cfg),
        encoding="utf-8",
    )
    log.info("rendered %s: %d frames, design %s", out, drawn.frames, drawn.design)
    return GoujiRender(
        out,
        truth_path,
        table_path,
        presses_path,
        drawn.frames,
        FPS,
        drawn.design,
        len(drawn.timeline.truth),
    )


def render_simulated_gouji(
    profile: str,
    seed: int,
    out: Path,
    split: str = "train",
    hands: int | None = None,
    design: str | None = None,
    options: Mapping[str, Any] | None = None,
    image_size: tuple[int, int] = IMAGE_SIZE,
) -> GoujiRender:
    """``tablescan render-match --profile gouji-…``: ``hands`` deals (default 2) rendered."""
    events = simulated_deals(profile, seed, hands or 2, options)
    return render_gouji(events, out, seed, split, design, image_size)
