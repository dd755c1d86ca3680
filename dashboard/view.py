"""What the screens show, folded one store row at a time from the match record and the rulings
the table's one judge stored.

Over 600 lines on purpose: one fold (one state per table, updated per row); its handlers share
that state, and splitting them would scatter one state machine.

The dashboard judges nothing here: winners and points of tricks, violations (and whether they
are provisional), withdrawals and deal outcomes come only from stored ``ruling`` rows (the
node's referee, or the desk referee of ``dashboard.desk``). The record adds what only it
knows: names, plays and their times, trump and bury, the referees' decisions and corrections.
Each row costs O(1) (a violation row: O(violations)), so a long match costs no more per event
than a short one. The fold remembers which top-level keys each row changed, so the hub can send
deltas (``take_changes``). ``public_view`` is the overlay's whitelist.

Plays are grouped into tricks from the record (80-points: one play per seat; Gouji: a round
closes when the seat of its top set leads again, or, that seat gone out, another seat leads
after passes); a trick's winner and
points appear when the judge's ``trick`` ruling arrives. A correction updates the play it
names in place; the judge's re-judgement comes as rulings (violations withdrawn and found).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, cast

from dashboard.view_gouji import GoujiPanel
from engine import names
from engine.cards import CardError, parse_cards
from engine.games import GAMES
from engine.match_clock import WARN_S
from engine.record import Event, Ruling, banker_of

#: keys whose value only grows by appends between two ``take_changes`` (sent as ``append``)
APPENDABLE = ("plays", "audit")
ERRORS_KEPT = 20
#: each game's own panel, by the registry's view key (``engine.games.Game.view``)
PANELS: dict[str, Any] = {"gouji": GoujiPanel}


def _violation_id(r: Ruling) -> str:
    return str(r.get("id") or f"{r.get('hand')}:{r.get('rule')}:{r.get('seat')}:{r.get('at_seq')}")


class TableFold:
    """One table's view, kept up to date row by row (see the module docstring)."""

    def __init__(self, table: str, engine: str = "waiting for match_start") -> None:
        self.id = table
        self.view: dict[str, Any] = {}
        self._set: set[str] = set()
        self._appended: dict[str, int] = {}
        self.errors: list[str] = []
        self._reset_match(None, engine)

    # -- the rows ---------------------------------------------------------------------------

    def event(self, ev: Event, at: float) -> None:
        """A record event as stored (``at``: the row's wall time)."""
        kind = ev["type"]
        if kind == "match_start":  # a table's latest match only
            self._reset_match(ev, self.view.get("engine", ""))
        self.events[ev["seq"]] = ev
        self.wall[ev["seq"]] = at
        if kind == "hand_start":
            self.hand_of_seq[int(ev["seq"])] = ev.get("hand")
        elif isinstance(self.view.get("hand"), int):
            self.hand_of_seq[int(ev["seq"])] = self.view["hand"]
        self._put("seq", ev["seq"])
        self._put("last_t", ev.get("t"))
        self._clock_seen(ev, at)
        if self.match is None:
            self.error(f"seq {ev['seq']}: {kind} before any match_start")
            return
        handler = getattr(self, "_on_" + kind, None)
        if handler is not None:
            handler(ev)
        if self.panel is not None:
            self.panel.event(ev)
            self._put("panel", self.panel.state())

    def ruling(self, r: Ruling) -> None:
        """A ruling the table's judge stored."""
        if self.match is None:
            return
        kind = r.get("kind")
        if self.panel is not None:
            self.panel.ruling(r)
            self._put("panel", self.panel.state())
        if kind == "violation":
            self._violation(r)
        elif kind == "withdrawn":
            if self.violations.pop(str(r.get("id")), None) is not None:
                self._violations_changed()
        elif kind == "trick":
            self._trick_ruled(r)
        elif kind == "hand":
            self._hand_ruled(r)
        elif kind == "trump":
            self._trump_ruled(r)
        elif kind == "place":
            self._place(r)
        elif kind == "tribute":
            self._tribute_ruled(r)
        elif kind == "error":
            self.error(f"seq {r.get('seq')}: {r.get('problem')}")

    def error(self, text: str) -> None:
        self.errors.append(text)
        del self.errors[:-ERRORS_KEPT]
        self._put("errors", list(self.errors))

    def set_engine(self, engine: str) -> None:
        self._put("engine", engine)

    def take_changes(self) -> tuple[dict[str, Any], dict[str, list[Any]]]:
        """(keys set, items appended) since the last call: what a delta carries."""
        set_ = {k: self.view[k] for k in self._set}
        appended = {
            k: self.view[k][n:]
            for k, n in self._appended.items()
            if k not in self._set and len(self.view[k]) > n
        }
        self._set.clear()
        self._appended = {k: len(self.view[k]) for k in APPENDABLE if k in self.view}
        return set_, appended

    # -- plumbing ---------------------------------------------------------------------------

    def _put(self, key: str, value: Any) -> None:
        self.view[key] = value
        self._set.add(key)

    def _append(self, key: str, item: Any) -> None:
        self.view[key].append(item)  # appended since the last take_changes: sent as ``append``

    def _reset_match(self, match: Event | None, engine: str) -> None:
        self.match = match
        self.events: dict[int, Event] = {}
        self.wall: dict[int, float] = {}
        self.violations: dict[str, dict[str, Any]] = {}
        self.decisions: dict[str, str] = {}
        self.doubts: dict[int, Event] = {}  # needs_referee events not settled yet, by ref
        self.settled: set[int] = set()
        self.hand_of_seq: dict[int, Any] = {}  # the deal each event belongs to
        self.places: list[int] = []
        game = GAMES.get(str(match["game"])) if match else None
        key = game.view if game is not None else None
        self.panel = PANELS[key](match) if match and key in PANELS else None
        # the game's facts (engine.games.Game), not its name, choose what the fold keeps:
        # ``climbs``: a banker, a trump, levels and the attackers' trick points (80-points);
        # ``answers``: a set stands until answered, places decide the deal (Gouji)
        self.climbs = bool(game is not None and game.levels)
        self.answers = bool(game is not None and game.answers_sets)
        #: the cards a seat is dealt, where the game's panel counts them (Gouji: the sheet's)
        self.hand_size: int | None = getattr(self.panel, "hand_size", None)
        #: the rules whose set is withdrawn (its cards go back to the hand), by the panel
        self.withdrawn: frozenset[str] = getattr(self.panel, "withdrawn", frozenset())
        #: whether an exchange (``what``) moves cards between the counts as it comes
        self.exchange_moves: Callable[[str], bool] = getattr(
            self.panel, "exchange_moves", lambda _what: False
        )
        names: list[str] = list(match["seats"]) if match else []
        self.teams: list[list[int]] = [list(t) for t in match["teams"]] if match else []
        self.levels: list[Any] = list(match.get("levels", [])) if match else []
        self.deals: dict[int, dict[str, Any]] = {}  # hand → its result (the match so far)
        view: dict[str, Any] = {
            "id": self.id,
            "seq": match["seq"] if match else None,
            "engine": engine,
            "errors": list(self.errors),
            "view": key,
            "panel": self.panel.state() if self.panel is not None else None,
        }
        if match is None:
            view["status"] = "waiting for match_start"
        else:
            view.update(
                {
                    "status": "idle",
                    "game": match["game"],
                    "profile": match["profile"],
                    "violations": [],
                    "open_violations": 0,
                    "needs_referee": [],
                    "audit": [],
                    "last_t": match.get("t"),
                    "match": {"hands": [], "next_banker": None, "over": False, "result": None},
                    "seats": [
                        {
                            "index": i,
                            "name": name,
                            "team": next((t for t, tm in enumerate(self.teams) if i in tm), None),
                            "banker": False,
                            "time_per_play": None,
                            "cards_left": None,
                        }
                        for i, name in enumerate(names)
                    ],
                }
            )
        view["clock"] = match_clock_view(match)
        self.view = view
        self._set = set(view)
        self._new_hand(None)

    def _clock_seen(self, ev: Event, at: float) -> None:
        """The match clock's wall start, as the earliest ``wall - t`` of the rows (an event
        stored late, resent by the hall, says nothing of when the match began): O(1)."""
        clock = self.view.get("clock")
        if not clock or clock.get("over"):
            return
        start = float(at) - float(ev.get("t") or 0.0)
        now = dict(clock)
        if clock.get("start_wall") is None or start < float(clock["start_wall"]) - 0.5:
            now["start_wall"] = start
        now["left_s"] = max(0.0, float(clock["limit_s"]) - float(ev.get("t") or 0.0))
        self._put("clock", now)

    def _new_hand(self, start: Event | None) -> None:
        n = len(self.view.get("seats", []))
        self.hand_start = start
        self.banker: int | None = start.get("banker") if start else None
        self.tricks: list[dict[str, Any]] = []  # closed (winner given when ruled)
        self.current: dict[str, Any] | None = None
        self.plays: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}  # seq → entries
        self.spent = [[0.0, 0] for _ in range(n)]
        self.prev_t: float | None = float(start["t"]) if start else None
        self.passes_since_top: set[int] = set()
        self.counts: list[int] | None = [self.hand_size] * n if self.hand_size and start else None
        self.tribute_moves: dict[int, tuple[int, int, int]] = {}  # seq → (giver, to, count)
        self.places = []
        if "seats" in self.view:
            self._put("places", [])  # overlay (issue 19): finishing order
        self.final_points: int | None = None  # the deal's total, when the judge gives it
        if "seats" not in self.view:
            return
        self._put("hand", start.get("hand") if start else None)
        self._put("level", start.get("level") if start else None)
        self._put(
            "trump",
            {}
            if not self.climbs or not start
            else {"level": start.get("level"), "suit": None, "known": False, "unknown": False},
        )
        self._put("bottom", {"cards": None, "count": None, "multiplier": None, "points": None})
        self._put("outcome", None)
        self._put("plays", [])
        self._put("next_seat", self.banker)
        self._tricks_changed()
        self._seats_changed()

    # -- record events ----------------------------------------------------------------------

    def _on_hand_start(self, ev: Event) -> None:
        self._new_hand(ev)
        self._put("status", "playing")
        if ev.get("level") is not None and self.banker is not None and self.climbs:
            bank = next((t for t, tm in enumerate(self.teams) if self.banker in tm), None)
            if bank is not None and bank < len(self.levels):
                self.levels[bank] = ev["level"]  # the record's level of the deal stands
                self._tricks_changed()
        self._match_changed(next_banker=None)

    def _on_match_end(self, ev: Event) -> None:
        """The match is over: its result as the record gives it (else the levels so far)."""
        result = ev.get("result") if isinstance(ev.get("result"), dict) else None
        own = getattr(self.panel, "match_result", None)  # a game that keeps its own result
        if result is None and callable(own):
            result = own()
        result = result or {"hands": len(self.deals), "levels": list(self.levels), "winner": None}
        self._put("status", "match over")
        self._put("next_seat", None)
        self._match_changed(over=True, result=result, next_banker=None)
        clock = self.view.get("clock")
        if clock:
            on_time = result.get("time") if isinstance(result.get("time"), dict) else None
            self._put("clock", {**clock, "over": True, "ended_t": ev.get("t"), "on_time": on_time})

    def _on_match_reopen(self, ev: Event) -> None:
        """A head referee reopened the finished match: in progress again, between deals (the
        next deal's banker as the last deal's outcome gives it)."""
        self._put("status", "idle")
        nb = self.deals[max(self.deals)].get("next_banker") if self.deals else None
        self._match_changed(over=False, result=None, next_banker=nb, reopened_by=ev.get("by"))
        clock = self.view.get("clock")
        if clock:
            self._put("clock", {**clock, "over": False, "ended_t": None, "on_time": None})

    def _match_changed(self, **changes: Any) -> None:
        """``match``: every deal's result so far, the next banker, whether it is over."""
        now = dict(self.view.get("match") or {})
        now.update(changes)
        doubted = {self.hand_of_seq.get(ref) for ref in self.doubts}
        # a deal's result rests on every read of the deal: while one awaits a referee, the
        # result (and a match result after it) is provisional, as a violation on it would be
        now["hands"] = [{**self.deals[h], "provisional": h in doubted} for h in sorted(self.deals)]
        now["provisional"] = bool(self.doubts)
        self._put("match", now)

    def _on_hand_end(self, ev: Event) -> None:
        self._put("status", "idle")
        self._put("next_seat", None)
        if self.answers:
            self._put("outcome", {"finishing_order": list(self.places)} if self.places else None)

    def _on_trump(self, ev: Event) -> None:
        self._put_trump(self.view.get("level"), ev.get("suit"), int(ev["seq"]))
        if "banker" in ev:
            self.banker = banker_of(ev)
            self._seats_changed()
        self._tick(ev)

    def _trump_ruled(self, r: Ruling) -> None:
        """The judge's trump and banker for the deal (taken from the declarations when no
        ``trump`` event fixed them), or ``unknown``: shown as such, never as no-trump."""
        if r.get("hand") != self.view.get("hand"):
            return
        trump = r.get("trump")
        if isinstance(trump, dict):
            self._put_trump(trump.get("level"), trump.get("suit"), r.get("at_seq"))
        else:
            level = self.view.get("level")
            self._put("trump", {"level": level, "suit": None, "known": False, "unknown": True})
        banker = r.get("banker")
        if isinstance(banker, int) and banker != self.banker:
            self.banker = banker
            self._seats_changed()
            self._tricks_changed()

    def _put_trump(self, level: Any, suit: Any, seq: Any) -> None:
        doubted = isinstance(seq, int) and seq in self.doubts
        trump = {"level": level, "suit": suit, "known": True, "unknown": False, "seq": seq}
        self._put("trump", {**trump, "doubted": doubted})

    def _on_declare(self, ev: Event) -> None:
        self._tick(ev)

    def _on_bury(self, ev: Event) -> None:
        self._put("bottom", {**self.view["bottom"], "count": ev.get("count")})
        self._tick(ev)

    def _on_bottom_reveal(self, ev: Event) -> None:
        self._put("bottom", {**self.view["bottom"], "cards": list(ev.get("cards") or [])})

    def _tick(self, ev: Event) -> None:
        self.prev_t = float(ev["t"])

    def _on_play(self, ev: Event) -> None:
        seat = int(ev["seat"])
        n = len(self.view["seats"])
        if self.prev_t is not None and 0 <= seat < n:
            self.spent[seat][0] += max(0.0, float(ev["t"]) - self.prev_t)
            self.spent[seat][1] += 1
        self._tick(ev)
        entry = {
            k: ev.get(k) for k in ("seq", "t", "seat", "cards", "evidence", "confidence", "reads")
        }
        entry["corrected_by"] = None
        self._append("plays", entry)
        shown: dict[str, Any] = {
            "seat": seat,
            "cards": list(ev.get("cards") or []),
            "seq": ev["seq"],
            "t": ev.get("t"),
            "evidence": ev.get("evidence"),
            "confidence": ev.get("confidence"),
            "reads": ev.get("reads"),
        }
        self.plays[ev["seq"]] = (entry, shown)
        closed = len(self.tricks)
        if self.answers:
            self._answered_play(seat, shown)
        else:
            self._trick_play(seat, shown, n)
        if self.counts is not None and 0 <= seat < n:
            self.counts[seat] -= len(shown["cards"])
        self._seats_changed()
        self._tricks_changed(closed=len(self.tricks) != closed)

    def _trick_play(self, seat: int, shown: dict[str, Any], n: int) -> None:
        cur = self.current
        if cur is not None and any(p["seat"] == seat for p in cur["plays"]):
            self.tricks.append(cur)  # a seat plays again: the judge closes it incomplete
            cur = None
        if cur is None:
            cur = {"leader": seat, "plays": [], "winner": None, "points": None}
        cur["plays"].append(shown)
        if len(cur["plays"]) >= n:
            self.tricks.append(cur)
            self.current = None
        else:
            self.current = cur

    def _answered_play(self, seat: int, shown: dict[str, Any]) -> None:
        cur = self.current
        if cur is not None and cur["plays"]:
            top = cur["plays"][-1]["seat"]
            # the top set stood: its seat leads again, or (gone out) another seat after passes
            if seat == top or (top in self.places and self.passes_since_top):
                cur["winner"] = top
                self.tricks.append(cur)
                cur = None
        if cur is None:
            cur = {"leader": seat, "plays": [], "passes": [], "winner": None, "points": None}
        cur["plays"].append(shown)
        self.passes_since_top = set()
        self.current = cur

    def _on_pass(self, ev: Event) -> None:
        if self.current is not None:
            self.passes_since_top.add(int(ev["seat"]))
            if ev["seat"] not in self.current["passes"]:
                self.current["passes"].append(ev["seat"])
            self._tricks_changed(closed=False)

    def _on_exchange(self, ev: Event) -> None:
        """Cards passed outside play move between counts; a bought card is paid for with as
        many (counts stay), and a tribute moves them once the judge accepts it
        (``_tribute_ruled``): one the sheet forbids moves nothing."""
        what = str(ev.get("what"))
        if self.counts is None or not self.exchange_moves(what):
            return
        count, to = ev.get("count", 1), ev.get("to")
        if isinstance(to, int) and isinstance(count, int) and 0 <= to < len(self.counts):
            self.counts[int(ev["seat"])] -= count
            self.counts[to] += count
            self._seats_changed()

    def _tribute_ruled(self, r: Ruling) -> None:
        """A tribute the judge accepted moves its cards between hands (one the sheet forbids
        is an error ruling and moves nothing, so the counts follow the ruling, not the event).
        A re-judged one (corrected) replaces the move its seq made before."""
        seat, to, count = r.get("seat"), r.get("to"), r.get("count")
        if not (isinstance(seat, int) and isinstance(to, int) and isinstance(count, int)):
            return
        if self.counts is None or not {seat, to} <= set(range(len(self.counts))):
            return
        at = r.get("at_seq")
        before = self.tribute_moves.pop(at, None) if isinstance(at, int) else None
        if before is not None:
            self.counts[before[0]] += before[2]
            self.counts[before[1]] -= before[2]
        self.counts[seat] -= count
        self.counts[to] += count
        if isinstance(at, int):
            self.tribute_moves[at] = (seat, to, count)
        self._seats_changed()

    def _on_needs_referee(self, ev: Event) -> None:
        ref = int(ev["ref"])
        if ref not in self.settled:
            self.doubts[ref] = ev
            self._doubts_changed()
            self._violations_changed()

    def _on_correction(self, ev: Event) -> None:
        self._audit(ev)
        ref = int(ev["ref"])
        self._settle(ref)
        target = self.events.get(ref)
        if target is None or target["type"] == "correction":
            return
        fixed: dict[str, Any] = {
            **target,
            "corrected_by": [*target.get("corrected_by", []), ev["seq"]],
        }
        if not ev.get("delete"):
            fixed.update(
                {k: v for k, v in ev.items() if k in ("cards", "seat", "count", "suit", "what")}
            )
        self.events[ref] = cast(Event, fixed)
        pair = self.plays.get(ref)
        if pair is not None:
            entry, shown = pair
            if ev.get("delete"):
                self._put("plays", [p for p in self.view["plays"] if p["seq"] != ref])
                for trick in [*self.tricks, *([self.current] if self.current else [])]:
                    trick["plays"] = [p for p in trick["plays"] if p["seq"] != ref]
            else:
                for field in ("cards", "seat"):
                    if field in ev:
                        entry[field] = shown[field] = ev[field]
                entry["corrected_by"] = fixed["corrected_by"]
                self._put("plays", self.view["plays"])
                self._recount(shown)
            self._tricks_changed()
        self._violations_changed()

    def _recount(self, shown: dict[str, Any]) -> None:
        """A ruled trick's points after a correction of one of its plays: card arithmetic
        (5s, 10s and kings), not a judgement; its winner stays the judge's."""
        for trick in self.tricks:
            if shown in trick["plays"] and trick.get("points") is not None and self.climbs:
                with contextlib.suppress(CardError):  # a bad card was refused by the API
                    trick["points"] = sum(
                        c.points for p in trick["plays"] for c in parse_cards(p["cards"])
                    )

    def _on_ruling(self, ev: Event) -> None:
        """A referee's decision: on a violation (its id) or on a doubted read (``seq:<n>``)."""
        self._audit(ev)
        ref = str(ev.get("ref", ""))
        if ref.startswith("seq:"):
            self._settle(int(ref[4:]))
        else:
            self.decisions[ref] = str(ev.get("decision"))
        self._violations_changed()

    def _on_violation(self, ev: Event) -> None:
        self._audit(ev)  # a referee-entered violation: the judge rules it (a ruling row)

    def _audit(self, ev: Event) -> None:
        row = {**ev, "at": self.wall.get(ev["seq"])}
        if ev.get("by") == "camera":  # the node's own reason: English in the record
            row["why_zh"] = names.detail_text(ev.get("why"), "zh_CN")
        self._append("audit", row)

    def _settle(self, ref: int) -> None:
        self.settled.add(ref)
        if self.doubts.pop(ref, None) is not None:
            self._doubts_changed()

    # -- rulings ----------------------------------------------------------------------------

    def _violation(self, r: Ruling) -> None:
        vid = _violation_id(r)
        doc: dict[str, Any] = {k: v for k, v in r.items() if k != "kind"}
        doc["id"] = vid
        doc.setdefault("hand", self.view.get("hand"))
        doc["ruled_provisional"] = bool(r.get("provisional"))
        self.violations[vid] = doc
        if doc.get("rule") in self.withdrawn and self.counts is not None:
            pair = self.plays.get(doc.get("at_seq"))  # type: ignore[arg-type]
            if pair is not None and 0 <= pair[1]["seat"] < len(self.counts):
                self.counts[pair[1]["seat"]] += len(pair[1]["cards"])
                if self.current is not None and pair[1] in self.current["plays"]:
                    self.current["plays"].remove(pair[1])
                    self._tricks_changed()
                self._seats_changed()
        self._violations_changed()

    def _trick_ruled(self, r: Ruling) -> None:
        if r.get("hand") != self.view.get("hand"):
            return
        everything = [*self.tricks, *([self.current] if self.current else [])]
        i = int(r.get("trick", 0)) - 1
        if not 0 <= i < len(everything):
            return
        trick = everything[i]
        trick["winner"], trick["points"] = r.get("winner"), r.get("points")
        if trick is self.current:
            self.tricks.append(trick)
            self.current = None
        self._tricks_changed()

    def _hand_ruled(self, r: Ruling) -> None:
        out = r.get("outcome")
        self._deal_result(r)
        if r.get("hand") == self.view.get("hand"):
            self._put("outcome", out)
            # the deal's own totals, where the judge's hand ruling carries them
            if isinstance(points := r.get("attacker_points"), int):
                self.final_points = int(points)
                self._put("attacker_points", self.final_points)
            if isinstance(bottom_doc := r.get("bottom"), dict):
                bottom = {k: bottom_doc.get(k) for k in ("multiplier", "points")}
                self._put("bottom", {**self.view["bottom"], **bottom})
        if isinstance(out, dict) and out.get("new_level") and self.banker is not None:
            bank = next((t for t, tm in enumerate(self.teams) if self.banker in tm), None)
            if bank is not None and len(self.teams) == 2:
                winner = bank if out.get("side") == "banker" else 1 - bank
                if winner < len(self.levels):
                    self.levels[winner] = out["new_level"]
                    self._tricks_changed()

    def _deal_result(self, r: Ruling) -> None:
        """A deal's ruling (a re-judged one replaces it): its levels after, the next banker."""
        hand = r.get("hand")
        if not isinstance(hand, int):
            return
        ruled = r.get("outcome")
        out: dict[str, Any] = ruled if isinstance(ruled, dict) else {}
        banker = (
            self.banker if hand == self.view.get("hand") else self.deals.get(hand, {}).get("banker")
        )
        nb = out.get("next_banker")
        n = len(self.view.get("seats", []))
        if isinstance(nb, int):
            nxt: int | None = nb
        elif isinstance(banker, int) and nb in ("partner", "next") and n:
            nxt = (banker + (2 if nb == "partner" else 1)) % n
        else:
            nxt = None
        levels = r.get("levels_after")
        self.deals[hand] = {
            "hand": hand,
            "banker": banker,
            "side": out.get("side"),
            "attacker_points": r.get("attacker_points"),
            "levels_after": list(levels) if isinstance(levels, list) else None,
            "next_banker": nxt,
            "game_over": bool(out.get("game_over")),
        }
        if isinstance(levels, list) and len(levels) == len(self.levels):
            self.levels = list(levels)
            self._tricks_changed()
        over = bool((self.view.get("match") or {}).get("over"))
        latest = hand == max(self.deals)
        self._match_changed(next_banker=None if over or not latest else nxt)

    def _place(self, r: Ruling) -> None:
        seat = r.get("seat")
        if isinstance(seat, int) and seat not in self.places:
            self.places.append(seat)
            self._put("places", list(self.places))  # overlay (issue 19): finishing order

    # -- derived keys -----------------------------------------------------------------------

    def _seats_changed(self) -> None:
        if "seats" not in self.view:
            return
        seats = self.view["seats"]
        for i, s in enumerate(seats):
            spent, count = self.spent[i] if i < len(self.spent) else (0.0, 0)
            s["banker"] = i == self.banker
            s["time_per_play"] = round(spent / count, 1) if count else None
            s["cards_left"] = self.counts[i] if self.counts is not None else None
        self._put("seats", seats)
        self._put("banker", self.banker if self.climbs else None)

    def _tricks_changed(self, closed: bool = True) -> None:
        """The tricks moved: ``closed`` when a closed trick (or its ruling) changed, else only
        the trick in progress did (the delta then leaves the closed ones out)."""
        if "seats" not in self.view:
            return
        n = len(self.view["seats"])
        done = self.tricks
        if closed or "tricks" not in self.view:
            self._put("tricks", done)
        self._put("current_trick", self.current)
        won = [0] * len(self.teams)
        for t in done:
            team = next((i for i, tm in enumerate(self.teams) if t.get("winner") in tm), None)
            if team is not None:
                won[team] += int(t.get("points") or 0)
        attackers = next(
            (
                i
                for i, tm in enumerate(self.teams)
                if self.banker is not None and self.banker not in tm
            ),
            None,
        )
        self._put(
            "teams",
            [
                {
                    "index": t,
                    "seats": team,
                    "names": [self.view["seats"][i]["name"] for i in team if i < n],
                    "level": self.levels[t] if t < len(self.levels) else None,
                    "banker_side": self.banker in team,
                    "trick_points": won[t],
                }
                for t, team in enumerate(self.teams)
            ],
        )
        if not self.climbs:
            self._put("attacker_points", None)
            self._put("next_seat", None)
            return
        penalty = self._penalty_points()
        base = won[attackers] if attackers is not None else None
        if self.final_points is not None:
            self._put("attacker_points", self.final_points)
        else:
            self._put("attacker_points", None if base is None else base + penalty)
        if self.current is not None:
            plays = self.current["plays"]
            self._put("next_seat", (self.current["leader"] + len(plays)) % n)
        elif done:
            self._put("next_seat", done[-1].get("winner"))

    def _penalty_points(self) -> int:
        """The ruled penalties of this deal in attacker points (the referee's own sign rule:
        an attacker's penalty costs the attackers, a banker side's penalty gives them)."""
        total = 0
        for v in self.violations.values():
            status = self.decisions.get(v["id"], v.get("status"))
            if v.get("hand") != self.view.get("hand") or status == "dismissed":
                continue
            pen = v.get("penalty")
            pts = int(pen.get("points", 0) or 0) if isinstance(pen, dict) else 0
            seat = v.get("seat")
            attacker = self.banker is not None and not any(
                self.banker in tm and seat in tm for tm in self.teams
            )
            total += -pts if attacker else pts
        return total

    def _doubts_changed(self) -> None:
        self._put("needs_referee", list(self.doubts.values()))
        trump = self.view.get("trump") or {}
        if trump.get("known"):  # the declaration it was taken from awaits a referee, or not
            self._put_trump(trump.get("level"), trump.get("suit"), trump.get("seq"))
        if "match" in self.view:
            self._match_changed()  # a deal's result rests on its reads: provisional or not

    def _violations_changed(self) -> None:
        if "seats" not in self.view:
            return
        shown = []
        for vid, v in self.violations.items():
            at, proof = v.get("at_seq"), v.get("proven_by_seq")
            seqs = [s for s in (at, proof) if isinstance(s, int)]
            doubted = any(s in self.doubts for s in seqs)
            settled = bool(seqs) and all(s in self.settled for s in seqs)
            status = self.decisions.get(vid, v.get("status") or "open")
            at_ev = self.events.get(at) if isinstance(at, int) else None
            proof_ev = self.events.get(proof) if isinstance(proof, int) else None
            shown.append(
                {
                    **{k: x for k, x in v.items() if k != "ruled_provisional"},
                    "status": status,
                    # never firm while the read it rests on is doubted
                    "provisional": doubted or (v["ruled_provisional"] and not settled),
                    "at_evidence": at_ev.get("evidence") if at_ev else None,
                    "proof_evidence": proof_ev.get("evidence") if proof_ev else None,
                    "at_play": at_ev,
                    "proof_play": proof_ev,
                    # the reason in Chinese (engine.names); the record keeps its English
                    "detail_zh": names.detail_text(v.get("detail"), "zh_CN"),
                }
            )
        self._put("violations", shown)
        self._put("open_violations", sum(1 for v in shown if v["status"] == "open"))
        if self.climbs:
            self._tricks_changed()  # penalties move the attacker points


