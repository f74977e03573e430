"""The document view alone, for bench/bench_docview.py: ``?doc=sample`` (the default sample,
chunkviz/sample_docs/field_station_handbook.md) or ``?doc=big`` (the sample repeated to ``?mb=`` megabytes,
5 by default), in ``?columns=`` columns (fixed_tokens, recursive, paragraphs, sentences; 3 by
default), each with its strategy's default parameters and cl100k_base, rendered as the app renders
a column; under it, the element count of the columns' whole HTML (the DOM if every page were drawn).
``?bare=1`` is a bare page (one ``st.title``), the reference the first chunk is timed against.
"""

from __future__ import annotations

import re
from pathlib import Path

import streamlit as st

from chunkviz.diagnostics.compare import StrategyRun, chunk_annotations, run_strategy
from chunkviz.drawing.palette import column_hue
from chunkviz.drawing.render import RenderOptions, legend_html, marks_present, render_html
from chunkviz.ui.docview import ColumnView, document_view, ribbon_cuts

SAMPLE = Path(__file__).resolve().parents[1] / "chunkviz/sample_docs" / "field_station_handbook.md"
STRATEGIES = ("fixed_tokens", "recursive", "paragraphs", "sentences")


@st.cache_resource(show_spinner=False)
def document_text(doc: str, mb: float) -> str:
    text = SAMPLE.read_text(encoding="utf-8")
    if doc == "big":
        target = int(mb * 1_000_000)
        text = ((text + "\n\n") * (target // (len(text) + 2) + 1))[:target]
    return text


@st.cache_resource(show_spinner=False)
def run(text: str, strategy: str) -> StrategyRun:
    return run_strategy(text, strategy, {}, "cl100k_base")


@st.cache_resource(show_spinner=False)
def column(text: str, strategy: str, label: str, hue: int) -> tuple[ColumnView, set[str], int]:
    """A column as the app renders it, the marks it draws and its whole HTML's element count
    (computed once: a rerun, e.g. the view's window request, costs the view, not this bench app)."""
    result = run(text, strategy)
    annotations = chunk_annotations(result)
    html = render_html(text, result.chunks, RenderOptions(label, "cl100k_base", None, annotations, hue=hue))
    view = ColumnView(label, html, hue, f"{strategy}: {len(result.chunks)} chunks", ribbon_cuts(result.chunks))
    return view, marks_present(result.chunks, annotations, ()), len(re.findall("<[a-z]", html))


st.set_page_config(page_title="docview bench", layout="wide")
if st.query_params.get("bare") == "1":
    st.title("A bare page")
    st.stop()
text = document_text(st.query_params.get("doc", "sample"), float(st.query_params.get("mb", "5")))
n = int(st.query_params.get("columns", "3"))
columns = [column(text, strategy, f"col{i}", column_hue(i)) for i, strategy in enumerate(STRATEGIES[:n])]
present = set().union(*(marks for _, marks, _ in columns))
document_view(
    [view for view, _, _ in columns], length=len(text), key="docview", height_px=745, legend=legend_html(present)
)
st.caption(f"whole HTML: {sum(elements for _, _, elements in columns):,} elements")  # the DOM if every page were drawn
