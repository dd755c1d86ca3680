"""Fixtures: virtual boards that are always stopped, and the host build of the firmware."""

from __future__ import annotations

import itertools
import queue
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge import virtual

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware_bridge" / "firmware"
_names = itertools.count()
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
def make_board() -> Iterator[Callable[..., virtual.VirtualBoard]]:
    made: list[virtual.VirtualBoard] = []

    def make(**kwargs: Any) -> virtual.VirtualBoard:
        b = virtual.create_board(f"t{next(_names)}", **kwargs)
        made.append(b)
        return b

    yield make
    for b in made:
        b.close()


@pytest.fixture(scope="session")
def seatsim() -> Path:
    """The firmware's protocol code built for this machine (what `make firmware` builds)."""
    subprocess.run(["make", "-s", "-C", str(FIRMWARE), "host"], check=True, capture_output=True)
    return FIRMWARE / "build" / "seatsim"


def start_sim(seatsim: Path, tty: str, eeprom: Path) -> Sim:
    proc = subprocess.Popen(
        [str(seatsim), tty, str(eeprom), "4"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    s = Sim(proc)
    s.wait_line("ready")
    return s


def start_socat(where: Path) -> tuple[subprocess.Popen[bytes], Path, Path]:
    """A linked pty pair from socat: ``host`` for the link, ``board`` for seatsim."""
    a, b = where / "host", where / "board"
    socat = subprocess.Popen(
        ["socat", f"pty,raw,echo=0,link={a}", f"pty,raw,echo=0,link={b}"],
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + WAIT
    while not (a.exists() and b.exists()) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert a.exists() and b.exists(), "socat made no pty pair"
    return socat, a, b


def stop_socat(socat: subprocess.Popen[bytes]) -> None:
    socat.terminate()
    socat.wait(timeout=WAIT)


@pytest.fixture
def pty_pair(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    socat, a, b = start_socat(tmp_path)
    yield a, b
    stop_socat(socat)


@pytest.fixture
def sim(seatsim: Path, pty_pair: tuple[Path, Path], tmp_path: Path) -> Iterator[Sim]:
    """The C board on the pty pair's board side."""
    s = start_sim(seatsim, str(pty_pair[1]), tmp_path / "eeprom.bin")
    yield s
    s.close()


@pytest.fixture(scope="module")
def offline_sim(seatsim: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sim]:
    """seatsim without a serial port, for its framing and debouncer commands."""
    s = start_sim(seatsim, "-", tmp_path_factory.mktemp("seatsim") / "eeprom.bin")
    yield s
    s.close()


@dataclass
class Bench:
    """Makes and always cleans up socat pty pairs and seatsim boards, for tests that unplug."""

    seatsim: Path
    where: Path
    socats: list[subprocess.Popen[bytes]] = field(default_factory=list)
    sims: list[Sim] = field(default_factory=list)

    def plug(self) -> tuple[Path, Sim]:
        """A cable and a board booting on it (the EEPROM file persists across plugs)."""
        socat, a, b = start_socat(self.where)
        self.socats.append(socat)
        s = start_sim(self.seatsim, str(b), self.where / "eeprom.bin")
        self.sims.append(s)
        return a, s

    def unplug(self) -> None:
        for s in self.sims:
            s.close()
        for p in self.socats:
            if p.poll() is None:
                stop_socat(p)


@pytest.fixture
def pty_bench(seatsim: Path, tmp_path: Path) -> Iterator[Bench]:
    b = Bench(seatsim, tmp_path)
    yield b
    b.unplug()


@pytest.fixture(scope="session")
def avrsim() -> Path:
    """The simavr harness that runs the real ATmega328P image (built by `make firmware`)."""
    subprocess.run(
        ["make", "-s", "-C", str(FIRMWARE), "avr", "sim"], check=True, capture_output=True
    )
    return FIRMWARE / "build" / "avrsim"


@pytest.fixture
def avr_board(avrsim: Path, tmp_path: Path) -> Iterator[tuple[Path, Sim]]:
    """The firmware image running in simavr on the board side of a socat pty pair."""
    socat, host, board = start_socat(tmp_path)
    proc = subprocess.Popen(
        [str(avrsim), str(FIRMWARE / "build" / "seatctl.elf"), str(board)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    s = Sim(proc)
    s.wait_line("ready")
    yield host, s
    s.close()
    stop_socat(socat)
