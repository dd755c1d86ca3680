"""Real deck designs from Debian's SVG card packages, rendered card by card with rsvg-convert.

Two packages ship the designs: ``kdegames-card-data-kf5`` (``/usr/share/carddecks/*/``,
element ids like ``queen_spade``, ``red_joker``) and ``gnome-cards-data``
(``/usr/share/aisleriot/cards/``, ids like ``spade_queen``, ``joker_red``). Some element ids
render badly (a transform outside the element makes rsvg crop a sliver or a blank); those
renders are detected and refused with ``BrokenRenderError`` so no model trains on them.

More designs come as folders of one file per card (``scheme`` ``"files"``, issue 26): each
holds a ``deck.json`` (``name``, ``source``, ``licence``, ``attribution``, ``files``: card →
file name) and the card files, SVG (rendered whole by rsvg-convert) or PNG. They are read
from ``models/decks/`` (committed faces derived from fetched repositories, with their
manifest) and ``data/decks/`` (installed from the npm registry by ``scripts/build_decks.py``;
git-ignored). None of them is a HOLDOUT.md design: they are all training designs.

The designs listed in ``shared/eval/HOLDOUT.md`` form the ``"eval"`` split: ``list_decks()``
never returns them unless that split is asked for.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from engine.cards import RANKS, SUITS, CardError, parse_card

log = logging.getLogger(__name__)

KDE_ROOT = Path("/usr/share/carddecks")
GNOME_ROOT = Path("/usr/share/aisleriot/cards")
KDE_PACKAGE = "kdegames-card-data-kf5"
GNOME_PACKAGE = "gnome-cards-data"
_REPO = Path(__file__).resolve().parents[2]
#: Folders of per-card-file designs (``deck.json`` + files): committed, then npm-installed.
FILE_ROOTS: tuple[Path, ...] = (_REPO / "models" / "decks", _REPO / "data" / "decks")

#: HOLDOUT.md, verbatim: evaluation-only designs (package, file path below its root).
HOLDOUT: frozenset[tuple[str, str]] = frozenset(
    {
        (GNOME_PACKAGE, "lattmann.svgz"),
        (GNOME_PACKAGE, "simplistic.svgz"),
        (GNOME_PACKAGE, "tango.svgz"),
        (GNOME_PACKAGE, "tango_nuevo.svgz"),
        (GNOME_PACKAGE, "ornamental.svgz"),
        (GNOME_PACKAGE, "atlasnye.svgz"),
        (GNOME_PACKAGE, "atlasnye_skat.svgz"),
        (GNOME_PACKAGE, "Атласные.svgz"),
        (KDE_PACKAGE, "svg-nicu-white/white.svgz"),
        (KDE_PACKAGE, "svg-nicu-ornamental/ornamental.svgz"),
    }
)

#: Designs that are not French-suited playing cards (German/Swiss suits, toy art): a model
#: trained on them would learn that an acorn is a club.
NOT_FRENCH: frozenset[tuple[str, str]] = frozenset(
    {
        (KDE_PACKAGE, "svg-xskat-german/german.svgz"),
        (KDE_PACKAGE, "svg-future/future.svgz"),
        (GNOME_PACKAGE, "swiss-xvii.svgz"),
    }
)

SPLITS = ("train", "eval")
BACK = "back"
CARD_NAMES: tuple[str, ...] = (
    *(r + s for s in SUITS for r in RANKS),
    "BJ",
    "SJ",
)

_KDE_RANK = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}
_GNOME_RANK = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}
_SUIT_WORD = {"S": "spade", "H": "heart", "C": "club", "D": "diamond"}


class DeckError(ValueError):
    """A deck or card request that cannot be served (unknown card, holdout misuse, no file)."""


class HoldoutError(DeckError):
    """A held-out (evaluation-only) design was asked for where training data is made."""


class BrokenRenderError(DeckError):
    """rsvg-convert produced something that is not a card (blank, sliver, wrong shape)."""


@dataclass(frozen=True, slots=True)
class DeckInfo:
    """One deck design: where its SVG lies and how its element ids are spelled."""

    name: str  # e.g. "kde/svg-standard" or "gnome/anglo"
    path: Path
    package: str
    scheme: str  # "kde", "gnome" or "files" (a folder of one file per card, deck.json)
    holdout: bool

    @property
    def split(self) -> str:
        return "eval" if self.holdout else "train"


def _deck_of(package: str, root: Path, path: Path) -> DeckInfo:
    rel = path.relative_to(root).as_posix()
    if package == KDE_PACKAGE:
        name, scheme = "kde/" + path.parent.name, "kde"
    else:
        name, scheme = "gnome/" + path.name.removesuffix(".svgz").removesuffix(".svg"), "gnome"
    return DeckInfo(name, path, package, scheme, (package, rel) in HOLDOUT)


def _deck_meta(folder: Path) -> dict[str, object]:
    meta: dict[str, object] = json.loads((folder / "deck.json").read_text())
    return meta


def _deck_files(folder: Path) -> dict[str, str]:
    """card → file name of a ``files`` design (its ``deck.json``)."""
    files = _deck_meta(folder)["files"]
    assert isinstance(files, dict)
    return {str(k): str(v) for k, v in files.items()}


def _rounded(img: np.ndarray, radius: float = 0.045) -> np.ndarray:
    """Round a card's corners (``radius`` card heights): faces drawn without a card of
    their own (a ``paper`` design) get the usual outline."""
    h, w = img.shape[:2]
    r = max(1, round(radius * h))
    mask = np.zeros((h, w), np.uint8)
    cv2.rectangle(mask, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, lineType=cv2.LINE_AA)
    out = img.copy()
    out[..., 3] = np.minimum(out[..., 3], mask)
    return out


def file_decks(roots: tuple[Path, ...] = FILE_ROOTS) -> list[DeckInfo]:
    """The per-card-file designs under ``roots`` (training designs; see the module doc)."""
    found: list[DeckInfo] = []
    seen: set[str] = set()
    for root in roots:
        for meta in sorted(root.glob("*/deck.json")) if root.is_dir() else ():
            folder = meta.parent
            name = "files/" + folder.name
            if name in seen:
                continue
            seen.add(name)
            source = str(json.loads(meta.read_text()).get("source", folder.name))
            found.append(DeckInfo(name, folder, source, "files", False))
    return found


def all_decks(kde_root: Path = KDE_ROOT, gnome_root: Path = GNOME_ROOT) -> list[DeckInfo]:
    """Every French-suited design installed, holdout included (callers filter by split)."""
    found: list[DeckInfo] = []
    for package, root, pattern in (
        (KDE_PACKAGE, kde_root, "*/*.svg*"),
        (GNOME_PACKAGE, gnome_root, "*.svg*"),
    ):
        if not root.is_dir():
            log.warning("deck folder %s missing: install %s", root, package)
            continue
        for path in sorted(root.glob(pattern)):
            if (package, path.relative_to(root).as_posix()) in NOT_FRENCH:
                continue
            found.append(_deck_of(package, root, path))
    if kde_root == KDE_ROOT and gnome_root == GNOME_ROOT:
        found.extend(file_decks())
    return found


def list_decks(split: str = "train") -> list[DeckInfo]:
    """Designs of one split: ``"train"`` (never a HOLDOUT design) or ``"eval"`` (only those)."""
    if split not in SPLITS:
        raise DeckError(f"split {split!r}: expected one of {', '.join(SPLITS)}")
    return [d for d in all_decks() if d.split == split]


def check_split(decks: list[DeckInfo], split: str) -> None:
    """Refuse a held-out design in a training set (the HOLDOUT.md contract)."""
    if split not in SPLITS:
        raise DeckError(f"split {split!r}: expected one of {', '.join(SPLITS)}")
    for d in decks:
        if d.holdout and split != "eval":
            raise HoldoutError(
                f"deck {d.name} ({d.path.name}) is reserved for evaluation (HOLDOUT.md); "
                "ask for split='eval' to render it"
            )
        if not d.holdout and split == "eval":
            raise DeckError(f"deck {d.name} is a training design, not an evaluation one")


def element_id(deck: DeckInfo, card: str) -> str:
    """The SVG element id of ``card`` (shared notation, or ``"back"``) in ``deck``."""
    if deck.scheme == "files":
        f = _deck_files(deck.path).get(card)
        if f is None:
            # the design lacks this card (a joker, a back): like a broken render, left out
            raise BrokenRenderError(f"deck {deck.name}: no file for {card}")
        return f
    if card == BACK:
        return "back"
    try:
        c = parse_card(card)
    except CardError as e:
        raise DeckError(f"deck {deck.name}: {e}") from None
    if c.suit is None:
        colour = "red" if c.rank == "BJ" else "black"
        return f"{colour}_joker" if deck.scheme == "kde" else f"joker_{colour}"
    if deck.scheme == "kde":
        return f"{_KDE_RANK.get(c.rank, c.rank)}_{_SUIT_WORD[c.suit]}"
    return f"{_SUIT_WORD[c.suit]}_{_GNOME_RANK.get(c.rank, c.rank)}"


def cache_dir() -> Path:
    """Render cache: ``$TABLESCAN_CARD_CACHE``, else the user's cache dir (never in git)."""
    env = os.environ.get("TABLESCAN_CARD_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tablescan" / "cards"


def broken_reason(img: np.ndarray | None, height: int) -> str | None:
    """Why a render is not a usable card face, or None when it looks like one."""
    if img is None or img.ndim != 3 or img.shape[2] != 4:
        return "not a BGRA image"
    h, w = img.shape[:2]
    if h != height:
        return f"height {h}, asked {height}"
    aspect = w / h
    if not 0.55 <= aspect <= 0.85:
        return f"aspect {aspect:.2f} is not a card's (0.55-0.85)"
    opaque = img[..., 3] > 128
    cover = float(opaque.mean())
    if cover < 0.8:
        return f"only {cover:.0%} opaque"
    gray = cv2.cvtColor(img[..., :3], cv2.COLOR_BGR2GRAY)[opaque]
    if float(gray.std()) < 4.0:
        return "near-uniform (blank)"
    return None


def _rsvg(deck: DeckInfo, eid: str, zoom: float) -> np.ndarray | None:
    exe = shutil.which("rsvg-convert")
    if exe is None:
        raise DeckError("rsvg-convert not found: install librsvg2-bin")
    if deck.scheme == "files":  # one card per file: the whole file (on its paper, if any)
        paper = _deck_meta(deck.path).get("paper") if (deck.path / "deck.json").is_file() else None
        src, pick = deck.path / eid, [f"--background-color={paper}"] if paper else []
    else:
        src, pick = deck.path, [f"--export-id={eid}"]
    with tempfile.TemporaryDirectory(prefix="tablescan-render-") as tmp:
        out = Path(tmp) / "card.png"
        r = subprocess.run(
            [exe, *pick, "-z", f"{zoom:.5f}", "-o", str(out), str(src)],
            capture_output=True,
            timeout=120,
            check=False,
        )
        if r.returncode != 0 or not out.exists():
            log.info("rsvg-convert %s#%s failed: %s", deck.name, eid, r.stderr[:200])
            return None
        img = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
    if img is not None and img.ndim == 3 and img.shape[2] == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    return img


def _card_box(img: np.ndarray) -> tuple[int, int, int, int] | None:
    """Box (x, y, w, h) of the largest opaque blob: rsvg's element box often holds empty
    space around the card (a transform it did not account for), so trim to the ink."""
    mask = (img[..., 3] > 16).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return None
    i = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, w, h = (int(v) for v in stats[i, :4])
    return x, y, w, h


def _read_png(path: Path, height: int) -> np.ndarray | None:
    """A PNG card face (a ``files`` design) trimmed to the card, ``height`` pixels tall."""
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None:
        return None
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
    elif img.shape[2] == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    box = _card_box(img)
    if box is None:
        return None
    x, y, w, h = box
    card = img[y : y + h, x : x + w]
    width = max(1, round(w * height / h))
    interp = cv2.INTER_AREA if h >= height else cv2.INTER_CUBIC
    return cv2.resize(card, (width, height), interpolation=interp)


def _render_uncached(deck: DeckInfo, eid: str, height: int) -> np.ndarray | None:
    """Render at zoom 1 to find the card inside rsvg's box, then at the zoom that makes the
    card ``height`` pixels tall, trimmed to the card and resized to exactly that height."""
    if deck.scheme == "files" and not eid.lower().endswith((".svg", ".svgz")):
        return _read_png(deck.path / eid, height)
    probe_zoom = 0.25  # enough to find the card; rsvg's box can be a whole sheet
    probe = _rsvg(deck, eid, probe_zoom)
    box = _card_box(probe) if probe is not None else None
    if box is None or box[3] < 4:
        return None
    zoom = probe_zoom * height * 1.05 / box[3]
    img = _rsvg(deck, eid, zoom)
    box = _card_box(img) if img is not None else None
    if img is None or box is None:
        return None
    x, y, w, h = box
    card = img[y : y + h, x : x + w]
    width = max(1, round(w * height / h))
    card = cv2.resize(card, (width, height), interpolation=cv2.INTER_AREA)
    files = deck.scheme == "files" and (deck.path / "deck.json").is_file()
    if files and _deck_meta(deck.path).get("paper"):
        card = _rounded(card)
    return card


def render_card(deck: DeckInfo, card: str, height: int) -> np.ndarray:
    """``card`` of ``deck`` as a BGRA uint8 image ``height`` pixels tall, cached on disk.

    Raises ``BrokenRenderError`` when the design renders that element badly (remembered in
    the cache too, so a broken element costs one rsvg run only).
    """
    if height < 16 or height > 4096:
        raise DeckError(f"height {height}: expected 16..4096 pixels")
    eid = element_id(deck, card)
    key = hashlib.sha1(f"{deck.path}|{eid}|{height}".encode()).hexdigest()[:16]
    folder = cache_dir() / deck.name.replace("/", "_")
    png, bad = folder / f"{key}.png", folder / f"{key}.broken"
    if bad.exists():
        raise BrokenRenderError(f"{deck.name} {card} ({eid}): {bad.read_text()}")
    img = cv2.imread(str(png), cv2.IMREAD_UNCHANGED) if png.exists() else None
    if img is not None:
        return img
    img = _render_uncached(deck, eid, height)
    reason = broken_reason(img, height) if img is not None else "rsvg-convert failed"
    folder.mkdir(parents=True, exist_ok=True)
    if reason is not None:
        bad.write_text(reason)
        raise BrokenRenderError(f"{deck.name} {card} ({eid}): {reason}")
    assert img is not None
    tmp = folder / f"{key}.{os.getpid()}.png"
    cv2.imwrite(str(tmp), img)
    tmp.replace(png)
    return img


def usable_cards(deck: DeckInfo, height: int = 64) -> list[str]:
    """Cards (and ``"back"``) of ``deck`` that render as proper cards at a probe height.

    A card whose aspect differs from the deck's median by more than 6% is also dropped: a
    crop that is merely plausible in shape but not this design's card size is broken too.
    """
    shapes: dict[str, float] = {}
    for card in (*CARD_NAMES, BACK):
        try:
            img = render_card(deck, card, height)
        except BrokenRenderError:
            continue
        shapes[card] = img.shape[1] / img.shape[0]
    if not shapes:
        return []
    median = float(np.median(list(shapes.values())))
    return [c for c, a in shapes.items() if abs(a - median) <= 0.06 * median]


#: Where an index is printed, in card heights from the card's top-left corner (x0, x1, y0,
#: y1): the part of the classifier's window that holds the rank and suit of every design.
INDEX_BOX = (0.015, 0.2, 0.015, 0.3)
INK_LEVEL = 60  # grey levels from the paper that count as print
INK_SHARE = 0.02  # a corner with less print than this share of its box carries no index
#: The part compared between the two corners: the rank-and-suit column only (wider, it
#: takes in border ornaments that some designs do not repeat turned).
MATCH_BOX = (0.015, 0.12, 0.015, 0.3)
#: Normalised correlation above which the lower corner repeats the upper: on the installed
#: designs repeated indices score 0.70-1.00, tango_nuevo's pictures in their place at most 0.33.
SAME_INDEX = 0.55


def _corner(grey: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
    h = grey.shape[0]
    x0, x1, y0, y1 = (round(v * h) for v in box)
    return grey[y0:y1, x0:x1]


def index_corners(img: np.ndarray) -> tuple[bool, bool]:
    """Whether a face render (BGRA, upright) carries a readable index at its top-left corner
    and at its bottom-right one (the same index turned 180°).

    Why: some designs print no index at all (a joker that is only a picture) or only one
    (tango_nuevo's lower corner is the big pip); a label that calls such a corner readable
    teaches the localiser to fire on pictures and makes the evaluation demand the
    impossible. The top corner counts when it holds print; the lower one when it also
    repeats the top corner's print (turned), within a small shift."""
    bgr = img[..., :3].astype(np.float32)
    alpha = img[..., 3:].astype(np.float32) / 255.0 if img.shape[2] == 4 else 1.0
    grey = cv2.cvtColor((bgr * alpha + 255 * (1 - alpha)).astype(np.uint8), cv2.COLOR_BGR2GRAY)
    paper = float(np.argmax(np.bincount(grey.ravel(), minlength=256)))  # the commonest grey
    top = _corner(grey, MATCH_BOX)
    turned = grey[::-1, ::-1]
    x0, x1, y0, y1 = MATCH_BOX
    pad = 0.03
    low = _corner(turned, (max(0.0, x0 - pad), x1 + pad, max(0.0, y0 - pad), y1 + pad))

    def inked(a: np.ndarray) -> bool:
        return (
            a.size > 0
            and float(np.mean(np.abs(a.astype(np.float32) - paper) > INK_LEVEL)) >= INK_SHARE
        )

    upper = inked(_corner(grey, INDEX_BOX))
    if not upper or not inked(_corner(turned, INDEX_BOX)) or float(top.std()) < 1.0:
        return upper, False
    score = cv2.matchTemplate(low.astype(np.float32), top.astype(np.float32), cv2.TM_CCOEFF_NORMED)
    return upper, float(score.max()) >= SAME_INDEX
