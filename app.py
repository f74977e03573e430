"""chunkviz in the browser: chunking strategies side by side, every chunk drawn inline.

Run it with ``./dev app [FILE]``. This file only wires widgets to cached engine calls; the
chunking, diagnostics, rendering, charts and the interactive views (``chunkviz.ui``) live in
the ``chunkviz`` package.

Three views: *Compare* (a boundary ribbon and linked columns, one per strategy, a query
playground above them, then each column's details), *Tune* (a semantic column's threshold
beside its similarity plot with its chunks right below) and *Evaluate* (which cut retrieves
best on the document's questions: ``chunkviz.ui.evaluation``).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any, Callable

import pandas as pd
import streamlit as st

from chunkviz.api import chunk as chunkviz_chunk
from chunkviz.charts import token_distribution_figure
from chunkviz.compare import (
    ColumnConfig,
    StrategyRun,
    annotations,
    chunk_table,
    config_from_query,
    config_to_query,
    document_stats,
    flag_summary,
    model_from_query,
    outline_html,
    run_strategy,
    stats_row,
    token_counts,
)
from chunkviz.config import CONFIG_FILE_NAME, config_from_columns, config_json
from chunkviz.deadline import RunTimeLimitExceeded, time_limit
from chunkviz.diagnostics import DEFAULT_TINY_FRACTION
from chunkviz.document import Document
from chunkviz.document.model import as_document
from chunkviz.document.read import MAX_BYTES, read_bytes
from chunkviz.errors import ChunkvizError, DocumentError
from chunkviz.evaluation.evaluate import uses_llm
from chunkviz.evaluation.metrics import Scores
from chunkviz.evaluation.playground import Hit
from chunkviz.evaluation.retrieval import searchable
from chunkviz.export import chunk_records, cli_command, python_snippet, serialize
from chunkviz.interop import INTEROP_FORMATS, interop_text
from chunkviz.llm.client import CallEstimate, LLMSettings
from chunkviz.llm.contextual import estimate_contexts
from chunkviz.models import DEFAULT_EMBEDDING_MODEL, EMBEDDING_MODELS
from chunkviz.palette import column_hue, strategy_colour
from chunkviz.render import RenderOptions, cut_text, legend_html, marks_present, render_html, stylesheet
from chunkviz.strategies.base import get_strategy, registered
from chunkviz.tokenizers import DEFAULT_TOKENIZER, get_tokenizer, tokenizer_names
from chunkviz.ui.docview import ColumnView, DocViewEvent, document_view, event_from_state, ribbon_cuts
from chunkviz.ui.evaluation import EvalColumn, show_evaluate
from chunkviz.ui.llm import (
    calls_caption,
    confirmed,
    endpoint_controls,
    llm_session,
    safe_estimate,
    settings_json,
)
from chunkviz.ui.playground import (
    playground_hits,
    playground_row,
    playground_scores,
    playground_table,
    playground_variant_hits,
    query_forms_control,
    show_query_forms,
)
from chunkviz.widgets import column_controls

SAMPLES = Path(__file__).parent / "sample_docs"
DEFAULT_SAMPLE = "field_station_handbook.md"
#: The app renders the whole document once per column, so it accepts less than the CLI.
APP_MAX_BYTES = 5_000_000
MAX_COLUMNS = 4
#: Seconds one column's run may take before it is stopped with a message (the CLI has no limit).
RUN_TIME_LIMIT_S = 60
#: A column that calls a language model waits for its answers: it gets this many times longer.
LLM_TIME_FACTOR = 10
#: A strategy's preparation (embedding every sentence, asking the model), shown with a progress
#: bar and cached, has its own limit, this many times the run's: on a busy server embedding a
#: long document takes minutes, and stopping it would throw that work away.
PREPARE_TIME_FACTOR = 10
DEFAULT_COLUMNS = ("fixed_tokens", "recursive", "paragraphs")
COMPARE, TUNE, EVALUATE = "Compare strategies", "Tune semantic", "Evaluate retrieval"
HINT = "Strategies and settings: in the sidebar (››). Hover a chunk: why it ends; click: select it."
#: Height of the linked document boxes: with the page header above, they end near the fold at 1100 px.
VIEW_HEIGHT_PX = 745
DOCVIEW_KEY = "docview"
SELECTED_ROW = "background-color: #ffe8cc"
PAGE_CSS = (
    '<style>[data-testid="stMainBlockContainer"]{padding:3.4rem 1.5rem 2rem 1.5rem}'
    # four columns' metrics fit without truncation ("median tokens", "14.2%")
    '[data-testid="stMetricValue"]{font-size:1.45rem}[data-testid="stMetricLabel"] p{font-size:0.78rem}</style>'
)

st.set_page_config(page_title="chunkviz", layout="wide", initial_sidebar_state="expanded")


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
    return read_bytes(data, name, max_bytes=max_bytes)


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


# --- input ------------------------------------------------------------------------------------
def sample_names() -> list[str]:
    return sorted(p.name for p in SAMPLES.iterdir() if p.is_file() and p.name != "README.md")


def command_line_file() -> Path | None:
    """``./dev app FILE`` passes FILE after the script: only trust argv when it is this app's."""
    if len(sys.argv) > 1 and Path(sys.argv[0]).resolve() == Path(__file__).resolve() and Path(sys.argv[1]).is_file():
        return Path(sys.argv[1]).resolve()
    return None


