"""``tablescan simulate --profile ID --seed N [--revokes K] > match.jsonl``.

Writes a simulated match record (the camera's format) and, beside it, the ground truth the
camera never sees: the deals and each injected violation with the ``seq`` where it happened
and the ``seq`` whose cards first prove it. ``--revokes K`` injects K violations (every kind
in turn: revokes, missed pairs and tractors, failed throws, wrong counts, out-of-turn plays,
illegal leads, wrong bury counts; for Gouji the Gouji simulator's kinds).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from engine.games import game_of_profile
from engine.record import Event, dumps_event


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("simulate", help="write a simulated match record (and its ground truth)")
    p.add_argument("--profile", default="standard", help="rule profile id (80-points or Gouji)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--revokes", type=int, default=0, metavar="K", help="inject K violations")
    p.add_argument("--hands", type=int, default=4, help="deals in the match (80-points)")
    p.add_argument("--kinds", help="80-points: comma-separated violation kinds to inject")
    p.add_argument("-o", "--output", help="record path (default: stdout)")
    p.add_argument("--truth", help="ground-truth path (default: beside -o as NAME.truth.json)")
    p.set_defaults(func=run)


def simulate(
    profile: str, seed: int, inject: int, hands: int, kinds: list[str] | None
) -> tuple[list[Event], dict[str, Any]]:
    """The profile's game's own simulator (``engine.games.Game.simulate``)."""
    game = game_of_profile(profile)  # a RecordError is a ValueError: the same one-line error
    return game.simulate(profile, seed, hands=hands, inject=inject, kinds=kinds)


def truth_path(output: str | None, truth: str | None) -> Path | None:
    if truth:
        return Path(truth)
    if output:
        out = Path(output)
        stem = out.name[: -len(".jsonl")] if out.name.endswith(".jsonl") else out.stem
        return out.with_name(stem + ".truth.json")
    return None


def run(args: argparse.Namespace) -> int:
    if args.revokes < 0 or args.hands < 1:
        print("error: --revokes must be >= 0 and --hands >= 1", file=sys.stderr)
        return 2
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()] if args.kinds else None
    try:
        events, truth = simulate(args.profile, args.seed, args.revokes, args.hands, kinds)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    text = "".join(dumps_event(e) + "\n" for e in events)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    where = truth_path(args.output, args.truth)
    if where is not None:
        where.write_text(json.dumps(truth, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    injected = truth.get("injected", truth.get("violations", []))
    note = f"{len(events)} events, {len(injected)} violation(s) injected"
    print(
        note + (f"; truth in {where}" if where else "; truth not written (no -o/--truth)"),
        file=sys.stderr,
    )
    return 0
