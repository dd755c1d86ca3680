"""``tablescan render-match``: a simulated match (one deal or more) as an overhead video."""

from __future__ import annotations

import argparse
import logging
import tomllib
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "render-match",
        help="render a simulated hand as an overhead video with its true record and table config",
    )
    p.add_argument("--profile", default="standard", help="rule profile id (engine/*/profiles)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("-o", "--output", type=Path, default=Path("match.mp4"), help="video path (.mp4)")
    p.add_argument(
        "--eval",
        action="store_true",
        help="use only held-out deck designs (shared/eval/HOLDOUT.md)",
    )
    p.add_argument(
        "--tricks", type=int, default=None, help="stop every deal after this many tricks"
    )
    p.add_argument(
        "--hands",
        type=int,
        default=None,
        help="a match of this many deals (80-points: 1, fewer when a side passes its last "
        "level first; Gouji: 2)",
    )
    p.add_argument("--design", default=None, help="one deck design by name, e.g. gnome/tango")
    p.add_argument(
        "--size",
        default="1280x720",
        metavar="WxH",
        help="frame size (default 1280x720; 2304x1296: the Camera Module 3's full-field mode, "
        "cards of about 175 px: a table in the operating envelope, docs/setup.md)",
    )
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="SECTION.KEY=VALUE",
        help="a house's variation of a Gouji sheet, e.g. deal.decks=3 (repeatable; written in "
        "the record's match_start and the table config)",
    )
    p.set_defaults(func=run)


def parse_options(items: list[str]) -> dict[str, Any]:
    """``SECTION.KEY=VALUE`` pairs; a value is read as TOML (3, true, "x"), else as text."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or "." not in key.strip():
            raise ValueError(f"--option {item!r}: expected SECTION.KEY=VALUE (deal.decks=3)")
        try:
            value = tomllib.loads(f"v = {raw.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw.strip()
        out[key.strip()] = value
    return out


def parse_size(text: str) -> tuple[int, int]:
    """``WxH`` → (W, H), even sides from 320×180 to 4608×2592 (what an mp4 writer takes)."""
    w, sep, h = text.lower().partition("x")
    if not (sep and w.isdigit() and h.isdigit()):
        raise ValueError(f"--size {text!r}: expected WxH, e.g. 2304x1296")
    size = (int(w), int(h))
    if not (320 <= size[0] <= 4608 and 180 <= size[1] <= 2592) or size[0] % 2 or size[1] % 2:
        raise ValueError(f"--size {text}: expected even sides within 320x180 .. 4608x2592")
    return size


def run(args: argparse.Namespace) -> int:
    from tablescan.render import render_simulated
    from vision.synth.decks import DeckError

    if args.hands is not None and args.hands < 1:
        log.error("--hands %d: expected at least 1", args.hands)
        return 2
    if args.output.suffix.lower() != ".mp4":
        log.error("-o %s: expected a .mp4 path", args.output)
        return 2
    try:
        options = parse_options(args.option)
        size = parse_size(args.size)
    except ValueError as e:
        log.error("%s", e)
        return 2
    try:
        result = render_simulated(
            args.profile,
            args.seed,
            args.output,
            split="eval" if args.eval else "train",
            tricks=args.tricks,
            design=args.design,
            hands=args.hands,
            options=options or None,
            image_size=size,
        )
    except (DeckError, ValueError, OSError) as e:
        log.error("%s", e)
        return 2
    print(
        f"{result.video}: {result.frames} frames at {result.fps:g} fps, design {result.design}\n"
        f"{result.truth}: {result.events} true events\n{result.table}: table config for replay"
    )
    return 0
