"""Sources end cleanly, and fail with errors that name them."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest

from tablescan.render import RenderResult
from vision.sources import FolderSource, LiveSource, SourceError, VideoSource, open_source


def test_video_file_ends_with_every_frame_timed(clip: RenderResult) -> None:
    src = open_source(str(clip.video))
    frames = list(src.frames())
    src.close()
    assert len(frames) == clip.frames
    assert frames[0].t == 0.0
    assert frames[-1].t == pytest.approx((clip.frames - 1) / clip.fps)
    assert src.errors == []


def test_folder_skips_an_unreadable_image_and_counts_it(tmp_path: Path) -> None:
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), np.full((40, 60, 3), i * 40, np.uint8))
    (tmp_path / "f1b.jpg").write_bytes(b"not a jpeg")
    src = open_source(str(tmp_path), fps=5)
    assert isinstance(src, FolderSource)
    frames = list(src.frames())
    assert [f.index for f in frames] == [0, 1, 2]
    assert frames[2].t == pytest.approx(0.4)
    assert len(src.errors) == 1 and "f1b.jpg: unreadable image" in src.errors[0]


def test_missing_and_corrupt_sources_fail_clearly(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such file"):
        open_source(str(tmp_path / "nothing.mp4"))
    bad = tmp_path / "broken.mp4"
    bad.write_bytes(b"\x00" * 2048)
    with pytest.raises(SourceError, match=r"broken\.mp4: cannot be opened"):
        open_source(str(bad))
    (tmp_path / "empty_dir").mkdir()
    with pytest.raises(SourceError, match="no images"):
        open_source(str(tmp_path / "empty_dir"))
    with pytest.raises(SourceError, match="/dev/video97: cannot be opened"):
        open_source("/dev/video97")


def test_truncated_recording_is_refused_at_open(clip: RenderResult, tmp_path: Path) -> None:
    """A recording cut short (its index never written) is a clear error, not a hang."""
    data = clip.video.read_bytes()
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(SourceError, match=r"cut\.mp4: cannot be opened"):
        VideoSource(str(cut))


def test_live_source_read_once_stops_with_an_error(clip: RenderResult) -> None:
    """The old read-once live mode (``VideoSource(live=True)``) gives up after a few tries."""
    src = VideoSource(str(clip.video), live=True, max_failures=3)
    frames = list(src.frames())
    src.close()
    assert len(frames) == clip.frames
    assert frames[1].t >= frames[0].t  # wall-clock times for live sources
    assert len(src.errors) == 1 and "no frame after 3 tries (stopped)" in src.errors[0]


# --- a camera that comes back: a real MJPEG-over-HTTP stream on loopback, cut and restored ---


class MjpegCamera:
    """An MJPEG-over-HTTP camera on 127.0.0.1 that can be cut (listener and connections
    closed), stalled (connections kept, nothing sent) and restored on the same port. Each
    frame's grey level is ``40 * generation`` so frames after a restore are told apart."""

    def __init__(self) -> None:
        self.port = 0
        self.generation = 0
        self.sending = threading.Event()
        self.closed = threading.Event()
        self._listener: socket.socket | None = None
        self._clients: list[socket.socket] = []
        self._lock = threading.Lock()

    def start(self) -> None:
        lst = socket.socket()
        lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        lst.bind(("127.0.0.1", self.port))
        lst.listen(8)
        lst.settimeout(0.1)
        self.port = lst.getsockname()[1]
        self._listener = lst
        self.sending.set()
        threading.Thread(target=self._accept, args=(lst,), daemon=True).start()

    def _accept(self, lst: socket.socket) -> None:
        while not self.closed.is_set() and self._listener is lst:
            try:
                conn, _ = lst.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._lock:
                self._clients.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(2)
            request = b""
            while b"\r\n\r\n" not in request and len(request) < 8192:
                chunk = conn.recv(1024)
                if not chunk:
                    return
                request += chunk
            conn.sendall(
                b"HTTP/1.0 200 OK\r\nContent-Type: multipart/x-mixed-replace; boundary=frame"
                b"\r\n\r\n"
            )
            deadline = time.monotonic() + 30  # bounded: a test never leaves it running
            while not self.closed.is_set() and time.monotonic() < deadline:
                if not self.sending.wait(0.05):
                    continue
                image = np.full((90, 120, 3), 40 * self.generation + 20, np.uint8)
                jpg = cv2.imencode(".jpg", image)[1].tobytes()
                head = f"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: {len(jpg)}\r\n\r\n"
                conn.sendall(head.encode() + jpg + b"\r\n")
                time.sleep(0.05)
        except OSError:
            pass
        finally:
            conn.close()

    def cut(self) -> None:
        lst, self._listener = self._listener, None
        if lst is not None:
            lst.close()
        with self._lock:
            clients, self._clients = self._clients, []
        for c in clients:
            with contextlib.suppress(OSError):
                c.shutdown(socket.SHUT_RDWR)
            c.close()

    def restore(self) -> None:
        self.generation += 1
        self.start()

    def stop(self) -> None:
        self.closed.set()
        self.cut()


