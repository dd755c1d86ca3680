"""The referee never crashes on bad input: every event either judges or becomes a named error,
and the report stays JSON-ready (CONTRIBUTING: bad input is rejected, the rest keeps running)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.gouji import Rules
from engine.gouji.referee import GoujiReferee

CARDS = st.sampled_from(["3S", "4H", "5S", "9C", "10D", "JS", "QH", "KS", "AS", "2S", "SJ", "BJ"])
BAD = st.sampled_from(["ZZ", "11S", "", "bj", 7])

EVENT = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.just("play"),
            "seat": st.integers(-1, 7),
            "cards": st.lists(CARDS | BAD, max_size=6),
        }
    ),
    st.fixed_dictionaries({"type": st.just("pass"), "seat": st.integers(-1, 7)}),
    st.fixed_dictionaries(
        {
            "type": st.just("button"),
            "seat": st.integers(0, 5),
            "what": st.sampled_from(
                [
                    "yield",
                    "burn",
                    "mingdian",
                    "ask_count",
                    "foul",
                    "kou",
                    "geming",
                    "waive",
                    "jiefeng",
                    "no_gouji",
                    "bogus",
                ]
            ),
        }
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("show"),
            "seat": st.integers(0, 5),
            "what": st.just("liang3"),
            "cards": st.lists(CARDS, max_size=3),
        }
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("exchange"),
            "seat": st.integers(0, 5),
            "to": st.integers(-1, 6),
            "count": st.integers(0, 3),
            "what": st.sampled_from(["buy", "give"]),
        }
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("correction"),
            "ref": st.integers(0, 40),
            "cards": st.lists(CARDS, min_size=1, max_size=3),
        }
    ),
    st.fixed_dictionaries({"type": st.sampled_from(["hand_end", "hand_start", "nonsense"])}),
)


@settings(max_examples=150, deadline=None)
@given(pid=st.sampled_from(Rules.ids()), body=st.lists(EVENT, max_size=40))
def test_random_events_never_crash_the_referee(pid: str, body: list[dict[str, Any]]) -> None:
    ref = GoujiReferee(Rules.load(pid))
    head = [
        {
            "type": "match_start",
            "game": "gouji",
            "profile": pid,
            "seats": list("abcdef"),
            "teams": [[0, 2, 4], [1, 3, 5]],
            "levels": ["-", "-"],
        },
        {"type": "hand_start", "hand": 1, "banker": 0, "level": "-"},
    ]
    for seq, ev in enumerate([*head, *body]):
        out = ref.feed({"v": 1, "seq": seq, "t": float(seq), **ev})
        assert isinstance(out, list)
    json.dumps(ref.report(), ensure_ascii=False)
    json.dumps(ref.state(), ensure_ascii=False)
    assert all("problem" in e for e in ref.report()["errors"])