def read_input() -> tuple[Document | None, str, bool]:
    """The document chosen in the sidebar, a name usable in commands, and whether that name
    can be shared in a URL (samples only)."""
    sidebar = st.sidebar
    sidebar.header("Document")
    source = sidebar.radio("Source", ["Sample", "Upload", "Paste"], key="source", horizontal=True)
    if source == "Sample":
        names = sample_names()
        given = command_line_file()
        if given is not None:
            names = [str(given), *names]
        if st.session_state.get("sample") not in names:
            st.session_state["sample"] = (
                str(given) if given is not None else DEFAULT_SAMPLE if DEFAULT_SAMPLE in names else names[0]
            )
        name = sidebar.selectbox("Sample document", names, key="sample")
        path = Path(name) if Path(name).is_absolute() else SAMPLES / name
        shown = str(path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path)
        return cached_read(path.read_bytes(), path.name, MAX_BYTES), shown, not Path(name).is_absolute()
    if source == "Upload":
        upload = sidebar.file_uploader(
            f"A document (txt, md, rst, py, html, pdf, docx; up to {APP_MAX_BYTES // 1_000_000} MB)", key="upload"
        )
        if upload is None:
            st.info("Choose a file in the sidebar to see it chunked.")
            return None, "", False
        return cached_read(upload.getvalue(), upload.name, APP_MAX_BYTES), upload.name, False
    pasted = sidebar.text_area("Paste text", key="paste", height=200)
    if len(pasted.encode("utf-8", "surrogatepass")) > APP_MAX_BYTES:
        raise DocumentError(f"pasted text is over the app's limit of {APP_MAX_BYTES // 1_000_000} MB")
    return cached_pasted(pasted), "document.txt", False


# --- configuration ------------------------------------------------------------------------------
def init_from_url() -> None:
    """Apply a shared configuration from the URL once per session."""
    if st.session_state.get("_url_applied"):
        return
    st.session_state["_url_applied"] = True
    doc, tokenizer, columns = config_from_query(st.query_params.to_dict(), MAX_COLUMNS)
    if doc and doc in sample_names():
        st.session_state["sample"] = doc
    if tokenizer in tokenizer_names():
        st.session_state["tokenizer"] = tokenizer
    st.session_state["embedding_model"] = model_from_query(st.query_params.to_dict())
    if columns:
        st.session_state["n_columns"] = len(columns)
        st.session_state["_url_params"] = {i: dict(c.params) for i, c in enumerate(columns)}
        st.session_state["_url_tokenizers"] = {i: c.tokenizer for i, c in enumerate(columns)}
        for i, col in enumerate(columns):
            st.session_state[f"col{i}.strategy"] = col.strategy


def choose_columns(tokenizer: str) -> list[ColumnConfig]:
    """Strategy and parameter controls for each column, in the sidebar. A combination the
    strategy rejects (typed on the way to a valid one) is explained under its control while the
    column keeps its last good settings."""
    names = [s.name for s in registered()]
    sidebar = st.sidebar
    sidebar.header("Strategies")
    st.session_state.setdefault("n_columns", len(DEFAULT_COLUMNS))
    n = sidebar.number_input("Columns", min_value=1, max_value=MAX_COLUMNS, key="n_columns")
    url_params = st.session_state.get("_url_params", {})
    url_tokenizers = st.session_state.get("_url_tokenizers", {})
    columns = []
    for i in range(int(n)):
        key = f"col{i}.strategy"
        if key not in st.session_state:
            st.session_state[key] = DEFAULT_COLUMNS[i] if i < len(DEFAULT_COLUMNS) else names[0]
        with sidebar.expander(f"Column {i + 1}", expanded=i == 0):
            name = st.selectbox("Strategy", names, key=key, help=get_strategy(st.session_state[key]).description)
            choice = column_controls(
                f"col{i}",
                get_strategy(name),
                url_params.get(i, {}),
                tokenizer=tokenizer,
                given_tokenizer=url_tokenizers.get(i),
            )
        columns.append(ColumnConfig(name, choice.params, choice.tokenizer))
    return columns


