"""chunkviz in the browser: chunking strategies side by side, every chunk drawn inline.

Run it with ``chunkviz app [FILE]`` (``./dev app [FILE]`` in a clone, or ``streamlit run app.py``: the
top-level ``app.py`` only calls :func:`main`). This module only wires the sidebar's widgets to the views; the views live in ``chunkviz.ui`` (``sidebar``, ``compare``, ``tune``,
``evaluation``, ``share``; cached engine calls in ``cached``), the chunking, diagnostics, rendering
and charts in the rest of the ``chunkviz`` package.

Three views: *Compare* (a boundary ribbon and linked columns, one per strategy, a query
playground above them, then each column's details), *Tune* (a column's tuning panel, for a
strategy that declares one, e.g. semantic's threshold beside its similarity plot, with its chunks
right below) and *Evaluate* (which cut retrieves best on the document's questions).

What reruns when (``chunkviz.ui.reruns``): the whole page for the document, the tokenizer, the
flags, the enrichment, the endpoint and the view switch; the columns fragment (the column controls
in the sidebar, the view, the share section) for a column's setting; the view fragment alone for
what happens inside the view.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import streamlit as st

from chunkviz.compare import outline_html
from chunkviz.deadline import time_limit
from chunkviz.document import Document
from chunkviz.errors import ChunkvizError
from chunkviz.llm.client import LLMSettings
from chunkviz.render import stylesheet
from chunkviz.tokenizers import DEFAULT_TOKENIZER, tokenizer_names
from chunkviz.ui import reruns
from chunkviz.ui.cached import cached_stats, load_tokenizer
from chunkviz.ui.columns import Column, run_columns, run_time_limit_s
from chunkviz.ui.compare import show_compare
from chunkviz.ui.evaluation import EvalColumn, show_evaluate
from chunkviz.ui.keys import ColumnSettings, Enrichment
from chunkviz.ui.lazy import opened_section
from chunkviz.ui.llm import endpoint_controls
from chunkviz.ui.share import share
from chunkviz.ui.sidebar import Page, choose_columns, enrichment_controls, init_from_url, model_settings, read_input
from chunkviz.ui.tune import show_tune
from chunkviz.ui.yours import YourFile, your_chunks_upload

SAMPLES = Path(__file__).resolve().parent.parent / "sample_docs"
DEFAULT_SAMPLE = "field_station_handbook.md"
#: Where the Tune view's "add a semantic column" button goes from the default sample: its topic shifts.
TUNE_DEMO_SAMPLE = "topic_shifts.txt"
#: The app renders the whole document once per column, so it accepts less than the CLI.
APP_MAX_BYTES = 5_000_000
MAX_COLUMNS = 4
DEFAULT_COLUMNS = ("fixed_tokens", "recursive", "paragraphs")
COMPARE, TUNE, EVALUATE = "Compare strategies", "Tune semantic", "Evaluate retrieval"
HINT = "Strategies and settings: in the sidebar (››). Hover a chunk: why it ends; click: select it."
PAGE_CSS = (
    '<style>[data-testid="stMainBlockContainer"]{padding:3.4rem 1.5rem 2rem 1.5rem}'
    # each column's numbers (compare.numbers_html), drawn like st.metric; four columns fit ("median tokens", "14.2%")
    ".cv-numbers{display:flex;gap:1.4rem;margin:0.1rem 0 0.5rem}.cv-number span{display:block;font-size:0.78rem;"
    "color:rgba(49,51,63,0.6)}.cv-number b{display:block;font-size:1.45rem;font-weight:400;line-height:1.3}</style>"
)
PAGE = Page(Path(__file__).resolve(), SAMPLES, DEFAULT_SAMPLE, APP_MAX_BYTES, MAX_COLUMNS, DEFAULT_COLUMNS)


# --- page ------------------------------------------------------------------------------------------
def main(script: Path | None = None) -> None:
    """The whole page: what every part depends on, then the columns fragment. ``script`` is the file
    Streamlit runs when it is not this module (the top-level ``app.py``): a file named after it
    on the command line is the document to open."""
    st.set_page_config(page_title="chunkviz", layout="wide", initial_sidebar_state="expanded")
    page = PAGE if script is None else replace(PAGE, app_file=script.resolve())
    init_from_url(page)
    st.html(stylesheet() + PAGE_CSS)
    st.markdown(f"**chunkviz** · where each chunking strategy cuts your document, and why. :gray[{HINT}]")
    try:
        with time_limit(run_time_limit_s(), "reading the document"):
            document, doc_name, shareable = read_input(page)
    except ChunkvizError as exc:
        st.error(str(exc))
        return
    yours = your_chunks_upload(page.max_upload_bytes) if document is not None else None
    st.sidebar.header("Tokenizer")
    st.session_state.setdefault("tokenizer", DEFAULT_TOKENIZER)
    tokenizer = st.sidebar.selectbox("Token counts and sizes use", tokenizer_names(), key="tokenizer")
    strategies = st.sidebar.container()  # the columns fragment draws the column controls here
    settings, enrichment, llm = model_settings(), enrichment_controls(doc_name), endpoint_controls()
    view = document_header(document, doc_name, tokenizer) if document is not None else None
    workspace(
        Workspace(page, strategies, document, doc_name, shareable, tokenizer, settings, enrichment, llm, view, yours)
    )


@dataclass(frozen=True)
class Workspace:
    """What the page's full run decided, for the fragments below (their arguments stay as the last
    full run left them; nothing in here changes in a fragment's own rerun)."""

    page: Page
    strategies: Any  # the sidebar container of the column controls
    document: Document | None
    doc_name: str
    shareable: bool
    tokenizer: str
    settings: ColumnSettings
    enrichment: Enrichment | None
    llm: LLMSettings | None
    view: str | None  # None: nothing to chunk (no document, an empty one, an error shown)
    yours: YourFile | None = None  # a chunk file of the visitor's, drawn as one more column in Compare


