"""The app's cached engine calls, in one place: tokenizers and documents as shared resources,
runs, rendered columns, exports and explanations.

Runs and explanations are immutable (frozen dataclasses, tuples) and only read: cached as
resources they are shared, not pickled and unpickled on every hit (at 50,000 words that copy
cost more than the chunking).
"""

from __future__ import annotations

import json

import streamlit as st

from chunkviz.compare import (
    StrategyRun,
    annotations,
    document_stats,
    run_strategy,
)
from chunkviz.document import Document
from chunkviz.document import read as reading
from chunkviz.document.model import as_document
from chunkviz.export import chunk_records, serialize
from chunkviz.interop import INTEROP_FORMATS, interop_text
from chunkviz.llm.client import LLMSettings
from chunkviz.render import RenderOptions, render_html
from chunkviz.strategies.base import get_strategy
from chunkviz.tokenizers import get_tokenizer
from chunkviz.ui.docview import ribbon_cuts
from chunkviz.ui.llm import llm_session


# --- cached engine calls --------------------------------------------------------------------
# Cached calls take the document's text and format (hashed) and the Document itself as
# ``_document`` (not hashed): a reader's Document (an uploaded .rst, a PDF with its pages) keeps
# its structure; (text, format) identify it.
@st.cache_resource(show_spinner="Loading tokenizer…")
def load_tokenizer(name: str):  # noqa: ANN201
    return get_tokenizer(name)


def _the_document(text: str, fmt: str, document: Document | None) -> Document:
    if document is not None and document.text == text and document.format == fmt:
        return document
    return as_document(text, fmt)


# Runs and explanations are immutable (frozen dataclasses, tuples) and only read: cached as
# resources they are shared, not pickled and unpickled on every hit (at 50,000 words that copy
# cost more than the chunking).
@st.cache_resource(max_entries=64, show_spinner=False)
def cached_run(
    text: str,
    fmt: str,
    strategy: str,
    params_json: str,
    tokenizer: str,
    enrich_json: str = "null",
    settings_json: str = "{}",
    _document: Document | None = None,
    _llm: LLMSettings | None = None,
) -> StrategyRun:
    document = _the_document(text, fmt, _document)
    settings = json.loads(settings_json)
    settings.pop("llm", None)  # the endpoint (no key) keys the cache; the session below uses it
    with llm_session(_llm or LLMSettings.from_env()):
        return run_strategy(document, strategy, json.loads(params_json), tokenizer, json.loads(enrich_json), **settings)


@st.cache_data(max_entries=64, show_spinner=False)
def cached_html(
    text: str,
    fmt: str,
    strategy: str,
    params_json: str,
    tokenizer: str,
    label: str,
    hue: int,
    enrich_json: str = "null",
    settings_json: str = "{}",
    _document: Document | None = None,
) -> str:
    run = cached_run(text, fmt, strategy, params_json, tokenizer, enrich_json, settings_json, _document)
    gaps = run.diagnostics.coverage.content_gaps if run.diagnostics else ()
    return render_html(text, run.chunks, RenderOptions(label, tokenizer, None, annotations(run), gaps, hue=hue))


@st.cache_data(max_entries=16, show_spinner=False)
def cached_stats(text: str, tokenizer: str) -> dict[str, int]:
    return document_stats(text, tokenizer)


# One Document object per input across re-runs: its structure (paragraphs, sentences, headings)
# is built once, not again after every parameter change. A Document is immutable, so sharing it
# (cache_resource: no copy) is safe.
@st.cache_resource(max_entries=8, show_spinner="Reading the document…")
def cached_read(data: bytes, name: str, max_bytes: int) -> Document:
    return reading.read_bytes(data, name, max_bytes=max_bytes)  # looked up per call (tests count the reads)


@st.cache_resource(max_entries=8, show_spinner=False)
def cached_pasted(text: str) -> Document:
    return Document(text, "pasted text", "utf-8", ())


@st.cache_data(max_entries=32, show_spinner=False)
def cached_exports(
    text: str,
    fmt: str,
    strategy: str,
    params_json: str,
    tokenizer: str,
    enrich_json: str = "null",
    settings_json: str = "{}",
    _document: Document | None = None,
) -> dict[str, str]:
    run = cached_run(text, fmt, strategy, params_json, tokenizer, enrich_json, settings_json, _document)
    records = chunk_records(run.chunks, load_tokenizer(tokenizer), text)
    exports = {fmt_name: serialize(records, fmt_name) for fmt_name in ("jsonl", "json", "csv")}
    document = _the_document(text, fmt, _document)
    for name in INTEROP_FORMATS:  # LangChain Documents, LlamaIndex TextNodes
        exports[name] = interop_text(document, run.chunks, name, source=document.name or "document")
    return exports


@st.cache_resource(max_entries=32, show_spinner=False)
def cached_explanation(
    text: str, fmt: str, strategy: str, params_json: str, tokenizer: str, _document: Document | None = None
):  # noqa: ANN201
    spec = get_strategy(strategy)
    document = _the_document(text, fmt, _document)
    return spec.explain(document, spec.make_params(json.loads(params_json)), get_tokenizer(tokenizer))


@st.cache_resource(max_entries=32, show_spinner=False)
def cached_column_html(
    text: str, fmt: str, strategy: str, params_json: str, tokenizer: str, label: str, hue: int, _document: Document
) -> tuple[str, tuple[tuple[int, str], ...]]:
    """The rendered chunks of a configuration (as the Compare view draws them) and its ribbon cuts
    (the Evaluate view's document view)."""
    run = run_strategy(_document, strategy, json.loads(params_json), tokenizer)
    gaps = run.diagnostics.coverage.content_gaps if run.diagnostics else ()
    html = render_html(text, run.chunks, RenderOptions(label, tokenizer, None, annotations(run), gaps, hue=hue))
    return html, tuple(ribbon_cuts(run.chunks))
