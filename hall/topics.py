"""The hall's topic names (Frigate style: ``tablescan/<hall>/<table>/<what>``).

Node → desk: ``events`` (QoS 1, every record event and ruling in stream order), ``state``
(retained summary + heartbeat), ``status`` (retained ``online``/``offline``, the Last Will),
``clip`` (QoS 1, each dispute clip's and evidence frame's bytes, ``hall.clips``),
``frame`` (QoS 0, retained, the live camera at a low rate, ``hall.live``).
Desk → node: ``decisions`` (QoS 1, referee decisions taken at the desk), ``resend`` (QoS 1,
``{"from": pos}``: the desk saw a gap).
"""

from __future__ import annotations

ROOT = "tablescan"
NODE_TOPICS = ("events", "state", "status", "clip", "frame")
DESK_TOPICS = ("decisions", "resend")


def topic(hall: str, table: str, what: str) -> str:
    return f"{ROOT}/{hall}/{table}/{what}"


def split(name: str) -> tuple[str, str, str] | None:
    """``tablescan/<hall>/<table>/<what>`` → (hall, table, what), else None."""
    parts = name.split("/")
    if len(parts) != 4 or parts[0] != ROOT:
        return None
    return parts[1], parts[2], parts[3]
