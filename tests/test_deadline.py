"""chunkviz.core.deadline: a cooperative time limit, tested on a fake clock (never on real time)."""

from __future__ import annotations

import contextvars
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.texts import SETTINGS, examples

from chunkviz.core.deadline import (
    CHECK_EVERY,
    RunTimeLimitExceeded,
    check_time,
    check_time_now,
    time_left,
    time_limit,
)
from chunkviz.core.errors import ChunkvizError


class FakeClock:
    """A clock that says ``now`` and counts how often it was read."""

    def __init__(self, now: float = 100.0) -> None:
        self.now = now
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        return self.now


def test_without_a_limit_nothing_raises_and_no_clock_is_read() -> None:
    for _ in range(10 * CHECK_EVERY):
        check_time()
    check_time_now()
    assert time_left() is None


def test_the_clock_is_read_once_every_check_every_calls() -> None:
    clock = FakeClock()
    with time_limit(5, clock=clock, check_every=4):
        assert clock.reads == 1  # the start
        for _ in range(3):
            check_time()
        assert clock.reads == 1
        check_time()
        assert clock.reads == 2
        for _ in range(8):
            check_time()
        assert clock.reads == 4


def test_it_raises_at_the_first_reading_past_the_deadline() -> None:
    clock = FakeClock(10.0)
    with time_limit(2, clock=clock, check_every=1):
        clock.now = 12.0  # exactly at the limit: still allowed
        check_time()
        clock.now = 12.5
        with pytest.raises(RunTimeLimitExceeded) as caught:
            check_time()
    error = caught.value
    assert isinstance(error, ChunkvizError)
    assert (error.elapsed, error.limit, error.what) == (2.5, 2.0, "the run")
    assert str(error) == (
        "the run was stopped after 2.5 s: the app allows 2 s per run. Try a larger chunk size, fewer columns "
        "or a smaller document; the command line (chunkviz chunk ...) has no time limit."
    )


def test_a_sampled_check_notices_late_and_check_time_now_at_once() -> None:
    clock = FakeClock(0.0)
    with time_limit(1, "column 2 (recursive)", clock=clock, check_every=3):
        clock.now = 5.0
        check_time()
        check_time()  # two calls: the clock has not been read since the start
        with pytest.raises(RunTimeLimitExceeded, match=r"^column 2 \(recursive\) was stopped after 5\.0 s"):
            check_time()
        with pytest.raises(RunTimeLimitExceeded):
            check_time_now()  # once over, every reading raises


def test_check_time_now_restarts_the_countdown() -> None:
    clock = FakeClock()
    with time_limit(5, clock=clock, check_every=3):
        check_time()
        check_time()
        check_time_now()
        assert clock.reads == 2
        check_time()
        check_time()
        assert clock.reads == 2
        check_time()
        assert clock.reads == 3


def test_time_left() -> None:
    clock = FakeClock(50.0)
    with time_limit(30, clock=clock):
        clock.now = 60.0
        assert time_left() == 20.0
        clock.now = 90.0
        assert time_left() == -10.0
    assert time_left() is None


@pytest.mark.parametrize(("outer", "inner", "limit", "what"), [(10, 60, 10.0, "outer"), (60, 10, 10.0, "inner")])
def test_nested_limits_the_nearest_deadline_wins(outer: float, inner: float, limit: float, what: str) -> None:
    clock = FakeClock(0.0)
    with time_limit(outer, "outer", clock=clock, check_every=1):
        with time_limit(inner, "inner", clock=clock, check_every=1):
            clock.now = 10.0
            check_time()
            assert time_left() == 0.0
            clock.now = 11.0
            with pytest.raises(RunTimeLimitExceeded) as caught:
                check_time()
        assert (caught.value.limit, caught.value.what) == (limit, what)
        if outer > 11:  # back in the outer block: its own, later deadline holds again
            check_time()
            assert time_left() == outer - 11.0