def model_settings() -> dict[str, Any]:
    """The embedding model whose input limit the flags check, and the tiny-chunk rule."""
    sidebar = st.sidebar
    sidebar.header("Flags")
    names = list(EMBEDDING_MODELS)
    st.session_state.setdefault("embedding_model", DEFAULT_EMBEDDING_MODEL)
    model = sidebar.selectbox(
        "Embedding model (its input limit)",
        names,
        key="embedding_model",
        format_func=lambda name: EMBEDDING_MODELS[name].label(),
        help="Chunks longer than this model reads are flagged 'over model limit'.",
    )
    st.session_state.setdefault("tiny_on", True)
    tiny = sidebar.checkbox(
        "Flag tiny chunks (under a quarter of the size asked for)",
        key="tiny_on",
        help="Small chunks carry little context and retrieve worse; the rule is relative to each strategy's size setting.",
    )
    return {"embedding_model": model, "tiny_fraction": DEFAULT_TINY_FRACTION if tiny else None}


# --- running ------------------------------------------------------------------------------------
class Column:
    """One configured column and what running it gave (its run, or the error to show)."""

    def __init__(
        self,
        i: int,
        config: ColumnConfig,
        settings: dict[str, Any],
        llm: LLMSettings | None = None,
        contextual: bool = False,
    ) -> None:
        self.i = i
        self.config = config
        self.label = f"{i + 1}. {config.strategy}"
        self.key = f"col{i}"
        self.hue = column_hue(i)
        self.params_json = json.dumps(dict(config.params), sort_keys=True, default=str)
        self.contextual = contextual  # the model writes each chunk's context (an enrichment)
        self.uses_llm = uses_llm(config.strategy, enrich="contextual" if contextual else None)
        self.llm = llm if self.uses_llm else None
        extra = {"llm": json.loads(settings_json(llm))} if self.uses_llm and llm is not None else {}
        self.settings_json = json.dumps({**settings, **extra, "column_tokenizer": config.tokenizer}, sort_keys=True)
        self.run: StrategyRun | None = None
        self.error: str | None = None
        self.llm_note: str | None = None


def run_columns(columns: list[Column], document: Document, tokenizer: str, enrich_json: str) -> None:
    """Run every column (cached); a column's error is kept for display, the others still run."""
    status = st.empty()
    for column in columns:
        stopped = timed_out(column, document)
        if stopped:  # an exception is not cached: without this every rerun would spend the limit again
            column.error = stopped
            continue
        try:
            if column.uses_llm and not llm_confirmed(column, document, tokenizer):
                column.error = "waiting for you to allow the calls to the model (the button above)"
                continue
            limit = RUN_TIME_LIMIT_S * (LLM_TIME_FACTOR if column.uses_llm else 1)
            what = f"column {column.i + 1} ({column.config.strategy})"
            with llm_session(column.llm or LLMSettings.from_env()) as session:
                with time_limit(
                    RUN_TIME_LIMIT_S * PREPARE_TIME_FACTOR, f"{what}: preparing (embedding or asking the model)"
                ):
                    prepare_with_progress(column.config, document, tokenizer, status)
                with time_limit(limit, what), status.container():
                    with st.spinner(f"Chunking with {column.config.strategy}…"):
                        column.run = cached_run(
                            document.text,
                            document.format,
                            column.config.strategy,
                            column.params_json,
                            tokenizer,
                            enrich_json,
                            column.settings_json,
                            document,
                            column.llm,
                        )
            column.llm_note = remembered_note(column, calls_caption(session))
        except RunTimeLimitExceeded as exc:
            remember_time_out(column, document, str(exc))
            column.error = str(exc)
        except ChunkvizError as exc:
            column.error = str(exc)
    status.empty()


TIMED_OUT = "_timed_out"  # runs stopped by the time limit, by configuration: not run again this session


