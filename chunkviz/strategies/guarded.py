"""The one guarded run of a strategy: check the bounds, chunk, check the count, enrich.

Every caller that chunks a user's document with a user's parameters (the CLI's commands, a batch
worker, the app's columns and the report) goes through :func:`guarded_run`, so a run that would
cut a document into too many chunks is refused the same way everywhere, before the chunking
(:func:`~chunkviz.core.limits.check_chunk_count_bound`) and after it for strategies their parameters
do not bound (:func:`~chunkviz.core.limits.check_chunk_count`), and before enrichment, diagnostics or
drawing multiply the cost. :func:`prepare` validates the parameters once; the run takes the
validated parameters, never the raw ones again.

Enrichment is a callable handed in by the caller (``chunkviz.json``'s metadata prefix, the
app's contextual retrieval ...), so this module needs nothing above the strategies.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from chunkviz.core.limits import check_chunk_count, check_chunk_count_bound
from chunkviz.core.types import Chunk
from chunkviz.document.model import Document, is_blank
from chunkviz.strategies.base import Strategy, get_strategy
from chunkviz.text.tokenizers import Tokenizer

#: What enriches a run's chunks: ``(document, chunks) -> chunks`` with their added text.
Enricher = Callable[[Document, Sequence[Chunk]], Sequence[Chunk]]


@dataclass(frozen=True)
class Prepared:
    """A strategy with its parameters validated once: ``given`` as the user gave them,
    ``validated`` the strategy's params object (defaults filled in)."""

    spec: Strategy[Any]
    given: Mapping[str, Any] = field(hash=False)
    validated: Any = field(hash=False)

    @property
    def name(self) -> str:
        return self.spec.name

    def complete(self) -> dict[str, Any]:
        """The parameters with their defaults filled in (a plain dict, for records and display)."""
        if dataclasses.is_dataclass(self.validated) and not isinstance(self.validated, type):
            return dataclasses.asdict(self.validated)
        return dict(self.given)


@dataclass(frozen=True)
class GuardedRun:
    """A run's chunks (enriched when asked) and the CPU seconds of the chunking itself."""

    chunks: list[Chunk]
    cpu_seconds: float


def prepare(strategy: str | Strategy[Any], params: Mapping[str, Any] | None = None) -> Prepared:
    """Look the strategy up and validate ``params`` (raises UnknownStrategyError or
    InvalidParamError, whose messages say what to choose)."""
    spec = get_strategy(strategy) if isinstance(strategy, str) else strategy
    given = dict(params or {})
    return Prepared(spec, given, spec.make_params(given))


def guarded_run(
    document: Document, prepared: Prepared, tokenizer: Tokenizer, *, enrich: Enricher | None = None
) -> GuardedRun:
    """Chunk ``document`` within the bounds (see the module docstring); a blank document gives no
    chunks. ``enrich`` (when given) runs on a non-empty result only."""
    if is_blank(document.text):
        return GuardedRun([], 0.0)
    check_chunk_count_bound(prepared.spec, prepared.validated, document.text, tokenizer)  # refused before chunking
    began = time.process_time()
    chunks = list(prepared.spec.function(document, prepared.validated, tokenizer))
    cpu = time.process_time() - began
    check_chunk_count(prepared.spec, prepared.validated, chunks)  # before enrichment or drawing multiply the cost
    if enrich is not None and chunks:
        chunks = list(enrich(document, chunks))
    return GuardedRun(chunks, cpu)


__all__ = ["Enricher", "GuardedRun", "Prepared", "guarded_run", "prepare"]
