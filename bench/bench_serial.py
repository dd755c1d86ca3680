"""Serial-link figures: decoder fuzzing volume, exactly-once under faults, unplug recovery.

    .venv/bin/python bench/bench_serial.py [--quick]

Prints: how many random and mutated streams the Python decoder and the firmware's C decoder
(host build) were fed and whether any frame with a bad CRC got through; how many presses
crossed a faulty virtual cable and how many arrived exactly once; and the recovery time after
an unplug (cable back in → LED state applied again) for the virtual board and for the C
firmware over a socat pty.
"""

from __future__ import annotations

import argparse
import logging
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.cobs_reference import reference_frames  # noqa: E402
from firmware_bridge import virtual  # noqa: E402
from firmware_bridge.link import SeatLink, Timing  # noqa: E402
from firmware_bridge.protocol import (  # noqa: E402
    Event,
    FrameDecoder,
    Heartbeat,
    Message,
    SetState,
    encode_message,
)

FIRMWARE = ROOT / "firmware_bridge" / "firmware"
STATE = SetState((1, 0, 2, 0))


def mutated(rng: random.Random) -> bytes:
    msgs: list[Message] = [Event(1, 2, 1, 1, 5000), Heartbeat(77, 1, 0), STATE]
    s = bytearray(
        b"".join(encode_message(rng.choice(msgs), rng.randrange(65536)) for _ in range(4))
    )
    for _ in range(rng.randrange(1, 6)):
        pos = rng.randrange(len(s))
        op = rng.randrange(3)
        if op == 0:
            s[pos] ^= rng.randrange(1, 256)
        elif op == 1:
            del s[pos]
        else:
            s.insert(pos, rng.randrange(256))
    return bytes(s)


def fuzz_python(n: int) -> None:
    rng = random.Random(1)
    accepted = rejected = wrong = bad_accepted = nbytes = 0
    t0 = time.perf_counter()
    for i in range(n):
        stream = mutated(rng) if i % 2 else rng.randbytes(rng.randrange(1, 300))
        nbytes += len(stream)
        dec = FrameDecoder()
        bodies = [f.body() for f in dec.feed(stream)]
        ref = reference_frames(stream)
        accepted += len(bodies)
        rejected += sum(dec.errors.values())
        wrong += bodies != ref
        bad_accepted += len([b for b in bodies if b not in ref])
    dt = time.perf_counter() - t0
    print(
        f"fuzz python decoder: {n} streams ({n - n // 2} random, {n // 2} mutated), "
        f"{nbytes / 1e6:.1f} MB, {accepted} frames accepted, {rejected} rejected, "
        f"{wrong} disagreements with the spec, {bad_accepted} bad-CRC frames accepted "
        f"({dt:.1f} s)"
    )


