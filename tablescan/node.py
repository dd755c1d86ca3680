"""The table node: observations → match record events → referee, with evidence kept.

One code path serves the live camera (``tablescan run``) and a recorded video (``tablescan
replay``). Per frame the node asks its reader (``vision.reading.TableReader``: every pixel
step) for the frame's observations, passes them through fusion (the checks against what the
cards allow), numbers and writes the events, feeds the referee and keeps the evidence JPEGs.
Other parts plug in through ``NodeHooks``: the evidence store makes the events and JPEGs
durable, the dashboard shows the state. ``tablescan.wiring`` builds a node and its parts.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from engine.games import RefereeLike, find_game
from engine.match_clock import decide
from engine.record import Event, Ruling, SeqCounter, provisional_if
from fusion.answers import answer_count_check, answered_set
from fusion.plays import Decision, Fusion, Trick
from tablescan.config import TableConfig
from tablescan.match import (
    clock_now,
    clock_rule,
    doubted_at_once,
    match_result,
    next_deal,
    result_on_time,
    rulings_of,
)
from tablescan.node_hooks import NodeHooks, NodeStats
from vision.reading import TableReader
from vision.sources import Frame
from vision.tracking import Observation

__all__ = ["NodeHooks", "NodeStats", "TableNode", "from_camera", "rulings_of"]
log = logging.getLogger(__name__)
# what the camera path writes (a resume replays these; buttons and referees' events it does not)
CAMERA_EVENTS = frozenset({"play", "declare", "bury", "bottom_reveal", "needs_referee", "hand_end"})
LIFECYCLE = ("hand_start", "hand_end", "match_end", "match_reopen")  # a match's own events
FROM_TABLE = {"from": "table"}  # the meta of a hand_start/match_end the node saw on the table
ASIDE = ("call_referee", "claim", "ready")  # buttons a seat presses outside the play of a deal


def from_camera(ev: Mapping[str, Any]) -> bool:
    """Written by the camera path (fusion's own corrections included, and the next deal's
    ``hand_start`` and the ``match_end`` the node wrote from what the table showed), not a
    button or a referee: a resume replays exactly these."""
    if ev["type"] in ("hand_start", "match_end"):
        return (ev.get("meta") or {}).get("from") == "table"
    return ev["type"] in CAMERA_EVENTS or (ev["type"] == "correction" and ev.get("by") == "camera")


class TableNode:
    """Drives one table: call ``process(frame)`` per frame, ``finish()`` at the end."""

    def __init__(
        self,
        cfg: TableConfig,
        reader: TableReader,
        referee: RefereeLike | None,
        hooks: NodeHooks | None = None,
        keep_evidence: bool = True,
        evidence_dir: Path | None = None,
        hand: int = 1,
        resume: Sequence[Event] = (),
    ) -> None:
        """``reader``: the frames' pixel steps; ``referee``: the match's one judge (None: the
        record is written unjudged). ``resume``: the events a crash left in the store."""
        self.cfg = cfg
        self.game = find_game(cfg.game)  # how its deals end and begin on the table
        self.reader = reader
        self.referee = referee
        self.hooks = hooks or NodeHooks()
        self.keep_evidence = keep_evidence
        self.evidence_dir = evidence_dir or cfg.evidence_dir
        self.stats = NodeStats()
        self.events: list[Event] = []
        self.rulings: list[Ruling] = []
        self.seq = SeqCounter()
        self._last_read: NDArray[np.uint8] | None = None
        self._last_event_seq: int | None = None
        self._held: list[tuple[Event, Ruling]] | None = None  # see _decide
        self.hand = hand
        team = next((i for i, t in enumerate(cfg.teams) if cfg.banker in t), 0)
        self._level = cfg.levels[team] if team < len(cfg.levels) else cfg.levels[0]
        self.fusion = self._new_fusion(cfg.banker, self._level)
        self.between = False  # a deal ended, the next not begun (cards still to gather)
        self.match_over = False  # a match_end is in the record: nothing more is written
        self._hand_over = False  # a hand_end came in from outside: settle it in poll()
        self._polled = 0.0
        self._replay: deque[Event] = deque()
        self._unfed: deque[Event] = deque()
        self._replayed = False
        self._presses: set[str] = set()  # seat-button presses recorded (by meta.press)
        self.t_now = 0.0  # the match clock: the latest frame's time
        self.judged = 0  # events the referee has taken (the lights follow it)
        self.resumed_at: float | None = None
        self._t_base = 0.0  # a live source restarted after a crash: its frames' time goes on
        self._live_resumed = False  # continue_live was called: the next frame sets _t_base
        self._clock_seen = -1.0  # the match time the clock was last checked at
        self._clock_said = ""  # the clock's last decision (logged when it changes)
        if resume:
            self._restore(resume)
        else:
            self._write({**cfg.match_start()}, 0.0)
            self._write(
                {"type": "hand_start", "hand": hand, "banker": cfg.banker, "level": self._level},
                0.0,
            )
        self.clock = clock_rule(referee, self.events)  # the limit in force, the at-time rule

    def _new_fusion(self, banker: int | None, level: str | None) -> Fusion:
        """Fusion for one deal (its banker, if known, and its level)."""
        cfg, game = self.cfg, self.game
        return Fusion(
            len(cfg.seats),
            cfg.decks,
            self.reader.min_score,
            banker=banker,
            next_leader=self._next_leader,
            banker_rule=self._banker_rule(),
            bottom_size=getattr(getattr(self.referee, "rules", None), "bottom", None),
            turns=game.fixed_turn,
            level=level if game.levels else None,
            extra_checks=answer_count_check(self.referee) if game.answers_sets else None,
            answered=answered_set(self.referee) if game.answers_sets else None,
        )

    # --- the match: deal after deal ----------------------------------------------------------

    def _lifecycle(self, ev: Event, outside: bool) -> None:
        """A hand or match event entered the record (``outside``: a referee wrote it)."""
        kind = ev["type"]
        if kind == "hand_start":
            self.hand = int(ev.get("hand", self.hand))
            self.between = False
            if outside:  # a referee started the deal: read it as that deal
                self.fusion = self._new_fusion(ev.get("banker"), str(ev.get("level")))
        elif kind == "hand_end":
            self.between = True
            self.fusion.phase = "done"
            if outside:
                self._hand_over = True
        elif kind == "match_end":
            self.match_over = True
            self.between = False
        elif kind == "match_reopen":  # a head referee reopened it: the next deal may start
            self.match_over = False
            self.between = True

    def _after_hand(self, t: float) -> list[Event]:
        """A deal just ended: the match is over when the engine's outcome says so (a side
        passed its last level); else the node waits for the table to show the next deal."""
        if self.referee is None or self.match_over:
            return []
        try:
            nxt = next_deal(self.referee, self.hand)
        except Exception as e:  # the camera keeps running if the referee trips
            self.stats.errors["referee_state"] += 1
            log.error("next deal unknown: %s", e)
            return []
        if nxt is not None:
            return self._clock_check(t, force=True)  # time may have run out in that deal
        result = match_result(self.referee)
        end = {"type": "match_end", "reason": "complete", "result": result, "meta": FROM_TABLE}
        return self._emit(end, t)

    def _known(self) -> list[Event]:
        """The record as far as the node has come (while catching up: as far as its replay)."""
        if not self._replay:
            return self.events
        upto = int(self._replay[0]["seq"])
        return [e for e in self.events if int(e["seq"]) < upto]

    def _clock_check(self, t: float, force: bool = False) -> list[Event]:
        """The match clock at match time ``t`` (once a second of it, or ``force``): when it
        has run out, the sheet's at-time rule (``engine.match_clock.decide``) ends the match
        with a ``match_end`` whose result says so (after a ``hand_end`` ``time`` where the
        sheet stops the deal in play), or lets the deal in play or the extra deal go on."""
        rule = self.clock
        if self.match_over or rule.minutes <= 0 or t < rule.limit_s:
            return []
        if not force and t - self._clock_seen < 1.0:
            return []
        self._clock_seen = t
        if rule.finish_deal and self._deal_open():
            return []  # finished first: decided at its hand_end
        try:
            decision = decide(rule, clock_now(self.referee, self._known(), rule, t))
        except Exception as e:  # the camera keeps running if the referee trips
            self.stats.errors["referee_state"] += 1
            log.error("at-time decision failed: %s", e)
            return []
        if decision.action != self._clock_said:
            self._clock_said = decision.action
            log.info(
                "table %s: time is up: %s (%s)", self.cfg.table_id, decision.action, decision.detail
            )
        if decision.action != "end":
            return []
        out: list[Event] = []
        if decision.stop_deal and self._deal_open():
            self.fusion.phase = "done"
            out += self._emit({"type": "hand_end", "reason": "time"}, t)
        result = result_on_time(self.referee, decision, rule)
        end = {"type": "match_end", "reason": "time", "result": result, "meta": FROM_TABLE}
        return out + self._emit(end, t)

    def _deal_over_seen(self, t: float) -> list[Event]:
        """A game whose deals the referee ends (Gouji: every place decided, by a set or a
        button): once its state says the deal is over, the node writes the ``hand_end``
        and decides the match after it, as fusion's own ``hand_end`` does."""
        if self.game.deal_end != "referee" or self.referee is None or self.match_over:
            return []
        try:
            hand = self.referee.state().get("hand")
        except Exception as e:  # a referee fault must not stop the camera
            self.stats.errors["referee_state"] += 1
            log.error("referee state failed: %s", e)
            return []
        if not hand or hand.get("live", True) or not self._deal_open():
            return []
        self.fusion.phase = "done"
        written = self._emit({"type": "hand_end", "reason": "complete"}, t)
        return written + self._after_hand(t)

    def _shows_next_deal(self, obs: Observation) -> bool:
        """What on the table begins the next deal (``Game.new_deal``). Cards in a seat's area
        after an 80-points deal are the last deal's (a reveal read early leaves tricks to
        play): only the cloth gathered, or a bury, starts one. A Gouji deal's cards are swept
        after its last set, and after the match's last deal too: only a set laid in a seat's
        area (the first lead) is the next deal's."""
        if self.game.new_deal == "seat_areas":
            return obs.seat is not None and obs.kind == "appeared"
        return obs.area == "centre" and obs.kind in ("cleared", "facedown")

    def _next_deal_seen(self, obs: Observation | None, t: float) -> list[Event]:
        """Between deals, what the table shows of the next one (``obs``; None: a seat's press
        of a game whose deals begin at the seats): the next deal's ``hand_start``."""
        if not self.between or self.match_over:
            return []
        if obs is not None and not self._shows_next_deal(obs):
            return []
        if obs is None and self.game.new_deal != "seat_areas":
            return []
        try:
            nxt = next_deal(self.referee, self.hand)
        except Exception as e:
            self.stats.errors["referee_state"] += 1
            log.error("next deal unknown: %s", e)
            nxt = {"type": "hand_start", "hand": self.hand + 1, "banker": None, "level": "2"}
        if nxt is None:
            return []
        self.fusion = self._new_fusion(nxt.get("banker"), str(nxt.get("level")))
        self.between = False
        return self._emit({**nxt, "meta": FROM_TABLE}, t)

    def _deal_open(self) -> bool:
        """A ``hand_start`` is the record's last hand event (no ``hand_end``/``match_end``);
        while a resumed node catches up, the record as far as its replay has come."""
        upto = int(self._replay[0]["seq"]) if self._replay else None
        for ev in reversed(self.events):
            if upto is not None and int(ev["seq"]) >= upto:
                continue  # stored, not yet replayed
            if ev["type"] in ("hand_end", "match_end"):
                return False
            if ev["type"] == "hand_start":
                return True
        return False

    def poll(self) -> list[Event]:
        """Between frames (and when no camera event comes): take in what the dashboard's
        referees stored (corrections, rulings, a hand or the match started or ended) at
        most every ``interval`` seconds, and settle a hand a referee ended."""
        now = time.monotonic()
        if now - self._polled < 0.5:
            return []
        self._polled = now
        if self._replay:
            return []
        self._adopt_foreign()
        if self._hand_over:
            self._hand_over = False
            return self._after_hand(self.t_now)
        return self._clock_check(self.t_now)

    # --- resuming after a crash -------------------------------------------------------------

    def _restore(self, stored: Sequence[Event]) -> None:
        """Rebuild from the events already stored for this table (the node crashed): the
        referee is fed them, seq continues after the last one, nothing is written again.

        A recorded source then replays its frames up to the last stored event with every
        event it regenerates matched, in order, to a stored one (the tracker and fusion learn
        exactly what they knew; nothing is emitted); a live source calls ``continue_live``."""
        events = sorted(stored, key=lambda e: int(e["seq"]))
        self.events = list(events)
        self.seq.next_seq = int(events[-1]["seq"]) + 1
        self.resumed_at = max(float(e.get("t", 0.0)) for e in events)
        for ev in events:
            if ev["type"] in ("match_end", "match_reopen"):
                self.match_over = ev["type"] == "match_end"  # the last of them stands
            press = (ev.get("meta") or {}).get("press")
            if isinstance(press, str):
                self._presses.add(press)
        self._unfed = deque(events)
        self._replay = deque(e for e in events if from_camera(e))
        # the referee learns the stored record as the replay reaches it (fusion asks it whose
        # lead it is, so it must not know the future); what precedes the first play now
        self._feed_stored(int(self._replay[0]["seq"]) - 1 if self._replay else None)
        log.info(
            "table %s: resuming after seq %d (t=%.3f s)",
            self.cfg.table_id,
            self.seq.next_seq - 1,
            self.resumed_at,
        )

    def _feed_stored(self, upto: int | None) -> None:
        """Feed the referee the stored events up to seq ``upto`` (None: all of them). The
        rulings are re-sent (a crash may have come between an event and its rulings; the
        store keeps each once), a violation on a doubted read as provisional, as it was."""
        doubted = doubted_at_once(self.events)
        while self._unfed and (upto is None or int(self._unfed[0]["seq"]) <= upto):
            ev = self._unfed.popleft()
            if ev["type"] in ("play", "declare", "bury", "bottom_reveal"):
                self._last_event_seq = int(ev["seq"])
            if self.referee is None:
                continue
            try:
                rulings = self.referee.feed(ev)
            except Exception as e:
                self.stats.errors["referee"] += 1
                log.error("referee failed on stored seq %s: %s", ev.get("seq"), e)
                continue
            finally:
                self.judged += 1
            held = [(ev, r) for r in rulings]
            self._release(held, provisional=int(ev["seq"]) in doubted)
            if ev["type"] in LIFECYCLE and not from_camera(ev):
                self._lifecycle(ev, outside=True)  # a referee's, adopted by the last run
                self._hand_over = False  # its match decision was taken then

    @property
    def catching_up(self) -> bool:
        """Still replaying frames whose events are already stored (after a crash)."""
        return bool(self._replay)

    def continue_live(self) -> None:
        """A live camera cannot go back: instead of replaying, fusion and the tracker are told
        from the stored record what was played, what was buried, who declared, and which cards
        of the current trick lie in which seat's area (so they are not read as new plays).
        A restarted camera's time begins at 0 again: its frames go on from the record's last
        ``t``, so the match clock and the record's times never run back (the minutes the
        node was down are not counted: the record holds no wall time)."""
        from engine.record import apply_corrections

        self._replay.clear()
        self._feed_stored(None)
        self._live_resumed = True
        events = [e for e in apply_corrections(self.events) if e["type"] != "correction"]
        starts = [i for i, e in enumerate(events) if e["type"] == "hand_start"]
        if starts:  # the deal in progress (or the one just ended)
            events = events[starts[-1] :]
            self.hand = int(events[0].get("hand", self.hand))
            self.fusion = self._new_fusion(events[0].get("banker"), str(events[0].get("level")))
        f = self.fusion
        centre_backs = 0  # the buried bottom lying face down
        for ev in events:
            kind = ev["type"]
            if kind == "declare":
                f.declarers.append(int(ev["seat"]))
            elif kind == "bury":
                f.bury_count = ev.get("count")
                f.phase = "play"
                centre_backs = int(ev.get("count") or 0)
            elif kind in ("play", "bottom_reveal"):
                f.seen.update(ev.get("cards", []))
                if kind == "play":
                    f.phase = "play"
                else:
                    f.phase = "done"
                    centre_backs = 0
            elif kind == "hand_end":
                f.phase = "done"
                self.between = True
            elif kind == "match_end":
                self.match_over = True
            elif kind == "match_reopen":
                self.match_over = False
                self.between = True
        hand: dict[str, Any] = {}
        if self.referee is not None:
            try:
                hand = self.referee.state().get("hand") or {}
            except Exception as e:
                self.stats.errors["referee_state"] += 1
                log.error("referee state failed: %s", e)
        trick = hand.get("current_trick") or {}
        on_table: dict[int, list[str]] = {}  # the current trick's cards, seat by seat
        plays = [p for p in trick.get("plays", []) if isinstance(p.get("seat"), int)]
        if plays and f.phase == "play":
            f.trick = Trick(
                leader=plays[0]["seat"], plays=[(p["seat"], len(p["cards"])) for p in plays]
            )
            on_table = {p["seat"]: list(p["cards"]) for p in plays}
        elif f.phase == "play":
            f.trick = Trick(leader=self._next_leader())
        self.reader.seed(on_table, centre_backs)

    # --- the referee's knowledge, for fusion -------------------------------------------

    def _banker_rule(self) -> str:
        declare = getattr(getattr(self.referee, "rules", None), "declare", None)
        return str(getattr(declare, "first_banker", "first_declarer"))

    def _next_leader(self) -> int | None:
        if self.referee is None:
            return None
        try:
            hand = self.referee.state().get("hand") or {}
        except Exception as e:  # a referee fault must not stop the camera
            self.stats.errors["referee_state"] += 1
            log.error("referee state failed: %s", e)
            return None
        seat = hand.get("next_seat")
        return seat if isinstance(seat, int) else None

    # --- frames ---------------------------------------------------------------------------

    def process(self, frame: Frame) -> list[Event]:
        """One frame in; the record events it produced (often none)."""
        t0 = time.perf_counter()
        self.stats.frames += 1
        if self._live_resumed:  # a restarted camera counts from 0: the match's time goes on
            self._live_resumed = False
            if self.resumed_at is not None and frame.t < self.resumed_at:
                self._t_base = self.resumed_at - frame.t
        if self._t_base:
            frame = dataclasses.replace(frame, t=frame.t + self._t_base)
        self.t_now = frame.t
        if self._replay and self.resumed_at is not None and frame.t > self.resumed_at + 1e-6:
            left = [int(e["seq"]) for e in self._replay]
            self._replay.clear()
            self._feed_stored(None)
            self.stats.errors["resume_mismatch"] += 1
            log.error("resume: stored events %s were not seen again in the replay", left)
        if self.match_over:
            return []
        timed = self._clock_check(frame.t)  # before the frame: nothing after time counts
        if self.match_over:
            return timed
        reading = self.reader.read(frame, self.fusion.wanted, self.fusion.expects_reveal)
        if reading.error is not None:
            self.stats.errors[reading.error] += 1
            if reading.error == "bad_frame":
                return timed
        if self.hooks.on_frame:
            self.hooks.on_frame(frame)
        if reading.read_ms is not None:  # a settling frame, or one of cards landing (votes)
            self.stats.read_ms.append(reading.read_ms)
            self.stats.reads += 1
        if reading.read_ms is None or reading.image is None:
            return timed
        written: list[Event] = timed
        for obs in reading.observations:
            if self.hooks.on_observation:
                self.hooks.on_observation(obs)
            written += self._next_deal_seen(obs, frame.t)
            for decision in self.fusion.feed(obs):
                out = self._decide(decision, frame, reading.image, t0)
                written += out
                if decision.event.get("type") == "hand_end":
                    written += self._after_hand(frame.t)
                elif out:
                    written += self._deal_over_seen(frame.t)
        self._last_read = reading.image
        return written

    def finish(self, t: float = 0.0) -> list[Event]:
        """End of the source: settle what is pending, close the hand if it is still open."""
        written: list[Event] = []
        if self.match_over:
            return written
        for decision in self.fusion.finish():
            written += self._decide(decision, None, None, None, t)
        if self._deal_open():  # the deal in progress ends with the source (between deals: none)
            written += self._emit({"type": "hand_end", "reason": "source ended"}, t)
        return written

    # --- events ---------------------------------------------------------------------------

    def _decide(
        self,
        d: Decision,
        frame: Frame | None,
        image: NDArray[np.uint8] | None,
        t0: float | None,
        t_end: float = 0.0,
    ) -> list[Event]:
        t = frame.t if frame is not None else t_end
        ev = dict(d.event)
        if d.flags is not None:  # a late doubt about, or correction of, an event written
            if d.flags.written_seq is None:
                return []
            ev["ref"] = d.flags.written_seq
            if d.unsure is not None:
                ev["meta"] = {"detail": d.unsure.detail}
            if ev["type"] == "needs_referee":
                self.stats.needs_referee += 1
            return self._emit(ev, t)
        if d.ref_previous:
            if self._last_event_seq is None:
                return []
            ev["ref"] = self._last_event_seq
        evidence_id = None
        if frame is not None and ev["type"] != "hand_end":
            evidence_id = f"{self.cfg.table_id}-f{frame.index:06d}"
            ev["evidence"] = evidence_id
        if d.observation is not None:
            ev["meta"] = {"frame": d.observation.frame, "area": d.observation.area}
        if d.unsure is not None:
            self._held = []  # its rulings wait for the doubt: they rest on an unsure read
        try:
            out = self._emit(ev, t)
        finally:
            held, self._held = self._held, None
        if not out:
            self._release(held or [], provisional=False)
            return []
        main = out[0]
        d.written_seq = main["seq"]
        if ev["type"] in ("play", "declare", "bury", "bottom_reveal"):
            self._last_event_seq = main["seq"]
        if d.unsure is not None:
            self.stats.needs_referee += 1
            nr: Event = {
                "type": "needs_referee",
                "ref": main["seq"],
                "candidates": d.unsure.candidates,
                "reason": d.unsure.reason,
            }
            if evidence_id:
                nr["evidence"] = evidence_id
            nr["meta"] = {"detail": d.unsure.detail}
            out += self._emit(nr, t)
            self._release(held or [], provisional=True)
        # kept again when replayed: a crash may have come between the event and its frames
        # (same frames, same bytes: the store holds them once)
        if frame is not None and image is not None and evidence_id and self.keep_evidence:
            self._keep_evidence(main, evidence_id, image)
        if t0 is not None and d.observation is not None and frame is not None:
            since = self.reader.still_since(d.observation.area)
            if since is not None and ev["type"] in ("play", "declare", "bury", "bottom_reveal"):
                waited = (frame.t - since) * 1000
                self.stats.latency_ms.append(waited + (time.perf_counter() - t0) * 1000)
        return out

    def _emit(self, body: Mapping[str, Any], t: float) -> list[Event]:
        fields = dict(body)
        kind = fields.pop("type")
        self._replayed = False
        if self._replay and from_camera({"type": kind, **fields}):
            stored = self._replay.popleft()  # regenerated while catching up: already stored
            self._replayed = True
            self._feed_stored(int(stored["seq"]) if self._replay else None)
            if stored["type"] != kind:
                self.stats.errors["resume_mismatch"] += 1
                log.error(
                    "resume: seq %d was %s, the replay gave %s", stored["seq"], stored["type"], kind
                )
            self._lifecycle(stored, outside=False)
            return [stored]
        for attempt in range(3):
            self._adopt_foreign()
            try:
                ev = self.seq.event(kind, t, table=self.cfg.table_id, **fields)
            except ValueError as e:
                self.stats.errors["invalid_event"] += 1
                log.error("event not written: %s: %s", kind, e)
                return []
            try:
                if self.hooks.on_event:
                    self.hooks.on_event(ev)
            except Exception:
                self.seq.next_seq -= 1  # not written
                if attempt < 2 and self._adopt_foreign():
                    continue  # a referee's event took that seq just now: number it again
                raise
            break
        self.events.append(ev)
        self.stats.events += 1
        self._lifecycle(ev, outside=False)
        self._judge(ev)
        return [ev]

    def _adopt_foreign(self) -> int:
        """Take in what others stored since our last event (a ruling, a correction)."""
        if self.hooks.foreign is None:
            return 0
        taken = 0
        for ev in self.hooks.foreign(self.seq.next_seq - 1):
            if int(ev["seq"]) != self.seq.next_seq:
                continue  # the store keeps seq gap-free; never guess
            self.events.append(ev)
            self.seq.next_seq += 1
            taken += 1
            self._lifecycle(ev, outside=True)
            log.info("seq %d (%s) came from outside the node", ev["seq"], ev["type"])
            held, self._held = self._held, None  # only the node's own event is held back
            try:
                self._judge(ev)
            finally:
                self._held = held
        return taken

    def _judge(self, ev: Event) -> None:
        if self.referee is not None:
            try:
                rulings = self.referee.feed(ev)
            except Exception as e:  # the camera keeps running if the referee trips
                self.stats.errors["referee"] += 1
                log.error("referee failed on seq %d: %s", ev["seq"], e)
                rulings = []
            self.judged += 1
            if self._held is not None:
                self._held += [(ev, r) for r in rulings]
                return
            for r in rulings:
                self.rulings.append(r)
                if self.hooks.on_ruling:
                    self.hooks.on_ruling(ev, r)

    def _release(self, held: list[tuple[Event, Ruling]], provisional: bool) -> None:
        """Pass on rulings held back while their event's doubt was written. A violation on a
        read that awaits a referee is provisional (as the referee's own report says once
        the doubt is in): it must never be shown, stored or signalled as a firm accusation."""
        for ev, ruled in held:
            r = provisional_if(ruled, provisional)
            self.rulings.append(r)
            if self.hooks.on_ruling:
                self.hooks.on_ruling(ev, r)

    def external(self, body: Mapping[str, Any], referee: bool = False) -> list[Event]:
        """An event from outside the camera (a seat button: ``pass``/``button``) through the
        normal path: seq assigned here, stored, judged. A press already recorded (same
        ``meta.press``, e.g. resent by the board after a host restart) is dropped.
        ``referee``: a referee's ``hand_start``/``hand_end``/``match_end`` (a seat chord),
        taken in as the dashboard's are (the deal read anew, the match decided after it)."""
        press = (body.get("meta") or {}).get("press")
        if isinstance(press, str):
            if press in self._presses:
                log.info("press %s already recorded (dropped)", press)
                return []
            self._presses.add(press)
        kind = body.get("type")
        if self.match_over or (kind == "hand_end" and not self._deal_open()):
            # a finished match is never reopened; a deal already ended is not ended twice
            log.info(
                "%s after the %s ended (dropped)", kind, "match" if self.match_over else "deal"
            )
            return []
        t = body.get("t")
        at = float(t) if isinstance(t, int | float) else self.t_now
        out: list[Event] = []
        if kind not in ("hand_start", "hand_end", "match_end") and body.get("what") not in ASIDE:
            out += self._next_deal_seen(None, at)  # a seat's press between deals opens the next
        fields = {k: v for k, v in body.items() if k not in ("v", "seq", "t", "table")}
        mine = self._emit(fields, at)
        out += mine
        for ev in mine if referee else []:
            if ev["type"] in ("hand_start", "hand_end", "match_end"):
                self._lifecycle(ev, outside=True)
        if mine:
            out += self._deal_over_seen(at)
        return out

    def _write(self, fields: Event, t: float) -> None:
        self._emit(dict(fields), t)

    def _keep_evidence(self, ev: Event, evidence_id: str, after: NDArray[np.uint8]) -> None:
        """The masked frames before (last read) and after the event, as JPEG."""
        folder = self.evidence_dir
        try:
            folder.mkdir(parents=True, exist_ok=True)
            paths: list[Path] = []
            for tag, img in (("before", self._last_read), ("after", after)):
                if img is None:
                    continue
                p = folder / f"{evidence_id}-{tag}.jpg"
                if not p.exists():  # written whole, then renamed: a crash leaves no torn JPEG
                    ok, jpeg = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 85])
                    if not ok:
                        raise OSError(f"cannot encode {p}")
                    part = p.with_name(p.name + ".part")
                    part.write_bytes(jpeg.tobytes())
                    part.replace(p)
                paths.append(p)
        except OSError as e:
            self.stats.errors["evidence"] += 1
            log.error("evidence for seq %d not kept: %s", ev["seq"], e)
            return
        if self.hooks.on_evidence:
            self.hooks.on_evidence(ev, paths)
