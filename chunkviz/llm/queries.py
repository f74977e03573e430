"""Query-time techniques (seed 000 §13.7.3-4): query rewriting and HyDE.

Both replace what is *embedded* for a question, never the question itself:

- ``rewrite``: the model rewrites the query in the vocabulary and style of the documents it
  searches, keeping its meaning (one short line);
- ``hyde``: the model writes a short hypothetical passage that answers the question (Hypothetical
  Document Embeddings, Gao et al. 2023); its embedding sits closer to the passages that really
  answer than the question's does.
- ``raw``: the query as typed (no call).

One call per distinct query and mode, cached (prompt name and version, model, query): a second
run, or the same question in another configuration, makes no call.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from chunkviz.core.types import Progress
from chunkviz.llm.client import CallEstimate, LLMClient, Prompt

QUERY_MODES: tuple[str, ...] = ("raw", "rewrite", "hyde")
#: How each mode is named in tables and labels.
QUERY_MODE_LABELS = {"raw": "raw query", "rewrite": "rewritten query", "hyde": "hypothetical passage (HyDE)"}

REWRITE_PROMPT = Prompt(
    name="query_rewrite",
    version=1,
    system="You rewrite search queries for a document retrieval system. You answer with the rewritten query only.",
    template=(
        "Rewrite the following search query so that it matches the terminology and writing style of the "
        "documents being searched, while preserving its original meaning. Keep it one sentence.\n\n"
        "Query: {query}\n\n"
        "Return only the rewritten query."
    ),
)
HYDE_PROMPT = Prompt(
    name="hyde",
    version=1,
    system="You write short factual passages in the style of reference documentation. You answer with the passage only.",
    template=(
        "Write a brief passage (2-4 sentences) that answers this question, as the document that answers it "
        "would state it. If you do not know the facts, write a plausible passage anyway: it is used only "
        "to search for the real one.\n\n"
        "Question: {query}\n\n"
        "Return only the passage."
    ),
)
PROMPTS = {"rewrite": REWRITE_PROMPT, "hyde": HYDE_PROMPT}


def check_query_mode(mode: str) -> str:
    """``mode`` itself, or a ValueError naming the choices."""
    if mode not in QUERY_MODES:
        raise ValueError(f"query mode must be one of {', '.join(QUERY_MODES)}, got {mode!r}")
    return mode


_LABEL = re.compile(r"^\s*(?:rewritten query|query|passage|hypothetical passage|answer|summary)\s*:\s*", re.IGNORECASE)
_QUOTES = ('"', "'", "“", "”", "«", "»")


def clean_answer(answer: str) -> str:
    """The text to embed from the model's answer: a leading ``Rewritten query:`` / ``Passage:`` / ``Summary:``
    label and quotes around the whole answer dropped, whitespace collapsed."""
    text = " ".join(_LABEL.sub("", answer).split())
    while len(text) >= 2 and text[0] in _QUOTES and text[-1] in _QUOTES:
        text = text[1:-1].strip()
    return text


def _inputs(queries: Sequence[str]) -> list[dict[str, str]]:
    return [{"query": " ".join(q.split())} for q in queries]


def estimate_queries(client: LLMClient, queries: Sequence[str], mode: str) -> CallEstimate:
    """Calls and input tokens of :func:`query_texts` (none for ``raw``)."""
    if check_query_mode(mode) == "raw":
        return CallEstimate(0, 0, 0)
    return client.estimate(PROMPTS[mode], _inputs(queries))


def query_texts(
    client: LLMClient | None, queries: Sequence[str], mode: str, progress: Progress | None = None
) -> list[str]:
    """What is embedded for each query in ``mode``: the query itself (``raw``; no client
    needed), its rewrite, or a hypothetical passage answering it."""
    if check_query_mode(mode) == "raw":
        return list(queries)
    if client is None:
        raise ValueError(f"query mode {mode!r} needs an LLM client")
    answers = client.complete_many(PROMPTS[mode], _inputs(queries), progress, accept=lambda a: bool(clean_answer(a)))
    return [clean_answer(a) for a in answers]


def rewrite_query(client: LLMClient, query: str) -> str:
    """The query rewritten in the documents' terms (cached)."""
    return query_texts(client, [query], "rewrite")[0]


def hypothetical_passage(client: LLMClient, query: str) -> str:
    """A short passage that would answer the query (cached)."""
    return query_texts(client, [query], "hyde")[0]


__all__ = [
    "HYDE_PROMPT",
    "PROMPTS",
    "QUERY_MODES",
    "QUERY_MODE_LABELS",
    "REWRITE_PROMPT",
    "check_query_mode",
    "clean_answer",
    "estimate_queries",
    "hypothetical_passage",
    "query_texts",
    "rewrite_query",
]