def fuzz_c(n: int, seatsim: Path, tmp: Path) -> None:
    proc = subprocess.Popen(
        [str(seatsim), "-", str(tmp / "fuzz-eeprom.bin")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    assert proc.stdin and proc.stdout
    while proc.stdout.readline().strip() != "ready":
        pass
    rng = random.Random(2)
    wrong = accepted = 0
    t0 = time.perf_counter()
    for i in range(n):
        stream = mutated(rng) if i % 2 else rng.randbytes(rng.randrange(1, 300))
        proc.stdin.write(f"feed {stream.hex()}\n")
        proc.stdin.flush()
        bodies = []
        while True:
            line = proc.stdout.readline().strip()
            if line.startswith("bad "):
                break
            if line.startswith("body "):
                bodies.append(bytes.fromhex(line[5:]))
        accepted += len(bodies)
        wrong += bodies != reference_frames(stream)
    proc.stdin.write("quit\n")
    proc.stdin.close()
    proc.wait()
    proc.stdout.close()
    print(
        f"fuzz C decoder (firmware proto.c, host build): {n} streams, {accepted} frames "
        f"accepted, {wrong} disagreements with the spec ({time.perf_counter() - t0:.1f} s)"
    )


def exactly_once(presses: int) -> None:
    faults = virtual.Faults(drop=0.15, corrupt=0.1, delay=0.1, duplicate=0.15, seed=9)
    b = virtual.create_board("bench-once", faults=faults)
    t0 = time.perf_counter()
    try:
        with SeatLink("virtualseat://bench-once") as link:
            link.wait_connected(30)
            sent, got = [], []
            for i in range(presses):
                if i % 40 == 20:
                    b.reset()
                sent.append(b.press(i % 4, i % 3))
                while b.pending >= 12:
                    got.append(link.events.get(timeout=30))
            while len(got) < len(sent):
                try:
                    got.append(link.events.get(timeout=10))
                except Exception:
                    break
            ids = [(e.boot, e.seq) for e in got]
            print(
                f"exactly once: {presses} presses over a cable dropping 15%, corrupting 10%, "
                f"delaying 10%, duplicating 15% of frames, board reset every 40 presses: "
                f"{len(set(ids) & set(sent))} delivered, {len(sent) - len(set(ids) & set(sent))}"
                f" lost, {len(ids) - len(set(ids))} delivered twice, in order: {ids == sent}; "
                f"{link.stats.duplicates} duplicates caught, {b.wire} "
                f"({time.perf_counter() - t0:.1f} s)"
            )
    finally:
        b.close()


def recovery_virtual(trials: int) -> None:
    b = virtual.create_board("bench-unplug", faults=virtual.Faults(reset_on_open=True))
    times, first_press = [], []
    try:
        with SeatLink("virtualseat://bench-unplug") as link:
            link.wait_connected(30)
            for i in range(trials):
                link.set_state(SetState((i % 3, 1, 0, 0)))
                link.wait_state_applied(30)
                b.unplug()
                link.wait_for(lambda: link.stats.state != "connected", 30)
                b.press(0, 0)
                t0 = time.perf_counter()
                b.plug()
                link.wait_state_applied(30)
                times.append(time.perf_counter() - t0)
                link.events.get(timeout=30)
                first_press.append(time.perf_counter() - t0)
    finally:
        b.close()
    print(
        f"unplug recovery, virtual board (reset on open): {trials} trials, replug → LEDs "
        f"restored median {statistics.median(times) * 1000:.0f} ms, max "
        f"{max(times) * 1000:.0f} ms; press made while unplugged delivered after median "
        f"{statistics.median(first_press) * 1000:.0f} ms"
    )


def start_pair(
    tmp: Path, board_cmd: list[str]
) -> tuple[subprocess.Popen[bytes], subprocess.Popen[bytes]]:
    """A socat pty pair and a board process on its board side ("{tty}" in the command)."""
    a, bside = tmp / "host", tmp / "board"
    socat = subprocess.Popen(
        ["socat", f"pty,raw,echo=0,link={a}", f"pty,raw,echo=0,link={bside}"],
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while not (a.exists() and bside.exists()) and time.monotonic() < deadline:
        time.sleep(0.005)
    sim = subprocess.Popen(
        [arg.replace("{tty}", str(bside)) for arg in board_cmd],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
    )
    return socat, sim


def stop_pair(socat: subprocess.Popen[bytes], sim: subprocess.Popen[bytes]) -> None:
    assert sim.stdin is not None
    sim.stdin.close()
    sim.wait(timeout=10)
    socat.terminate()
    socat.wait(timeout=10)


def recovery_pty(trials: int, name: str, board_cmd: list[str], tmp: Path) -> None:
    socat, sim = start_pair(tmp, board_cmd)
    times, detect = [], []
    with SeatLink(str(tmp / "host"), timing=Timing(lost_after=4.0, hello_for=10.0)) as link:
        link.wait_connected(30)
        for i in range(trials):
            link.set_state(SetState((0, i % 3, 1, 0)))
            link.wait_state_applied(30)
            t_pull = time.perf_counter()
            stop_pair(socat, sim)
            link.wait_for(lambda: link.stats.state != "connected", 30)
            detect.append(time.perf_counter() - t_pull)
            t0 = time.perf_counter()
            socat, sim = start_pair(tmp, board_cmd)
            link.wait_state_applied(30)
            times.append(time.perf_counter() - t0)
    stop_pair(socat, sim)
    print(
        f"unplug recovery, {name} over socat pty: {trials} trials, unplug noticed after "
        f"median {statistics.median(detect) * 1000:.0f} ms; replug → LEDs restored median "
        f"{statistics.median(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="smaller volumes")
    args = ap.parse_args()
    logging.basicConfig(level=logging.CRITICAL)
    scale = 10 if args.quick else 1
    subprocess.run(["make", "-s", "-C", str(FIRMWARE)], check=True)
    seatsim = FIRMWARE / "build" / "seatsim"
    avrsim = FIRMWARE / "build" / "avrsim"
    elf = FIRMWARE / "build" / "seatctl.elf"
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        fuzz_python(200_000 // scale)
        fuzz_c(20_000 // scale, seatsim, tmp)
        exactly_once(150 // scale)
        recovery_virtual(10 // scale or 2)
        recovery_pty(
            10 // scale or 2,
            "C protocol code (seatsim)",
            [str(seatsim), "{tty}", str(tmp / "eeprom.bin"), "4"],
            tmp,
        )
        recovery_pty(
            10 // scale or 2,
            "firmware image in simavr (cold boot each time)",
            [str(avrsim), str(elf), "{tty}"],
            tmp,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
