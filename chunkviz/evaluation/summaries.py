"""Summary indexing (seed 000 §13.9.3): a summary per section, searched in place of the section.

Broad questions ("what is this part about?") match a summary better than any detailed piece of
the section; the retriever then returns the whole section. The chunks of any one-level
chunking are the *sections* (use ``headings`` for Markdown sections, or ``paragraphs``,
``recursive``...). :func:`summary_index` returns them unchanged at level 0, followed by their
summaries at level 1, each summary's ``parent`` its section, following the parent_child
convention: a retriever searches the chunks without children (the summaries; a section that
got none is searched itself) and returns their parents (``returns_parents``). The summaries are
a level *above* the sections for navigation and a level below them in the chunk tree, because a
child's span lies inside its parent's.

Two kinds of summary:

- ``extractive`` (no endpoint needed): the ``sentences`` sentences of the section most central
  by embedding (cosine to the mean of the section's sentence vectors), each one summary chunk:
  an exact span of the text (``text == doc[start:end]``, whitespace trimmed), metadata
  ``summary: "extractive"``, ``centrality`` and ``summary_rank`` (1 = most central).
- ``llm``: the model writes 2-3 sentences per section (one call per section, cached). The
  summary chunk's span is its section and the summary is its ``added_text``; metadata
  ``embed_added_text: True`` says that only the added text is embedded (the summary, not the
  section again), ``summary: "llm"`` and ``summary_token_count``. A section longer than the
  model's context is shown from its start, shortened.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from chunkviz.core.errors import ChunkvizError
from chunkviz.core.types import Chunk, Progress
from chunkviz.core.vocabulary import Reason
from chunkviz.document.model import Document, as_document
from chunkviz.llm.client import CallEstimate, LLMClient, Prompt, count_tokens
from chunkviz.llm.contextual import DEFAULT_CONTEXT_TOKENS, chunk_for_prompt
from chunkviz.llm.reserves import PROSE_ANSWER_RESERVE
from chunkviz.semantic.embedcache import embed_texts
from chunkviz.semantic.embeddings import Encoder
from chunkviz.text.tokenizers import (
    DEFAULT_TOKENIZER,
    Tokenizer,
    get_tokenizer,
    surrogate_safe,
)

SUMMARY_MODES: tuple[str, ...] = ("extractive", "llm")
DEFAULT_SUMMARY_SENTENCES = 2
#: Metadata flag of a chunk whose ``added_text`` alone is embedded (an LLM summary).
EMBED_ADDED_TEXT = "embed_added_text"

SUMMARY_PROMPT = Prompt(
    name="summary_indexing",
    version=1,
    system="You write short summaries of document sections for a search index. You answer with the summary only.",
    template=(
        "Here is a section of a document{where}:\n<section>\n{section}\n</section>\n\n"
        "Summarize it in 2-3 sentences: what it covers and what a reader can find in it, using the "
        "section's own terms. Answer only with the summary, no preamble."
    ),
)


class SummaryIndexError(ChunkvizError, ValueError):
    """Summaries asked for a chunking they cannot sit on, or with invalid settings."""


def check_summary_mode(mode: str) -> str:
    if mode not in SUMMARY_MODES:
        raise SummaryIndexError(f"summaries must be one of {', '.join(SUMMARY_MODES)}, got {mode!r}")
    return mode


def embedding_text(chunk: Chunk) -> str:
    """What a retriever embeds for a chunk: ``added_text + text``, or only the added text of a
    chunk flagged ``embed_added_text`` (an LLM-written summary whose span is its section)."""
    return chunk.added_text if chunk.metadata.get(EMBED_ADDED_TEXT) else chunk.added_text + chunk.text


def _check_sections(sections: Sequence[Chunk]) -> None:
    deeper = [c for c in sections if c.parent is not None or c.level != 0]
    if deeper:
        raise SummaryIndexError(
            "summary indexing sits on a one-level chunking (its chunks are the sections); this chunking already "
            "has levels (e.g. parent_child): choose headings, paragraphs, recursive or another one-level strategy"
        )


def section_sentences(
    document: Document,
    start: int,
    end: int,
    sentences: Sequence[tuple[int, int]] | None = None,
) -> list[tuple[int, int]]:
    """The sentences of ``[start, end)`` as spans without whitespace at either end (a sentence
    the section cuts is clipped to it). ``sentences``: the document's trimmed sentences, when
    the caller has them (found by bisection: linear over many sections)."""
    text = document.text
    spans = document.structure.trimmed_sentences if sentences is None else sentences
    out = []
    for k in range(max(0, bisect.bisect_right(spans, (start, start)) - 1), len(spans)):
        a, b = spans[k]
        if b <= start:
            continue
        if a >= end:
            break
        a, b = max(a, start), min(b, end)
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if a < b:
            out.append((a, b))
    return out


def central_order(vectors: np.ndarray) -> list[tuple[int, float]]:
    """Rows by centrality, most central first: (row, cosine to the mean of the unit rows); ties
    keep the earlier row first."""
    v = np.asarray(vectors, dtype=np.float64)
    if len(v) == 0:
        return []
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    unit = v / np.where(norms == 0, 1, norms)
    centre = unit.mean(axis=0)
    size = np.linalg.norm(centre)
    scores = unit @ (centre / size) if size else np.zeros(len(unit))
    order = np.argsort(-scores, kind="stable")
    return [(int(i), float(scores[i])) for i in order]


def _summary_chunk(
    document: Document, start: int, end: int, parent: int, reason: Reason, added: str, metadata: dict
) -> Chunk:
    return Chunk.from_span(
        document.text,
        0,
        start,
        end,
        reason,
        boundary=document.structure.boundary_at(end),
        parent=parent,
        level=1,
        added_text=added,
        metadata=metadata,
    )


def extractive_summaries(
    document: Document,
    sections: Sequence[Chunk],
    sentences: int,
    model: str,
    encode: Encoder,
    progress: Progress | None = None,
) -> list[Chunk]:
    """Level-1 summary chunks: per section its ``sentences`` most central sentences (indexes unset)."""
    text = document.text
    sentences_of_text = list(document.structure.trimmed_sentences)
    per_section = [section_sentences(document, c.start, c.end, sentences_of_text) for c in sections]
    spans = [span for spans in per_section for span in spans]
    vectors = (
        embed_texts([surrogate_safe(text[a:b]) for a, b in spans], model, encode, progress, role="symmetric")
        if spans
        else np.zeros((0, 0))
    )
    out, row = [], 0
    for parent, spans_of in enumerate(per_section):
        block = vectors[row : row + len(spans_of)]
        row += len(spans_of)
        for rank, (i, score) in enumerate(central_order(block)[:sentences], start=1):
            a, b = spans_of[i]
            reason = Reason.END_OF_DOCUMENT if b == len(text) else Reason.UNIT_END
            meta = {"summary": "extractive", "centrality": round(score, 4), "summary_rank": rank}
            out.append(_summary_chunk(document, a, b, parent, reason, "", meta))
    return out


def summary_inputs(
    document: Document, sections: Sequence[Chunk], context_tokens: int = DEFAULT_CONTEXT_TOKENS
) -> list[tuple[int, dict[str, str]]]:
    """(section position, prompt inputs) of every non-blank section, the section shortened to fit."""
    room = (
        context_tokens - count_tokens(SUMMARY_PROMPT.messages({"where": "", "section": ""})) - PROSE_ANSWER_RESERVE - 32
    )
    if room < 128:
        raise SummaryIndexError(
            f"a model context of {context_tokens} tokens leaves no room for a section; give at least 1024"
        )
    out = []
    for i, c in enumerate(sections):
        if not c.text.strip():
            continue
        path = document.structure.heading_path_at(c.start + len(c.text) - len(c.text.lstrip()))
        where = f" (section: {' > '.join(path)})" if path else ""
        out.append(
            (i, {"where": surrogate_safe(where), "section": chunk_for_prompt(surrogate_safe(c.text.strip()), room)})
        )
    return out


def estimate_summaries(
    client: LLMClient, text: str | Document, sections: Sequence[Chunk], context_tokens: int = DEFAULT_CONTEXT_TOKENS
) -> CallEstimate:
    """Calls (one per non-blank section not cached yet) and input tokens of LLM summaries."""
    return client.estimate(
        SUMMARY_PROMPT, [inputs for _, inputs in summary_inputs(as_document(text), sections, context_tokens)]
    )


def llm_summaries(
    client: LLMClient,
    document: Document,
    sections: Sequence[Chunk],
    context_tokens: int = DEFAULT_CONTEXT_TOKENS,
    tokenizer: str | Tokenizer = DEFAULT_TOKENIZER,
    progress: Progress | None = None,
) -> list[Chunk]:
    """Level-1 summary chunks written by the model: span = the section, summary = added text."""
    from chunkviz.llm.queries import clean_answer

    planned = summary_inputs(document, sections, context_tokens)
    answers = client.complete_many(
        SUMMARY_PROMPT, [inputs for _, inputs in planned], progress, accept=lambda a: bool(clean_answer(a))
    )
    counter = get_tokenizer(tokenizer)
    out = []
    for (i, _), answer in zip(planned, answers):
        summary = clean_answer(answer)
        section = sections[i]
        meta = {"summary": "llm", EMBED_ADDED_TEXT: True, "summary_token_count": counter.count(summary)}
        out.append(_summary_chunk(document, section.start, section.end, i, Reason.PARENT_END, summary, meta))
    return out


def summary_index(
    text: str | Document,
    sections: Sequence[Chunk],
    *,
    mode: str = "extractive",
    sentences: int = DEFAULT_SUMMARY_SENTENCES,
    model: str | None = None,
    encode: Encoder | None = None,
    client: LLMClient | None = None,
    context_tokens: int = DEFAULT_CONTEXT_TOKENS,
    tokenizer: str | Tokenizer = DEFAULT_TOKENIZER,
    progress: Progress | None = None,
) -> list[Chunk]:
    """The sections (level 0, as given, re-indexed) then their summaries (level 1, ``parent``
    = their section), each level ordered by span: see the module docstring. ``model`` and
    ``encode`` embed the sentences of ``extractive`` summaries (default: the offline MiniLM);
    ``client`` writes ``llm`` ones."""
    document = as_document(text)
    check_summary_mode(mode)
    _check_sections(sections)
    if sentences < 1:
        raise SummaryIndexError(f"summary sentences must be at least 1, got {sentences}")
    ordered = sorted(sections, key=lambda c: (c.start, c.end))
    if mode == "extractive":
        from chunkviz.semantic.embeddings import DEFAULT_MODEL, canonical_model, default_encoder

        model = canonical_model(model or DEFAULT_MODEL)
        summaries = extractive_summaries(
            document, ordered, sentences, model, encode or default_encoder(model, "symmetric"), progress
        )
    else:
        if client is None:
            raise SummaryIndexError("LLM summaries need an LLM client (an endpoint and a model)")
        summaries = llm_summaries(client, document, ordered, context_tokens, tokenizer, progress)
    top = [replace(c, index=i) for i, c in enumerate(ordered)]
    below = sorted(summaries, key=lambda c: (c.start, c.end, c.parent))
    return top + [replace(c, index=len(top) + k) for k, c in enumerate(below)]


__all__ = [
    "DEFAULT_SUMMARY_SENTENCES",
    "EMBED_ADDED_TEXT",
    "SUMMARY_MODES",
    "SUMMARY_PROMPT",
    "SummaryIndexError",
    "central_order",
    "check_summary_mode",
    "embedding_text",
    "estimate_summaries",
    "extractive_summaries",
    "llm_summaries",
    "section_sentences",
    "summary_index",
    "summary_inputs",
]
