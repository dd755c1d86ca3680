"""Detections on still frames → table observations, one area at a time.

Each area remembers the cards it last held (a multiset: two identical cards from two decks are
two entries). A new read is compared with that: cards added to a seat's area are a play (or a
declaration), an emptied area is a trick taken, face-down cards in the centre are the buried
bottom, faces in the centre after that are the bottom turned up.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from vision.calibration import Calibration, Layout

log = logging.getLogger(__name__)
BACK = "back"


class DetectionLike(Protocol):
    """What ``vision.detect.Detection`` offers: one physical card."""

    @property
    def card(self) -> str: ...

    @property
    def score(self) -> float: ...

    @property
    def quad(self) -> Any:  # 4 × [x, y] image pixels
        ...


@dataclass(frozen=True)
class Read:
    """One card read in an area: identity, recognizer score, centre on the table plane, and
    where it lies in the frame (``[x, y, w, h]`` image pixels) so evidence can outline it."""

    card: str
    score: float
    x: float
    y: float
    box: tuple[float, float, float, float] | None = None
    # how the frames from its landing read it: (frame, card, score), oldest first
    # (``vision.votes``; empty when no frame before the settled one read it)
    history: tuple[tuple[int, str, float], ...] = ()


@dataclass(frozen=True)
class Observation:
    """Something that happened in one area, settled at ``frame``.

    kinds: ``appeared`` (cards added to a seat area), ``cleared`` (area emptied),
    ``removed`` (some cards taken away), ``changed`` (the area's cards differ in a way that is
    neither), ``facedown`` (``count`` backs lie in the centre), ``revealed`` (faces in the
    centre).
    """

    kind: str
    area: str
    seat: int | None
    frame: int
    t: float
    cards: tuple[str, ...] = ()
    scores: tuple[float, ...] = ()
    count: int = 0
    before: tuple[str, ...] = ()
    reads: tuple[Read, ...] = ()  # the area's reads at ``frame`` (their boxes mark evidence)


@dataclass
class AreaTrack:
    held: Counter[str] = field(default_factory=Counter)
    reads: list[Read] = field(default_factory=list)


class Tracker:
    """Keeps each area's settled contents and turns fresh reads into observations."""

    def __init__(self, layout: Layout, calibration: Calibration) -> None:
        self.layout = layout
        self.calibration = calibration
        self.tracks = {a.name: AreaTrack() for a in layout.areas}
        self.areas = {a.name: a for a in layout.areas}

    def assign(self, detections: Iterable[DetectionLike]) -> dict[str, list[Read]]:
        """Detections grouped by the area their centre falls in (outside every area: dropped)."""
        dets = merge_split_cards(list(detections))
        out: dict[str, list[Read]] = {name: [] for name in self.areas}
        if not dets:
            return out
        quads = [np.asarray(d.quad, np.float64).reshape(4, 2) for d in dets]
        table = self.calibration.to_table(np.array([q.mean(0) for q in quads]))
        for d, q, (x, y) in zip(dets, quads, table, strict=True):
            area = self.layout.area_at((float(x), float(y)))
            if area is not None:
                (x0, y0), (x1, y1) = np.maximum(q.min(0), 0.0), q.max(0)
                box = (round(x0, 1), round(y0, 1), round(x1 - x0, 1), round(y1 - y0, 1))
                out[area.name].append(Read(str(d.card), float(d.score), float(x), float(y), box))
        return out

    def update(
        self, ready: Sequence[str], reads: dict[str, list[Read]], frame: int, t: float
    ) -> list[Observation]:
        """Compare each ready area's fresh reads with what it held before."""
        obs: list[Observation] = []
        for name in ready:
            area = self.areas[name]
            track = self.tracks[name]
            fresh = reads.get(name, [])
            new = Counter(r.card for r in fresh)
            old = track.held
            if new == old:
                track.reads = fresh
                continue
            base: dict[str, Any] = {
                "area": name,
                "seat": area.seat,
                "frame": frame,
                "t": t,
                "reads": tuple(fresh),
            }
            before = tuple(sorted(old.elements()))
            if area.kind == "centre":
                faces = Counter({c: k for c, k in new.items() if c != BACK})
                if not new:
                    obs.append(Observation("cleared", before=before, **base))
                elif faces:
                    picked = _scores_of(fresh, faces)
                    obs.append(
                        Observation(
                            "revealed",
                            cards=tuple(c for c, _ in picked),
                            scores=tuple(s for _, s in picked),
                            count=new[BACK],
                            before=before,
                            **base,
                        )
                    )
                else:
                    backs = [r.score for r in fresh if r.card == BACK]
                    obs.append(
                        Observation(
                            "facedown",
                            count=new[BACK],
                            scores=tuple(backs),
                            before=before,
                            **base,
                        )
                    )
            elif not new:
                obs.append(Observation("cleared", before=before, **base))
            elif not (new - old) and old - new:
                obs.append(
                    Observation(
                        "removed", cards=tuple((old - new).elements()), before=before, **base
                    )
                )
            else:  # cards added to what lay there, or the area's cards replaced
                kind, shown = ("appeared", new - old) if not (old - new) else ("changed", new)
                picked = _scores_of(fresh, shown)
                obs.append(
                    Observation(
                        kind,
                        cards=tuple(c for c, _ in picked),
                        scores=tuple(sc for _, sc in picked),
                        before=before,
                        **base,
                    )
                )
            track.held = new
            track.reads = fresh
        return obs


