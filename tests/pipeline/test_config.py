"""table.toml: what render-match writes loads back; every problem names the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablescan.config import ConfigError, dump_config, load_config
from tablescan.render import RenderResult


def test_rendered_config_loads(clip: RenderResult) -> None:
    cfg = load_config(clip.table)
    assert cfg.seats == ("North", "West", "South", "East")
    assert cfg.calibration.method == "aruco"
    assert len(cfg.calibration.points) == 4
    assert {a.seat for a in cfg.areas if a.kind == "seat"} == {0, 1, 2, 3}
    assert len(cfg.masks) == 4
    assert cfg.match_start()["type"] == "match_start"


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "table.toml"
    p.write_text(text, encoding="utf-8")
    return p


def test_missing_file_and_bad_toml(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="file not found"):
        load_config(tmp_path / "nope.toml")
    with pytest.raises(ConfigError, match=r"table\.toml: not valid TOML"):
        load_config(write(tmp_path, "[table\n"))


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda c: c["table"].pop("profile"), r"table\.profile: missing"),
        (lambda c: c["table"].update(seats=["a", "b", "c"]), r"table\.seats: expected 4 or 6"),
        (lambda c: c["table"].update(game="poker"), r"table\.game: expected 'tractor'"),
        (lambda c: c["calibration"].update(method="guess"), r"calibration\.method"),
        (lambda c: c["calibration"].update(marker_ids=[0, 0, 1, 2]), r"marker_ids"),
        (lambda c: c["model"].update(min_score=2.0), r"model\.min_score"),
        (lambda c: c["areas"].pop(0), r"areas: expected exactly one seat area per seat"),
        (
            lambda c: c["areas"][1].update(polygon=[[0, 0], "x", [1, 1]]),
            r"areas\[1\]\.polygon\[1\]",
        ),
        (lambda c: c.pop("calibration"), r"calibration: missing table"),
        (lambda c: c["motion"].update(still_frames=0), r"motion\.still_frames"),
    ],
)
def test_errors_name_file_and_key(tmp_path: Path, clip: RenderResult, edit, message) -> None:  # type: ignore[no-untyped-def]
    import tomllib

    raw = tomllib.loads(clip.table.read_text(encoding="utf-8"))
    edit(raw)
    path = write(tmp_path, dump_config(raw))
    with pytest.raises(ConfigError, match=message) as info:
        load_config(path)
    assert str(path) in str(info.value)
