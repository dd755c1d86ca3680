"""The match record: one JSON object per line, the only format between camera, engine, store
and dispute exports (docs/record-format.md).

``record_schema.json`` beside this file is the single source of truth for what a valid event
is; a small in-house validator applies it, so there is no schema dependency and no second copy
of the rules in code. Events stay plain dicts (JSON-ready, what the store keeps; ``Event`` is a
``TypedDict`` over them); this module
validates them, checks the ``seq`` chain, and reads and writes JSON Lines. Which referee judges
a match is ``engine.games``' business.

Reading never stops at a bad line: ``read_record`` returns the good events and one
``RecordError`` per bad line (with its line number), and the caller judges what is left.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import re
import stat
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import IO, Any, Required, TypedDict, cast

from engine.boundedjson import BadJson, parse
from engine.cards import Card, parse_cards

log = logging.getLogger(__name__)

VERSION = 1


class Event(TypedDict, total=False):
    """A record event: ``v``, ``seq``, ``t`` and ``type``, then the fields of that type
    (record_schema.json says which; the schema, not this type, is the truth on what is valid).
    A ``TypedDict``, so at run time it stays a plain JSON-ready dict: what the store keeps and
    the wire carries. No key is ``Required``: producers build an event's body (no ``v``,
    ``seq`` or ``t`` yet) in the same type before ``SeqCounter`` stamps it, and a validated
    event (``validate_event``) always has all four."""

    v: int
    seq: int
    t: float
    type: str
    table: str
    meta: dict[str, Any]
    # match_start
    game: str
    profile: str
    options: dict[str, Any]
    clock: dict[str, Any]  # match_start: the match clock in force (minutes, from)
    seats: list[str]
    teams: list[list[int]]
    levels: list[str]
    # hand_start, trump, correction
    hand: int
    banker: int | None
    level: str
    suit: str | None
    # plays, passes, buttons, exchanges, shows
    seat: int
    to: int
    cards: list[str] | None  # null only in an exchange or show seen face-down
    count: int
    what: str
    evidence: str | None
    reads: list[dict[str, Any]]
    confidence: float
    # hand_end, match_end, needs_referee, correction, violation, ruling
    reason: str
    result: dict[str, Any]
    by: str
    ref: int | str  # a correction's or needs_referee's seq; a ruling's violation id
    why: str
    delete: bool
    candidates: list[dict[str, Any]]
    rule: str
    note: str
    at: int
    penalty: dict[str, Any]
    decision: str
    # set by apply_corrections on an event it changed, never written in a record
    corrected_by: list[int]


class RulingFields(TypedDict, total=False):
    """A ``Ruling``'s fields but ``kind``: what a referee's note adds to its kind."""

    hand: int
    seat: int | None
    at_seq: int | None
    seq: int | None
    # error
    type: str | None
    problem: str
    # trick
    trick: int
    winner: int | None
    points: int
    # hand: tractor's points and levels, Gouji's places and scores
    outcome: dict[str, Any] | None
    attacker_points: int | None
    bottom: dict[str, Any] | None
    levels_after: list[str] | None
    banker: int | None  # the deal's banker (tractor)
    # trump (tractor): the deal's trump as the referee took it, or unknown
    trump: dict[str, Any] | None
    unknown: bool
    # violation (``id``, ``how`` and ``status`` tractor's; a penalty dict there, Gouji's words)
    id: str
    rule: str
    proven_by_seq: int
    evidence: list[str]
    penalty: dict[str, Any] | str
    how: str
    status: str
    provisional: bool
    detail: str
    cards: list[str]
    # withdrawn, and a trick or deal whose result a correction moved
    by_seq: int
    # Gouji notes
    why: str
    place: int
    on: int
    mode: str
    by: int  # the blocking seat
    to: int  # a tribute's receiver
    count: int  # a tribute's cards handed over
    tribute: str  # jin (进贡) | huan (还贡)


class Ruling(RulingFields, total=False):
    """One finding a referee's ``feed`` returns: ``kind`` and that kind's fields
    (docs/record-format.md, "Violations in the report"). Tractor kinds: ``trick``, ``hand``,
    ``violation``, ``withdrawn``, ``error``; Gouji adds its notes (``place``,
    ``needs_referee``, ``kou``, ``blocked``, ...). A ``TypedDict`` for the same reason as
    ``Event``: stored and sent as plain JSON."""

    kind: Required[str]


COMMON_FIELDS = ("v", "seq", "t", "type")


class RecordError(ValueError):
    """A record line or event that is not valid. ``line`` (1-based, when read from a file),
    ``seq`` and ``field`` say where; ``str()`` says all of it in one sentence."""

    def __init__(
        self,
        problem: str,
        *,
        line: int | None = None,
        seq: int | None = None,
        field: str | None = None,
    ) -> None:
        self.problem = problem
        self.line = line
        self.seq = seq
        self.field = field
        super().__init__(self._text())

    def _text(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.seq is not None:
            where.append(f"seq {self.seq}")
        if self.field:
            where.append(f"field {self.field!r}")
        return (", ".join(where) + ": " if where else "") + self.problem

    def at_line(self, line: int) -> RecordError:
        """The same error, located at a file line."""
        return RecordError(self.problem, line=line, seq=self.seq, field=self.field)

    def as_dict(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "seq": self.seq,
            "field": self.field,
            "problem": self.problem,
            "message": str(self),
        }


# --- the in-house JSON Schema validator (the subset record_schema.json uses) ---------------


@cache
def schema() -> dict[str, Any]:
    """The record schema, loaded once from the package data."""
    text = resources.files("engine").joinpath("record_schema.json").read_text(encoding="utf-8")
    return cast(dict[str, Any], json.loads(text))


def event_types() -> tuple[str, ...]:
    """Every event type the schema defines, in its documented order."""
    return tuple(schema()["$defs"]["events"])


def _resolve(ref: str) -> dict[str, Any]:
    if not ref.startswith("#/"):
        raise ValueError(f"record_schema.json: only local $ref is supported, got {ref!r}")
    node: Any = schema()
    for part in ref[2:].split("/"):
        node = node[part]
    return cast(dict[str, Any], node)


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "boolean": (bool,),
    "null": (type(None),),
    "number": (int, float),
    "integer": (int,),
}


def _type_ok(value: Any, name: str) -> bool:
    if name in ("number", "integer") and isinstance(value, bool):
        return False
    if name == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _JSON_TYPES[name])


def _check(value: Any, sch: dict[str, Any], path: str) -> None:
    """Validate ``value`` against ``sch``; raise RecordError naming ``path`` on the first fault."""
    if "$ref" in sch:
        _check(value, _resolve(sch["$ref"]), path)
    if "const" in sch and value != sch["const"]:
        raise RecordError(f"expected {sch['const']!r}, got {value!r}", field=path)
    types = sch.get("type")
    if types is not None:
        names = [types] if isinstance(types, str) else list(types)
        if not any(_type_ok(value, n) for n in names):
            raise RecordError(
                f"expected {' or '.join(names)}, got {type(value).__name__} {value!r}", field=path
            )
    if "enum" in sch and value not in sch["enum"]:
        raise RecordError(f"{value!r} is not one of {sch['enum']}", field=path)
    if isinstance(value, str):
        if len(value) < sch.get("minLength", 0):
            raise RecordError("must not be empty", field=path)
        if "pattern" in sch and not re.search(sch["pattern"], value):
            hint = f" (expected {sch['description']})" if "description" in sch else ""
            raise RecordError(f"{value!r} is not valid{hint}", field=path)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in sch and value < sch["minimum"]:
            raise RecordError(f"{value!r} is below the minimum {sch['minimum']}", field=path)
        if "maximum" in sch and value > sch["maximum"]:
            raise RecordError(f"{value!r} is above the maximum {sch['maximum']}", field=path)
    if isinstance(value, list):
        if len(value) < sch.get("minItems", 0):
            raise RecordError(f"needs at least {sch['minItems']} item(s)", field=path)
        if "maxItems" in sch and len(value) > sch["maxItems"]:
            raise RecordError(f"allows at most {sch['maxItems']} item(s)", field=path)
        for i, (item, each) in enumerate(zip(value, sch.get("prefixItems", ()), strict=False)):
            _check(item, each, f"{path}[{i}]")  # a tuple: each place its own schema
        if "items" in sch:
            for i, item in enumerate(value):
                _check(item, sch["items"], f"{path}[{i}]")
    if isinstance(value, dict):
        for key in sch.get("required", ()):
            if key not in value:
                raise RecordError("missing required field", field=_join(path, key))
        props: dict[str, Any] = sch.get("properties", {})
        for key, item in value.items():
            if key in props:
                _check(item, props[key], _join(path, key))
            elif sch.get("additionalProperties", True) is False:
                raise RecordError("unknown field", field=_join(path, key))


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def validate_event(obj: Any) -> Event:
    """Check one event against the schema and return it (as given: a JSON-ready dict).

    Raises ``RecordError`` naming the field and the problem, e.g. ``seq 12, field
    'cards[1]': 'XH' is not valid here``. Card strings must be in canonical notation.
    """
    if not isinstance(obj, dict):
        raise RecordError(f"an event must be a JSON object, got {type(obj).__name__}")
    seq = obj.get("seq") if isinstance(obj.get("seq"), int) else None
    try:
        top = schema()
        for key in top["required"]:
            if key not in obj:
                raise RecordError("missing required field", field=key)
        _check(obj["v"], top["$defs"]["v"], "v")
        kind = obj["type"]
        defs = top["$defs"]["events"]
        if not isinstance(kind, str) or kind not in defs:
            raise RecordError(
                f"unknown event type {kind!r} (known: {', '.join(defs)})", field="type"
            )
        _check(obj, defs[kind], "")
        _check_reads(obj)
    except RecordError as e:
        raise RecordError(e.problem, seq=seq, field=e.field) from None
    return cast(Event, obj)


def _check_reads(obj: dict[str, Any]) -> None:
    """A play's or a bottom's ``reads`` outline cards the event has (a bury's, its backs)."""
    reads = obj.get("reads")
    if not reads:
        return
    have = Counter(["back"] * int(obj.get("count", 0)) if obj["type"] == "bury" else obj["cards"])
    for i, r in enumerate(reads):
        have[r["card"]] -= 1
        if have[r["card"]] < 0:
            raise RecordError(f"{r['card']!r} is not a card of this event", field=f"reads[{i}]")


def cards_text(event: Event) -> list[str]:
    """The event's ``cards`` in notation. A ``null`` (an exchange or show seen face-down)
    raises ``TypeError``, as using ``None`` as a list would."""
    cards = event["cards"]
    if cards is None:
        raise TypeError(f"{event.get('type')} seq {event.get('seq')} has no face-up cards")
    return cards


def cards_of(event: Event) -> list[Card]:
    """The event's ``cards`` as ``Card`` objects (validated events always parse)."""
    return parse_cards(cards_text(event))


# --- the seq chain and whole records --------------------------------------------------------


@dataclass
class RecordReader:
    """Validates a stream of events one by one, as the table node or a file produces them.

    ``seq`` must rise by exactly one per event. A repeated or lower ``seq`` (out of order) is
    an error and the event is dropped; a jump forward is an error (the missing events are
    named) but the event is kept, so one lost line does not blind the referee for the rest
    of the match. Errors are kept in ``errors`` and logged.
    """

    errors: list[RecordError] = field(default_factory=list)
    accepted: int = 0
    last_seq: int | None = None
    bad_seqs: set[int] = field(default_factory=set)

    def accept(self, obj: Any, line: int | None = None) -> Event | None:
        """Validate ``obj`` (a dict or one JSON text line); the event, or None if rejected."""
        try:
            if isinstance(obj, (str, bytes)):
                try:
                    text = obj.decode("utf-8") if isinstance(obj, bytes) else obj
                except UnicodeDecodeError as e:
                    raise RecordError(f"not UTF-8 text ({e.reason})") from None
                try:  # bounded: deep nesting, huge numbers, lone surrogates are one line
                    obj = parse(text, max_bytes=MAX_LINE * 4)
                except BadJson as e:
                    msg = str(e)
                    raise RecordError(
                        msg if msg.startswith("not ") else f"not JSON: {msg}"
                    ) from None
            raw_seq = obj.get("seq") if isinstance(obj, dict) else None
            try:
                event = validate_event(obj)
            except RecordError:
                # A bad line's seq is remembered so that it is not reported again as a gap;
                # it does not take the seq, so a good event with that seq is still read.
                if isinstance(raw_seq, int) and not isinstance(raw_seq, bool):
                    self.bad_seqs.add(raw_seq)
                raise
            seq = int(event["seq"])
            if self.last_seq is not None and seq <= self.last_seq:
                raise RecordError(
                    f"out of order: seq {seq} after seq {self.last_seq} (dropped)", seq=seq
                )
            if self.last_seq is not None and seq != self.last_seq + 1:
                # the ends of the gap, never the gap itself (a jump to seq 10**12 is one line)
                lo, hi = self.last_seq + 1, seq - 1
                while lo <= hi and lo in self.bad_seqs:
                    lo += 1
                while hi >= lo and hi in self.bad_seqs:
                    hi -= 1
                if lo <= hi:
                    gap = f"seq {lo}" if lo == hi else f"seq {lo}..{hi}"
                    self._fail(RecordError(f"gap: {gap} missing (event kept)", seq=seq), line)
            self.last_seq = seq
            self.accepted += 1
            return event
        except RecordError as e:
            self._fail(e, line)
            return None

    def _fail(self, err: RecordError, line: int | None) -> None:
        if line is not None:
            err = err.at_line(line)
        self.errors.append(err)
        log.warning("record: %s", err)


def read_record(
    source: str | Path | IO[str] | Iterable[str] | Iterable[Event],
) -> tuple[list[Event], list[RecordError]]:
    """Read a whole record: a path, an open text file, or an iterable of lines or dicts.

    Returns ``(events, errors)``; blank lines are skipped; every bad line gives one error
    with its 1-based line number and the rest is still read.
    """
    reader = RecordReader()
    events: list[Event] = []
    for number, item in _numbered(source):
        if item is _TOO_LONG:
            reader._fail(RecordError(f"line longer than {MAX_LINE} characters (skipped)"), number)
            continue
        if isinstance(item, str) and not item.strip():
            continue
        event = reader.accept(item, line=number)
        if event is not None:
            events.append(event)
    return events, reader.errors


MAX_LINE = 1 << 20  # one event is a few hundred bytes; a longer line is damage, not a record
_TOO_LONG = object()


def _numbered(source: str | Path | IO[str] | Iterable[Any]) -> Iterator[tuple[int, Any]]:
    if isinstance(source, (str, Path)):
        with open(source, encoding="utf-8", errors="replace") as fh:
            mode = os.fstat(fh.fileno()).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):  # /dev/zero never ends
                raise OSError(errno.EINVAL, "not a regular file", str(source))
            yield from enumerate(_bounded_lines(fh), start=1)
    elif hasattr(source, "readline"):
        yield from enumerate(_bounded_lines(cast(IO[str], source)), start=1)
    else:
        yield from enumerate(source, start=1)


