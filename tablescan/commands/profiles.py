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
from tablescan.i18n import _, add_lang_option, choose, use


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("profiles", help="list the rule profiles of every game, or show one")
    p.add_argument("action", nargs="?", choices=["list", "show"], default="list")
    p.add_argument("id", nargs="?", help="profile id, or an 80-points TOML path (for show)")
    add_lang_option(p)
    p.set_defaults(func=run)


def title_of(rules: Any) -> str:
    """A loaded profile's own name (80-points: ``name``; Gouji: ``title``)."""
    return str(getattr(rules, "name", None) or getattr(rules, "title", rules.id))


def show_tractor(rules: Any) -> list[str]:
    """An 80-points profile as text: every key, its value, its citation, '*' where inherited."""
    lines = [f"{rules.id}: {rules.name}", _("source: {s}", s=rules.source)]
    if rules.inherits:
        lines.append(
            _("inherits {p}: '*' marks a value the sheet does not state", p=rules.inherits)
        )
    inherited = set(rules.inherited)
    cites = dict(rules.cites)
    section = None
    for key, value in rules.table:
        sect = key.rpartition(".")[0]
        if sect in ("", "cites") or key.endswith(".cites"):
            continue
        if sect != section:
            section = sect
            cite = "  " + _("cite: {q}", q=cites[sect]) if sect in cites else ""
            lines.append(f"[{sect}]" + cite)
        mark = "*" if key in inherited and rules.inherits else " "
        lines.append(f" {mark} {key.rpartition('.')[2]} = {value}")
        if key in cites:
            lines.append("      " + _("cite: {q}", q=cites[key]))
    return lines


GOUJI_SECTIONS = ("deal", "sets", "gouji", "flow", "burn", "bie3", "kaidian", "score")


def show_gouji(rules: Any) -> list[str]:
    """A Gouji profile as text. Every key a sheet sets carries its [cite] line (the loader
    insists), so a key without one comes from ``gouji-core`` and gets the '*'."""
    core = not rules.cite
    lines = [f"{rules.id}: {rules.title}", _("source: {s}", s=rules.lines or "-")]
    if not core:
        lines.append(_("inherits {p}: '*' marks a value the sheet does not state", p="gouji-core"))
    for sect in GOUJI_SECTIONS:
        lines.append(f"[{sect}]")
        body = getattr(rules, sect)
        pairs: list[tuple[str, Any]] = (
            [(f.name, getattr(body, f.name)) for f in fields(body)] if is_dataclass(body) else []
        )
        if isinstance(getattr(body, "table", None), dict):  # [gouji]: the sheet's own keys
            pairs = list(body.table.items())
        for key, value in pairs:
            dotted = f"{sect}.{key}"
            mark = "*" if not core and dotted not in rules.cite else " "
            lines.append(f" {mark} {key} = {value!r}")
            if dotted in rules.cite:
                lines.append("      " + _("cite: {q}", q=rules.cite[dotted]))
    for note in rules.unjudged:
        lines.append(_("not judged: {note}", note=note))
    return lines


def show_fields(rules: Any) -> list[str]:
    """A profile of a game without its own text here: its name and every field's value."""
    head = f"{getattr(rules, 'id', '?')}: {title_of(rules)}"
    if not is_dataclass(rules):
        return [head]
    return [head, *(f"  {f.name} = {getattr(rules, f.name)!r}" for f in fields(rules))]


#: how ``profiles show`` writes a profile, by the game's view key (``engine.games.Game.view``)
PROFILE_TEXT = {"tractor": show_tractor, "gouji": show_gouji}


def run(args: argparse.Namespace) -> int:
    use(choose(getattr(args, "lang", None)))
    if args.action == "show" or args.id:
        if not args.id:
            print(_("error: usage: tablescan profiles show ID"), file=sys.stderr)
            return 2
        try:
            game = game_of_profile(args.id)
            rules = game.load_rules(args.id)
        except (ProfileError, RecordError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        print("\n".join(PROFILE_TEXT.get(game.view, show_fields)(rules)))
        return 0
    bad = 0
    for game in games():
        # msgids are the games' own titles (engine.games), so English shows them as they are
        titles = {
            "tractor": _("80-points / Tractor (八十分, 升级, 拖拉机)"),
            "gouji": _("Gouji (够级)"),
        }
        print(f"{titles.get(game.name, game.title)}:")
        for pid in game.profile_ids():
            try:
                rules = game.load_rules(pid)
            except ProfileError as e:
                print(f"  {pid:22s} {_('ERROR')} {e}")
                bad += 1
                continue
            print(f"  {pid:22s} {title_of(rules)}")
    return 1 if bad else 0
