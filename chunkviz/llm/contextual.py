"""Contextual retrieval (seed 000 §13.7.2): the model writes a short context for each chunk.

For every chunk a retriever embeds, the model is shown the document and the chunk and writes
2-3 sentences that place the chunk in the document. The context becomes the chunk's
``added_text`` (in front of any text already added; the span is never touched), so it is
embedded with the chunk and drawn as inserted text. One call per chunk, batched through
:meth:`LLMClient.complete_many` (concurrency limit, answer cache, estimate, progress): a second
identical run makes no call.

A document longer than the model's context is not sent whole. The prompt budget
(``context_tokens`` less the instructions, the chunk and room for the answer) is spent on the
document's *opening* (a quarter of it: the title and introduction say what the document is
about) and on a *window around the chunk* (the rest, centred on the chunk and moved inside the
document at its ends), both cut at cl100k token boundaries and joined by ``[…]``. Which
characters were shown is recorded per chunk (``context_document``). A chunk longer than half
the budget is itself shortened in the prompt (its start is shown, then ``…``).

Metadata written: ``context_token_count`` (tokens of the context and its blank line, in the
chosen tokenizer: what the enrichment costs), ``context_document`` (``"whole"`` or the shown
character ranges), and, as for every enrichment, ``token_count``, ``enriched_token_count`` and
``enriched_over_limit`` (the context pushes ``added_text + text`` over the embedding model's
limit).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from chunkviz.core.errors import ChunkvizError
from chunkviz.core.types import Chunk, Progress
from chunkviz.document.enrich import prepend
from chunkviz.document.model import Document, as_document
from chunkviz.llm.client import CallEstimate, LLMClient, Prompt, count_tokens
from chunkviz.llm.reserves import PROSE_ANSWER_RESERVE
from chunkviz.text.tokenizers import (
    DEFAULT_TOKENIZER,
    Tokenizer,
    get_tokenizer,
    surrogate_safe,
)

CONTEXT_PROMPT = Prompt(
    name="contextual_retrieval",
    version=1,
    system="You situate excerpts within their document for a search index. You answer with the context only.",
    template=(
        "<document>\n{document}\n</document>\n\n"
        "Here is a chunk of that document:\n<chunk>\n{chunk}\n</chunk>\n\n"
        "Write a short context of 2-3 sentences that says what this chunk is about and how it relates to "
        "the whole document (its section, its subject, names the chunk leaves implicit), to improve search "
        "retrieval of the chunk. Answer only with the context, no preamble."
    ),
)
#: The model's context in tokens (prompt and answer) when nothing else is said: the default
#: context of many local servers (a larger model context gives the model more of the document).
DEFAULT_CONTEXT_TOKENS = 4096
#: Share of the document budget spent on the document's opening when it does not fit.
OPENING_SHARE = 0.25
#: What stands for the text left out of the prompt.
GAP = "\n[…]\n"
#: The separator between the context and the chunk in ``added_text``.
SEPARATOR = "\n\n"


class ContextBudgetError(ChunkvizError, ValueError):
    """``context_tokens`` leaves no room for the document."""


@dataclass(frozen=True)
class Excerpt:
    """What the model is shown of a document: its text and the character ranges it comes from."""

    text: str
    ranges: tuple[tuple[int, int], ...]
    whole: bool

    def describe(self, length: int) -> str:
        """``whole`` or ``[0:812] + [5120:9000] of 20000 characters``."""
        if self.whole:
            return "whole"
        return " + ".join(f"[{a}:{b}]" for a, b in self.ranges) + f" of {length} characters"


def token_positions(text: str) -> list[int]:
    """Where the cl100k tokens of ``text`` start, plus ``len(text)``."""
    return [int(p) for p in get_tokenizer("cl100k_base").boundaries(surrogate_safe(text)).positions]


def document_excerpt(text: str, start: int, end: int, budget: int, positions: Sequence[int] | None = None) -> Excerpt:
    """The document as the model sees it for the chunk ``[start, end)``: all of it when its
    tokens fit ``budget``, else its opening (:data:`OPENING_SHARE` of the budget) and a window
    of the rest of the budget centred on the chunk, at token boundaries (``positions``: from
    :func:`token_positions`, computed once per document by callers with many chunks)."""
    if budget < 1:
        raise ContextBudgetError(f"no room for the document in the prompt (budget {budget} tokens)")
    positions = positions if positions is not None else token_positions(text)  # not copied: once per chunk
    n = len(positions) - 1
    if n <= budget:
        return Excerpt(text, ((0, len(text)),), True)
    budget = max(2, budget - 8)  # the two "[…]" marks
    opening = int(budget * OPENING_SHARE)
    around = budget - opening
    first = bisect.bisect_right(positions, start) - 1  # the token holding the chunk's first character
    last = max(first + 1, bisect.bisect_left(positions, end))  # one past the token holding its last
    if last - first >= around:
        a, b = first, first + around
    else:
        spare = around - (last - first)
        a, b = first - spare // 2, last + (spare - spare // 2)
        if a < opening:
            a, b = opening, b + (opening - a)
        if b > n:
            a, b = max(opening, a - (b - n)), n
    # token starts snapped inside a multibyte character can repeat: drop empty ranges, join touching ones
    ranges = _joined([(0, positions[opening]), (positions[max(a, opening)], positions[b])]) or ((start, end),)
    pieces = [GAP] if ranges[0][0] > 0 else []
    for k, (x, y) in enumerate(ranges):
        pieces.extend([GAP, text[x:y]] if k else [text[x:y]])
    if ranges[-1][1] < len(text):
        pieces.append(GAP)
    return Excerpt("".join(pieces), ranges, False)


def _joined(ranges: Sequence[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for x, y in ranges:
        if y <= x:
            continue
        if out and x <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], y))
        else:
            out.append((x, y))
    return tuple(out)


def chunk_for_prompt(text: str, cap: int) -> str:
    """The chunk's text as shown (its first ``cap`` cl100k tokens, then ``…``, when longer)."""
    positions = token_positions(text)
    if len(positions) - 1 <= cap:
        return text
    return text[: positions[cap]].rstrip() + " …"


