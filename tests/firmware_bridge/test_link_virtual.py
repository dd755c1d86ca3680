"""Host link against the virtual seat controller: every press exactly once under each fault,
state restored after resets and unplugs, old firmware refused."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge import virtual
from firmware_bridge.link import ButtonEvent, SeatLink, prefer_by_id
from firmware_bridge.protocol import Led, ResetReason, SetState

WAIT = 30.0  # generous: the machine may be loaded; waits end as soon as the condition holds
STATE = SetState((Led.ON, Led.OFF, Led.BLINK, Led.FAST_BLINK), alarm=1, buzz=2, buzz_id=1)


def collect(link: SeatLink, n: int) -> list[ButtonEvent]:
    got: list[ButtonEvent] = []
    deadline = time.monotonic() + WAIT
    while len(got) < n and time.monotonic() < deadline:
        try:
            got.append(link.events.get(timeout=0.2))
        except Exception:
            continue
    return got


def assert_no_more(link: SeatLink, board: virtual.VirtualBoard) -> None:
    """Nothing pending on the board and nothing extra delivered: exactly once, not at least."""
    assert link.wait_for(lambda: board.pending == 0, WAIT)
    assert link.events.empty()


def press_all(board: virtual.VirtualBoard, n: int, start: int = 0) -> list[tuple[int, int]]:
    return [
        board.press(i % board.seats, i % board.buttons, long=i % 5 == 0)
        for i in range(start, start + n)
    ]


def ids(events: list[ButtonEvent]) -> list[tuple[int, int]]:
    return [(e.boot, e.seq) for e in events]


@pytest.mark.parametrize(
    "fault",
    [
        {"drop": 0.3},
        {"corrupt": 0.3},
        {"delay": 0.3, "delay_s": 0.35},
        {"duplicate": 0.5},
        {"drop": 0.15, "corrupt": 0.1, "delay": 0.1, "duplicate": 0.2},
    ],
    ids=["drop", "corrupt", "delay", "duplicate", "all"],
)
def test_every_press_exactly_once(
    make_board: Callable[..., virtual.VirtualBoard], fault: dict[str, Any]
) -> None:
    board = make_board(faults=virtual.Faults(seed=11, **fault))
    with SeatLink(f"virtualseat://{board.name}") as link:
        assert link.wait_connected(WAIT)
        link.set_state(STATE)
        pressed = press_all(board, 12)
        got = collect(link, 12)
        assert ids(got) == pressed  # all of them, in order
        assert [(e.seat, e.button, e.kind) for e in got] == [
            (i % 4, i % 3, 2 if i % 5 == 0 else 1) for i in range(12)
        ]
        assert_no_more(link, board)
        assert link.wait_state_applied(WAIT)
        out = board.outputs()
        assert out.leds == list(STATE.leds) and out.alarm == 1
        assert out.buzzes == 1  # resends of the same state never buzz twice
        if "corrupt" in fault:  # both halves of cable health reach the health page
            assert sum(link.stats.bad_frames.values()) > 0
            assert link.wait_for(lambda: link.stats.board_bad_frames > 0, WAIT)
    fault_name = next(iter(fault))
    assert board.wire[fault_name] > 0  # the fault really happened


def test_reset_keeps_unacked_presses_and_restores_leds(
    make_board: Callable[..., virtual.VirtualBoard],
) -> None:
    board = make_board(faults=virtual.Faults(seed=3))
    with SeatLink(f"virtualseat://{board.name}") as link:
        assert link.wait_connected(WAIT)
        link.set_state(STATE)
        assert link.wait_state_applied(WAIT)
        first = press_all(board, 3)
        assert ids(collect(link, 3)) == first
        # Unplug so these presses stay unacknowledged, then reset the board under them.
        board.unplug()
        queued = press_all(board, 4, start=3)
        board.reset(ResetReason.WATCHDOG)
        assert board.outputs().leds == [0, 0, 0, 0]
        board.plug()
        after = press_all(board, 2, start=7)
        got = collect(link, 6)
        assert ids(got) == queued + after
        assert {e.boot for e in got} == {1, 2}
        assert_no_more(link, board)
        assert link.wait_state_applied(WAIT)
        assert board.outputs().leds == list(STATE.leds)
        assert link.stats.board["reset_reason"] == ResetReason.WATCHDOG
        assert link.stats.handshakes >= 2


def test_reset_while_connected_is_noticed_and_state_pushed(
    make_board: Callable[..., virtual.VirtualBoard],
) -> None:
    board = make_board()
    with SeatLink(f"virtualseat://{board.name}") as link:
        assert link.wait_connected(WAIT)
        link.set_state(STATE)
        assert link.wait_state_applied(WAIT)
        board.reset()  # RAM gone: the next host frame gets NO_SESSION and the host re-handshakes
        assert link.wait_for(lambda: link.stats.handshakes >= 2, WAIT)
        assert link.wait_state_applied(WAIT)
        assert link.wait_for(lambda: board.outputs().leds == list(STATE.leds), WAIT)
        p = board.press(1, 0)
        assert ids(collect(link, 1)) == [p]


def test_reset_on_open_like_a_nano(make_board: Callable[..., virtual.VirtualBoard]) -> None:
    board = make_board(faults=virtual.Faults(reset_on_open=True))
    with SeatLink(f"virtualseat://{board.name}") as link:
        assert link.wait_connected(WAIT)
        assert link.stats.board["reset_reason"] == ResetReason.EXTERNAL


def test_unplug_replug_recovers_and_delivers_presses_made_meanwhile(
    make_board: Callable[..., virtual.VirtualBoard],
) -> None:
    board = make_board(faults=virtual.Faults(reset_on_open=True))
    with SeatLink(f"virtualseat://{board.name}") as link:
        assert link.wait_connected(WAIT)
        link.set_state(STATE)
        assert link.wait_state_applied(WAIT)
        board.unplug()
        assert link.wait_for(lambda: link.stats.state != "connected", WAIT)
        assert link.wait_for(lambda: board.outputs().host_lost, WAIT)  # board safe state
        assert board.outputs().leds == [0, 0, 0, 0]
        pressed = press_all(board, 3)
        board.plug()
        assert ids(collect(link, 3)) == pressed
        assert link.wait_state_applied(WAIT)
        assert board.outputs().leds == list(STATE.leds)
        assert link.stats.reconnects >= 1
        assert_no_more(link, board)


def test_host_gone_puts_board_in_safe_state(
    make_board: Callable[..., virtual.VirtualBoard],
) -> None:
    board = make_board()
    link = SeatLink(f"virtualseat://{board.name}").start()
    assert link.wait_connected(WAIT)
    link.set_state(STATE)
    assert link.wait_state_applied(WAIT)
    link._stop.set()  # the host process hangs: no more heartbeats, the port stays open
    link._thread.join(timeout=WAIT)  # type: ignore[union-attr]
    deadline = time.monotonic() + WAIT
    while not board.outputs().host_lost and time.monotonic() < deadline:
        time.sleep(0.05)
    out = board.outputs()
    assert out.host_lost and out.leds == [0, 0, 0, 0] and out.alarm == 0
    link.stop()
    # The host comes back with the same wanted state: LEDs return, the buzzer stays quiet.
    with SeatLink(f"virtualseat://{board.name}") as again:
        assert again.wait_connected(WAIT)
        again.set_state(STATE)
        assert again.wait_state_applied(WAIT)
        out = board.outputs()
        assert out.leds == list(STATE.leds) and not out.host_lost and out.buzzes == 1


def test_old_firmware_is_refused_clearly(
    make_board: Callable[..., virtual.VirtualBoard], caplog: pytest.LogCaptureFixture
) -> None:
    board = make_board(firmware=(0, 9, 0))
    with SeatLink(f"virtualseat://{board.name}") as link:
        assert link.wait_for(lambda: link.stats.state == "refused", WAIT)
        board.press(0, 0)
        time.sleep(0.3)
        assert link.events.empty()
        assert "firmware 0.9.0 speaking protocol 0.0" in link.stats.last_error
        assert "reflash" in caplog.text


def test_url_options_and_bad_url() -> None:
    import serial

    port = serial.serial_for_url("virtualseat://urlopt?seats=6&drop=0.5&firmware=1.2.3&seed=4")
    try:
        b = virtual.board("urlopt")
        assert b.seats == 6 and b.faults.drop == 0.5 and b.firmware == (1, 2, 3)
    finally:
        port.close()
        virtual.board("urlopt").close()
    with pytest.raises(serial.SerialException, match="bad option colour"):
        serial.serial_for_url("virtualseat://x?colour=red")


def test_queue_overflow_is_counted_not_silent(
    make_board: Callable[..., virtual.VirtualBoard],
) -> None:
    board = make_board(queue_size=2)
    board.unplug()
    press_all(board, 3)
    board.plug()
    assert board.overflow == 1
    with SeatLink(f"virtualseat://{board.name}") as link:
        assert len(collect(link, 2)) == 2
        assert link.wait_for(lambda: link.stats.board_overflow == 1, WAIT)


def test_state_is_fitted_to_a_board_with_more_seats(
    make_board: Callable[..., virtual.VirtualBoard],
) -> None:
    board = make_board(seats=6)
    with SeatLink(f"virtualseat://{board.name}", seats=4) as link:
        assert link.wait_connected(WAIT)
        link.set_state(STATE)
        assert link.wait_state_applied(WAIT)
        assert board.outputs().leds == [*STATE.leds, 0, 0]
        assert link.stats.board_errors == 0


def test_board_with_too_few_seats_is_refused(
    make_board: Callable[..., virtual.VirtualBoard],
) -> None:
    board = make_board(seats=4)
    with SeatLink(f"virtualseat://{board.name}", seats=6) as link:
        assert link.wait_for(lambda: link.stats.state == "refused", WAIT)
        assert "board has 4 seats, the table needs 6" in link.stats.last_error


def test_prefer_by_id_names_the_stable_link(tmp_path: Path) -> None:
    dev = tmp_path / "ttyUSB3"
    dev.touch()
    by_id = tmp_path / "by-id"
    by_id.mkdir()
    (by_id / "usb-1a86_USB_Serial-if00-port0").symlink_to(dev)
    assert prefer_by_id(str(dev), by_id) == str(by_id / "usb-1a86_USB_Serial-if00-port0")
    assert prefer_by_id(str(tmp_path / "ttyACM0"), by_id) == str(tmp_path / "ttyACM0")
    assert prefer_by_id("virtualseat://x", by_id) == "virtualseat://x"


def test_a_failing_consumer_or_internal_bug_does_not_end_the_link(
    make_board: Callable[..., virtual.VirtualBoard],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    board = make_board()
    real_pump = SeatLink._pump
    calls = {"n": 0}

    def buggy_pump(self: SeatLink) -> None:  # fault injection: one unexpected exception
        calls["n"] += 1
        if calls["n"] == 5:
            raise RuntimeError("injected bug")
        real_pump(self)

    def bad_consumer(ev: ButtonEvent) -> None:
        raise ValueError("consumer bug")

    monkeypatch.setattr(SeatLink, "_pump", buggy_pump)
    with SeatLink(f"virtualseat://{board.name}", on_event=bad_consumer) as link:
        assert link.wait_for(lambda: calls["n"] > 5 and link.stats.state == "connected", WAIT)
        p = board.press(0, 1)
        assert ids(collect(link, 1)) == [p]
        assert "injected bug" in link.stats.last_error or link.stats.handshakes >= 2
    assert "link failure" in caplog.text and "event handler failed" in caplog.text
