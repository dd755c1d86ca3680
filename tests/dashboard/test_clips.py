"""Clips (tablescan.clips): a rendered hand with a revoke, read by a real node into a real
store, gives the violation and the referee prompt each a WebM clip of the seconds around its
play: a ``clip`` media row in the hash chain that OpenCV decodes (frames, duration), that the
violations and corrections pages show as a ``<video>`` Chromium plays, and that the dispute
bundle holds. Screenshots: artifacts/screens/clips-<lang>-<width>-<page>.png."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import pytest
from playwright.sync_api import Browser

from dashboard.app import create_app
from dashboard.hub import Hub
from dashboard.users import UserStore
from engine.tractor.record_sim import simulate
from engine.tractor.rules import Rules
from evidence import EvidenceStore
from evidence.export import export_bundle
from evidence.verify import verify_store
from tablescan import clips
from tablescan.render import render_match
from tablescan.wiring import TableApp
from tests.dashboard.browser import SCREENS, LiveServer
from tests.dashboard.conftest import FAST_HASH, PASSWORD
from tests.dashboard.test_screens import login, open_page
from tests.integration.conftest import DESIGN
from vision.synth.labels import LabelDetection, LabelDetector

EVENTS, TRUTH = simulate(Rules.load("school-2010"), seed=1, hands=1, inject=1, kinds=("revoke",))
REVOKE = TRUTH["injected"][0]  # seat 1 revokes at seq 8, proven by seq 12
LAST_PLAY = REVOKE["proven_by_seq"] + 2  # a few plays after the proof: seconds to clip
DOUBTED = next(e for e in EVENTS if e["type"] == "play" and e["seq"] == REVOKE["at_seq"] + 1)


class Doubting(LabelDetector):
    """The renderer's labels, one card (of the play after the revoke) read low: a referee
    prompt."""

    card = DOUBTED["cards"][0]

    def detect(self, image: Any) -> list[LabelDetection]:
        return [
            LabelDetection(d.card, 0.3, d.quad) if d.card == self.card else d
            for d in super().detect(image)
        ]


class DoubtingApp(TableApp):
    def init_detector(self) -> None:
        assert self.video is not None
        self.recognizer = Doubting(self.video.with_name(self.video.stem + ".labels.jsonl"))


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The hand rendered up to a few plays after the proof, then run through the node."""
    root = tmp_path_factory.mktemp("clips")
    events = [e for e in EVENTS if e["type"] != "play" or e["seq"] <= LAST_PLAY]
    rendered = render_match(events, root / "hand.mp4", 1, split="eval", design=DESIGN)
    data = root / "data"
    users = UserStore(data)
    users.add("ref1", "referee", PASSWORD, n=FAST_HASH)
    users.close()
    app = DoubtingApp(rendered.table, video=rendered.video, data=data)
    app.start()
    try:
        app.run(progress=False)
    finally:
        app.stop()
    assert app.clips is not None
    store = EvidenceStore(data)
    hub = Hub(store, poll_s=0.02)
    server = LiveServer(create_app(data, hub=hub, SSE_PING_S=2.0))
    try:
        yield {"data": data, "store": store, "table": app.cfg.table_id, "url": server.url}
    finally:
        hub.stop()
        server.close()
        store.close()


def _frames(path: Path) -> tuple[int, float]:
    """The frames OpenCV decodes from a clip file, and its frame rate."""
    video = cv2.VideoCapture(str(path))
    frames = 0
    while video.read()[0]:
        frames += 1
    fps = float(video.get(cv2.CAP_PROP_FPS))
    video.release()
    return frames, fps


def _by_kind(store: EvidenceStore, table: str) -> dict[str, Any]:
    events = store.events(table)
    rulings = [r.data for r in store.rows(table=table, kind="ruling")]
    violation = next(r for r in rulings if r["kind"] == "violation" and r["rule"] == "revoke")
    proof = next(e for e in events if e["seq"] == violation["proven_by_seq"])
    prompt = next(e for e in events if e["type"] == "needs_referee")
    return {"violation": violation, "proof": proof, "prompt": prompt}


