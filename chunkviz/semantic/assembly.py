"""Semantic chunks from sentence similarities and a threshold: never over ``max_tokens``.

Sentences between two breakpoints form a group. A group over the token budget (the embedding
model's tokens, special tokens included) is split at its weakest internal similarity until it
fits (those cuts are ``size_limit``); a single sentence over the budget is split at words by the
recursive splitter (``split_unit``; an indivisible piece is ``over_size_limit``). ``min_tokens``
optionally merges a small group into the neighbour it is more similar to, while the result fits.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence

import numpy as np

from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import Reason
from chunkviz.document.model import Document, as_document
from chunkviz.semantic.cache import SentenceSimilarities, sentence_similarities
from chunkviz.semantic.embeddings import DEFAULT_MODEL, size_tokenizer
from chunkviz.semantic.thresholds import Threshold, compute_threshold
from chunkviz.splitting import Piece, RecursiveSplitter, to_chunks
from chunkviz.text.spancount import SpanCounter, best_cut, shared_counter
from chunkviz.text.tokenizers import Tokenizer

#: (first sentence, end sentence, reason of the end): sentences [first, end) as one chunk.
Group = tuple[int, int, str]
#: Separators for a single sentence over the budget: lines, then words, then characters.
_SENTENCE_SEPARATORS = ["\n", " ", ""]


@dataclass(frozen=True)
class SizeSetup:
    """How chunk sizes are measured: the model's tokenizer over sentence cuts that tile the text."""

    text: str
    tokenizer: Tokenizer
    special_tokens: int
    limit: int  # max_tokens, special tokens included
    counter: SpanCounter
    cuts: tuple[int, ...]  # cuts[k] starts sentence k (in the gap before it); cuts[-1] = len(text)

    @property
    def budget(self) -> int:
        """Tokens a chunk's own text may have."""
        return max(1, self.limit - self.special_tokens)

    def size(self, a: int, b: int) -> int:
        """Tokens of sentences [a, b) as one chunk, without special tokens."""
        return self.counter.count(self.cuts[a], self.cuts[b])

    def splitter(self) -> RecursiveSplitter:
        return RecursiveSplitter(self.text, self.tokenizer, self.budget, 0, _SENTENCE_SEPARATORS, counter=self.counter)


def size_setup(text: str, sentences: Sequence[tuple[int, int]], model: str, max_tokens: int | None) -> SizeSetup:
    measure = size_tokenizer(model)
    counter = shared_counter(text, measure.tokenizer)
    limit = max_tokens if max_tokens is not None else measure.model_limit
    return SizeSetup(
        text, measure.tokenizer, measure.special_tokens, limit, counter, _sentence_cuts(text, sentences, counter)
    )


def _sentence_cuts(text: str, sentences: Sequence[tuple[int, int]], counter: SpanCounter) -> tuple[int, ...]:
    """Boundaries that tile the text, one between each pair of sentences (in the whitespace gap)."""
    cuts = [0]
    for k in range(1, len(sentences)):
        gap_start, gap_end = sentences[k - 1][1], sentences[k][0]
        cut = best_cut(text, gap_start, gap_end, counter) if gap_end > gap_start else gap_end
        cuts.append(max(cut, cuts[-1]))
    cuts.append(len(text))
    return tuple(cuts)


def group_sentences(
    sims: np.ndarray, breakpoints: Sequence[int], setup: SizeSetup, min_tokens: int = 0
) -> tuple[list[Group], tuple[int, ...]]:
    """Groups of sentences that fit the budget, and the sentence indices ``i`` where a cut after
    ``i`` was forced by ``max_tokens`` (a ``min_tokens`` merge may undo a forced cut)."""
    n = len(setup.cuts) - 1
    bounds = [0, *(i + 1 for i in breakpoints), n]
    groups: list[Group] = []
    forced: list[int] = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        if a < b:
            _fit_group(a, b, sims, setup.size, setup.budget, groups, forced)
    if min_tokens > 0:
        groups = _merge_small(groups, sims, setup.size, min_tokens - setup.special_tokens, setup.budget)
    group_ends = {b - 1 for _, b, _ in groups[:-1]}
    return groups, tuple(sorted(set(forced) & group_ends))


def _fit_group(
    a: int,
    b: int,
    sims: np.ndarray,
    size: Callable[[int, int], int],
    budget: int,
    groups: list[Group],
    forced: list[int],
    reason: str = Reason.SEMANTIC_BREAKPOINT,
) -> None:
    """Append sentences [a, b) as one group, or split it at its weakest similarity until it fits.

    Iterative (an explicit stack, left part first): with ties the weakest pair is the first
    one, so a run of identical sentences would otherwise recurse once per sentence.
    """
    stack = [(a, b, reason)]
    while stack:
        a, b, reason = stack.pop()
        if b - a == 1 or size(a, b) <= budget:
            groups.append((a, b, reason))
            continue
        inner = sims[a : b - 1]  # similarity i compares sentences i and i + 1
        weakest = a + int(np.argmin(inner))
        forced.append(weakest)
        stack.append((weakest + 1, b, reason))  # popped after the whole left part
        stack.append((a, weakest + 1, Reason.SIZE_LIMIT))


