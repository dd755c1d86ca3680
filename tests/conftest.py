"""Suite-wide: the CLI's text output is Chinese by default; the older CLI tests read its English
text, so the suite asks for English unless a test says otherwise (tests/test_cli_lang.py checks
the Chinese default and the switch)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

os.environ.setdefault("TABLESCAN_LANG", "en")

# Signing keys live outside the data folder (evidence.keys): the suite keeps its node and desk
# keys in one temporary folder of its own (subprocesses inherit it), never in ~/.config or /etc.
if "TABLESCAN_KEY_DIR" not in os.environ:
    import atexit
    import shutil
    import tempfile

    _keys = tempfile.mkdtemp(prefix="tablescan-test-keys-")
    os.environ["TABLESCAN_KEY_DIR"] = _keys
    atexit.register(shutil.rmtree, _keys, True)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One real Chromium per test module (screenshots go to ``SCREENS``)."""
    from playwright.sync_api import sync_playwright

    from tests.dashboard.browser import CHROMIUM, CHROMIUM_ARGS, SCREENS

    SCREENS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()