def _bounded_lines(fh: IO[str]) -> Iterator[Any]:
    """Lines of at most ``MAX_LINE`` characters; a longer one is skipped to its end (read in
    bounded pieces, never held whole) and stands as ``_TOO_LONG``."""
    while line := fh.readline(MAX_LINE + 1):
        if len(line) <= MAX_LINE or line.endswith("\n"):
            yield line
            continue
        while (rest := fh.readline(MAX_LINE)) and not rest.endswith("\n"):
            pass
        yield _TOO_LONG


def dumps_event(event: Mapping[str, Any]) -> str:
    """One event as one compact JSON line (no newline), common fields first."""
    fields: dict[str, object] = dict(event)
    ordered = {k: fields[k] for k in COMMON_FIELDS if k in fields}
    ordered.update((k, v) for k, v in event.items() if k not in ordered)
    return json.dumps(ordered, ensure_ascii=False, separators=(",", ":"))


def write_record(events: Iterable[Event], out: str | Path | IO[str]) -> int:
    """Validate and write events as JSON Lines; returns how many were written.

    An invalid event raises ``RecordError`` before anything bad reaches the file.
    """
    if isinstance(out, (str, Path)):
        with open(out, "w", encoding="utf-8") as fh:
            return write_record(events, fh)
    n = 0
    for event in events:
        out.write(dumps_event(validate_event(event)) + "\n")
        n += 1
    return n


