"""The batch's progress on stderr: documents done, documents/s, MB/s and the ETA, shown by
:class:`chunkviz.cli.progress.Progress` (a bar on a terminal, whole lines in a log)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

from chunkviz.cli.batch.worker import DocResult
from chunkviz.cli.progress import Progress, format_duration
from chunkviz.text.printable import visible_name

LABEL = "batch"


class ProgressLine:
    """Counts finished documents and shows the rate over the documents chunked in this run
    (those an earlier run had done are counted, not timed), through :class:`Progress`: on a
    terminal a bar, otherwise a whole line every ``log_interval`` seconds; :meth:`finish`
    prints the last one."""

    def __init__(
        self,
        total: int,
        stream: TextIO | None,
        *,
        clock: Callable[[], float] = time.monotonic,
        interval: float = 0.2,  # unused: a terminal bar redraws itself (kept for callers)
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
        self.display = Progress(stream, clock=clock, log_interval=log_interval)
        self.display.start(LABEL, total, unit="documents")

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
        self._show()

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
        """A line of its own (e.g. a skipped document), not overwritten by the progress; the
        document names in it shown by :func:`~chunkviz.text.printable.visible_name`."""
        self.display.note(visible_name(text))

    def finish(self) -> None:
        self._show(final=True)
        self.display.close()

    def elapsed(self) -> float:
        return self.clock() - self.started

    def _show(self, final: bool = False) -> None:
        line = self.line()
        detail = " · ".join(p for p in line.split(" · ")[2:] if not p.startswith("ETA"))  # the bar has its own
        self.display.update(LABEL, self.finished, self.total, unit="documents", detail=detail, line=line, final=final)


__all__ = ["ProgressLine", "format_duration"]
