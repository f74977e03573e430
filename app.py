"""chunkviz in the browser: chunking strategies side by side, every chunk drawn inline.

Run it with ``./dev app [FILE]``. This file only wires widgets to cached engine calls; the
chunking, diagnostics, rendering and charts live in the ``chunkviz`` package.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pandas as pd
import streamlit as st

from chunkviz.charts import token_distribution_figure
from chunkviz.compare import (
    ColumnConfig,
    StrategyRun,
    annotations,
    chunk_table,
    config_from_query,
    config_to_query,
    document_stats,
    flag_counts,
    outline_html,
    run_strategy,
    stats_row,
    token_counts,
)
from chunkviz.document import Document
from chunkviz.document.model import as_document
from chunkviz.document.read import MAX_BYTES, read_bytes
from chunkviz.errors import ChunkvizError, DocumentError
from chunkviz.export import chunk_records, cli_command, python_snippet, serialize
from chunkviz.render import RenderOptions, cut_text, legend_html, render_html, stylesheet
from chunkviz.strategies.base import get_strategy, registered
from chunkviz.tokenizers import DEFAULT_TOKENIZER, get_tokenizer, tokenizer_names
from chunkviz.vocabulary import FLAG_LABELS
from chunkviz.widgets import param_controls

SAMPLES = Path(__file__).parent / "sample_docs"
DEFAULT_SAMPLE = "field_station_handbook.md"
#: The app renders the whole document once per column, so it accepts less than the CLI.
APP_MAX_BYTES = 5_000_000
MAX_COLUMNS = 4
DEFAULT_COLUMNS = ("fixed_tokens", "recursive", "paragraphs")

st.set_page_config(page_title="chunkviz", layout="wide")


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


@st.cache_data(max_entries=64, show_spinner=False)
def cached_run(
    text: str, fmt: str, strategy: str, params_json: str, tokenizer: str, enrich_json: str = "null",
    _document: Document | None = None,
) -> StrategyRun:
    document = _the_document(text, fmt, _document)
    return run_strategy(document, strategy, json.loads(params_json), tokenizer, json.loads(enrich_json))


@st.cache_data(max_entries=64, show_spinner=False)
def cached_html(
    text: str, fmt: str, strategy: str, params_json: str, tokenizer: str, label: str, selected: int | None,
    enrich_json: str = "null", _document: Document | None = None,
) -> str:
    run = cached_run(text, fmt, strategy, params_json, tokenizer, enrich_json, _document)
    gaps = run.diagnostics.coverage.content_gaps if run.diagnostics else ()
    options = RenderOptions(label, tokenizer, selected, annotations(run), gaps)
    return render_html(text, run.chunks, options)


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


# --- input ------------------------------------------------------------------------------------
def sample_names() -> list[str]:
    return sorted(p.name for p in SAMPLES.iterdir() if p.is_file() and p.name != "README.md")


def command_line_file() -> Path | None:
    """``./dev app FILE`` passes FILE after the script: only trust argv when it is this app's."""
    if len(sys.argv) > 1 and Path(sys.argv[0]).resolve() == Path(__file__).resolve() and Path(sys.argv[1]).is_file():
        return Path(sys.argv[1]).resolve()
    return None


def read_input() -> tuple[Document | None, str]:
    """The document chosen in the sidebar and a name usable in shared URLs and commands."""
    sidebar = st.sidebar
    sidebar.header("Document")
    source = sidebar.radio("Source", ["Sample", "Upload", "Paste"], key="source", horizontal=True)
    if source == "Sample":
        names = sample_names()
        given = command_line_file()
        if given is not None:
            names = [str(given), *names]
        if st.session_state.get("sample") not in names:
            st.session_state["sample"] = str(given) if given is not None else DEFAULT_SAMPLE if DEFAULT_SAMPLE in names else names[0]
        name = sidebar.selectbox("Sample document", names, key="sample")
        path = Path(name) if Path(name).is_absolute() else SAMPLES / name
        return cached_read(path.read_bytes(), path.name, MAX_BYTES), str(path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path)
    if source == "Upload":
        upload = sidebar.file_uploader(
            f"A document (txt, md, rst, py, html, pdf, docx; up to {APP_MAX_BYTES // 1_000_000} MB)", key="upload"
        )
        if upload is None:
            st.info("Choose a file in the sidebar to see it chunked.")
            return None, ""
        return cached_read(upload.getvalue(), upload.name, APP_MAX_BYTES), upload.name
    pasted = sidebar.text_area("Paste text", key="paste", height=200)
    if len(pasted.encode("utf-8", "surrogatepass")) > APP_MAX_BYTES:
        raise DocumentError(f"pasted text is over the app's limit of {APP_MAX_BYTES // 1_000_000} MB")
    return cached_pasted(pasted), "document.txt"


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
    if columns:
        st.session_state["n_columns"] = len(columns)
        st.session_state["_url_params"] = {i: dict(c.params) for i, c in enumerate(columns)}
        for i, col in enumerate(columns):
            st.session_state[f"col{i}.strategy"] = col.strategy


