# ruff: noqa: E501  (HTML rows read best one per line)
"""The dispute report a committee reads: ``report.html`` (self-contained: inline CSS, the frames
and the timeline plot embedded as data URIs) and ``report.pdf`` (the same page printed by
headless Chromium), both built from a bundle's own files so they say nothing the bundle does not
prove, and both inside the bundle's manifest and seal.

It shows the match, each disputed event (a violation the judge ruled), the frames of the play
where it happened and of the play that proves it (cards outlined where the event carries the
camera's ``reads``: ``[{"card": "AS", "box": [x, y, w, h]}]`` in frame pixels), the plays of that
trick, the rule quoted from the profile's sheet (its ``cites``), the referees' decisions with
who and when, a timeline plot (points per trick, prompts, violations) and the chain digest that
``tablescan verify`` checks. Chinese by default, English with ``lang="en"``.
"""

from __future__ import annotations

import base64
import html
import io
import json
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine import names
from engine.games import GAMES

CHROMIUM = "/usr/bin/chromium"
PRINT_TIMEOUT_S = 90.0
TEXT: dict[str, tuple[str, str]] = {  # key: (Chinese, English)
    "title": ("争议报告", "Dispute report"),
    "match": ("比赛", "Match"),
    "table": ("桌号", "Table"),
    "game": ("玩法 / 规则", "Game / rules"),
    "players": ("选手", "Players"),
    "teams": ("分队", "Teams"),
    "exported": ("导出时间（UTC）", "Exported (UTC)"),
    "disputed": ("争议事件", "Disputed event"),
    "none": ("本场没有判出违例。", "No violation was ruled in this match."),
    "rule": ("规则", "Rule"),
    "seat": ("选手", "Player"),
    "hand": ("副", "Hand"),
    "where": ("发生于", "Where it happened"),
    "proof": ("证明它的出牌", "The play that proves it"),
    "penalty": ("处罚", "Penalty"),
    "pen_points": ("{n} 分", "{n} points"),
    "pen_levels": ("{n} 级", "{n} level(s)"),
    "pen_per_card": ("每张 {n} 分", "{n} per card"),
    "pen_bank": ("下台", "loses the bank"),
    "pen_none": ("不罚", "no penalty"),
    "pen_referee": ("规则未作规定，由裁判决定", "not stated by the sheet: the referee decides"),
    "reason": ("引擎给出的理由", "Engine's reason"),
    "sheet": ("规则原文", "What the sheet says"),
    "no_quote": ("规则表没有给出这条的原文。", "The sheet gives no quote for this rule."),
    "plays": ("证明裁决的出牌", "The plays that prove the ruling"),
    "frames": ("画面", "Frames"),
    "no_frame": ("（画面已按保留期删除或未存）", "(frame pruned or not stored)"),
    "history": ("逐帧识别（帧: 牌 分数）", "Read in each frame (frame: card score)"),
    "decisions": ("裁判决定", "Referees' decisions"),
    "no_decision": ("尚无裁判决定。", "No referee decision yet."),
    "who": ("裁判", "Referee"),
    "when": ("时间（开赛后秒）", "When (s from match start)"),
    "decision": ("决定", "Decision"),
    "note": ("说明", "Note"),
    "timeline": ("比赛时间线", "Match timeline"),
    "chain": ("证据链摘要", "Chain digest"),
    "chain_help": (
        "用 tablescan verify bundle.zip 核验：任何一个字节被改动都会被发现。",
        "Check with tablescan verify bundle.zip: any changed byte is caught.",
    ),
    "tip": ("链末哈希", "Chain tip"),
    "rows": ("链行", "Chain rows"),
    "head": ("签名链头", "Signed head"),
    "fingerprint": ("节点密钥指纹（verify --key）", "Node key fingerprint (verify --key)"),
    "witness": ("裁判台见证", "Desk witness"),
    "witnessed": (
        "裁判台（密钥 {desk}）于 {at} 见证了此链头（至第 {rows} 行）",
        "witnessed by the desk (key {desk}) at {at}, up to row {rows}",
    ),
    "not_witnessed": (
        "导出时未与裁判台核对：请用 tablescan verify bundle.zip --desk 裁判台数据目录 核验",
        "not checked with a desk at export: check with tablescan verify bundle.zip --desk DESK_DATA",
    ),
    "upheld": ("确认", "upheld"),
    "dismissed": ("驳回", "dismissed"),
    "open": ("待裁", "open"),
    "seq": ("序号", "seq"),
    "points": ("每墩得分", "points per trick"),
    "prompts": ("待裁判确认", "referee prompts"),
    "violations": ("违例", "violations"),
    "trick_no": ("墩（全场顺序）", "trick (match order)"),
    "banker": ("庄家", "Banker"),
    "levels_after": ("打完后各方级数", "Levels after"),
    "next_banker": ("下一副庄家", "Next banker"),
    "places": ("出完顺序", "Finishing order"),
    "deal_points": ("本局记分", "Points recorded"),
    "over": ("比赛结束", "Match over"),
    "going": ("比赛未结束", "Match not over"),
    "won": ("获胜", "won"),
    "tied": ("未分胜负", "no winner"),
    "no_deal": ("还没有打完的一副。", "No hand finished yet."),
    "deals_won": ("胜局", "deals won"),
    "team_points": ("各队积分", "team points"),
}
GOUJI_PLACES = ("头科", "二科", "三科", "四科", "二落", "大落")
SUITS = {"S": "♠", "H": "♥", "C": "♣", "D": "♦"}


