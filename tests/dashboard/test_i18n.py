"""Chinese first, English beside it: every string a referee reads is in both catalogs, the
language follows the user's choice, then the browser, then defaults to zh_CN; rules by the
sheets' names with their quotes; corrections previewed and undone through the API."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from dashboard.api import REFEREE_RULES
from dashboard.i18n import RULE_NAMES, compile_catalogs
from dashboard.i18n_tools import JS_CALL, problems
from engine.games import GAMES
from tests.dashboard.conftest import Clock, feed, login, match_record

DASH = Path(__file__).resolve().parents[2] / "dashboard"
WORDS = re.compile(r"[A-Za-z]{2,}|[\u4e00-\u9fff]")
ENDONYMS = {"中文", "English"}  # the language switch names each language in itself
SHOWN_ATTRS = {"placeholder", "title", "alt", "aria-label"}


def test_every_msgid_has_chinese_and_english() -> None:
    assert problems() == []


class _Text(HTMLParser):
    """Text nodes and shown attributes of a template whose Jinja tags are blanked out."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self.skip += 1
        for k, v in attrs:
            if k in SHOWN_ATTRS and v and WORDS.search(v):
                self.found.append(f"{tag}[{k}]={v!r}")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self.skip -= 1

    def handle_data(self, data: str) -> None:
        text = data.strip()
        if not self.skip and text not in ENDONYMS and WORDS.search(text):
            self.found.append(repr(text))


