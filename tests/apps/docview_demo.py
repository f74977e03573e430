"""A tiny Streamlit app around the document view component (for tests/test_browser_docview.py).

Chunks the field station handbook with three strategies, shows them in ``document_view`` and
writes the selection. ``?big=1`` repeats the sample to 300,000+ characters (performance);
the text input "select from Python" takes ``column:index`` and selects that chunk from Python.
``?overlay=1`` shows the retrieval overlay: the third column is a parent_child chunking, every
column gets three hits (rank 1: the chunk holding REFERENCE; in the third column its parent,
with the child that holds it as the match), REFERENCE is the expected answer, and a text
selection comes back as ``answer: start-end``. ``?crlf=1`` is the overlay on the sample with
CR LF line ends and an emoji first (the browser's DOM has neither the CRs nor one unit per
character: offsets must still be the document's). ``?far=1`` (with ``?big=1&overlay=1``) takes the
reference's last occurrence, so the hits and the expected answer lie near the document's end.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import streamlit as st

from chunkviz.core.types import Chunk
from chunkviz.diagnostics.compare import StrategyRun, chunk_annotations, run_strategy
from chunkviz.drawing.palette import column_hue
from chunkviz.drawing.render import RenderOptions, legend_html, marks_present, render_html
from chunkviz.evaluation.playground import Hit
from chunkviz.ui.docview import ColumnView, answer_from_state, document_view, ribbon_cuts

SAMPLE = Path(__file__).resolve().parents[2] / "chunkviz/sample_docs" / "field_station_handbook.md"
COLUMNS = (
    ("fixed_tokens", {"chunk_size": 120, "overlap": 20}),
    ("recursive", {"chunk_size": 150, "overlap": 0}),
    ("sentences", {"max_tokens": 90, "overlap_sentences": 1}),
)
OVERLAY_COLUMNS = (*COLUMNS[:2], ("parent_child", {"parent_size": 300, "child_size": 80, "child_overlap": 0}))
BIG_CHARS = 300_000
REFERENCE = "a pressure transducer in a stilling well, or a radar sensor on a bracket over the water, for river level"
SCORES = (0.62, 0.48, 0.41)


@st.cache_data(show_spinner=False)
def document_text(big: bool, crlf: bool = False) -> str:
    text = SAMPLE.read_text(encoding="utf-8")
    if big:
        text = (text + "\n\n") * (BIG_CHARS // (len(text) + 2) + 1)
    if crlf:
        text = ("\U0001f327\ufe0f " + text).replace("\n", "\r\n")
    return text


@st.cache_resource(show_spinner=False)
def run(text: str, i: int, overlay: bool = False) -> StrategyRun:
    strategy, params = (OVERLAY_COLUMNS if overlay else COLUMNS)[i]
    return run_strategy(text, strategy, params, "cl100k_base")


@st.cache_data(show_spinner=False)
def column_html(text: str, i: int, label: str, hue: int, overlay: bool = False) -> str:
    result = run(text, i, overlay)
    options = RenderOptions(label, "cl100k_base", None, chunk_annotations(result), hue=hue)
    return render_html(text, result.chunks, options)


def summary(result: StrategyRun) -> str:
    sizes = [len(c.text) for c in result.chunks]
    return f"{result.strategy}: {len(sizes)} chunks, median {statistics.median(sizes):.0f} characters"


def demo_hits(chunks: tuple[Chunk, ...], reference: tuple[int, int]) -> list[Hit]:
    """Rank 1: the leaf chunk holding the reference's start (returned as its parent when it has
    one); ranks 2 and 3: chunks further on."""
    parents = {c.parent for c in chunks if c.parent is not None}
    leaves = [c for c in chunks if c.index not in parents]
    first = next(k for k, c in enumerate(leaves) if c.start <= reference[0] < c.end)
    picked = [leaves[first], leaves[(first + 9) % len(leaves)], leaves[(first + 17) % len(leaves)]]
    hits = []
    for rank, (leaf, score) in enumerate(zip(picked, SCORES), 1):
        returned = leaf.parent if leaf.parent is not None else leaf.index
        hits.append(Hit(returned, rank, score, leaf.index if leaf.parent is not None else None))
    return hits


def apply_python_selection() -> None:
    raw = st.session_state.get("python_select", "")
    column, _, index = raw.partition(":")
    if column.strip().isdigit() and index.strip().isdigit():
        st.session_state.selected[int(column)] = int(index)


st.set_page_config(page_title="docview demo", layout="wide")
big = st.query_params.get("big") == "1"
crlf = st.query_params.get("crlf") == "1"
overlay = st.query_params.get("overlay") == "1" or crlf
far = st.query_params.get("far") == "1"
text = document_text(big, crlf)
found = text.rindex(REFERENCE) if far else text.index(REFERENCE)
reference = (found, found + len(REFERENCE)) if overlay else None
st.session_state.setdefault("selected", {})
st.text_input("select from Python (column:index)", key="python_select", on_change=apply_python_selection)

views = []
for i in range(len(COLUMNS)):
    label, hue = f"col{i}", column_hue(i)
    result = run(text, i, overlay)
    views.append(
        ColumnView(label, column_html(text, i, label, hue, overlay), hue, summary(result), ribbon_cuts(result.chunks),
                   st.session_state.selected.get(i), demo_hits(result.chunks, reference) if reference else ())
    )  # fmt: skip
present = set().union(
    *(
        marks_present(run(text, i, overlay).chunks, chunk_annotations(run(text, i, overlay)), ())
        for i in range(len(COLUMNS))
    )
)
event = document_view(views, length=len(text), key="docview", height_px=520, legend=legend_html(present),
                      references=[reference] if reference else (), answer_selection=overlay)  # fmt: skip
if event is not None and event.nonce != st.session_state.get("seen_nonce"):
    st.session_state.seen_nonce = event.nonce
    st.session_state.selected[event.column] = event.index
if event is not None:
    st.write(f"selected: column {event.column} chunk {event.index}")
else:
    st.write("selected: none")
answer = answer_from_state(st.session_state.get("docview"))
if overlay:
    st.write(f"answer: {answer.start}-{answer.end}" if answer else "answer: none")
st.session_state.runs = st.session_state.get("runs", 0) + 1
st.write(f"script runs: {st.session_state.runs}")  # the tests wait for a rerun by this count
