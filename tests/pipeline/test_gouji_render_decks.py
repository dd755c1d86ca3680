"""A rendered Gouji match's table config says the decks its rules play (``deal.decks``), so a
replay's fusion allows as many copies of a face as the house's deal holds (the drawing is
stubbed: only the config is under test)."""

from __future__ import annotations

import tomllib
from collections.abc import Collection
from pathlib import Path
from typing import Any

import pytest

import tablescan.render_gouji as render_gouji
from engine.gouji.sim import simulate
from tablescan.config import ConfigError, dump_config, load_config
from vision.calibration import default_layout
from vision.synth.gouji_video import direct_gouji
from vision.synth.match_video import IMAGE_SIZE, Camera, DrawnMatch
from vision.synth.timeline import CARD_H, TABLE


def _no_video(
    events: list[dict[str, Any]],
    out: Path,
    seed: int,
    leads: Collection[int],
    sweepers: dict[int, int],
    split: str = "train",
    fps: float = 0.0,
    image_size: tuple[int, int] = IMAGE_SIZE,
    design: str | None = None,
) -> DrawnMatch:
    """``draw_gouji`` without the video: the timeline, a camera and the six-seat layout."""
    tl = direct_gouji(events, seed, leads, sweepers)
    layout = default_layout(6, TABLE, CARD_H)
    camera = Camera.random(seed, image_size)
    return DrawnMatch(out, out.with_suffix(".labels.jsonl"), 0, "stub", tl, camera, layout)


@pytest.mark.parametrize(("options", "decks"), [(None, 4), ({"deal.decks": 3}, 3)])
def test_the_rendered_config_plays_the_rules_decks(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, options: dict[str, int] | None, decks: int
) -> None:
    monkeypatch.setattr(render_gouji, "draw_gouji", _no_video)
    events, _ = simulate("gouji-core", 4, options=options)
    done = render_gouji.render_gouji(events, tmp_path / "match.mp4", 4)
    table = tomllib.loads(done.table.read_text(encoding="utf-8"))["table"]
    assert table["decks"] == decks and table["game"] == "gouji"
    cfg = load_config(done.table)  # what a replay of it reads: the decks and the house's options
    assert cfg.decks == decks and cfg.match_start().get("options") == options
    if options:  # a table that says 4 decks while its rules deal 3 is refused, naming the key
        raw = tomllib.loads(done.table.read_text(encoding="utf-8"))
        raw["table"]["decks"] = 4
        done.table.write_text(dump_config(raw), encoding="utf-8")
        with pytest.raises(ConfigError, match=r"table\.decks: 4, but the rules deal 3"):
            load_config(done.table)


def test_render_match_takes_a_house_option(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """``tablescan render-match --option deal.decks=3``: the record and the config say so."""
    from tablescan.cli import main
    from tablescan.render import read_truth

    monkeypatch.setattr(render_gouji, "draw_gouji", _no_video)
    out = tmp_path / "m.mp4"
    argv = ["render-match", "--profile", "gouji-core", "--hands", "1", "-o", str(out)]
    assert main([*argv, "--option", "deal.decks=3"]) == 0
    start = read_truth(tmp_path / "m.truth.jsonl")[0]
    assert start["type"] == "match_start" and start["options"] == {"deal.decks": 3}
    assert load_config(tmp_path / "m.table.toml").decks == 3
    assert main([*argv, "--option", "decks"]) == 2
    assert "expected SECTION.KEY=VALUE" in caplog.text
    assert main([*argv, "--option", "deal.decks=9"]) == 2
    assert "deal.decks" in caplog.text
    assert main(["render-match", "--option", "deal.decks=3", "-o", str(out)]) == 2
    assert "80-points simulator" in caplog.text
