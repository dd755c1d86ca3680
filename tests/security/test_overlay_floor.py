"""Fault 7: the broadcast delay was the link holder's choice (``delay=0``, ``-5``, ``nan``
showed the play just made). Now a 30 s floor is on by default and no URL lowers it."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest

from dashboard.overlay import MIN_DELAY_S, effective_delay
from dashboard.users import UserStore
from tests.security.conftest import Served, seeded_data


def get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=10) as resp:
        return resp.status, resp.read().decode()


def test_no_url_lowers_the_default_floor(tmp_path: Path) -> None:
    data = seeded_data(tmp_path)
    token = UserStore(data).new_overlay_token("t1")
    with Served(data) as srv:
        base = f"{srv.url}/overlay/t1"
        for asked in ("0", "-5", "nan", "NaN", "-inf", "1e-9", "abc", ""):
            status, body = get(f"{base}/state?token={token}&delay={asked}")
            # every event arrived just now: 30 s ago there was nothing to show
            assert (status, json.loads(body)) == (200, None), asked
        _status, page = get(f"{base}?token={token}&delay=0")
        assert f'data-delay="{MIN_DELAY_S}"' in page


def test_the_operator_sets_the_floor(tmp_path: Path) -> None:
    data = seeded_data(tmp_path)
    token = UserStore(data).new_overlay_token("t1")
    with Served(data, "--overlay-min-delay", "0") as srv:
        _status, body = get(f"{srv.url}/overlay/t1/state?token={token}&delay=0")
        assert json.loads(body)["seq"] == 11  # the operator turned it off: live


@pytest.mark.parametrize(
    ("asked", "want"),
    [
        ("0", 30.0),
        ("-5", 30.0),
        ("nan", 30.0),
        ("inf", 30.0),
        ("7200", 3600.0),
        ("45", 45.0),
        (None, 30.0),
    ],
)
def test_effective_delay(asked: str | None, want: float) -> None:
    assert effective_delay(asked, 0.0, 30.0) == want
