"""``tablescan markers -o markers.pdf``: the four ArUco calibration markers at true size on A4.

The markers are those the config's calibration looks for (dictionary, ids, side); with
``--config`` they come from that table.toml. Up to 85 mm they share one page, laid out as they
sit on the table (id of the top-left corner at the top left, and so on); larger, one a page.
Print at 100 % ("actual size"); the 100 mm bar checks it. Each marker has dashed cut lines
and, on all four sides, a tick on its centre lines: the ticks' crossing is the point that goes
on the table corner, and it can be lined up after the marker is cut out. The words are in the
CLI's language (``--lang``; Chinese first, in the project's CJK font).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

from tablescan.i18n import _, add_lang_option, choose, use

A4 = (210.0, 297.0)  # mm
MM_PER_INCH = 25.4
GRID_MAX = 85.0  # largest marker side (mm) that fits four to a page


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("markers", help="print the calibration markers at true size (A4 PDF)")
    p.add_argument("-o", "--output", type=Path, required=True, metavar="FILE.pdf")
    p.add_argument("--config", type=Path, default=None, help="take the markers from this file")
    p.add_argument("--dictionary", default="DICT_4X4_50")
    p.add_argument("--ids", type=int, nargs=4, default=[0, 1, 2, 3], metavar="ID")
    p.add_argument("--size", type=float, default=70.0, metavar="MM", help="marker side (mm)")
    add_lang_option(p)
    p.set_defaults(func=markers)


def grid_centres(size: float) -> list[tuple[float, float]] | None:
    """Page positions (mm) of the four markers TL, TR, BR, BL when they fit on one page."""
    if size > GRID_MAX:
        return None
    w, h = A4
    return [(w / 4, h / 4), (3 * w / 4, h / 4), (3 * w / 4, 3 * h / 4), (w / 4, 3 * h / 4)]


def cut_margin(size: float, one_page: bool) -> float:
    """How far (mm) the cut lines sit outside the marker: 12 mm, less where four share a page
    (the lines stay 3 mm inside the page's quarter)."""
    if not one_page:
        return 12.0
    return max(5.0, min(12.0, A4[0] / 4 - size / 2 - 3))


def corner_names() -> list[str]:
    """TL, TR, BR, BL in the CLI's language."""
    return [_("top-left"), _("top-right"), _("bottom-right"), _("bottom-left")]


def marker_cells(dictionary: str, marker_id: int) -> np.ndarray:
    """The marker as one pixel per cell (black border included)."""
    import cv2

    from vision.calibration import aruco_dictionary

    d = aruco_dictionary(dictionary)
    cells = int(d.markerSize) + 2
    return np.asarray(cv2.aruco.generateImageMarker(d, marker_id, cells), np.uint8)


def write_markers(out: Path, dictionary: str, ids: list[int], size: float) -> int:
    """Write the PDF; returns its page count."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.backends.backend_pdf import PdfPages
    from matplotlib.figure import Figure

    from evidence.report import cjk_rc

    w, h = A4
    centres = grid_centres(size)
    pages = [list(range(4))] if centres else [[k] for k in range(4)]
    margin = cut_margin(size, centres is not None)
    corners = corner_names()
    side = f"{size:g}"
    out.parent.mkdir(parents=True, exist_ok=True)
    rc: Any = cjk_rc()
    with (
        matplotlib.rc_context(rc),
        PdfPages(out, metadata={"Creator": "tablescan markers", "CreationDate": None}) as pdf,
    ):
        for page in pages:
            fig = Figure(figsize=(w / MM_PER_INCH, h / MM_PER_INCH))
            ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
            ax.set_axis_off()
            for k in page:
                cx, cy = centres[k] if centres else (w / 2, h / 2)
                half = size / 2
                ax.imshow(
                    marker_cells(dictionary, ids[k]),
                    cmap="gray",
                    vmin=0,
                    vmax=255,
                    interpolation="none",
                    extent=(cx - half, cx + half, cy + half, cy - half),
                )
                cut = half + margin
                ax.plot(
                    [cx - cut, cx + cut, cx + cut, cx - cut, cx - cut],
                    [cy - cut, cy - cut, cy + cut, cy + cut, cy - cut],
                    color="0.55", lw=0.5, ls=(0, (3, 2)),
                )  # fmt: skip
                for sx, sy in ((1, 0), (-1, 0), (0, 1), (0, -1)):  # the centre lines' ticks
                    a, b = half + (4.5 if sy == 1 else 1.0), cut  # below: after the label
                    ax.plot(
                        [cx + sx * a, cx + sx * b] if sx else [cx, cx],
                        [cy + sy * a, cy + sy * b] if sy else [cy, cy],
                        color="black", lw=0.6,
                    )  # fmt: skip
                ax.plot([cx - 3, cx + 3], [cy - half - 2.5] * 2, color="0.3", lw=1.2)  # its top
                ax.text(
                    cx,
                    cy + half + 1.5,
                    _(
                        "id {id}: {corner} corner; the short bar marks its top "
                        "(the table's top edge)",
                        id=ids[k],
                        corner=corners[k],
                    ),
                    ha="center",
                    va="top",
                    fontsize=6,
                )  # fmt: skip
            ax.text(
                w / 2,
                6,
                _("tablescan calibration markers: {dictionary}, {size} mm. Print at actual size. "
                  "Cut on the dashed lines; the crossing of the ticks (the marker's centre) goes "
                  "on its table corner.", dictionary=dictionary, size=side),
                ha="center",
                va="top",
                fontsize=7,
                wrap=True,
            )  # fmt: skip
            ax.plot([w / 2 - 50, w / 2 + 50], [h - 12, h - 12], color="black", lw=1)
            ax.text(w / 2, h - 14, _("this bar is 100 mm"), ha="center", va="bottom", fontsize=7)
            ax.set_xlim(0, w)
            ax.set_ylim(h, 0)
            pdf.savefig(fig)
    return len(pages)


def markers(args: argparse.Namespace) -> int:
    use(choose(getattr(args, "lang", None)))
    dictionary, ids, size = args.dictionary, list(args.ids), float(args.size)
    if args.config is not None:
        from tablescan.config import ConfigError, load_config

        try:
            cal = load_config(args.config).calibration
        except ConfigError as e:
            print(e, file=sys.stderr)
            return 2
        dictionary, ids, size = cal.dictionary, list(cal.marker_ids), cal.marker_size
    if not 10.0 <= size <= min(A4) - 20:
        print(f"--size: {size:g} mm does not fit on A4 (10 to {min(A4) - 20:g})", file=sys.stderr)
        return 2
    pages = write_markers(args.output, dictionary, ids, size)
    print(f"{args.output}: markers {ids} ({dictionary}, {size:g} mm) on {pages} A4 page(s)")
    return 0