def document_header(document: Document, doc_name: str, tokenizer: str) -> str | None:
    """The document's outline, notes and numbers, and the view switch beside them; the view chosen,
    or None when there is nothing to chunk (the reason is shown)."""
    outline = outline_html(document)
    section = opened_section("Outline (headings)", "outline", parent=st.sidebar) if outline else None
    if section is not None:
        section.html(outline)
    for note in document.notes:
        st.info(note)
    try:
        load_tokenizer(tokenizer)
        with time_limit(run_time_limit_s(), "counting the document's tokens"):
            stats = cached_stats(document, tokenizer)
    except ChunkvizError as exc:
        st.error(str(exc))
        return None
    left, right = st.columns([1, 1], vertical_alignment="center")  # three views fit beside the document line
    with left:
        view = st.segmented_control(
            "View", [COMPARE, TUNE, EVALUATE], key="view", default=COMPARE, label_visibility="collapsed"
        )
    right.caption(
        f"{Path(doc_name).name} · {stats['characters']:,} characters · {stats['words']:,} words · "
        f"{stats['tokens']:,} tokens ({tokenizer})"
    )
    if not document.text.strip():
        st.warning("The document is empty: there is nothing to chunk.")
        return None
    return view or COMPARE


@st.fragment(key=reruns.COLUMNS)
def workspace(page: Workspace) -> None:
    """The column controls (in the sidebar), the view and the share section: a column's setting
    reruns this, not the page."""
    with page.strategies:
        configs = choose_columns(page.page, page.tokenizer)
    if page.document is None or page.view is None:
        return
    columns = [
        Column(i, config, page.tokenizer, page.settings, page.llm, page.enrichment) for i, config in enumerate(configs)
    ]
    show_view(page.view, columns, page.document, page.doc_name, page.tokenizer, page.llm, page.yours)
    share(
        page.doc_name,
        page.shareable,
        page.tokenizer,
        configs,
        page.settings.embedding_model,
        page.enrichment,
        page.document,
        [c.run for c in columns],
    )


@st.fragment(key=reruns.VIEW)
def show_view(
    view: str,
    columns: list[Column],
    document: Document,
    doc_name: str,
    tokenizer: str,
    llm: LLMSettings | None,
    yours: YourFile | None = None,
) -> None:
    """The chosen view: what happens inside it (a query, a click, the Tune control) reruns only it."""
    if view == TUNE:
        on_default_sample = st.session_state.get("source") == "Sample" and Path(doc_name).name == DEFAULT_SAMPLE
        show_tune(columns, document, MAX_COLUMNS, TUNE_DEMO_SAMPLE if on_default_sample else None)
    elif view == EVALUATE:
        sample_path = Path(doc_name) if st.session_state.get("source") == "Sample" else None
        show_evaluate(
            document, doc_name, [EvalColumn.of(c.label, c.hue, c.config, tokenizer) for c in columns], sample_path, llm
        )
    else:
        run_columns(columns, document)
        show_compare(columns, document, tokenizer, doc_name, llm, tune_view=TUNE, yours=yours)


if __name__ == "__main__":  # streamlit run chunkviz/ui/app.py (what `chunkviz app` does)
    main()
