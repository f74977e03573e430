"""The Streamlit app's views and components; ``app.py`` only wires them together.

One module per view: :mod:`~chunkviz.ui.compare` (with :mod:`~chunkviz.ui.columns`, running the
columns, and :mod:`~chunkviz.ui.playground`), :mod:`~chunkviz.ui.tune`, :mod:`~chunkviz.ui.evaluation`
(with :mod:`~chunkviz.ui.techniques`); the sidebar (:mod:`~chunkviz.ui.sidebar`,
:mod:`~chunkviz.ui.widgets`, :mod:`~chunkviz.ui.llm`), "Share and reproduce"
(:mod:`~chunkviz.ui.share`); every cached engine call in :mod:`~chunkviz.ui.cached`, keyed by
:mod:`~chunkviz.ui.keys`. The custom components (components v2: :mod:`~chunkviz.ui.docview`,
:mod:`~chunkviz.ui.tuning`) register on import.

Importing this package imports no Streamlit; import the module you need.

Layer ui: the Streamlit app only (its views, cached calls, components and their JS/CSS). May import:
chunkviz.core, chunkviz.text, chunkviz.document, chunkviz.drawing, chunkviz.splitting, chunkviz.llm,
chunkviz.semantic, chunkviz.strategies, chunkviz.api, chunkviz.diagnostics, chunkviz.evaluation,
chunkviz.formats, chunkviz.views (the layers below it).
"""


def markdown_literal(text: str) -> str:
    """``text`` shown literally by Streamlit's markdown (captions, st.markdown): whitespace runs
    become one space and every markdown character is escaped (document text, file names and
    questions are untrusted)."""
    return "".join("\\" + ch if ch in "\\`*_{}[]()#+-.!|<>$~:" else ch for ch in " ".join(text.split()))
