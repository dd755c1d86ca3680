"""The sure score: the lowest recognizer score whose reads are precise enough to trust, and
the table node taking it from the model unless the table config names its own."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from tablescan.config import load_config
from tablescan.render import RenderResult
from tablescan.wiring import DEFAULT_MIN_SCORE, min_score_of
from vision.detect import Thresholds
from vision.eval import judged_reads, sure_score


def test_judged_reads_give_truth_copies_to_the_surest_reads() -> None:
    reads = judged_reads(Counter({"7H": 1, "AS": 2}), [("7H", 0.6), ("7H", 0.9), ("AS", 0.8)])
    assert sorted(reads) == [(0.6, False), (0.8, True), (0.9, True)]


def test_sure_score_is_the_lowest_precise_enough_threshold() -> None:
    # 100 right reads spread over 0.50..0.99, and wrong ones all below 0.70
    reads = [(0.5 + k / 200, True) for k in range(100)] + [(0.55, False), (0.69, False)]
    assert sure_score(reads, target=1.0) == 0.7
    assert sure_score(reads, target=0.9) == 0.5
    assert sure_score([(0.95, False)], target=0.99) == 0.99  # never precise: the top score


class _Det:
    def __init__(self, t: Thresholds | None) -> None:
        if t is not None:
            self.thresholds = t


def test_min_score_from_model_unless_configured(clip: RenderResult) -> None:
    cfg = load_config(clip.table)
    assert cfg.min_score is None  # render-match leaves it to the model
    assert min_score_of(cfg, _Det(Thresholds(sure_score=0.83))) == 0.83
    assert min_score_of(cfg, _Det(None)) == DEFAULT_MIN_SCORE
    assert min_score_of(replace(cfg, min_score=0.4), _Det(Thresholds(sure_score=0.83))) == 0.4