def choose_columns() -> list[ColumnConfig]:
    """Strategy and parameter controls for each column, in the sidebar."""
    names = [s.name for s in registered()]
    sidebar = st.sidebar
    sidebar.header("Strategies")
    st.session_state.setdefault("n_columns", len(DEFAULT_COLUMNS))
    n = sidebar.number_input("Columns", min_value=1, max_value=MAX_COLUMNS, key="n_columns")
    url_params = st.session_state.get("_url_params", {})
    columns = []
    for i in range(int(n)):
        key = f"col{i}.strategy"
        if key not in st.session_state:
            st.session_state[key] = DEFAULT_COLUMNS[i] if i < len(DEFAULT_COLUMNS) else names[0]
        with sidebar.expander(f"Column {i + 1}", expanded=i == 0):
            name = st.selectbox("Strategy", names, key=key, help=get_strategy(st.session_state[key]).description)
            params = param_controls(f"col{i}", get_strategy(name), url_params.get(i, {}))
        columns.append(ColumnConfig(name, params))
    return columns


# --- one column ---------------------------------------------------------------------------------
def column_label(i: int, config: ColumnConfig) -> str:
    return f"{i + 1}. {config.strategy}"


def show_column(
    i: int, config: ColumnConfig, document: Document, tokenizer: str, doc_name: str, enrich_json: str = "null"
) -> StrategyRun | None:
    label = column_label(i, config)
    st.subheader(label)
    text, fmt = document.text, document.format
    params_json = json.dumps(dict(config.params), sort_keys=True, default=str)
    try:
        prepare_with_progress(config, document, tokenizer)
        with st.spinner(f"Chunking with {config.strategy}…"):
            run = cached_run(text, fmt, config.strategy, params_json, tokenizer, enrich_json, document)
    except ChunkvizError as exc:
        st.error(str(exc))
        return None
    d = run.diagnostics
    a, b, c = st.columns(3)
    a.metric("chunks", len(run.chunks))
    b.metric("median tokens", f"{d.summary.tokens.median:g}" if d and d.summary.tokens.median is not None else "–")
    c.metric("overlap overhead", f"{d.overhead.chars_percent:.1f}%" if d else "–")  # repeated characters, % of covered text
    counts = flag_counts(run)
    flagged = [f"{FLAG_LABELS[k]}: {v}" for k, v in counts.items() if v]
    st.caption(" · ".join(flagged) if flagged else "no flags")
    if d and d.coverage.content_gaps:
        st.warning(f"{d.coverage.content_gap_chars} characters of text are in no chunk (hatched in the text).")

    forget_stale_selection(i, text, tokenizer, params_json, config.strategy)
    selected = st.session_state.get(f"col{i}.selected")
    if get_strategy(config.strategy).explain is not None:
        show_explanation(i, config, document, tokenizer, params_json, run)
    html = cached_html(text, fmt, config.strategy, params_json, tokenizer, f"col{i}", selected, enrich_json, document)
    st.html(html)

    rows = chunk_table(run)
    table = st.dataframe(
        pd.DataFrame(rows),
        key=f"col{i}.table",
        on_select="rerun",
        selection_mode="single-row",
        hide_index=True,
        height=240,
    )
    picked = [r for r in (table.selection.rows if table is not None and hasattr(table, "selection") else []) if r < len(rows)]
    if picked != st.session_state.get(f"col{i}.table_seen", []):  # the user (un)ticked a row
        st.session_state[f"col{i}.table_seen"] = picked
        new_selected = rows[picked[0]]["index"] if picked else None
        if new_selected != selected:
            st.session_state[f"col{i}.selected"] = new_selected
            st.rerun()
    if selected is not None and 0 <= selected < len(run.chunks):
        show_focus(run, selected, text)

    exports = cached_exports(text, fmt, config.strategy, params_json, tokenizer, enrich_json, document)
    stem = f"{Path(doc_name).stem or 'document'}.{config.strategy}"
    e1, e2, e3 = st.columns(3)
    for col, kind, mime in ((e1, "jsonl", "application/jsonl"), (e2, "json", "application/json"), (e3, "csv", "text/csv")):
        col.download_button(kind.upper(), exports[kind], file_name=f"{stem}.{kind}", mime=mime, key=f"col{i}.download.{kind}")
    return run


