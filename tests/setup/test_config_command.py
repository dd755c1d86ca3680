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


def test_config_check_refuses_a_four_seat_gouji_table_and_a_missing_model(tmp_path: Path) -> None:
    from tablescan.config import dump_config, layout_tables
    from vision.calibration import default_layout

    def table(game: str, profile: str, seats: int, model: str | None) -> Path:
        raw: dict[str, object] = {
            "table": {"id": "t1", "game": game, "profile": profile,
                      "seats": [f"P{i}" for i in range(seats)]},
            "calibration": {"method": "aruco", "table_size": [900.0, 900.0]},
            **layout_tables(default_layout(seats)),
        }  # fmt: skip
        if model is not None:
            raw["model"] = {"path": model}
        path = tmp_path / f"{game}-{seats}.toml"
        path.write_text(dump_config(raw), encoding="utf-8")
        return path

    done = check(table("gouji", "gouji-abqu", 4, None))
    assert done.returncode == 2
    assert "table.seats: a gouji table has 6 seats, got 4" in done.stderr
    done = check(table("tractor", "standard", 4, "no-such.onnx"))
    assert done.returncode == 2
    assert "model.path: no such file" in done.stderr and "no-such.onnx" in done.stderr
    assert check(table("gouji", "gouji-abqu", 6, None)).returncode == 0
