"""A tiny Streamlit app around the document view component (for tests/test_browser_docview.py).

Chunks the field station handbook with three strategies, shows them in ``document_view`` and
writes the selection. ``?big=1`` repeats the sample to 300,000+ characters (performance);
the text input "select from Python" takes ``column:index`` and selects that chunk from Python.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import streamlit as st

from chunkviz.compare import StrategyRun, annotations, run_strategy
from chunkviz.palette import column_hue
from chunkviz.render import RenderOptions, legend_html, marks_present, render_html
from chunkviz.ui.docview import ColumnView, document_view, ribbon_cuts

SAMPLE = Path(__file__).resolve().parents[2] / "sample_docs" / "field_station_handbook.md"
COLUMNS = (
    ("fixed_tokens", {"chunk_size": 120, "overlap": 20}),
    ("recursive", {"chunk_size": 150, "overlap": 0}),
    ("sentences", {"max_tokens": 90, "overlap_sentences": 1}),
)
BIG_CHARS = 300_000


@st.cache_data(show_spinner=False)
def document_text(big: bool) -> str:
    text = SAMPLE.read_text(encoding="utf-8")
    if big:
        text = (text + "\n\n") * (BIG_CHARS // (len(text) + 2) + 1)
    return text


@st.cache_resource(show_spinner=False)
def run(text: str, i: int) -> StrategyRun:
    strategy, params = COLUMNS[i]
    return run_strategy(text, strategy, params, "cl100k_base")


@st.cache_data(show_spinner=False)
def column_html(text: str, i: int, label: str, hue: int) -> str:
    result = run(text, i)
    options = RenderOptions(label, "cl100k_base", None, annotations(result), hue=hue)
    return render_html(text, result.chunks, options)


def summary(result: StrategyRun) -> str:
    sizes = [len(c.text) for c in result.chunks]
    return f"{result.strategy}: {len(sizes)} chunks, median {statistics.median(sizes):.0f} characters"


def apply_python_selection() -> None:
    raw = st.session_state.get("python_select", "")
    column, _, index = raw.partition(":")
    if column.strip().isdigit() and index.strip().isdigit():
        st.session_state.selected[int(column)] = int(index)


st.set_page_config(page_title="docview demo", layout="wide")
big = st.query_params.get("big") == "1"
text = document_text(big)
st.session_state.setdefault("selected", {})
st.text_input("select from Python (column:index)", key="python_select", on_change=apply_python_selection)

views = []
for i in range(len(COLUMNS)):
    label, hue = f"col{i}", column_hue(i)
    result = run(text, i)
    views.append(
        ColumnView(label, column_html(text, i, label, hue), hue, summary(result), ribbon_cuts(result.chunks),
                   st.session_state.selected.get(i))
    )  # fmt: skip
present = set().union(*(marks_present(run(text, i).chunks, annotations(run(text, i)), ()) for i in range(len(COLUMNS))))
event = document_view(views, length=len(text), key="docview", height_px=520, legend=legend_html(present))
if event is not None and event.nonce != st.session_state.get("seen_nonce"):
    st.session_state.seen_nonce = event.nonce
    st.session_state.selected[event.column] = event.index
if event is not None:
    st.write(f"selected: column {event.column} chunk {event.index}")
else:
    st.write("selected: none")