def _run_identity(column: Column, document: Document) -> str:
    return json.dumps(
        [hash(document.text), len(document.text), column.config.strategy, column.params_json, column.settings_json]
    )


def timed_out(column: Column, document: Document) -> str | None:
    """The message of this exact run if it was stopped by the time limit before in this session."""
    return st.session_state.get(TIMED_OUT, {}).get(_run_identity(column, document))


def remember_time_out(column: Column, document: Document, message: str) -> None:
    stopped = dict(st.session_state.get(TIMED_OUT, {}))
    stopped[_run_identity(column, document)] = message + " (Change a setting to try again.)"
    st.session_state[TIMED_OUT] = dict(list(stopped.items())[-32:])


def remembered_note(column: Column, note: str | None) -> str | None:
    """The column's last "calls made vs cached" line, kept while its configuration stays the same
    (the reruns that follow a run serve it from the cache and have nothing to report)."""
    key, config = f"{column.key}.llm_note", column.params_json + column.settings_json
    if note is not None:
        st.session_state[key] = (config, note)
        return note
    kept = st.session_state.get(key)
    return kept[1] if kept and kept[0] == config else None


def llm_confirmed(column: Column, document: Document, tokenizer: str) -> bool:
    """Whether an LLM column may run: every answer is cached, or the user allowed the calls
    (shown with their number and input tokens). No endpoint: True, and the run says what to set."""
    settings = column.llm or LLMSettings.from_env()
    if not settings.configured or not document.text.strip():
        return True
    with llm_session(settings) as session:
        estimate, error = safe_estimate(lambda: column_estimate(column, document, tokenizer, session))
    if estimate is None:
        column.error = error
        return True
    what = " and ".join(
        w
        for w, on in (
            (f"{column.config.strategy} chunking", get_strategy(column.config.strategy).calls_model),
            ("contextual retrieval", column.contextual),
        )
        if on
    )
    return confirmed(f"Column {column.label} ({what})", estimate, settings, column.key)


def column_estimate(column: Column, document: Document, tokenizer: str, session: Any) -> CallEstimate:
    """The calls a column's LLM work will make: its strategy's own estimate (one that calls a
    model), else each chunk's context (a model strategy's contexts are counted once its chunks exist)."""
    spec = get_strategy(column.config.strategy)
    if spec.estimate is not None:
        return spec.estimate(document, spec.make_params(column.config.params), load_tokenizer(tokenizer))
    chunks = chunkviz_chunk(
        document, column.config.strategy, tokenizer=column.config.tokenizer or tokenizer, **dict(column.config.params)
    )
    return estimate_contexts(session.client(), document, searchable(chunks))


def prepare_with_progress(config: ColumnConfig, document: Document, tokenizer: str, slot: Any) -> None:
    """Run a strategy's expensive precomputation (e.g. embeddings) with a progress bar that is
    on screen from the first moment (loading a model can take seconds before any progress)."""
    spec = get_strategy(config.strategy)
    if spec.prepare is None or not document.text.strip():
        return
    params = spec.make_params(config.params)
    began = time.perf_counter()
    bar = slot.progress(0.0, text=f"Preparing {config.strategy}: loading the model and splitting sentences…")

    def progress(done: int, total: int) -> None:
        rate = done / max(time.perf_counter() - began, 1e-6)
        label = f"Preparing {config.strategy}: {done:,}/{total:,}" + (f" ({rate:,.0f}/s)" if done else "")
        bar.progress(done / max(total, 1), text=label)

    spec.prepare(document, params, load_tokenizer(tokenizer), progress)


# --- compare view -------------------------------------------------------------------------------
def column_view(
    column: Column,
    document: Document,
    tokenizer: str,
    enrich_json: str,
    hits: list[Hit] | None = None,
    scores: Scores | None = None,
) -> ColumnView:
    """What the linked document view shows for one column (with a query: its hits, and with an
    expected answer its recall and IoU in the header)."""
    selected = st.session_state.get(f"{column.key}.selected")
    if column.run is None:
        message = f"Not run: {column.error}"
        return ColumnView(
            column.label,
            render_html(document.text, (), RenderOptions(column.key, hue=column.hue)),
            column.hue,
            message,
            (),
            None,
        )
    html = cached_html(
        document.text,
        document.format,
        column.config.strategy,
        column.params_json,
        tokenizer,
        column.key,
        column.hue,
        enrich_json,
        column.settings_json,
        document,
    )
    summary = flag_summary(column.run)
    if scores is not None:
        summary = f"answer: recall {100 * scores.recall:.0f}% · IoU {100 * scores.iou:.1f}% · {summary}"
    return ColumnView(
        column.label, html, column.hue, summary, ribbon_cuts(column.run.chunks), selected, tuple(hits or ())
    )


