"""The app's cached engine calls, in one place: tokenizers and documents as shared resources,
runs, rendered columns, exports and explanations.

Each call takes the Document once (hashed by :func:`chunkviz.ui.keys.document_digest`, so a
reader's Document, an uploaded .rst or a PDF with its pages, keeps its structure) and one small
frozen key (:mod:`chunkviz.ui.keys`). Runs and explanations are immutable (frozen dataclasses,
tuples) and only read: cached as resources they are shared, not pickled and unpickled on every
hit (at 50,000 words that copy cost more than the chunking).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from chunkviz.diagnostics.compare import StrategyRun, chunk_annotations, document_stats, run_strategy
from chunkviz.diagnostics.hygiene import HygieneRules
from chunkviz.document import Document
from chunkviz.document import read as reading
from chunkviz.document.model import with_language
from chunkviz.drawing.render import RenderOptions, render_html
from chunkviz.formats.external import load_chunks
from chunkviz.formats.external.formats import exports
from chunkviz.llm.client import LLMSettings
from chunkviz.strategies.base import get_strategy
from chunkviz.text.tokenizers import Tokenizer, get_tokenizer
from chunkviz.ui.docview import ribbon_cuts
from chunkviz.ui.keys import HASH_FUNCS, Chunking, RunKey
from chunkviz.ui.llm import llm_session


@st.cache_resource(show_spinner="Loading tokenizer…")
def load_tokenizer(name: str) -> Tokenizer:
    return get_tokenizer(name)


# One Document object per input across re-runs: its structure (paragraphs, sentences, headings)
# is built once, not again after every parameter change. A Document is immutable, so sharing it
# (cache_resource: no copy) is safe.
@st.cache_resource(max_entries=8, show_spinner="Reading the document…")
def cached_read(data: bytes, name: str, max_bytes: int) -> Document:
    return reading.read_bytes(data, name, max_bytes=max_bytes)  # looked up per call (tests count the reads)


@st.cache_resource(max_entries=8, show_spinner=False)
def cached_pasted(text: str) -> Document:
    return Document(text, "pasted text", "utf-8", ())


# One Document per input and chosen language across re-runs, as for cached_read.
@st.cache_resource(max_entries=8, show_spinner=False, hash_funcs=HASH_FUNCS)
def cached_with_language(document: Document, language: str) -> Document:
    return with_language(document, language)


@st.cache_data(max_entries=16, show_spinner=False, hash_funcs=HASH_FUNCS)
def cached_stats(document: Document, tokenizer: str) -> dict[str, int | None]:
    return document_stats(document.text, tokenizer)


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=HASH_FUNCS)
def cached_run(document: Document, key: RunKey, _llm: LLMSettings | None = None) -> StrategyRun:
    """One column's run; ``_llm`` is the endpoint it calls (with the key: not hashed, the key's
    ``settings.endpoint`` stands for it)."""
    chunking = key.chunking
    enrichment = key.enrichment.options() if key.enrichment is not None else None
    with llm_session(_llm or LLMSettings.from_env()):
        return run_strategy(
            document,
            chunking.strategy,
            chunking.param_values(),
            chunking.tokenizer,
            enrichment,
            **key.settings.run_options(),
        )


@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=HASH_FUNCS)
def cached_html(document: Document, key: RunKey, label: str, hue: int) -> str:
    run = cached_run(document, key)
    return _rendered(document, run, label, key.chunking.tokenizer, hue)


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs=HASH_FUNCS)
def cached_exports(document: Document, key: RunKey) -> dict[str, str]:
    run = cached_run(document, key)
    return exports(document, run.chunks, load_tokenizer(key.chunking.tokenizer), document.name or "document")


@st.cache_resource(max_entries=32, show_spinner=False, hash_funcs=HASH_FUNCS)
def cached_explanation(document: Document, chunking: Chunking) -> Any:
    """The strategy's :class:`~chunkviz.core.explain.Explanation` (a strategy with an ``explain`` hook)."""
    spec = get_strategy(chunking.strategy)
    assert spec.explain is not None, f"strategy {chunking.strategy!r} has no explain hook"
    return spec.explain(document, spec.make_params(chunking.param_values()), get_tokenizer(chunking.tokenizer))


@st.cache_resource(max_entries=32, show_spinner=False, hash_funcs=HASH_FUNCS)
def cached_column_html(
    document: Document, chunking: Chunking, label: str, hue: int
) -> tuple[str, tuple[tuple[int, str], ...]]:
    """A configuration's chunks rendered as the Compare view draws them, and its ribbon cuts (the
    Evaluate view's document view)."""
    run = run_strategy(document, chunking.strategy, chunking.param_values(), chunking.tokenizer)
    return _rendered(document, run, label, chunking.tokenizer, hue), tuple(ribbon_cuts(run.chunks))


#: The name a column of chunks from a file goes by (its runs' ``strategy``).
YOUR_CHUNKS = "your chunks"


@st.cache_data(max_entries=8, show_spinner=False, hash_funcs=HASH_FUNCS)
def cached_your_chunks(
    document: Document, data: bytes, name: str, tokenizer: str, hygiene: HygieneRules | None = None
) -> tuple[StrategyRun, str]:
    """Chunks from a file (``data``, named ``name``) placed and audited in ``document``, as a run
    with its diagnostics (``hygiene``: the hygiene flags' thresholds), and a line saying what the
    audit found (raises ChunkFileError)."""
    loaded = load_chunks(document, data, name=name, tokenizer=tokenizer)
    run = StrategyRun(YOUR_CHUNKS, {}, tokenizer, loaded.chunks, loaded.diagnostics(tokenizer, hygiene))
    found = (
        f"{len(loaded.chunks):,} chunks from {name} ({loaded.format}, {loaded.placement}): {loaded.audit.describe()}"
    )
    return run, found


@st.cache_data(max_entries=8, show_spinner=False, hash_funcs=HASH_FUNCS)
def cached_your_html(
    document: Document,
    data: bytes,
    name: str,
    tokenizer: str,
    label: str,
    hue: int,
    hygiene: HygieneRules | None = None,
) -> str:
    run, _ = cached_your_chunks(document, data, name, tokenizer, hygiene)
    return _rendered(document, run, label, tokenizer, hue)


def _rendered(document: Document, run: StrategyRun, label: str, tokenizer: str, hue: int) -> str:
    gaps = run.diagnostics.coverage.content_gaps if run.diagnostics else ()
    return render_html(
        document.text, run.chunks, RenderOptions(label, tokenizer, None, chunk_annotations(run), gaps, hue=hue)
    )


__all__ = [
    "cached_column_html",
    "cached_exports",
    "cached_explanation",
    "cached_html",
    "cached_pasted",
    "cached_read",
    "cached_run",
    "cached_stats",
    "cached_with_language",
    "cached_your_chunks",
    "cached_your_html",
    "load_tokenizer",
]
