"""``tablescan profiles`` lists every game's rule profiles, grouped by game; ``tablescan
profiles show ID`` prints one, section by section, with each rule's citation and a ``*`` on
the values the sheet does not state (inherited from ``standard`` or ``gouji-core``).

Both go through the game registry (``engine.games``), so a new game's profiles appear here
without an edit."""

from __future__ import annotations

import argparse
import sys
from dataclasses import fields, is_dataclass
from typing import Any

from engine.errors import ProfileError
from engine.games import game_of_profile, games
from engine.record import RecordError


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("profiles", help="list the rule profiles of every game, or show one")
    p.add_argument("action", nargs="?", choices=["list", "show"], default="list")
    p.add_argument("id", nargs="?", help="profile id, or an 80-points TOML path (for show)")
    p.set_defaults(func=run)


def title_of(rules: Any) -> str:
    """A loaded profile's own name (80-points: ``name``; Gouji: ``title``)."""
    return str(getattr(rules, "name", None) or getattr(rules, "title", rules.id))


def show_tractor(rules: Any) -> list[str]:
    """An 80-points profile as text: every key, its value, its citation, '*' where inherited."""
    lines = [f"{rules.id}: {rules.name}", f"source: {rules.source}"]
    if rules.inherits:
        lines.append(f"inherits {rules.inherits}: '*' marks a value the sheet does not state")
    inherited = set(rules.inherited)
    cites = dict(rules.cites)
    section = None
    for key, value in rules.table:
        sect = key.rpartition(".")[0]
        if sect in ("", "cites") or key.endswith(".cites"):
            continue
        if sect != section:
            section = sect
            lines.append(f"[{sect}]" + (f"  cite: {cites[sect]}" if sect in cites else ""))
        mark = "*" if key in inherited and rules.inherits else " "
        lines.append(f" {mark} {key.rpartition('.')[2]} = {value}")
        if key in cites:
            lines.append(f"      cite: {cites[key]}")
    return lines


GOUJI_SECTIONS = ("sets", "gouji", "flow", "burn", "bie3", "kaidian", "score")


def show_gouji(rules: Any) -> list[str]:
    """A Gouji profile as text. Every key a sheet sets carries its [cite] line (the loader
    insists), so a key without one comes from ``gouji-core`` and gets the '*'."""
    core = not rules.cite
    lines = [f"{rules.id}: {rules.title}", f"source: {rules.lines or '-'}"]
    if not core:
        lines.append("inherits gouji-core: '*' marks a value the sheet does not state")
    for sect in GOUJI_SECTIONS:
        lines.append(f"[{sect}]")
        body = getattr(rules, sect)
        pairs: list[tuple[str, Any]] = (
            [(f.name, getattr(body, f.name)) for f in fields(body)] if is_dataclass(body) else []
        )
        if sect == "gouji":
            pairs = list(body.table.items())
        for key, value in pairs:
            dotted = f"{sect}.{key}"
            mark = "*" if not core and dotted not in rules.cite else " "
            lines.append(f" {mark} {key} = {value!r}")
            if dotted in rules.cite:
                lines.append(f"      cite: {rules.cite[dotted]}")
    for note in rules.unjudged:
        lines.append(f"not judged: {note}")
    return lines


def run(args: argparse.Namespace) -> int:
    if args.action == "show" or args.id:
        if not args.id:
            print("error: usage: tablescan profiles show ID", file=sys.stderr)
            return 2
        try:
            game = game_of_profile(args.id)
            rules = game.load_rules(args.id)
        except (ProfileError, RecordError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        print("\n".join(show_tractor(rules) if game.name == "tractor" else show_gouji(rules)))
        return 0
    bad = 0
    for game in games():
        print(f"{game.title}:")
        for pid in game.profile_ids():
            try:
                rules = game.load_rules(pid)
            except ProfileError as e:
                print(f"  {pid:22s} ERROR {e}")
                bad += 1
                continue
            print(f"  {pid:22s} {title_of(rules)}")
    return 1 if bad else 0
