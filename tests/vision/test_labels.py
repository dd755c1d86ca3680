"""Honest labels: a corner where the design prints no index is never counted as readable,
neither by the generator's labels nor by ``vision.eval``."""

from __future__ import annotations

from collections import Counter

import cv2
import numpy as np

from vision.eval import scene_truth
from vision.synth.dataset import usable_decks
from vision.synth.decks import all_decks, index_corners, render_card
from vision.synth.scene import CardLabel, IndexLabel, Scene, SceneConfig, compose_scene

SMALL = SceneConfig(width=480, height=320, card_height=(90.0, 160.0), max_cards=6)


def _card(top: bool, bottom: bool, picture: bool = False) -> np.ndarray:
    """A 320×224 BGRA face: a rank-and-suit index in the top-left corner (when ``top``),
    the same index turned at the bottom-right (``bottom``), or a picture there instead."""
    img = np.full((320, 224, 4), 255, np.uint8)
    cv2.rectangle(img, (60, 90), (164, 230), (40, 40, 200, 255), -1)  # the middle of the face
    if top:
        cv2.putText(img, "7", (10, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (0, 0, 0, 255), 3)
        cv2.circle(img, (22, 62), 9, (0, 0, 0, 255), -1)
    if bottom:
        img[240:, 150:] = cv2.rotate(img[:80, :74], cv2.ROTATE_180)
    elif picture:
        cv2.ellipse(img, (200, 290), (40, 60), 30, 0, 360, (0, 120, 0, 255), -1)
    return img


def test_index_corners_tell_printed_corners_from_blank_and_pictures() -> None:
    assert index_corners(_card(True, True)) == (True, True)
    assert index_corners(_card(True, False)) == (True, False)
    assert index_corners(_card(True, False, picture=True)) == (True, False)
    assert index_corners(_card(False, False)) == (False, False)


def _deck(name: str):  # type: ignore[no-untyped-def]
    return next(d for d in all_decks() if d.name == name)


def test_installed_designs_tango_nuevo_lower_corner_and_a_bare_joker() -> None:
    for card in ("7C", "QH", "AS"):
        assert index_corners(render_card(_deck("gnome/tango_nuevo"), card, 320)) == (True, False)
        assert index_corners(render_card(_deck("kde/svg-standard"), card, 320)) == (True, True)
    assert index_corners(render_card(_deck("gnome/dondorf"), "BJ", 320)) == (False, False)


def test_scene_labels_give_an_unprinted_corner_no_visibility() -> None:
    decks, usable = usable_decks("eval", ("gnome/tango_nuevo",))
    scene = compose_scene(np.random.default_rng([5, 0]), decks, usable, SMALL)
    faces = [c for c in scene.cards if c.card != "back"]
    assert faces
    for c in faces:
        top, low = c.indices
        assert top.printed and not low.printed
        assert low.visible == 0.0 and 0.0 <= low.shown <= 1.0
    js = scene.to_json()["cards"]
    assert any(i["printed"] is False for c in js for i in c["indices"])  # type: ignore[index]


def _label(card: str, top: tuple[float, bool], low: tuple[float, bool]) -> CardLabel:
    quad = [(0.0, 0.0), (70.0, 0.0), (70.0, 100.0), (0.0, 100.0)]
    ix = [IndexLabel((7.0, 15.0), (0.0, 1.0), 100.0, v if p else 0.0, p, v) for v, p in (top, low)]
    return CardLabel(card, quad, (35.0, 50.0), 100.0, 1.0, ix)


def test_eval_never_requires_a_card_shown_only_by_an_unprinted_corner() -> None:
    img = np.zeros((100, 100, 3), np.uint8)
    scene = Scene(
        img,
        [
            _label("7C", (0.0, True), (1.0, False)),  # only the bare corner in view
            _label("8H", (1.0, True), (1.0, True)),
            _label("9S", (0.0, True), (1.0, True)),  # its printed lower index in view
            _label("KD", (0.1, True), (0.1, False)),  # hidden
        ],
        ["test"],
    )
    must, may, backs = scene_truth(scene)
    assert must == Counter({"8H": 1, "9S": 1})
    assert may == Counter({"7C": 1})  # reading it anyway (from its picture) is no error
    assert backs == (0, 0)