def match_clock_view(match: Event | None) -> dict[str, Any] | None:
    """The match clock the screens count down: the limit in force (``match_start.clock``) and
    the sheet's at-time rule; None when the match has no limit."""
    clock = (match or {}).get("clock")
    if not isinstance(clock, dict) or not isinstance(clock.get("minutes"), int):
        return None
    rule: Any = None
    with contextlib.suppress(Exception):  # a profile this engine does not know: no rule shown
        game = GAMES.get(str((match or {}).get("game")))
        if game is not None:
            rules = game.load_rules(str((match or {}).get("profile")), (match or {}).get("options"))
            rule = getattr(rules, "clock", None)
    return {
        "limit_s": 60.0 * clock["minutes"],
        "from": clock.get("from", "profile"),
        "warn_s": WARN_S,
        "at_time": getattr(rule, "at_time", ""),
        "finish_deal": bool(getattr(rule, "finish_deal", False)),
        "start_wall": None,
        "left_s": 60.0 * clock["minutes"],
        "over": False,
        "ended_t": None,
        "on_time": None,
    }


def public_clock(clock: Any) -> dict[str, Any] | None:
    """The clock for the overlay and the hall: what the screens count down, nothing else."""
    if not isinstance(clock, dict):
        return None
    on_time = clock.get("on_time") or {}
    return {
        "limit_s": clock.get("limit_s"),
        "warn_s": clock.get("warn_s"),
        "start_wall": clock.get("start_wall"),
        "left_s": clock.get("left_s"),
        "at_time": clock.get("at_time"),
        "finish_deal": clock.get("finish_deal"),
        "over": bool(clock.get("over")),
        "on_time": {"by": on_time.get("by")} if on_time else None,
    }


