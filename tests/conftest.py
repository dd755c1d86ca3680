"""Suite-wide: the CLI's text output is Chinese by default; the older CLI tests read its English
text, so the suite asks for English unless a test says otherwise (tests/test_cli_lang.py checks
the Chinese default and the switch)."""

from __future__ import annotations

import os

os.environ.setdefault("TABLESCAN_LANG", "en")
