"""A cooperative time limit for one run: ``with time_limit(30): ...`` and ``check_time()``.

The app gives each run (reading a document, one column's chunking) a time limit, so that a
document and parameters that make the work explode end with a message instead of a page that
hangs for everyone on the server. Python cannot stop a thread from outside, so the limit is
cooperative: the long loops of the engine call :func:`check_time`, which raises
:class:`RunTimeLimitExceeded` once the run is over its limit.

- The deadline lives in a :class:`~contextvars.ContextVar`: each thread (each Streamlit session
  runs its script in its own thread) sees only its own; code run without a limit (the CLI, the
  library) pays one context-variable read per call and never stops.
- Limits nest: the nearest deadline wins (an inner ``time_limit(60)`` inside a
  ``time_limit(10)`` still ends at the outer one's time, and an inner shorter limit ends sooner).
- :func:`check_time` reads the clock only every ``check_every`` calls (256 by default), so it
  is cheap in hot loops (per token, per span, per character run). Loops whose every iteration
  is costly (an embedding batch, a PDF page) call :func:`check_time_now`, which always reads it.
"""

from __future__ import annotations

import contextlib
import math
import time
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Callable, Iterator

from chunkviz.core.errors import ChunkvizError

#: How many :func:`check_time` calls pass between two readings of the clock.
CHECK_EVERY = 256

Clock = Callable[[], float]


def monotonic() -> float:
    """The default clock of :func:`time_limit` (``time.monotonic``)."""
    return time.monotonic()


class RunTimeLimitExceeded(ChunkvizError):
    """A run went over its time limit; the message says how long it ran, the limit and what to try."""

    def __init__(self, elapsed: float, limit: float, what: str = "the run") -> None:
        self.elapsed = elapsed
        self.limit = limit
        self.what = what
        super().__init__(
            f"{what} was stopped after {elapsed:.1f} s: the app allows {limit:g} s per run. "
            "Try a larger chunk size, fewer columns or a smaller document; "
            "the command line (chunkviz chunk ...) has no time limit."
        )


@dataclass
class _Deadline:
    """The deadline in force: when it ends, the limit it came from, and a countdown of calls."""

    ends: float
    started: float
    limit: float
    what: str
    clock: Clock
    every: int
    countdown: int = field(init=False)

    def __post_init__(self) -> None:
        self.countdown = self.every

    def check(self) -> None:
        now = self.clock()
        if now > self.ends:
            raise RunTimeLimitExceeded(now - self.started, self.limit, self.what)


_DEADLINE: ContextVar[_Deadline | None] = ContextVar("chunkviz_deadline", default=None)


@contextlib.contextmanager
def time_limit(
    seconds: float | None, what: str = "the run", *, clock: Clock | None = None, check_every: int = CHECK_EVERY
) -> Iterator[None]:
    """Within this block, :func:`check_time` raises :class:`RunTimeLimitExceeded` once more than
    ``seconds`` have passed (``None``: no new limit; an enclosing one still holds). ``what``
    names the run in the message (e.g. ``"column 2 (recursive)"``); ``clock`` defaults to
    :func:`monotonic` (looked up at each call, so a test can replace it)."""
    if seconds is None:
        yield
        return
    if isinstance(seconds, bool) or not (isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"a time limit must be a positive number of seconds, not {seconds!r}")
    if check_every < 1:
        raise ValueError(f"check_every must be at least 1, not {check_every!r}")
    clock = clock or monotonic
    now = clock()
    mine = _Deadline(now + seconds, now, float(seconds), what, clock, check_every)
    outer = _DEADLINE.get()
    if outer is not None and outer.ends <= mine.ends:  # the nearest deadline wins
        mine = _Deadline(outer.ends, outer.started, outer.limit, outer.what, outer.clock, check_every)
    token = _DEADLINE.set(mine)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def check_time() -> None:
    """Raise :class:`RunTimeLimitExceeded` if the run is over its limit; reads the clock once
    every ``check_every`` calls. Free of effects (and nearly free) without a limit."""
    deadline = _DEADLINE.get()
    if deadline is None:
        return
    deadline.countdown -= 1
    if deadline.countdown > 0:
        return
    deadline.countdown = deadline.every
    deadline.check()


def check_time_now() -> None:
    """:func:`check_time` that always reads the clock: for loops whose every iteration is costly."""
    deadline = _DEADLINE.get()
    if deadline is not None:
        deadline.countdown = deadline.every
        deadline.check()


def time_left() -> float | None:
    """Seconds until the deadline in force (negative once past it), or ``None`` without one."""
    deadline = _DEADLINE.get()
    return None if deadline is None else deadline.ends - deadline.clock()