def public_match(match: Any) -> dict[str, Any] | None:
    """The match so far, for the overlay and the hall: each deal's levels after, the next
    banker, and whether (and how) the match is over."""
    if not isinstance(match, dict):
        return None
    return {
        "hands": [
            {
                "hand": h.get("hand"),
                "levels_after": h.get("levels_after"),
                "side": h.get("side"),
                "provisional": bool(h.get("provisional")),
            }
            for h in match.get("hands", [])
        ],
        "next_banker": match.get("next_banker"),
        "over": bool(match.get("over")),
        "result": match.get("result"),
        "provisional": bool(match.get("provisional")),
    }


def public_view(view: dict[str, Any]) -> dict[str, Any]:
    """The overlay's data: a whitelist, so nothing hidden can leak by a new field upstream."""
    if "seats" not in view:
        return {"id": view["id"], "seq": view["seq"], "status": view.get("status")}

    def plays(trick: dict[str, Any] | None) -> dict[str, Any] | None:
        if not trick:
            return None
        return {
            "leader": trick.get("leader"),
            "winner": trick.get("winner"),
            "points": trick.get("points"),
            "plays": [{"seat": p["seat"], "cards": list(p["cards"])} for p in trick["plays"]],
        }

    bottom = view.get("bottom") or {}
    trump = view.get("trump") or {}
    return {
        "id": view["id"],
        "seq": view["seq"],
        "status": view["status"],
        "game": view.get("game"),  # overlay (issue 19)
        "places": list(view.get("places") or []),  # overlay (issue 19): Gouji finishing order
        "view": view.get("view"),
        "panel": view.get("panel"),
        "hand": view.get("hand"),
        "level": view.get("level"),
        "trump": {
            "suit": trump.get("suit"),
            "level": trump.get("level"),
            "known": trump.get("known", True),
            "unknown": bool(trump.get("unknown")),
            "doubted": bool(trump.get("doubted")),
        },
        "seats": [
            # overlay (issue 19): cards_left is public (Gouji: everyone sees a hand's size)
            {
                "name": s["name"],
                "team": s["team"],
                "banker": s["banker"],
                "cards_left": s.get("cards_left"),
            }
            for s in view["seats"]
        ],
        "teams": [
            {
                "names": t["names"],
                "level": t["level"],
                "banker_side": t["banker_side"],
                "trick_points": t["trick_points"],
            }
            for t in view.get("teams", [])
        ],
        "attacker_points": view.get("attacker_points"),
        "match": public_match(view.get("match")),
        "clock": public_clock(view.get("clock")),
        "current_trick": plays(view.get("current_trick")),
        "last_trick": plays(view["tricks"][-1]) if view.get("tricks") else None,
        "tricks_played": len(view.get("tricks", [])),
        "bottom": {
            "count": bottom.get("count"),
            "cards": list(bottom["cards"]) if bottom.get("cards") else None,
        },
        "violations": [
            {"rule": v.get("rule"), "seat": v.get("seat"), "status": v.get("status", "open")}
            for v in view.get("violations", [])
            if v.get("status") == "upheld" and not v.get("provisional")
        ],
    }