def forget_stale_selection(i: int, text: str, tokenizer: str, params_json: str, strategy: str) -> None:
    """A selected row belongs to one chunking: drop it when the document or settings change."""
    fingerprint = f"{hash(text)}:{len(text)}:{tokenizer}:{strategy}:{params_json}"
    key = f"col{i}.fingerprint"
    if st.session_state.get(key) not in (None, fingerprint):
        for suffix in ("selected", "table", "table_seen"):
            st.session_state.pop(f"col{i}.{suffix}", None)
    st.session_state[key] = fingerprint


@st.cache_data(max_entries=32, show_spinner=False)
def cached_exports(
    text: str, fmt: str, strategy: str, params_json: str, tokenizer: str, enrich_json: str = "null",
    _document: Document | None = None,
) -> dict[str, str]:
    run = cached_run(text, fmt, strategy, params_json, tokenizer, enrich_json, _document)
    records = chunk_records(run.chunks, load_tokenizer(tokenizer), text)
    return {fmt_name: serialize(records, fmt_name) for fmt_name in ("jsonl", "json", "csv")}


def prepare_with_progress(config: ColumnConfig, document: Document, tokenizer: str) -> None:
    """Run a strategy's expensive precomputation (e.g. embeddings) with a progress bar."""
    spec = get_strategy(config.strategy)
    if spec.prepare is None or not document.text.strip():
        return
    params = spec.make_params(config.params)
    bar = None
    began = time.perf_counter()

    def progress(done: int, total: int) -> None:
        nonlocal bar
        rate = done / max(time.perf_counter() - began, 1e-6)
        label = f"Preparing {config.strategy}: {done:,}/{total:,}" + (f" ({rate:,.0f}/s)" if done else "")
        if bar is None:
            bar = st.progress(0.0, text=label)
        bar.progress(done / max(total, 1), text=label)

    spec.prepare(document, params, load_tokenizer(tokenizer), progress)
    if bar is not None:
        bar.empty()


@st.cache_data(max_entries=32, show_spinner=False)
def cached_explanation(
    text: str, fmt: str, strategy: str, params_json: str, tokenizer: str, _document: Document | None = None
):  # noqa: ANN201
    spec = get_strategy(strategy)
    document = _the_document(text, fmt, _document)
    return spec.explain(document, spec.make_params(json.loads(params_json)), get_tokenizer(tokenizer))


def show_explanation(i: int, config: ColumnConfig, document: Document, tokenizer: str, params_json: str, run: StrategyRun) -> None:
    """A strategy's own analysis (any strategy with an ``explain`` hook): its summary as a
    caption, its figures as charts. Nothing here knows which strategy it is."""
    explanation = cached_explanation(document.text, document.format, config.strategy, params_json, tokenizer, document)
    st.caption(explanation.summary())
    for item in explanation.figures(run.chunks):
        if item.caption:
            st.caption(item.caption)
        key = f"col{i}.{item.name}"
        if not item.selectable:
            st.plotly_chart(item.figure, key=key)
            continue
        event = st.plotly_chart(item.figure, key=key, on_select="rerun", selection_mode=("points",))
        points = event.selection.points if event is not None and hasattr(event, "selection") else []
        target = explanation.chunk_at(item.name, points[0], run.chunks) if points else None
        if target is not None and target != st.session_state.get(f"col{i}.selected"):
            st.session_state[f"col{i}.selected"] = target
            st.rerun()