def _t(key: str, lang: str) -> str:
    zh, en = TEXT[key]
    return en if lang == "en" else zh


def _jsonl(raw: bytes | None) -> list[dict[str, Any]]:
    if not raw:
        return []
    return [json.loads(line) for line in raw.decode("utf-8").splitlines() if line.strip()]


def _cards(cards: Any) -> str:
    out = []
    for c in cards or []:
        c = str(c)
        if c in ("BJ", "SJ"):
            out.append(f'<span class="c red">{"大王" if c == "BJ" else "小王"}</span>')
            continue
        red = " red" if c[-1:] in ("H", "D") else ""
        out.append(f'<span class="c{red}">{html.escape(c[:-1])}{SUITS.get(c[-1:], "?")}</span>')
    return "".join(out) or "–"


def rule_quotes(game: str, profile: str, rule: str) -> list[str]:
    """The sheet's own words for ``rule`` (the profile's cites), or [] when it has none."""
    from engine.games import find_game

    try:
        rules = find_game(game).load_rules(profile)
    except Exception:  # a profile this node lacks: the report says the sheet gives no quote
        return []
    raw = getattr(rules, "cites", None) or getattr(rules, "cite", None) or {}
    cites = {str(k): str(v) for k, v in (raw.items() if isinstance(raw, dict) else raw)}
    keys = {rule, f"penalties.{rule}", *names.CITE_KEYS.get(rule, ())}
    return [q for k, q in cites.items() if k in keys or k.startswith(f"{rule}.")]


def _data_uri(data: bytes, mime: str) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


def _frame(
    files: Mapping[str, bytes], media: Mapping[str, str], ev: dict[str, Any] | None, lang: str
) -> str:
    if ev is None:
        return ""
    raw = ev.get("evidence")
    names = [raw] if isinstance(raw, str) else [x for x in raw or [] if isinstance(x, str)]
    for name in names:
        data = files.get(media.get(name, f"media/{Path(name).name}"))
        if data is None:
            continue
        mime = "image/png" if data[:4] == b"\x89PNG" else "image/jpeg"
        size = _image_size(data)
        boxes = ""
        if size and isinstance(ev.get("reads"), list):
            rects = []
            for b in ev["reads"]:
                x0, y0, w, h = (float(v) for v in b.get("box", (0, 0, 0, 0)))
                label = html.escape(str(b.get("card", "")))
                rects.append(
                    f'<rect x="{x0}" y="{y0}" width="{w}" height="{h}" class="box"/>'
                    f'<text x="{x0}" y="{max(12.0, y0 - 4)}" class="lbl">{label}</text>'
                )
            boxes = (
                f'<svg viewBox="0 0 {size[0]} {size[1]}" preserveAspectRatio="none">'
                + "".join(rects)
                + "</svg>"
            )
        return (
            f'<figure class="frame"><div class="img"><img alt="{html.escape(name)}" '
            f'src="{_data_uri(data, mime)}">{boxes}</div><figcaption>{_t("seq", lang)} '
            f"{ev.get('seq')} · {html.escape(name)}</figcaption></figure>" + _history(ev, lang)
        )
    return f'<p class="muted">{_t("no_frame", lang)}</p>'


