"""Gouji rule profiles: one TOML file per tournament sheet in ``profiles/``.

Every profile but ``gouji-core`` names ``inherits = "gouji-core"`` and overrides only what its
sheet says; each overridden key must carry a citation in the profile's ``[cite]`` table, so a
rule never enters the engine without the sheet line that justifies it. A bad file, key or value
is a ``ProfileError`` naming the file and the key.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from engine.errors import ProfileError

__all__ = ["ProfileError", "Rules", "load_profile"]  # ProfileError: re-exported, engine.errors

CORE_ID = "gouji-core"
#: ``score.tribute``: how a sheet treats 进贡 (docs/record-format.md, ``tribute``)
TRIBUTE_MODES = ("unstated", "none", "points", "per_card")


@dataclass(frozen=True, slots=True)
class DealRules:
    """The deck and the deal (C2). Every sheet plays four decks; a house may play 2 or 3."""

    decks: int  # 2..4 standard packs with jokers: copies of each face on the table

    @property
    def hand(self) -> int:
        """Cards drawn per seat: the packs shared by six (4 decks: 216 / 6 = 36)."""
        return self.decks * 54 // 6


@dataclass(frozen=True, slots=True)
class SetRules:
    """What one play may hold and how plays compare (GOUJI.md C5, C6, §3.1)."""

    tieqian: bool  # 贴钱: 2s attached as ordinary cards of the set's rank
    joker_compare: str  # two_part | dead_big (16tiao: big-joker sets are 死牌)
    two_big_kill_one: str  # off | on | free (free: not a burn, ignores a pass; dianshao)
    three_twos_beat_big: bool  # bie3: three 2s stand for one joker above the big joker
    fours_bare: bool  # 4s take no attachments


@dataclass(frozen=True, slots=True)
class GoujiThresholds:
    """Smallest count of a natural rank that is 够级 (C7); ranks absent are never 够级."""

    table: dict[str, int]


@dataclass(frozen=True, slots=True)
class FlowRules:
    """Turn flow (C8–C14)."""

    pass_duitou_exception: bool  # a pass does not bar answering one's 对头 (C9)
    rangpai: bool  # 让牌 exists (C10)
    chaos_after: int  # 四户乱缠 once this many players went out (C14)
    ask_count_penalty: int  # points for asking a card count (tiaozhan: −1); 0 = allowed
    count_report: str  # 报户 at ≤ 10 cards: on_ask | always | none
    revolution: str  # 革命: off (banned) | dropout (changshi) | redeal (tv-bie3) | referee
    gousiji: int  # unanswerable 够级 sets of a revolutionary's 对头 (changshi: 3)
    gousiji_top2: int  # qingdao: the 对头 of 头科 and of 二科 each get this many 够死级
    jiefeng: str  # after a 底牌 stands: xiajia (下家 leads) | claim (the claimant) | pass
    time_limit_s: int  # seconds per set (0: none); over it only a note for the referee
    timeout: str  # what the sheet makes of a time-out: none | pass | foul


@dataclass(frozen=True, slots=True)
class BurnRules:
    """烧牌 (C18, §3.4)."""

    allowed: bool
    min_players: int  # players still in play needed to burn (changshi: 5)
    after_pass: bool  # may a seat burn after it passed this round
    entry_formula: bool  # changshi: N - J <= 2 over the burner's hand
    joker_exempt_first: bool  # the burning set itself needs no joker
    success: str  # go_out | top2 | first_set
    void_if_killed_by_duitou: bool  # the burner's own 对头 beats the burn: void, no penalty


@dataclass(frozen=True, slots=True)
class Bie3Rules:
    """憋3: 3s only as the very last set (C5, §3.2)."""

    enabled: bool
    no_three_opens_duitou: bool  # kelamayi: no 3 as the 底牌 → 大落, 不开点而对方开点


@dataclass(frozen=True, slots=True)
class KaidianRules:
    """开点 (C18, §3.3)."""

    sets: tuple[str, ...]  # pure | with_twos | single_two | multi_twos | small_joker
    fa4: bool  # 开点发4: the lead after the set stood must be the 4s
    window: int  # closes once this many players went out
    close_on_duitou_out: bool  # dianshao: no 开点 once one's 对头 is out
    mingdian: bool  # tv-bie3: 明点 may be declared before the first round
    auto_open_claim: bool  # bie3: a seat without 够级 cards opens automatically by claiming so
    burn_sets_open: bool  # tiaozhan: a burning set that stands opens nothing for the burner


@dataclass(frozen=True, slots=True)
class ScoreRules:
    """Score table and extras (§3.7). Extras are per event, to the seat named."""

    places: tuple[int, ...]  # 头科 … 大落
    places_stated: bool  # False where the sheet gives no table (core fallback used)
    team_scoring: bool
    chuansanhu_team: int  # 0: no special score; else the sweeping team's total
    chuansanhu_loser_zero: bool
    positive_only: bool  # net the teams, record only the positive side
    burn: int
    burn_victim: int
    burn_teammate: bool  # does a burn on a teammate score
    bie3: int
    bie3_victim: int
    bie3_teammate: bool
    kaidian_both: int  # per seat, by (self opened, 对头 opened)
    kaidian_neither: int
    kaidian_won: int  # self opened, 对头 not
    kaidian_lost: int  # self not, 对头 opened
    kaidian_per_open: int
    two_kill_one: int
    mingdian: int  # 明点 won: the caller; lost: his 对门
    foul_points: tuple[int, ...]  # per entered foul: 1st, 2nd, … (the last repeats)
    revolution_banned: int  # points for declaring 革命/造反 where the sheet bans it
    # 进贡 as the sheet scores it: unstated (silent) | none (「不进贡」) | points (jinan: 点贡,
    # 闷贡, 烧贡 are the named items) | per_card (changshi: each card entered, +1 to 吃贡者)
    tribute: str


@dataclass(frozen=True, slots=True)
class MatchRules:
    """How many deals a table plays in one match (a 局, 场 or 圈, as the sheet names it): the
    node ends the match there. 0: the sheet states no number; a referee ends the match."""

    deals: int  # the match is this many deals played to the end (0: not stated)
    first_to: int  # the match ends once a team won this many deals (三局二胜: 2; 0: not stated)


@dataclass(frozen=True, slots=True)
class Rules:
    """One Gouji profile, merged over ``gouji-core``. Load with ``Rules.load(ID)``."""

    id: str
    title: str
    lines: str
    deal: DealRules
    sets: SetRules
    gouji: GoujiThresholds
    flow: FlowRules
    burn: BurnRules
    bie3: Bie3Rules
    kaidian: KaidianRules
    score: ScoreRules
    match: MatchRules
    cite: dict[str, str]
    unjudged: tuple[str, ...]

    @staticmethod
    def load(profile_id: str, options: Mapping[str, Any] | None = None) -> Rules:
        """The profile ``profile_id`` (e.g. ``gouji-bie3``), with the record's ``options``
        set last: ``{"section.key": value}`` (``{"sets.tieqian": False}``), the one form both
        games take."""
        return load_profile(profile_id, options)

    @staticmethod
    def ids() -> list[str]:
        """Every profile shipped in ``profiles/``."""
        folder = resources.files("engine.gouji").joinpath("profiles")
        return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml"))


_SECTIONS: dict[str, type] = {
    "deal": DealRules,
    "sets": SetRules,
    "flow": FlowRules,
    "burn": BurnRules,
    "bie3": Bie3Rules,
    "kaidian": KaidianRules,
    "score": ScoreRules,
    "match": MatchRules,
}
_CHOICES = {
    "sets.joker_compare": ("two_part", "dead_big"),
    "sets.two_big_kill_one": ("off", "on", "free"),
    "burn.success": ("go_out", "top2", "first_set"),
    "flow.count_report": ("on_ask", "always", "none"),
    "flow.revolution": ("off", "dropout", "redeal", "referee"),
    "flow.jiefeng": ("xiajia", "claim", "pass"),
    "flow.timeout": ("none", "pass", "foul"),
    "score.tribute": TRIBUTE_MODES,
}
_RANGES = {"deal.decks": (2, 4)}  # the sheets play 4; a house 2 or 3 (18 or 27 cards a seat)
_KAIDIAN_SETS = ("pure", "with_twos", "single_two", "multi_twos", "small_joker")
_GOUJI_RANKS = ("joker", "2", "A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3")


def _read(profile_id: str, folder: Traversable | None = None) -> tuple[str, dict[str, Any]]:
    name = f"{profile_id}.toml"
    base = folder if folder is not None else resources.files("engine.gouji").joinpath("profiles")
    path = base.joinpath(name)
    where = f"engine/gouji/profiles/{name}" if folder is None else str(path)
    if not path.is_file():
        known = ", ".join(Rules.ids())
        raise ProfileError(f"{where}: no such Gouji profile {profile_id!r} (known: {known})")
    try:
        return where, tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise ProfileError(f"{where}: not valid TOML: {e}") from None


def _check(where: str, key: str, value: Any, want: Any) -> Any:
    """Validate one value against the dataclass field type (as a string annotation)."""
    bad = ProfileError(f"{where}: key {key}: expected {want}, got {value!r}")
    if want == "bool":
        if not isinstance(value, bool):
            raise bad
    elif want == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad
        low, high = _RANGES.get(key, (value, value))
        if not low <= value <= high:
            raise ProfileError(f"{where}: key {key}: expected {low}..{high}, got {value!r}")
    elif want == "str":
        if not isinstance(value, str):
            raise bad
        if key in _CHOICES and value not in _CHOICES[key]:
            raise ProfileError(f"{where}: key {key}: {value!r} is not one of {_CHOICES[key]}")
    elif want == "tuple[int, ...]":
        if not isinstance(value, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        ):
            raise bad
        value = tuple(value)
        if key == "score.places" and len(value) != 6:
            raise ProfileError(f"{where}: key {key}: needs 6 numbers (头科 … 大落)")
    elif want == "tuple[str, ...]":
        if not isinstance(value, list) or not all(v in _KAIDIAN_SETS for v in value):
            raise ProfileError(f"{where}: key {key}: expected a list from {_KAIDIAN_SETS}")
        value = tuple(value)
    return value


def _merge(
    where: str, base: dict[str, Any], over: dict[str, Any], core: bool
) -> tuple[dict[str, Any], list[str]]:
    """Deep-merge ``over`` into ``base`` section by section; returns the keys set."""
    out = {k: dict(v) if isinstance(v, dict) else v for k, v in base.items()}
    touched: list[str] = []
    allowed = {"inherits", "id", "title", "lines", "cite", "unjudged", "gouji", *_SECTIONS}
    for section, body in over.items():
        if section not in allowed:
            raise ProfileError(f"{where}: unknown key {section!r} (known: {sorted(allowed)})")
        if section in _SECTIONS or section == "gouji":
            if not isinstance(body, dict):
                raise ProfileError(f"{where}: key {section}: expected a table")
            names = (
                set(_GOUJI_RANKS)
                if section == "gouji"
                else {f.name for f in fields(_SECTIONS[section])}
            )
            target = out.setdefault(section, {})
            for key, value in body.items():
                if key not in names:
                    raise ProfileError(
                        f"{where}: unknown key {section}.{key} (known: {sorted(names)})"
                    )
                target[key] = value
                touched.append(f"{section}.{key}")
        elif section == "unjudged" and isinstance(body, list):
            out[section] = [*base.get("unjudged", []), *body]
        else:
            out[section] = body
    if not core:
        for key in ("id", "title", "lines"):
            if key not in over:
                raise ProfileError(f"{where}: missing key {key!r}")
    return out, touched


def load_profile(
    profile_id: str, options: Mapping[str, Any] | None = None, folder: Traversable | None = None
) -> Rules:
    """Read ``gouji-core``, merge the profile over it, check every key and citation.
    ``folder`` reads the profile (not the core) from elsewhere, for tests and local sheets."""
    core_where, core = _read(CORE_ID)
    merged, _ = _merge(core_where, {}, core, core=True)
    where = core_where
    cite: dict[str, str] = {}
    if profile_id == CORE_ID:
        over = core
    else:
        where, over = _read(profile_id, folder)
        if over.get("inherits") != CORE_ID:
            raise ProfileError(f"{where}: key inherits: must be {CORE_ID!r} (explicit inheritance)")
        merged, touched = _merge(where, merged, over, core=False)
        raw_cite = over.get("cite", {})
        if not isinstance(raw_cite, dict):
            raise ProfileError(f"{where}: key cite: expected a table of key = quote")
        for key in touched:
            if not isinstance(raw_cite.get(key), str) or not raw_cite[key].strip():
                raise ProfileError(f"{where}: key {key}: overridden without a [cite] entry")
        cite = {str(k): str(v) for k, v in raw_cite.items()}
    if over.get("id", profile_id) != profile_id:
        raise ProfileError(f"{where}: key id: {over.get('id')!r} does not match the file name")
    for dotted, value in (options or {}).items():
        section, _, key = str(dotted).partition(".")
        names = (
            set(_GOUJI_RANKS)
            if section == "gouji"
            else {f.name for f in fields(_SECTIONS[section])}
            if section in _SECTIONS
            else set()
        )
        if key not in names:
            raise ProfileError(f"options: key {dotted!r}: unknown (use 'section.key')")
        merged.setdefault(section, {})[key] = value
    built: dict[str, Any] = {}
    for section, cls in _SECTIONS.items():
        body = merged.get(section, {})
        kwargs = {}
        for f in fields(cls):
            key = f"{section}.{f.name}"
            if f.name not in body:
                raise ProfileError(f"{where}: missing key {key}")
            kwargs[f.name] = _check(where, key, body[f.name], f.type)
        built[section] = cls(**kwargs)
    table: dict[str, int] = {}
    for rank, value in merged.get("gouji", {}).items():
        if rank not in _GOUJI_RANKS:
            raise ProfileError(f"{where}: unknown key gouji.{rank}")
        table[rank] = _check(where, f"gouji.{rank}", value, "int")
    unjudged = merged.get("unjudged", [])
    if not isinstance(unjudged, list) or not all(isinstance(u, str) for u in unjudged):
        raise ProfileError(f"{where}: key unjudged: expected a list of strings")
    return Rules(
        id=profile_id,
        title=str(merged.get("title", profile_id)),
        lines=str(merged.get("lines", "")),
        gouji=GoujiThresholds(table),
        cite=cite,
        unjudged=tuple(unjudged),
        **built,
    )