def test_none_adds_no_limit_and_keeps_the_enclosing_one() -> None:
    clock = FakeClock(0.0)
    with time_limit(None):
        check_time_now()
        assert time_left() is None
    with time_limit(3, clock=clock, check_every=1), time_limit(None):
        clock.now = 4.0
        with pytest.raises(RunTimeLimitExceeded):
            check_time()


def test_the_limit_ends_with_its_block_even_when_it_raised() -> None:
    clock = FakeClock(0.0)
    with pytest.raises(RunTimeLimitExceeded), time_limit(1, clock=clock, check_every=1):
        clock.now = 2.0
        check_time()
    assert time_left() is None
    check_time_now()


@pytest.mark.parametrize("seconds", [0, -1, float("nan"), float("inf"), True, "30"])
def test_a_limit_must_be_a_positive_number(seconds: object) -> None:
    with pytest.raises(ValueError, match="positive number of seconds"), time_limit(seconds):  # type: ignore[arg-type]
        pass


def test_check_every_must_be_positive() -> None:
    with pytest.raises(ValueError, match="check_every"), time_limit(1, check_every=0):
        pass


def test_each_thread_sees_only_its_own_limit() -> None:
    """Streamlit runs each session's script in its own thread: one session's limit never stops
    another's run, and a thread started inside a limited block starts without it."""
    clock = FakeClock(0.0)
    seen: dict[str, object] = {}
    started = threading.Event()
    expired = threading.Event()

    def limited() -> None:
        with time_limit(1, "session A", clock=clock, check_every=1):
            started.set()
            expired.wait(5)
            try:
                check_time()
            except RunTimeLimitExceeded as exc:
                seen["A"] = exc.what

    def unlimited() -> None:
        started.wait(5)
        clock.now = 2.0
        check_time_now()  # session A's deadline has passed, but it is not this thread's
        seen["B"] = time_left()
        expired.set()

    threads = [threading.Thread(target=limited), threading.Thread(target=unlimited)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == {"A": "session A", "B": None}


def test_a_copied_context_carries_the_limit_into_a_worker_thread() -> None:
    clock = FakeClock(0.0)
    errors: list[str] = []

    def work() -> None:
        try:
            check_time_now()
        except RunTimeLimitExceeded as exc:
            errors.append(exc.what)

    with time_limit(1, "batch", clock=clock):
        clock.now = 3.0
        context = contextvars.copy_context()
        worker = threading.Thread(target=context.run, args=(work,))
        worker.start()
        worker.join(10)
    assert errors == ["batch"]


@settings(**SETTINGS, max_examples=examples(200))
@given(
    steps=st.lists(st.floats(0, 3, allow_nan=False), min_size=1, max_size=60),
    limit=st.floats(0.5, 20, allow_nan=False),
    every=st.integers(1, 7),
)
def test_it_raises_exactly_at_the_first_reading_past_the_limit(steps: list[float], limit: float, every: int) -> None:
    """The clock advances by ``steps[i]`` before call i; the check raises at the first call that
    reads the clock (every ``every``-th) and finds more than ``limit`` seconds gone, never before."""
    clock = FakeClock(0.0)
    expected = None
    for i in range(len(steps)):
        now = sum(steps[: i + 1])
        if (i + 1) % every == 0 and now > limit:
            expected = i
            break
    raised_at = None
    with time_limit(limit, clock=clock, check_every=every):
        for i, step in enumerate(steps):
            clock.now += step
            try:
                check_time()
            except RunTimeLimitExceeded as exc:
                raised_at = i
                assert exc.elapsed == clock.now and exc.elapsed > limit
                break
    assert raised_at == expected
    assert clock.reads == 1 + (raised_at + 1 if raised_at is not None else len(steps)) // every


def test_the_default_clock_is_looked_up_when_the_limit_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The app's tests replace ``chunkviz.core.deadline.monotonic`` to stop a run without waiting."""
    from chunkviz.core import deadline

    clock = FakeClock(0.0)
    monkeypatch.setattr(deadline, "monotonic", clock)
    with time_limit(1, check_every=1):
        clock.now = 1.5
        with pytest.raises(RunTimeLimitExceeded, match="stopped after 1.5 s"):
            check_time()
    assert clock.reads == 2
