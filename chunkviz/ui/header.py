"""The line above the views: the document's name and numbers, the switch between the three
views beside them, the document's notes, and its outline in the sidebar."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from chunkviz.core.deadline import time_limit
from chunkviz.core.errors import ChunkvizError
from chunkviz.diagnostics.compare import outline_html, size_phrase
from chunkviz.document import Document, is_blank
from chunkviz.ui.cached import cached_stats, load_tokenizer
from chunkviz.ui.columns import run_time_limit_s
from chunkviz.ui.lazy import opened_section

COMPARE, TUNE, EVALUATE = "Compare strategies", "Tune semantic", "Evaluate retrieval"
VIEWS = [COMPARE, TUNE, EVALUATE]
#: The line is as high without its view switch (a new visitor's first screen) as with it: the
#: document view below does not move when the switch arrives.
LINE_CSS = "<style>.st-key-document-line [data-testid=stHorizontalBlock]{min-height:2rem}</style>"


def document_header(document: Document, doc_name: str, tokenizer: str, *, controls: bool = True) -> str | None:
    """The document's outline, notes and numbers, and the view switch beside them (``controls``;
    else its place stays empty); the view chosen, or None when there is nothing to chunk (the
    reason is shown)."""
    notes = (*document.notes, *document.structure.markup_notes())  # parsed once, before the outline reads it
    outline = outline_html(document) if controls else ""
    section = opened_section("Outline (headings)", "outline", parent=st.sidebar) if outline else None
    if section is not None:
        section.html(outline)
    language = document.language_guess.describe()
    for note in (*notes, *document.language_notes()):
        st.info(note)
    try:
        load_tokenizer(tokenizer)
        with time_limit(run_time_limit_s(), "counting the document's tokens"):
            stats = cached_stats(document, tokenizer)
    except ChunkvizError as exc:
        st.error(str(exc))
        return None
    st.html(LINE_CSS)
    # three views fit beside the document line
    left, right = st.container(key="document-line").columns([3, 5], vertical_alignment="center")
    view = (
        left.segmented_control("View", VIEWS, key="view", default=COMPARE, label_visibility="collapsed")
        if controls
        else COMPARE
    )
    right.caption(
        f"{Path(doc_name).name} · {size_phrase(stats)} · {stats['tokens']:,} tokens ({tokenizer}) · language {language}"
    )
    if is_blank(document.text):
        st.warning("The document is empty: there is nothing to chunk.")
        return None
    return view or COMPARE
