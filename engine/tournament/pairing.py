"""Who meets whom in a round: knock-out by lot, round robin, Swiss.

- Knock-out, ``bracket``: the lot puts the entrants on the positions of a bracket the size of
  the next power of two; the empty positions are spread evenly (16 places for 14 pairs: places
  8 and 16 are byes, as 抽到A8和A16的两组玩家可以轮空 reads) and the winners meet in bracket
  order. ``each_round``: a fresh lot each round among those left, a blank lot (one bye at
  most, never twice to one entrant while another has had none). ``cross``: group winners meet
  the other group's runners-up, then the final and the third-place match.
- Round robin: the circle (Berger) method on the lot's order, group by group; an odd group
  gives one bye a round.
- Swiss: round 1 by lot; then a maximum-weight matching (networkx) over the pairs that have
  not met, weighted so that equal scores meet first (高分对高分) and, for an odd field, the bye
  goes to a low score that has not had one. No rematch and no second bye, or an error.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import networkx as nx

from engine.tournament.entrants import Entrant
from engine.tournament.formats import Format, FormatError, Stage
from engine.tournament.results import Match, outcome
from engine.tournament.standings import lot_order, standings

__all__ = ["Pairing", "Seeds", "bracket_positions", "pair_round", "seed_of", "stage_field"]

#: The lots' seeds: one for every round (the CLI's ``--seed``), or each drawn round's own
#: (``(stage, round) → seed``, as a desk records them), so that a later round's new lot never
#: redraws the bracket or the circle an earlier round was played on.
Seeds = int | Mapping[tuple[int, int], int]

BYE = "\x00bye"  # the Swiss graph's bye node (no entrant may be named so: names are stripped)


@dataclass(frozen=True, slots=True)
class Pairing:
    """One round: the pairs in table order (``a`` first) and the byes."""

    pairs: tuple[tuple[str, str], ...]
    byes: tuple[str, ...]

    @property
    def bye(self) -> str | None:
        """The round's bye, where there is one (a bracket's first round may have several)."""
        return self.byes[0] if len(self.byes) == 1 else None


def seed_of(seeds: Seeds, stage: int, rnd: int) -> int:
    """Round ``rnd`` of ``stage``'s lot seed: its own where one is given, else the stage's first
    round's (the bracket, the circle and the stage's tie lots are drawn once, in round 1)."""
    if isinstance(seeds, int):
        return seeds
    if (stage, rnd) in seeds:
        return seeds[(stage, rnd)]
    same = sorted((r, v) for (st, r), v in seeds.items() if st == stage)
    return same[0][1] if same else 0


def bracket_positions(names: Sequence[str], seed: int, what: str) -> list[str | None]:
    """The bracket drawn by lot: ``names`` on 2^k positions, None on the spread byes."""
    size = 1
    while size < len(names):
        size *= 2
    empties = size - len(names)
    holes = {round(size / empties * (i + 1)) - 1 for i in range(empties)} if empties else set()
    drawn = iter(lot_order(names, seed, what))
    return [None if i in holes else next(drawn) for i in range(size)]


def _round_matches(matches: Sequence[Match], stage: int, rnd: int) -> list[Match]:
    return [m for m in matches if m.stage == stage and m.round == rnd]


def _winner_of(
    stage: Stage, stage_no: int, rnd: int, pair: tuple[str, str], ms: list[Match]
) -> str:
    for m in ms:
        if {m.a, m.b} == set(pair):
            won = outcome(stage, m).winner
            if won is not None:
                return won
    raise FormatError(
        f"stage {stage_no} round {rnd}: {pair[0]} v {pair[1]} has no result yet, so round "
        f"{rnd + 1} cannot be drawn"
    )


def stage_field(
    fmt: Format, stage_no: int, entrants: Sequence[Entrant], matches: Sequence[Match], seed: Seeds
) -> list[Entrant]:
    """Who plays stage ``stage_no``: everyone in stage 1, then those the last stage sends on."""
    if stage_no == 1:
        return list(entrants)
    prev_no = stage_no - 1
    prev = fmt.stage(prev_no)
    field = stage_field(fmt, prev_no, entrants, matches, seed)
    by_name = {e.name: e for e in field}
    if prev.kind == "knockout":
        rnd = 1
        left = [e.name for e in field]
        while len(left) > max(prev.until, 1) and (not prev.rounds or rnd <= prev.rounds):
            p = pair_round(fmt, prev_no, rnd, entrants, matches, seed)
            ms = _round_matches(matches, prev_no, rnd)
            left = [_winner_of(prev, prev_no, rnd, pr, ms) for pr in p.pairs] + list(p.byes)
            rnd += 1
        return [by_name[n] for n in sorted(left, key=[e.name for e in field].index)]
    played = [m for m in matches if m.stage == prev_no]
    if prev.kind == "round_robin":
        met = {frozenset((m.a, m.b)) for m in played}
        for e in field:
            for o in field:
                if (
                    e.name < o.name
                    and e.group == o.group
                    and frozenset((e.name, o.name)) not in met
                ):
                    raise FormatError(
                        f"stage {prev_no} ({prev.name}) is not finished: {e.name} and {o.name} "
                        f"have not met, so stage {stage_no} cannot be drawn"
                    )
    elif prev.rounds and not any(m.round == prev.rounds for m in played):
        raise FormatError(
            f"stage {prev_no} ({prev.name}) is not finished: round {prev.rounds} has no results, "
            f"so stage {stage_no} cannot be drawn"
        )
    table = standings(fmt, prev_no, field, matches, seed_of(seed, prev_no, 1))
    keep = [s for s in table if not prev.advance or s.rank <= prev.advance]
    return [by_name[s.entrant] for s in keep]


def pair_round(
    fmt: Format,
    stage_no: int,
    rnd: int,
    entrants: Sequence[Entrant],
    matches: Sequence[Match],
    seed: Seeds,
) -> Pairing:
    """The pairs of round ``rnd`` of stage ``stage_no`` after ``matches`` (checked), drawn with
    ``seed`` (one for all rounds, or each round's own): the same inputs, the same pairs."""
    stage = fmt.stage(stage_no)
    if rnd < 1:
        raise FormatError(f"round {rnd}: rounds are numbered from 1")
    if stage.rounds and rnd > stage.rounds:
        raise FormatError(
            f"round {rnd}: stage {stage_no} ({stage.name}) plays {stage.rounds} rounds"
        )
    field = stage_field(fmt, stage_no, entrants, matches, seed)
    what = f"{fmt.id}:{stage_no}"
    if stage.kind == "knockout":
        return _knockout(fmt, stage, stage_no, rnd, field, matches, seed)
    if stage.kind == "round_robin":
        return _round_robin(stage_no, rnd, field, seed_of(seed, stage_no, 1), what)
    return _swiss(fmt, stage, stage_no, rnd, field, matches, seed, what)


def _knockout(
    fmt: Format,
    stage: Stage,
    stage_no: int,
    rnd: int,
    field: list[Entrant],
    matches: Sequence[Match],
    seed: Seeds,
) -> Pairing:
    names = [e.name for e in field]
    what = f"{fmt.id}:{stage_no}"
    if stage.draw == "cross":
        return _cross(fmt, stage, stage_no, rnd, field, matches, seed)
    byes_had: set[str] = set()
    slots: list[str | None] = (
        bracket_positions(names, seed_of(seed, stage_no, 1), f"{what}:bracket")
        if stage.draw == "bracket"
        else [*names]
    )
    for r in range(1, rnd + 1):
        if stage.draw == "each_round":
            alive = [s for s in slots if s is not None]
            if len(alive) <= max(stage.until, 1):
                raise FormatError(f"round {r}: stage {stage_no} ({stage.name}) is over")
            order = lot_order(alive, seed_of(seed, stage_no, r), f"{what}:{r}")
            byes: list[str] = []
            if len(order) % 2:
                fresh = [n for n in order if n not in byes_had] or order
                byes = [fresh[-1]]
                order.remove(fresh[-1])
                byes_had.update(byes)
            pairs = [(order[i], order[i + 1]) for i in range(0, len(order), 2)]
        else:
            if sum(s is not None for s in slots) <= max(stage.until, 1) or len(slots) < 2:
                raise FormatError(f"round {r}: stage {stage_no} ({stage.name}) is over")
            pairs, byes = [], []
            for i in range(0, len(slots), 2):
                x, y = slots[i], slots[i + 1]
                if x is not None and y is not None:
                    pairs.append((x, y))
                elif x is not None or y is not None:
                    byes.append(x if x is not None else y)  # type: ignore[arg-type]
        if r == rnd:
            return Pairing(tuple(pairs), tuple(byes))
        ms = _round_matches(matches, stage_no, r)
        winners = {pr: _winner_of(stage, stage_no, r, pr, ms) for pr in pairs}
        if stage.draw == "each_round":
            slots = [*(winners[p] for p in pairs), *byes]
        else:
            nxt: list[str | None] = []
            for i in range(0, len(slots), 2):
                x, y = slots[i], slots[i + 1]
                nxt.append(winners[(x, y)] if x is not None and y is not None else x or y)
            slots = nxt
    raise AssertionError("unreachable")


def _cross(
    fmt: Format,
    stage: Stage,
    stage_no: int,
    rnd: int,
    field: list[Entrant],
    matches: Sequence[Match],
    seed: Seeds,
) -> Pairing:
    lots = seed_of(seed, stage_no - 1, 1)
    table = standings(fmt, stage_no - 1, field, matches, lots) if stage_no > 1 else []
    groups = sorted({s.group for s in table})
    if len(groups) != 2 or len(table) != 4:
        raise FormatError(
            f"stage {stage_no} ({stage.name}): a cross draw needs two groups' top two, "
            f"found {len(table)} entrant(s) in {len(groups)} group(s)"
        )
    first = {g: next(s.entrant for s in table if s.group == g and s.rank == 1) for g in groups}
    second = {g: next(s.entrant for s in table if s.group == g and s.rank == 2) for g in groups}
    semis = ((first[groups[0]], second[groups[1]]), (first[groups[1]], second[groups[0]]))
    if rnd == 1:
        return Pairing(semis, ())
    if rnd == 2:
        ms = _round_matches(matches, stage_no, 1)
        won = [_winner_of(stage, stage_no, 1, p, ms) for p in semis]
        lost = [p[1] if w == p[0] else p[0] for p, w in zip(semis, won, strict=True)]
        return Pairing(((won[0], won[1]), (lost[0], lost[1])), ())  # the final, third place
    raise FormatError(f"round {rnd}: stage {stage_no} ({stage.name}) is over after the final")


def _round_robin(stage_no: int, rnd: int, field: list[Entrant], seed: int, what: str) -> Pairing:
    groups: dict[str, list[str]] = {}
    for e in field:
        groups.setdefault(e.group, []).append(e.name)
    pairs: list[tuple[str, str]] = []
    byes: list[str] = []
    for gname in sorted(groups):
        order: list[str | None] = list(lot_order(groups[gname], seed, f"{what}:{gname}:berger"))
        if len(order) % 2:
            order.append(None)
        n = len(order)
        if rnd > n - 1:
            if len(groups) == 1:
                raise FormatError(
                    f"round {rnd}: a round robin of {len(groups[gname])} plays {n - 1} rounds"
                )
            continue
        # circle method: the first stays, the rest turn one place a round
        rest = order[1:]
        k = (rnd - 1) % (n - 1)
        turned = [order[0], *rest[-k:], *rest[:-k]] if k else order
        for i in range(n // 2):
            x, y = turned[i], turned[n - 1 - i]
            if x is None or y is None:
                byes.append(x if x is not None else y)  # type: ignore[arg-type]
            else:
                pairs.append((x, y) if (rnd + i) % 2 else (y, x))
    return Pairing(tuple(pairs), tuple(byes))


def _swiss(
    fmt: Format,
    stage: Stage,
    stage_no: int,
    rnd: int,
    field: list[Entrant],
    matches: Sequence[Match],
    seeds: Seeds,
    what: str,
) -> Pairing:
    names = [e.name for e in field]
    seed = seed_of(seeds, stage_no, rnd)
    before = [m for m in matches if m.stage == stage_no and m.round < rnd]
    for r in range(1, rnd):
        if not _round_matches(before, stage_no, r):
            raise FormatError(f"round {rnd}: round {r} of stage {stage_no} has no results yet")
    met = {frozenset((m.a, m.b)) for m in before}
    byes_had = {n for n in names if _had_bye(n, before, rnd)}
    if rnd == 1:
        order = lot_order(names, seed, f"{what}:1")
        byes = [order.pop()] if len(order) % 2 else []
        return Pairing(
            tuple((order[i], order[i + 1]) for i in range(0, len(order), 2)), tuple(byes)
        )
    lots = seed_of(seeds, stage_no, 1)
    score = {s.entrant: s.match_points for s in standings(fmt, stage_no, field, before, lots)}
    low = min(score.values())
    jitter = random.Random(f"{seed}:{what}:{rnd}:swiss")
    g = nx.Graph()
    g.add_nodes_from(names)
    big = 10**12
    for i, x in enumerate(names):
        for y in names[i + 1 :]:
            if frozenset((x, y)) in met:
                continue
            gap = round(2 * (score[x] - score[y])) ** 2
            g.add_edge(x, y, weight=big - 1000 * gap - jitter.randrange(1000))
    if len(names) % 2:
        g.add_node(BYE)
        for x in names:
            if x not in byes_had:
                gap = round(2 * (score[x] - low)) ** 2
                g.add_edge(x, BYE, weight=big - 1000 * gap - jitter.randrange(1000))
    matching = nx.max_weight_matching(g, maxcardinality=True)
    if 2 * len(matching) != g.number_of_nodes():
        raise FormatError(
            f"round {rnd}: no Swiss pairing of stage {stage_no} without a rematch"
            + (" or a second bye" if len(names) % 2 else "")
        )
    pairs: list[tuple[str, str]] = []
    byes = []
    for x, y in matching:
        if BYE in (x, y):
            byes.append(y if x == BYE else x)
            continue
        hi, lo = sorted((x, y), key=lambda n: (-score[n], names.index(n)))
        pairs.append((hi, lo))
    pairs.sort(key=lambda p: (-score[p[0]] - score[p[1]], names.index(p[0])))
    return Pairing(tuple(pairs), tuple(byes))


def _had_bye(name: str, before: Sequence[Match], rnd: int) -> bool:
    """Swiss: an entrant without a match in an earlier round had that round's bye."""
    rounds = {m.round for m in before if name in (m.a, m.b)}
    return any(r not in rounds for r in range(1, rnd))