@dataclass
class SeqCounter:
    """Hands out gap-free ``seq`` numbers and ``t`` for producers (camera, simulator)."""

    next_seq: int = 0

    def event(self, type_: str, t: float, **fields: Any) -> Event:
        """A new event dict of ``type_`` with the next seq; validated before it is returned."""
        raw = {"v": VERSION, "seq": self.next_seq, "t": round(float(t), 3), "type": type_}
        raw.update(fields)
        ev = validate_event(raw)
        self.next_seq += 1
        return ev


# --- corrections ----------------------------------------------------------------------------


def provisional_if(ruling: Ruling, doubted: bool) -> Ruling:
    """The one rule of doubt: a violation resting on a read that awaits a referee
    (``doubted``) is provisional, never shown, stored or signalled as a firm accusation; the
    other rulings pass as they are. The node, its restart and the dashboard's desk apply it."""
    if doubted and ruling.get("kind") == "violation":
        return cast(Ruling, {**ruling, "provisional": True})
    return ruling


def apply_corrections(events: Iterable[Event]) -> list[Event]:
    """The record as corrected: each ``correction`` replaces the fields it names in the event it
    references (or deletes it with ``"delete": true``); the corrections stay in place so the
    output is still the full history, and a corrected event carries ``corrected_by``.

    Deterministic: the same record always gives the same corrected record. A correction of an
    unknown seq, of a correction, or changing ``type``/``seq`` is ignored here; referees report
    it as a record error.
    """
    events = list(events)
    index: dict[int | str, int] = {e["seq"]: i for i, e in enumerate(events)}
    out: list[dict[str, Any]] = [dict(e) for e in events]
    deleted: set[int] = set()
    for ev in events:
        if ev["type"] != "correction":
            continue
        i = index.get(ev["ref"])
        if i is None or events[i]["type"] == "correction":
            continue
        if ev.get("delete"):
            deleted.add(i)
            continue
        target = out[i]
        for key, value in ev.items():
            if key in CORRECTION_OWN_FIELDS:
                continue
            target[key] = value
        target["corrected_by"] = [*target.get("corrected_by", []), ev["seq"]]
    return [cast(Event, e) for i, e in enumerate(out) if i not in deleted]


