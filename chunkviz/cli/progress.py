"""Progress of a long run on stderr, readable wherever it goes: the one home for it (``eval``,
``tune``, ``batch``, ``questions`` and every LLM call loop use :class:`Progress`).

- **On a terminal** (the stream is a TTY and ``rich`` is installed: the ``terminal`` extra): a
  ``rich`` progress bar per task, with its count, rate and the time left, redrawn in place.
- **Anywhere else** (a file, a pipe, a CI log; or no ``rich``): whole lines, each ending in a
  newline and none containing a carriage return or an escape sequence: a task's line at most every
  ``log_interval`` seconds and when it completes, e.g.
  ``embedding questions: 120/472 texts · 35.2 texts/s · ETA 0:10``.

A *task* is named by its label (``embedding questions``); :meth:`Progress.update` with a new
label starts a new one. :meth:`Progress.note` prints a line of its own between the bars.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

#: Seconds between two lines of the same task in a log (its last line is always written).
LOG_INTERVAL = 10.0


def format_duration(seconds: float) -> str:
    """``75`` -> ``'1:15'``, ``3725`` -> ``'1:02:05'``."""
    whole = max(0, round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def is_terminal(stream: TextIO | None) -> bool:
    """Whether ``stream`` is an interactive terminal (a bar can be redrawn in place there)."""
    return bool(stream is not None and getattr(stream, "isatty", lambda: False)())


@dataclass
class _Task:
    label: str
    unit: str
    started: float
    done: float = 0.0
    total: float = 0.0
    detail: str = ""
    last_line: float = 0.0
    written: str = ""  # the last line written (the same line is not written twice)
    bar: Any = None  # the rich task id on a terminal


class Progress:
    """Progress of the tasks of one run on ``stream`` (None: nothing is shown); see the module.
    ``clock`` is the time source (tests); ``bar`` forces the terminal bar on or off."""

    def __init__(
        self,
        stream: TextIO | None,
        *,
        clock: Callable[[], float] = time.monotonic,
        log_interval: float = LOG_INTERVAL,
        bar: bool | None = None,
    ) -> None:
        self.stream = stream
        self.clock = clock
        self.log_interval = log_interval
        self.tasks: dict[str, _Task] = {}
        self._rich: Any = None
        if stream is not None and (bar if bar is not None else is_terminal(stream)):
            self._rich = _rich_progress(stream)

    def start(self, label: str, total: float, *, unit: str = "items") -> _Task:
        """Task ``label`` begins (its bar shows at 0; a log says nothing yet)."""
        now = self.clock()
        task = self.tasks[label] = _Task(label, unit, now, total=total, last_line=now)
        if self._rich is not None:
            task.bar = self._rich.add_task(label, total=total or None, detail="", unit=unit)
        return task

    def update(
        self,
        label: str,
        done: float,
        total: float,
        *,
        unit: str = "items",
        detail: str = "",
        line: str | None = None,
        final: bool = False,
    ) -> None:
        """Task ``label`` has ``done`` of ``total`` ``unit`` (``detail``: a few words more, e.g.
        "1.2 MB/s · 1 failed"). In a log, ``line`` replaces the task's own :meth:`line`;
        ``final`` writes it even before the interval (a run's last word)."""
        if self.stream is None:
            return
        now = self.clock()
        task = self.tasks.get(label) or self.start(label, total, unit=unit)
        completed = total > 0 and done >= total and not (task.total > 0 and task.done >= task.total)
        task.done, task.total, task.detail = done, total, detail
        if self._rich is not None:
            self._rich.update(task.bar, completed=done, total=total or None, detail=detail)
            return
        due = now - task.last_line >= self.log_interval and done < total
        text = line if line is not None else self.line(label, now)
        if (final or completed or due) and text != task.written:
            task.last_line, task.written = now, text
            self._write(text)

    def line(self, label: str, now: float | None = None) -> str:
        """Task ``label``'s line: ``label: done/total unit · rate unit/s · ETA m:ss · detail``."""
        task = self.tasks[label]
        elapsed = max((self.clock() if now is None else now) - task.started, 1e-9)
        rate = task.done / elapsed
        parts = [f"{label}: {task.done:,.0f}/{task.total:,.0f} {task.unit}", f"{rate:,.1f} {task.unit}/s"]
        if task.total > task.done and rate > 0:
            parts.append(f"ETA {format_duration((task.total - task.done) / rate)}")
        elif task.total and task.done >= task.total:
            parts.append(f"done in {format_duration(elapsed)}")
        return " · ".join(parts + ([task.detail] if task.detail else []))

    def note(self, text: str) -> None:
        """A line of its own (a skipped document, a warning), above any bar."""
        if self.stream is None:
            return
        if self._rich is not None:
            self._rich.console.print(text, markup=False, highlight=False)
        else:
            self._write(text)

    def close(self) -> None:
        """Stop the bars (their last state stays on the terminal); lines need nothing more."""
        if self._rich is not None:
            self._rich.stop()
            self._rich = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _write(self, text: str) -> None:
        assert self.stream is not None
        self.stream.write(text + "\n")
        self.stream.flush()


def _rich_progress(stream: TextIO) -> Any:
    """A started ``rich`` Progress on ``stream`` with count, rate and time left (None without rich)."""
    try:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    except ImportError:  # the terminal extra is not installed: whole lines
        return None

    class _Rate(TextColumn):
        def __init__(self) -> None:
            super().__init__("")

        def render(self, task: Any) -> Any:
            from rich.text import Text

            speed = task.finished_speed or task.speed
            unit = task.fields.get("unit") or "items"
            return Text(f"{speed:,.1f} {unit}/s" if speed else f"– {unit}/s", style="progress.data.speed")

    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        _Rate(),
        TimeRemainingColumn(),
        TextColumn("{task.fields[detail]}"),
        console=Console(file=stream, stderr=False),
        transient=False,
    )
    progress.start()
    return progress


__all__ = ["LOG_INTERVAL", "Progress", "format_duration", "is_terminal"]