class Reader:
    """Consumes a source's frames in a thread, noting when each arrived."""

    def __init__(self, src: LiveSource) -> None:
        self.src = src
        self.got: list[tuple[float, int, int]] = []  # (arrival, index, grey level)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        for frame in self.src.frames():
            self.got.append((time.monotonic(), frame.index, int(frame.image.mean())))

    def first_after(self, t: float, grey: int, timeout: float = 6.0) -> float:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            hit = [at for at, _, g in list(self.got) if at >= t and abs(g - grey) <= 6]
            if hit:
                return hit[0]
            time.sleep(0.01)
        raise AssertionError(f"no frame of grey {grey} within {timeout} s")


def wait_for(cond: Callable[[], bool], timeout: float = 6.0) -> float:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return time.monotonic()
        time.sleep(0.01)
    raise AssertionError("condition not met in time")


@pytest.fixture
def camera() -> Iterator[MjpegCamera]:
    cam = MjpegCamera()
    cam.start()
    yield cam
    cam.stop()


def test_stream_cut_and_restored_comes_back_within_two_seconds(camera: MjpegCamera) -> None:
    src = open_source(
        f"http://127.0.0.1:{camera.port}/stream.mjpg", fps=20, lost_after_s=0.5, retry_max_s=0.3
    )
    assert isinstance(src, LiveSource)
    changes: list[tuple[str, float]] = []
    src.health.on_change(lambda what, _h: changes.append((what, time.monotonic())))
    idle: list[float] = []
    src.on_idle = lambda: idle.append(time.monotonic())
    reader = Reader(src)
    try:
        reader.first_after(0.0, 20)
        wait_for(lambda: len(reader.got) >= 5)
        cut_at = time.monotonic()
        camera.cut()
        lost_at = wait_for(lambda: src.health.lost)
        assert lost_at - cut_at < 2.0
        assert src.health.snapshot()["camera"] == "lost"
        time.sleep(max(0.0, cut_at + 1.5 - time.monotonic()))  # unplugged for 1.5 s
        back_at = time.monotonic()
        camera.restore()
        assert len([t for t in idle if cut_at <= t <= back_at]) >= 5  # the loop kept turning
        resumed = reader.first_after(back_at, 60)
        assert resumed - back_at < 2.0, f"resumed {resumed - back_at:.2f} s after the camera"
        wait_for(lambda: not src.health.lost)
    finally:
        src.close()
        reader.thread.join(timeout=6)
    assert not reader.thread.is_alive()
    assert [what for what, _ in changes] == ["camera lost", "camera back"]
    health = src.health.snapshot()
    assert health["camera"] == "ok" and health["losses"] == 1 and health["reconnects"] >= 1
    assert health["missed"] >= 10  # about 1.5 s at 20 fps never came
    indexes = [i for _, i, _ in reader.got]
    assert indexes == list(range(len(indexes)))  # one stream of frames: it never ended
    assert src.errors == []


