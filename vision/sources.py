"""Frame sources behind one interface: a camera, a network stream, a video file, an image folder,
or the Raspberry Pi camera through picamera2.

The table node does not care where frames come from; it only needs each frame's index and
time. Files are read as fast as the CPU allows (``replay``); live sources give wall-clock
times. A source that cannot be opened is a ``SourceError`` naming it; a source that ends just
ends; a source that breaks mid-stream (a camera unplugged, a corrupt file) stops with a logged,
counted error, so the node can close the hand and report instead of hanging.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


class SourceError(RuntimeError):
    """A frame source that cannot be opened or that broke; the message names it."""


@dataclass(frozen=True)
class Frame:
    index: int
    t: float  # seconds since the source started (video time for files, wall time for live)
    image: NDArray[Any]  # BGR


class FrameSource(Protocol):
    name: str
    errors: list[str]

    def frames(self) -> Iterator[Frame]: ...

    def close(self) -> None: ...


@dataclass
class VideoSource:
    """OpenCV ``VideoCapture``: a file, a camera index or ``/dev/video*``, an RTSP/HTTP URL."""

    target: str | int
    fps: float | None = None
    live: bool = False
    max_failures: int = 25
    name: str = ""
    errors: list[str] = field(default_factory=list)
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

    def frames(self) -> Iterator[Frame]:
        assert self._cap is not None and self.fps
        start = time.monotonic()
        index = 0
        failures = 0
        while True:
            ok, image = self._cap.read()
            if not ok or image is None:
                if not self.live:
                    return  # end of file
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


@dataclass
class PiCameraSource:  # pragma: no cover - needs a Raspberry Pi camera
    """The Raspberry Pi camera through picamera2 (only where that package is importable)."""

    size: tuple[int, int] = (1280, 720)
    name: str = "picamera2"
    errors: list[str] = field(default_factory=list)
    _cam: Any = None

    def __post_init__(self) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError:
            raise SourceError("source picamera2: the picamera2 package is not installed") from None
        cam = Picamera2()
        cam.configure(cam.create_video_configuration(main={"size": self.size, "format": "RGB888"}))
        cam.start()
        self._cam = cam

    def frames(self) -> Iterator[Frame]:
        start = time.monotonic()
        index = 0
        while self._cam is not None:
            try:
                image = self._cam.capture_array()
            except Exception as e:
                msg = f"source {self.name}: capture failed: {e} (stopped)"
                self.errors.append(msg)
                log.error(msg)
                return
            yield Frame(index, time.monotonic() - start, np.ascontiguousarray(image[..., :3]))
            index += 1

    def close(self) -> None:
        if self._cam is not None:
            self._cam.stop()
            self._cam = None


def open_source(uri: str | int, fps: float | None = None, base: Path | None = None) -> FrameSource:
    """``0`` or ``/dev/video0`` (camera), ``rtsp://…``/``http://…`` (stream), ``picamera2``,
    a folder of images, or a video file (relative to ``base`` when given)."""
    text = str(uri).strip()
    if text == "picamera2":
        return PiCameraSource()
    if re.fullmatch(r"\d+", text):
        return VideoSource(int(text), fps=fps, live=True, name=f"camera {text}")
    if text.startswith("/dev/video"):
        return VideoSource(text, fps=fps, live=True)
    if re.match(r"^(rtsp|rtsps|http|https|udp|tcp)://", text):
        return VideoSource(text, fps=fps, live=True)
    path = Path(text)
    if base is not None and not path.is_absolute():
        path = base / path
    if path.is_dir():
        return FolderSource(path, fps=fps or 10.0)
    if not path.exists():
        raise SourceError(f"source {path}: no such file or folder")
    return VideoSource(str(path), fps=fps, live=False, name=str(path))
