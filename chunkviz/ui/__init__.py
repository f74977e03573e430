"""Streamlit custom components (components v2) of the app; each module registers one on import.

Importing this package imports no Streamlit; import the component module you need
(e.g. :mod:`chunkviz.ui.docview`).
"""


def markdown_literal(text: str) -> str:
    """``text`` shown literally by Streamlit's markdown (captions, st.markdown): whitespace runs
    become one space and every markdown character is escaped (document text, file names and
    questions are untrusted)."""
    return "".join("\\" + ch if ch in "\\`*_{}[]()#+-.!|<>$~:" else ch for ch in " ".join(text.split()))