def test_stalled_stream_is_lost_then_read_again(camera: MjpegCamera) -> None:
    src = open_source(
        f"http://127.0.0.1:{camera.port}/stream.mjpg", fps=20, lost_after_s=0.5, retry_max_s=0.3
    )
    assert isinstance(src, LiveSource)
    reader = Reader(src)
    try:
        wait_for(lambda: len(reader.got) >= 3)
        stall_at = time.monotonic()
        camera.sending.clear()  # connected, but no frame comes
        lost_at = wait_for(lambda: src.health.lost)
        assert lost_at - stall_at < 2.0
        time.sleep(0.5)
        back_at = time.monotonic()
        camera.sending.set()
        resumed = reader.first_after(back_at, 20)
        assert resumed - back_at < 2.0
    finally:
        src.close()
        reader.thread.join(timeout=6)
    assert src.health.losses == 1 and src.errors == []


def test_camera_that_never_returns_ends_only_when_told(camera: MjpegCamera) -> None:
    src = open_source(
        f"http://127.0.0.1:{camera.port}/stream.mjpg",
        fps=20, lost_after_s=0.3, retry_max_s=0.2, give_up_s=0.8,
    )  # fmt: skip
    reader = Reader(src)
    wait_for(lambda: len(reader.got) >= 2)
    camera.cut()
    reader.thread.join(timeout=6)
    src.close()
    assert not reader.thread.is_alive()
    assert len(src.errors) == 1 and "camera lost for" in src.errors[0]
    assert "cannot be opened" in src.health.last_error


def test_a_wrong_camera_is_refused_at_open() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(SourceError, match=f"127.0.0.1:{port}/x.mjpg: cannot be opened"):
        open_source(f"http://127.0.0.1:{port}/x.mjpg")


def test_a_busy_node_gets_the_newest_frame_and_the_rest_count_as_dropped(
    camera: MjpegCamera,
) -> None:
    src = open_source(f"http://127.0.0.1:{camera.port}/stream.mjpg", fps=20)
    taken = 0
    try:
        for _frame in src.frames():
            taken += 1
            time.sleep(0.2)  # a node four times slower than the camera
            if taken == 6:
                break
    finally:
        src.close()
    health = src.health.snapshot()
    assert health["dropped"] >= 6 and health["frames"] >= taken + health["dropped"] - 1
    assert health["camera"] == "ok" and health["losses"] == 0


def test_a_file_damaged_mid_way_is_skipped_past_not_ended(
    clip: RenderResult, tmp_path: Path
) -> None:
    """Before: the first frame that did not decode ended the file (and the hand, "source
    ended"), with no error line."""
    import json
    import subprocess
    import sys

    from engine.record import read_record

    data = bytearray(clip.video.read_bytes())
    mid, span = len(data) // 2, len(data) // 20
    data[mid : mid + span] = bytes((i * 37 + 11) % 256 for i in range(span))  # noise
    bad = tmp_path / "damaged.mp4"
    bad.write_bytes(bytes(data))
    labels = clip.video.with_suffix(".labels.jsonl")
    (tmp_path / "damaged.labels.jsonl").write_bytes(labels.read_bytes())
    src = VideoSource(str(bad))
    frames = list(src.frames())
    src.close()
    assert len(src.errors) >= 1 and "cannot be decoded (skipped)" in src.errors[0]
    assert frames[-1].index >= clip.frames - 3  # read on to the end, at video time
    assert all(f.t == pytest.approx(f.index / clip.fps) for f in frames)
    out = tmp_path / "match.jsonl"
    proc = subprocess.run(
        [
            sys.executable, "-m", "tablescan", "replay", str(bad),
            "--config", str(clip.table), "--profile", "standard", "-o", str(out),
            "--detector", "labels", "--no-evidence",
        ],
        capture_output=True, text=True, cwd=Path(__file__).resolve().parents[2], timeout=120,
    )  # fmt: skip
    assert "cannot be decoded (skipped)" in proc.stderr, proc.stderr[-2000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1])["frames"] == len(frames)
    events, _ = read_record(out)
    ended = [e for e in events if e["type"] == "hand_end" and e.get("reason") == "source ended"]
    assert ended == []  # the hand is not ended at the damage
