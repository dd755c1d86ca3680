"""The calibration page finds the markers ``doctor`` finds: a real ``tablescan run --data`` on
a rendered six-seat Gouji deal (ArUco corners) shares the markers it sees in the raw frame,
since the frame it shares has the held hands, which reach the table corners, masked out.
Real Chromium at 390 and 1440 px, both languages: all four found, "use the markers" offered."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser

from dashboard.app import create_app
from dashboard.pages import find_markers
from dashboard.users import UserStore
from tablescan.config import load_config
from tablescan.render_gouji import GoujiRender
from tests.dashboard.browser import SCREENS, LiveServer
from tests.dashboard.conftest import FAST_HASH, PASSWORD
from tests.dashboard.test_screens import login, open_page
from tests.integration.test_hall_node import config_elsewhere, node


@pytest.fixture(scope="module")
def served(gouji_clip: GoujiRender, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    root = tmp_path_factory.mktemp("cal")
    config = config_elsewhere(
        gouji_clip,  # type: ignore[arg-type]
        root / "conf",
    )
    data = root / "data"
    done = node(config, data, root, "--max-frames", "30")
    assert done.returncode == 0, done.stderr[-3000:]
    users = UserStore(data)
    users.add("ref1", "referee", PASSWORD, n=FAST_HASH)
    users.close()
    server = LiveServer(create_app(data, SSE_PING_S=2.0))
    yield {"url": server.url, "data": data, "table": load_config(config).table_id}
    server.close()


def test_the_node_shares_the_markers_its_masked_frame_hides(served: dict[str, Any]) -> None:
    live = served["data"] / "live" / served["table"]
    shared = json.loads((live / "markers.json").read_text())
    assert [m["id"] for m in shared["found"]] == [0, 1, 2, 3]
    masked = find_markers((live / "frame.jpg").read_bytes(), "DICT_4X4_50")
    assert len(masked) < 4, "the shared frame hides markers: why the node shares them"


WORDS = {"zh-CN": "四个角标记都已找到", "en": "All four corner markers found"}


@pytest.mark.parametrize("width", [390, 1440])
@pytest.mark.parametrize("lang", list(WORDS))
def test_the_calibration_page_finds_all_four(
    served: dict[str, Any],
    browser: Browser,
    lang: str,
    width: int,
) -> None:
    ctx, page, errors = open_page(browser, lang, width)
    try:
        login(page, served["url"])
        page.goto(f"{served['url']}/tables/{served['table']}/calibration")
        page.wait_for_selector("circle.handle")
        assert WORDS[lang] in page.inner_text("#markers-msg")
        assert page.locator("#use-markers").is_visible()
        page.screenshot(
            path=str(SCREENS / f"{lang}-{width}-calibration-markers.png"), full_page=True
        )
        assert not errors, errors
    finally:
        ctx.close()
