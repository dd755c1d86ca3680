"""``tablescan seats``: watch the seat controller live (presses as record events, link health).

Useful when wiring a table: every press prints as the match-record event it becomes, the LEDs
can be set by hand, and the link's counters print when it stops.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from firmware_bridge.link import SeatLink
from firmware_bridge.mapping import ButtonMapper
from firmware_bridge.protocol import Led, SetState


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "seats",
        help="watch seat-controller presses live",
        description="Print each seat-button press as a match-record event (JSON Lines).",
    )
    p.add_argument(
        "--port",
        required=True,
        help="serial port or URL: /dev/serial/by-id/..., /dev/ttyUSB0, virtualseat://NAME",
    )
    p.add_argument("--seats", type=int, default=4, help="seats at the table (default 4)")
    p.add_argument("--leds", help="LED modes per seat, e.g. 1,0,2,0 (0 off 1 on 2 blink 3 fast)")
    p.add_argument("--count", type=int, help="stop after this many presses")
    p.add_argument("--duration", type=float, help="stop after this many seconds")
    p.epilog = "exit status: 0 ok, 1 no board answered, 3 board refused (old firmware)"
    p.set_defaults(func=run)


def parse_leds(text: str, seats: int) -> SetState:
    try:
        modes = tuple(Led(int(x)) for x in text.split(","))
    except ValueError as exc:
        raise SystemExit(f"--leds {text!r}: {exc}") from None
    if len(modes) != seats:
        raise SystemExit(f"--leds {text!r}: {len(modes)} modes for {seats} seats")
    return SetState(modes)


def run(args: argparse.Namespace) -> int:
    mapper = ButtonMapper(seats=args.seats)
    t0 = time.monotonic()
    deadline = None if args.duration is None else t0 + args.duration
    seen = 0
    with SeatLink(args.port, seats=args.seats) as link:
        link.set_state(
            parse_leds(args.leds, args.seats) if args.leds else SetState((Led.OFF,) * args.seats)
        )
        state = ""
        try:
            while args.count is None or seen < args.count:
                if deadline is not None and time.monotonic() >= deadline:
                    break
                now = f"{link.stats.state} {link.stats.last_error}".rstrip()
                if now != state:
                    state = now
                    print(f"link: {state}", file=sys.stderr)
                try:
                    ev = link.events.get(timeout=0.1)
                except Exception:
                    continue
                rec = mapper.to_record(ev, ev.t - t0)
                if rec is not None:
                    print(json.dumps(rec), flush=True)
                    seen += 1
        except KeyboardInterrupt:
            pass
        if link.stats.state == "connected":
            applied = link.wait_state_applied(timeout=2.0)
            print(f"leds: {'applied' if applied else 'not confirmed'}", file=sys.stderr)
        print(f"link stats: {json.dumps(link.stats.as_dict())}", file=sys.stderr)
        if link.stats.state == "refused":
            return 3
        return 0 if link.stats.handshakes else 1  # never reached a board
