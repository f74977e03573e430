"""The batch's progress line on stderr: documents done, documents/s, MB/s and the ETA."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

from chunkviz.batch.worker import DocResult
from chunkviz.terminal import visible_name


def format_duration(seconds: float) -> str:
    """``75`` -> ``'1:15'``, ``3725`` -> ``'1:02:05'``."""
    whole = max(0, round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class ProgressLine:
    """Counts finished documents and shows the rate over the documents chunked in this run
    (those an earlier run had done are counted, not timed). On a terminal the line is redrawn
    in place at most every ``interval`` seconds; otherwise a line is printed every
    ``log_interval`` seconds. :meth:`finish` prints the last line."""

    def __init__(
        self,
        total: int,
        stream: TextIO | None,
        *,
        clock: Callable[[], float] = time.monotonic,
        interval: float = 0.2,
        log_interval: float = 10.0,
    ) -> None:
        self.total = total
        self.stream = stream
        self.clock = clock
        self.started = clock()
        self.finished = 0
        self.chunked = 0
        self.kept = 0
        self.failed = 0
        self.bytes = 0
        self.chunks = 0
        self.tty = bool(stream is not None and getattr(stream, "isatty", lambda: False)())
        self.interval = interval if self.tty else log_interval
        self._last_shown = self.started

    def update(self, result: DocResult) -> None:
        self.finished += 1
        if result.status == "kept":
            self.kept += 1
            self.chunks += result.chunks
        elif result.status == "failed":
            self.failed += 1
        else:
            self.chunked += 1
            self.bytes += result.bytes
            self.chunks += result.chunks
        now = self.clock()
        if now - self._last_shown >= self.interval:
            self._last_shown = now
            self._show(self.line(now))

    def line(self, now: float | None = None) -> str:
        """``batch: 120/500 documents · 35.2 documents/s · 1.23 MB/s · ETA 0:11 · 1 failed``."""
        elapsed = max((self.clock() if now is None else now) - self.started, 1e-9)
        timed = self.chunked + self.failed
        per_second = timed / elapsed
        parts = [
            f"batch: {self.finished:,}/{self.total:,} documents",
            f"{per_second:,.1f} documents/s",
            f"{self.bytes / 1e6 / elapsed:,.2f} MB/s",
        ]
        remaining = self.total - self.finished
        if remaining and per_second > 0:
            parts.append(f"ETA {format_duration(remaining / per_second)}")
        if self.kept:
            parts.append(f"{self.kept:,} done before")
        if self.failed:
            parts.append(f"{self.failed:,} failed")
        return " · ".join(parts)

    def note(self, text: str) -> None:
        """A line of its own (e.g. a skipped document), not overwritten by the progress line; the
        document names in it shown by :func:`~chunkviz.terminal.visible_name`."""
        if self.stream is None:
            return
        if self.tty:
            self.stream.write("\r\x1b[K")
        self.stream.write(visible_name(text) + "\n")
        self.stream.flush()

    def finish(self) -> None:
        self._show(self.line(), final=True)

    def elapsed(self) -> float:
        return self.clock() - self.started

    def _show(self, text: str, final: bool = False) -> None:
        if self.stream is None:
            return
        if self.tty:
            self.stream.write("\r\x1b[K" + text + ("\n" if final else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


__all__ = ["ProgressLine", "format_duration"]
