"""The demo's terminal speaks the user's language: a real ``tablescan demo`` on a rendered hand
(``--labels``, no dashboard) prints Chinese by default, no English word beyond the record's
seat names, file names and product names, and no raw Python dict; ``--lang en`` is English."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib

from tablescan.render import RenderResult
from tests.security.conftest import ENV

FLAGS = ("--labels", "--no-dashboard", "--speed", "0")


def demo(clip: RenderResult, *extra: str) -> str:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tablescan",
            "demo",
            "--video",
            str(clip.video),
            "--labels",
            "--no-dashboard",
            "--speed",
            "0",
            *extra,
        ],
        env={**ENV, "LANG": "C.UTF-8", "TABLESCAN_LANG": ""},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_the_demo_terminal_is_chinese(hand_clip: RenderResult) -> None:
    out = demo(hand_clip)
    table = tomllib.loads(hand_clip.table.read_text())["table"]
    allowed = {*table["seats"], *re.findall(r"[A-Za-z]+", hand_clip.video.name)}
    allowed |= {"tablescan", "mp4", table["profile"], "standard"}
    words = set(re.findall(r"[A-Za-z]{3,}", out)) - allowed
    assert not words, (sorted(words), out[-2000:])
    assert "{'" not in out, "no raw dict"
    assert "准确读出的出牌" in out


def test_the_demo_terminal_in_english(hand_clip: RenderResult) -> None:
    out = demo(hand_clip, "--lang", "en")
    assert "plays read exactly" in out and "{'" not in out
