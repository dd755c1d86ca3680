"""``tablescan config check`` and the generated reference: the schema is the one contract."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tablescan import config_doc

ROOT = Path(__file__).resolve().parents[2]


def test_reference_doc_is_generated_from_the_schema() -> None:
    committed = (ROOT / "docs" / "table-config.md").read_text(encoding="utf-8")
    assert committed == config_doc.render(), "run: python -m tablescan.config_doc"
    for key in ("sure_score", "recheck_frames", "weak_read", "lost_after_s", "width"):
        assert f"| `{key}` |" in committed


def check(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tablescan", "config", "check", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )


def test_config_check_names_the_misspelt_key_and_its_line(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(
        '[table]\ngame = "gouji"\nidd = "t1"\nprofile = "gouji-abqu"\n'
        'seats = ["a", "b", "c", "d", "e", "f"]\n\n[calibration]\nmethod = "aruco"\n'
        "table_size = [900, 900]\n\n[source]\nfps = 0\n",
        encoding="utf-8",
    )
    done = check(path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"{path}:3: table.idd: unknown key; did you mean 'id'?",
        f"{path}:12: source.fps: must be greater than 0, got 0",
        f"{path}: areas: missing",
    ]
    assert "Traceback" not in done.stderr
