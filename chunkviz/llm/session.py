"""The LLM session of a run: which endpoint a strategy calls, where progress and estimates go.

A strategy cannot take the endpoint as a parameter (the key must never be exported with the
parameters), so callers open a session around a run and LLM strategies read it::

    with use_llm(LLMSettings.from_env(model="llama3.1"), progress=bar, on_estimate=show) as session:
        chunks = chunkviz.chunk(text, "llm")
    print(session.stats.summary())

Without a session, a strategy uses the environment's settings (:meth:`LLMSettings.from_env`).
The client is created on first use, so opening a session without an endpoint costs nothing until
an LLM strategy runs (it then raises :class:`~chunkviz.llm.client.LLMNotConfigured`).
"""

from __future__ import annotations

import contextlib
import threading
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from chunkviz.core.types import Progress
from chunkviz.llm.client import CallEstimate, CallStats, LLMClient, LLMSettings

EstimateHook = Callable[[str, CallEstimate], None]


@dataclass
class LLMSession:
    """Settings, the client made from them (lazily), and the run's progress and estimate hooks.

    ``on_estimate(what, estimate)`` is called before a technique makes calls (``what`` names
    it, e.g. ``"llm chunking of handbook.md"``); ``progress(done, total)`` while it runs.
    """

    settings: LLMSettings
    cache_dir: Path | None = None
    progress: Progress | None = None
    on_estimate: EstimateHook | None = None
    _client: LLMClient | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def client(self) -> LLMClient:
        """The session's client (raises LLMNotConfigured when the settings have no endpoint or model)."""
        with self._lock:
            if self._client is None:
                self._client = LLMClient(self.settings, self.cache_dir)
            return self._client

    @property
    def used(self) -> bool:
        """Whether anything asked for the client (a call, an estimate or a cache lookup)."""
        return self._client is not None

    @property
    def stats(self) -> CallStats:
        """Calls made and answers served from the cache so far (zeros before the first use)."""
        return self._client.stats if self._client is not None else CallStats()

    def announce(self, what: str, estimate: CallEstimate) -> None:
        if self.on_estimate is not None:
            self.on_estimate(what, estimate)


_ACTIVE: ContextVar[LLMSession | None] = ContextVar("chunkviz_llm_session", default=None)


@contextlib.contextmanager
def use_llm(
    settings: LLMSettings | None = None,
    *,
    cache_dir: Path | None = None,
    progress: Progress | None = None,
    on_estimate: EstimateHook | None = None,
) -> Iterator[LLMSession]:
    """Make a session active for the ``with`` block (this thread / context only); ``settings``
    default to the environment's."""
    session = LLMSession(settings if settings is not None else LLMSettings.from_env(), cache_dir, progress, on_estimate)
    token = _ACTIVE.set(session)
    try:
        yield session
    finally:
        _ACTIVE.reset(token)
        if session._client is not None:
            session._client.close()


def active_session() -> LLMSession:
    """The session opened by :func:`use_llm`, else a new one on the environment's settings."""
    session = _ACTIVE.get()
    return session if session is not None else LLMSession(LLMSettings.from_env())


__all__ = ["EstimateHook", "LLMSession", "active_session", "use_llm"]
