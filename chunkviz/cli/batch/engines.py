"""The engines that run :class:`~chunkviz.cli.batch.worker.DocumentChunker` over the documents.

``local``: one process (``workers=1``) or a pool of ``workers`` processes, each building its
chunker once. ``ray``: the same chunker as a Ray Data ``map_batches`` stage on an actor pool
(``ray.data.read_binary_files`` -> chunk -> part files), on the cluster at ``address`` or on a
local Ray started for the run. Both hand every document's :class:`DocResult` to ``on_result``
in the driver, as documents finish (in any order: the output is assembled in input order).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import types
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import fields
from typing import Any

from chunkviz.cli.batch.worker import DocResult, DocumentChunker, Plan, shown_source
from chunkviz.core.errors import ChunkvizError, missing_extra
from chunkviz.core.files import regular_file_problem

ENGINES = ("local", "ray")

OnResult = Callable[[DocResult], None]


class EngineUnavailable(ChunkvizError, ValueError):
    """The chosen engine's package is not installed."""


# --------------------------------------------------------------------------- local

_WORKER: DocumentChunker | None = None
_WORKER_PROBLEM: str | None = None  # why this worker's chunker could not be built


def _start_worker(plan: Plan, done: Mapping[str, int]) -> None:
    """The pool's initializer. It never raises: a pool whose initializer raises starts a new
    worker for the dead one, forever, and the run would hang; the problem is kept instead and
    every document this worker takes reports it."""
    global _WORKER, _WORKER_PROBLEM
    _leave_interrupts_to_the_parent()
    try:
        _WORKER = DocumentChunker(plan, done)
    except Exception as exc:  # noqa: BLE001 - reported per document, see the docstring
        _WORKER_PROBLEM = f"the worker process could not set up its chunker: {type(exc).__name__}: {exc}"


def _leave_interrupts_to_the_parent() -> None:
    """In a pool worker: Ctrl-C (SIGINT, sent to the whole process group) is ignored, so it ends
    the run once, in the parent, without a traceback from every worker; the parent's SIGTERM when
    it ends the pool exits quietly, through the ``finally`` blocks, so a part being written is
    removed rather than left as a temporary file."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_quietly)


def _exit_quietly(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # an int: multiprocessing exits with it and prints nothing


@contextmanager
def _workers_start_deaf_to_interrupts() -> Iterator[Callable[[], None]]:
    """While the pool spawns its workers, SIGINT is ignored, a disposition a new process inherits:
    a Ctrl-C while a worker imports is not that worker's either. It is also held back in this
    thread, so that one arriving meanwhile reaches this process on ``release()`` (or at the end
    of the block) rather than being lost. Outside the main thread (where Python cannot change a
    handler) only the workers' initializer ignores it."""
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or previous is None:
        yield lambda: None
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if hasattr(signal, "pthread_sigmask") else None
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    released = False

    def release() -> None:
        nonlocal released
        if not released:
            released = True
            signal.signal(signal.SIGINT, previous)
            if held is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)

    try:
        yield release
    finally:
        release()


def _process_in_worker(source: str) -> DocResult:
    if _WORKER is None:
        return DocResult(
            source, "failed", error=_WORKER_PROBLEM or "the worker process has no chunker", worker=os.getpid()
        )
    return _WORKER.process_path(source)


_MAIN_SWAP = threading.Lock()


@contextmanager
def _children_skip_the_main_module() -> Iterator[None]:
    """While the pool starts its processes, ``__main__`` is a bare module, so a spawned worker
    does not run the parent's main script again (it needs nothing from it: the worker's
    functions and the plan live in chunkviz). Whatever the caller's main is -- a script
    without an ``if __name__ == "__main__"`` guard, or the page Streamlit last ran, which it
    leaves installed as ``__main__`` -- it would otherwise run once per worker, slowly, and a
    main that fails in a worker makes the pool replace that worker forever."""
    with _MAIN_SWAP:
        main = sys.modules.get("__main__")
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            yield
        finally:
            if main is None:
                sys.modules.pop("__main__", None)
            else:
                sys.modules["__main__"] = main


