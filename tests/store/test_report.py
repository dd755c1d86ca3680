"""The dispute report: ``tablescan export`` on a match with a revoke writes ``report.html`` and
``report.pdf`` into the bundle; the PDF's pages (pdftoppm, pdftotext) show the frames and the
rule from the sheet; ``verify`` still catches a changed byte in the report. Page images go to
artifacts/report/ (git-ignored)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from dashboard.demo import render_frame
from dashboard.desk import register
from dashboard.hub import Hub
from engine.tractor.record_sim import simulate
from engine.tractor.rules import Rules
from evidence import EvidenceStore
from evidence.report import rule_quotes
from evidence.verify import verify_bundle

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "report"
EVENTS, TRUTH = simulate(Rules.load("school-2010"), seed=1, hands=1, inject=1, kinds=("revoke",))
REVOKE = TRUTH["injected"][0]  # seat 1 revokes at seq 8, proven by seq 12


def _tablescan(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "tablescan", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("dispute")
    store = EvidenceStore(data, durable=False)
    hub = Hub(store)
    register(store, "t1", by="test")  # the dashboard's desk referee judges this table
    for e in EVENTS:
        if e["type"] == "play":
            store.add_media(render_frame(f"seq {e['seq']}", e["cards"]), name=e["evidence"])
        store.append_event("t1", e)
    hub.poll()
    vid = next(v["id"] for v in hub.tables["t1"].view["violations"] if v["rule"] == "revoke")
    hub.append(
        "t1", {"type": "ruling", "ref": vid, "decision": "upheld", "by": "head1", "note": "清楚"}
    )
    store.close()
    out = data / "bundle.zip"
    done = _tablescan("export", "--match", "t1", "-o", str(out), "--data", str(data))
    assert done.returncode == 0, done.stderr
    assert "report.html + report.pdf" in done.stdout
    return out


def test_bundle_holds_the_report_and_verifies(bundle: Path) -> None:
    assert verify_bundle(bundle).ok, verify_bundle(bundle).summary()
    with zipfile.ZipFile(bundle) as zf:
        manifest = json.loads(zf.read("manifest.json"))
        page = zf.read("report.html").decode()
        assert zf.read("report.pdf").startswith(b"%PDF")
    assert {"report.html", "report.pdf"} <= set(manifest["files"])
    assert "revoke" in page and "打错牌（未跟花色）" in page and "head1" in page and "清楚" in page
    assert page.count("data:image/jpeg;base64,") >= 2  # where it happened, and the proof
    assert "data:image/png;base64," in page  # the timeline plot
    assert manifest["chain_tip"] in page
    assert "<link" not in page and "http://" not in page and "https://" not in page


def test_pdf_pages_show_the_frames_and_the_rule(bundle: Path, tmp_path: Path) -> None:
    with zipfile.ZipFile(bundle) as zf:
        pdf = zf.read("report.pdf")
    src = tmp_path / "report.pdf"
    src.write_bytes(pdf)
    text = subprocess.run(
        ["pdftotext", str(src), "-"], capture_output=True, text=True, check=True
    ).stdout
    quotes = rule_quotes("tractor", "school-2010", "revoke")
    assert quotes, "school-2010 cites its follow rule"
    flat = "".join(text.split())
    assert "".join(quotes[0].split())[:12] in flat, "the sheet's words are on the page"
    assert "争议报告" in flat and "证据链摘要" in flat
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["pdftoppm", "-r", "60", "-png", str(src), str(ARTIFACTS / "report-page")], check=True
    )
    pages = sorted(ARTIFACTS.glob("report-page*.png"))
    assert 1 <= len(pages) <= 8
    # the frames (green cloth) are printed: a large block of the table's green on some page
    greens = []
    for p in pages:
        img = cv2.imread(str(p))
        g = (img[:, :, 1] > 70) & (img[:, :, 1] < 130) & (img[:, :, 2] < 70) & (img[:, :, 0] < 60)
        greens.append(int(np.count_nonzero(g)))
    assert max(greens) > 5000, greens
    # and no page is blank
    for p in pages:
        assert np.count_nonzero(cv2.imread(str(p), cv2.IMREAD_GRAYSCALE) < 200) > 500, p


def test_pdf_is_a4_and_names_the_rule_hand_penalty_and_key_as_the_cli(
    bundle: Path, tmp_path: Path
) -> None:
    """Issue 30: A4, the rule by engine.names' name (as the dashboard and the CLI), the hand's
    number, the penalty note in Chinese and the key id ``verify`` prints."""
    with zipfile.ZipFile(bundle) as zf:
        pdf, page = zf.read("report.pdf"), zf.read("report.html").decode()
        manifest = json.loads(zf.read("manifest.json"))
    src = tmp_path / "report.pdf"
    src.write_bytes(pdf)
    info = subprocess.run(["pdfinfo", str(src)], capture_output=True, text=True, check=True)
    size = next(line for line in info.stdout.splitlines() if line.startswith("Page size"))
    assert size.endswith("(A4)"), size  # not US Letter (612 x 792 pts)
    text = subprocess.run(
        ["pdftotext", str(src), "-"], capture_output=True, text=True, check=True
    ).stdout
    flat = "".join(text.split())
    assert "打错牌（未跟花色）" in flat and "不跟花色（垫牌违例）" not in flat
    assert "missed pair" not in text.lower() and "not stated" not in text
    assert "规则未作规定，由裁判决定" in flat  # school-2010 leaves a revoke's penalty open
    assert "未跟花色：1张未出方块" in flat  # the engine's reason, in Chinese
    assert "副</th><td>1</td>" in page  # the hand's number, not "–"
    checked = _tablescan("verify", "--lang", "zh", str(bundle))
    key = checked.stdout.split("节点密钥 ")[-1].split()[0]
    assert len(key) == 16 and key in flat, checked.stdout
    assert manifest["public_key"] not in page  # only the id verify prints, never another hex
    # verify: which rows the bundle holds and how far the node signed, in one clear sentence
    assert "行已核对（行号 " in checked.stdout and "签名了节点的整条链，至第" in checked.stdout
    en = _tablescan("verify", "--lang", "en", str(bundle)).stdout
    assert "chained rows checked (row ids " in en and "signed the node's chain up to row" in en


def test_timeline_labels_are_chinese_and_never_overlap() -> None:
    """Many violations a trick apart: each rule's Chinese name in the CJK font, no two labels
    sharing pixels (a missing glyph is a warning, and warnings are errors)."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from evidence.report import cjk_rc, timeline_figure

    events, _ = simulate(
        Rules.load("school-2010"), seed=3, hands=1, inject=6, kinds=("revoke", "missed_pair")
    )
    from engine.games import referee_for

    ref = referee_for(events[0])
    rulings = [r for e in events for r in ref.feed(e)]
    rulings += [
        {"kind": "violation", "rule": rule, "at_seq": seq}
        for seq, rule in ((9, "missed_pair"), (10, "missed_tractor"), (13, "wrong_count"))
    ]
    rc: Any = cjk_rc()
    with matplotlib.rc_context(rc):
        fig = timeline_figure(events, rulings, "zh")
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        renderer = canvas.get_renderer()
        labels = [t for t in fig.axes[0].texts]
        boxes = [t.get_window_extent(renderer) for t in labels]
    texts = [t.get_text() for t in labels]
    assert "有对必对（有对未跟对）" in texts and "打错牌（未跟花色）" in texts, texts
    assert fig.axes[0].get_title() == "比赛时间线"
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert not a.overlaps(b), (a, b)


