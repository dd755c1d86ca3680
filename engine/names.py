"""Names a referee reads, in Chinese (zh_CN) and English: every rule by the name its sheet
uses, and cards as Chinese referees say them (红桃A, 黑桃10, 大王/小王).

Pure data and two small functions, so the CLI (``tablescan``) and the dashboard both take the
same names from one place; neither needs the other to name a card or a rule."""

from __future__ import annotations

import re
from typing import Literal

Lang = Literal["zh_CN", "en"]
LANGS: tuple[Lang, ...] = ("zh_CN", "en")

#: rule id → (zh_CN, en). Every rule id a referee can see.
RULES: dict[str, tuple[str, str]] = {
    # 80 points / Tractor
    "revoke": ("打错牌（未跟花色）", "Revoke (did not follow suit)"),
    "missed_pair": ("有对必对（有对未跟对）", "Pair not followed (must follow a pair)"),
    "missed_tractor": ("有拖必拖（有拖拉机未跟）", "Tractor not followed (must follow a tractor)"),
    "failed_throw": ("甩牌失败", "Failed throw"),
    "wrong_count": ("出牌张数不符", "Wrong number of cards"),
    "wrong_bury_count": ("扣底张数错误", "Wrong bury count"),
    "wrong_hand_size": ("手牌张数不符", "Wrong hand size"),
    "extra_cards": ("多牌、少牌", "Too many or too few cards"),
    "extra_cards_partners": ("多牌、少牌（对家）", "Too many or too few cards (partners)"),
    "out_of_turn": ("未轮到出牌", "Played out of turn"),
    "not_in_hand": ("所出牌不在手中", "Card not in hand"),
    "illegal_lead": ("首出违规", "Illegal lead"),
    "illegal_overcall": ("反主无效", "Illegal overcall"),
    "illegal_declaration": ("亮主无效", "Illegal declaration"),
    "wrong_declare": ("亮错主", "Wrong declaration"),
    "wrong_call": ("叫错牌", "Wrong call"),
    "wrong_level_call": ("报错级牌", "Wrong level called"),
    "wrong_card_next_trick": ("打错牌（下一墩发现）", "Wrong card found in the next trick"),
    "bury_time": ("扣底超时", "Burying took too long"),
    # entered by a referee (the camera cannot see these)
    "time_limit": ("出牌超时", "Over the time limit"),
    "take_back": ("悔牌", "Taking back a card"),
    "talking": ("讲牌或暗示", "Talking about the cards"),
    "peeking": ("偷看牌", "Peeking"),
    "conduct": ("赛风违规", "Conduct"),
    # Gouji
    "invalid_set": ("不成牌型", "Invalid set"),
    "not_beating": ("管不上", "Does not beat the set"),
    "played_after_pass": ("过牌后又出牌", "Played after passing"),
    "no_right": ("无权管牌", "No right to answer"),
    "dead_set": ("够死级不能管", "Dead gouji set answered"),
    "illegal_burn": ("烧牌不成立", "Illegal burn"),
    "burn_no_joker": ("烧牌无王", "Burn without a joker"),
    "no_gouji": ("不够级", "Not a gouji set"),
    "early_three": ("过早出3", "Three played too early"),
    "last_not_three": ("末手不是3（憋3）", "Last card not a three"),
    "single_two": ("单出2", "Single two"),
    "asked_count": ("违规要求报户", "Asked for card counts"),
    "false_claim": ("虚报", "False claim"),
    "revolution_banned": ("不许革命（造反）", "Revolution not allowed"),
    "foul": ("犯规", "Foul"),
}

SUITS: dict[str, tuple[str, str]] = {
    "S": ("黑桃", "spades"),
    "H": ("红桃", "hearts"),
    "C": ("梅花", "clubs"),
    "D": ("方块", "diamonds"),
}
SYMBOLS = {"S": "\u2660", "H": "\u2665", "C": "\u2663", "D": "\u2666"}
JOKERS: dict[str, tuple[str, str]] = {"BJ": ("大王", "big joker"), "SJ": ("小王", "small joker")}


def _pick(pair: tuple[str, str], lang: str) -> str:
    return pair[1] if lang == "en" else pair[0]


def rule_name(rule: str, lang: str = "zh_CN") -> str:
    """A rule by its sheet's name (the id itself for a rule no sheet names)."""
    pair = RULES.get(rule)
    return _pick(pair, lang) if pair else rule


def suit_name(suit: str | None, lang: str = "zh_CN") -> str:
    """A suit's name; no suit is no-trump (无主)."""
    if not suit:
        return "no trump" if lang == "en" else "无主"
    pair = SUITS.get(suit)
    return _pick(pair, lang) if pair else suit


def card_name(code: str, lang: str = "zh_CN") -> str:
    """``AH`` → 红桃A / "A of hearts"; ``BJ`` → 大王 / "big joker". Unknown codes stay as given."""
    if code in JOKERS:
        return _pick(JOKERS[code], lang)
    rank, suit = code[:-1], code[-1:]
    if suit not in SUITS or not rank:
        return code
    if lang == "en":
        return f"{rank} of {SUITS[suit][1]}"
    return f"{SUITS[suit][0]}{rank}"