def _history(ev: dict[str, Any], lang: str) -> str:
    """Each read card's frame-by-frame reads (the record's ``reads[].history``), one line a
    card: how the camera saw it from landing to the event."""
    rows = []
    for r in ev.get("reads") or []:
        votes = r.get("history") if isinstance(r, dict) else None
        if not isinstance(votes, list) or not votes:
            continue
        seen = " ".join(
            f"{int(v[0])}: {html.escape(str(v[1]))} {float(v[2]):.2f}"
            for v in votes
            if isinstance(v, list) and len(v) == 3
        )
        rows.append(f"<li><b>{html.escape(str(r.get('card', '')))}</b> — {seen}</li>")
    if not rows:
        return ""
    return f'<div class="small muted">{_t("history", lang)}<ul>{"".join(rows)}</ul></div>'


def _image_size(data: bytes) -> tuple[int, int] | None:
    try:
        from PIL import Image

        with Image.open(io.BytesIO(data)) as im:
            return int(im.width), int(im.height)
    except Exception:  # not an image we can read: the frame shows without outlines
        return None


def _trick_of(events: list[dict[str, Any]], seq: int | None, seats: int) -> list[dict[str, Any]]:
    """The plays of the trick (80-points: seats plays from its lead) holding ``seq``."""
    if seq is None:
        return []
    hand: list[dict[str, Any]] = []
    for e in events:
        if e.get("type") == "hand_start":
            hand = []
        elif e.get("type") == "play":
            hand.append(e)
        if e.get("seq") == seq:
            break
    idx = next((i for i, e in enumerate(hand) if e.get("seq") == seq), None)
    if idx is None:
        return [e for e in events if e.get("seq") == seq]
    start = idx - idx % max(1, seats)
    return hand[start : start + max(1, seats)]


CJK_FONT = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"  # Debian fonts-wqy-microhei


def cjk_rc() -> dict[str, Any]:
    """The plot's font: WenQuanYi Micro Hei, which the project ships for Chinese labels
    (matplotlib's default font has no CJK glyphs and draws boxes)."""
    from matplotlib import font_manager

    if not Path(CJK_FONT).exists():
        return {}
    font_manager.fontManager.addfont(CJK_FONT)
    name = font_manager.FontProperties(fname=CJK_FONT).get_name()
    return {"font.family": [name, "DejaVu Sans"], "axes.unicode_minus": False}


def timeline_png(events: list[dict[str, Any]], rulings: list[dict[str, Any]], lang: str) -> bytes:
    """Points per trick (bars), referee prompts and violations (markers), in match order;
    labelled in ``lang`` (Chinese in the project's CJK font), rule labels never overlapping."""
    import matplotlib

    matplotlib.use("Agg")
    rc: Any = cjk_rc()  # matplotlib types its keys as a Literal of every rc name
    with matplotlib.rc_context(rc):
        fig = timeline_figure(events, rulings, lang)
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        return buf.getvalue()


