"""The "your chunks" column: a chunk file from the visitor's own pipeline (LangChain or
LlamaIndex JSON/JSONL, chunkviz JSONL, a JSON list of texts), placed and audited against the
document (:func:`chunkviz.load_chunks`) and drawn beside the strategies' columns, flags and all."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from chunkviz.core.errors import ChunkvizError
from chunkviz.diagnostics.compare import flag_summary
from chunkviz.diagnostics.hygiene import HygieneRules
from chunkviz.document import Document
from chunkviz.drawing.palette import column_hue
from chunkviz.ui.cached import YOUR_CHUNKS, cached_your_chunks, cached_your_html
from chunkviz.ui.docview import ColumnView, ribbon_cuts

#: The uploader's key.
UPLOAD_KEY = "yours"
HELP = (
    "Chunks your pipeline already made from this document: LangChain Documents (JSONL of page_content and "
    "metadata.start_index), LlamaIndex nodes (text, start_char_idx), what `chunkviz chunk` writes, or a JSON list "
    "of texts. Given offsets are checked, never trusted; texts without offsets are found in the document, and a "
    "text found at several places is flagged, not guessed. `chunkviz audit DOC --chunks FILE` does the same on "
    "the command line."
)


@dataclass(frozen=True)
class YourFile:
    """An uploaded chunk file."""

    name: str
    data: bytes


def your_chunks_upload(max_bytes: int) -> YourFile | None:
    """The sidebar's chunk-file uploader (under the document); None until a file is given."""
    upload = st.sidebar.file_uploader(
        "Your chunks (optional): a chunk file of this document", key=UPLOAD_KEY, help=HELP
    )
    if upload is None:
        return None
    data = upload.getvalue()
    if len(data) > max_bytes:
        st.error(
            f"{upload.name}: {len(data):,} bytes is over the app's limit of {max_bytes // 1_000_000} MB for a chunk file"
        )
        return None
    return YourFile(upload.name, data)


def your_column(
    document: Document, given: YourFile, tokenizer: str, position: int, hygiene: HygieneRules | None = None
) -> ColumnView | None:
    """The file's chunks as the document view's column at ``position`` (after the strategies'; its
    render key is ``col<position>`` like theirs), or None, with the file's problem shown, when it
    cannot be read. ``hygiene``: the hygiene flags' thresholds (the sidebar's)."""
    try:
        run, found = cached_your_chunks(document, given.data, given.name, tokenizer, hygiene)
    except ChunkvizError as exc:
        st.error(f"Your chunks: {exc}")
        return None
    st.caption(f"Your chunks · {found}")
    hue = column_hue(position)
    html = cached_your_html(document, given.data, given.name, tokenizer, f"col{position}", hue, hygiene)
    return ColumnView(f"{YOUR_CHUNKS} ({given.name})", html, hue, flag_summary(run), ribbon_cuts(run.chunks))
