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

from chunkviz.core.deadline import time_limit
from chunkviz.core.errors import ChunkvizError
from chunkviz.document import Document
from chunkviz.drawing.render import stylesheet
from chunkviz.llm.client import LLMSettings
from chunkviz.text.tokenizers import DEFAULT_TOKENIZER, tokenizer_names
from chunkviz.ui import firstpaint, reruns, sidebar
from chunkviz.ui.columns import Column, run_columns, run_time_limit_s
from chunkviz.ui.compare import show_compare
from chunkviz.ui.evaluation import EvalColumn, show_evaluate
from chunkviz.ui.header import EVALUATE, TUNE, document_header
from chunkviz.ui.keys import ColumnSettings, Enrichment
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
    st.html(stylesheet() + PAGE_CSS)
    st.markdown(f"**chunkviz** · where each chunking strategy cuts your document, and why. :gray[{HINT}]")
    if firstpaint.first_paint_due() and (first := firstpaint.first_paint_document(page)) is not None:
        return first_screen(page, *first)  # its document view asks for the whole page once drawn
    init_from_url(page)
    try:
        with time_limit(run_time_limit_s(), "reading the document"):
            document, doc_name, shareable = read_input(page)
    except ChunkvizError as exc:
        st.error(str(exc))
        return
    document = sidebar.language_control(document) if document is not None else None
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


def first_screen(page: Page, document: Document, doc_name: str) -> None:
    """A new visitor's first screen (:mod:`chunkviz.ui.firstpaint`): the page without a control."""
    strategies = st.sidebar.container()
    strategies.caption(firstpaint.LOADING_CONTROLS)
    view = document_header(document, doc_name, DEFAULT_TOKENIZER, controls=False)
    settings = sidebar.DEFAULT_SETTINGS
    first = Workspace(page, strategies, document, doc_name, shareable=True, tokenizer=DEFAULT_TOKENIZER,
                      settings=settings, enrichment=None, llm=None, view=view, first_paint=True)  # fmt: skip
    workspace(first)
    firstpaint.first_screen_sent()


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
    first_paint: bool = False  # a new visitor's first screen: no control drawn (chunkviz.ui.firstpaint)


@st.fragment(key=reruns.COLUMNS)
def workspace(page: Workspace) -> None:
    """The column controls (in the sidebar), the view and the share section: a column's setting
    reruns this, not the page."""
    if page.first_paint:
        firstpaint.leave_first_screen()
    with page.strategies:
        configs = (
            firstpaint.default_configs(page.page) if page.first_paint else choose_columns(page.page, page.tokenizer)
        )
    if page.document is None or page.view is None:
        return
    columns = [
        Column(i, config, page.tokenizer, page.settings, page.llm, page.enrichment) for i, config in enumerate(configs)
    ]
    show_view(page.view, columns, page.document, page.doc_name, page.tokenizer, page.llm, page.yours, page.first_paint)
    if page.first_paint:
        return  # the rest comes with the whole page
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
    first_paint: bool = False,
) -> None:
    """The chosen view: what happens inside it (a query, a click, the Tune control) reruns only it."""
    if first_paint:
        firstpaint.leave_first_screen()
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
        show_compare(columns, document, tokenizer, doc_name, llm, tune_view=TUNE, yours=yours, first_paint=first_paint)


if __name__ == "__main__":  # streamlit run chunkviz/ui/app.py (what `chunkviz app` does)
    main()