def show_focus(run: StrategyRun, index: int, text: str) -> None:
    chunk = run.chunks[index]
    st.markdown(f"**Chunk {index}** · characters {chunk.start}–{chunk.end} · ends: {cut_text(chunk)}")
    if chunk.added_text:
        st.caption("Added by the strategy (not in the source):")
        st.code(chunk.added_text, language=None)
    st.code(chunk.text, language=None, wrap_lines=True)


# --- page ------------------------------------------------------------------------------------------
def main() -> None:
    init_from_url()
    st.html(stylesheet())
    st.title("chunkviz")
    st.caption("See exactly where each chunking strategy cuts your document, and why.")

    try:
        document, doc_name = read_input()
    except DocumentError as exc:
        st.error(str(exc))
        return
    st.sidebar.header("Tokenizer")
    st.session_state.setdefault("tokenizer", DEFAULT_TOKENIZER)
    tokenizer = st.sidebar.selectbox("Token counts and sizes use", tokenizer_names(), key="tokenizer")
    columns = choose_columns()
    layout = st.sidebar.radio("Layout", ["Columns", "Tabs"], key="layout", horizontal=True)
    enrich_json = enrichment_controls(doc_name)
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
    stats = cached_stats(text, tokenizer)
    m1, m2, m3 = st.columns(3)
    m1.metric("characters", f"{stats['characters']:,}")
    m2.metric("words", f"{stats['words']:,}")
    m3.metric(f"tokens ({tokenizer})", f"{stats['tokens']:,}")
    if not text.strip():
        st.warning("The document is empty: there is nothing to chunk.")
        return
    st.html(legend_html())

    runs: dict[str, StrategyRun] = {}
    containers = st.tabs([column_label(i, c) for i, c in enumerate(columns)]) if layout == "Tabs" else st.columns(len(columns))
    for i, (container, config) in enumerate(zip(containers, columns)):
        with container:
            run = show_column(i, config, document, tokenizer, doc_name, enrich_json)
        if run is not None:
            runs[column_label(i, config)] = run

    if runs:
        st.header("Compare")
        st.dataframe(pd.DataFrame([stats_row(label, run) for label, run in runs.items()]), hide_index=True, key="compare")
        figure = token_distribution_figure({label: token_counts(run) for label, run in runs.items()}, tokenizer)
        st.plotly_chart(figure, key="sizes")

    share(doc_name, tokenizer, columns)


def enrichment_controls(doc_name: str) -> str:
    """Sidebar controls for metadata enrichment; returns enrich()'s arguments as JSON ("null" = off)."""
    st.sidebar.header("Enrichment")
    on = st.sidebar.checkbox(
        "Prefix chunks with document, section and date",
        key="enrich",
        help="Adds a 'Document: … / Section: … / Date: …' prefix to each chunk as added text (not part of the span) "
        "and counts what the embedding model then reads.",
    )
    if not on:
        return "null"
    title = st.sidebar.text_input("Document title (empty: first heading or file name)", key="enrich.title")
    date = st.sidebar.text_input("Date", key="enrich.date")
    options = {"source": Path(doc_name).name, "title": title or None, "date": date or None}
    return json.dumps(options, sort_keys=True)


def share(doc_name: str, tokenizer: str, columns: list[ColumnConfig]) -> None:
    st.header("Share and reproduce")
    query = config_to_query(Path(doc_name).name, tokenizer, columns)
    st.query_params.from_dict(query)
    st.caption("The page URL now holds this configuration (sample documents only); copy it to share.")
    for i, config in enumerate(columns):
        with st.expander(f"Column {i + 1}: {config.strategy}"):
            st.code(cli_command(doc_name, config.strategy, config.params, tokenizer), language="bash")
            st.code(python_snippet(doc_name, config.strategy, config.params, tokenizer), language="python")


main()
