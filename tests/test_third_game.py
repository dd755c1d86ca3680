"""A third game added in its own folder (``tests/toygame``) and the registry entry alone runs
through the whole house: ``tablescan judge``, a table node reading a rendered video with the
labels detector into a real store (its referee ending the deal, the node the match), and the
dashboard's table page in real Chromium. No file outside that folder names the game."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser

import engine.games
from dashboard.app import create_app
from dashboard.hub import Hub
from dashboard.users import UserStore
from evidence import EvidenceStore
from tablescan.cli import main
from tablescan.config import load_config
from tablescan.render import played, read_truth, render_match
from tablescan.wiring import build_node, chain_hooks, run_source, store_wiring
from tests.dashboard.browser import SCREENS, LiveServer
from tests.dashboard.conftest import FAST_HASH, PASSWORD
from tests.dashboard.test_screens import login, open_page
from tests.toygame import GAME
from vision.sources import open_source
from vision.synth.labels import LabelDetector

SEED = 3


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> engine.games.Game:
    """The toy game in the registry for this test only (the suite's other tests see two)."""
    monkeypatch.setitem(engine.games.GAMES, GAME.name, GAME)
    return GAME


def test_judge_takes_the_toy_games_record(
    toy: engine.games.Game, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "toy.jsonl"
    assert main(["simulate", "--profile", "toy-high", "--seed", str(SEED), "--revokes", "1",
                 "-o", str(record)]) == 0  # fmt: skip
    truth = json.loads(record.with_name("toy.truth.json").read_text(encoding="utf-8"))
    (cheat,) = truth["injected"]
    capsys.readouterr()
    assert main(["judge", str(record), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["game"] == "toy" and len(report["hands"][0]["won"]) == 3
    assert [(v["rule"], v["seat"], v["at_seq"]) for v in report["violations"]] == [
        ("wrong_count", cheat["seat"], cheat["seq"])
    ]
    assert main(["judge", str(record), "--lang", "en"]) == 0
    text = capsys.readouterr().out
    assert "toy match, profile toy-high" in text, text
    assert f"Wrong number of cards by seat {cheat['seat']}" in text, text  # engine.names
    assert main(["profiles"]) == 0
    assert "toy-high" in capsys.readouterr().out


def test_a_toy_table_is_read_judged_stored_and_shown(
    toy: engine.games.Game, tmp_path: Path, browser: Browser
) -> None:
    events, truth = toy.simulate("toy-high", SEED, inject=1)
    clip = render_match(
        events, tmp_path / "toy.mp4", SEED, split="eval", design="gnome/tango_nuevo"
    )
    cfg = load_config(clip.table)
    assert (cfg.game, len(cfg.seats)) == ("toy", toy.seats)
    data = tmp_path / "data"
    hooks, closers, _store = store_wiring(data, cfg)
    node = build_node(
        cfg, LabelDetector.beside(clip.video), chain_hooks(hooks), evidence_dir=tmp_path / "ev"
    )
    run_source(node, open_source(str(clip.video), cfg.fps), progress=False)
    for close in closers:
        close()
    # every play read as laid; the referee closed the deal, the node the match
    assert played(node.events) == played(read_truth(clip.truth))
    assert [e["type"] for e in node.events][-2:] == ["hand_end", "match_end"]
    (cheat,) = truth["injected"]
    (v,) = [r for r in node.rulings if r["kind"] == "violation"]
    at = next(e for e in node.events if e["seq"] == v["at_seq"])
    assert (v["rule"], v["seat"], len(at["cards"])) == ("wrong_count", cheat["seat"], 2)
    assert v["evidence"], "the ruling carries the frame that proves it"

    users = UserStore(data)
    users.add("ref1", "referee", PASSWORD, n=FAST_HASH)
    users.close()
    store = EvidenceStore(data, durable=False)
    hub = Hub(store, poll_s=0.02)
    server = LiveServer(create_app(data, hub=hub, SSE_PING_S=2.0))
    try:
        shown = table_page(browser, server.url, cfg.table_id)
    finally:
        hub.stop()
        server.close()
        store.close()
    assert all(name in shown["felt"] for name in cfg.seats), shown
    assert shown["tricks"] == "3" and "level" not in shown["match"], shown["match"]
    assert shown["rule"] and cfg.seats[v["seat"]] in shown["flags"], shown
    for word in ("trump", "banker", "Attackers", "Bottom"):
        assert word not in shown["main"], f"the toy table says {word!r}"
    assert not shown["errors"], shown["errors"]


def table_page(browser: Browser, url: str, table: str) -> dict[str, Any]:
    """The table page as a referee sees it (English, 1440 px)."""
    ctx, page, errors = open_page(browser, "en", 1440)
    login(page, url)
    page.goto(f"{url}/tables/{table}")
    page.wait_for_selector("#flags .flag b")
    page.wait_for_selector("#tricks-played")
    page.screenshot(path=str(SCREENS / "toy-game-table.png"), full_page=True)
    shown = {
        "felt": page.inner_text("#felt"),
        "flags": page.inner_text("#flags"),
        "rule": page.inner_text("#flags .flag b"),
        "tricks": page.inner_text("#tricks-played"),
        "match": page.inner_text("#match-over"),
        "main": page.inner_text("main"),
        "errors": errors,
    }
    ctx.close()
    return shown
