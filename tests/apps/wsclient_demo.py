"""A tiny page for tests/test_wsclient.py: one widget of each kind the websocket client sets, a
line that echoes every value (so a test reads what the script saw), a fragment with its own
widget and run counter, an expander drawn only while open, an error box on demand, a button that raises and a checkbox that makes
the run hang until another session clicks "Release" (the client's timeout is what the test checks)."""

import threading

import streamlit as st

st.session_state.setdefault("full_runs", 0)
st.session_state["full_runs"] += 1
st.title("wsclient demo")
size = st.number_input("Size", min_value=1, max_value=1000, value=10, key="size")
ratio = st.number_input("Ratio", min_value=0.0, max_value=1.0, value=0.5, step=0.1, key="ratio")
colour = st.selectbox("Colour", ["red", "green", "blue"], key="colour")
level = st.slider("Level", 0, 100, 30, key="level")
name = st.text_input("Name", "ada", key="name")
flag = st.checkbox("Flag", key="flag")
mode = st.segmented_control("Mode", ["one", "two", "three"], default="one", key="mode")
shape = st.radio("Shape", ["square", "circle"], key="shape")
with st.sidebar:
    note = st.text_area("Note", "", key="note")
    unkeyed = st.number_input("Unkeyed number", value=7)
if st.query_params.get("greet"):
    st.markdown(f"greeting: {st.query_params['greet']}")
st.markdown(
    f"values: size={size!r} ratio={ratio!r} colour={colour!r} level={level!r} name={name!r} flag={flag!r} "
    f"mode={mode!r} shape={shape!r} note={note!r} unkeyed={unkeyed!r} full_runs={st.session_state['full_runs']}"
)
details = st.expander("Details", key="details", on_change="rerun")  # an expander with state: a widget
if details.open:
    details.markdown("details: shown while open")
if colour == "blue":
    st.error("blue is not allowed")


@st.fragment
def counter() -> None:
    """Its own widget: a change reruns only this function."""
    st.session_state.setdefault("fragment_runs", 0)
    st.session_state["fragment_runs"] += 1
    step = st.number_input("Step", value=1, key="step")
    st.markdown(f"fragment: step={step!r} fragment_runs={st.session_state['fragment_runs']}")


counter()


@st.cache_resource
def gate() -> threading.Event:
    """Shared by every session: a hanging run waits for another session's "Release" (20 s at most)."""
    return threading.Event()


if st.sidebar.button("Release", key="release"):
    gate().set()
if st.sidebar.checkbox("Hang", key="hang"):
    gate().wait(20)
if st.button("Raise", key="boom"):
    raise RuntimeError("the demo button raises")