def show_compare(
    columns: list[Column],
    document: Document,
    tokenizer: str,
    enrich_json: str,
    doc_name: str,
    llm: LLMSettings | None = None,
) -> None:
    for column in columns:  # before the views are built: they show the selection of this run
        if column.run is not None:
            forget_stale_selection(column, document.text, tokenizer)
    apply_view_selection(event_from_state(st.session_state.get(DOCVIEW_KEY)), columns)
    llm = llm or LLMSettings.from_env()
    query, k, answer = playground_row(document, doc_name, DOCVIEW_KEY)
    for column in columns:
        if column.llm_note:
            st.caption(f"{column.label} · {column.llm_note}")
    drawn = query_forms_control(query) if query else "raw"
    by_mode, texts = playground_variant_hits(columns, query, k, llm)
    hits = by_mode.get(drawn) or playground_hits(columns, query, k)
    scores = playground_scores(columns, hits, answer)
    views = [column_view(c, document, tokenizer, enrich_json, hits.get(c.i), scores.get(c.i)) for c in columns]
    legend = legend_html(set().union(*(marks_of(c.run) for c in columns if c.run is not None)))
    document_view(
        views,
        length=len(document.text),
        key=DOCVIEW_KEY,
        height_px=VIEW_HEIGHT_PX,
        legend=legend,
        references=[answer] if answer else (),
        answer_selection=bool(query),
    )
    if by_mode:
        show_query_forms(columns, by_mode, texts, answer, k)
    elif hits:
        playground_table(columns, hits, scores, k)

    details = st.columns(len(columns))
    for column, container in zip(columns, details):
        with container:
            show_details(column, document, tokenizer, enrich_json, doc_name)

    runs = {c.label: c.run for c in columns if c.run is not None}
    if runs:
        st.header("Compare")
        st.dataframe(
            pd.DataFrame([stats_row(label, run) for label, run in runs.items()]), hide_index=True, key="compare"
        )
        colours = {c.label: strategy_colour(c.hue) for c in columns if c.run is not None}
        figure = token_distribution_figure(
            {label: token_counts(run) for label, run in runs.items()}, tokenizer, colours=colours
        )
        st.plotly_chart(figure, key="sizes")


def marks_of(run: StrategyRun) -> set[str]:
    gaps = run.diagnostics.coverage.content_gaps if run.diagnostics else ()
    return marks_present(run.chunks, annotations(run), gaps)


def apply_view_selection(event: DocViewEvent | None, columns: list[Column]) -> None:
    """A click on a chunk in the document view selects it (once per click: the event stays in
    the component's state, its nonce tells a new click)."""
    if event is None or event.nonce == st.session_state.get("_view_nonce"):
        return
    st.session_state["_view_nonce"] = event.nonce
    if 0 <= event.column < len(columns):
        st.session_state[f"col{event.column}.selected"] = event.index
        for suffix in ("table", "table_seen"):  # the table follows (its highlighted row), untick its row
            st.session_state.pop(f"col{event.column}.{suffix}", None)


def show_details(column: Column, document: Document, tokenizer: str, enrich_json: str, doc_name: str) -> None:
    """One column's numbers, strategy analysis, chunk table, selected chunk and downloads."""
    st.subheader(column.label)
    if column.run is None:
        st.error(column.error or "not run")
        return
    run, text = column.run, document.text
    d = run.diagnostics
    a, b, c = st.columns(3)
    a.metric("chunks", len(run.chunks))
    b.metric("median tokens", f"{d.summary.tokens.median:g}" if d and d.summary.tokens.median is not None else "–")
    c.metric("overlap", f"{d.overhead.chars_percent:.1f}%" if d else "–", help="repeated characters, % of covered text")
    st.caption(flag_summary(run))
    if d and d.coverage.content_gaps:
        st.warning(f"{d.coverage.content_gap_chars} characters of text are in no chunk (hatched in the text).")
    if get_strategy(column.config.strategy).explain is not None:
        show_explanation(column, document, tokenizer)
    show_table(column, run)
    selected = st.session_state.get(f"{column.key}.selected")
    if selected is not None and 0 <= selected < len(run.chunks):
        show_focus(run, selected)
    exports = cached_exports(
        text,
        document.format,
        column.config.strategy,
        column.params_json,
        tokenizer,
        enrich_json,
        column.settings_json,
        document,
    )
    stem = f"{Path(doc_name).stem or 'document'}.{column.config.strategy}"
    kinds = (("jsonl", "JSONL", "jsonl", "application/jsonl"), ("json", "JSON", "json", "application/json"), ("csv", "CSV", "csv", "text/csv"),
             ("langchain", "LangChain", "langchain.jsonl", "application/jsonl"), ("llamaindex", "LlamaIndex", "llamaindex.json", "application/json"))  # fmt: skip
    for col, (kind, label, suffix, mime) in zip(st.columns(len(kinds)), kinds):
        col.download_button(
            label, exports[kind], file_name=f"{stem}.{suffix}", mime=mime, key=f"{column.key}.download.{kind}"
        )


