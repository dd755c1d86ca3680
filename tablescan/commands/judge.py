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
from tablescan.i18n import _, add_lang_option, cards, choose, rule, suit, use

log = logging.getLogger(__name__)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("judge", help="judge a match record (JSON Lines) and print the report")
    p.add_argument("record", help="match record, one JSON event per line ('-' for stdin)")
    p.add_argument("--profile", help="rule profile id (default: the record's match_start)")
    p.add_argument("--json", action="store_true", help="print the report as one JSON document")
    add_lang_option(p)
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
        use(choose(getattr(args, "lang", None)))
        print("\n".join(render(report)))
    bad = bool(errors) or bool(report.get("errors"))
    return 1 if bad else 0


def _seat(seat: Any, seats: list[str]) -> str:
    """A seat by its number and name: ``2 (South)``."""
    name = seats[seat] if isinstance(seat, int) and 0 <= seat < len(seats) else None
    return _("seat {n} ({name})", n=seat, name=name) if name else _("seat {n}", n=seat)


def _how(how: str) -> str:
    return {
        "immediate": _("seen at once"),
        "retroactive": _("proven by a later play"),
        "audit": _("found at the end of the hand"),
        "referee": _("entered by a referee"),
    }.get(how, how)


def _status(status: str) -> str:
    return {"upheld": _("upheld"), "dismissed": _("dismissed")}.get(status, status)


def _violation_line(v: dict[str, Any], seats: list[str]) -> str:
    pen = v.get("penalty") or {}
    cost = []
    if not isinstance(pen, dict):  # a game may state its penalty as text
        pen = {"note": str(pen)}
    if pen.get("points"):
        cost.append(_("{n} points", n=pen["points"]))
    if pen.get("levels"):
        cost.append(_("{n} level(s)", n=pen["levels"]))
    note = pen.get("note") or ""
    penalty = _(", ").join(cost) or _("no fixed penalty")
    how = v.get("how")
    how_text = f" [{_how(str(how))}]" if how else ""
    text = "  ! " + _(
        "{rule} by {seat} at seq {at}, proven by seq {proof}",
        rule=rule(v.get("rule")),
        seat=_seat(v.get("seat"), seats),
        at=v.get("at_seq"),
        proof=v.get("proven_by_seq"),
    )
    lines = [text + how_text]
    detail = v.get("detail") or v.get("why")
    if detail:
        lines.append(f"    {detail}")
    lines.append("    " + _("penalty: {p}", p=penalty) + (f" ({note})" if note else ""))
    if v.get("evidence"):
        lines.append("    " + _("evidence: {ids}", ids=", ".join(v["evidence"])))
    status = v.get("status")
    if status not in (None, "open"):
        lines.append("    " + _("status: {s}", s=_status(str(status))))
    if v.get("provisional"):
        lines.append("    " + _("provisional: rests on a reading awaiting the referee"))
    return "\n".join(lines)


def render(report: dict[str, Any]) -> list[str]:
    """The report as text for a referee, in the chosen language: one block per deal. Rules go
    by their sheets' names and cards as referees say them (engine.names)."""
    seats = [str(s) for s in report.get("seats", [])]
    game = {"tractor": _("tractor"), "gouji": _("gouji")}.get(
        str(report.get("game")), str(report.get("game"))
    )
    out = [_("{game} match, profile {profile}", game=game, profile=report.get("profile"))]
    if seats:
        out.append(_("seats: {list}", list=_(", ").join(f"{i} {s}" for i, s in enumerate(seats))))
    for h in report.get("hands", []):
        if "tricks" not in h:  # a deal of tricks is written below; other games' as they come
            out.append(_("hand {n}:", n=h.get("hand")))
            out += [f"  {k}: {json.dumps(v, ensure_ascii=False)}" for k, v in h.items()]
            continue
        trump = h["trump"]
        out.append(
            _(
                "hand {n}: level {level}, trump {suit}, banker {banker}",
                n=h["hand"],
                level=trump["level"],
                suit=suit(trump["suit"]),
                banker=_seat(h["banker"], seats),
            )
        )
        for t in h["tricks"]:
            plays = "; ".join(f"{p['seat']}: {cards(p['cards'])}" for p in t["plays"])
            out.append(
                "  "
                + _(
                    "trick {n} ({plays}) -> seat {winner}, {points} points",
                    n=str(t["index"] + 1).rjust(2),
                    plays=plays,
                    winner=t["winner"],
                    points=t["points"],
                )
            )
        b = h["bottom"]
        out.append(
            "  "
            + _(
                "bottom: {cards}; multiplier {m}; points {p}",
                cards=cards(b["cards"]),
                m=b["multiplier"],
                p=b["points"],
            )
        )
        out.append(
            "  "
            + _(
                "attackers: {n} points ({tricks} in tricks, {pen} penalties)",
                n=h["attacker_points"],
                tricks=h["trick_points"],
                pen=format(h["penalty_points"], "+d"),
            )
        )
        for v in h["violations"]:
            out.append(_violation_line(v, seats))
        o = h.get("outcome")
        if o:
            side = {"attackers": _("attackers"), "banker": _("banker side")}.get(
                o["side"], o["side"]
            )
            out.append(
                "  "
                + _(
                    "outcome: {side} +{n} level(s), next level {level}, next banker {banker}",
                    side=side,
                    n=o["levels"],
                    level=o["new_level"],
                    banker=_seat(o["next_banker"], seats),
                )
                + (_(" (game over)") if o.get("game_over") else "")
            )
        else:
            end = h.get("end")
            out.append("  " + _("outcome: none (deal {end})", end=end or _("not finished")))
    for v in report.get("violations", []):  # the games that rule per match (80-points: per deal)
        out.append(_violation_line(v, seats))
    for e in report.get("errors", []):
        out.append(
            _("error at seq {seq}: {problem}", seq=e.get("seq"), problem=e.get("problem", e))
        )
    return out