def test_a_changed_byte_in_the_report_is_caught(bundle: Path, tmp_path: Path) -> None:
    with zipfile.ZipFile(bundle) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    for name in ("report.html", "report.pdf"):
        body = bytearray(members[name])
        body[len(body) // 2] ^= 0x01
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            for n, data in members.items():
                zf.writestr(n, bytes(body) if n == name else data)
        bad = tmp_path / f"bad-{name}.zip"
        bad.write_bytes(buf.getvalue())
        report = verify_bundle(bad)
        assert not report.ok and name in report.summary()
    raw = bytearray(bundle.read_bytes())
    with zipfile.ZipFile(bundle) as zf:
        info = zf.getinfo("report.html")
    raw[info.header_offset + 40] ^= 0x20  # inside the report's zip entry itself
    (tmp_path / "flip.zip").write_bytes(bytes(raw))
    assert not verify_bundle(tmp_path / "flip.zip").ok


def test_english_report(bundle: Path, tmp_path: Path) -> None:
    from evidence.report import build_report

    with zipfile.ZipFile(bundle) as zf:
        files = {n: zf.read(n) for n in zf.namelist()}
    page = build_report(files, {"match": "t1", "table": "t1"}, lang="en")
    assert "Dispute report" in page and "What the sheet says" in page and "争议报告" not in page


def referee_report(events: list[dict[str, Any]]) -> dict[str, Any]:
    from engine.games import referee_for

    ref = referee_for(events[0])
    for e in events:
        ref.feed(e)
    return ref.report()


def _report(events: list[dict[str, Any]], lang: str) -> str:
    """The report of ``events`` with the rulings their judge gives (as the store keeps them)."""
    from engine.games import referee_for
    from evidence.report import build_report

    ref = referee_for(events[0])
    rulings = [r for e in events for r in ref.feed(e)]
    files = {
        "record.jsonl": "".join(json.dumps(e) + "\n" for e in events).encode(),
        "rulings.jsonl": "".join(json.dumps(r) + "\n" for r in rulings).encode(),
    }
    return build_report(files, {"match": "x:1", "table": "x", "exported_at": 0}, lang)


@pytest.mark.parametrize(
    ("lang", "over", "won"), [("zh", "比赛结束", "胜局"), ("en", "Match over", "deals won")]
)
def test_the_report_shows_a_gouji_match_deal_by_deal_and_its_result(
    lang: str, over: str, won: str
) -> None:
    from engine.gouji.referee import GoujiReferee
    from engine.gouji.rules import Rules as GoujiRules
    from tablescan.render_gouji import simulated_deals

    events: list[dict[str, Any]] = list(simulated_deals("gouji-qingdao", 4, 3))
    ref = GoujiReferee(GoujiRules.load("gouji-qingdao"))
    for e in events[:-1]:
        ref.feed(e)
    events[-1] = {**events[-1], "result": ref.match_result()}
    page = _report(events, lang)
    deals = page[page.index('id="match-deals"') :].split("</table>")[0]
    assert deals.count("<tr><td>") == 3 and deals.count("头科 ") == 3
    first = ref.report()["hands"][0]["finishing_order"][0]
    assert f"头科 {events[0]['seats'][first]}" in deals
    state = page[page.index('id="match-state"') :].split("</p>")[0]
    assert over in state and won in state


def test_the_report_shows_an_unfinished_80_points_match_with_its_levels() -> None:
    page = _report([e for e in EVENTS if e["type"] != "match_end"], "en")
    assert "Match not over" in page
    deals = page[page.index('id="match-deals"') :].split("</table>")[0]
    assert "Levels after" in deals and deals.count("<tr><td>") == 1
    banker = next(h["banker"] for h in referee_report(EVENTS)["hands"])
    assert f"<td>1</td><td>{EVENTS[0]['seats'][banker]}</td>" in deals  # the judge's banker


def test_a_reopened_match_is_not_over_in_the_report() -> None:
    """Issue 30: a head referee's ``match_reopen`` after the ``match_end``: the match goes on."""
    over = [*EVENTS]
    assert over[-1]["type"] == "match_end"
    reopened = [*over, {"v": 1, "seq": len(over), "t": 9999.0, "type": "match_reopen", "by": "h"}]
    assert "比赛结束" in _report(over, "zh")
    page = _report(reopened, "zh")
    state = page[page.index('id="match-state"') :].split("</p>")[0]
    assert "比赛未结束" in state and "比赛结束" not in state