def show_table(column: Column, run: StrategyRun) -> None:
    """The chunk table; ticking a row selects that chunk (the document view scrolls to it)."""
    rows = chunk_table(run)
    selected = st.session_state.get(f"{column.key}.selected")
    frame: Any = pd.DataFrame(rows)
    if selected is not None and 0 <= selected < len(rows):  # the selected chunk's row is highlighted
        frame = frame.style.apply(lambda row: [SELECTED_ROW if row["index"] == selected else ""] * len(row), axis=1)
    table = st.dataframe(
        frame, key=f"{column.key}.table", on_select="rerun", selection_mode="single-row", hide_index=True, height=240
    )
    picked = [
        r for r in (table.selection.rows if table is not None and hasattr(table, "selection") else []) if r < len(rows)
    ]
    if picked != st.session_state.get(f"{column.key}.table_seen", []):  # the user (un)ticked a row
        st.session_state[f"{column.key}.table_seen"] = picked
        new_selected = rows[picked[0]]["index"] if picked else None
        if new_selected != st.session_state.get(f"{column.key}.selected"):
            st.session_state[f"{column.key}.selected"] = new_selected
            st.rerun()


def forget_stale_selection(column: Column, text: str, tokenizer: str) -> None:
    """A selected row belongs to one chunking: drop it when the document or settings change."""
    fingerprint = f"{hash(text)}:{len(text)}:{tokenizer}:{column.config.strategy}:{column.params_json}"
    key = f"{column.key}.fingerprint"
    if st.session_state.get(key) not in (None, fingerprint):
        for suffix in ("selected", "table", "table_seen"):
            st.session_state.pop(f"{column.key}.{suffix}", None)
    st.session_state[key] = fingerprint


def show_explanation(column: Column, document: Document, tokenizer: str) -> None:
    """A strategy's own analysis (any strategy with an ``explain`` hook): its summary as a
    caption, its figures as charts. Nothing here knows which strategy it is."""
    explanation = cached_explanation(
        document.text, document.format, column.config.strategy, column.params_json, tokenizer, document
    )
    st.caption(explanation.summary())
    tuning = get_strategy(column.config.strategy).tuning
    if tuning is not None:
        st.button(
            f"Tune the {tuning.what} by eye →",
            key=f"{column.key}.tune",
            on_click=open_tuning,
            args=(column.label,),
            help=f"Opens the {TUNE} view",
        )
    for item in explanation.figures(column.run.chunks):
        if item.caption:
            st.caption(item.caption)
        key = f"{column.key}.{item.name}"
        if not item.selectable:
            st.plotly_chart(item.figure, key=key)
            continue
        event = st.plotly_chart(item.figure, key=key, on_select="rerun", selection_mode=("points",))
        points = event.selection.points if event is not None and hasattr(event, "selection") else []
        target = explanation.chunk_at(item.name, points[0], column.run.chunks) if points else None
        if target is not None and target != st.session_state.get(f"{column.key}.selected"):
            st.session_state[f"{column.key}.selected"] = target
            st.rerun()


def show_focus(run: StrategyRun, index: int) -> None:
    chunk = run.chunks[index]
    st.markdown(f"**Chunk {index}** · characters {chunk.start}–{chunk.end} · ends: {cut_text(chunk)}")
    if chunk.added_text:
        st.caption("Added by the strategy (not in the source):")
        st.code(chunk.added_text, language=None)
    st.code(chunk.text, language=None, wrap_lines=True)


# --- tune view ------------------------------------------------------------------------------------
def open_tuning(label: str) -> None:
    """Open the Tune view on the column ``label`` (a callback: runs before the rerun)."""
    st.session_state["view"] = TUNE
    st.session_state["tune_pick"] = label


