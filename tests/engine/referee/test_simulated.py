"""The referee against simulated matches whose hands are known.

* legal play, every profile: not one violation (and the referee's trick winners, points,
  bottom and outcome agree with the engine simulator's own ground truth);
* injected violations of every kind: each flagged by the seat where it happened, exactly at
  the first play that proves it (checked against a brute-force proof over the true record),
  never before; and nothing else flagged;
* an injected violation whose proof was never seen (the record stops first): never flagged.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.tractor.record_sim import INJECTABLE, simulate
from engine.tractor.referee import Referee
from engine.tractor.rules import Rules, profile_ids
from engine.tractor.sim import hand_summary, match_events, simulate_match

PROFILES = profile_ids()
# The first proof of a missed tractor can be a missed pair (both copies of one pair seen
# before the whole tractor is): a true violation, flagged at once under the rule it proves.
SAME_FAULT = {("missed_tractor", "missed_pair")}


def judge(rules: Rules, events: list[dict[str, Any]]) -> tuple[Referee, dict[str, int]]:
    """Feed every event; remember at which seq each violation id first appeared."""
    ref = Referee(rules)
    first_seen: dict[str, int] = {}
    for ev in events:
        for r in ref.feed(ev):
            if r["kind"] == "violation":
                first_seen.setdefault(r["id"], ev["seq"])
    return ref, first_seen


@pytest.mark.parametrize("profile", PROFILES)
def test_legal_simulated_hands_have_no_violations(profile: str) -> None:
    rules = Rules.load(profile)
    hands = 0
    for seed in range(6):
        events, truth = simulate(rules, seed, hands=2)
        ref, _ = judge(rules, events)
        assert ref.violations() == [], (seed, [v.as_dict() for v in ref.violations()])
        assert ref.errors == []
        assert truth["injected"] == []
        hands += len(ref.hands)
    assert hands == 12


@pytest.mark.parametrize("profile", PROFILES)
def test_referee_agrees_with_the_engine_simulator(profile: str) -> None:
    """The engine's own simulator (declarations, overcalls, fallbacks) writes the record; the
    referee, seeing only the record, reaches the same tricks, points, bottom and outcome."""
    rules = Rules.load(profile)
    for seed in range(3):
        match = simulate_match(rules, seed, max_hands=2)
        ref, _ = judge(rules, match_events(match))
        assert ref.violations() == []
        report = ref.report()["hands"]
        assert len(report) == len(match.hands)
        for sim_hand, mine in zip(match.hands, report, strict=True):
            truth = hand_summary(sim_hand)
            assert mine["banker"] == truth["banker"]
            assert mine["trump"] == truth["trump"]
            assert [t["winner"] for t in mine["tricks"]] == [t["winner"] for t in truth["tricks"]]
            assert [t["points"] for t in mine["tricks"]] == [t["points"] for t in truth["tricks"]]
            assert mine["attacker_points"] == truth["attacker_points"]
            if truth["bottom"]["multiplier"]:
                assert mine["bottom"]["multiplier"] == truth["bottom"]["multiplier"]
            for key in ("side", "levels", "next_banker", "banker_level", "game_over"):
                assert mine["outcome"][key] == truth["outcome"][key], key


@pytest.mark.parametrize("profile", PROFILES)
def test_injected_violations_are_flagged_exactly_at_their_first_proof(profile: str) -> None:
    rules = Rules.load(profile)
    kinds_seen: set[str] = set()
    for seed in range(5):
        events, truth = simulate(rules, 1000 + seed, hands=2, inject=5)
        ref, first_seen = judge(rules, events)
        flagged = {(v.seat, v.at_seq): v for v in ref.violations()}
        for inj in truth["injected"]:
            kinds_seen.add(inj["rule"])
            v = flagged.pop((inj["seat"], inj["at_seq"]), None)
            assert inj["provable"], inj  # a complete deal shows every card
            assert v is not None, ("missed", seed, inj)
            assert v.rule == inj["rule"] or (inj["rule"], v.rule) in SAME_FAULT, (inj, v)
            assert v.proven_by_seq == inj["proven_by_seq"], (inj, v.as_dict())
            assert first_seen[v.id] == inj["proven_by_seq"]  # never before its proof
            assert v.evidence, v
        assert flagged == {}, ("false accusations", seed, [v.as_dict() for v in flagged.values()])
    assert len(kinds_seen) >= 4, kinds_seen


@pytest.mark.parametrize("kind", [k for k in INJECTABLE if k != "missed_tractor"])
def test_each_kind_is_injected_and_caught(kind: str) -> None:
    rules = Rules.load("xize-1h")
    caught = 0
    for seed in range(4):
        events, truth = simulate(rules, seed, hands=2, inject=2, kinds=[kind])
        ref, _ = judge(rules, events)
        found = {(v.rule, v.seat, v.at_seq) for v in ref.violations()}
        for inj in truth["injected"]:
            assert (inj["rule"], inj["seat"], inj["at_seq"]) in found
            caught += 1
    assert caught >= 2


def test_unproven_violations_are_never_flagged() -> None:
    """Cut the record just before each retroactive proof: the referee must stay silent."""
    rules = Rules.load("standard")
    checked = 0
    for seed in range(6):
        events, truth = simulate(
            rules, 2000 + seed, hands=1, inject=4, kinds=["revoke", "missed_pair", "failed_throw"]
        )
        for inj in truth["injected"]:
            if inj["proven_by_seq"] == inj["at_seq"]:
                continue
            cut = [e for e in events if e["seq"] < inj["proven_by_seq"]]
            ref, _ = judge(rules, cut)
            assert (inj["seat"], inj["at_seq"]) not in {
                (v.seat, v.at_seq) for v in ref.violations()
            }
            checked += 1
    assert checked >= 5


def test_same_record_same_rulings() -> None:
    rules = Rules.load("chaodipi-h5")
    events, _ = simulate(rules, 7, hands=2, inject=4)
    one, _ = judge(rules, events)
    two, _ = judge(rules, events)
    assert one.report() == two.report()
    assert one.violations()