@pytest.mark.parametrize("template", sorted(p.name for p in (DASH / "templates").glob("*.html")))
def test_templates_show_only_catalog_strings(template: str) -> None:
    src = (DASH / "templates" / template).read_text(encoding="utf-8")
    blanked = re.sub(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", " ", src, flags=re.S)
    parser = _Text()
    parser.feed(blanked)
    assert parser.found == [], f"{template}: text not wrapped in _(): {parser.found}"


def js_literals(src: str) -> list[tuple[int, str, bool]]:
    """(offset, text, is_markup) of every string and template literal in a script (template
    literals with their ``${...}`` parts blanked), comments and regex literals skipped."""
    out: list[tuple[int, str, bool]] = []

    def code(i: int, stop: str | None) -> int:
        prev = "("
        while i < len(src):
            c = src[i]
            if stop and c == stop:
                return i + 1
            if src.startswith("//", i):
                i = src.index("\n", i)
                continue
            if src.startswith("/*", i):
                i = src.index("*/", i) + 2
                continue
            if c in "\"'":
                j = i + 1
                while src[j] != c:
                    j += 2 if src[j] == "\\" else 1
                out.append((i, src[i + 1 : j], False))
                i, prev = j + 1, "a"
                continue
            if c == "`":
                i = template(i + 1)
                prev = "a"
                continue
            if c == "/" and prev in "(,=:[!&|?{};+":
                j = i + 1
                while src[j] != "/":
                    j += 2 if src[j] == "\\" else 1
                i = j + 1
                continue
            if c == "{":
                i = code(i + 1, "}")
                prev = "}"
                continue
            if not c.isspace():
                prev = c
            i += 1
        return i

    def template(i: int) -> int:
        start, parts = i, []
        while src[i] != "`":
            if src[i] == "\\":
                parts.append(src[i : i + 2])
                i += 2
            elif src.startswith("${", i):
                parts.append("\x00")
                i = code(i + 2, "}")
            else:
                parts.append(src[i])
                i += 1
        text = "".join(parts)
        out.append((start - 1, text, "<" in text))
        return i + 1

    code(0, None)
    return out


def _visible(text: str, markup: bool) -> str:
    """The words of a literal a page would show (empty for code: keys, selectors, classes)."""
    text = re.sub(r"&#?\w+;", " ", text)
    if markup or "<" in text:
        shown = re.sub(r"<[^>]*>?", " ", re.sub(r"^[^<>]*>", " ", text))
        shown = re.sub(r"&\w+;", " ", shown)
        return shown if WORDS.search(shown.replace("\x00", " ")) else ""
    if re.search(r"[\u4e00-\u9fff]", text):
        return text
    if re.fullmatch(r"[\w\-.#:/\[\]=\"'()*, >~+\x00%$&?]*", text) and not re.search(
        r"[A-Z][a-z]+ [a-z]+|[a-z]+ [a-z]+ [a-z]+", text
    ):
        return ""  # identifiers, selectors, class lists, URLs
    return text if WORDS.search(text) else ""


@pytest.mark.parametrize("script", sorted(p.name for p in (DASH / "static").glob("*.js")))
def test_scripts_show_only_catalog_strings(script: str) -> None:
    src = (DASH / "static" / script).read_text(encoding="utf-8")
    looked_up = {m.start(2) - 1 for m in JS_CALL.finditer(src)}
    shown = [
        f"line {src.count(chr(10), 0, at) + 1}: {_visible(text, markup)!r}"
        for at, text, markup in js_literals(src)
        if at not in looked_up and _visible(text, markup)
    ]
    assert shown == [], f"{script}: literals shown without t(): {shown}"


def test_the_js_check_catches_a_bare_string() -> None:
    src = (
        'el.innerHTML = `<b>${x}</b> cards left`; ok(t("Uphold")); $("#felt");'
        ' f("no penalty here");'
    )
    found = [_visible(t, m) for _, t, m in js_literals(src) if _visible(t, m)]
    assert len(found) == 2 and "cards left" in found[0] and "no penalty" in found[1]


def test_catalogs_compile_fresh_and_when_stale(tmp_path: Path) -> None:
    out = compile_catalogs(tmp_path)
    mos = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.mo"))
    assert mos == ["en/LC_MESSAGES/messages.mo", "zh_Hans_CN/LC_MESSAGES/messages.mo"]
    mo = out / "zh_Hans_CN" / "LC_MESSAGES" / "messages.mo"
    mo.write_bytes(b"")
    import os

    os.utime(mo, (0, 0))  # older than its .po: compiled again
    compile_catalogs(tmp_path)
    assert mo.stat().st_size > 1000


def _lang(client: FlaskClient, path: str = "/login", **headers: str) -> tuple[str, str]:
    page = client.get(path, headers=headers).get_data(as_text=True)
    lang = re.search(r'<html lang="([^"]+)"', page)
    title = re.search(r"<title>(.*?)</title>", page, re.S)
    assert lang and title
    return lang.group(1), title.group(1)


def test_chinese_by_default_the_browser_decides_before_the_user(app: Flask) -> None:
    c = app.test_client()
    assert _lang(c) == ("zh-CN", "登录 · tablescan 裁判台")
    assert _lang(c, **{"Accept-Language": "fr-FR,fr"})[0] == "zh-CN"
    assert _lang(c, **{"Accept-Language": "en-GB,en;q=0.8"}) == ("en", "Log in · tablescan referee")
    assert _lang(c, **{"Accept-Language": "zh-CN,en;q=0.5"})[0] == "zh-CN"


def test_the_users_choice_is_remembered(app: Flask) -> None:
    c = app.test_client()
    token = login(c)
    resp = c.post("/lang", data={"lang": "en", "csrf_token": token, "next": "/health"})
    assert resp.status_code == 302 and resp.headers["Location"] == "/health"
    assert _lang(c, "/", **{"Accept-Language": "zh-CN"})[0] == "en"
    fresh = app.test_client()  # another device: the saved choice follows the user
    login(fresh)
    assert _lang(fresh, "/", **{"Accept-Language": "zh-CN"})[0] == "en"
    assert c.post("/lang", data={"lang": "xx", "csrf_token": token}).status_code == 400


def test_the_switch_works_before_login_by_cookie(app: Flask) -> None:
    c = app.test_client()
    page = c.get("/login").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert token
    c.post("/lang", data={"lang": "en", "csrf_token": token.group(1)})
    assert _lang(c)[0] == "en"


def test_the_overlay_is_chinese_unless_asked(app: Flask, hub: Any, clock: Clock) -> None:
    feed(hub, "t1", match_record()[:10], clock)
    token = app.extensions["dashboard.users"].new_overlay_token("t1")
    c = app.test_client()
    en = {"Accept-Language": "en"}
    assert _lang(c, f"/overlay/t1?token={token}", **en)[0] == "zh-CN"
    assert _lang(c, f"/overlay/t1?token={token}&lang=en")[0] == "en"


def test_every_rule_has_a_name_in_both_languages() -> None:
    penalties = set()
    for game in GAMES.values():
        for pid in game.profile_ids():
            rules = game.load_rules(pid)
            penalties |= set(getattr(rules, "penalties", {}) or {})
    missing = (set(REFEREE_RULES) | {p for p in penalties if isinstance(p, str)}) - set(RULE_NAMES)
    assert missing == set()


def test_rules_by_the_sheets_names_with_their_quotes(app: Flask, hub: Any, clock: Clock) -> None:
    feed(hub, "t1", match_record()[:30], clock)
    c = app.test_client()
    login(c)
    zh = c.get("/api/tables/t1/rules").get_json()["rules"]
    assert zh["failed_throw"]["name"] == "甩牌失败"
    assert zh["missed_pair"]["name"].startswith("有对必对")
    assert any("甩牌甩不掉" in q for q in zh["failed_throw"]["cites"])
    en = c.get("/api/tables/t1/rules", headers={"Accept-Language": "en"}).get_json()["rules"]
    assert en["failed_throw"]["name"] == "Failed throw"


def test_a_correction_previewed_applied_and_undone(app: Flask, hub: Any, clock: Clock) -> None:
    feed(hub, "t1", match_record()[:40], clock)
    c = app.test_client()
    token = login(c)
    h = {"X-CSRF-Token": token, "Accept-Language": "en"}
    view = hub.tables["t1"].view
    play = next(p for p in view["plays"] if len(p["cards"]) == 1 and p["cards"][0][:-1] in "6789")
    before = view["attacker_points"]
    n = len(hub.store.events("t1"))
    body = {"ref": play["seq"], "cards": "K" + play["cards"][0][-1]}
    pv = c.post("/api/tables/t1/corrections/preview", json=body, headers=h).get_json()
    assert len(hub.store.events("t1")) == n  # a preview stores nothing
    assert pv["before"]["attacker_points"] == before
    assert pv["after"]["attacker_points"] != before
    assert any(ch["what"] == "attacker_points" for ch in pv["changes"])
    resp = c.post("/api/tables/t1/corrections", json={**body, "why": "K"}, headers=h)
    seq = resp.get_json()["seq"]
    assert hub.tables["t1"].view["attacker_points"] == pv["after"]["attacker_points"]
    undo = c.post(f"/api/tables/t1/corrections/{seq}/undo", json={"why": "was a 7"}, headers=h)
    assert undo.status_code == 201
    assert hub.tables["t1"].view["attacker_points"] == before
    last = hub.store.events("t1")[-1]
    assert last["type"] == "correction" and last["cards"] == play["cards"]
    assert last["why"] == f"undo #{seq}: was a 7" and last["by"] == "ref1"
    again = c.post(f"/api/tables/t1/corrections/{seq}/undo", json={}, headers=h)
    assert again.status_code == 400 and "already undone" in again.get_json()["error"]
    hist = c.get("/api/tables/t1/corrections/history").get_json()["corrections"]
    assert [x["undoes"] for x in hist] == [None, seq]
    assert hist[0]["before"]["cards"] == play["cards"]
