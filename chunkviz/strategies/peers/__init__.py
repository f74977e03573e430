"""The splitters people use today, run as comparison columns and audited against the source.

Each peer (LangChain's recursive, token, Markdown-header and semantic splitters, semchunk,
Chonkie's recursive, token and semantic chunkers) runs its own code (:mod:`.runners`); its
chunks are placed in the document as its users place them and audited (:mod:`.audit`): a chunk
whose text is not the document's at its placement, that sits at another copy of its text, whose
whitespace was changed or that is over its limit is flagged (:mod:`.flags`). The strategies are
registered by :mod:`chunkviz.strategies.peer_splitters`, only for the peers whose packages are installed
(:func:`peer_notes` says what adds the others).

For the app and the CLI: :func:`run_peer` gives the chunks, the audit counts and the peer's CPU
time (cached per document and parameters, so the strategy call and the explanation share one
run); :func:`cpu_seconds` times any of our strategies the same way for a side-by-side figure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from chunkviz.core.cache import BoundedLRU
from chunkviz.core.errors import ChunkvizError
from chunkviz.core.explain import Explanation, ExplanationFigure
from chunkviz.core.types import Chunk
from chunkviz.document.model import Document, as_document
from chunkviz.strategies.peers.audit import AuditSummary, audit, summarize, to_chunks
from chunkviz.strategies.peers.catalogue import (
    PEER_NAMES,
    PEERS,
    PEERS_EXTRA,
    PeerInfo,
    available_peers,
    install_hint,
    is_peer,
    missing_modules,
    peer_info,
    peer_notes,
    version_of,
)
from chunkviz.strategies.peers.flags import (
    PEER_FLAG_COLOURS,
    PEER_FLAG_LABELS,
    PEER_FLAGS_KEY,
    PeerFlag,
)
from chunkviz.text.tokenizers import Tokenizer, get_tokenizer, surrogate_safe


class PeerUnavailable(ChunkvizError, ImportError):
    """A peer's package is missing or does not import."""


@dataclass(frozen=True)
class PeerRun:
    """One audited run of a peer: its chunks as drawn, the audit's counts, its CPU time."""

    peer: str
    label: str
    version: str
    chunks: tuple[Chunk, ...]
    audit: AuditSummary
    cpu_seconds: float
    placement: str
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "peer": self.peer,
            "label": self.label,
            "version": self.version,
            "cpu_seconds": self.cpu_seconds,
            "placement": self.placement,
            "chunks": self.audit.chunks,
            "flags": dict(self.audit.counts),
            "notes": list(self.notes),
        }


class PeerExplanation(Explanation):
    """What a peer column shows besides its chunks: the peer, its CPU time and the audit."""

    def __init__(self, run: PeerRun) -> None:
        self.run = run

    def summary(self) -> str:
        run = self.run
        version = f" {run.version}" if run.version else ""
        return f"{run.label}{version} · CPU {run.cpu_seconds * 1000:.1f} ms · placed by {run.placement} · audit: {run.audit.describe()}"

    def figures(self, chunks: Any) -> list[ExplanationFigure]:
        return []

    def to_dict(self) -> dict[str, Any]:
        return self.run.to_dict()


#: Peer runs kept in memory (per document, peer, parameters and tokenizer), least recently used forgotten first.
MEMORY_MAX_RUNS = 16
RUNS: BoundedLRU[tuple[Any, ...], PeerRun] = BoundedLRU(max_entries=MEMORY_MAX_RUNS)


def _key(name: str, document: Document, params: Any, tokenizer: Tokenizer) -> tuple[Any, ...]:
    return (name, hash(document.text), len(document.text), document.format, repr(params), tokenizer.name)


def run_peer(
    document: Document | str, name: str, params: Any = None, tokenizer: str | Tokenizer = "cl100k_base"
) -> PeerRun:
    """Run peer ``name`` (validated params object or a mapping of the peer's parameters) on
    ``document`` and audit it; cached per document, parameters and tokenizer."""
    from chunkviz.strategies.base import get_strategy
    from chunkviz.strategies.peers.runners import RUNNERS

    doc = as_document(document)
    tok = get_tokenizer(tokenizer)
    if params is None or isinstance(params, Mapping):
        params = get_strategy(name).make_params(params or {})
    key = _key(name, doc, params, tok)
    held = RUNS.get(key)
    if held is not None:
        return held
    info = peer_info(name)
    source = surrogate_safe(doc.text)  # same length: every offset stays the document's
    try:
        output = RUNNERS[name](source, params, tok)
    except ImportError as exc:
        hint = install_hint(info, missing_modules(info) or list(info.modules))
        raise PeerUnavailable(f"{info.label} cannot be imported ({exc}); {hint}") from exc
    audited = audit(source, output)
    run = PeerRun(
        name,
        info.label,
        version_of(info),
        tuple(to_chunks(doc, audited, output.reason, name, source)),
        summarize(audited),
        output.cpu_seconds,
        output.placement,
        output.notes,
    )
    RUNS.put(key, run)
    return run


def explain_peer(document: Document, params: Any, tokenizer: Tokenizer, name: str) -> PeerExplanation:
    return PeerExplanation(run_peer(document, name, params, tokenizer))


def cpu_seconds(
    document: Document | str,
    strategy: str,
    params: Mapping[str, Any] | None = None,
    tokenizer: str | Tokenizer = "cl100k_base",
) -> float:
    """CPU seconds (``time.process_time``) of one uncached run of any strategy: for a peer its
    own call, for ours the whole strategy (the figure the app shows next to a peer's)."""
    from chunkviz.strategies import get_strategy  # the registry with every built-in strategy
    from chunkviz.strategies.peers.runners import timed

    if is_peer(strategy):
        return run_peer(document, strategy, dict(params or {}), tokenizer).cpu_seconds
    spec = get_strategy(strategy)
    values, text = spec.make_params(dict(params or {})), as_document(document)
    _, seconds = timed(lambda: spec.function(text, values, get_tokenizer(tokenizer)))
    return seconds


def chunk_peer_flags(chunk: Chunk) -> tuple[PeerFlag, ...]:
    """The audit's flags of a chunk of a peer column (empty for any other chunk)."""
    return tuple(PeerFlag(f) for f in chunk.metadata.get(PEER_FLAGS_KEY, ()))


__all__ = [
    "PEERS",
    "PEERS_EXTRA",
    "PEER_FLAG_COLOURS",
    "PEER_FLAG_LABELS",
    "PEER_NAMES",
    "PeerExplanation",
    "PeerFlag",
    "PeerInfo",
    "PeerRun",
    "PeerUnavailable",
    "available_peers",
    "chunk_peer_flags",
    "cpu_seconds",
    "explain_peer",
    "is_peer",
    "peer_info",
    "peer_notes",
    "run_peer",
]
