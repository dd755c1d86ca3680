"""A live-updating terminal view of a table node, for the offline demo."""

from __future__ import annotations

import time
from typing import Any

from engine import names
from engine.record import Event, Ruling
from tablescan.i18n import _, cards, lang, rule
from tablescan.node import TableNode


def reason_text(reason: object) -> str:
    """Why the camera asks a referee (the fusion's reason code), as the dashboard says it."""
    return {
        "low_confidence": _("the camera is unsure of this reading"),
        "occluded": _("the cards were partly hidden"),
        "conflict": _("two readings disagree"),
        "changed": _("the cards in the area changed"),
        "count": _("the number of cards does not fit the lead"),
        "face_down": _("a card lies face down"),
        "impossible": _("more copies of a card than the decks hold"),
        "out_of_turn": _("a seat that was not to play"),
        "trick_short": _("the trick closed with cards missing"),
        "unknown_banker": _("the banker is not known yet"),
        "later_doubt": _("a later read casts doubt on this one"),
    }.get(str(reason), _("unsure"))


def suit_of(trump: dict[str, Any]) -> str:
    """The trump suit's name, or "not fixed yet" while the deal has none."""
    from tablescan.i18n import suit

    return suit(trump.get("suit")) if trump else _("not fixed yet")


class TerminalView:
    """The trick on the table, the points, the latest events and rulings. Redraws in place
    on a terminal; plain lines otherwise."""

    def __init__(self, node: TableNode, stream: Any, title: str) -> None:
        self.node = node
        self.stream = stream
        self.title = title
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.lines: list[str] = []
        self.t = 0.0
        self._last_draw = 0.0

    def event(self, ev: Event) -> None:
        kind = ev["type"]
        seat = ev.get("seat")
        who = self.node.cfg.seats[seat] if isinstance(seat, int) else ""
        shown = cards(list(ev.get("cards") or []))
        text = {
            "play": _("{who} plays {cards}", who=who, cards=shown),
            "declare": _("{who} declares {cards}", who=who, cards=shown),
            "bury": _("{who} buries {n} cards", who=who, n=ev.get("count")),
            "bottom_reveal": _("bottom turned up: {cards}", cards=shown),
            "needs_referee": _(
                "NEEDS REFEREE (seq {n}): {why}", n=ev.get("ref"), why=reason_text(ev.get("reason"))
            ),
            "correction": _("correction of seq {n}: {why}", n=ev.get("ref"), why=camera_why(ev)),
            "pass": _("{who} passes", who=who),
            "hand_start": _("hand {n} starts", n=ev.get("hand")),
            "hand_end": _("hand ends"),
            "match_start": _("match starts"),
            "match_end": _("match ends"),
            "trump": _("trump fixed"),
        }.get(kind, _("event {kind}", kind=kind))
        line = f"{ev['t']:7.2f}s  #{ev['seq']:<3} {text}"
        self.lines.append(line)
        if not self.tty:
            print(line, file=self.stream, flush=True)
        else:
            self.draw(force=True)

    def ruling(self, ev: Event, ruling: Ruling) -> None:
        if ruling.get("kind") == "violation":
            # a ruling on a read awaiting the referee is not an accusation yet: say so
            kind = _("provisional") if ruling.get("provisional") else _("VIOLATION")
            seat = ruling.get("seat")
            who = self.node.cfg.seats[seat] if isinstance(seat, int) else ""
            detail = names.detail_text(str(ruling.get("detail") or ""), lang()) or ""
            line = f"          {kind} {rule(ruling.get('rule'))} {who}: {detail}"
            self.lines.append(line)
            if not self.tty:
                print(line, file=self.stream, flush=True)

    def tick(self) -> None:
        """After each frame: follow the node's clock, redraw now and then."""
        self.t = self.node.t_now
        self.draw()

    def draw(self, force: bool = False) -> None:
        now = time.monotonic()
        if not self.tty or (not force and now - self._last_draw < 0.2):
            return
        self._last_draw = now
        state: dict[str, Any] = {}
        if self.node.referee is not None:
            try:
                state = self.node.referee.state().get("hand") or {}
            except Exception:
                state = {}
        trick = state.get("current_trick") or {}
        on_table = {p.get("seat"): " ".join(p.get("cards", [])) for p in trick.get("plays", [])}
        st = self.node.stats
        seats = self.node.cfg.seats

        def seat(i: object) -> str:
            return seats[i] if isinstance(i, int) and 0 <= i < len(seats) else "–"

        trump = state.get("trump") or {}
        trump_text = f"{trump.get('level') or ''} {suit_of(trump)}".strip() or "–"
        points = state.get("points") or {}
        clock = f"{self.t:6.1f}"
        out = [
            f"\x1b[H\x1b[2J{self.title}",
            _(
                "video {t}s   frames {f}   reads {r}   events {e}   to check {n}",
                t=clock,
                f=st.frames,
                r=st.reads,
                e=st.events,
                n=st.needs_referee,
            ),
            (
                _(
                    "cards left {counts}   next to lead {seat}",
                    counts=" ".join(str(c) for c in state.get("counts") or []),
                    seat=seat(state.get("next_seat")),
                )
                if "counts" in state  # Gouji's state (engine.gouji.referee)
                else _(
                    "trump {trump}   banker {banker}   next to play {seat}   attackers {points}",
                    trump=trump_text,
                    banker=seat(state.get("banker")),
                    seat=seat(state.get("next_seat")),
                    points=points.get("attackers", 0),
                )
            ),
            "",
        ]
        for s, name in enumerate(self.node.cfg.seats):
            out.append(f"  {name:>8}: {on_table.get(s, '')}")
        out += ["", *self.lines[-14:]]
        self.stream.write("\n".join(out) + "\n")
        self.stream.flush()


def camera_why(ev: Event) -> str:
    """A correction's reason in the output language: the node's own (English in the record)
    from ``engine.names``, a referee's as typed."""
    why = str(ev.get("why") or "")
    if ev.get("by") != "camera":
        return why
    return names.detail_text(why, lang()) or why
