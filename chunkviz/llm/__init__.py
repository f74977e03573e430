"""LLM techniques on any OpenAI-compatible endpoint: one cached, retried client and its session.

Nothing here imports ``openai`` (the ``llm`` extra) until a call is made, and nothing needs an
endpoint until a technique runs: without one, :class:`LLMNotConfigured` says what to set.

Layer llm: the OpenAI-compatible client, its answer cache and session, and the LLM techniques
(contextual headers, queries, sections, answers). May import: chunkviz.core, chunkviz.text,
chunkviz.document, chunkviz.drawing, chunkviz.splitting (the layers below it).
"""

from chunkviz.llm.client import (
    OLLAMA_EXAMPLE,
    OPENAI_EXAMPLE,
    CallEstimate,
    CallStats,
    LLMClient,
    LLMError,
    LLMNotConfigured,
    LLMPackageMissing,
    LLMSettings,
    LLMSettingsError,
    Prompt,
)
from chunkviz.llm.session import LLMSession, active_session, use_llm

__all__ = [
    "CallEstimate",
    "CallStats",
    "LLMClient",
    "LLMError",
    "LLMNotConfigured",
    "LLMPackageMissing",
    "LLMSession",
    "LLMSettings",
    "LLMSettingsError",
    "OLLAMA_EXAMPLE",
    "OPENAI_EXAMPLE",
    "Prompt",
    "active_session",
    "use_llm",
]
