"""The semantic tuning panel: threshold control, similarity plot and highlighted text in one view.

A Streamlit components v2 component (inline HTML/CSS/JS, no iframe). Moving the control moves
the threshold line and the breakpoint marks at once in the browser (from the step table of
:func:`chunkviz.semantic.tuning.tuning_data`); ~150 ms after the last move (a drag or a run of key
presses is one update) it sets the component state ``amount``, Python reruns and sends the true
chunks, plot and text. Read the amount *before* computing with :func:`pending_amount`::

    amount = pending_amount("tuning", default=95.0)
    explanation = semantic_chunking(text, amount=amount)
    html = render_html(text, explanation.chunks, RenderOptions(strategy="semantic"))
    tuning_panel(tuning_data(explanation), html, key="tuning")
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from chunkviz.ui import component

NAME = "chunkviz_tuning"


def panel_payload(
    data: Mapping[str, Any], html: str, *, plot_height: int = 240, text_height: int = 460
) -> dict[str, Any]:
    """What the component receives (pure): the tuning data, the escaped HTML of the text, sizes; its shape,
    field by field, is ``TuningPayload`` in ``chunkviz/ui/payload.d.ts`` (what tuning.js is checked against)."""
    return {"tuning": dict(data), "html": html, "plot_height": plot_height, "text_height": text_height}


def component_css() -> str:
    """The chunk view's CSS plus the panel's (the panel renders inside a shadow root)."""
    return component.component_css("tuning")


def _component() -> Callable[..., Any]:
    return component.inline_component(NAME, "tuning")


def _ignore() -> None:
    """State callbacks must exist for the state keys to be accepted; the rerun is enough."""


def pending_amount(key: str, default: float | None = None) -> float | None:
    """The amount the user last set in the panel ``key`` (before this run mounts it), else ``default``."""
    import streamlit as st

    state = st.session_state.get(key)
    value = state.get("amount") if isinstance(state, Mapping) else None
    return float(value) if isinstance(value, (int, float)) else default


def tuning_panel(
    data: Mapping[str, Any],
    html: str,
    *,
    key: str,
    on_change: Callable[[], None] | None = None,
    on_select: Callable[[], None] | None = None,
    plot_height: int = 240,
    text_height: int = 460,
) -> float | None:
    """Mount the panel; returns the amount the user set (None until they move the control).

    ``data`` is :func:`chunkviz.semantic.tuning.tuning_data`; ``html`` is the escaped HTML of
    :func:`chunkviz.drawing.render.render_html` for the same chunks. A clicked point of the plot selects
    its chunk: read it with :func:`selected_chunk`.
    """
    result = _component()(
        key=key,
        data=panel_payload(data, html, plot_height=plot_height, text_height=text_height),
        on_amount_change=on_change or _ignore,
        on_selected_change=on_select or _ignore,
    )
    value = result.get("amount") if result is not None else None
    return float(value) if isinstance(value, (int, float)) else None


def selected_chunk(key: str) -> int | None:
    """The chunk index last selected by clicking a point of the panel ``key``."""
    import streamlit as st

    state = st.session_state.get(key)
    value = state.get("selected") if isinstance(state, Mapping) else None
    return int(value) if isinstance(value, int) else None