def cards_text(cards: list[str] | None, lang: str = "zh_CN") -> str:
    """Cards for a line of text: each by its name, or '-' for none."""
    if not cards:
        return "-"
    return (", " if lang == "en" else "、").join(card_name(c, lang) for c in cards)


#: Where a profile's citations for a rule live, besides the keys named after the rule itself
#: (the dashboard's sheet quotes and the dispute report both read them).
CITE_KEYS: dict[str, tuple[str, ...]] = {
    "revoke": ("follow",),
    "missed_pair": ("follow",),
    "missed_tractor": ("follow", "follow.tractors"),
    "failed_throw": ("throw",),
    "wrong_bury_count": ("bottom",),
    "wrong_count": ("follow",),
    "illegal_overcall": ("declare", "declare.ladder"),
    "illegal_declaration": ("declare",),
    "invalid_set": ("sets",),
    "not_beating": ("sets", "sets.joker_compare", "sets.two_big_kill_one"),
    "illegal_burn": ("burn",),
    "burn_no_joker": ("burn",),
    "time_limit": ("flow.time_limit_s", "flow.timeout"),
    "early_three": ("bie3",),
    "last_not_three": ("bie3",),
    "foul": ("score.foul_points",),
}


#: A unit's kind (engine.tractor.combos) as a referee says it.
UNIT_KINDS: dict[str, str] = {
    "single": "单张",
    "pair": "对子",
    "tractor": "拖拉机",
    "triple": "三张",
    "quad": "四张",
}

_CARD = r"(?:10|[2-9JQKA])[SHDC]|BJ|SJ"
_ENGLISH = re.compile(r"[A-Za-z]{3,}")  # an English word (a citation is "C5, L59")

