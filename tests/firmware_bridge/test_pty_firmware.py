"""The firmware's own protocol code (compiled for this machine as seatsim) against the Python
host link, over a real pty pair made by socat."""

from __future__ import annotations

import queue
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from firmware_bridge.link import SeatLink
from firmware_bridge.protocol import Led, SetState

WAIT = 30.0


@dataclass
class Sim:
    """seatsim's stdin for commands, its stdout lines in a queue."""

    proc: subprocess.Popen[str]
    lines: queue.Queue[str] = field(default_factory=queue.Queue)
    seen: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._reader = threading.Thread(target=self._pump, daemon=True)
        self._reader.start()

    def close(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if self.proc.poll() is None:
            self.send("quit")
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._reader.join(timeout=WAIT)
        self.proc.stdout.close()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.strip())

    def send(self, cmd: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(cmd + "\n")
        self.proc.stdin.flush()

    def wait_line(self, pred: str, timeout: float = WAIT) -> str:
        """Wait for a line starting with ``pred``; earlier lines are kept in ``seen``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                continue
            self.seen.append(line)
            if line.startswith(pred):
                return line
        raise AssertionError(f"seatsim never printed {pred!r}; saw {self.seen[-10:]}")


@pytest.fixture
def pty_pair(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    a, b = tmp_path / "host", tmp_path / "board"
    socat = subprocess.Popen(
        ["socat", f"pty,raw,echo=0,link={a}", f"pty,raw,echo=0,link={b}"],
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + WAIT
    while not (a.exists() and b.exists()) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert a.exists() and b.exists(), "socat made no pty pair"
    yield a, b
    socat.terminate()
    socat.wait(timeout=WAIT)


@pytest.fixture
def sim(seatsim: Path, pty_pair: tuple[Path, Path], tmp_path: Path) -> Iterator[Sim]:
    proc = subprocess.Popen(
        [str(seatsim), str(pty_pair[1]), str(tmp_path / "eeprom.bin"), "4"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    s = Sim(proc)
    s.wait_line("ready")
    yield s
    s.close()


def test_c_firmware_over_pty(sim: Sim, pty_pair: tuple[Path, Path]) -> None:
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
