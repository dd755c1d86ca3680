"""Gouji deals drawn: six seats round the table, sets laid in each seat's area, rounds swept.

The pictures only (the spine, ``tablescan.render_gouji``, simulates the deals, says where each
round begins and writes the truth and the table config). Gouji is not trick-taking: in one
round a seat may lay several sets; before it lays a new one it pulls its last one back to its
edge, and when a round ends (a new lead) the cards still lying are swept to the last top's
seat. What the camera cannot see (passes and other seat-button presses, exchanges of 3s/4s,
a blocked seat's 亮3 shown in the hand) is not drawn: each is stamped with a frame between the
plays, after the play before it has settled, which is when a seat controller would press it.
"""

from __future__ import annotations

import random
from collections.abc import Collection
from pathlib import Path
from typing import Any

from vision.calibration import default_layout
from vision.synth.match_video import FPS, IMAGE_SIZE, DrawnMatch, film
from vision.synth.timeline import CARD_H, CARD_W, TABLE, Director, Timeline

AREA_SPAN = 250.0  # table units a set's fan may spread over (a six-seat area is ~260 wide)
DRAWN = ("play",)


class GoujiDirector(Director):
    """The 80-points director with Gouji's fans: big sets (up to a dozen cards) squeezed into
    the narrower six-seat areas, a seat's last set pulled back before its next one."""

    def slots(self, seat: int | None, k: int, step: float) -> list[tuple[float, float, float]]:
        if k > 1:
            step = min(step, max(CARD_W * 0.14, (AREA_SPAN - CARD_W) / (k - 1)))
        return super().slots(seat, k, step)

    def pull_back(self, seat: int) -> None:
        """The seat takes its last set off the cloth before laying another."""
        ids = self.in_area[seat]
        if ids:
            self.take_back(seat, ids)
            self.in_area[seat] = []
            self.idle(6, 8)  # the area is seen empty before the next set comes


def direct_gouji(
    events: list[dict[str, Any]], seed: int, leads: Collection[int], sweepers: dict[int, int]
) -> Timeline:
    """Plan every frame of the deals in ``events``. ``leads``: indexes of the plays that open
    a round (the cards still lying are swept first, by ``sweepers[index]``)."""
    layout = default_layout(6, TABLE, CARD_H)
    rng = random.Random(seed)
    d = GoujiDirector(6, layout, rng)
    d.idle(6, 8)
    after_play = False
    for idx, ev in enumerate(events):
        kind = ev["type"]
        if kind == "play":
            if idx in leads:
                d.idle(2, 4)
                d.sweep(sweepers.get(idx, ev["seat"]))
                d.idle(6, 8)  # the areas are seen empty before the lead comes
            else:
                d.pull_back(ev["seat"])
            ids = d.lay(ev["seat"], list(ev["cards"]), ev["seat"])
            d.in_area[ev["seat"]] = ids
            d.settle(ev)
            d.idle(1, 3)
            after_play = True
        else:
            if kind in ("hand_end", "hand_start"):
                d.idle(3, 5)
                if kind == "hand_end":
                    d.sweep(ev.get("seat", 0) if isinstance(ev.get("seat"), int) else 0)
            # a press comes once the play before it has settled (the camera wrote it)
            d.idle(5, 6) if after_play else d.idle(2, 3)
            after_play = False
            d.settle(ev)
    d.idle(8, 10)
    return d.tl


def draw_gouji(
    events: list[dict[str, Any]],
    out: Path,
    seed: int,
    leads: Collection[int],
    sweepers: dict[int, int],
    split: str = "train",
    fps: float = FPS,
    image_size: tuple[int, int] = IMAGE_SIZE,
    design: str | None = None,
) -> DrawnMatch:
    """Draw Gouji deals to ``out`` (.mp4), with ``NAME.labels.jsonl`` beside it."""
    layout = default_layout(6, TABLE, CARD_H)
    tl = direct_gouji(events, seed, leads, sweepers)
    return film(out, tl, layout, 6, seed, split, design, fps, image_size)
