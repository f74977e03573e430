"""The app's "Share and reproduce" section: this view as one HTML file, the configuration in the
URL, as chunkviz.json and as commands and code."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import streamlit as st

from chunkviz.core.errors import ChunkvizError
from chunkviz.diagnostics.compare import ColumnConfig, StrategyRun, config_to_query, run_strategy
from chunkviz.document import Document
from chunkviz.evaluation.config import CONFIG_FILE_NAME, config_from_columns, config_json
from chunkviz.formats.export import cli_command, python_snippet
from chunkviz.ui.keys import Enrichment
from chunkviz.ui.lazy import opened_section
from chunkviz.views.build import view_from_runs
from chunkviz.views.page import report_html


def config_download(tokenizer: str, columns: list[ColumnConfig], model: str, enrichment: Enrichment | None) -> None:
    """The columns as chunkviz.json (strategy, every parameter, tokenizer, enrichment) for
    ``chunkviz chunk/batch --config``."""
    metadata = enrichment.prefix() if enrichment is not None else None
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
        if enrichment is not None and enrichment.contextual
        else ""
    )
    right.caption(
        f"Every column's strategy, parameters and tokenizer, and the enrichment: `chunkviz batch DOCS... --config {CONFIG_FILE_NAME} --out out/` runs them over a corpus (one column: `--column N`).{note}"
    )


def view_report(
    document: Document,
    doc_name: str,
    tokenizer: str,
    columns: Sequence[ColumnConfig],
    model: str,
    runs: Sequence[StrategyRun | None] = (),
) -> str:
    """The current columns as a report page (:func:`chunkviz.views.page.report_html`, what ``chunkviz
    report`` writes): the runs the view drew, a column not run yet is run here."""
    pairs = []
    for i, config in enumerate(columns):
        run = runs[i] if i < len(runs) else None
        if run is None:
            try:
                run = run_strategy(
                    document,
                    config.strategy,
                    config.params,
                    tokenizer,
                    embedding_model=model,
                    column_tokenizer=config.tokenizer,
                )
            except ChunkvizError:
                run = None  # left out of the file, and named in it
        pairs.append((config, run))
    return report_html(view_from_runs(document, pairs, tokenizer=tokenizer, doc_name=doc_name, embedding_model=model))


def view_download(
    document: Document,
    doc_name: str,
    tokenizer: str,
    columns: list[ColumnConfig],
    model: str,
    runs: Sequence[StrategyRun | None] = (),
) -> None:
    """One button: this view as one HTML file, made when clicked (no rerun)."""
    left, right = st.columns([1, 3], vertical_alignment="center")
    left.download_button(
        "Download this view as HTML",
        lambda: view_report(document, doc_name, tokenizer, columns, model, runs),
        file_name=f"{Path(doc_name).stem or 'document'}.chunkviz.html",
        mime="text/html",
        key="share.report",
        on_click="ignore",
    )
    right.caption(
        "The document view (ribbon, linked columns, tooltips, a semantic column's slider), the statistics, "
        f"{CONFIG_FILE_NAME} and the commands in one file that opens from disk or any static web host: no server, "
        "no network. `chunkviz report DOC --config chunkviz.json -o report.html` writes the same."
    )


def share(
    doc_name: str,
    shareable: bool,
    tokenizer: str,
    columns: list[ColumnConfig],
    model: str,
    enrichment: Enrichment | None = None,
    document: Document | None = None,
    runs: Sequence[StrategyRun | None] = (),
) -> None:
    """This view as one HTML file (with ``document``), the configuration in the URL (the document's
    name only for samples), as a chunkviz.json file every command reads, and as code."""
    st.header("Share and reproduce")
    if document is not None and columns:
        view_download(document, doc_name, tokenizer, columns, model, runs)
    config_download(tokenizer, columns, model, enrichment)
    language = document.given_language if document is not None else None
    query = config_to_query(
        Path(doc_name).name, tokenizer, columns, shareable=shareable, embedding_model=model, language=language
    )
    st.query_params.from_dict(query)
    if shareable:
        st.caption("The page URL now holds this configuration; copy it to share.")
    else:
        st.caption(
            "The page URL holds the strategies and settings; the document itself is not shared (only samples are)."
        )
    for i, config in enumerate(columns):
        section = opened_section(f"Column {i + 1}: {config.strategy}, as a command and as Python", f"share.column{i}")
        if section is None:
            continue
        with section:
            column_tokenizer = config.tokenizer or tokenizer
            st.code(cli_command(doc_name, config.strategy, config.params, column_tokenizer), language="bash")
            st.code(python_snippet(doc_name, config.strategy, config.params, column_tokenizer), language="python")
