"""What reruns when a person moves something: the page's two fragments (``st.fragment``).

- The page (``app.py``) reruns whole only for what every part depends on: the document, the
  tokenizer, the flags, the enrichment, the model endpoint and the view switch.
- :data:`COLUMNS`: the column controls (drawn into the sidebar), the view and "Share and
  reproduce". A column's strategy or parameter reruns it: those columns and what shows them.
- :data:`VIEW`, inside it: the view chosen (Compare, Tune or Evaluate). A query, a click in the
  document view, a picked table row, an opened section, the Tune panel's control rerun only it.

A callback that changes what a wider part draws asks for that part: :func:`rerun_columns` after
setting a column's control (the Tune panel's threshold: the sidebar control shows the new value,
because the columns fragment draws it again), :func:`rerun_page` after switching the view or the
document.
"""

from __future__ import annotations

from typing import NoReturn

import streamlit as st

#: The key of the fragment holding the column controls, the view and the share section.
COLUMNS = "columns"
#: The key of the fragment holding the chosen view.
VIEW = "view"


def rerun_columns() -> NoReturn:
    """From a widget callback: rerun the columns fragment (controls, view, share), not the page."""
    st.rerun(COLUMNS)


def rerun_page() -> NoReturn:
    """From a widget callback or a run: rerun the whole page (a view switch, another document)."""
    st.rerun()