def show_tune(columns: list[Column], document: Document, tokenizer: str, enrich_json: str) -> None:
    """A column's tuning panel (any strategy that declares a tuning analysis: its control beside
    its plot), its chunks right below."""
    from chunkviz.ui.tuning import tuning_panel  # noqa: PLC0415

    tunable = [c for c in columns if get_strategy(c.config.strategy).tuning is not None]
    if not tunable:
        names = [s.name for s in registered() if s.tuning is not None]
        st.info(
            f"No column uses the {' or '.join(names)} strategy. Choose {' or '.join(repr(n) for n in names)} "
            "for a column in the sidebar to tune its threshold here."
        )
        return
    if len(tunable) > 1:
        labels = {c.label: c for c in tunable}
        if st.session_state.get("tune_pick") not in labels:  # a column that changed strategy
            st.session_state.pop("tune_pick", None)
        chosen = st.radio("Column", list(labels), key="tune_pick", horizontal=True)
        column = labels[chosen]
    else:
        column = tunable[0]
    run_columns([column], document, tokenizer, enrich_json)
    if column.run is None:
        st.error(column.error or "not run")
        return
    strategy = column.config.strategy
    explanation = cached_explanation(document.text, document.format, strategy, column.params_json, tokenizer, document)
    html = cached_html(
        document.text,
        document.format,
        strategy,
        column.params_json,
        tokenizer,
        column.key,
        column.hue,
        enrich_json,
        column.settings_json,
        document,
    )
    spec = get_strategy(strategy)
    tuning = spec.tuning
    assert tuning is not None
    widget = f"{column.key}.{strategy}.{tuning.parameter(spec.make_params(column.config.params))}"
    tuning_panel(
        tuning.data(explanation, column.run.chunks),
        html,
        key=f"tune.{column.key}",
        on_change=_copy_amount_to(widget, f"tune.{column.key}"),
    )
    st.caption(flag_summary(column.run))


def _copy_amount_to(widget: str, component_key: str) -> Callable[[], None]:
    """A callback (runs before the rerun) that puts the panel's amount into the sidebar control."""

    def copy() -> None:
        state = st.session_state.get(component_key) or {}
        amount = state.get("amount") if isinstance(state, dict) else getattr(state, "amount", None)
        if isinstance(amount, (int, float)):
            st.session_state[widget] = float(amount)

    return copy


# --- page ------------------------------------------------------------------------------------------
def main() -> None:
    init_from_url()
    st.html(stylesheet() + PAGE_CSS)
    st.markdown(f"**chunkviz** · where each chunking strategy cuts your document, and why. :gray[{HINT}]")

    try:
        with time_limit(RUN_TIME_LIMIT_S, "reading the document"):
            document, doc_name, shareable = read_input()
    except ChunkvizError as exc:
        st.error(str(exc))
        return
    st.sidebar.header("Tokenizer")
    st.session_state.setdefault("tokenizer", DEFAULT_TOKENIZER)
    tokenizer = st.sidebar.selectbox("Token counts and sizes use", tokenizer_names(), key="tokenizer")
    configs = choose_columns(tokenizer)
    settings = model_settings()
    enrich_json = enrichment_controls(doc_name)
    llm = endpoint_controls()
    if document is None:
        return
    outline = outline_html(document)
    if outline:
        with st.sidebar.expander("Outline (headings)", expanded=False):
            st.html(outline)
    for note in document.notes:
        st.info(note)
    text = document.text
    try:
        load_tokenizer(tokenizer)
    except ChunkvizError as exc:
        st.error(str(exc))
        return
    try:
        with time_limit(RUN_TIME_LIMIT_S, "counting the document's tokens"):
            stats = cached_stats(text, tokenizer)
    except ChunkvizError as exc:
        st.error(str(exc))
        return
    left, right = st.columns([1, 1], vertical_alignment="center")  # three views fit beside the document line
    with left:
        view = (
            st.segmented_control(
                "View", [COMPARE, TUNE, EVALUATE], key="view", default=COMPARE, label_visibility="collapsed"
            )
            or COMPARE
        )
    right.caption(
        f"{Path(doc_name).name} · {stats['characters']:,} characters · {stats['words']:,} words · "
        f"{stats['tokens']:,} tokens ({tokenizer})"
    )
    if not text.strip():
        st.warning("The document is empty: there is nothing to chunk.")
        return
    contextual = bool((json.loads(enrich_json) or {}).get("contextual"))
    columns = [Column(i, config, settings, llm, contextual) for i, config in enumerate(configs)]
    if view == TUNE:
        show_tune(columns, document, tokenizer, enrich_json)
    elif view == EVALUATE:
        sample_path = Path(doc_name) if st.session_state.get("source") == "Sample" else None
        show_evaluate(
            document, doc_name, [EvalColumn.of(c.label, c.hue, c.config, tokenizer) for c in columns], sample_path, llm
        )
    else:
        run_columns(columns, document, tokenizer, enrich_json)
        show_compare(columns, document, tokenizer, enrich_json, doc_name, llm)
    share(doc_name, shareable, tokenizer, configs, settings["embedding_model"], enrich_json)


