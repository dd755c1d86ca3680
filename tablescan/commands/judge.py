"""``tablescan judge RECORD.jsonl [--profile ID] [--json]``: the referee's report on a record.

The record names its game and profile in ``match_start``; ``--profile`` overrides the profile
(e.g. to judge a friendly game under a tournament's sheet). Bad lines are reported with their
line numbers on stderr and the rest is judged. Exit status: 0 judged, 1 judged but the record
had bad lines or events the referee could not judge, 2 nothing could be judged.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from typing import Any

from engine.games import game_of_profile, referee_for
from engine.record import Event, RecordError, Ruling, read_record

log = logging.getLogger(__name__)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("judge", help="judge a match record (JSON Lines) and print the report")
    p.add_argument("record", help="match record, one JSON event per line ('-' for stdin)")
    p.add_argument("--profile", help="rule profile id (default: the record's match_start)")
    p.add_argument("--json", action="store_true", help="print the report as one JSON document")
    p.set_defaults(func=run)


def judge_events(events: list[Event], profile: str | None) -> tuple[Any, list[Ruling]]:
    """Feed a record to the referee the registry builds for it; (referee, rulings in order)."""
    start = next((e for e in events if e["type"] == "match_start"), None)
    if start is None:
        if profile is None:
            raise ValueError("the record has no match_start; give --profile")
        start = {"type": "match_start", "game": game_of_profile(profile).name, "profile": profile}
    if profile is not None and game_of_profile(profile).name != start.get("game"):
        raise ValueError(f"profile {profile!r} is not a {start.get('game')} profile")
    referee = referee_for(start, profile=profile)
    rulings: list[Ruling] = []
    for ev in events:
        if profile is not None and ev["type"] == "match_start":
            ev = {**ev, "profile": profile}
        rulings += referee.feed(ev)
    return referee, rulings


def run(args: argparse.Namespace) -> int:
    source: Any = sys.stdin if args.record == "-" else args.record
    try:
        events, errors = read_record(source)
    except OSError as e:
        print(f"error: cannot read {args.record}: {e.strerror or e}", file=sys.stderr)
        return 2
    for err in errors:
        print(f"record error: {err}", file=sys.stderr)
    if not events:
        print(f"error: {args.record}: no valid event to judge", file=sys.stderr)
        return 2
    try:
        referee, _ = judge_events(events, args.profile)
    except (ValueError, RecordError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    report = referee.report()
    report["record_errors"] = [e.as_dict() for e in errors]
    if args.json:
        json.dump(report, sys.stdout, ensure_ascii=False, indent=1)
        print()
    else:
        print("\n".join(render(report)))
    bad = bool(errors) or bool(report.get("errors"))
    return 1 if bad else 0


def _cards(cards: list[str] | None) -> str:
    return " ".join(cards) if cards else "-"


def _violation_line(v: dict[str, Any], seats: list[str]) -> str:
    seat = v.get("seat")
    who = seats[seat] if isinstance(seat, int) and 0 <= seat < len(seats) else str(seat)
    pen = v.get("penalty") or {}
    cost = []
    if not isinstance(pen, dict):  # a game may state its penalty as text
        pen = {"note": str(pen)}
    if pen.get("points"):
        cost.append(f"{pen['points']} pts")
    if pen.get("levels"):
        cost.append(f"{pen['levels']} level(s)")
    note = pen.get("note") or ""
    penalty = ", ".join(cost) or "no fixed penalty"
    how = f" [{v['how']}]" if v.get("how") else ""
    text = (
        f"  ! {v.get('rule')} by seat {seat} ({who}) at seq {v.get('at_seq')}, "
        f"proven by seq {v.get('proven_by_seq')}{how}"
    )
    lines = [text]
    detail = v.get("detail") or v.get("why")
    if detail:
        lines.append(f"    {detail}")
    lines.append(f"    penalty: {penalty}" + (f" ({note})" if note else ""))
    if v.get("evidence"):
        lines.append(f"    evidence: {', '.join(v['evidence'])}")
    if v.get("status") not in (None, "open"):
        lines.append(f"    status: {v['status']}")
    if v.get("provisional"):
        lines.append("    provisional: rests on a reading awaiting the referee")
    return "\n".join(lines)


def render(report: dict[str, Any]) -> list[str]:
    """The report as text for a referee: one block per deal."""
    seats = [str(s) for s in report.get("seats", [])]
    out = [f"{report.get('game')} match, profile {report.get('profile')}"]
    if seats:
        out.append("seats: " + ", ".join(f"{i} {s}" for i, s in enumerate(seats)))
    for h in report.get("hands", []):
        if report.get("game") != "tractor":
            out.append(f"hand {h.get('hand')}:")
            out += [f"  {k}: {json.dumps(v, ensure_ascii=False)}" for k, v in h.items()]
            continue
        trump = h["trump"]
        suit = trump["suit"] or "no-trump"
        out.append(f"hand {h['hand']}: level {trump['level']}, trump {suit}, banker {h['banker']}")
        for t in h["tricks"]:
            plays = "; ".join(f"{p['seat']}: {_cards(p['cards'])}" for p in t["plays"])
            out.append(
                f"  trick {t['index'] + 1:2d} ({plays}) -> seat {t['winner']}, {t['points']} pts"
            )
        b = h["bottom"]
        out.append(
            f"  bottom: {_cards(b['cards'])}; multiplier {b['multiplier']}; points {b['points']}"
        )
        out.append(
            f"  attackers: {h['attacker_points']} points "
            f"({h['trick_points']} in tricks, {h['penalty_points']:+d} penalties)"
        )
        for v in h["violations"]:
            out.append(_violation_line(v, seats))
        o = h.get("outcome")
        if o:
            out.append(
                f"  outcome: {o['side']} +{o['levels']} level(s), next level {o['new_level']}, "
                f"next banker {o['next_banker']}" + (" (game over)" if o.get("game_over") else "")
            )
        else:
            out.append(f"  outcome: none (deal {h.get('end') or 'not finished'})")
    for v in report.get("violations", []) if report.get("game") != "tractor" else []:
        out.append(_violation_line(v, seats))
    for e in report.get("errors", []):
        out.append(f"error at seq {e.get('seq')}: {e.get('problem', e)}")
    return out
