"""A tiny Streamlit app with the semantic tuning panel only (for the browser test and the bench).

Semantic chunking (the real offline MiniLM model) of ``CHUNKVIZ_DEMO_DOC`` (default: the sample
with the topic shifts; ``CHUNKVIZ_DEMO_TEXT_HEIGHT`` px of text box, default 460), the panel's amount kept in its component state (read before computing).
Run: ``streamlit run tests/apps/tuning_demo.py``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import streamlit as st

from chunkviz.drawing.render import RenderOptions, render_html
from chunkviz.semantic.explanation import semantic_chunking
from chunkviz.semantic.tuning import tuning_data
from chunkviz.ui.tuning import pending_amount, selected_chunk, tuning_panel

REPO = Path(__file__).resolve().parents[2]
DOC = Path(os.environ.get("CHUNKVIZ_DEMO_DOC", REPO / "chunkviz/sample_docs" / "topic_shifts.txt"))
KEY = "tuning"
TEXT_HEIGHT = int(os.environ.get("CHUNKVIZ_DEMO_TEXT_HEIGHT", "460"))

st.set_page_config(page_title="chunkviz tuning demo", layout="wide")


@st.cache_data(show_spinner=False)
def document_text(path: str) -> str:
    return Path(path).read_text(encoding="utf-8")


@st.cache_resource(show_spinner=False)
def explained(text: str, amount: float):  # noqa: ANN201 - a SemanticExplanation
    return semantic_chunking(text, amount=amount)


started = time.perf_counter()
text = document_text(str(DOC))
amount = pending_amount(KEY, default=95.0)
explanation = explained(text, amount)
selected = selected_chunk(KEY)
html = render_html(text, explanation.chunks, RenderOptions(strategy="semantic", selected=selected))
data = tuning_data(explanation)
st.markdown(f"**Semantic tuning** · `{DOC.name}` · {len(text):,} characters")
tuning_panel(data, html, key=KEY, text_height=TEXT_HEIGHT)
st.caption(f"server run {1000 * (time.perf_counter() - started):.0f} ms")
