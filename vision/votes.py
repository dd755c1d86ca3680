"""Every frame's reads of a card, from the moment it lands until it is covered, as votes.

A card is best seen in the frames between landing and being covered: the lower card of a pair
shows its whole face before the upper one lands on it, and after that only a strip. So each
area keeps a track per card lying still in it (its place on the table plane and the reads of
it, frame by frame), and when the area settles each settled read is judged with its track:

- the frames agree with it: it stands; a weak settle read of a card the frames read surely
  takes their score (the card was seen, not guessed);
- the frames surely read another card and the settle read is unsure: the frames' card is taken
  (the lower card keeps its read); when the settle read is sure too the two disagree, and the
  read goes to a referee (doubted), never passed on as a fact;
- a card the frames read surely is missing from a settle read that is short of what the rules
  say the seat must lay: it is added, doubted (a referee confirms it).

Only reads of a card lying still count (read at the same place in two frames): a card carried
in a hand over the area moves between frames and never votes. Each settled read carries its
track's votes (``Read.history``): the evidence shows how the card was read over its frames.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from vision.tracking import BACK, Read

SAME = 0.1  # a read within this × card height of a track's place is that card, lying still
# (a fan's neighbours lie 0.2 card heights apart; a card carried in a hand moves more a frame)
AGREE = 0.8  # the share of a track's sure votes its card must hold for the track to be sure
OVERRULE = 2  # sure frames a track needs to overrule an unsure settle read with another card
HISTORY_MAX = 32  # votes a read carries into the evidence (the latest)

Vote = tuple[int, str, float]  # frame, card, score


@dataclass
class CardTrack:
    """One card lying in an area: where, and how each frame read it."""

    x: float
    y: float
    last_frame: int
    votes: list[Vote] = field(default_factory=list)
    still: bool = False  # read at the same place in two frames in a row
    box: tuple[float, float, float, float] | None = None

    def verdict(self, sure: float) -> tuple[str, float, float, int]:
        """(the card the votes favour, its share of their score, its best score, how many
        frames read it at least ``sure``). Only sure votes count when there are any: the
        frames after a card is covered read it weakly, and a weak read is no evidence
        against a sure one."""
        counted = [v for v in self.votes if v[2] >= sure] or self.votes
        weight: dict[str, float] = {}
        for _, card, score in counted:
            weight[card] = weight.get(card, 0.0) + score
        card, w = max(weight.items(), key=lambda kv: kv[1])
        total = sum(weight.values()) or 1.0
        best = max(s for _, c, s in counted if c == card)
        n_sure = sum(1 for _, c, s in counted if c == card and s >= sure)
        return card, w / total, best, n_sure


class VoteBook:
    """Each area's card tracks, fed every frame the area is read, consulted when it settles.

    ``card_height``: a card's height in table units; ``sure``: the score from which a track is
    sure of its card; ``doubt``: turns a read into one a referee must confirm."""

    def __init__(self, card_height: float, sure: float, doubt: Callable[[Read], Read]) -> None:
        self.card_height = card_height
        self.sure = sure
        self.doubt = doubt
        self.tracks: dict[str, list[CardTrack]] = {}

    def _pairs(self, name: str, reads: list[Read]) -> dict[int, CardTrack]:
        """Each read (by index) matched to the nearest unmatched track lying within ``SAME``."""
        tracks = self.tracks.get(name, [])
        lim = SAME * self.card_height
        pairs = sorted(
            (float(((t.x - r.x) ** 2 + (t.y - r.y) ** 2) ** 0.5), i, k)
            for i, r in enumerate(reads)
            for k, t in enumerate(tracks)
        )
        out: dict[int, CardTrack] = {}
        taken: set[int] = set()
        for d, i, k in pairs:
            if d <= lim and i not in out and k not in taken:
                out[i] = tracks[k]
                taken.add(k)
        return out

    def vote(self, name: str, reads: list[Read], frame: int) -> None:
        """One frame's reads of area ``name``: each joins the card lying at its place (or
        starts a track); a track read again at its place lies still."""
        tracks = self.tracks.setdefault(name, [])
        matched = self._pairs(name, reads)
        for i, r in enumerate(reads):
            t = matched.get(i)
            if t is None:
                t = CardTrack(r.x, r.y, frame, box=r.box)
                tracks.append(t)
            elif t.last_frame != frame:
                t.still = True
            t.x, t.y, t.last_frame, t.box = r.x, r.y, frame, r.box or t.box
            t.votes.append((frame, r.card, r.score))
        # a track read once and not again was a card passing over the area (carried)
        self.tracks[name] = [t for t in tracks if t.still or frame - t.last_frame <= 2]

    def clear(self, name: str) -> None:
        self.tracks.pop(name, None)

    def judge(self, name: str, reads: list[Read], want: int | None) -> list[Read]:
        """The settled ``reads`` of area ``name`` judged with their tracks' votes (see the
        module's rules); each carries its track's history."""
        if not reads:
            self.clear(name)  # the area is empty: its cards are gone
            return reads
        out: list[Read] = []
        used: set[int] = set()
        matched = self._pairs(name, reads)
        for i, r in enumerate(reads):
            t = matched.get(i)
            if t is None or not t.still:
                out.append(r)
                continue
            used.add(id(t))
            card, share, best, n_sure = t.verdict(self.sure)
            if BACK in (card, r.card):  # a face-down card turned up (or down) is no misread
                out.append(replace(r, history=tuple(t.votes[-HISTORY_MAX:])))
                continue
            history = tuple(t.votes[-HISTORY_MAX:])
            sure = share >= AGREE and n_sure >= 2
            if card == r.card:
                lifted = min(best, share) if sure and r.score < self.sure else r.score
                out.append(replace(r, score=max(r.score, lifted), history=history))
            elif sure and n_sure >= OVERRULE and r.score < self.sure:
                out.append(replace(r, card=card, score=min(best, share), history=history))
            elif sure:
                out.append(self.doubt(replace(r, history=history)))  # two sure reads disagree
            else:
                out.append(replace(r, history=history))
        if want is not None and len(out) < want:
            for t in self.tracks.get(name, []):
                if len(out) >= want:
                    break
                if id(t) in used or not t.still:
                    continue
                card, share, best, n_sure = t.verdict(self.sure)
                if card != BACK and share >= AGREE and n_sure >= 2:
                    hidden = Read(card, best, t.x, t.y, t.box, tuple(t.votes[-HISTORY_MAX:]))
                    out.append(self.doubt(hidden))  # seen land, covered now: a referee confirms
        return out
