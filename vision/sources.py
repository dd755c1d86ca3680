"""Frame sources behind one interface: a camera, a network stream, a video file, an image folder,
or the Raspberry Pi camera through picamera2.

The table node does not care where frames come from; it only needs each frame's index and
time. Files are read as fast as the CPU allows (``replay``) and just end; a frame a damaged
file cannot decode is skipped (an error line naming the frames; the rest is read on, at video
time), never taken for the end. A source that cannot
be opened is a ``SourceError`` naming it.

A live source (camera, stream, picamera2) never ends because the camera went away: a USB cable
pulled, a stream that stops or stalls. Its reader thread marks the camera lost after
``lost_after_s`` without a frame, reopens it with a doubling backoff (up to ``retry_max_s``),
and reading resumes as soon as the camera is back, so the hand and every event the node holds
go on. ``source.health`` (a ``SourceHealth``) says lost or back, since when, how often, and the
frames dropped; ``health.on_change`` calls back on each change, from the reader thread.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
PI_CAMERA_SIZE = (2304, 1296)  # Camera Module 3: full field of view, 2×2 binned
STREAM = re.compile(r"^(rtsp|rtsps|http|https|udp|tcp)://")
FIRST_RETRY_S = 0.05
TAIL_SLACK = 2  # frames a container may state beyond what it holds (not damage)


class SourceError(RuntimeError):
    """A frame source that cannot be opened or that broke; the message names it."""


@dataclass(frozen=True)
class Frame:
    index: int
    t: float  # seconds since the source started (video time for files, wall time for live)
    image: NDArray[Any]  # BGR


class FrameSource(Protocol):
    """What the node's start-up reads of a source (``tablescan.wiring``): ``live`` (a camera
    that cannot go back: a resumed node continues instead of replaying), ``frame_count`` (a
    recorded file's, for a progress bar), ``health`` (a live camera's state for the
    dashboard) and ``on_idle`` (called while no frame comes: the seat buttons keep polling)."""

    name: str
    errors: list[str]
    live: bool
    on_idle: Callable[[], None] | None

    @property
    def frame_count(self) -> int | None: ...

    @property
    def health(self) -> SourceHealth | None: ...

    def frames(self) -> Iterator[Frame]: ...

    def close(self) -> None: ...


# --- files ------------------------------------------------------------------------------------


@dataclass
class VideoSource:
    """A video file through OpenCV ``VideoCapture``, at video time (``index / fps``).

    ``live=True`` (a camera index, ``/dev/video*`` or a stream URL read once, without
    reconnecting) is kept for callers that want the old behaviour; ``open_source`` gives live
    targets a reconnecting ``LiveSource``.
    """

    target: str | int
    fps: float | None = None
    live: bool = False
    max_failures: int = 25
    name: str = ""
    errors: list[str] = field(default_factory=list)
    on_idle: Callable[[], None] | None = None  # a file is never idle: never called
    health: None = None  # a file has no camera health
    _cap: Any = None

    def __post_init__(self) -> None:
        self.name = self.name or str(self.target)
        cap = cv2.VideoCapture(self.target)
        if not cap.isOpened():
            cap.release()
            raise SourceError(f"source {self.name}: cannot be opened")
        self._cap = cap
        if self.fps is None:
            reported = float(cap.get(cv2.CAP_PROP_FPS) or 0.0)
            self.fps = reported if 1.0 <= reported <= 240.0 else 25.0

    @property
    def frame_count(self) -> int | None:
        """The file's frame count as its container states it (for a progress bar); None for a
        live source or when the container does not say."""
        if self.live or self._cap is None:
            return None
        n = int(self._cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        return n if n > 0 else None

    def frames(self) -> Iterator[Frame]:
        assert self._cap is not None and self.fps
        start = time.monotonic()
        index = 0
        failures = 0
        count = self.frame_count
        while True:
            ok, image = self._cap.read()
            if not ok or image is None:
                if not self.live:
                    if count is None or index >= count:
                        return  # end of file
                    found = self._skip_damage(index, count)  # damage: go on past it
                    if found is None:
                        return
                    index, image = found
                    yield Frame(index, index / self.fps, image)
                    index += 1
                    continue
                failures += 1
                if failures >= self.max_failures:
                    msg = f"source {self.name}: no frame after {failures} tries (stopped)"
                    self.errors.append(msg)
                    log.error(msg)
                    return
                time.sleep(0.02)
                continue
            failures = 0
            t = time.monotonic() - start if self.live else index / self.fps
            yield Frame(index, t, image)
            index += 1

    def _skip_damage(self, index: int, count: int) -> tuple[int, NDArray[Any]] | None:
        """Frame ``index`` of a file that states ``count`` did not decode: seek frame by frame
        to the next one that does. The skipped frames are one error line (the hand goes on,
        at video time); None when nothing decodes to the end (a tail of at most
        ``TAIL_SLACK`` frames is a container's count, not damage, and is not an error)."""
        first = index
        image = None
        while image is None and index + 1 < count:
            index += 1
            self._cap.set(cv2.CAP_PROP_POS_FRAMES, index)
            ok, got = self._cap.read()
            image = got if ok else None
        if image is None and count - first <= TAIL_SLACK:
            return None
        last = index - 1 if image is not None else count - 1
        what = f"frame {first}" if last == first else f"frames {first}..{last}"
        tail = "" if image is not None else "; the file ends damaged"
        msg = f"source {self.name}: {what} of {count} cannot be decoded (skipped){tail}"
        self.errors.append(msg)
        log.error(msg)
        return None if image is None else (index, image)

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


@dataclass
class FolderSource:
    """Images of a folder in name order, at ``fps`` (for stills exported from a camera)."""

    folder: Path
    fps: float = 10.0
    name: str = ""
    errors: list[str] = field(default_factory=list)
    live: bool = False
    on_idle: Callable[[], None] | None = None  # a folder is never idle: never called
    health: None = None

    @property
    def frame_count(self) -> int:
        return len(self.paths)

    def __post_init__(self) -> None:
        self.name = self.name or str(self.folder)
        if not self.folder.is_dir():
            raise SourceError(f"source {self.name}: not a folder")
        self.paths = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.paths:
            raise SourceError(f"source {self.name}: no images ({', '.join(IMAGE_SUFFIXES)})")

    def frames(self) -> Iterator[Frame]:
        index = 0
        for path in self.paths:
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                msg = f"source {self.name}: {path.name}: unreadable image (skipped)"
                self.errors.append(msg)
                log.warning(msg)
                continue
            yield Frame(index, index / self.fps, image)
            index += 1

    def close(self) -> None:
        pass


# --- live sources that come back --------------------------------------------------------------


@dataclass
class SourceHealth:
    """A live source's state for the node and the dashboard (read from any thread).

    ``dropped``: frames the camera gave that the node never took (it was busy; the newest frame
    wins). ``missed``: frames the camera did not give while lost (the time lost × fps).
    """

    name: str
    fps: float = 25.0
    lost: bool = False
    lost_since: float | None = None  # time.monotonic() of the loss
    losses: int = 0
    reconnects: int = 0
    frames: int = 0
    dropped: int = 0
    missed: int = 0
    last_error: str = ""
    last_frame_at: float | None = None
    _listeners: list[Callable[[str, SourceHealth], None]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def on_change(self, callback: Callable[[str, SourceHealth], None]) -> None:
        """``callback("camera lost" | "camera back", health)`` on each change."""
        self._listeners.append(callback)

    def snapshot(self, now: float | None = None) -> dict[str, Any]:
        """A JSON-ready view: what the dashboard's health shows."""
        now = time.monotonic() if now is None else now
        with self._lock:
            return {
                "camera": "lost" if self.lost else "ok",
                "lost_for_s": round(now - self.lost_since, 2) if self.lost_since else 0.0,
                "losses": self.losses,
                "reconnects": self.reconnects,
                "frames": self.frames,
                "dropped": self.dropped,
                "missed": self.missed,
                "last_error": self.last_error,
            }

    def _frame(self, now: float) -> None:
        back = False
        with self._lock:
            self.frames += 1
            self.last_frame_at = now
            if self.lost:
                self.lost = False
                self.missed += round((now - (self.lost_since or now)) * self.fps)
                self.lost_since = None
                back = True
        if back:
            self._tell("camera back")

    def _check(self, now: float, lost_after_s: float, since: float) -> bool:
        """Mark the source lost when no frame came for ``lost_after_s``; True if it is lost."""
        with self._lock:
            if self.lost:
                return True
            last = self.last_frame_at if self.last_frame_at is not None else since
            if now - max(last, since) < lost_after_s:
                return False
            self.lost, self.lost_since = True, max(last, since)
            self.losses += 1
        self._tell("camera lost")
        return True

    def _error(self, why: str) -> None:
        with self._lock:
            self.last_error = why

    def _tell(self, what: str) -> None:
        (log.warning if what == "camera lost" else log.info)(
            "source %s: %s%s", self.name, what, f" ({self.last_error})" if self.last_error else ""
        )
        for callback in list(self._listeners):
            try:
                callback(what, self)
            except Exception:  # a listener's bug must not stop the camera
                log.exception("source %s: health listener failed", self.name)


class Grabber(Protocol):
    """One opened camera: ``read()`` gives a BGR image or None (no frame this time)."""

    def read(self) -> NDArray[Any] | None: ...

    def close(self) -> None: ...


class CvGrabber:
    """OpenCV ``VideoCapture`` on a camera index, ``/dev/video*`` or a stream URL; streams get
    open and read timeouts so a stalled one returns instead of hanging the reader."""

    def __init__(
        self, target: str | int, size: tuple[int, int] | None = None, timeout_s: float = 1.0
    ) -> None:
        ms = max(1, int(timeout_s * 1000))
        if isinstance(target, str) and STREAM.match(target):
            params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, ms, cv2.CAP_PROP_READ_TIMEOUT_MSEC, ms]
            cap = cv2.VideoCapture(target, cv2.CAP_FFMPEG, params)
        else:
            cap = cv2.VideoCapture(target)
        if not cap.isOpened():
            cap.release()
            raise SourceError(f"source {target}: cannot be opened")
        if size is not None and not (isinstance(target, str) and STREAM.match(target)):
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        self.cap = cap
        reported = float(cap.get(cv2.CAP_PROP_FPS) or 0.0)
        self.fps = reported if 1.0 <= reported <= 240.0 else None

    def read(self) -> NDArray[Any] | None:
        ok, image = self.cap.read()
        return image if ok and image is not None else None

    def close(self) -> None:
        self.cap.release()


class PiCameraGrabber:  # pragma: no cover - needs a Raspberry Pi camera
    """The Raspberry Pi camera through picamera2 (installed from apt: python3-picamera2)."""

    def __init__(self, size: tuple[int, int], timeout_s: float = 1.0) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError:
            raise SourceError("source picamera2: the picamera2 package is not installed") from None
        try:
            cam = Picamera2()
            cam.configure(cam.create_video_configuration(main={"size": size, "format": "RGB888"}))
            cam.start()
        except Exception as e:  # libcamera's own errors: no camera, camera busy
            raise SourceError(f"source picamera2: cannot be opened: {e}") from None
        self.cam, self.timeout_s, self.fps = cam, timeout_s, None

    def read(self) -> NDArray[Any] | None:
        try:
            job = self.cam.capture_array("main", wait=self.timeout_s)
        except TypeError:  # an older picamera2 without a wait timeout
            job = self.cam.capture_array()
        except Exception:
            return None
        return None if job is None else np.ascontiguousarray(job[..., :3])

    def close(self) -> None:
        try:
            self.cam.stop()
            self.cam.close()
        except Exception:
            pass


@dataclass
class LiveSource:
    """A live camera that comes back (see the module doc): frames at wall-clock time.

    The first open must succeed (a wrong uri is a ``SourceError`` at once); after that a lost
    camera is retried for ever, or for ``give_up_s`` when given (then it ends with an error).
    """

    opener: Callable[[], Grabber]
    name: str
    fps: float | None = None
    lost_after_s: float = 1.0
    retry_max_s: float = 0.5
    give_up_s: float | None = None
    live: bool = True
    errors: list[str] = field(default_factory=list)
    frame_count: None = None  # a camera has no end
    health: SourceHealth = field(init=False)
    #: called about every 0.1 s while no frame comes (camera lost): the node's loop keeps
    #: polling the seat buttons and ticking the watchdog
    on_idle: Callable[[], None] | None = None

    def __post_init__(self) -> None:
        grabber = self.opener()  # SourceError: cannot be opened
        self.fps = self.fps or getattr(grabber, "fps", None) or 25.0
        self.health = SourceHealth(self.name, self.fps)
        self._grabber: Grabber | None = grabber
        self._stop = threading.Event()
        self._cond = threading.Condition()
        self._latest: tuple[float, NDArray[Any]] | None = None
        self._thread: threading.Thread | None = None
        self._opened_at = time.monotonic()

    def _read_loop(self) -> None:
        backoff = FIRST_RETRY_S
        while not self._stop.is_set():
            now = time.monotonic()
            if self._grabber is None:
                try:
                    self._grabber = self.opener()
                except Exception as e:
                    self.health._error(str(e))
                    self.health._check(now, self.lost_after_s, self._opened_at)
                    self._stop.wait(backoff)
                    backoff = min(backoff * 2, self.retry_max_s)
                    continue
                with self.health._lock:
                    self.health.reconnects += 1
                self._opened_at = time.monotonic()
            try:
                image = self._grabber.read()
            except Exception as e:  # a camera library's own error: the camera is gone
                self.health._error(f"read failed: {e}")
                image = None
            now = time.monotonic()
            if image is None:
                self.health._check(now, self.lost_after_s, self._opened_at)
                last = max(self.health.last_frame_at or 0.0, self._opened_at)
                if now - last >= self.lost_after_s:
                    self._drop_grabber()  # reopen: a replugged camera is a new device
                else:
                    self._stop.wait(0.01)
                continue
            backoff = FIRST_RETRY_S
            self.health._frame(now)
            with self._cond:
                if self._latest is not None:
                    with self.health._lock:
                        self.health.dropped += 1
                self._latest = (now, image)
                self._cond.notify()
        self._drop_grabber()

    def _drop_grabber(self) -> None:
        grabber, self._grabber = self._grabber, None
        if grabber is not None:
            try:
                grabber.close()
            except Exception:
                log.debug("source %s: close failed", self.name, exc_info=True)

    def frames(self) -> Iterator[Frame]:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._read_loop, name=f"source {self.name}", daemon=True
            )
            self._thread.start()
        start = time.monotonic()
        index = 0
        while not self._stop.is_set():
            with self._cond:
                if self._latest is None:
                    self._cond.wait(0.1)
                item, self._latest = self._latest, None
            if item is None:
                if self.on_idle is not None:
                    self.on_idle()
                now = time.monotonic()
                # the reader may be stuck in a read: the loss shows all the same
                self.health._check(now, self.lost_after_s, self._opened_at)
                since = self.health.lost_since
                if (
                    self.give_up_s is not None
                    and since is not None
                    and now - since > self.give_up_s
                ):
                    msg = f"source {self.name}: camera lost for {now - since:.1f} s (stopped)"
                    self.errors.append(msg)
                    log.error(msg)
                    return
                continue
            yield Frame(index, item[0] - start, item[1])
            index += 1

    def close(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5.0)
        if self._thread is None or not self._thread.is_alive():
            self._drop_grabber()


