"""The app's "Share and reproduce" section: the configuration in the URL, as chunkviz.json and as
commands and code."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from chunkviz.compare import ColumnConfig, config_to_query
from chunkviz.config import CONFIG_FILE_NAME, config_from_columns, config_json
from chunkviz.errors import ChunkvizError
from chunkviz.export import cli_command, python_snippet
from chunkviz.ui.keys import Enrichment
from chunkviz.ui.lazy import opened_section


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


def share(
    doc_name: str,
    shareable: bool,
    tokenizer: str,
    columns: list[ColumnConfig],
    model: str,
    enrichment: Enrichment | None = None,
) -> None:
    """The configuration in the URL (the document's name only for samples), as a chunkviz.json
    file every command reads, and as code."""
    st.header("Share and reproduce")
    config_download(tokenizer, columns, model, enrichment)
    query = config_to_query(Path(doc_name).name, tokenizer, columns, shareable=shareable, embedding_model=model)
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