def timeline_figure(events: list[dict[str, Any]], rulings: list[dict[str, Any]], lang: str) -> Any:
    """The timeline as a matplotlib Figure (call inside the CJK rc context, as timeline_png)."""
    from matplotlib.figure import Figure

    tricks = [r for r in rulings if r.get("kind") == "trick"]
    points = [int(r.get("points") or 0) for r in tricks]
    start = next((e for e in events if e.get("type") == "match_start"), {})
    n = max(1, len(start.get("seats") or [4]))
    # a seq's place on the trick axis: its trick, counting plays (one per seat a trick)
    place: list[tuple[int, float]] = []
    done = in_hand = 0
    for e in events:
        if e.get("type") == "hand_start":
            done += -(-in_hand // n)
            in_hand = 0
        if e.get("type") == "play":
            in_hand += 1
        place.append((int(e.get("seq", 0)), done + max(1, -(-in_hand // n))))

    def at(seq: int) -> float:
        before = [x for s, x in place if s <= seq]
        return before[-1] if before else 1.0

    prompts = [
        at(e["ref"] if isinstance(e.get("ref"), int) else int(e["seq"]))
        for e in events
        if e.get("type") == "needs_referee"
    ]
    viols = [
        (at(int(r["at_seq"])), str(r.get("rule")))
        for r in rulings
        if r.get("kind") == "violation" and isinstance(r.get("at_seq"), int)
    ]
    fig = Figure(figsize=(9, 3.6), dpi=110)
    ax = fig.add_subplot()
    if points:
        ax.bar(range(1, len(points) + 1), points, color="#3b82f6", label=_t("points", lang))
    top = max([*points, 10])
    if prompts:
        ax.scatter(
            prompts,
            [top * 1.05] * len(prompts),
            marker="v",
            color="#f59e0b",
            s=60,
            label=_t("prompts", lang),
            zorder=3,
        )
    # each violation's rule by name, stacked in rows so that neighbours do not overlap
    rows: list[float] = []  # where the last label of each stacked row ends (data units)
    span = max([len(points), *(x for x, _ in viols), 1]) + 1
    per_pt = span / 560.0  # the axes are about 560 pt wide
    for i, (x, rule) in enumerate(viols):
        ax.axvline(
            x, color="#dc2626", lw=1.5, ls="--", label=_t("violations", lang) if i == 0 else None
        )
        label = names.rule_name(rule, "en" if lang == "en" else "zh_CN")
        width = sum(8.0 if ord(c) > 0x2E80 else 5.0 for c in label) * per_pt + 6 * per_pt
        row = next((k for k, end in enumerate(rows) if x > end), len(rows))
        if row == len(rows):
            rows.append(0.0)
        rows[row] = x + width
        ax.annotate(
            label,
            (x, top * (1.12 + 0.1 * row)),
            color="#dc2626",
            fontsize=8,
            ha="left",
            va="bottom",
            xytext=(3, 0),
            textcoords="offset points",
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 1},
            zorder=4,
        )
    ax.set_ylim(0, top * (1.3 + 0.1 * max(0, len(rows) - 1)))
    if rows:  # room on the right for the last label
        ax.set_xlim(0, max(ax.get_xlim()[1], max(rows) + 4 * per_pt))
    ax.set_xlabel(_t("trick_no", lang))
    ax.set_ylabel(_t("points", lang))
    ax.set_title(_t("timeline", lang))
    if points or prompts or viols:
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3, fontsize=8)
    fig.tight_layout()
    return fig


CSS = """
@page{size:A4;margin:14mm 12mm}
body{font:14px/1.45 "DejaVu Sans","WenQuanYi Micro Hei","Noto Sans CJK SC",sans-serif;color:#111;margin:0;}
h1{font-size:22px;margin:0 0 8px} h2{font-size:17px;border-bottom:2px solid #1d4e89;margin:20px 0 8px}
h3{font-size:15px;margin:12px 0 6px} table{border-collapse:collapse} td,th{border:1px solid #bbb;padding:3px 8px;text-align:left;vertical-align:top}
.muted{color:#666} .c{display:inline-block;border:1px solid #999;border-radius:3px;padding:0 3px;margin:0 2px;background:#fff}
.red{color:#c8102e} blockquote{border-left:4px solid #1d4e89;margin:6px 0;padding:4px 10px;background:#eef3fa}
.frames{display:flex;gap:12px;flex-wrap:wrap} .frame{margin:0;break-inside:avoid} .img{position:relative;display:inline-block}
.img img{max-width:330px;display:block} .img svg{position:absolute;left:0;top:0;width:100%;height:100%}
.box{fill:none;stroke:#ff0;stroke-width:3} .lbl{fill:#ff0;font-size:14px}
code{font-size:12px;word-break:break-all} .status-upheld{color:#15803d;font-weight:700} .status-dismissed{color:#b91c1c;font-weight:700}
"""


def _match_section(
    events: list[dict[str, Any]],
    rulings: list[dict[str, Any]],
    seats: list[str],
    by_place: bool,
    lang: str,
) -> list[str]:
    """The match as the judge's stored deal results give it (nothing judged here): each
    deal's banker and levels after (80-points) or, where the game ranks places instead of
    climbing levels, its finishing order and points (Gouji), and
    whether the match is over, with the result its ``match_end`` carries."""
    e_ = html.escape

    def who(i: Any) -> str:
        return e_(seats[i]) if isinstance(i, int) and 0 <= i < len(seats) else "–"

    deals = {r.get("hand"): r for r in rulings if r.get("kind") == "hand"}  # re-judged: last
    bankers = {e.get("hand"): e.get("banker") for e in events if e.get("type") == "hand_start"}
    # the last match_end stands unless a head referee reopened the match after it
    last = next(
        (e for e in reversed(events) if e.get("type") in ("match_end", "match_reopen")), None
    )
    end = last if last is not None and last.get("type") == "match_end" else None
    if by_place:
        head = [_t("hand", lang), _t("places", lang), _t("deal_points", lang)]
    else:
        head = [_t("hand", lang), _t("banker", lang), _t("levels_after", lang)]
        head.append(_t("next_banker", lang))
    rows = []
    for hand in sorted(h for h in deals if isinstance(h, int)):
        r = deals[hand]
        out: dict[str, Any] = r["outcome"] if isinstance(r.get("outcome"), dict) else {}
        if by_place:
            order = out.get("finishing_order") or []
            places = " · ".join(
                f"{GOUJI_PLACES[i]} {who(s)}" for i, s in enumerate(order) if s is not None
            )
            scores: dict[str, Any] = out["scores"] if isinstance(out.get("scores"), dict) else {}
            cells = [places or "–", " : ".join(str(p) for p in scores.get("recorded") or []) or "–"]
        else:
            nb = out.get("next_banker")
            banker = r.get("banker", bankers.get(hand))  # the judge's, else the record's
            cells = [who(banker), " : ".join(r.get("levels_after") or []) or "–"]
            cells.append(who(nb) if isinstance(nb, int) else e_(str(nb or "–")))
        rows.append(f"<tr><td>{hand}</td>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    table = "".join(f"<th>{h}</th>" for h in head)
    body = "".join(rows) or f'<tr><td colspan="{len(head)}">{_t("no_deal", lang)}</td></tr>'
    got = (end or {}).get("result")
    res: dict[str, Any] = got if isinstance(got, dict) else {}
    if end is None:
        state = _t("going", lang)
    else:
        win = res.get("winner")
        team = f"{_t('teams', lang)} {win + 1} {_t('won', lang)}" if isinstance(win, int) else ""
        bits = [team or _t("tied", lang)]
        for key, label in (
            ("levels", "levels_after"),
            ("deals_won", "deals_won"),
            ("teams", "team_points"),
        ):
            if res.get(key):
                bits.append(f"{_t(label, lang)}: {' : '.join(str(x) for x in res[key])}")
        state = f"{_t('over', lang)} · " + " · ".join(e_(b) for b in bits)
    return [
        f"<h2>{_t('match', lang)}</h2>",
        f'<p id="match-state">{state}</p>',
        f'<table id="match-deals"><tr>{table}</tr>{body}</table>',
    ]


def build_report(
    files: Mapping[str, bytes],
    info: Mapping[str, Any],
    lang: str = "zh",
    violation: str | None = None,
) -> str:
    """``report.html`` from a bundle's files (``record.jsonl``, ``rulings.jsonl``,
    ``actions.jsonl``, ``media/*``) and ``info`` (``match``, ``table``, ``exported_at``,
    ``chain_tip``, ``chain_rows``, ``head``, ``media``: evidence id → its bundle file); ``violation``: only that one (its id)."""
    import time as _time

    events = _jsonl(files.get("record.jsonl"))
    rulings = _jsonl(files.get("rulings.jsonl"))
    actions = _jsonl(files.get("actions.jsonl"))
    start = next((e for e in events if e.get("type") == "match_start"), {})
    seats: list[str] = list(start.get("seats") or [])
    game, profile = str(start.get("game", "")), str(start.get("profile", ""))
    rules_of = GAMES.get(game, GAMES["tractor"])  # a record of an unknown game: as 80-points
    by_seq = {e["seq"]: e for e in events if "seq" in e}
    media: Mapping[str, str] = info.get("media") or {}
    e_ = html.escape

    def seat(i: Any) -> str:
        return e_(seats[i]) if isinstance(i, int) and 0 <= i < len(seats) else e_(str(i))

    withdrawn = {str(r.get("id")) for r in rulings if r.get("kind") == "withdrawn"}
    viols = [r for r in rulings if r.get("kind") == "violation"]
    for r in viols:
        r.setdefault("id", f"{r.get('hand')}:{r.get('rule')}:{r.get('seat')}:{r.get('at_seq')}")
    viols = [r for r in viols if str(r["id"]) not in withdrawn]
    if violation:
        viols = [r for r in viols if str(r["id"]) == violation] or viols
    decisions = [e for e in events if e.get("type") == "ruling"]

    def rule_name(r: str) -> str:
        return names.rule_name(r, "en" if lang == "en" else "zh_CN")

    teams = " / ".join(" · ".join(seat(i) for i in tm) for tm in start.get("teams") or [])
    exported = _time.strftime("%Y-%m-%d %H:%M:%S", _time.gmtime(float(info.get("exported_at", 0))))
    out = [
        f'<!doctype html><html lang="{"en" if lang == "en" else "zh-CN"}"><head><meta charset="utf-8">',
        f"<title>{_t('title', lang)} · {e_(str(info.get('match')))}</title><style>{CSS}</style></head><body>",
        f"<h1>{_t('title', lang)} · {e_(str(info.get('match')))}</h1>",
        "<table>",
        f"<tr><th>{_t('table', lang)}</th><td>{e_(str(info.get('table')))}</td></tr>",
        f"<tr><th>{_t('game', lang)}</th><td>{e_(game)} / {e_(profile)}</td></tr>",
        f"<tr><th>{_t('players', lang)}</th><td>{' · '.join(seat(i) for i in range(len(seats)))}</td></tr>",
        f"<tr><th>{_t('teams', lang)}</th><td>{teams}</td></tr>",
        f"<tr><th>{_t('exported', lang)}</th><td>{exported}</td></tr></table>",
        *_match_section(events, rulings, seats, not rules_of.levels, lang),
        f"<h2>{_t('disputed', lang)}</h2>",
    ]
    if not viols:
        out.append(f'<p class="muted">{_t("none", lang)}</p>')
    for r in viols:
        rid = str(r["id"])
        at, proof = r.get("at_seq"), r.get("proven_by_seq")
        pen_text = penalty_text(r.get("penalty"), lang)
        quotes = rule_quotes(game, profile, str(r.get("rule")))
        out += [
            f'<section class="viol" data-violation="{e_(rid)}"><h3>{e_(rule_name(str(r.get("rule"))))}'
            f" · {seat(r.get('seat'))}</h3><table>",
            f"<tr><th>{_t('rule', lang)}</th><td>{e_(rule_name(str(r.get('rule'))))}"
            f" <code>{e_(str(r.get('rule')))}</code></td></tr>",
            f"<tr><th>{_t('hand', lang)}</th><td>{e_(str(_hand_of(r, events)))}</td></tr>",
            f"<tr><th>{_t('where', lang)}</th><td>{_t('seq', lang)} {e_(str(at))}</td></tr>",
            f"<tr><th>{_t('proof', lang)}</th><td>{_t('seq', lang)} {e_(str(proof))}</td></tr>",
            f"<tr><th>{_t('penalty', lang)}</th><td>{e_(pen_text)}</td></tr>",
        ]
        reason = names.detail_text(r.get("detail"), "en" if lang == "en" else "zh_CN")
        if reason:  # a reason with no Chinese yet is left out of a Chinese report, never raw
            out.append(f"<tr><th>{_t('reason', lang)}</th><td>{e_(reason)}</td></tr>")
        out.append("</table>")
        out.append(f"<h3>{_t('sheet', lang)}</h3>")
        out += [f'<blockquote lang="zh-CN">{e_(q)}</blockquote>' for q in quotes] or [
            f'<p class="muted">{_t("no_quote", lang)}</p>'
        ]
        trick = _trick_of(
            events, at if isinstance(at, int) else None, len(seats) if rules_of.fixed_turn else 1
        )
        shown = {p["seq"] for p in trick}
        if isinstance(proof, int) and proof in by_seq and proof not in shown:
            trick.append(by_seq[proof])
        out.append(f"<h3>{_t('plays', lang)}</h3><table>")
        for p in trick:
            mark = " ◀" if p.get("seq") in (at, proof) else ""
            out.append(
                f"<tr><td>{_t('seq', lang)} {p.get('seq')}</td><td>{seat(p.get('seat'))}</td>"
                f"<td>{_cards(p.get('cards'))}{mark}</td></tr>"
            )
        out.append("</table>")
        frames = [
            _frame(files, media, by_seq.get(s), lang)
            for s in dict.fromkeys((at, proof))
            if s in by_seq
        ]
        out.append(f'<h3>{_t("frames", lang)}</h3><div class="frames">{"".join(frames)}</div>')
        mine = [d for d in decisions if str(d.get("ref")) == rid]
        mine += [a for a in actions if str(a.get("violation") or a.get("ref")) == rid]
        out.append(f"<h3>{_t('decisions', lang)}</h3>")
        if not mine:
            out.append(f'<p class="muted">{_t("no_decision", lang)}</p>')
        else:
            out.append(
                f"<table><tr><th>{_t('who', lang)}</th><th>{_t('when', lang)}</th>"
                f"<th>{_t('decision', lang)}</th><th>{_t('note', lang)}</th></tr>"
            )
            for d in mine:
                dec = str(d.get("decision") or d.get("action") or "")
                label = _t(dec, lang) if dec in ("upheld", "dismissed", "open") else e_(dec)
                when = d.get("t", d.get("at"))
                out.append(
                    f"<tr><td>{e_(str(d.get('by', '–')))}</td><td>{e_(str(when))}</td>"
                    f'<td class="status-{e_(dec)}">{label}</td><td>{e_(str(d.get("note", "")))}</td></tr>'
                )
            out.append("</table>")
        out.append("</section>")
    png = timeline_png(events, rulings, lang)
    out.append(
        f'<h2>{_t("timeline", lang)}</h2><img alt="timeline" style="max-width:100%" '
        f'src="{_data_uri(png, "image/png")}">'
    )
    head = info.get("head") or {}
    rows = info.get("chain_rows") or []
    out += [
        f"<h2>{_t('chain', lang)}</h2><p>{_t('chain_help', lang)}</p><table>",
        f"<tr><th>{_t('tip', lang)}</th><td><code>{e_(str(info.get('chain_tip')))}</code></td></tr>",
        f"<tr><th>{_t('rows', lang)}</th><td>{e_(' – '.join(str(x) for x in rows))}</td></tr>",
        f"<tr><th>{_t('head', lang)}</th><td><code>{e_(json.dumps(head.get('hash') or head.get('tip') or head, sort_keys=True))}</code></td></tr>",
        f"<tr><th>{_t('fingerprint', lang)}</th><td><code>{e_(_fingerprint(head))}</code></td></tr>",
        f"<tr><th>{_t('witness', lang)}</th><td>{e_(_witness_line(info.get('witness'), lang))}</td></tr>",
        "</table></body></html>",
    ]
    return "\n".join(out)


def _hand_of(r: dict[str, Any], events: list[dict[str, Any]]) -> Any:
    """The hand a violation is in: its ruling's ``hand``, else the record's ``hand_start``
    before its play (the judge's violation rulings name the play, not the hand)."""
    if isinstance(r.get("hand"), int):
        return r["hand"]
    at = r.get("at_seq")
    hand: Any = None
    for e in events:
        if isinstance(at, int) and isinstance(e.get("seq"), int) and e["seq"] > at:
            break
        if e.get("type") == "hand_start":
            hand = e.get("hand", hand)
    if hand is None:
        head = str(r.get("id", "")).split(":", 1)[0]
        return int(head) if head.isdigit() else "–"
    return hand


def penalty_text(pen: Any, lang: str) -> str:
    """A penalty as the dashboard says it: points, levels, losing the bank, in ``lang``; a
    profile's note by the sheet's own (Chinese) words it quotes, its English gloss only in an
    English report; a note the sheet leaves to the referee says so."""
    if isinstance(pen, str):  # Gouji: the sheet's own words
        return pen or "–"
    if not isinstance(pen, dict):
        return "–"
    bits = []
    for key, label in (("points", "pen_points"), ("levels", "pen_levels")):
        if isinstance(pen.get(key), int) and pen[key]:
            bits.append(_t(label, lang).format(n=pen[key]))
    if isinstance(pen.get("per_card"), int) and pen["per_card"]:
        bits.append(_t("pen_per_card", lang).format(n=pen["per_card"]))
    if pen.get("lose_bank"):
        bits.append(_t("pen_bank", lang))
    note = str(pen.get("note") or "")
    if lang == "en":
        if note:
            bits.append(note)
    elif quotes := re.findall(r"「[^」]*」", note):
        bits.append(" ".join(quotes))
    elif note.startswith("not stated") or "referee" in note:
        bits.append(_t("pen_referee", lang))
    elif note and not re.search(r"[A-Za-z]{3,}", note):
        bits.append(note)
    return " · ".join(bits) or _t("pen_none", lang)


def _fingerprint(head: dict[str, Any]) -> str:
    """The 16-hex key id ``verify`` prints and ``verify --key`` pins."""
    from evidence.signing import key_id

    try:
        return key_id(str(head["key"]))
    except (KeyError, ValueError):
        return "–"


def _witness_line(witness: Any, lang: str) -> str:
    if not isinstance(witness, dict) or not witness.get("rows"):
        return _t("not_witnessed", lang)
    at = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(witness.get("at", 0))))
    return _t("witnessed", lang).format(desk=witness.get("desk"), at=at, rows=witness["rows"])


def print_pdf(page: str, chromium: str = CHROMIUM) -> bytes:
    """``page`` printed to PDF by headless Chromium (no network: the page is self-contained)."""
    exe = chromium if Path(chromium).exists() else shutil.which("chromium")
    if not exe:
        raise RuntimeError(f"report.pdf: no Chromium at {chromium} (Debian package chromium)")
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "report.html", Path(tmp) / "report.pdf"
        src.write_text(page, encoding="utf-8")
        cmd = [
            exe,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--disable-background-networking",
            f"--user-data-dir={tmp}/profile",
            "--no-pdf-header-footer",
            f"--print-to-pdf={out}",
            src.as_uri(),
        ]
        done = subprocess.run(cmd, capture_output=True, timeout=PRINT_TIMEOUT_S, check=False)
        if not out.exists() or out.stat().st_size == 0:
            tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
            raise RuntimeError(
                f"report.pdf: Chromium printed nothing (exit {done.returncode}: {tail[0]})"
            )
        return out.read_bytes()


__all__ = ["build_report", "print_pdf", "rule_quotes", "timeline_png"]
