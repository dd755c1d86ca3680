"""The synthetic-data generator: HOLDOUT refusal, broken-render skip, seeded determinism."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.synth.dataset import DatasetSpec, generate, usable_decks
from vision.synth.decks import (
    HOLDOUT,
    BrokenRenderError,
    DeckError,
    HoldoutError,
    all_decks,
    broken_reason,
    check_split,
    element_id,
    list_decks,
    render_card,
)
from vision.synth.scene import SceneConfig, compose_scene

SMALL = SceneConfig(width=320, height=200, card_height=(40.0, 90.0), max_cards=8)


def _deck(name: str):  # type: ignore[no-untyped-def]
    found = [d for d in all_decks() if d.name == name]
    assert found, f"deck {name} not installed (gnome-cards-data / kdegames-card-data-kf5)"
    return found[0]


def test_train_split_never_lists_a_holdout_design() -> None:
    train = list_decks("train")
    evals = list_decks("eval")
    assert train and evals
    assert not any(d.holdout for d in train)
    assert all(d.holdout for d in evals)
    held = {(d.package, d.path.name) for d in evals}
    assert {(p, f.rsplit("/", 1)[-1]) for p, f in HOLDOUT} == held


def test_generator_refuses_holdout_designs_unless_eval_is_asked() -> None:
    evals = list_decks("eval")
    with pytest.raises(HoldoutError, match="reserved for evaluation"):
        check_split(evals[:1], "train")
    check_split(evals, "eval")  # an evaluation set may use them
    with pytest.raises(DeckError, match="split 'test'"):
        list_decks("test")


def test_broken_reason_catches_blank_sliver_and_transparent_renders() -> None:
    card = np.zeros((100, 70, 4), np.uint8)
    card[..., 3] = 255
    card[10:30, 10:20, :3] = 200
    assert broken_reason(card, 100) is None
    blank = card.copy()
    blank[..., :3] = 255
    assert "uniform" in (broken_reason(blank, 100) or "")
    assert "aspect" in (broken_reason(card[:, :10], 100) or "")
    see_through = card.copy()
    see_through[:, 20:, 3] = 0
    assert broken_reason(see_through, 100) is not None
    assert "height" in (broken_reason(card, 120) or "")


def test_a_design_whose_elements_render_blank_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TABLESCAN_CARD_CACHE", str(tmp_path))
    konqi = _deck("kde/svg-konqi-modern")  # its queen renders as an empty box
    with pytest.raises(BrokenRenderError):
        render_card(konqi, "QS", 64)
    with pytest.raises(BrokenRenderError):  # remembered in the cache, same answer
        render_card(konqi, "QS", 64)
    good = render_card(_deck("gnome/anglo"), "QS", 64)
    assert good.shape[0] == 64 and good.shape[2] == 4
    assert broken_reason(good, 64) is None


def test_element_ids_follow_each_package_scheme() -> None:
    assert element_id(_deck("gnome/anglo"), "10H") == "heart_10"
    assert element_id(_deck("gnome/anglo"), "BJ") == "joker_red"
    assert element_id(_deck("kde/svg-standard"), "QS") == "queen_spade"
    assert element_id(_deck("kde/svg-standard"), "SJ") == "black_joker"
    with pytest.raises(DeckError):
        element_id(_deck("kde/svg-standard"), "1X")


def test_scenes_are_deterministic_with_a_seed() -> None:
    decks, usable = usable_decks("train", ("gnome/anglo",))
    a = compose_scene(np.random.default_rng([7, 1]), decks, usable, SMALL)
    b = compose_scene(np.random.default_rng([7, 1]), decks, usable, SMALL)
    c = compose_scene(np.random.default_rng([7, 2]), decks, usable, SMALL)
    assert np.array_equal(a.image, b.image)
    assert a.to_json() == b.to_json()
    assert not np.array_equal(a.image, c.image) or a.to_json() != c.to_json()
    assert a.cards, "a scene holds cards"
    for card in a.cards:
        assert len(card.quad) == 4
        if card.card != "back":
            assert len(card.indices) == 2


def test_dataset_writer_is_seeded_and_complete(tmp_path: Path) -> None:
    only = ("gnome/anglo", "gnome/paris")
    spec = DatasetSpec(tmp_path / "a", count=2, seed=3, only=only, config=SMALL)
    paths = generate(spec, progress=False)
    again = generate(DatasetSpec(tmp_path / "b", 2, 3, only=only, config=SMALL), progress=False)
    assert [p.name for p in paths] == ["scene_000000.jpg", "scene_000001.jpg"]
    for p, q in zip(paths, again, strict=True):
        assert p.read_bytes() == q.read_bytes()
        labels = json.loads(p.with_suffix(".json").read_text())
        assert labels["size"] in ([320, 200], [640, 640])
        assert set(labels["decks"]) <= set(only)
    with pytest.raises(HoldoutError):
        check_split(list_decks("eval"), "train")