def test_a_violation_and_a_prompt_each_get_a_clip_in_the_chain(judged: dict[str, Any]) -> None:
    store, table = judged["store"], judged["table"]
    found = _by_kind(store, table)
    kept = {m["name"]: m for m in store.media_of(table, "clip")}
    for what, ev, seq in (
        ("violation", found["proof"], found["proof"]["seq"]),
        ("prompt", found["prompt"], found["prompt"]["ref"]),  # the play it doubts
    ):
        name = f"{ev['evidence']}-clip"
        assert name in kept, f"{what}: no clip named {name} in {sorted(kept)}"
        clip = kept[name]
        assert clip["seq"] == seq and clip["relpath"].endswith(".webm")
        path = store.media_path(clip["sha256"])
        assert path is not None
        frames, fps = _frames(path)
        assert fps == clips.CLIP_FPS
        # the seconds before and after the play (the clip's middle), at CLIP_FPS
        assert frames >= (clips.BEFORE_S + clips.AFTER_S) * fps - 2, (what, frames)
        assert 5.0 <= frames / fps <= clips.BEFORE_S + clips.AFTER_S + 0.5
    chained = {r.data["sha256"] for r in store.rows(kind="media") if r.data.get("kind") == "clip"}
    assert chained == {m["sha256"] for m in kept.values()}
    assert not list((judged["data"] / "spool" / table).glob("*.webm"))  # spooled, then removed
    report = verify_store(judged["data"])
    assert report.ok, report.problems


def test_the_dispute_bundle_holds_the_clip(judged: dict[str, Any], tmp_path: Path) -> None:
    store, table = judged["store"], judged["table"]
    found = _by_kind(store, table)
    clip = next(m for m in store.media_of(table, "clip") if m["seq"] == found["proof"]["seq"])
    out = tmp_path / "bundle.zip"
    export_bundle(store, table, out, violation=found["violation"]["id"], report=False)
    with zipfile.ZipFile(out) as z:
        names = set(z.namelist())
        manifest = json.loads(z.read("manifest.json"))
        member = f"media/{clip['sha256']}.webm"
        assert member in names and member in manifest["files"]
        body = z.read(member)
    assert len(body) == clip["size"]
    copy = tmp_path / "from-bundle.webm"
    copy.write_bytes(body)
    assert _frames(copy)[0] >= 2  # the bundle's copy decodes on its own


@pytest.mark.parametrize(("lang", "width"), [("zh-CN", 390), ("en", 1440)])
def test_the_pages_show_a_clip_chromium_plays(
    judged: dict[str, Any], browser: Browser, lang: str, width: int
) -> None:
    url, table = judged["url"], judged["table"]
    found = _by_kind(judged["store"], table)
    ctx, page, errors = open_page(browser, lang, width)
    try:
        login(page, url)
        for where, ev, host in (
            ("violations", found["proof"], f".viol[data-violation='{found['violation']['id']}']"),
            ("corrections", found["prompt"], f".prompt[data-ref='{found['prompt']['ref']}']"),
        ):
            page.goto(f"{url}/tables/{table}/{where}")
            video = page.locator(f"{host} figure.clip[data-clip='{ev['evidence']}'] video")
            video.first.wait_for()
            got = video.first.evaluate(
                """async (v) => {
                    if (v.readyState < 1) await new Promise((ok) => v.addEventListener(
                        'loadedmetadata', ok, { once: true }));
                    await v.play();
                    await new Promise((ok) => setTimeout(ok, 600));
                    return { ready: v.readyState, duration: v.duration, at: v.currentTime,
                             width: v.videoWidth, paused: v.paused };
                }"""
            )
            assert got["ready"] >= 2 and got["width"] > 0, (where, got)
            assert 5.0 <= got["duration"] <= clips.BEFORE_S + clips.AFTER_S + 0.5, (where, got)
            assert got["at"] > 0, (where, got)  # it plays
            page.screenshot(path=str(SCREENS / f"clips-{lang}-{width}-{where}.png"), full_page=True)
        page.goto(f"{url}/tables/{table}")
        page.locator("#clips-panel figure.clip video").first.wait_for()
        shown = min(3, len(judged["store"].media_of(table, "clip")))  # the latest three
        assert page.locator("#clips-panel figure.clip").count() == shown >= 2
        page.screenshot(path=str(SCREENS / f"clips-{lang}-{width}-table.png"), full_page=True)
    finally:
        ctx.close()
    assert not errors
