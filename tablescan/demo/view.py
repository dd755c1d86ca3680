"""A live-updating terminal view of a table node, for the offline demo."""

from __future__ import annotations

import time
from typing import Any

from engine.record import Event, Ruling
from tablescan.node import TableNode


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
        text = {
            "play": f"{who} plays {' '.join(ev.get('cards') or [])}",
            "declare": f"{who} declares {' '.join(ev.get('cards') or [])}",
            "bury": f"{who} buries {ev.get('count')} cards",
            "bottom_reveal": f"bottom turned up: {' '.join(ev.get('cards') or [])}",
            "needs_referee": f"NEEDS REFEREE (seq {ev.get('ref')}): {ev.get('reason')}",
            "correction": f"correction of seq {ev.get('ref')}: {ev.get('why')}",
        }.get(kind, kind)
        line = f"{ev['t']:7.2f}s  #{ev['seq']:<3} {text}"
        self.lines.append(line)
        if not self.tty:
            print(line, file=self.stream, flush=True)
        else:
            self.draw(force=True)

    def ruling(self, ev: Event, ruling: Ruling) -> None:
        if ruling.get("kind") == "violation":
            # a ruling on a read awaiting the referee is not an accusation yet: say so
            kind = "provisional" if ruling.get("provisional") else "VIOLATION"
            line = f"          {kind} {ruling.get('rule')} seat {ruling.get('seat')}: "
            line += str(ruling.get("detail", ""))
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
        out = [
            f"\x1b[H\x1b[2J{self.title}",
            f"video {self.t:6.1f}s   frames {st.frames}   reads {st.reads}   events {st.events}"
            f"   needs_referee {st.needs_referee}",
            (
                f"cards left {state.get('counts')}   out {state.get('finished')}   next to lead "
                f"{state.get('next_seat')}   够级 {state.get('restricted')}"
                if "counts" in state  # Gouji's state (engine.gouji.referee)
                else f"trump {state.get('trump')}   banker {state.get('banker')}   next to play "
                f"{state.get('next_seat')}   points {state.get('points')}"
            ),
            "",
        ]
        for s, name in enumerate(self.node.cfg.seats):
            out.append(f"  {name:>8}: {on_table.get(s, '')}")
        out += ["", *self.lines[-14:]]
        self.stream.write("\n".join(out) + "\n")
        self.stream.flush()
