"""The operating envelope (issue 26): the card height a capture mode gives, measured from the
markers of a rendered table frame, and the fixes named under the 120 px line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import cv2
import pytest

from tablescan.config import TableConfig, dump_config, load_config
from tablescan.envelope import measure, verdict
from tablescan.i18n import use
from tablescan.render_config import table_config
from vision.calibration import default_layout
from vision.synth.match_video import Camera, render_frames
from vision.synth.timeline import CARD_H, TABLE, Step, Timeline

ROOT = Path(__file__).resolve().parents[2]
START = {"type": "match_start", "game": "tractor", "profile": "standard", "seats": list("abcd")}


def table_frame(tmp: Path, size: tuple[int, int]) -> tuple[TableConfig, Any, Path]:
    """An empty rendered table (its markers on the cloth) at ``size``, and its config."""
    camera = Camera.random(3, size)
    tl = Timeline()
    tl.frames.append(Step([], None))
    image = next(render_frames(tl, cast(Any, None), 3, 4, camera))  # no card: no art drawn
    values = table_config(tmp / "t.mp4", START, None, camera, default_layout(4, TABLE, CARD_H))
    values["camera"] = {"width": size[0], "height": size[1]}
    path = tmp / f"t{size[0]}.toml"
    path.write_text(dump_config(values), encoding="utf-8")
    return load_config(path), image, path


@pytest.fixture(autouse=True)
def english() -> Any:
    yield use("en")
    use("zh_CN")


def test_a_720p_table_warns_and_names_the_fixes(tmp_path: Path) -> None:
    cfg, image, _ = table_frame(tmp_path, (1280, 720))
    env = measure(cfg, image)
    assert 80 < env.card_px < 110  # the "a 1280×720 capture gives about 85 px"
    assert set(env.markers) == {0, 1, 2, 3}
    level, text = verdict(env)
    assert level == "warn"
    assert "under 120 px" in text
    assert "width = 4608, height = 2592" in text  # a higher capture mode, with its height
    assert "a lower camera" in text and "a second overhead camera" in text


def test_the_same_table_at_2304_is_in_the_envelope(tmp_path: Path) -> None:
    low, low_image, _ = table_frame(tmp_path, (1280, 720))
    cfg, image, _ = table_frame(tmp_path, (2304, 1296))
    env = measure(cfg, image)
    level, text = verdict(env)
    assert level == "ok", text
    assert 150 < env.card_px < 200
    # measured on the small frame, stated for the big mode: the same height within 5%
    assert measure(low, low_image).at_mode((2304, 1296)) == pytest.approx(env.card_px, rel=0.05)


def test_the_configured_mode_not_the_frame_decides(tmp_path: Path) -> None:
    """A 720p test frame of a table configured for 4608×2592 states the 4608 mode's cards."""
    cfg, image, path = table_frame(tmp_path, (1280, 720))
    text = path.read_text(encoding="utf-8").replace("width = 1280", "width = 4608")
    path.write_text(text.replace("height = 720", "height = 2592"), encoding="utf-8")
    big = load_config(path)
    assert measure(big, image).card_px == pytest.approx(measure(cfg, image).card_px * 3.6)


def test_doctor_and_setup_print_the_cards_line(tmp_path: Path) -> None:
    _, image, path = table_frame(tmp_path, (1280, 720))
    shots = tmp_path / "camera"
    shots.mkdir()
    cv2.imwrite(str(shots / "f.png"), image)
    text = path.read_text().replace('uri = "t.mp4"', 'uri = "camera"')
    path.write_text(text, encoding="utf-8")
    env = {"TABLESCAN_LANG": "zh_CN", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "tablescan", "doctor", "--config", str(path), "--data",
         str(tmp_path), "--broker", "127.0.0.1:1"],
        capture_output=True, text=True, cwd=ROOT, timeout=60, env=env,
    )  # fmt: skip
    cards = next(line for line in done.stdout.splitlines() if " cards: " in line)
    assert cards.startswith("warn cards: ")
    assert "像素" in cards and "4608" in cards  # Chinese first, the fix named
    out = tmp_path / "new.toml"
    done = subprocess.run(
        [sys.executable, "-m", "tablescan", "setup", "--game", "80-points", "-o", str(out),
         "--source", str(shots), "--measure"],
        capture_output=True, text=True, cwd=ROOT, timeout=60, env={**env, "TABLESCAN_LANG": "en"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    last = done.stdout.splitlines()[-1]
    assert last.startswith(("ok   cards: ", "warn cards: ")), last
    assert "px high at 2304×1296" in last  # setup's default capture mode
