"""Shared fixtures: the integration suite's short rendered hand (a real ``tablescan run`` can
judge it with the renderer's own labels) and helpers to start real processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.integration.conftest import hand_clip  # noqa: F401  (re-exported fixture)

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def tablescan(*args: str, **kw: object) -> subprocess.Popen[str]:
    """``python -m tablescan ARGS`` as a real subprocess (stdout/stderr piped, text)."""
    return subprocess.Popen(
        [sys.executable, "-m", "tablescan", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
        **kw,  # type: ignore[call-overload]
    )
