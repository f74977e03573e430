"""The app's LLM endpoint: sidebar controls, the session a run calls the model in, and the
confirmation a run that would make calls waits for.

The endpoint's base URL and model come from the environment (``OPENAI_BASE_URL``,
``CHUNKVIZ_LLM_MODEL``) and may be changed in the sidebar; the API key only ever comes from the
environment (``OPENAI_API_KEY``): it is never a control, never shown, never in the share URL.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator

import streamlit as st

from chunkviz.core.errors import ChunkvizError
from chunkviz.llm.client import (
    ENV_API_KEY,
    ENV_BASE_URL,
    ENV_MODEL,
    OLLAMA_EXAMPLE,
    OPENAI_EXAMPLE,
    CallEstimate,
    LLMSettings,
)
from chunkviz.llm.session import LLMSession, use_llm

BASE_URL_KEY = "llm.base_url"
MODEL_KEY = "llm.model"
CONFIRMED_KEY = "llm.confirmed"  # the estimates the user agreed to pay for


def endpoint_controls() -> LLMSettings:
    """The sidebar's "LLM endpoint" section; returns the settings runs use."""
    env = LLMSettings.from_env()
    sidebar = st.sidebar
    sidebar.header("LLM endpoint")
    st.session_state.setdefault(BASE_URL_KEY, env.base_url or "")
    st.session_state.setdefault(MODEL_KEY, env.model or "")
    sidebar.text_input(
        "Base URL (OpenAI-compatible)",
        key=BASE_URL_KEY,
        placeholder="http://localhost:11434/v1",
        help=f"Any chat-completions server: OpenAI (leave empty, set {ENV_API_KEY}), Ollama, llama.cpp, vLLM. Default: ${ENV_BASE_URL}.",
    )
    sidebar.text_input(
        "Model",
        key=MODEL_KEY,
        placeholder="llama3.1",
        help=f"The model's name at that endpoint. Default: ${ENV_MODEL}.",
    )
    settings = LLMSettings.from_env(
        base_url=st.session_state[BASE_URL_KEY].strip(), model=st.session_state[MODEL_KEY].strip()
    )
    sidebar.caption(endpoint_status(settings))
    return settings


def endpoint_status(settings: LLMSettings) -> str:
    """One line: which endpoint the LLM techniques call, or what to set (no key shown, ever)."""
    if settings.configured:
        key = "API key set in the environment" if settings.api_key else f"no API key ({ENV_API_KEY} not set)"
        return f"LLM techniques call **{settings.model}** at `{settings.endpoint}` · {key}."
    return not_configured_help()


def not_configured_help() -> str:
    """What to set for the LLM techniques, with an Ollama and an OpenAI example."""
    return (
        "No LLM endpoint: the `llm` strategy and the LLM techniques need one; everything else works without. "
        f"Fill in the base URL and model above, or start the app with `{OLLAMA_EXAMPLE}` (Ollama, after "
        f"`ollama pull llama3.1`) or `{OPENAI_EXAMPLE}` (OpenAI)."
    )


def endpoint_key(settings: LLMSettings) -> tuple[tuple[str, Any], ...]:
    """The settings as a cache key (no API key: only whether one is set)."""
    return tuple(sorted(settings.public().items()))


@contextlib.contextmanager
def llm_session(settings: LLMSettings, progress: Callable[[int, int], None] | None = None) -> Iterator[LLMSession]:
    """Run the block with ``settings`` as the active endpoint."""
    with use_llm(settings, progress=progress) as session:
        yield session


def estimate_words(estimate: CallEstimate, settings: LLMSettings) -> str:
    """e.g. "3 calls (about 12,400 input tokens) to llama3.1 at http://…; 1 answer cached"."""
    to_make = estimate.calls  # the calls still to make (cached answers are not among them)
    text = f"{to_make:,} call{'' if to_make == 1 else 's'} (about {estimate.input_tokens:,} input tokens) to {settings.model} at {settings.endpoint}"
    if estimate.cached:
        text += f"; {estimate.cached:,} answer{'' if estimate.cached == 1 else 's'} already cached"
    return text


def confirmed(what: str, estimate: CallEstimate, settings: LLMSettings, key: str) -> bool:
    """Whether a run that would make calls may go ahead: at once when every answer is cached,
    else once the user clicked the button that names the calls and tokens it costs."""
    if estimate.calls == 0:
        return True
    token = (what, estimate.calls, estimate.input_tokens, endpoint_key(settings))
    agreed: set[tuple[Any, ...]] = st.session_state.setdefault(CONFIRMED_KEY, set())
    if token in agreed:
        return True
    st.info(f"{what} will make {estimate_words(estimate, settings)}.")
    if st.button("Call the model", key=f"{key}.llm_go", type="primary"):
        agreed.add(token)
        st.rerun()  # redraw without this prompt; the run then goes ahead
    return False


def calls_caption(session: LLMSession) -> str | None:
    """After a run: calls made vs answers served from the cache (None when nothing was asked)."""
    if not session.used:
        return None
    stats = session.stats
    if not (stats.made or stats.cached or stats.failed):
        return None
    return f"model calls: {stats.summary()}."


def safe_estimate(estimator: Callable[[], CallEstimate]) -> tuple[CallEstimate | None, str | None]:
    """An estimate, or the message that says why there is none (e.g. no endpoint)."""
    try:
        return estimator(), None
    except ChunkvizError as exc:
        return None, str(exc)


__all__ = [
    "calls_caption",
    "endpoint_key",
    "confirmed",
    "endpoint_controls",
    "endpoint_status",
    "estimate_words",
    "llm_session",
    "not_configured_help",
    "safe_estimate",
]
