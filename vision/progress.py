"""Progress for long commands (render-match, replay, the demo's render, vision.eval, dataset
generation, training): a ``rich`` bar on a terminal, plain lines when not a TTY (a log, CI).

Everything may import this (vision is below the spine). One interface for both::

    bar = Progress(total, "scenes")
    for ...: bar.update(1, note="…")
    bar.close()          # also when fewer than ``total`` steps were done

``track(iterable, label, total)`` wraps an iterable the same way.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import Any, TextIO, TypeVar

T = TypeVar("T")
PLAIN_EVERY_S = 5.0  # a plain line at most this often (and at the end)


class Progress:
    """A progress bar for ``total`` steps on ``stream`` (stderr)."""

    def __init__(self, total: int, label: str, stream: TextIO | None = None) -> None:
        self.total, self.label, self.done = max(int(total), 1), label, 0
        self.stream = stream if stream is not None else sys.stderr
        self.start = time.monotonic()
        self._last = 0.0
        self._closed = False
        self._rich: Any = None
        self._task: Any = None
        if getattr(self.stream, "isatty", lambda: False)():
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as RichProgress

            self._rich = RichProgress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                TextColumn("{task.fields[note]}"),
                console=Console(file=self.stream),
                transient=False,
            )
            self._rich.start()
            self._task = self._rich.add_task(label, total=self.total, note="")

    def update(self, n: int = 1, note: str = "") -> None:
        self.done += n
        if self._rich is not None:
            self._rich.update(self._task, advance=n, note=note)
            if self.done >= self.total:
                self.close()
            return
        now = time.monotonic()
        if self.done < self.total and now - self._last < PLAIN_EVERY_S and self._last:
            return
        self._last = now
        el = now - self.start
        frac = min(1.0, self.done / self.total)
        eta = el / frac - el if frac > 0 else 0.0
        self.stream.write(
            f"{self.label}: {self.done}/{self.total} ({100 * frac:.0f}%) "
            f"{el:.0f}s elapsed, eta {eta:.0f}s{' ' + note if note else ''}\n"
        )
        self.stream.flush()
        if self.done >= self.total:
            self._closed = True

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._rich is not None:
            self._rich.stop()
        elif self.done < self.total:
            self.stream.write(f"{self.label}: stopped at {self.done}/{self.total}\n")
            self.stream.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def track(
    items: Iterable[T], label: str, total: int | None = None, stream: TextIO | None = None
) -> Iterator[T]:
    """``items`` with a progress bar (``total``: its length when it has none)."""
    if total is None:
        total = len(items) if hasattr(items, "__len__") else 0  # type: ignore[arg-type]
    with Progress(total, label, stream) as bar:
        for item in items:
            yield item
            bar.update()
