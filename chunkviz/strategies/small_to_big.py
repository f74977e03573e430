"""Small-to-big chunking (seed 000 §13.9.2): sentences to embed inside paragraphs to return.

ONE list is returned: every parent (``level`` 0) first, then every child (``level`` 1), each
level in document order; a child's ``parent`` is the index of the parent that contains it.
Parents are the document structure's paragraphs (a whitespace-only stretch joins its
neighbour, so parents tile the text); a paragraph over ``max_parent_tokens`` is packed into
several parents at sentence ends by the one packer. Children are the structure's sentences
inside each parent; a sentence over ``max_child_tokens`` is split at lines, words, characters.
Every piece of a split unit (paragraph or sentence) is marked ``split_unit``.

Reasons: ``unit_end`` where a paragraph (parent) or a sentence (child) ends, ``size_limit``
inside a split unit, ``parent_end`` for a parent's last child, ``end_of_document`` at the end.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, replace
from typing import Sequence

from chunkviz.core.limits import refuse_as_counted
from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import Meta, Reason
from chunkviz.document.model import Document
from chunkviz.splitting import PackPolicy, Piece, cuts_between, pack_units, to_chunks, unit_cuts
from chunkviz.splitting.packing import UNIT_SPLIT_SEPARATORS
from chunkviz.splitting.recursive import RecursiveSplitter
from chunkviz.splitting.units import split_unit, unit_splitter
from chunkviz.strategies.base import param, register
from chunkviz.text.spancount import SpanCounter, shared_counter
from chunkviz.text.tokenizers import Tokenizer


@dataclass(frozen=True)
class SmallToBigParams:
    max_parent_tokens: int = param(
        1000,
        "a paragraph over this many tokens is split into several parents at sentence ends (flagged)",
        minimum=1,
        maximum=100_000,
        unit="tokens",
    )
    max_child_tokens: int = param(
        128,
        "a sentence over this many tokens is split at words (flagged split_unit)",
        minimum=1,
        maximum=100_000,
        unit="tokens",
    )


def _paragraph_spans(document: Document, counter: SpanCounter) -> list[tuple[int, int]]:
    """The structure's paragraphs tiling the text; a whitespace-only stretch joins its neighbour."""
    text = document.text
    cuts = unit_cuts(text, document.structure.paragraph_starts, counter)
    spans: list[tuple[int, int]] = []
    pending = None  # start of a whitespace-only stretch waiting for the next paragraph
    for start, end in zip(cuts[:-1], cuts[1:]):
        if end <= start:
            continue
        if not text[start:end].strip():
            pending = start if pending is None else pending
            continue
        spans.append((pending if pending is not None else start, end))
        pending = None
    if pending is not None and spans:
        spans[-1] = (spans[-1][0], len(text))
    return spans


def _sentence_cuts(text: str, start: int, end: int, sentence_starts: Sequence[int], counter: SpanCounter) -> list[int]:
    """Cuts tiling ``[start, end)`` into its sentences (whitespace between them cut cleanly)."""
    body = start + len(text[start:end]) - len(text[start:end].lstrip())  # the first non-space
    lo = bisect.bisect_right(sentence_starts, body)
    hi = bisect.bisect_left(sentence_starts, end)
    return cuts_between(text, sentence_starts[lo:hi], counter, start, end)


def _children(
    parent: Piece, index: int, cuts: Sequence[int], counter: SpanCounter, splitter: RecursiveSplitter, max_tokens: int
) -> list[Piece]:
    """The sentences of one parent (pieces of one when the parent cuts a sentence), split at
    words when over ``max_tokens``."""
    cut_set = set(cuts)
    a, b = parent.start, parent.end
    bounds = [a, *(c for c in cuts if a < c < b), b]
    children: list[Piece] = []
    for u0, u1 in zip(bounds[:-1], bounds[1:]):
        reason = Reason.PARENT_END if u1 >= b else Reason.UNIT_END
        metadata = {"paragraph": parent.metadata["paragraph"]}
        if counter.count(u0, u1) <= max_tokens:
            pieces = [Piece(u0, u1, reason, split_unit=not (u0 in cut_set and u1 in cut_set), metadata=metadata)]
        else:
            pieces = split_unit(splitter, u0, u1, reason, metadata)
        children.extend(replace(p, level=1, parent=index) for p in pieces)
    return children


_HINT = (
    "Raise max_parent_tokens and max_child_tokens (fewer splits), or chunk a smaller document: "
    "paragraphs and sentences set the least small_to_big can make"
)


def _with_token_count(piece: Piece, counter: SpanCounter) -> Piece:
    return replace(piece, metadata={Meta.TOKEN_COUNT: counter.count(piece.start, piece.end), **piece.metadata})


@register(
    "small_to_big",
    "Sentences (children, to embed) inside their blank-line paragraphs (parents, to return); long paragraphs "
    "split at sentence ends, long sentences at words, both flagged.",
    SmallToBigParams,
    returns_parents=True,
)
def small_to_big(document: Document, params: SmallToBigParams, tokenizer: Tokenizer) -> list[Chunk]:

    text = document.text
    counter = shared_counter(text, tokenizer)
    paragraphs = _paragraph_spans(document, counter)
    # every paragraph is a parent with at least one child: refused before the sentences are segmented
    refuse_as_counted("small_to_big", 2 * len(paragraphs), f"this document's {len(paragraphs):,} paragraphs", _HINT)
    sentence_starts = document.structure.sentence_starts
    splitter = unit_splitter(text, counter, params.max_child_tokens, UNIT_SPLIT_SEPARATORS)
    policy = PackPolicy(params.max_parent_tokens)
    parents: list[Piece] = []
    children: list[Piece] = []
    for paragraph, (p0, p1) in enumerate(paragraphs):
        # as it goes: the chunks so far, and a parent and a child for each paragraph still to come
        later = 2 * (len(paragraphs) - paragraph)
        refuse_as_counted("small_to_big", len(parents) + len(children) + later, "its paragraphs and sentences", _HINT)
        cuts = _sentence_cuts(text, p0, p1, sentence_starts, counter)
        split = counter.count(p0, p1) > params.max_parent_tokens
        packed = pack_units(text, cuts, counter, policy) if split else [Piece(p0, p1, Reason.UNIT_END)]
        for piece in packed:
            whole = piece.start in cuts and piece.end in cuts
            parent = replace(piece, split_unit=split or not whole, metadata={"paragraph": paragraph})
            children.extend(_children(parent, len(parents), cuts, counter, splitter, params.max_child_tokens))
            parents.append(parent)
    refuse_as_counted("small_to_big", len(parents) + len(children), "its paragraphs and sentences", _HINT)
    pieces = [_with_token_count(p, counter) for p in parents + children]
    return to_chunks(document, pieces)


__all__ = ["SmallToBigParams", "small_to_big"]