CORRECTION_OWN_FIELDS = frozenset(
    {"v", "seq", "t", "type", "table", "meta", "ref", "by", "why", "delete"}
)


def correction_problem(correction: Event, target: Event | None) -> str | None:
    """Why a correction cannot apply to ``target`` (None if it can): unknown seq, a correction
    of a correction, or a field the target's event type does not have."""
    if target is None:
        return f"correction {correction['seq']}: no event with seq {correction['ref']}"
    if target["type"] == "correction":
        return f"correction {correction['seq']}: cannot correct another correction"
    if correction.get("delete"):
        return None
    event_defs = schema()["$defs"]["events"]
    if target.get("type") not in event_defs:
        return f"correction {correction['seq']}: target {correction['ref']} has unknown type"
    props = event_defs[target["type"]]["properties"]
    for key in correction:
        if key not in CORRECTION_OWN_FIELDS and key not in props:
            return (
                f"correction {correction['seq']}: field {key!r} does not exist on a "
                f"{target['type']} event"
            )
    return None


def banker_of(event: Event) -> int:
    """The banker seat a ``trump`` (or a correction) sets. ``null`` raises ``TypeError``, as
    ``int(None)`` would."""
    banker = event["banker"]
    if banker is None:
        raise TypeError(f"{event.get('type')} seq {event.get('seq')} sets a null banker")
    return int(banker)
