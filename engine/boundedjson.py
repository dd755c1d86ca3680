"""JSON from a peer, parsed within bounds: size, nesting depth, number length, valid Unicode.

``json.loads`` recurses once per nesting level (a 100,000-deep array raises ``RecursionError``,
which no ``except ValueError`` catches and which kills whatever thread met it), turns a
100,000-digit number into a ``ValueError`` only after the work, and accepts lone surrogates
(``"\\ud800"``) that later fail to encode when stored or printed. Every JSON that comes from
outside (a record line, an MQTT payload, a dashboard POST) goes through ``parse``: the depth is
measured on the text before ``json.loads`` sees it, so every failure is one ``BadJson``
(a ``ValueError``) whose message names the problem in one line.
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from typing import Any

MAX_DEPTH = 64  # a record event nests 3 or 4 deep; a ruling's evidence a few more
MAX_DIGITS = 40  # a seq, a time or a count: far under this
MAX_BYTES = 1 << 20

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


class BadJson(ValueError):
    """A peer's JSON that is refused: the message says why in one line."""


def depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text`` (brackets inside strings do not
    count), measured without recursion."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def _bounded_int(limit: int) -> Any:
    def parse_int(s: str) -> int:
        if len(s.lstrip("-")) > limit:
            raise BadJson(f"a number with {len(s.lstrip('-'))} digits (at most {limit})")
        return int(s)

    return parse_int


def _bounded_float(limit: int) -> Any:
    def parse_float(s: str) -> float:
        if len(s) > limit + 8:  # digits, a point, an exponent
            raise BadJson(f"a number of {len(s)} characters (at most {limit + 8})")
        value = float(s)
        if not math.isfinite(value):
            raise BadJson(f"the number {s} is out of range")
        return value

    return parse_float


def _no_constant(name: str) -> Any:
    raise BadJson(f"{name} is not JSON")


def _check_strings(obj: Any) -> None:
    """Every string (key or value) encodes as UTF-8: no lone surrogate. Iterative."""
    todo = [obj]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as e:
                raise BadJson(f"a lone surrogate {item[e.start]!r} in a string") from None
        elif isinstance(item, dict):
            todo += item.keys()
            todo += item.values()
        elif isinstance(item, list):
            todo += item


def parse(
    data: str | bytes | bytearray | memoryview,
    *,
    max_bytes: int = MAX_BYTES,
    max_depth: int = MAX_DEPTH,
    max_digits: int = MAX_DIGITS,
) -> Any:
    """``json.loads`` within bounds; ``BadJson`` names the first bound broken (or the JSON
    error and its column)."""
    if isinstance(data, str):
        text = data
        if len(text) > max_bytes:
            raise BadJson(f"{len(text)} characters (at most {max_bytes})")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as e:
            raise BadJson(f"a lone surrogate {text[e.start]!r} in the text") from None
    else:
        raw = bytes(data)
        if len(raw) > max_bytes:
            raise BadJson(f"{len(raw)} bytes (at most {max_bytes})")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise BadJson(f"not UTF-8 text ({e.reason} at byte {e.start})") from None
    opens = text.count("[") + text.count("{")
    if opens > max_depth and (found := depth(text)) > max_depth:
        raise BadJson(f"nested {found} deep (at most {max_depth})")
    try:
        value = json.loads(
            text,
            parse_int=_bounded_int(max_digits),
            parse_float=_bounded_float(max_digits),
            parse_constant=_no_constant,
        )
    except BadJson:
        raise
    except json.JSONDecodeError as e:
        raise BadJson(f"not JSON ({e.msg} at column {e.colno})") from None
    except (ValueError, RecursionError) as e:  # bounds above make these unreachable; belt
        raise BadJson(f"not JSON ({type(e).__name__})") from None
    if _SURROGATE_ESCAPE.search(text):
        _check_strings(value)
    return value
