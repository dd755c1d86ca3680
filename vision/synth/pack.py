"""Render packs (``python -m models.pack_renders``): a tar of ``manifest.json`` and
``<folder>/<card>.png``, served to the scene composer on a machine without the deck packages
(the lent GPU machine, ``vision.eval --renders``)."""

from __future__ import annotations

import json
import tarfile
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from vision.synth.decks import BACK, DeckInfo
from vision.synth.scene import SRC_HEIGHT, add_source


def load_pack(
    path: Path, split: str, on_fonts: Callable[[bytes], None] | None = None
) -> tuple[list[DeckInfo], dict[str, list[str]]]:
    """Serve a pack's renders to the scene composer; (decks, usable cards) as
    ``vision.synth.dataset.usable_decks`` gives them. ``split`` must be the pack's own;
    ``on_fonts`` takes the pack's glyph fonts (training)."""
    if not path.is_file():
        raise FileNotFoundError(f"render pack {path}: no such file (python -m models.pack_renders)")
    with tarfile.open(path, "r") as tar:
        member = tar.extractfile("manifest.json")
        if member is None:
            raise ValueError(f"render pack {path}: no manifest.json")
        manifest = json.loads(member.read())
        if manifest.get("split") != split:
            raise ValueError(f"render pack {path}: split {manifest.get('split')!r}, not {split!r}")
        if manifest.get("height") != SRC_HEIGHT:
            raise ValueError(
                f"render pack {path}: height {manifest.get('height')}, not {SRC_HEIGHT}"
            )
        decks: list[DeckInfo] = []
        usable: dict[str, list[str]] = {}
        for e in manifest["decks"]:
            d = DeckInfo(
                e["name"], Path("packed") / e["folder"], e["package"], e["scheme"], split == "eval"
            )
            cards = []
            for card in e["cards"]:
                f = tar.extractfile(f"{e['folder']}/{card}.png")
                raw = f.read() if f is not None else b""
                img = cv2.imdecode(np.frombuffer(raw, np.uint8), cv2.IMREAD_UNCHANGED)
                if img is None:
                    raise ValueError(f"render pack {path}: {e['folder']}/{card}.png unreadable")
                add_source(d.name, card, img)
                cards.append(card)
            decks.append(d)
            usable[d.name] = cards
        if on_fonts is not None and "fonts.npz" in tar.getnames():
            f = tar.extractfile("fonts.npz")
            if f is not None:
                on_fonts(f.read())
    # a design with few faces that render well is left out, as by the generator; an
    # enrolled deck is the tournament's own and always kept
    keep = [d for d in decks if split == "enrolled" or sum(c != BACK for c in usable[d.name]) >= 20]
    return keep, usable
