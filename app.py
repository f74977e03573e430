"""chunkviz — a thin Streamlit page: pick a document and a strategy, see the chunks.

All chunking happens in the ``chunkviz`` package; this file only wires widgets to cached calls.
Run it with ``./dev app [FILE]`` (FILE, if given, is added to the document choices and selected).
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

try:
    import chunkviz
except Exception as exc:  # the package may be mid-change; show why instead of crashing
    chunkviz = None
    IMPORT_ERROR: Exception | None = exc
else:
    IMPORT_ERROR = None

ROOT = Path(__file__).resolve().parent
SAMPLE_DIR = ROOT / "sample_docs"
DEFAULT_DOCUMENT = "api_guide.md"
DEFAULT_STRATEGY = "recursive"
PREVIEW_CHARS = 80


def document_choices() -> tuple[dict[str, Path], str]:
    """Sample documents by file name (plus a file given on the command line) and the one to show first."""
    choices = {
        p.name: p
        for p in sorted(SAMPLE_DIR.iterdir())
        if p.is_file() and p.name != "README.md" and not p.name.startswith(".")
    }
    first = DEFAULT_DOCUMENT if DEFAULT_DOCUMENT in choices else next(iter(choices), "")
    if len(sys.argv) > 1 and Path(sys.argv[1]).is_file():
        given = Path(sys.argv[1]).resolve()
        if given.parent == SAMPLE_DIR and given.name in choices:
            first = given.name
        else:
            first = str(given)
            choices = {first: given, **choices}
    return choices, first


@st.cache_data(show_spinner=False)
def read_document(path: str, mtime: float) -> str:
    """The file's exact text (line endings kept as they are; ``mtime`` keys the cache)."""
    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        return handle.read()


@st.cache_data(show_spinner="Listing strategies…")
def list_strategies() -> list[dict]:
    return chunkviz.strategies()


@st.cache_data(show_spinner="Chunking…")
def run_chunk(text: str, strategy: str) -> list:
    return chunkviz.chunk(text, strategy)


def preview(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1] + "…"


st.set_page_config(page_title="chunkviz", layout="wide")
st.title("chunkviz")
st.caption("See exactly how a chunking strategy cuts a document: every chunk is a span of the source text.")

if IMPORT_ERROR is not None:
    st.error(f"chunkviz could not be imported: {type(IMPORT_ERROR).__name__}: {IMPORT_ERROR}")
    st.stop()
try:
    strategies = list_strategies()
except Exception as exc:
    st.error(f"chunkviz could not list its strategies: {type(exc).__name__}: {exc}")
    st.stop()

documents, first_document = document_choices()
if not documents:
    st.error(f"no documents found in {SAMPLE_DIR}")
    st.stop()
document_names = list(documents)
strategy_names = [s["name"] for s in strategies]
if not strategy_names:
    st.error("chunkviz has no registered strategies")
    st.stop()

left, right = st.columns(2)
with left:
    default_doc = document_names.index(first_document)
    document_name = st.selectbox("Document", document_names, index=default_doc, key="document")
with right:
    default_strategy = strategy_names.index(DEFAULT_STRATEGY) if DEFAULT_STRATEGY in strategy_names else 0
    strategy_name = st.selectbox("Strategy", strategy_names, index=default_strategy, key="strategy")
    st.caption(next(s["description"] for s in strategies if s["name"] == strategy_name))

path = documents[document_name]
text = read_document(str(path), path.stat().st_mtime)

try:
    chunks = run_chunk(text, strategy_name)
except Exception as exc:
    st.error(f"{strategy_name} failed on {document_name}: {type(exc).__name__}: {exc}")
    st.stop()

st.write(f"**{len(chunks)} chunks** from {len(text):,} characters.")
st.dataframe(
    [
        {
            "index": c.index,
            "start": c.start,
            "end": c.end,
            "reason": c.reason,
            "text": preview(c.text),
        }
        for c in chunks
    ],
    hide_index=True,
    key="chunks",
)