#: The tractor referee's reasons (a violation's ``detail``, English in the record, which keeps
#: its meaning) → their Chinese, by pattern: what a Chinese page or report shows instead. A
#: reason no pattern matches is a test failure (tests/engine/test_names.py), never shown raw.
DETAILS: tuple[tuple[str, str], ...] = (
    (r"trick (?P<t>\d+): (?P<rest>.+)", "第 {t} 墩：{rest}"),
    (
        r"revoke: (?P<n>\d+) card\(s\) off (?P<suit>suit [SHDCT]|trumps) while holding (?P<k>\d+)"
        r" of it",
        "未跟花色：{n} 张未出{suit}，而手中有 {k} 张{suit}",
    ),
    (
        r"missed pair: (?P<g>\d+) pair\(s\) of (?P<suit>suit [SHDCT]|trumps) played, (?P<w>\d+)"
        r" held and required",
        "有对未跟：只跟出 {g} 对{suit}，手中有且须跟 {w} 对",
    ),
    (
        r"missed (?P<unit>\w+): a (?P=unit) of (?P<suit>suit [SHDCT]|trumps) was held and"
        r" required",
        "未跟{unit}：手中有{suit}的{unit}，必须跟出",
    ),
    (
        r"wrong count: (?P<n>\d+) card\(s\) for a (?P<w>\d+)-card lead",
        "张数不符：首出 {w} 张，跟出 {n} 张",
    ),
    (r"(?P<n>\d+) card\(s\) on a (?P<w>\d+)-card lead", "首出 {w} 张，跟出 {n} 张"),
    (rf"(?P<c>{_CARD}) played but not in hand", "{c} 不在手中却打出"),
    (
        r"(?P<unit>.+?) can be beaten by hand (?P<by>\d+); the smallest (?P<kind>\w+)"
        r" (?P<forced>.+?) is forced; the forced play was (?P<fp>.+)",
        "{unit} 可被另一家（第 {by} 家）管住；须出最小的{kind} {forced}；应出 {fp}",
    ),
    (
        r"(?P<unit>.+?) can be beaten by hand (?P<by>\d+); the smallest (?P<kind>\w+)"
        r" (?P<forced>.+?) is forced",
        "{unit} 可被另一家（第 {by} 家）管住；须出最小的{kind} {forced}",
    ),
    (r"a throw must be of one suit", "甩牌须为同一花色"),
    (r"throws are not allowed", "本规程不允许甩牌"),
    (
        r"buried (?P<n>\d+) cards; the profile's bottom is (?P<b>\d+)",
        "扣底 {n} 张；本规程底牌为 {b} 张",
    ),
    (
        r"the bottom holds (?P<n>\d+) cards; the profile's is (?P<b>\d+)",
        "底牌有 {n} 张；本规程为 {b} 张",
    ),
    (
        r"led trick (?P<t>\d+) but seat (?P<s>\d+) was to lead",
        "首出了第 {t} 墩，但应由座位 {s} 首出",
    ),
    (r"played in trick (?P<t>\d+) before seat (?P<s>\d+)", "第 {t} 墩中先于座位 {s} 出牌"),
    (r"a lead of several suits is no combination", "首出多种花色，不成牌型"),
    (r"a throw \(甩牌\), which this profile does not allow", "甩牌，本规程不允许"),
    (
        r"played (?P<n>\d+) cards in the deal; a hand is (?P<h>\d+)",
        "本副共出 {n} 张；一手牌为 {h} 张",
    ),
    # Gouji (engine.gouji.referee): the sheet's own words and citations stay as written
    (r"(?P<n>\d+)s only as the very last set \((?P<cite>.+)\)", "{n} 只能作为最后一手出（{cite}）"),
    (
        r"seat (?P<s>\d+) claimed no 够级 cards, then showed (?P<cards>.+)",
        "座位 {s} 声称没有够级牌，随后亮出 {cards}",
    ),
    (
        r"mixes ranks (?P<a>\S+) and (?P<b>\S+) \((?P<cite>.+)\)",
        "混合了 {a} 和 {b} 两种点数（{cite}）",
    ),
    (r"same count and strictly higher needed \((?P<cite>.+)\)", "须张数相同且严格更大（{cite}）"),
    (r"seat (?P<s>\d+) holds the lead", "首出权在座位 {s}"),
    (r"the set stood; seat (?P<s>\d+) leads", "此牌无人再管，由座位 {s} 首出"),
    (r"a pass ends the right this round \((?P<cite>.+)\)", "过牌后本轮再无出牌权（{cite}）"),
    # the table node's own corrections (fusion.plays ``camera_fix``): their ``why``
    (
        r"the trick was swept with (?P<k>\d+) of (?P<n>\d+) plays read: a play was missed",
        "这一墩收走时只读到 {n} 手中的 {k} 手：漏读了一手",
    ),
    (
        r"laid after its trick was swept short: a play was missed, the turn is unknown",
        "在少读一手的一墩收走后打出：漏读了一手，轮次不明",
    ),
    (
        r"a later answer's card count disagrees with this set: it may be misread",
        "后来接牌的张数与这一手不符：这一手可能读错",
    ),
    (
        r"a later read makes more copies of (?P<c>\S+) than (?P<d>\d+) decks hold",
        "后来的读牌使{c}多于 {d} 副牌所有的张数",
    ),
    (
        r"a later play came out of turn: this trick was not seen as it was laid",
        "后来有一手不按轮次：这一墩未按出牌顺序看到",
    ),
    (
        r"every follower laid (?P<n>\d+) card\(s\); the lead's unsure (?P<c>.+) left out",
        "跟牌者都出了 {n} 张；首家读得不确定的 {c} 已去掉",
    ),
    (r"(?P<c>\S+) read without its pair", "{c} 读到了，却没读到与它成对的那张"),
    (r"(?P<c>\S+) read twice", "{c} 被读了两次"),
    (
        r"most plays of the trick have (?P<n>\d+) cards; (?P<rest>.+)",
        "这一墩多数出牌为 {n} 张；{rest}",
    ),
    (
        r"the trick's plays were read with (?P<read>[\d, ]+) card\(s\); all must have the lead's",
        "这一墩各手读到的张数为 {read}；每手都须与首家张数相同",
    ),
    (r"the face-down bottom changed before the first play", "第一手出牌前，扣着的底牌变了"),
    (r"the bottom turned up shows (?P<n>\d+) cards", "翻开的底牌有 {n} 张"),
    (r"the leader laid more cards after the play was read", "读牌之后，首家又放下了更多的牌"),
    (r"entered by (?P<by>[^:]+): (?P<note>.*)", "由 {by} 录入：{note}"),
    (r"entered by (?P<by>[^:]+)", "由 {by} 录入"),
)


def _zh_part(key: str, value: str) -> str:
    """One matched piece in Chinese: suits, unit kinds and cards by name; the rest as read."""
    if key == "suit":
        return "主牌" if value in ("trumps", "suit T") else suit_name(value[-1])
    if key in ("unit", "kind") and value in UNIT_KINDS:
        return UNIT_KINDS[value]
    if key == "rest":
        return detail_text(value, "zh_CN") or value
    return re.sub(_CARD, lambda m: card_name(m.group(0)), value)


def detail_text(detail: str | None, lang: str = "zh_CN") -> str | None:
    """A referee's reason in ``lang``: English as the record has it, Chinese from ``DETAILS``;
    None when no pattern knows it (the caller then shows the rule's name, never English)."""
    if not detail:
        return None
    if lang == "en" or not _ENGLISH.search(detail):  # Chinese already (citations aside)
        return detail
    for pattern, zh in DETAILS:
        m = re.fullmatch(pattern, detail, flags=re.S)
        if m is not None:
            if "rest" in m.groupdict() and detail_text(m["rest"], lang) is None:
                continue
            return zh.format(**{k: _zh_part(k, v or "") for k, v in m.groupdict().items()})
    return None
