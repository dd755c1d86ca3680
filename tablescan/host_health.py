"""The node machine's own health for the hall page: the CPU temperature (a Pi throttles at
80-85 °C and then drops frames) and the data folder's disk. Read from sysfs and statvfs,
cheap enough for every health write; absent on a machine without a thermal zone (None)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

THERMAL = Path("/sys/class/thermal")
CPU_ZONES = ("cpu-thermal", "cpu_thermal", "x86_pkg_temp", "soc_thermal")  # Pi 4/5 first


def cpu_temp_c(root: Path = THERMAL) -> float | None:
    """The CPU zone's temperature in °C (millidegrees in sysfs), else the first zone's."""
    zones = sorted(root.glob("thermal_zone*"))
    ranked = sorted(zones, key=lambda z: _zone_type(z) not in CPU_ZONES)
    for zone in ranked:
        try:
            return int((zone / "temp").read_text().strip()) / 1000.0
        except (OSError, ValueError):
            continue
    return None


def _zone_type(zone: Path) -> str:
    try:
        return (zone / "type").read_text().strip()
    except OSError:
        return ""


def host_health(data: Path, thermal: Path = THERMAL) -> dict[str, Any]:
    """``{"cpu_temp_c", "disk_free_bytes", "disk_total_bytes"}`` for the node's health file."""
    out: dict[str, Any] = {"cpu_temp_c": cpu_temp_c(thermal)}
    try:
        disk = shutil.disk_usage(data)
        out.update(disk_free_bytes=disk.free, disk_total_bytes=disk.total)
    except OSError:
        out.update(disk_free_bytes=None, disk_total_bytes=None)
    return out