def _merge_small(
    groups: list[Group], sims: np.ndarray, size: Callable[[int, int], int], min_tokens: int, budget: int
) -> list[Group]:
    """Merge groups under ``min_tokens`` into the more similar neighbour while the result fits."""
    groups = list(groups)
    while len(groups) > 1:
        merged = _merge_first_small(groups, sims, size, min_tokens, budget)
        if merged is None:
            break
        groups = merged
    return groups


def _merge_first_small(
    groups: list[Group], sims: np.ndarray, size: Callable[[int, int], int], min_tokens: int, budget: int
) -> list[Group] | None:
    """``groups`` with its first mergeable small group merged, or None when none can merge."""
    for k, (a, b, reason) in enumerate(groups):
        if size(a, b) >= min_tokens:
            continue
        left_sim = sims[a - 1] if k > 0 else -np.inf
        right_sim = sims[b - 1] if k + 1 < len(groups) else -np.inf
        for side in sorted(("left", "right"), key=lambda s: -(left_sim if s == "left" else right_sim)):
            if side == "left" and k > 0:
                pa, _, _ = groups[k - 1]
                if size(pa, b) <= budget:
                    return [*groups[: k - 1], (pa, b, reason), *groups[k + 1 :]]
            if side == "right" and k + 1 < len(groups):
                _, nb, nreason = groups[k + 1]
                if size(a, nb) <= budget:
                    return [*groups[:k], (a, nb, nreason), *groups[k + 2 :]]
    return None


def group_pieces(groups: Sequence[Group], setup: SizeSetup) -> list[Piece]:
    """One piece per group; a single sentence over the budget becomes its word-split pieces."""
    pieces: list[Piece] = []
    splitter: RecursiveSplitter | None = None
    specials = setup.special_tokens
    for a, b, reason in groups:
        start, end = setup.cuts[a], setup.cuts[b]
        meta = {"sentences": [a, b]}
        if b - a == 1 and setup.size(a, b) > setup.budget:
            splitter = splitter or setup.splitter()
            parts = splitter.split_span(start, end, final_reason=Reason(reason))
            for part in parts:
                tokens = setup.counter.count(part.start, part.end) + specials
                pieces.append(replace(part, split_unit=len(parts) > 1, metadata={**meta, "model_tokens": tokens}))
            continue
        pieces.append(Piece(start, end, Reason(reason), metadata={**meta, "model_tokens": setup.size(a, b) + specials}))
    return pieces


@dataclass(frozen=True)
class Assembly:
    """The chunks of one threshold and what the explanation reports about the size limits."""

    chunks: tuple[Chunk, ...]
    max_tokens: int
    model_tokenizer: str
    size_splits: tuple[int, ...]  # sentence indices i where a cut after i was forced by max_tokens


def assemble(
    document: Document,
    analysis: SentenceSimilarities,
    threshold: Threshold,
    max_tokens: int | None,
    min_tokens: int = 0,
) -> Assembly:
    """Chunks for ``threshold`` on ``analysis`` (numpy and cached token counts only)."""
    if not analysis.sentences:
        return Assembly((), max_tokens or 0, "", ())
    setup = size_setup(document.text, analysis.sentences, analysis.model, max_tokens)
    groups, forced = group_sentences(analysis.similarities, threshold.breakpoints, setup, min_tokens)
    chunks = to_chunks(document, group_pieces(groups, setup))
    return Assembly(tuple(chunks), setup.limit, setup.tokenizer.name, forced)


def final_chunk_counts(
    document: Document | str,
    *,
    model: str = DEFAULT_MODEL,
    buffer_size: int = 0,
    max_tokens: int | None = None,
    min_tokens: int = 0,
    percentiles: Sequence[float] = tuple(range(0, 101)),
) -> list[tuple[float, int]]:
    """(percentile, number of chunks) after the size limits, for a sweep of percentiles.

    Breakpoints alone grow linearly with the percentile; the size limits (max_tokens forces
    cuts, min_tokens merges) are what make the real count flat in places, so this runs the same
    grouping as the chunking for each percentile (numpy and cached counts only).
    """
    document = as_document(document)
    analysis = sentence_similarities(document, model, buffer_size)
    if not analysis.sentences:
        return [(float(p), 0) for p in percentiles]
    setup = size_setup(document.text, analysis.sentences, analysis.model, max_tokens)
    sims = analysis.similarities
    pieces_of_long_sentence: dict[int, int] = {}

    def chunks_of(a: int, b: int) -> int:
        if b - a > 1 or setup.size(a, b) <= setup.budget:
            return 1
        if a not in pieces_of_long_sentence:
            pieces_of_long_sentence[a] = len(setup.splitter().split_span(setup.cuts[a], setup.cuts[a + 1]))
        return pieces_of_long_sentence[a]

    curve = []
    for p in percentiles:
        threshold = compute_threshold(sims, "percentile", float(p))
        groups, _ = group_sentences(sims, threshold.breakpoints, setup, min_tokens)
        curve.append((float(p), sum(chunks_of(a, b) for a, b, _ in groups)))
    return curve
