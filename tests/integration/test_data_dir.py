"""``tablescan run --data D``: everything the node writes lives in D (the record is the store,
evidence JPEGs are spooled and removed once stored, logs rotate under D/logs); nothing is
written beside the config, beside the video or in the current folder."""

from __future__ import annotations

import json
from pathlib import Path

from evidence.store import EvidenceStore
from tablescan.config import load_config
from tablescan.render import RenderResult
from tests.integration.test_hall_node import config_elsewhere, node


def files(*roots: Path) -> set[Path]:
    return {p for r in roots for p in r.rglob("*") if p.is_file()}


def test_run_with_data_writes_only_under_data(hand_clip: RenderResult, tmp_path: Path) -> None:
    config = config_elsewhere(hand_clip, tmp_path / "conf")
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    data = tmp_path / "data"
    watched = (config.parent, cwd, hand_clip.video.parent)
    before = files(*watched)
    done = node(config, data, cwd)
    assert done.returncode == 0, done.stderr[-3000:]
    assert files(*watched) == before  # no <id>.jsonl beside the config, no ./evidence
    table = load_config(config).table_id
    printed = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    store = EvidenceStore(data)
    try:
        assert [e["seq"] for e in store.events(table)] == [e["seq"] for e in printed]
        assert store.media_index(), "the evidence JPEGs are in the store"
    finally:
        store.close()
    assert not list((data / "spool").rglob("*.jpg")), "spooled evidence is removed once stored"
    log = (data / "logs" / f"{table}.log").read_text()
    assert "stopped:" in log


def test_o_writes_the_record_copy_only_where_asked(hand_clip: RenderResult, tmp_path: Path) -> None:
    config = config_elsewhere(hand_clip, tmp_path / "conf")
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    copy = tmp_path / "out" / "record.jsonl"
    copy.parent.mkdir()
    done = node(config, tmp_path / "data", cwd, "--max-frames", "40", "-o", str(copy))
    assert done.returncode == 0, done.stderr[-3000:]
    assert files(config.parent, cwd) == {config}
    assert copy.read_text().count("\n") >= 1
