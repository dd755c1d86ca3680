"""engine.boundedjson: what json.loads would parse within bounds comes back the same; past a
bound it is one BadJson line, never a RecursionError."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.boundedjson import BadJson, depth, parse

scalars = st.none() | st.booleans() | st.integers(-(10**30), 10**30) | st.text(max_size=20)
scalars |= st.floats(allow_nan=False, allow_infinity=False)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=30,
)


@given(values)
def test_valid_json_within_bounds_parses_as_json_loads_does(value: Any) -> None:
    text = json.dumps(value)
    assert parse(text) == json.loads(text)
    assert parse(text.encode()) == json.loads(text)


@given(st.integers(1, 300), st.text(alphabet='[]{}"\\ab', max_size=10))
def test_depth_ignores_brackets_inside_strings(n: int, noise: str) -> None:
    text = "[" * n + json.dumps(noise) + "]" * n
    assert depth(text) == n


@pytest.mark.parametrize(
    ("payload", "problem"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested 100000 deep (at most 64)"),
        ('{"seq": ' + "9" * 100_000 + "}", "a number with 100000 digits (at most 40)"),
        ('{"x": 1e' + "9" * 100 + "}", "a number of 102 characters"),
        ("[1e400]", "the number 1e400 is out of range"),
        ('"\\ud800"', "a lone surrogate '\\ud800' in a string"),
        ('{"\\udfff": 1}', "a lone surrogate '\\udfff' in a string"),
        ("[NaN]", "NaN is not JSON"),
        (b"\xff{}", "not UTF-8 text (invalid start byte at byte 0)"),
        ("[1,", "not JSON (Expecting value at column 4)"),
        (b" " * 2_000_000, "2000000 bytes (at most 1048576)"),
    ],
)
def test_each_bound_is_one_line(payload: str | bytes, problem: str) -> None:
    with pytest.raises(BadJson) as caught:
        parse(payload)
    assert str(caught.value).startswith(problem) and "\n" not in str(caught.value)


def test_a_surrogate_pair_is_one_character() -> None:
    assert parse('"\\ud83d\\ude00"') == "\U0001f600"
