"""Procedural index-corner samples for the card classifier.

Why: the classifier trained on crops from ~31 real deck designs learns those fonts, not
"what a rank and a suit look like", and reads unseen decks badly. This module draws index
corners from scratch with wide style variety (system fonts via ``rsvg-convert`` and cv2
Hershey fonts, drawn suit shapes, random sizes and positions, paper, background, fans,
lighting, blur, noise, JPEG), then cuts each sample with :func:`vision.detect.crop_index`
so the geometry is exactly what the detector sees at run time.

Crop geometry constants are read from :mod:`vision.detect` at call time (they may change).
Samples depend only on ``(seed, index)``, so ``workers`` never changes the result.

Over 600 lines on purpose: one sample generator (``_sample``) and the drawing helpers only it
uses; a training tool, never run at the table.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import shutil
import subprocess
from dataclasses import dataclass

import cv2
import numpy as np

import vision.detect as D

Colour = tuple[float, float, float]
Rng = np.random.Generator

RANK_TEXT = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUIT_CHAR = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
STAR = "\u2605"
STRINGS = (*RANK_TEXT, "1", "0", "O", "E", "R", *SUIT_CHAR.values(), STAR)

# (family, weight, style): fonts rsvg-convert finds through fontconfig.
SVG_FONTS = (
    ("DejaVu Sans", "normal", "normal"),
    ("DejaVu Sans", "bold", "normal"),
    ("DejaVu Sans", "normal", "oblique"),
    ("DejaVu Sans Condensed", "normal", "normal"),
    ("DejaVu Sans Condensed", "bold", "normal"),
    ("DejaVu Sans Light", "200", "normal"),
    ("DejaVu Serif", "normal", "normal"),
    ("DejaVu Serif", "bold", "normal"),
    ("DejaVu Serif Condensed", "bold", "normal"),
    ("DejaVu Serif", "normal", "italic"),
    ("DejaVu Sans Mono", "normal", "normal"),
    ("DejaVu Sans Mono", "bold", "normal"),
    ("Liberation Sans", "normal", "normal"),
    ("Liberation Sans", "bold", "normal"),
    ("Liberation Sans Narrow", "normal", "normal"),
    ("Liberation Sans Narrow", "bold", "normal"),
    ("Liberation Serif", "normal", "normal"),
    ("Liberation Serif", "bold", "normal"),
    ("Liberation Serif", "bold", "italic"),
    ("Liberation Mono", "normal", "normal"),
    ("Liberation Mono", "bold", "normal"),
)
HERSHEY = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_COMPLEX_SMALL,
)

_svg_cache: dict[int, dict[str, np.ndarray]] = {}
_hershey_cache: dict[tuple[int, int, str], np.ndarray] = {}
_CELL = 128  # px per glyph cell in the font sheet rsvg-convert renders


def _tight(alpha: np.ndarray) -> np.ndarray:
    """Crop a mask to its ink so glyph boxes are placed by ink, not by font metrics."""
    ys, xs = np.nonzero(alpha > 0.05)
    if len(xs) == 0:
        return np.ones((4, 4), np.float32)
    return np.ascontiguousarray(alpha[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])


def _svg_sheet(font: int) -> dict[str, np.ndarray] | None:
    """All STRINGS in one font as tight float masks; one rsvg-convert call per font, cached."""
    if font in _svg_cache:
        return _svg_cache[font]
    if shutil.which("rsvg-convert") is None:
        return None
    fam, weight, style = SVG_FONTS[font]
    cols = 6
    rows = (len(STRINGS) + cols - 1) // cols
    parts = []
    for i, s in enumerate(STRINGS):
        x, y = (i % cols) * _CELL + 10, (i // cols) * _CELL + 96
        parts.append(f'<text x="{x}" y="{y}">{s}</text>')
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{cols * _CELL}" '
        f'height="{rows * _CELL}"><g font-family="{fam}" font-weight="{weight}" '
        f'font-style="{style}" font-size="84" fill="#000">{"".join(parts)}</g></svg>'
    )
    try:
        png = subprocess.run(
            ["rsvg-convert", "-f", "png"], input=svg.encode(), capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_UNCHANGED)
    if img is None or img.ndim != 3 or img.shape[2] != 4:
        return None
    alpha = img[:, :, 3].astype(np.float32) / 255.0
    sheet: dict[str, np.ndarray] = {}
    for i, s in enumerate(STRINGS):
        x, y = (i % cols) * _CELL, (i // cols) * _CELL
        sheet[s] = _tight(alpha[y : y + _CELL, x : x + _CELL])
    _svg_cache[font] = sheet
    return sheet


def _hershey(font: int, thick: int, text: str) -> np.ndarray:
    """A Hershey-font mask (cv2 has no real fonts): strokes at scale, thickness varied."""
    key = (font, thick, text)
    if key not in _hershey_cache:
        scale = 2.0 if font & 0xF == cv2.FONT_HERSHEY_PLAIN else 1.6
        (w, hh), base = cv2.getTextSize(text, font, scale, thick)
        m = np.zeros((hh + base + 4 * thick + 8, w + 4 * thick + 8), np.uint8)
        cv2.putText(
            m, text, (2 * thick + 4, hh + 2 * thick + 4), font, scale, 255, thick, cv2.LINE_AA
        )
        _hershey_cache[key] = _tight(m.astype(np.float32) / 255.0)
    return _hershey_cache[key]


@dataclass(frozen=True, slots=True)
class Style:
    """How one card prints its glyphs: a system font, or a Hershey font with a stroke width."""

    svg: int  # index into SVG_FONTS, or -1 for Hershey
    hershey: int
    thick: int
    morph: int  # -1 thin (erode), 0, +1 bold (dilate)

    def glyph(self, text: str) -> np.ndarray:
        sheet = _svg_sheet(self.svg) if self.svg >= 0 else None
        if sheet is not None:
            return sheet[text]
        if text in SUIT_CHAR.values() or text == STAR:
            return _shape(text, 0.5, 0.5, 0.5)
        return _hershey(self.hershey, self.thick, text)


def _style(rng: Rng) -> Style:
    use_svg = rng.random() < 0.65
    h = int(HERSHEY[rng.integers(len(HERSHEY))]) | (cv2.FONT_ITALIC if rng.random() < 0.2 else 0)
    morph = int(rng.choice([-1, 0, 0, 0, 1]))
    return Style(
        int(rng.integers(len(SVG_FONTS))) if use_svg else -1, h, int(rng.integers(2, 7)), morph
    )


def _shape(char: str, a: float, b: float, c: float) -> np.ndarray:
    """A hand-drawn suit/star mask (64 px tall); a, b, c in 0..1 vary its proportions."""
    s = 64
    m = np.zeros((s, s), np.uint8)
    aa = cv2.LINE_AA
    if char == SUIT_CHAR["D"]:
        w = int(18 + 12 * a)
        p = 1.0 + 0.7 * b  # side curvature: 1 straight, >1 concave
        pts = [(32 + w * t**p, 2 + 30 * t) for t in np.linspace(0, 1, 12)]
        pts += [(32 + w * t**p, 62 - 30 * t) for t in np.linspace(1, 0, 12)[1:]]
        pts += [(64 - x, y) for x, y in reversed(pts)]
        cv2.fillPoly(m, [np.round(np.array(pts)).astype(np.int32)], 255, aa)
    elif char == SUIT_CHAR["H"]:
        r = int(13 + 4 * a)
        tip = int(56 + 6 * b)
        cv2.circle(m, (32 - r + 2, 20), r, 255, -1, aa)
        cv2.circle(m, (32 + r - 2, 20), r, 255, -1, aa)
        cv2.fillPoly(
            m, [np.array([[34 - 2 * r, 26], [30 + 2 * r, 26], [32, tip]], np.int32)], 255, aa
        )
    elif char == SUIT_CHAR["S"]:
        r = int(13 + 4 * a)
        cv2.circle(m, (32 - r + 2, 36), r, 255, -1, aa)
        cv2.circle(m, (32 + r - 2, 36), r, 255, -1, aa)
        cv2.fillPoly(
            m,
            [np.array([[34 - 2 * r, 30], [30 + 2 * r, 30], [32, int(2 + 6 * b)]], np.int32)],
            255,
            aa,
        )
        st = int(3 + 4 * c)
        cv2.fillPoly(
            m, [np.array([[32 - st - 2, 63], [32 + st + 2, 63], [32, 36]], np.int32)], 255, aa
        )
    elif char == SUIT_CHAR["C"]:
        r = int(11 + 4 * a)
        cv2.circle(m, (32, 16), r, 255, -1, aa)
        cv2.circle(m, (32 - r - 2, 36), r, 255, -1, aa)
        cv2.circle(m, (32 + r + 2, 36), r, 255, -1, aa)
        st = int(3 + 4 * c)
        cv2.fillPoly(
            m, [np.array([[32 - st - 3, 63], [32 + st + 3, 63], [32, 28]], np.int32)], 255, aa
        )
    else:  # star
        ang = np.arange(10) * math.pi / 5 - math.pi / 2
        rad = np.where(np.arange(10) % 2 == 0, 30.0, 12.0 + 6 * a)
        star = np.stack([32 + rad * np.cos(ang), 33 + rad * np.sin(ang)], 1)
        cv2.fillPoly(m, [np.round(star).astype(np.int32)], 255, aa)
    return _tight(m.astype(np.float32) / 255.0)


def _blit(
    img: np.ndarray, mask: np.ndarray, x: float, y: float, w: float, h: float, col: Colour
) -> None:
    """Alpha-blend ``mask`` resized to w×h px with top-left (x, y), clipped to the image."""
    wi, hi = max(1, round(w)), max(1, round(h))
    xi, yi = round(x), round(y)
    interp = cv2.INTER_AREA if wi < mask.shape[1] else cv2.INTER_LINEAR
    a = cv2.resize(mask, (wi, hi), interpolation=interp)
    x0, y0 = max(xi, 0), max(yi, 0)
    x1, y1 = min(xi + wi, img.shape[1]), min(yi + hi, img.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    a = a[y0 - yi : y1 - yi, x0 - xi : x1 - xi, None]
    roi = img[y0:y1, x0:x1]
    roi += (np.asarray(col, np.float32) - roi) * a


def _rgb(v: np.ndarray | tuple[float, ...]) -> Colour:
    """A 3-float colour tuple as cv2 and _blit take it."""
    return (float(v[0]), float(v[1]), float(v[2]))


def _ink(suit: str, rng: Rng, four_colour: bool) -> Colour:
    """Suit colour: red hearts/diamonds, black spades/clubs; some decks use 4 colours."""
    j = rng.uniform(-25, 25)
    if four_colour and suit == "D":
        return (170 + j, 70 + j / 2, 20)
    if four_colour and suit == "C":
        return (40, 120 + j, 30)
    if suit in ("H", "D"):
        return (30 + rng.uniform(0, 40), 25 + rng.uniform(0, 30), 180 + j)
    g = rng.uniform(10, 55)
    return (g, g, g)


def _suit_mask(suit: str, st: Style, rng: Rng) -> np.ndarray:
    if rng.random() < 0.5:
        return _shape(SUIT_CHAR[suit], rng.random(), rng.random(), rng.random())
    return st.glyph(SUIT_CHAR[suit])


def _morph(mask: np.ndarray, morph: int, h_px: float) -> np.ndarray:
    """Thicken strokes by ~0.8 px or thin them by ~0.4 px at the final size (masks are drawn
    at ~60-80 px); thinning that would erase the glyph is skipped so labels stay readable."""
    if morph == 0:
        return mask
    per_px = mask.shape[0] / max(h_px, 4.0)
    k = max(1, round((0.8 if morph > 0 else 0.4) * per_px))
    ker = np.ones((k, k), np.uint8)
    if morph > 0:
        out: np.ndarray = cv2.dilate(mask, ker)
        return out
    thin: np.ndarray = cv2.erode(mask, ker)
    return thin if float(thin.sum()) > 0.5 * float(mask.sum()) else mask


def _draw_index(
    img: np.ndarray, face: str, h: float, to_px: tuple[float, float], rng: Rng
) -> tuple[float, float]:
    """Rank over suit (or JOKER) at the card's top-left; returns the index's right edge (× h)
    and its smallest glyph height (× h), which bounds the blur so the label stays readable."""
    ox, oy = to_px
    st = _style(rng)
    if st.morph < 0 and h * 0.12 < 14:  # thin strokes on a small index vanish
        st = Style(st.svg, st.hershey, st.thick, 0)
    four = rng.random() < 0.15
    y_max = max(D.CROP_Y1 - 0.01, 0.2)
    x0, y0 = rng.uniform(0.02, 0.08), rng.uniform(0.02, 0.08)

    def put(mask: np.ndarray, x: float, y: float, w: float, hh: float, col: Colour) -> None:
        _blit(img, _morph(mask, st.morph, hh * h), ox + x * h, oy + y * h, w * h, hh * h, col)

    if face in ("BJ", "SJ"):
        col = _ink("H" if face == "BJ" else "S", rng, False)
        if rng.random() < 0.3:  # a big J with a small star
            gh = rng.uniform(0.08, 0.16)
            m = st.glyph("J")
            w = gh * m.shape[1] / m.shape[0] * rng.uniform(0.8, 1.2)
            put(m, x0, y0, w, gh, col)
            sh = rng.uniform(0.04, 0.08)
            put(_shape(STAR, rng.random(), 0, 0), x0 + w / 2 - sh / 2, y0 + gh + 0.015, sh, sh, col)
            return x0 + max(w, sh), gh
        lh = rng.uniform(0.035, 0.055)
        gap = rng.uniform(0.003, 0.012)
        y, right = y0, x0
        for ch in "JOKER":
            m = st.glyph(ch)
            w = lh * m.shape[1] / m.shape[0] * rng.uniform(0.8, 1.15)
            put(m, x0 + (0.045 - w) / 2 if rng.random() < 0.7 else x0, y, w, lh, col)
            right = max(right, x0 + w)
            y += lh + gap
        if rng.random() < 0.5 and y + 0.04 < y_max:
            sh = rng.uniform(0.03, min(0.07, y_max - y))
            put(_shape(STAR, rng.random(), 0, 0), x0 + 0.0225 - sh / 2, y + 0.005, sh, sh, col)
        return right, lh

    rank, suit = face[:-1], face[-1]
    col = _ink(suit, rng, four)
    gh = rng.uniform(0.07, 0.20)
    sh = rng.uniform(0.05, 0.14)
    beside = rng.random() < 0.1
    gap = rng.uniform(0.004, 0.03)
    if not beside:  # keep rank + suit inside the crop window most of the time
        over = y0 + gh + gap + sh - y_max
        if over > 0 and rng.random() < 0.9:
            gh, sh = gh - over * gh / (gh + sh), sh - over * sh / (gh + sh)
    stretch = rng.uniform(0.75, 1.25)
    if rank == "10" and rng.random() < 0.6:  # a condensed, tight "1" + "0"
        m1, m0 = st.glyph("1"), st.glyph("0")
        w1 = gh * m1.shape[1] / m1.shape[0] * stretch * rng.uniform(0.6, 1.0)
        w0 = gh * m0.shape[1] / m0.shape[0] * stretch * rng.uniform(0.55, 0.9)
        k = rng.uniform(-0.008, 0.01)
        put(m1, x0, y0, w1, gh, col)
        put(m0, x0 + w1 + k, y0, w0, gh, col)
        rw = w1 + k + w0
    else:
        m = st.glyph(rank)
        rw = (
            gh
            * m.shape[1]
            / m.shape[0]
            * stretch
            * (rng.uniform(0.6, 0.9) if rank == "10" else 1.0)
        )
        put(m, x0, y0, rw, gh, col)
    sm = _suit_mask(suit, st, rng)
    sw = sh * sm.shape[1] / sm.shape[0] * rng.uniform(0.85, 1.15)
    if beside:
        sx, sy = x0 + rw + gap, y0 + (gh - sh) * rng.uniform(0, 0.5)
    else:
        sx = x0 + (rw - sw) / 2 if rng.random() < 0.6 else x0 + rng.uniform(-0.005, 0.01)
        sy = y0 + gh + gap
    put(sm, sx, sy, sw, sh, col)
    return max(x0 + rw, sx + sw), gh


def _rrect(
    img: np.ndarray, x0: float, y0: float, x1: float, y1: float, r: float, col: Colour, th: int = -1
) -> None:
    """A rounded rectangle (filled when th < 0) in pixel coordinates, antialiased."""
    s = 4  # fixed-point shift for sub-pixel drawing
    f = 1 << s
    r = max(1.0, min(r, (x1 - x0) / 2, (y1 - y0) / 2))
    pts = []
    for cx, cy, a0 in (
        (x1 - r, y0 + r, -90),
        (x1 - r, y1 - r, 0),
        (x0 + r, y1 - r, 90),
        (x0 + r, y0 + r, 180),
    ):
        for a in np.linspace(a0, a0 + 90, 7):
            t = math.radians(a)
            pts.append((cx + r * math.cos(t), cy + r * math.sin(t)))
    p = [np.round(np.array(pts) * f).astype(np.int32)]
    if th < 0:
        cv2.fillPoly(img, p, col, cv2.LINE_AA, s)
    else:
        cv2.polylines(img, p, True, col, th, cv2.LINE_AA, s)


def _background(shape: tuple[int, int], rng: Rng) -> np.ndarray:
    """Felt, wood or grey table with low-frequency texture."""
    hh, ww = shape
    kind = rng.integers(5)
    base = [
        (rng.uniform(30, 90), rng.uniform(90, 150), rng.uniform(20, 60)),  # green felt
        (rng.uniform(100, 160), rng.uniform(60, 110), rng.uniform(20, 50)),  # blue felt
        (rng.uniform(30, 60), rng.uniform(30, 60), rng.uniform(110, 170)),  # red felt
        (rng.uniform(40, 80), rng.uniform(70, 120), rng.uniform(110, 170)),  # wood
        (rng.uniform(40, 200),) * 3,  # grey
    ][kind]
    small = rng.normal(
        0, rng.uniform(5, 25), (4 + int(rng.integers(8)), 4 + int(rng.integers(8)), 1)
    )
    tex = cv2.resize(small.astype(np.float32), (ww, hh), interpolation=cv2.INTER_CUBIC)
    img = np.empty((hh, ww, 3), np.float32)
    img[:] = np.asarray(base, np.float32)
    img += tex[:, :, None] if tex.ndim == 2 else tex
    if kind == 3:  # wood grain: stretched streaks
        g = cv2.resize(
            rng.normal(0, 12, (hh, 3)).astype(np.float32), (ww, hh), interpolation=cv2.INTER_LINEAR
        )
        img += g[:, :, None]
    return img


def _paper(rng: Rng) -> Colour:
    u = rng.random()
    if u < 0.5:
        v = rng.uniform(225, 255)
        return (v, v, v)
    if u < 0.75:  # cream
        v = rng.uniform(215, 250)
        return (v - rng.uniform(15, 40), v - rng.uniform(0, 12), v)
    if u < 0.92:  # light grey
        v = rng.uniform(185, 225)
        return (v, v, v)
    t = rng.uniform(190, 245, 3)  # light tint
    return (float(t[0]), float(t[1]), float(t[2]))


def _card(
    img: np.ndarray, h: float, o: tuple[float, float], paper: Colour, rng: Rng, rot: float = 0.0
) -> None:
    """A plain card (0.7h × h, top-left at o px), optionally turned by rot radians: fans."""
    ox, oy = o
    r = rng.uniform(0.02, 0.06) * h
    if rot == 0.0:
        _rrect(img, ox, oy, ox + 0.7 * h, oy + h, r, paper)
        edge = _rgb(np.asarray(paper) * rng.uniform(0.6, 0.85))
        _rrect(img, ox, oy, ox + 0.7 * h, oy + h, r, edge, 1)
        return
    c, s = math.cos(rot), math.sin(rot)
    pts = np.array([[0, 0], [0.7, 0], [0.7, 1], [0, 1]]) * h
    pts = np.stack([ox + c * pts[:, 0] - s * pts[:, 1], oy + s * pts[:, 0] + c * pts[:, 1]], 1)
    cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], paper, cv2.LINE_AA, 4)
    edge = _rgb(np.asarray(paper) * rng.uniform(0.6, 0.85))
    cv2.polylines(img, [np.round(pts * 16).astype(np.int32)], True, edge, 1, cv2.LINE_AA, 4)


def _back(img: np.ndarray, h: float, o: tuple[float, float], rng: Rng) -> None:
    """A card back: white rim, coloured field with a random lattice / rings / checks."""
    ox, oy = o
    _card(img, h, o, _paper(rng), rng)
    ins = rng.uniform(0.02, 0.06) * h
    col = _rgb(rng.uniform(20, 200, 3))
    x0, y0, x1, y1 = ox + ins, oy + ins, ox + 0.7 * h - ins, oy + h - ins
    _rrect(img, x0, y0, x1, y1, rng.uniform(0, 0.04) * h, col)
    fg = _rgb(rng.uniform(150, 255, 3))
    step = rng.uniform(0.02, 0.07) * h
    th = max(1, round(step * rng.uniform(0.1, 0.3)))
    sub = img[max(0, int(y0)) : max(0, int(y1)), max(0, int(x0)) : max(0, int(x1))]
    if sub.size == 0:
        return
    kind = rng.integers(3)
    sh, sw = sub.shape[:2]
    n = int((sh + sw) / step) + 2
    for i in range(n):
        p = int(i * step)
        if kind == 0:
            cv2.line(sub, (p, 0), (p - sh, sh), fg, th, cv2.LINE_AA)
            cv2.line(sub, (p - sw, 0), (p, sh), fg, th, cv2.LINE_AA)
        elif kind == 1:
            for j in range(n):
                cv2.circle(sub, (p, int(j * step)), max(1, int(step / 3)), fg, th, cv2.LINE_AA)
        else:
            for j in range(0, n, 2):
                q = int((j + i % 2) * step)
                cv2.rectangle(sub, (p, q), (p + int(step), q + int(step)), fg, -1)


def _face_art(
    img: np.ndarray, face: str, h: float, o: tuple[float, float], right: float, rng: Rng
) -> None:
    """What else is printed on the face (pips, a framed picture, border lines), off the index."""
    ox, oy = o

    def px(x: float, y: float) -> tuple[int, int]:
        return round(ox + x * h), round(oy + y * h)

    if rng.random() < 0.3:  # thin border line just inside the edge
        ins = rng.uniform(0.008, 0.018)
        col = _rgb(rng.uniform(0, 200, 3))
        _rrect(
            img,
            ox + ins * h,
            oy + ins * h,
            ox + (0.7 - ins) * h,
            oy + (1 - ins) * h,
            0.03 * h,
            col,
            1,
        )
    rank = face[:-1]
    left = right + rng.uniform(0.015, 0.05)
    if face in ("BJ", "SJ") or rank in ("J", "Q", "K") or rng.random() < 0.1:
        top = rng.uniform(0.03, 0.1)
        fc = _rgb(rng.uniform(0, 180, 3))
        cv2.rectangle(
            img, px(left, top), px(0.7 - left, 1 - top), fc, max(1, round(0.006 * h)), cv2.LINE_AA
        )
        for _ in range(int(rng.integers(3, 9))):
            c = tuple(
                float(v)
                for v in rng.choice(
                    [[40, 40, 200], [160, 60, 20], [40, 190, 230], [30, 30, 30], [60, 140, 40]]
                )
            )
            ex, ey = rng.uniform(0.02, 0.12, 2)
            cx, cy = (
                left + ex + rng.uniform(0, max(0.01, 0.7 - 2 * left - 2 * ex)),
                rng.uniform(top + ey, 0.7),
            )
            ax = (max(1, round(ex * h)), max(1, round(ey * h)))
            cv2.ellipse(
                img,
                px(cx, cy),
                ax,
                float(rng.uniform(0, 180)),
                0,
                360,
                c,
                int(rng.choice([-1, 2])),
                cv2.LINE_AA,
            )
        return
    suit = face[-1]
    col = _ink(suit, rng, False)
    size = rng.uniform(0.08, 0.16)
    m = _shape(SUIT_CHAR[suit], rng.random(), rng.random(), rng.random())
    w = size * m.shape[1] / m.shape[0]
    if rank == "A":
        big = rng.uniform(0.15, 0.3)
        _blit(
            img, m, ox + (0.35 - big / 2) * h, oy + (0.5 - big / 2) * h, big * h * 0.9, big * h, col
        )
        return
    cols = [max(left, 0.16), 0.35 - w / 2, 0.7 - max(left, 0.16) - w]
    for cx in cols if int(rank) > 3 else cols[1:2]:
        for cy in np.linspace(rng.uniform(0.08, 0.14), 0.9 - size, int(rng.integers(2, 5))):
            if cx < right + 0.01 and cy < D.CROP_Y1:
                continue
            _blit(img, m, ox + cx * h, oy + cy * h, w * h, size * h, col)


def _sample(face: str, seed: int, index: int) -> np.ndarray:
    """One crop for one class; every random choice comes from (seed, index)."""
    rng = np.random.default_rng([seed, index])
    h = float(math.exp(rng.uniform(math.log(80), math.log(260))))
    none = face == D.NONE
    # The view: which corner frame the crop is read in (card frame, units of h).
    corner, down = (0.0, 0.0), (0.0, 1.0)
    back = False
    if none:
        kind = int(rng.integers(5))
        if kind == 0:
            back = True
        elif kind == 1:
            corner = (float(rng.uniform(0.05, 0.45)), float(rng.uniform(0.3, 0.65)))
            down = [(0.0, 1.0), (0.0, -1.0), (1.0, 0.0), (-1.0, 0.0)][int(rng.integers(4))]
        elif kind == 2:
            corner, down = (
                ((0.7, 0.0), (-1.0, 0.0)) if rng.random() < 0.5 else ((0.0, 1.0), (1.0, 0.0))
            )
        elif kind == 3:  # the table next to the card
            corner = (float(rng.uniform(-0.7, -0.35)), float(rng.uniform(0.0, 0.6)))
        else:  # the card edge
            corner = (float(rng.uniform(-0.25, -0.1)), float(rng.uniform(0.2, 0.6)))
    right = (down[1], -down[0])
    # Canvas: bounding box of the crop window allowing for height and position jitter.
    m = 0.12
    us, vs = [], []
    for a in (D.CROP_X0 * 1.4 - m, D.CROP_X1 * 1.4 + m):
        for b in (D.CROP_Y0 * 1.4 - m, D.CROP_Y1 * 1.4 + m):
            us.append(corner[0] + a * right[0] + b * down[0])
            vs.append(corner[1] + a * right[1] + b * down[1])
    u0, v0 = min(us), min(vs)
    ww, hh = round((max(us) - u0) * h), round((max(vs) - v0) * h)
    img = _background((hh, ww), rng)
    o = (-u0 * h, -v0 * h)  # card's top-left corner in canvas pixels
    paper = _paper(rng)

    fan = rng.random()
    if fan < 0.2:  # a card underneath, showing beside or above
        _card(
            img,
            h,
            (o[0] - rng.uniform(0.1, 0.4) * h, o[1] - rng.uniform(0.0, 0.2) * h),
            _paper(rng),
            rng,
            float(rng.uniform(-0.4, 0.1)),
        )
    if back:
        _back(img, h, o, rng)
    else:
        _card(img, h, o, paper, rng)
    idx_right, glyph = 0.0, 1.0
    if face != D.NONE:
        idx_right, glyph = _draw_index(img, face, h, o, rng)
        _face_art(img, face, h, o, idx_right, rng)
    elif not back:
        _face_art(img, D.FACES[int(rng.integers(len(D.FACES)))], h, o, 0.2, rng)
    if 0.2 <= fan < 0.35:  # a card on top, from the right, clear of the index
        x = max(idx_right, 0.12) + rng.uniform(0.03, 0.15)
        _card(
            img,
            h,
            (o[0] + x * h, o[1] + rng.uniform(-0.1, 0.2) * h),
            _paper(rng),
            rng,
            float(rng.uniform(-0.15, 0.15)),
        )

    # Lighting: a shadow gradient and contrast/brightness.
    if rng.random() < 0.5:
        gx, gy = rng.normal(0, 1, 2)
        yy, xx = np.mgrid[0:hh, 0:ww].astype(np.float32)
        g = (gx * xx + gy * yy) / max(hh, ww)
        g = 1 - rng.uniform(0, 0.5) * (g - g.min()) / max(float(np.ptp(g)), 1e-6)
        img *= g[:, :, None]
    img = img * rng.uniform(0.6, 1.25) + rng.uniform(-30, 25)
    img += np.asarray(rng.uniform(-12, 12, 3), np.float32)  # white balance

    # Turn the picture (some samples by any angle) so crop_index's de-rotation is exercised.
    ang = 0.0
    u = rng.random()
    if u < 0.3:
        ang = float(rng.uniform(-0.3, 0.3))
    elif u < 0.45:
        ang = float(rng.uniform(-math.pi, math.pi))
    ax = (corner[0] + D.ANCHOR_X * right[0] + D.ANCHOR_Y * down[0] - u0) * h
    ay = (corner[1] + D.ANCHOR_X * right[1] + D.ANCHOR_Y * down[1] - v0) * h
    if ang != 0.0:
        c, s = math.cos(ang), math.sin(ang)
        cw, ch = abs(c) * ww + abs(s) * hh, abs(s) * ww + abs(c) * hh
        rot = np.array([[c, -s, 0.0], [s, c, 0.0]])
        rot[:, 2] = (cw / 2, ch / 2) - rot[:, :2] @ (ww / 2, hh / 2)
        img = cv2.warpAffine(
            img, rot, (round(cw), round(ch)), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
        )
        ax, ay = rot[:, :2] @ (ax, ay) + rot[:, 2]
        dvec = rot[:, :2] @ down
        down = (float(dvec[0]), float(dvec[1]))
    # Camera: blur, noise, JPEG.
    sig = min(rng.uniform(0, 1.2) * h / 100, 0.08 * glyph * h)
    if sig > 0.25:
        img = cv2.GaussianBlur(img, (0, 0), sig)
    img += rng.normal(0, rng.uniform(0, 8), img.shape).astype(np.float32)
    u8 = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.8:
        ok, buf = cv2.imencode(".jpg", u8, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 96))])
        if ok:
            u8 = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)

    jx, jy = rng.normal(0, 0.03 * h, 2)
    est_h = h * float(math.exp(rng.normal(0, 0.10)))
    peak = D.IndexPeak(float(ax + jx), float(ay + jy), down, est_h, (0.0, 0.0), 1.0)
    return D.crop_index(u8, peak)


def _chunk(args: tuple[int, int, int, list[str]]) -> np.ndarray:
    seed, start, _, faces = args
    return np.stack([_sample(f, seed, start + i) for i, f in enumerate(faces)])


def procedural_bank(n: int, seed: int, workers: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """n samples: X uint8 n×CROP_H×CROP_W×3 (BGR, exactly what crop_index returns),
    y int64 class ids into vision.detect.CLASSES.

    Classes are uniform over the 54 faces, with ~10% "none" (face middle, card edge, table,
    a card back's corner, a corner without an index). Sample i depends only on (seed, i),
    so any ``workers`` count gives identical arrays."""
    rng = np.random.default_rng(seed)
    none = rng.random(n) < 0.1
    y = np.where(none, D.CLASSES.index(D.NONE), rng.integers(0, len(D.FACES), n)).astype(np.int64)
    faces = [D.CLASSES[int(i)] for i in y]
    if n == 0:
        return np.zeros((0, D.CROP_H, D.CROP_W, 3), np.uint8), y
    if workers <= 1:
        return _chunk((seed, 0, n, faces)), y
    step = max(1, math.ceil(n / (workers * 4)))
    jobs = [(seed, s, min(n, s + step), faces[s : s + step]) for s in range(0, n, step)]
    with mp.get_context("spawn").Pool(workers) as pool:
        parts = pool.map(_chunk, jobs)
    return np.concatenate(parts), y