def _overhead() -> int:
    return count_tokens(CONTEXT_PROMPT.messages({"document": "", "chunk": ""}))


@dataclass(frozen=True)
class ContextPlan:
    """The chunks that get a context (by position in the chunk list: the embedded ones, those
    without children, that are not blank), the prompt inputs of each and what each was shown
    of the document."""

    positions: tuple[int, ...]
    inputs: tuple[dict[str, str], ...]
    shown: tuple[str, ...]


def plan_contexts(
    text: str | Document, chunks: Sequence[Chunk], context_tokens: int = DEFAULT_CONTEXT_TOKENS
) -> ContextPlan:
    """The prompts of a contextual-retrieval run (no call is made)."""
    document = as_document(text)
    body = surrogate_safe(document.text)  # lone surrogates cannot be sent; one character for one
    room = context_tokens - _overhead() - PROSE_ANSWER_RESERVE
    if room < 128:
        raise ContextBudgetError(
            f"a model context of {context_tokens} tokens leaves no room for the document and the chunk; "
            f"give at least {_overhead() + PROSE_ANSWER_RESERVE + 128} tokens (e.g. 4096)"
        )
    positions = token_positions(body)
    chosen, inputs, shown = [], [], []
    with_children = {c.parent for c in chunks if c.parent is not None}
    for i, c in enumerate(chunks):
        if c.index in with_children or not c.text.strip():
            continue
        piece = chunk_for_prompt(body[c.start : c.end], room // 2)
        excerpt = document_excerpt(body, c.start, c.end, room - (len(token_positions(piece)) - 1), positions)
        chosen.append(i)
        inputs.append({"document": excerpt.text, "chunk": piece})
        shown.append(excerpt.describe(len(body)))
    return ContextPlan(tuple(chosen), tuple(inputs), tuple(shown))


def estimate_contexts(
    client: LLMClient, text: str | Document, chunks: Sequence[Chunk], context_tokens: int = DEFAULT_CONTEXT_TOKENS
) -> CallEstimate:
    """Calls (one per embedded chunk not cached yet) and input tokens of :func:`contextualize`."""
    return client.estimate(CONTEXT_PROMPT, plan_contexts(text, chunks, context_tokens).inputs)


_PREAMBLE = re.compile(r"^\s*(?:context|here is (?:the|a) (?:short )?context)\s*:\s*", re.IGNORECASE)


def clean_context(answer: str) -> str:
    """The model's answer as a context: a leading ``Context:`` dropped, whitespace collapsed."""
    return " ".join(_PREAMBLE.sub("", answer).split())


def contextualize(
    client: LLMClient,
    text: str | Document,
    chunks: Sequence[Chunk],
    *,
    context_tokens: int = DEFAULT_CONTEXT_TOKENS,
    tokenizer: str | Tokenizer = DEFAULT_TOKENIZER,
    progress: Progress | None = None,
) -> list[Chunk]:
    """``chunks`` with a model-written context in front of the ``added_text`` of every embedded,
    non-blank chunk (others unchanged); see the module docstring for the metadata."""
    document = as_document(text)
    plan = plan_contexts(document, chunks, context_tokens)
    answers = client.complete_many(CONTEXT_PROMPT, list(plan.inputs), progress, accept=lambda a: bool(clean_context(a)))
    contexts = {i: clean_context(a) + SEPARATOR for i, a in zip(plan.positions, answers)}
    shown = dict(zip(plan.positions, plan.shown))
    prefixed = prepend(document, list(chunks), [contexts.get(i, "") for i in range(len(chunks))], tokenizer=tokenizer)
    counter = get_tokenizer(tokenizer)
    out = []
    for i, (original, c) in enumerate(zip(chunks, prefixed)):
        if i not in contexts:
            out.append(original)
            continue
        metadata: Mapping[str, object] = {
            **c.metadata,
            "context_token_count": counter.count(contexts[i]),
            "context_document": shown[i],
        }
        out.append(replace(c, metadata=dict(metadata)))
    return out


__all__ = [
    "CONTEXT_PROMPT",
    "DEFAULT_CONTEXT_TOKENS",
    "ContextBudgetError",
    "ContextPlan",
    "Excerpt",
    "chunk_for_prompt",
    "clean_context",
    "contextualize",
    "document_excerpt",
    "estimate_contexts",
    "plan_contexts",
    "token_positions",
]
