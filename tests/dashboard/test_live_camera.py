"""The live camera and the table's health (static/live.js, tablescan.host_health): the table
page shows the node's latest masked frame and follows it as it changes; each hall tile shows
the frame and the health line (camera, frames/s, CPU °C from a thermal zone, free disk), in
Chinese and English at 390 and 1440 px; the frame is behind the login, and the overlay never
loads it. Screenshots: artifacts/screens/live-<lang>-<width>-<page>.png."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser

from dashboard.demo import render_frame
from dashboard.users import UserStore
from evidence.live import LiveFiles
from tablescan.host_health import cpu_temp_c, host_health
from tests.dashboard.browser import SCREENS
from tests.dashboard.test_screens import check_fits, close_site, login, make_site, open_page

TEXT = {
    "zh-CN": {"camera": "摄像头正常", "fps": "14.8 帧/秒", "disk": "磁盘剩余"},
    "en": {"camera": "camera ok", "fps": "14.8 frames/s", "disk": "disk"},
}


def thermal_zones(root: Path, zones: dict[str, int]) -> Path:
    """A sysfs-shaped thermal folder: ``thermal_zoneN/type`` and ``temp`` (millidegrees)."""
    for i, (kind, milli) in enumerate(zones.items()):
        zone = root / f"thermal_zone{i}"
        zone.mkdir(parents=True)
        (zone / "type").write_text(kind + "\n")
        (zone / "temp").write_text(f"{milli}\n")
    return root


def test_the_cpu_zone_is_read_and_a_machine_without_one_says_none(tmp_path: Path) -> None:
    root = thermal_zones(tmp_path / "t", {"gpu-thermal": 41000, "cpu-thermal": 52875})
    assert cpu_temp_c(root) == pytest.approx(52.875)
    assert cpu_temp_c(tmp_path / "none") is None
    got = host_health(tmp_path, tmp_path / "none")
    assert got["cpu_temp_c"] is None and got["disk_free_bytes"] > 0 < got["disk_total_bytes"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    data = tmp_path_factory.mktemp("live")
    s = make_site(data)
    thermal = thermal_zones(data / "thermal", {"cpu-thermal": 52875})
    LiveFiles(data).put_health(
        "t1",
        {"fps": 14.8, "camera": {"camera": "ok"}, "host": host_health(data, thermal)},
    )
    users = UserStore(data)
    s["token"] = users.new_overlay_token("t1", by="test")
    users.close()
    s["data"] = data
    yield s
    close_site(s)


@pytest.mark.parametrize("lang", ["zh-CN", "en"])
@pytest.mark.parametrize("width", [390, 1440])
def test_the_table_and_the_hall_show_the_camera_and_health(
    site: dict[str, Any], browser: Browser, lang: str, width: int
) -> None:
    url, live = site["server"].url, LiveFiles(site["data"])
    live.put_frame("t1", render_frame("live frame", ["AS", "KH"]))  # 640 × 480
    ctx, page, errors = open_page(browser, lang, width)
    try:
        login(page, url)
        page.goto(f"{url}/tables/t1")
        page.wait_for_function(
            "() => document.querySelector('#live-frame').naturalWidth === 640"
            " && !document.querySelector('#live-frame').hidden"
        )
        live.put_frame("t1", render_frame("next frame", ["2C"], w=800, h=450))
        page.wait_for_function(  # it follows the camera (about once a second)
            "() => document.querySelector('#live-frame').naturalWidth === 800", timeout=5000
        )
        check_fits(page, f"table {lang} {width}")
        page.screenshot(path=str(SCREENS / f"live-{lang}-{width}-table.png"), full_page=True)

        page.goto(url + "/")
        tile = page.locator("a.tcard[href='/tables/t1'] .tile-live")
        tile.locator(".health-line").wait_for()
        page.wait_for_function(
            "() => document.querySelector('a.tcard .tile-frame').naturalWidth === 800"
        )
        text = tile.locator(".health-line").inner_text()
        for want in (*TEXT[lang].values(), "53 °C"):
            assert want in text, (want, text)
        check_fits(page, f"hall {lang} {width}")
        page.screenshot(path=str(SCREENS / f"live-{lang}-{width}-hall.png"), full_page=True)
    finally:
        ctx.close()
    assert not errors


def test_the_frame_is_behind_the_login_and_never_on_the_overlay(site: dict[str, Any]) -> None:
    import urllib.error
    import urllib.request

    url, token = site["server"].url, site["token"]
    for path in ("/api/tables/t1/frame.jpg", f"/api/tables/t1/frame.jpg?token={token}"):
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(url + path, timeout=5)
        assert e.value.code == 401, path
        e.value.close()
    with urllib.request.urlopen(f"{url}/overlay/t1?token={token}", timeout=5) as resp:
        html = resp.read().decode()
    assert "live.js" not in html and "frame.jpg" not in html
    js = (Path(__file__).resolve().parents[2] / "dashboard/static/overlay.js").read_text()
    assert "frame.jpg" not in js
