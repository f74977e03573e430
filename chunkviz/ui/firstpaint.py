"""A new visitor's first screen: the default page's document view, before the page's controls.

A new visitor's browser spends most of its first seconds drawing Streamlit's widgets (the
sidebar's controls, the view switch, the playground's inputs: each a lazily loaded script and
React tree), not waiting for the server (a new session's run is about 0.05 s of CPU). So the
first run of a session with nothing asked in its URL draws the page without a widget: its header,
the document's line and the Compare view's document view of the default page (the first sample,
or ``./dev app FILE``'s file, cut by the default columns with their default settings: the very
runs, and cache entries, of the whole page). The view sets its state ``painted`` once it is on
screen; that reruns its fragment, which reruns the whole page instead (as any fragment rerun with
the first screen's arguments does: a click in its view, a window request), and every later run of
the session draws the whole page. The
first screen has the whole page's containers in the same places, so the browser keeps the drawn
view and only adds what was missing. A URL with a shared configuration skips the first paint (the
whole page reads it); so does a document that cannot be read or is empty (the whole page says why).

bench/bench_app.py --browser measures the new visitor against a bare Streamlit page.
"""

from __future__ import annotations

import streamlit as st

from chunkviz.core.deadline import time_limit
from chunkviz.core.errors import ChunkvizError
from chunkviz.diagnostics.compare import ColumnConfig
from chunkviz.document import Document, is_blank
from chunkviz.ui.columns import run_time_limit_s
from chunkviz.ui.sidebar import Page, first_document

#: Session state: the session's first run is over (every run from then on draws the whole page).
FIRST_RUN_DONE = "_first_run_done"
#: Session state: the first screen is on its way to the browser; a fragment rerun with its
#: arguments (a click or a window request in its view, a fragment run that cut the whole page's
#: run short) reruns the whole page instead.
FIRST_SCREEN_SENT = "_first_screen_sent"
#: What the sidebar says while the controls are on their way.
LOADING_CONTROLS = "Loading the controls…"


def first_paint_due() -> bool:
    """Whether this run is a new visitor's first on the default page (nothing in the URL); every
    later run of the session says no."""
    if st.session_state.get(FIRST_RUN_DONE):
        return False
    st.session_state[FIRST_RUN_DONE] = True
    return not st.query_params.to_dict()


def first_paint_document(page: Page) -> tuple[Document, str] | None:
    """The document a new visitor sees first and its shown name; None when it cannot be read or is
    empty (the whole page then shows why)."""
    try:
        with time_limit(run_time_limit_s(), "reading the document"):
            document, name = first_document(page)
    except (ChunkvizError, OSError):
        return None
    return (document, name) if not is_blank(document.text) else None


def default_configs(page: Page) -> list[ColumnConfig]:
    """The page's default columns as a new visitor's controls give them: no parameter differs
    from its default, sizes in the page tokenizer's tokens."""
    return [ColumnConfig(name) for name in page.default_columns]


def first_screen_sent() -> None:
    """Call at the end of the first screen's run."""
    st.session_state[FIRST_SCREEN_SENT] = True


def leave_first_screen() -> None:
    """In a fragment drawn for the first screen: once that run is over, rerun the whole page (the
    fragment's stored arguments are the first screen's: no control, default columns)."""
    if st.session_state.get(FIRST_SCREEN_SENT):
        st.rerun()
