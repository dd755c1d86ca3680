"""The firmware's own protocol code (compiled for this machine as seatsim) against the Python
host link, over a real pty pair made by socat."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from firmware_bridge.link import SeatLink
from firmware_bridge.protocol import Led, SetState

WAIT = 30.0


def test_c_firmware_over_pty(sim: Any, pty_pair: tuple[Path, Path]) -> None:
    state = SetState((Led.ON, Led.OFF, Led.BLINK, Led.OFF), alarm=1, buzz=1, buzz_id=1)
    with SeatLink(str(pty_pair[0])) as link:
        assert link.wait_connected(WAIT)
        assert link.stats.board["firmware"] == "1.0.0" and link.stats.board["seats"] == 4
        link.set_state(state)
        assert link.wait_state_applied(WAIT)
        sim.wait_line("out leds=1,0,2,0 alarm=1 buzz=1 id=1 lost=0")

        for seat, button, long in [(0, 0, False), (1, 1, True), (2, 2, False)]:
            sim.send(f"press {seat} {button}{' long' if long else ''}")
        got = [link.events.get(timeout=WAIT) for _ in range(3)]
        assert [(e.seat, e.button, e.kind, e.seq) for e in got] == [
            (0, 0, 1, 1),
            (1, 1, 2, 2),
            (2, 2, 1, 3),
        ]
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:  # until the board has seen the last ACK
            sim.send("status")
            if sim.wait_line("status").startswith("status pending 0"):
                break
        assert sim.seen[-1].startswith("status pending 0 ")

        # A press queued while the board reboots survives in the EEPROM journal; the host
        # notices the reboot, handshakes again and pushes the LEDs back.
        boot = got[0].boot
        sim.send("press 3 0\nreset")  # one read: the board reboots before it can send it
        assert sim.wait_line("boot") == f"boot {boot + 1} pending 1"
        more = link.events.get(timeout=WAIT)
        assert (more.seat, more.button, more.boot, more.seq) == (3, 0, boot, 4)
        assert link.wait_for(lambda: link.stats.board.get("boot") == boot + 1, WAIT)
        sim.wait_line("out leds=1,0,2,0 alarm=1")
        assert link.stats.frames_in > 0 and sum(link.stats.bad_frames.values()) == 0
        assert link.events.empty()
    # The host is gone: after three missed heartbeats the C board shows the safe state.
    sim.wait_line("out leds=0,0,0,0 alarm=0 buzz=0 id=1 lost=1")


def test_unplug_and_replug_over_pty(pty_bench: Any) -> None:
    """The cable goes and the bus-powered board with it; a new pty appears at the same path
    and a freshly booted board answers: the link finds it, handshakes, pushes the LEDs."""
    port, sim = pty_bench.plug()
    state = SetState((Led.OFF, Led.ON, Led.OFF, Led.OFF))
    with SeatLink(str(port)) as link:
        assert link.wait_connected(WAIT)
        link.set_state(state)
        assert link.wait_state_applied(WAIT)
        pty_bench.unplug()
        assert link.wait_for(lambda: link.stats.state != "connected", WAIT)
        port2, sim = pty_bench.plug()
        assert port2 == port
        assert link.wait_for(lambda: link.stats.handshakes >= 2, WAIT)
        assert link.wait_state_applied(WAIT)
        sim.wait_line("out leds=0,1,0,0 alarm=0 buzz=0 id=0 lost=0")
        assert link.stats.board["boot"] == 2 and link.stats.reconnects >= 1
        sim.send("press 2 1")
        ev = link.events.get(timeout=WAIT)
        assert (ev.boot, ev.seat, ev.button) == (2, 2, 1)
