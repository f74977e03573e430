"""The document view alone, for bench/bench_docview.py: ``?doc=sample`` (the default sample,
sample_docs/field_station_handbook.md) or ``?doc=big`` (the sample repeated to ``?mb=`` megabytes,
5 by default), in ``?columns=`` columns (fixed_tokens, recursive, paragraphs, sentences; 3 by
default), each with its strategy's default parameters and cl100k_base, rendered as the app renders
a column; under it, the element count of the columns' whole HTML (the DOM if every page were drawn).
``?bare=1`` is a bare page (one ``st.title``), the reference the first chunk is timed against.
"""

from __future__ import annotations

import re
from pathlib import Path

import streamlit as st

from chunkviz.compare import StrategyRun, chunk_annotations, run_strategy
from chunkviz.palette import column_hue
from chunkviz.render import RenderOptions, legend_html, marks_present, render_html
from chunkviz.ui.docview import ColumnView, document_view, ribbon_cuts

SAMPLE = Path(__file__).resolve().parents[1] / "sample_docs" / "field_station_handbook.md"
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
def column_html(text: str, strategy: str, label: str, hue: int) -> str:
    result = run(text, strategy)
    return render_html(
        text, result.chunks, RenderOptions(label, "cl100k_base", None, chunk_annotations(result), hue=hue)
    )


@st.cache_resource(show_spinner=False)
def whole_elements(html: str) -> int:
    """Elements of a column's whole HTML (one per opening tag)."""
    return len(re.findall("<[a-z]", html))


st.set_page_config(page_title="docview bench", layout="wide")
if st.query_params.get("bare") == "1":
    st.title("A bare page")
    st.stop()
text = document_text(st.query_params.get("doc", "sample"), float(st.query_params.get("mb", "5")))
n = int(st.query_params.get("columns", "3"))
views, present = [], set()
for i, strategy in enumerate(STRATEGIES[:n]):
    label, hue = f"col{i}", column_hue(i)
    result = run(text, strategy)
    present |= marks_present(result.chunks, chunk_annotations(result), ())
    html = column_html(text, strategy, label, hue)
    views.append(ColumnView(label, html, hue, f"{strategy}: {len(result.chunks)} chunks", ribbon_cuts(result.chunks)))
document_view(views, length=len(text), key="docview", height_px=745, legend=legend_html(present))
st.caption(f"whole HTML: {sum(whole_elements(v.html) for v in views):,} elements")  # what drawing every page would cost
