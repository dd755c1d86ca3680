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
    with pytest.raises(ConfigError, match=r"table\.toml:1: not valid TOML"):
        load_config(write(tmp_path, "[table\n"))


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda c: c["table"].pop("profile"), r"table\.profile: missing"),
        (lambda c: c["table"].update(seats=["a", "b", "c"]), r"table\.seats: expected 4 or 6"),
        (
            lambda c: c["table"].update(game="poker"),
            r"table\.toml:3: table\.game: unknown game 'poker' \(known: tractor, gouji\)",
        ),
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
        (lambda c: c["table"].update(options={"no.such": 1}), r"table\.options: .*no\.such"),
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


def test_misspelt_key_is_refused_with_did_you_mean_and_line(
    tmp_path: Path, clip: RenderResult
) -> None:
    text = clip.table.read_text(encoding="utf-8").replace("\nid = ", "\nidd = ", 1)
    line = next(i for i, t in enumerate(text.splitlines(), 1) if t.startswith("idd = "))
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == f"{path}:{line}: table.idd: unknown key; did you mean 'id'?"


def test_unknown_section_and_nested_key(tmp_path: Path, clip: RenderResult) -> None:
    text = clip.table.read_text(encoding="utf-8") + "\n[moton]\nstill_frames = 3\n"
    text = text.replace("marker_size =", "marker_sise =")
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    lines = str(info.value).splitlines()
    assert any(
        ln.startswith(f"{path}:") and ln.endswith("calibration.marker_sise: unknown key; "
        "did you mean 'marker_size'?") for ln in lines
    )  # fmt: skip
    assert any(ln.endswith("moton: unknown key; did you mean 'motion'?") for ln in lines)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace('profile = "standard"', 'profile = "nonesuch"'),
         r":\d+: table\.profile: unknown profile 'nonesuch' \(tractor: standard"),
        (lambda t: t.replace('profile = "standard"', 'profile = "gouji-abqu"'),
         r":\d+: table\.profile: 'gouji-abqu' is a gouji profile, but table\.game is 'tractor'"),
        (lambda t: t.replace("fps = 20.0", "fps = 0"),
         r":\d+: source\.fps: must be greater than 0, got 0$"),
        (lambda t: t.replace('id = "clip"', 'id = "../x"'),
         r":\d+: table\.id: '\.\./x' is not a table id"),
        (lambda t: t.replace("still_frames = 2", "still_frames = 0"),
         r":\d+: motion\.still_frames: must be between 1 and 100, got 0$"),
    ],
)  # fmt: skip
def test_one_line_errors(tmp_path: Path, clip: RenderResult, edit, message) -> None:  # type: ignore[no-untyped-def]
    text = clip.table.read_text(encoding="utf-8")
    changed = edit(text)
    assert changed != text
    path = write(tmp_path, changed)
    with pytest.raises(ConfigError, match=message) as info:
        load_config(path)
    assert len(str(info.value).splitlines()) == 1
    assert str(info.value).startswith(f"{path}:")


def test_binary_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00")
    with pytest.raises(ConfigError, match=r"table\.toml: a binary file, not a table\.toml"):
        load_config(path)
    path.write_bytes(b'[table]\nid = "\xff\xfe"\n')
    with pytest.raises(ConfigError, match=r"table\.toml:2: not UTF-8 text"):
        load_config(path)


def test_tuning_knobs_have_their_defaults_and_are_read(tmp_path: Path, clip: RenderResult) -> None:
    cfg = load_config(clip.table)
    assert (cfg.sure_score, cfg.recheck_frames, cfg.weak_read) == (0.85, 2, 0.2)
    assert cfg.camera_size == (2304, 1296)
    text = clip.table.read_text(encoding="utf-8")
    text += "\n[reading]\nsure_score = 0.9\nrecheck_frames = 3\nweak_read = 0.25\n"
    text += "\n[camera]\nwidth = 1280\nheight = 720\n"
    cfg = load_config(write(tmp_path, text))
    assert (cfg.sure_score, cfg.recheck_frames, cfg.weak_read) == (0.9, 3, 0.25)
    assert cfg.camera_size == (1280, 720)


def test_setup_then_check_then_run_on_a_rendered_video(clip: RenderResult, tmp_path: Path) -> None:
    """The technician's path: ``setup`` writes the file, ``config check`` accepts it, ``run``
    judges the hand with it (a rendered video stands in for the camera)."""
    import json
    import subprocess
    import sys

    from tablescan.render import played, read_truth
    from vision.synth.match_video import MARKER_SIZE
    from vision.synth.timeline import CARD_H, TABLE

    repo = Path(__file__).resolve().parents[2]
    cfg_path = tmp_path / "clip.toml"

    def tablescan(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "tablescan", *argv],
            capture_output=True, text=True, cwd=repo, timeout=180, check=False,
        )  # fmt: skip

    done = tablescan(
        "setup", "--game", "80-points", "--seats", "4", "-o", str(cfg_path),
        "--source", str(clip.video), "--table-size", str(TABLE),
        "--marker-size", str(MARKER_SIZE), "--card-height", str(CARD_H),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert tablescan("config", "check", str(cfg_path)).returncode == 0
    out = tmp_path / "record.jsonl"
    ran = tablescan(
        "run", "--config", str(cfg_path), "--detector", "labels", "-o", str(out),
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    events = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert played(events) == played(read_truth(clip.truth))
