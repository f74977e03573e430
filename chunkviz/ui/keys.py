"""What the app's cached calls are keyed by: small frozen dataclasses, and a document's digest.

Streamlit hashes a cached function's arguments itself (``streamlit.runtime.caching.hashing``): a
dataclass by its type name and ``dataclasses.asdict``, tuples item by item, and a type named in
``hash_funcs`` by what that function returns. So the keys hold only strings, numbers, booleans,
None and tuples (parameter lists become tuples: :meth:`Chunking.of`), which hash the same in every
session and cost next to nothing; a :class:`~chunkviz.document.model.Document` is hashed by
:func:`document_digest` (its format, name and text), computed once per Document object.
They are hashable by Python too, so the session state can remember runs by them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from chunkviz.diagnostics.hygiene import HygieneRules
from chunkviz.document.enrich import Enrichment
from chunkviz.document.model import Document

ParamItems = tuple[tuple[str, Any], ...]


def _frozen(value: Any) -> Any:
    """A parameter value with its lists as tuples (hashable)."""
    return tuple(_frozen(v) for v in value) if isinstance(value, (list, tuple)) else value


def _thawed(value: Any) -> Any:
    """A parameter value as the strategy takes it: lists again (as a JSON round trip gave)."""
    return [_thawed(v) for v in value] if isinstance(value, tuple) else value


@dataclass(frozen=True)
class Chunking:
    """A strategy, its user-given parameters (sorted by name) and the page's tokenizer."""

    strategy: str
    params: ParamItems
    tokenizer: str

    @classmethod
    def of(cls, strategy: str, params: Mapping[str, Any], tokenizer: str) -> Chunking:
        return cls(strategy, tuple(sorted((name, _frozen(v)) for name, v in params.items())), tokenizer)

    def param_values(self) -> dict[str, Any]:
        """The parameters as the strategy takes them."""
        return {name: _thawed(value) for name, value in self.params}


@dataclass(frozen=True)
class ColumnSettings:
    """What a run depends on besides its chunking and enrichment: the embedding model whose
    limit the flags check, the tiny rule, the column's own size unit (``chars``) and, for a
    column that calls a model, the endpoint's public settings (never the key)."""

    embedding_model: str
    tiny_fraction: float | None
    column_tokenizer: str | None = None
    endpoint: ParamItems = ()
    #: The hygiene flags' thresholds (duplicates, boilerplate, low information, secrets, instructions).
    hygiene: HygieneRules = HygieneRules()

    def run_options(self) -> dict[str, Any]:
        """:func:`chunkviz.diagnostics.compare.run_strategy`'s keyword arguments."""
        return {
            "embedding_model": self.embedding_model,
            "tiny_fraction": self.tiny_fraction,
            "column_tokenizer": self.column_tokenizer,
            "hygiene": self.hygiene,
        }


@dataclass(frozen=True)
class RunKey:
    """One column's run: its chunking, its settings and its enrichment (None: none)."""

    chunking: Chunking
    settings: ColumnSettings
    enrichment: Enrichment | None = None


def document_digest(document: Document) -> str:
    """What identifies a document to the cached calls: :attr:`Document.digest` (its format, name
    and text), computed once per Document object (the app keeps one per input: ``cached_read``)."""
    return document.digest


#: ``hash_funcs`` of every cached call that takes a Document or a key: a key is a frozen dataclass of
#: plain values, so its ``repr`` says all of it (Streamlit's generic hasher walks it far more slowly).
HASH_FUNCS: dict[str | type[Any], Callable[[Any], Any]] = {
    Document: document_digest,
    RunKey: repr,
    Chunking: repr,
    ColumnSettings: repr,
    Enrichment: repr,
    HygieneRules: repr,
}

__all__ = ["HASH_FUNCS", "Chunking", "ColumnSettings", "Enrichment", "RunKey", "document_digest"]
