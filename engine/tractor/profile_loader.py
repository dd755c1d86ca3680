"""Reading a profile: TOML file, inheritance from ``standard``, the record's options, checks.

Every key is checked for its section, type and allowed values, and every table for being
possible (cards that add up, bands that cover each score once); a fault is a ``ProfileError``
naming the file and the key, so a bad sheet never reaches a referee.
"""

from __future__ import annotations

import os
import stat
import tomllib
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

from engine.cards import RANK_INDEX, parse_card
from engine.errors import ProfileError
from engine.match_clock import TIES, ClockRule
from engine.tractor.rule_parts import (
    PROFILE_DIR,
    SIDES,
    Band,
    BottomRules,
    DeclareRules,
    FollowRules,
    Knockback,
    Penalty,
    ThrowRules,
    TractorRules,
    profile_ids,
)

MAX_PROFILE_BYTES = 256 * 1024  # a rule sheet is a few kB; /dev/zero is not a profile
SCHEMA: dict[str, dict[str, type | tuple[type, ...]]] = {
    "": {"id": str, "name": str, "source": str, "inherits": str, "notes": str},
    "cards": {"decks": int, "hand": int, "bottom": int},
    "levels": {"ladder": list, "start": str, "must_play": list, "win": str},
    "trumps": {"perm": list, "perm_twos": bool, "level_cards": bool},
    "tractor": {
        "min_pairs": int,
        "aa22": bool,
        "gap": bool,
        "level_in_suit": bool,
        "joker": bool,
        "sj_main": bool,
        "main_other": bool,
        "other_a": bool,
        "h5_joker": bool,
        "triples": bool,
        "quads": bool,
        "fiveten": bool,
    },
    "follow": {"pairs": bool, "tractors": bool, "ladder5": list},
    "throw": {"allowed": bool, "against": str, "forced": str, "penalty": dict},
    "bottom": {
        "scheme": str,
        "factor": int,
        "cap": int,
        "trump_only": bool,
        "throw": str,
        "bonus": dict,
    },
    "advance": {"threshold": int, "bands": list},
    "knockback": {"rules": list},
    "rotation": {"keep": str, "lose": str},
    "declare": {
        "min_cards": int,
        "first_banker": str,
        "overcall": str,
        "ladder": list,
        "jokers_declare": bool,
        "jokers_overcall": bool,
        "overcall_changes_banker": str,
        "fallback": str,
    },
    "match": {"minutes": int, "at_time": str, "finish_deal": bool},
    "penalties": {},
    "options": {},
}
FREE_SECTIONS = ("penalties", "options")
CHOICES: dict[str, tuple[str, ...]] = {
    "levels.win": ("pass", "complete", "cycle"),
    "throw.against": ("hands", "unplayed"),
    "throw.forced": ("smallest_failing",),
    "bottom.scheme": ("doubling", "flat", "pairs4", "bonus"),
    "bottom.throw": ("largest_unit", "pair_if_any"),
    "rotation.keep": ("partner", "same"),
    "rotation.lose": ("next",),
    "declare.first_banker": ("first_declarer", "last_declarer", "overcaller"),
    "declare.overcall": ("none", "pair_ladder", "more_cards", "any_later", "last_shown", "cyclic"),
    "declare.overcall_changes_banker": ("never", "first_deal", "always"),
    "match.at_time": TIES,
    "declare.fallback": (
        "bottom_first_level_else_highest",
        "bottom_first",
        "bottom_third",
        "bottom_most_suit",
        "bottom_until_two",
        "notrump",
        "banker_must_declare",
    ),
}
PENALTY_KEYS = {
    "points": int,
    "per_card": int,
    "levels": int,
    "floor0": bool,
    "per": str,
    "note": str,
}
BAND_KEYS = {
    "min": int,
    "max": int,
    "side": str,
    "levels": int,
    "per": int,
    "anchor": int,
    "round": str,
    "cap": int,
    "cite": str,
}
KNOCK_KEYS = {"level": str, "unit": str, "to": str, "then": str, "cite": str}
SCORE_RANGE = range(-200, 405, 5)


def _path_for(profile: str | Path) -> Path:
    text = str(profile)
    if text.endswith(".toml") or "/" in text or "\\" in text:
        return Path(text)
    path = PROFILE_DIR / f"{text}.toml"
    if not path.exists():
        raise ProfileError(f"profile {text!r}: unknown (known: {', '.join(profile_ids())})")
    return path


