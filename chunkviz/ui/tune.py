"""The app's *Tune* view: the tuning panel of a column whose strategy declares a tuning analysis
(:class:`~chunkviz.strategies.base.TuningAnalysis`): its control beside its plot, the chunks right
below; moving the control sets the sidebar's parameter (and reruns the columns fragment, not the page).
A column whose strategy explains itself without a tuning analysis shows its explanation's caption
and figures there instead, its chunks right below (its parameters are set in the sidebar)."""

from __future__ import annotations

from typing import Any, Callable

import streamlit as st

from chunkviz.diagnostics.compare import flag_summary
from chunkviz.document import Document
from chunkviz.semantic.embeddings import canonical_model
from chunkviz.strategies.base import get_strategy, registered
from chunkviz.ui.cached import cached_explanation, cached_html
from chunkviz.ui.columns import Column, run_columns
from chunkviz.ui.docview import ColumnView, document_view, ribbon_cuts
from chunkviz.ui.embedmodel import (
    CURVE_MODELS,  # the models the curve is offered with (the column's own, if another, too)
)
from chunkviz.ui.reruns import rerun_columns, rerun_page
from chunkviz.ui.widgets import widget_key


def open_tuning(view: str, label: str) -> None:
    """Open the Tune view (named ``view`` in the view switch) on the column ``label`` (a
    callback: the view switch is the page's, so the page reruns)."""
    st.session_state["view"] = view
    st.session_state["tune_pick"] = label
    rerun_page()


def add_tunable_column(strategy: str, max_columns: int, sample: str | None) -> None:
    """A column of ``strategy`` after the others (in place of the last one when there are
    ``max_columns``), and the sample document ``sample`` if given (a callback: the page reruns)."""
    count = int(st.session_state.get("n_columns", 1))
    index = min(count, max_columns - 1)
    st.session_state["n_columns"] = index + 1
    st.session_state[f"col{index}.strategy"] = strategy
    if sample is not None:
        st.session_state["sample"] = sample
    rerun_page()


def offer_a_tunable_column(max_columns: int, demo_sample: str | None) -> None:
    """No column has a tuning panel: say so, with a button that adds one (and opens
    ``demo_sample``, a document that shows the strategy's point, when given)."""
    names = [s.name for s in registered() if s.tuning is not None]
    if not names:
        st.info("No strategy declares a tuning panel.")
        return
    st.info(
        f"No column uses the {' or '.join(names)} strategy. Choose {' or '.join(repr(n) for n in names)} "
        "for a column in the sidebar to tune its threshold here, or add one:"
    )
    for name in names:
        where = f" on the sample {demo_sample}" if demo_sample else ""
        st.button(
            f"Add a {name} column{where}",
            key=f"tune.add.{name}",
            type="primary",
            on_click=add_tunable_column,
            args=(name, max_columns, demo_sample),
        )


def show_tune(columns: list[Column], document: Document, max_columns: int, demo_sample: str | None = None) -> None:
    """A column's tuning panel (any strategy that declares a tuning analysis: its control beside
    its plot), its chunks right below. With no such column: a button that adds one (on
    ``demo_sample`` if given: the app passes it on its default sample)."""
    from chunkviz.ui.tuning import tuning_panel  # noqa: PLC0415

    tunable = [c for c in columns if get_strategy(c.config.strategy).tuning is not None]
    tunable += [c for c in columns if c not in tunable and get_strategy(c.config.strategy).explain is not None]
    if not tunable:
        offer_a_tunable_column(max_columns, demo_sample)
        return
    if len(tunable) > 1:
        labels = {c.label: c for c in tunable}
        if st.session_state.get("tune_pick") not in labels:  # a column that changed strategy
            st.session_state.pop("tune_pick", None)
        chosen = st.radio("Column", list(labels), key="tune_pick", horizontal=True)
        column = labels[chosen]
    else:
        column = tunable[0]
    run_columns([column], document)
    if column.run is None:
        st.error(column.error or "not run")
        return
    explanation = cached_explanation(document, column.chunking)
    html = cached_html(document, column.run_key, column.key, column.hue)
    spec = get_strategy(column.config.strategy)
    tuning = spec.tuning
    if tuning is None:
        show_explanation(column, explanation, html, len(document.text))
        return
    model_switch(column, explanation)
    widget = widget_key(column.key, spec.name, tuning.parameter(spec.make_params(column.config.params)))
    tuning_panel(
        tuning.data(explanation, column.run.chunks),
        html,
        key=f"tune.{column.key}",
        on_change=_copy_amount_to(widget, f"tune.{column.key}"),
    )
    st.caption(flag_summary(column.run))


def model_switch(column: Column, explanation: Any) -> None:
    """For a strategy that embeds with a ``model``: which model drew the curve, and a switch to
    another; switching sets the sidebar's model (the other parameters, the percentile too, stay),
    so the curve and the cuts are drawn again at once."""
    spec = get_strategy(column.config.strategy)
    params = spec.make_params(column.config.params)
    model = getattr(params, "model", None)
    if not isinstance(model, str):
        return
    current = canonical_model(model)
    key = f"tune.{column.key}.model"
    st.session_state[key] = current  # follows the sidebar when the model is changed there
    st.selectbox(
        "Embedding model: the curve is its similarities of neighbouring sentences",
        [*CURVE_MODELS, *([current] if current not in CURVE_MODELS else [])],
        key=key,
        format_func=lambda name: CURVE_MODELS.get(name, name),
        on_change=_copy_model_to(widget_key(column.key, spec.name, "model"), key),
    )
    drawn = getattr(getattr(explanation, "analysis", None), "model", current)
    st.caption(f"Curve drawn by **{drawn}**: switch the model to see how much the cuts depend on it.")


def _copy_model_to(widget: str, key: str) -> Callable[[], None]:
    """A callback that puts the chosen model into the sidebar's control and reruns the columns."""

    def copy() -> None:
        st.session_state[widget] = st.session_state.get(key)
        rerun_columns()

    return copy


def show_explanation(column: Column, explanation: Any, html: str, length: int) -> None:
    """A strategy's explanation without a tuning analysis: its caption and figures, its chunks below."""
    run = column.run
    assert run is not None
    st.caption(explanation.summary())
    for item in explanation.figures(run.chunks):
        if item.caption:
            st.caption(item.caption)
        st.plotly_chart(item.figure, key=f"tune.{column.key}.{item.name}")
    view = ColumnView(column.label, html, column.hue, flag_summary(run), ribbon_cuts(run.chunks))
    document_view([view], length=length, key=f"tune.{column.key}.docview", sync=False)


def _copy_amount_to(widget: str, component_key: str) -> Callable[[], None]:
    """A callback that puts the panel's amount into the sidebar control and reruns the columns
    fragment: the control is drawn again with it (the browser then holds the new value too), and
    the column and the panel are cut again."""

    def copy() -> None:
        state = st.session_state.get(component_key) or {}
        amount = state.get("amount") if isinstance(state, dict) else getattr(state, "amount", None)
        if isinstance(amount, (int, float)):
            st.session_state[widget] = float(amount)
            rerun_columns()

    return copy
