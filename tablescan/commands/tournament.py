"""``tablescan tournament``: the formats of the sheets, and standings and pairings from files.

- ``formats`` lists every format (one per sheet that states one; its id is the sheet's rule
  profile id); ``show ID`` prints its stages, each stage's kind (knockout, round_robin, swiss),
  its clock and every citation.
- ``standings --format ID --entrants entrants.csv --results results.jsonl [--json]``: the
  table of the stage played so far, with the reason for every tie-break.
- ``pair --format ID --entrants entrants.csv --results results.jsonl --round N --seed S
  [--stage K] [--json]``: the pairs of round N of stage K (default 1; rounds are numbered
  within their stage, so chaodipi-h5's Swiss is ``--stage 2 --round 1``):
  ``{"pairs": [[a, b], …], "bye": …|null}``, and ``byes`` lists them all, since a bracket's
  first round may have several (``bye`` is then null).

An unknown entrant, a match played twice or a result the format cannot have is one line on
stderr naming the file and line, and exit status 2.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path
from typing import Any

from engine.tournament import (
    Entrant,
    Format,
    FormatError,
    Match,
    Standing,
    check_results,
    entrants_from_rows,
    format_ids,
    load_format,
    match_from_json,
    pair_round,
    stage_field,
    standings,
)
from tablescan.i18n import _, add_lang_option, choose, use


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("tournament", help="tournament formats, standings and pairings")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    f = actions.add_parser("formats", help="list the formats (one per sheet)")
    add_lang_option(f)
    f.set_defaults(func=run_formats)
    s = actions.add_parser("show", help="one format: stages, kinds, clock, citations")
    s.add_argument("id")
    add_lang_option(s)
    s.set_defaults(func=run_show)
    for name, func in (("standings", run_standings), ("pair", run_pair)):
        q = actions.add_parser(name, help=f"the {name} of a stage from entrants and results")
        q.add_argument("--format", required=True, dest="fmt")
        q.add_argument("--entrants", required=True, type=Path, help="CSV: entrant,seed")
        q.add_argument("--results", type=Path, help="JSON Lines: one match a line")
        q.add_argument("--stage", type=int, help="stage number (default: the one played so far)")
        q.add_argument("--seed", type=int, default=0, help="the lots' seed (default 0)")
        q.add_argument("--json", action="store_true")
        add_lang_option(q)
        if name == "pair":
            q.add_argument("--round", type=int, required=True, dest="rnd")
        q.set_defaults(func=func)


def read_entrants(path: Path) -> list[Entrant]:
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            reader = csv.DictReader(fh)
            return entrants_from_rows(reader.fieldnames, list(reader), str(path))
    except OSError as e:
        raise FormatError(f"{path}: {e.strerror}") from None


def read_results(path: Path | None) -> list[Match]:
    if path is None:
        return []
    out: list[Match] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise FormatError(f"{path}: {e.strerror}") from None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{n}"
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as e:
            raise FormatError(f"{where}: not JSON ({e.msg})") from None
        out.append(match_from_json(where, raw))
    return out


def _num(x: float) -> float | int:
    return int(x) if float(x).is_integer() else x


def _load(args: argparse.Namespace) -> tuple[Format, list[Entrant], list[Match]]:
    fmt = load_format(args.fmt)
    if not fmt.stages:
        raise FormatError(f"format {fmt.id}: its sheet states a clock but no stages to play")
    entrants = read_entrants(args.entrants)
    matches = check_results(fmt, [e.name for e in entrants], read_results(args.results))
    return fmt, entrants, matches


def reason_line(s: Standing) -> str:
    """A standing's tie-break reason in the CLI's language (``--json`` keeps the English)."""
    r = s.reason
    if r is None:
        return ""
    if r.relation == "level":
        return _("level with {other} (the sheet breaks this tie no further)", other=r.other)
    names = {
        "match_points": _("match points"),
        "game_points": _("accumulated game points"),
        "head_to_head": _("head-to-head"),
        "head_to_head_game_points": _("head-to-head game points"),
        "largest_win": _("largest win"),
        "lots": _("lots"),
    }
    if r.relation == "ahead":
        return _("ahead of {other} on {criterion}", other=r.other, criterion=names[r.criterion])
    return _("behind {other} on {criterion}", other=r.other, criterion=names[r.criterion])


def _fail(e: FormatError) -> int:
    print(f"error: {e}", file=sys.stderr)
    return 2


def run_standings(args: argparse.Namespace) -> int:
    use(choose(args.lang))
    try:
        fmt, entrants, matches = _load(args)
        stage_no = args.stage or max((m.stage for m in matches), default=1)
        field = stage_field(fmt, stage_no, entrants, matches, args.seed)
        table = standings(fmt, stage_no, field, matches, args.seed)
    except FormatError as e:
        return _fail(e)
    rows: list[dict[str, Any]] = [
        {
            "rank": s.rank,
            "entrant": s.entrant,
            "match_points": _num(s.match_points),
            "game_points": _num(s.game_points),
            "tiebreak": s.tiebreak,
            **({"group": s.group} if s.group else {}),
        }
        for s in table
    ]
    if args.json:
        print(json.dumps({"stage": stage_no, "standings": rows}, ensure_ascii=False))
        return 0
    print(_("{fmt}, stage {n}: {name}", fmt=fmt.id, n=stage_no, name=fmt.stage(stage_no).name))
    for r, s in zip(rows, table, strict=True):
        r["tiebreak"] = reason_line(s)
        group = f"[{r['group']}] " if r.get("group") else ""
        print(
            f"{group}{r['rank']:>3}  {r['entrant']}  "
            + _("match points {mp}, game points {gp}", mp=r["match_points"], gp=r["game_points"])
            + (f"  ({r['tiebreak']})" if r["tiebreak"] else "")
        )
    return 0


def run_pair(args: argparse.Namespace) -> int:
    use(choose(args.lang))
    try:
        fmt, entrants, matches = _load(args)
        stage_no = args.stage or 1
        pairing = pair_round(fmt, stage_no, args.rnd, entrants, matches, args.seed)
    except FormatError as e:
        return _fail(e)
    if args.json:
        doc = {
            "pairs": [list(p) for p in pairing.pairs],
            "bye": pairing.byes[0] if len(pairing.byes) == 1 else None,
            "byes": list(pairing.byes),
        }
        print(json.dumps(doc, ensure_ascii=False))
        return 0
    print(_("{fmt}, stage {n}, round {r}", fmt=fmt.id, n=stage_no, r=args.rnd))
    for i, (a, b) in enumerate(pairing.pairs, 1):
        print(_("table {t}: {a} v {b}", t=i, a=a, b=b))
    for bye in pairing.byes:
        print(_("bye: {who}", who=bye))
    return 0


def run_formats(args: argparse.Namespace) -> int:
    use(choose(args.lang))
    bad = 0
    for fid in format_ids():
        try:
            fmt = load_format(fid)
        except FormatError as e:
            print(f"  {fid:20s} {_('ERROR')} {e}")
            bad += 1
            continue
        kinds = " → ".join(s.kind for s in fmt.stages) or _("clock only")
        print(f"  {fid:20s} {kinds:32s} {fmt.title}")
    return 1 if bad else 0


def _cites(cite: dict[str, str], key: str) -> str:
    return "      " + _("cite: {q}", q=cite[key]) if key in cite else ""


def run_show(args: argparse.Namespace) -> int:
    use(choose(args.lang))
    try:
        fmt = load_format(args.id)
    except FormatError as e:
        return _fail(e)
    lines = [f"{fmt.id}: {fmt.title}", _("source: {s}", s=fmt.sheet)]
    if fmt.seating != "none":
        lines.append(f"seating = {fmt.seating}")
        lines.append(_cites(fmt.cite, "seating"))
    lines.append("[points]")
    for key in ("unit", "places", "positive_only", "sweep"):
        if key in fmt.points.cite:
            lines.append(f"  {key} = {getattr(fmt.points, key)!r}")
            lines.append(_cites(fmt.points.cite, key))
    lines.append("[clock]")
    for key, value in (
        ("per", fmt.clock.per),
        ("limit_s", fmt.clock.limit_s),
        ("late_limit_s", fmt.clock.late_limit_s),
        ("late_from", fmt.clock.late_from),
        ("finish_deal", fmt.clock.finish_deal),
        ("leader_wins", fmt.clock.leader_wins),
        ("on_tie", fmt.clock.on_tie),
        ("carry_over", fmt.clock.carry_over),
    ):
        if key in fmt.clock.cite:
            lines.append(f"  {key} = {value!r}")
            lines.append(_cites(fmt.clock.cite, key))
    if not fmt.clock.cite:
        lines.append("  " + _("no clock stated"))
    for n, st in enumerate(fmt.stages, 1):
        lines.append(_("stage {n}: {name} (kind: {kind})", n=n, name=st.name, kind=st.kind))
        for key in (
            "kind", "draw", "games", "first_to", "decided_by", "game_score", "game_draws",
            "level_by_points", "extra_game", "match_points", "rank", "rounds", "until",
            "groups", "advance", "carry",
        ):  # fmt: skip
            if key in st.cite:
                value = getattr(st, key)
                lines.append(f"  {key} = {list(value) if isinstance(value, tuple) else value!r}")
                lines.append(_cites(st.cite, key))
    for note in fmt.open:
        lines.append(_("open: {note}", note=note))
    print("\n".join(line for line in lines if line))
    return 0