def _read(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise ProfileError(f"{path}: not a regular file")
            data = fh.read(MAX_PROFILE_BYTES + 1)
        if len(data) > MAX_PROFILE_BYTES:
            raise ProfileError(f"{path}: over {MAX_PROFILE_BYTES // 1024} KiB, not a profile")
        return tomllib.loads(data.decode("utf-8"))
    except FileNotFoundError:
        raise ProfileError(f"{path}: no such profile file") from None
    except IsADirectoryError:
        raise ProfileError(f"{path}: a directory, not a profile file") from None
    except UnicodeDecodeError as e:
        raise ProfileError(f"{path}: not UTF-8 text ({e.reason})") from None
    except OSError as e:
        raise ProfileError(f"{path}: cannot read ({e.strerror or e})") from None
    except tomllib.TOMLDecodeError as e:
        raise ProfileError(f"{path}: not valid TOML: {e}") from None


def _strip_cites(
    raw: dict[str, Any], path: Path
) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """Split a raw TOML document into values per section and citations per dotted key."""
    values: dict[str, dict[str, Any]] = {"": {}}
    cites: dict[str, str] = {}
    for key, val in raw.items():
        if isinstance(val, dict):
            if key not in SCHEMA:
                raise ProfileError(f"{path}: key {key!r}: unknown section (known: {_known()})")
            sect: dict[str, Any] = {}
            for k, v in val.items():
                if k == "cite":
                    cites[key] = str(v)
                elif k == "cites" and isinstance(v, dict):
                    for ck, cv in v.items():
                        cites[f"{key}.{ck}"] = str(cv)
                else:
                    sect[k] = v
            values[key] = sect
        elif key == "cite":
            cites["profile"] = str(val)
        else:
            values[""][key] = val
    return values, cites


def _known() -> str:
    return ", ".join(s for s in SCHEMA if s)


def _check_key(
    schema: Mapping[str, type | tuple[type, ...]], key: str, value: Any, dotted: str, path: Path
) -> None:
    """One key of a profile table is known and has its type (a TOML bool is no integer)."""
    want = schema.get(key)
    if want is None:
        known = ", ".join(schema)
        raise ProfileError(f"{path}: key {dotted!r}: unknown key (known: {known})")
    if want is int and isinstance(value, bool):
        raise ProfileError(f"{path}: key {dotted!r}: expected an integer, got {value!r}")
    if not isinstance(value, want):
        name = want.__name__ if isinstance(want, type) else str(want)
        raise ProfileError(f"{path}: key {dotted!r}: expected {name}, got {value!r}")


def _check_types(values: dict[str, dict[str, Any]], path: Path) -> None:
    for sect, kv in values.items():
        schema = SCHEMA[sect]
        for k, v in kv.items():
            dotted = f"{sect}.{k}" if sect else k
            if sect in FREE_SECTIONS:
                continue
            _check_key(schema, k, v, dotted, path)
            choices = CHOICES.get(dotted)
            if choices and v not in choices:
                raise ProfileError(
                    f"{path}: key {dotted!r}: {v!r} is not one of {', '.join(choices)}"
                )


def _merge(
    base: dict[str, dict[str, Any]], over: dict[str, dict[str, Any]]
) -> tuple[dict[str, dict[str, Any]], set[str]]:
    merged = {s: dict(kv) for s, kv in base.items()}
    own: set[str] = set()
    for sect, kv in over.items():
        tgt = merged.setdefault(sect, {})
        for k, v in kv.items():
            if sect in FREE_SECTIONS and isinstance(v, dict) and isinstance(tgt.get(k), dict):
                tgt[k] = {**tgt[k], **v}
            else:
                tgt[k] = v
            own.add(f"{sect}.{k}" if sect else k)
    return merged, own


def _apply_options(
    values: dict[str, dict[str, Any]], options: Mapping[str, Any], path: Path
) -> set[str]:
    """Set the record's ``{"section.key": value}`` options; the dotted keys set."""
    home = {k: s for s, kv in SCHEMA.items() for k in kv if s and s not in FREE_SECTIONS}
    own: set[str] = set()
    for dotted, v in options.items():
        sect, _, key = str(dotted).partition(".")
        known = bool(sect) and sect in SCHEMA and (sect in FREE_SECTIONS or key in SCHEMA[sect])
        if not key or not known:
            hint = f"'{home[sect]}.{sect}'" if not key and sect in home else "'section.key'"
            raise ProfileError(f"{path}: options: key {dotted!r}: unknown (use {hint})")
        values.setdefault(sect, {})[key] = v
        own.add(f"{sect}.{key}")
    if "cards.decks" in own and not {"cards.hand", "cards.bottom"} <= own:
        _derive_cards(values["cards"], own, path)
    return own


def _derive_cards(cards: dict[str, Any], own: set[str], path: Path) -> None:
    """A new deck count without the hand or the bottom: the sheet's bottom stays (8 in every
    sheet that states one, TRACTOR.md A1.3) and the hand takes the rest, or the other way."""
    decks = cards.get("decks")
    if not isinstance(decks, int) or isinstance(decks, bool):
        return  # the type check names it
    total = 54 * decks
    if "cards.hand" in own:
        cards["bottom"] = total - 4 * int(cards["hand"])
        return
    bottom = int(cards["bottom"])
    if (total - bottom) % 4:
        raise ProfileError(
            f"{path}: options: key 'cards.decks': {decks} decks ({total} cards) leave no equal "
            f"hands beside a bottom of {bottom}; give 'cards.hand' or 'cards.bottom' too"
        )
    cards["hand"] = (total - bottom) // 4


def _get(values: dict[str, dict[str, Any]], dotted: str, path: Path) -> Any:
    sect, _, key = dotted.rpartition(".")
    try:
        return values[sect][key]
    except KeyError:
        raise ProfileError(f"{path}: key {dotted!r}: missing value") from None


def _penalty(raw: Any, where: str, path: Path) -> Penalty:
    if not isinstance(raw, dict):
        raise ProfileError(f"{path}: key {where!r}: expected a table of penalty values")
    kw: dict[str, Any] = {}
    for k, v in raw.items():
        if k == "cite":
            continue
        _check_key(PENALTY_KEYS, k, v, f"{where}.{k}", path)
        kw[k] = v
    if kw.get("per", "thrown") not in ("thrown", "back"):
        raise ProfileError(f"{path}: key '{where}.per': expected 'thrown' or 'back'")
    return Penalty(**kw)


def _level(value: Any, ladder: tuple[str, ...], where: str, path: Path) -> str:
    if value not in ladder:
        raise ProfileError(f"{path}: key {where!r}: {value!r} is not a level of {list(ladder)}")
    return str(value)


def _bands(raw: list[Any], threshold: int, path: Path) -> tuple[Band, ...]:
    out: list[Band] = []
    for i, b in enumerate(raw):
        where = f"advance.bands[{i}]"
        if not isinstance(b, dict):
            raise ProfileError(f"{path}: key {where!r}: expected a table")
        for k, v in b.items():
            _check_key(BAND_KEYS, k, v, f"{where}.{k}", path)
        for k in ("side", "levels"):
            if k not in b:
                raise ProfileError(f"{path}: key '{where}.{k}': missing value")
        if b["side"] not in SIDES:
            raise ProfileError(f"{path}: key '{where}.side': {b['side']!r} is not one of {SIDES}")
        if b.get("round", "down") not in ("down", "up"):
            raise ProfileError(f"{path}: key '{where}.round': expected 'down' or 'up'")
        lo, hi = int(b.get("min", -10_000)), int(b.get("max", 10_000))
        if lo > hi:
            raise ProfileError(f"{path}: key {where!r}: impossible table: min {lo} > max {hi}")
        if b["levels"] < 0:
            raise ProfileError(f"{path}: key '{where}.levels': impossible table: negative levels")
        out.append(
            Band(
                lo=lo,
                hi=hi,
                side=b["side"],
                levels=b["levels"],
                per=int(b.get("per", 0)),
                anchor=int(b.get("anchor", threshold)),
                round_up=b.get("round", "down") == "up",
                cap=int(b.get("cap", 0)),
            )
        )
    for s in SCORE_RANGE:
        hits = [i for i, b in enumerate(out) if b.lo <= s <= b.hi]
        if len(hits) != 1:
            what = "no band covers" if not hits else f"bands {hits} overlap at"
            raise ProfileError(f"{path}: key 'advance.bands': impossible table: {what} score {s}")
    return tuple(out)


def _clock(match: dict[str, Any], cites: dict[str, str], path: Path) -> ClockRule:
    """``[match]``: the sheet's limit and at-time rule (none where the sheet is silent)."""
    minutes = int(match.get("minutes", 0))
    if minutes < 0:
        raise ProfileError(f"{path}: key 'match.minutes': impossible table: below 0")
    at_time = str(match.get("at_time", ""))
    if at_time and not minutes:
        raise ProfileError(f"{path}: key 'match.at_time': {at_time!r} without match.minutes")
    order = ("match", "match.minutes", "match.at_time", "match.finish_deal")
    cite = "; ".join(f"{k.partition('.')[2] or 'match'}: {cites[k]}" for k in order if k in cites)
    return ClockRule(minutes, at_time, bool(match.get("finish_deal", False)), cite)


def _build(
    values: dict[str, dict[str, Any]], cites: dict[str, str], own: set[str], path: Path
) -> dict[str, Any]:
    def g(dotted: str) -> Any:
        return _get(values, dotted, path)

    ladder = tuple(str(x) for x in g("levels.ladder"))
    for i, r in enumerate(ladder):
        if r not in RANK_INDEX:
            raise ProfileError(f"{path}: key 'levels.ladder': {r!r} (index {i}) is not a rank")
    if not ladder:
        raise ProfileError(f"{path}: key 'levels.ladder': impossible table: empty ladder")
    start = _level(g("levels.start"), ladder, "levels.start", path)
    must = tuple(_level(x, ladder, "levels.must_play", path) for x in g("levels.must_play"))
    perm: list[str] = []
    for x in g("trumps.perm"):
        try:
            perm.append(str(parse_card(str(x))))
        except ValueError as e:
            raise ProfileError(f"{path}: key 'trumps.perm': {e}") from None
    decks, hand, bottom = g("cards.decks"), g("cards.hand"), g("cards.bottom")
    if decks < 1 or hand < 1 or bottom < 0 or 4 * hand + bottom != 54 * decks:
        raise ProfileError(
            f"{path}: key 'cards.hand': impossible table: 4 x {hand} + {bottom} "
            f"!= {54 * decks} cards of {decks} decks"
        )
    tr = TractorRules(
        **{f.name: _get(values, f"tractor.{f.name}", path) for f in fields(TractorRules)}
    )
    if tr.min_pairs < 2:
        raise ProfileError(f"{path}: key 'tractor.min_pairs': impossible table: below 2")
    if (tr.triples or tr.quads) and decks < 3:
        raise ProfileError(f"{path}: key 'tractor.triples': impossible table: needs >= 3 decks")
    fol = FollowRules(
        pairs=g("follow.pairs"),
        tractors=g("follow.tractors"),
        ladder5=tuple(str(x) for x in g("follow.ladder5")),
    )
    for step in fol.ladder5:
        parts = step.split("+")
        if not all(p.isdigit() for p in parts) or sum(int(p) for p in parts) != 5:
            raise ProfileError(
                f"{path}: key 'follow.ladder5': {step!r} is not a split of 5 pairs (e.g. '4+1')"
            )
    thr = ThrowRules(
        allowed=g("throw.allowed"),
        against=g("throw.against"),
        forced=g("throw.forced"),
        penalty=_penalty(g("throw.penalty"), "throw.penalty", path),
    )
    bonus_raw = g("bottom.bonus")
    bonus: list[tuple[str, int]] = []
    for k, v in bonus_raw.items():
        if k not in ("side", "trump", "SJ", "BJ", "pair", "tractor"):
            raise ProfileError(f"{path}: key 'bottom.bonus.{k}': unknown key")
        if not isinstance(v, int):
            raise ProfileError(f"{path}: key 'bottom.bonus.{k}': expected an integer")
        bonus.append((k, v))
    bot = BottomRules(
        scheme=g("bottom.scheme"),
        factor=g("bottom.factor"),
        cap=g("bottom.cap"),
        trump_only=g("bottom.trump_only"),
        throw=g("bottom.throw"),
        bonus=tuple(bonus),
    )
    if bot.factor < 1:
        raise ProfileError(f"{path}: key 'bottom.factor': impossible table: below 1")
    threshold = g("advance.threshold")
    bands = _bands(g("advance.bands"), threshold, path)
    knocks: list[Knockback] = []
    for i, k in enumerate(values.get("knockback", {}).get("rules", [])):
        where = f"knockback.rules[{i}]"
        if not isinstance(k, dict):
            raise ProfileError(f"{path}: key {where!r}: expected a table")
        for kk in k:
            if kk not in KNOCK_KEYS:
                raise ProfileError(f"{path}: key '{where}.{kk}': unknown key")
        for kk in ("level", "unit", "to"):
            if kk not in k:
                raise ProfileError(f"{path}: key '{where}.{kk}': missing value")
        if k["unit"] != "5-10-K" and k["unit"] not in RANK_INDEX:
            raise ProfileError(f"{path}: key '{where}.unit': {k['unit']!r} is not a rank")
        lvl = k["level"] if k["level"] == "*" else _level(k["level"], ladder, where, path)
        then = k.get("then", "score")
        if then not in ("score", "stay"):
            raise ProfileError(f"{path}: key '{where}.then': expected 'score' or 'stay'")
        knocks.append(Knockback(lvl, k["unit"], _level(k["to"], ladder, where, path), then))
    dec = DeclareRules(
        min_cards=g("declare.min_cards"),
        first_banker=g("declare.first_banker"),
        overcall=g("declare.overcall"),
        ladder=tuple(str(x) for x in g("declare.ladder")),
        jokers_declare=g("declare.jokers_declare"),
        jokers_overcall=g("declare.jokers_overcall"),
        overcall_changes_banker=g("declare.overcall_changes_banker"),
        fallback=g("declare.fallback"),
    )
    for x in dec.ladder:
        if x not in ("S", "H", "C", "D", "SJ", "BJ", "5H", "single"):
            raise ProfileError(f"{path}: key 'declare.ladder': {x!r} is not S/H/C/D/SJ/BJ/5H")
    clock = _clock(values.get("match", {}), cites, path)
    pens = tuple(
        (name, _penalty(raw, f"penalties.{name}", path))
        for name, raw in sorted(values.get("penalties", {}).items())
    )
    opts = tuple((str(k), str(v)) for k, v in sorted(values.get("options", {}).items()))
    all_keys = [
        f"{s}.{k}" if s else k for s, kv in values.items() for k in kv if s not in FREE_SECTIONS
    ]
    return dict(
        id=str(g("id")),
        name=str(values[""].get("name", g("id"))),
        source=str(values[""].get("source", "")),
        inherits=str(values[""].get("inherits", "")),
        decks=decks,
        hand=hand,
        bottom=bottom,
        ladder=ladder,
        start=start,
        must_play=must,
        win=g("levels.win"),
        perm_trumps=tuple(perm),
        perm_twos=g("trumps.perm_twos"),
        level_cards=g("trumps.level_cards"),
        tractor=tr,
        follow=fol,
        throw=thr,
        bottom_rules=bot,
        threshold=threshold,
        bands=bands,
        knockbacks=tuple(knocks),
        rotation_keep=g("rotation.keep"),
        rotation_lose=g("rotation.lose"),
        declare=dec,
        penalties=pens,
        clock=clock,
        options=opts,
        cites=tuple(sorted(cites.items())),
        inherited=tuple(sorted(k for k in all_keys if k not in own and k != "inherits")),
        path=str(path),
        table=tuple(
            (f"{s}.{k}" if s else k, repr(v))
            for s, kv in values.items()
            for k, v in kv.items()
            if k != "cite"
        ),
    )


def read_profile(
    profile: str | Path = "standard", options: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Load, inherit, set the options of and validate one profile: the fields of its ``Rules``
    (see ``Rules.load``, which builds them; this module never imports ``Rules``)."""
    path = _path_for(profile)
    values, cites = _strip_cites(_read(path), path)
    _check_types(values, path)
    parent = values[""].get("inherits", "" if path.stem == "standard" else "standard")
    own: set[str]
    if parent:
        ppath = _path_for(parent)
        pvalues, pcites = _strip_cites(_read(ppath), ppath)
        _check_types(pvalues, ppath)
        for k in ("id", "name", "source", "notes"):
            pvalues[""].pop(k, None)
        values, own = _merge(pvalues, values)
        values[""]["inherits"] = parent
        cites = {**{k: f"({parent}) {v}" for k, v in pcites.items()}, **cites}
    else:
        own = {f"{s}.{k}" if s else k for s, kv in values.items() for k in kv}
    if "id" not in values[""]:
        values[""]["id"] = path.stem
    if options:
        own |= _apply_options(values, options, path)
        _check_types(values, path)
    return _build(values, cites, own, path)
