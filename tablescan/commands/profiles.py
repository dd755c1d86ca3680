"""``tablescan profiles`` lists the rule profiles; ``tablescan profiles show ID`` prints one,
section by section, with each rule's citation and the values inherited from ``standard``."""

from __future__ import annotations

import argparse

from engine.tractor import ProfileError, Rules, profile_ids


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("profiles", help="list the 80-points rule profiles, or show one")
    p.add_argument("action", nargs="?", choices=["list", "show"], default="list")
    p.add_argument("id", nargs="?", help="profile id or TOML path (for show)")
    p.set_defaults(func=run)


def show(rules: Rules) -> list[str]:
    """One profile as text: every key, its value, its citation, and '*' where inherited."""
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


def run(args: argparse.Namespace) -> int:
    if args.action == "show" or args.id:
        if not args.id:
            print("error: usage: tablescan profiles show ID")
            return 2
        try:
            rules = Rules.load(args.id)
        except ProfileError as e:
            print(f"error: {e}")
            return 2
        print("\n".join(show(rules)))
        return 0
    bad = 0
    for pid in profile_ids():
        try:
            r = Rules.load(pid)
        except ProfileError as e:
            print(f"{pid:22s} ERROR {e}")
            bad += 1
            continue
        print(f"{pid:22s} {r.name}")
    return 1 if bad else 0