def open_source(
    uri: str | int,
    fps: float | None = None,
    base: Path | None = None,
    size: tuple[int, int] | None = None,
    lost_after_s: float = 1.0,
    retry_max_s: float = 0.5,
    give_up_s: float | None = None,
) -> FrameSource:
    """``0`` or ``/dev/video0`` (camera), ``rtsp://…``/``http://…`` (stream), ``picamera2``,
    a folder of images, or a video file (relative to ``base`` when given).

    Cameras and streams are ``LiveSource``s that come back (``size``: the capture mode asked,
    default the camera's own; picamera2 default 2304×1296); files and folders just end.
    """
    text = str(uri).strip()
    live: dict[str, Any] = {
        "fps": fps, "lost_after_s": lost_after_s, "retry_max_s": retry_max_s,
        "give_up_s": give_up_s,
    }  # fmt: skip
    timeout = min(1.0, lost_after_s)
    if text == "picamera2":
        pi_size = size or PI_CAMERA_SIZE
        return LiveSource(lambda: PiCameraGrabber(pi_size, timeout), "picamera2", **live)
    target: str | int | None = None
    if re.fullmatch(r"\d+", text):
        target, name = int(text), f"camera {text}"
    elif text.startswith("/dev/video") or text.startswith("/dev/v4l/") or STREAM.match(text):
        target, name = text, text
    if target is not None:
        t = target
        return LiveSource(lambda: CvGrabber(t, size, timeout), name, **live)
    path = Path(text)
    if base is not None and not path.is_absolute():
        path = base / path
    if path.is_dir():
        return FolderSource(path, fps=fps or 10.0)
    if not path.exists():
        raise SourceError(f"source {path}: no such file or folder")
    return VideoSource(str(path), fps=fps, live=False, name=str(path))
