"""The operating envelope of a table: how many pixels a card gets, and what to do about too few.

The recognizer reads a card by its index corner; under about ``MIN_CARD_PX`` of card height
the corner has too few source pixels to read surely (issue 26: held-out reads drop from 93%
over 180 px to 72% under 80 px). ``tablescan setup --measure`` and ``tablescan doctor``
measure the scale from the calibration markers (their printed size is known) on one camera
frame and say what card height the configured capture mode gives; under the line they warn
and name the fixes. The words go through the CLI's catalogs (Chinese first).
"""

from __future__ import annotations

from typing import Any

from tablescan.i18n import _
from vision.calibration import MIN_CARD_PX, Envelope, envelope, marker_pixels_per_unit

#: The Pi Camera Module 3's full-field modes, smallest first (a higher one is the first fix).
FULL_FIELD_MODES = ((1536, 864), (2304, 1296), (4608, 2592))


def measure(cfg: Any, image: Any) -> Envelope:
    """The envelope of the table ``cfg`` (a ``TableConfig``) on one camera frame: calibrated
    as the node calibrates (markers, or the saved points), stated for ``[camera]``'s mode."""
    from tablescan.wiring import calibrate, layout_from_config

    cal = cfg.calibration
    found = marker_pixels_per_unit(image, cal.dictionary, cal.marker_ids, cal.marker_size)
    return envelope(
        calibrate(cfg, image), layout_from_config(cfg), cal.card_height, cfg.camera_size, found
    )


def fixes(env: Envelope) -> list[str]:
    """What raises the card height over the line, each with the height it would give."""
    out = []
    higher = [m for m in FULL_FIELD_MODES if m[0] > env.mode[0]]
    if higher:
        w, h = higher[-1]
        out.append(
            _(
                "a higher capture mode: [camera] width = {w}, height = {h} gives about {px} px",
                w=w,
                h=h,
                px=round(env.at_mode((w, h))),
            )
        )
    out.append(
        _(
            "a lower camera: at {pct}% of its present height over the table cards reach "
            "{min} px (all four markers must stay in view)",
            pct=max(1, int(100 * env.card_px / MIN_CARD_PX)),
            min=round(MIN_CARD_PX),
        )
    )
    out.append(_("a second overhead camera, each one low over its own seats"))
    return out


def verdict(env: Envelope) -> tuple[str, str]:
    """(``ok`` | ``warn``, the line's text) for ``doctor`` and ``setup --measure``."""
    scale = [format(v, ".2f") for v in sorted(env.markers.values())]
    markers = (
        _("markers {lo}–{hi} px/mm", lo=scale[0], hi=scale[-1])
        if scale
        else _("no marker measured, scale from the saved points")
    )
    w, h = env.mode
    text = _(
        "cards about {px} px high at {w}×{h} (fewest at {area}; {markers})",
        px=round(env.card_px),
        w=w,
        h=h,
        area=env.worst_area,
        markers=markers,
    )
    if env.ok:
        return "ok", text + _(": in the envelope (at least {min} px)", min=round(MIN_CARD_PX))
    head = _(": under {min} px, cards will be misread; fix: ", min=round(MIN_CARD_PX))
    return "warn", text + head + _("; or ").join(fixes(env))