def run_local(sources: Sequence[str], plan: Plan, done: Mapping[str, int], workers: int, on_result: OnResult) -> None:
    """Chunk ``sources`` here (one worker) or in ``workers`` spawned processes."""
    if workers <= 1 or len(sources) <= 1:
        chunker = DocumentChunker(plan, done)
        for source in sources:
            on_result(chunker.process_path(source))
        return
    # spawn, not fork: the tokenizers' and torch's threads do not survive a fork
    context = multiprocessing.get_context("spawn")
    chunksize = max(1, min(8, len(sources) // (workers * 16)))
    with _workers_start_deaf_to_interrupts() as release:
        with _children_skip_the_main_module():  # the pool starts all its processes here
            pool = context.Pool(min(workers, len(sources)), initializer=_start_worker, initargs=(plan, dict(done)))
        with pool:  # leaving it, Ctrl-C included, terminates the workers
            release()
            for result in pool.imap_unordered(_process_in_worker, sources, chunksize=chunksize):
                on_result(result)


# --------------------------------------------------------------------------- ray

_RESULT_FIELDS = tuple(f.name for f in fields(DocResult))


class RayChunker:
    """The ``map_batches`` callable: one :class:`DocumentChunker` per actor, built once."""

    def __init__(self, plan: Plan, done: Mapping[str, int], sources: Mapping[str, str]) -> None:
        self.chunker = DocumentChunker(plan, done)
        self.sources = dict(sources)

    def __call__(self, batch: Mapping[str, Any]) -> dict[str, list[Any]]:
        results = [
            self.chunker.process(self.sources.get(str(path), str(path)), bytes(data))
            for path, data in zip(batch["path"], batch["bytes"])
        ]
        return {name: [getattr(r, name) for r in results] for name in _RESULT_FIELDS}


def _import_ray() -> Any:
    try:
        import ray
        import ray.data
    except ImportError:
        raise EngineUnavailable(missing_extra("--engine ray", "scale", "Ray Data")) from None
    return ray


def run_ray(
    sources: Sequence[str],
    plan: Plan,
    done: Mapping[str, int],
    workers: int,
    on_result: OnResult,
    *,
    address: str | None = None,
    batch_size: int = 8,
) -> None:
    """Chunk ``sources`` on Ray Data: an actor pool of up to ``workers`` chunkers (one CPU each).

    Uses the Ray already initialized in this process, else ``ray.init(address=address)`` (a
    local Ray when None), shut down again at the end. The parts folder must be on storage
    every node writes to (a shared file system) when the cluster has several machines.
    Unreadable files are reported here and not given to Ray (a failed read would end its job)."""
    ray = _import_ray()
    readable = []
    for source in sources:
        if not _utf8(source):
            on_result(
                DocResult(
                    source,
                    "failed",
                    error=f"the file name {shown_source(source)} is not valid UTF-8, which Ray cannot read; "
                    "rename it, or run with --engine local (which records such names percent-encoded)",
                )
            )
        elif (problem := regular_file_problem(source)) is not None:  # swapped for a pipe: Ray's read would wait
            on_result(DocResult(source, "failed", error=f"{shown_source(source)} {problem}"))
        elif os.access(source, os.R_OK):
            readable.append(source)
        else:
            on_result(DocResult(source, "failed", error=f"cannot read {source}: permission denied"))
    if not readable:
        return
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        _quiet_ray_data()
        by_path = {os.path.abspath(s): s for s in readable}
        # reading is I/O: no CPU reserved (the actors hold them all), a few readers at a time
        # (each reads far faster than an actor chunks; unbounded, Ray starts a process per file batch)
        dataset = ray.data.read_binary_files(
            list(by_path), include_paths=True, num_cpus=0, concurrency=max(2, workers // 4)
        )
        chunked = dataset.map_batches(
            RayChunker,
            fn_constructor_kwargs={"plan": plan, "done": dict(done), "sources": by_path},
            batch_size=batch_size,
            batch_format="numpy",
            # grows from one actor to ``workers`` as CPUs allow: a fixed pool larger than the
            # cluster's free CPUs would wait for its last actors forever
            compute=ray.data.ActorPoolStrategy(min_size=1, max_size=max(1, workers)),
            num_cpus=1,
        )
        for row in chunked.iter_rows():
            on_result(DocResult(**{name: _plain(row[name]) for name in _RESULT_FIELDS}))
    finally:
        if started:
            ray.shutdown()


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _quiet_ray_data() -> None:
    from ray.data import DataContext

    context = DataContext.get_current()
    context.enable_progress_bars = False
    context.print_on_execution_start = False


def _plain(value: Any) -> Any:
    """A numpy scalar from a Ray row as the Python value."""
    item = getattr(value, "item", None)
    return item() if callable(item) else value


__all__ = ["ENGINES", "EngineUnavailable", "RayChunker", "run_local", "run_ray"]