MERGE_DOUBT = 0.6


@dataclass(frozen=True)
class Merged:
    """A card kept from two reads judged to be its two corners."""

    card: str
    score: float
    quad: Any


def merge_split_cards(dets: Sequence[DetectionLike]) -> list[DetectionLike]:
    """One card read more than once (its index corners not paired) is one card.

    Reads of one face are one card when they face different ways and their centres are
    close: turned 180° to each other (a card's two indices), within half a card height and
    offset along the card's long axis; or turned about 90° (a face with a mark in every
    corner, as some jokers have, read as an index at each), within a card height. Identical
    cards of two decks lie side by side (a pair, a fan) facing the same way, and a centre
    guessed from one corner can land anywhere along the card, so reads facing the same way
    are always two cards. The merge is transitive (three corners of one joker are one card)
    and a judgement, not a reading: the card it keeps carries a lowered score
    (``MERGE_DOUBT``), so the play is confirmed by a referee rather than passed silently.
    """
    root = list(range(len(dets)))

    def find(i: int) -> int:
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    quads = [np.asarray(d.quad, np.float64).reshape(4, 2) for d in dets]
    for i in range(len(dets)):
        for j in range(i + 1, len(dets)):
            if dets[i].card == dets[j].card and _one_card(quads[i], quads[j]):
                root[find(j)] = find(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(dets)):
        groups.setdefault(find(i), []).append(i)
    out: list[DetectionLike] = []
    for members in sorted(groups.values()):
        best = max(members, key=lambda i: dets[i].score)
        d = dets[best]
        out.append(Merged(d.card, d.score * MERGE_DOUBT, d.quad) if len(members) > 1 else d)
    return out


def _one_card(qi: NDArray[np.float64], qj: NDArray[np.float64]) -> bool:
    """Whether two reads of one face (their quads) are corners of one card."""
    down, down_j = qi[3] - qi[0], qj[3] - qj[0]
    height = float(np.linalg.norm(down)) or 1.0
    turn = float(down @ down_j) / (height * (float(np.linalg.norm(down_j)) or 1.0))
    if turn >= 0.5:
        return False  # facing the same way: two copies, not one card's corners
    off = qj.mean(0) - qi.mean(0)
    if turn > -0.5:
        return float(np.linalg.norm(off)) < height  # turned about 90°
    across = qi[1] - qi[0]
    along = abs(float(off @ down)) / height
    side = abs(float(off @ across)) / (float(np.linalg.norm(across)) or 1.0)
    return bool(np.hypot(along, side) < 0.45 * height and along > 1.5 * side)


def _scores_of(reads: list[Read], wanted: Counter[str]) -> list[tuple[str, float]]:
    """For each wanted card copy, the score of a read of it (the weakest copies first, so a
    doubtful duplicate is never hidden behind its confident twin)."""
    by_card: dict[str, list[float]] = {}
    for r in reads:
        by_card.setdefault(r.card, []).append(r.score)
    out: list[tuple[str, float]] = []
    for card in sorted(wanted, key=lambda c: [r.card for r in reads].index(c)):
        scores = sorted(by_card.get(card, [0.0]))
        out += [(card, scores[min(i, len(scores) - 1)]) for i in range(wanted[card])]
    return out
