"""Calls to a remote endpoint run on a few threads at once: one home for the LLM client and the
embedding endpoint. At most ``concurrency`` calls run together; each result is handed to the
caller's thread as it arrives (for progress); the first failure cancels what has not started and
is raised."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from typing import TypeVar

T = TypeVar("T")


def run_bounded(
    calls: Sequence[Callable[[], T]],
    concurrency: int,
    on_result: Callable[[int, T], None],
    thread_name_prefix: str = "chunkviz",
) -> None:
    """Run ``calls`` on at most ``concurrency`` threads; ``on_result(i, value)`` for call ``i`` as it
    finishes (in this thread); the first exception cancels the calls not yet started and is raised."""
    if not calls:
        return
    with ThreadPoolExecutor(
        max_workers=max(1, min(concurrency, len(calls))), thread_name_prefix=thread_name_prefix
    ) as pool:
        futures: dict[Future[T], int] = {pool.submit(call): i for i, call in enumerate(calls)}
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, return_when=FIRST_EXCEPTION)
            for future in finished:
                error = future.exception()
                if error is not None:
                    for other in pending:
                        other.cancel()
                    raise error
                on_result(futures[future], future.result())


__all__ = ["run_bounded"]
