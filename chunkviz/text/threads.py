"""How many threads encode a long text: the usable cores not busy with other processes, an
explicit setting, or the ``CHUNKVIZ_ENCODE_WORKERS`` environment variable."""

from __future__ import annotations

import os

_PARALLEL_MIN_CHARS = 100_000
_MAX_WORKERS = 4
#: Environment override for the number of threads that encode a long document (1 = never parallel).
WORKERS_ENV = "CHUNKVIZ_ENCODE_WORKERS"


def _usable_cores() -> int:
    """Cores this process may run on (``taskset`` and cgroups included where the OS says so)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not available on every platform
        return os.cpu_count() or 1


def _idle_cores() -> int:
    """Usable cores not busy with other processes (up to 4): on a busy machine threads only add overhead."""
    cores = _usable_cores()
    try:
        busy = os.getloadavg()[0]
    except OSError:  # pragma: no cover - not available on every platform
        busy = 0.0
    others = max(0.0, busy - 1.0)  # the load average includes this process itself
    return max(1, min(_MAX_WORKERS, cores, int(cores - others + 0.5)))


def encode_workers(n_chars: int, requested: int | None = None) -> int:
    """How many threads encode a text of ``n_chars`` characters.

    ``requested`` (a tokenizer's ``workers``) wins, then the environment variable
    ``CHUNKVIZ_ENCODE_WORKERS``; otherwise texts under 100,000 characters use one thread and
    longer ones the idle usable cores (so a single-core process never pays for threads).
    """
    if requested is None:
        env = os.environ.get(WORKERS_ENV, "").strip()
        if env:
            try:
                requested = int(env)
            except ValueError:
                raise ValueError(f"{WORKERS_ENV} must be a whole number of threads, got {env!r}") from None
    if requested is not None:
        return max(1, requested)
    if n_chars < _PARALLEL_MIN_CHARS:
        return 1
    return _idle_cores()


__all__ = ["WORKERS_ENV", "encode_workers"]
