"""Draw docs/table-layout.png: the table plane ``tablescan setup`` writes, for 4 and 6 seats.

Run: ``python scripts/table_layout_png.py`` (matplotlib; the picture is committed).
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
from matplotlib.figure import Figure
from matplotlib.patches import Polygon, Rectangle

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tablescan.commands.setup import CARD_HEIGHT_MM, SEAT_NAMES  # noqa: E402
from vision.calibration import default_layout  # noqa: E402

SIZE, MARKER = 900.0, 70.0


def draw(ax, n: int, title: str) -> None:  # type: ignore[no-untyped-def]
    layout = default_layout(n, SIZE, CARD_HEIGHT_MM)
    ax.add_patch(Rectangle((0, 0), SIZE, SIZE, fill=False, lw=1.2, ls="--", ec="0.4"))
    for m in layout.masks:
        ax.add_patch(Polygon(m, closed=True, fc="0.85", ec="0.6", hatch="///", lw=0.5))
    for a in layout.areas:
        seat = a.seat is not None
        ax.add_patch(
            Polygon(a.polygon, closed=True, fc="#cfe8cf" if seat else "#f3dfb0", ec="k", lw=0.8)
        )
        cx = sum(p[0] for p in a.polygon) / len(a.polygon)
        cy = sum(p[1] for p in a.polygon) / len(a.polygon)
        label = f"seat {a.seat}\n{SEAT_NAMES[n][a.seat]}" if seat else "centre\n(bottom cards)"
        ax.text(cx, cy, label, ha="center", va="center", fontsize=7)
    for k, (x, y) in enumerate([(0, 0), (SIZE, 0), (SIZE, SIZE), (0, SIZE)]):
        ax.add_patch(Rectangle((x - MARKER / 2, y - MARKER / 2), MARKER, MARKER, fc="k"))
        ax.text(x, y, str(k), color="w", ha="center", va="center", fontsize=8, weight="bold")
    ax.text(SIZE / 2, -110, "top edge (markers 0 → 1)", ha="center", fontsize=7)
    ax.text(SIZE / 2, SIZE + 130, "bottom edge: seat 0 sits here", ha="center", fontsize=7)
    ax.set_xlim(-120, SIZE + 120)
    ax.set_ylim(SIZE + 150, -140)
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.set_title(title, fontsize=9)


def main() -> None:
    fig = Figure(figsize=(9, 4.8))
    draw(fig.add_subplot(1, 2, 1), 4, "80-points, 4 seats (seen from the camera)")
    draw(fig.add_subplot(1, 2, 2), 6, "Gouji, 6 seats")
    fig.text(
        0.5,
        0.02,
        f"Table plane {SIZE:g} mm between marker centres; green: seat play areas; yellow: centre;"
        " hatched: held hands, never read or stored. Play goes counter-clockwise.",
        ha="center",
        fontsize=7,
    )
    out = ROOT / "docs" / "table-layout.png"
    fig.savefig(out, dpi=80, metadata={"Software": None})
    print(f"wrote {out} ({out.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
