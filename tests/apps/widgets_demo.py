"""A tiny page for tests/test_widgets.py: one column's controls, the choice recorded in state."""

import streamlit as st

from chunkviz.strategies.base import get_strategy
from chunkviz.ui.widgets import column_controls

name = st.session_state.get("demo_strategy", "fixed_tokens")
tokenizer = st.session_state.get("demo_tokenizer", "cl100k_base")
with st.sidebar:
    choice = column_controls(
        "demo",
        get_strategy(name),
        st.session_state.get("demo_given"),
        tokenizer=tokenizer,
        given_tokenizer=st.session_state.get("demo_given_tokenizer"),
    )
st.session_state["choice"] = choice