def enrichment_controls(doc_name: str) -> str:
    """Sidebar controls for enrichment (the metadata prefix, contextual retrieval); returns
    ``compare.enriched``'s options as JSON ("null" = off)."""
    st.sidebar.header("Enrichment")
    on = st.sidebar.checkbox(
        "Prefix chunks with document, section and date",
        key="enrich",
        help="Adds a 'Document: … / Section: … / Date: …' prefix to each chunk as added text (not part of the span) "
        "and counts what the embedding model then reads.",
    )
    contextual = st.sidebar.checkbox(
        "Contextual retrieval (LLM): the model writes 2–3 sentences placing each chunk in the document",
        key="enrich.contextual",
        help="Added text in front of each chunk (drawn as inserted text, its tokens counted; flagged when it pushes a chunk "
        "over the embedding model's limit). One call per chunk, cached; the page asks before calling.",
    )
    if not on and not contextual:
        return "null"
    options: dict[str, Any] = {"metadata": on, "contextual": contextual}
    if on:
        title = st.sidebar.text_input("Document title (empty: first heading or file name)", key="enrich.title")
        date = st.sidebar.text_input("Date", key="enrich.date")
        options.update({"source": Path(doc_name).name, "title": title or None, "date": date or None})
    return json.dumps(options, sort_keys=True)


def config_download(tokenizer: str, columns: list[ColumnConfig], model: str, enrich_json: str) -> None:
    """The columns as chunkviz.json (strategy, every parameter, tokenizer, enrichment) for
    ``chunkviz chunk/batch --config``."""
    options = json.loads(enrich_json) or {}
    metadata = (
        {k: v for k, v in options.items() if k in ("source", "title", "date")}
        if options.get("metadata", True) and options
        else None
    )
    try:
        text = config_json(config_from_columns(columns, metadata, tokenizer=tokenizer, embedding_model=model))
    except ChunkvizError as exc:
        st.caption(f"chunkviz.json cannot be written for these columns: {exc}")
        return
    left, right = st.columns([1, 3], vertical_alignment="center")
    left.download_button(
        "Download chunkviz.json", text, file_name=CONFIG_FILE_NAME, mime="application/json", key="share.config"
    )
    note = (
        " Contextual retrieval is not in the file: it needs the LLM endpoint (chunkviz eval --enrich contextual)."
        if options.get("contextual")
        else ""
    )
    right.caption(
        f"Every column's strategy, parameters and tokenizer, and the enrichment: `chunkviz batch DOCS... --config {CONFIG_FILE_NAME} --out out/` runs them over a corpus (one column: `--column N`).{note}"
    )


def share(
    doc_name: str, shareable: bool, tokenizer: str, columns: list[ColumnConfig], model: str, enrich_json: str = "null"
) -> None:
    """The configuration in the URL (the document's name only for samples), as a chunkviz.json
    file every command reads, and as code."""
    st.header("Share and reproduce")
    config_download(tokenizer, columns, model, enrich_json)
    query = config_to_query(Path(doc_name).name, tokenizer, columns, shareable=shareable, embedding_model=model)
    st.query_params.from_dict(query)
    if shareable:
        st.caption("The page URL now holds this configuration; copy it to share.")
    else:
        st.caption(
            "The page URL holds the strategies and settings; the document itself is not shared (only samples are)."
        )
    for i, config in enumerate(columns):
        with st.expander(f"Column {i + 1}: {config.strategy}"):
            column_tokenizer = config.tokenizer or tokenizer
            st.code(cli_command(doc_name, config.strategy, config.params, column_tokenizer), language="bash")
            st.code(python_snippet(doc_name, config.strategy, config.params, column_tokenizer), language="python")


main()
