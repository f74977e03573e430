"""Exact token counts of document spans, mostly by arithmetic.

The document is tokenized once. For a span whose both ends are clean cuts (see
``Tokenizer.is_clean_cut``) the count is the number of token starts inside it, an O(log n)
lookup. A span with an end that is not a clean cut is counted in three parts when its
tokenizer's rule is local (``Tokenizer.clean_cut_is_local``): the few characters from that end
to the nearest clean cut inside the span are tokenized on their own (memoized by the tokenizer),
the rest between the two clean cuts is arithmetic. A local rule's clean cut of the document is
a clean cut of every span around it, so the parts add up to the span's own count exactly; a
span without such a cut near its ends is tokenized whole.
"""

from __future__ import annotations

import array
import bisect
from typing import Sequence

import numpy as np

from chunkviz.core.cache import BoundedLRU, text_key
from chunkviz.core.deadline import check_time
from chunkviz.text.tokenizers import TokenBoundaries, Tokenizer

#: How far (characters) from a span's end that is not a clean cut the nearest clean cut inside the
#: span is looked for; words are shorter, and a span without one is tokenized whole.
EDGE_REACH = 64


class SpanCounter:
    """Counts tokens of ``text[start:end]`` exactly, fast where the cut points allow it."""

    def __init__(self, text: str, tokenizer: Tokenizer) -> None:
        self.text = text
        self.tokenizer = tokenizer
        self._bounds: TokenBoundaries | None = None
        self._starts: array.array | None = None
        #: ``tokenizer.clean_cut_rule``: ``(text, pos) -> bool``, for inner loops
        self.clean_rule = tokenizer.clean_cut_rule
        self._local = tokenizer.clean_cut_is_local

    @property
    def bounds(self) -> TokenBoundaries:
        """Token boundaries of the whole text (computed on first use)."""
        if self._bounds is None:
            self._bounds = self.tokenizer.boundaries(self.text)
        return self._bounds

    @property
    def starts(self) -> array.array:
        """Where each token of the text starts (``bounds.positions`` without the end), for
        bisecting one position at a time (made on first use: windows count with numpy alone)."""
        if self._starts is None:
            starts = array.array("q")
            # one copy, through the buffer protocol (``q`` is a native 64-bit integer, as is int64)
            starts.frombytes(np.ascontiguousarray(self.bounds.positions[:-1], dtype=np.int64).data.cast("B"))
            self._starts = starts
        return self._starts

    @property
    def total(self) -> int:
        return self.bounds.n_tokens

    def is_clean(self, pos: int) -> bool:
        return self.clean_rule(self.text, pos)

    def tokens_before_many(self, positions: list[int]) -> list[int]:
        """``tokens_before`` for many positions."""
        starts = self.starts
        return [bisect.bisect_left(starts, p) for p in positions]

    def tokens_before(self, pos: int) -> int:
        """Number of tokens that start before ``pos`` (exact at clean cuts, an estimate elsewhere)."""
        return bisect.bisect_left(self.starts, pos)

    def char_at_token(self, index: int) -> int:
        """Where token ``index`` starts (the first token's start below 0, ``len(text)`` from the
        number of tokens on)."""
        starts = self.starts
        if index >= len(starts):
            return len(self.text)
        return starts[max(index, 0)]

    def estimate(self, start: int, end: int) -> int:
        """A cheap approximation of ``count(start, end)``."""
        starts = self.starts
        return bisect.bisect_left(starts, end) - bisect.bisect_left(starts, start)

    def count(self, start: int, end: int) -> int:
        """Exact number of tokens of ``text[start:end]`` as the tokenizer would count it alone."""
        check_time()  # the app's time limit (a no-op without one)
        if end <= start:
            return 0
        inner = self._inner_span(start, end)
        if inner is None:
            return self.tokenizer.count(self.text[start:end])
        inner_start, inner_end = inner
        starts = self.starts
        inner_count = bisect.bisect_left(starts, inner_end) - bisect.bisect_left(starts, inner_start)
        return self._edge_count(start, end, inner_start, inner_end) + inner_count

    def count_many(self, spans: Sequence[tuple[int, int]]) -> list[int]:
        """:meth:`count` of every span: the same numbers, with the arithmetic between the clean
        cuts of all spans done in one vectorised lookup (a window per chunk of a long document
        is thousands of spans)."""
        inner_starts: list[int] = []
        inner_ends: list[int] = []
        edges: list[int] = []  # per span: its edges' counts, or -1 where it is tokenized whole
        for start, end in spans:
            check_time()  # the app's time limit (a no-op without one)
            inner = self._inner_span(start, end) if end > start else (start, start)
            if inner is None:
                inner, edge = (start, start), -1
            else:
                edge = self._edge_count(start, end, *inner) if end > start else 0
            inner_starts.append(inner[0])
            inner_ends.append(inner[1])
            edges.append(edge)
        token_starts = self.bounds.positions[: self.total]
        inner_counts = np.searchsorted(token_starts, inner_ends) - np.searchsorted(token_starts, inner_starts)
        text, count = self.text, self.tokenizer.count
        return [
            edge + n if edge >= 0 else count(text[start:end])
            for (start, end), edge, n in zip(spans, edges, inner_counts.tolist())
        ]

    def _inner_span(self, start: int, end: int) -> tuple[int, int] | None:
        """The clean cuts nearest inside the span's ends (the ends themselves where they are
        clean), between which its count is arithmetic; None when the span must be tokenized whole."""
        text, clean = self.text, self.clean_rule
        inner_start = start if clean(text, start) else self._clean_cut_after(start, end)
        if inner_start is None:
            return None
        inner_end = end if clean(text, end) else self._clean_cut_before(end, inner_start)
        return None if inner_end is None else (inner_start, inner_end)

    def _edge_count(self, start: int, end: int, inner_start: int, inner_end: int) -> int:
        """Tokens of the span's edges outside its inner clean cuts, each tokenized alone (memoized)."""
        text, count = self.text, self.tokenizer.count
        head = count(text[start:inner_start]) if inner_start > start else 0
        return head + (count(text[inner_end:end]) if inner_end < end else 0)

    def _clean_cut_after(self, pos: int, end: int) -> int | None:
        """The first clean cut in ``(pos, end)`` within ``EDGE_REACH`` characters, if the rule is local."""
        if not self._local:
            return None
        text, clean = self.text, self.clean_rule
        for cut in range(pos + 1, min(end, pos + EDGE_REACH)):
            if clean(text, cut):
                return cut
        return None

    def _clean_cut_before(self, pos: int, lo: int) -> int | None:
        """The last clean cut in ``[lo, pos)`` within ``EDGE_REACH`` characters, if the rule is local."""
        if not self._local:
            return None
        text, clean = self.text, self.clean_rule
        for cut in range(pos - 1, max(lo, pos - EDGE_REACH) - 1, -1):
            if clean(text, cut):
                return cut
        return None


def best_cut(text: str, start: int, end: int, counter: SpanCounter) -> int:
    """Where to cut inside a separator run ``text[start:end]``.

    Preference: just after its last line break (the next piece starts a line), then its start,
    then its end, then any inner position; the first one that is a clean cut for the tokenizer
    wins, so token counts of the pieces stay exact arithmetic. The candidates are tried one by
    one (a long run is not copied or listed), so the usual answer costs a few checks.
    """
    newline = text.rfind("\n", start, end)
    first = newline + 1 if newline >= 0 else None
    if first is not None and counter.is_clean(first):
        return first
    for cut in (start, end):
        if counter.is_clean(cut):
            return cut
    for cut in range(start + 1, end):
        check_time()
        if counter.is_clean(cut):
            return cut
    return first if first is not None else start


#: Counters of recent (text, tokenizer) pairs, keyed by :func:`~chunkviz.core.cache.text_key` and the tokenizer's name.
_COUNTERS: BoundedLRU[tuple[tuple[int, str], str], SpanCounter] = BoundedLRU(max_entries=8)


def shared_counter(text: str, tokenizer: Tokenizer) -> SpanCounter:
    """A SpanCounter reused across calls on the same text and tokenizer (the app re-chunks the
    same document on every parameter change; its whole-document tokenization is kept)."""
    key = (text_key(text), tokenizer.name)
    counter = _COUNTERS.get(key)
    if counter is not None and counter.text == text and counter.tokenizer is tokenizer:
        return counter
    counter = SpanCounter(text, tokenizer)
    _COUNTERS.put(key, counter)
    return counter


def clear_shared_counters() -> None:
    """Forget every shared counter (benchmarks call this so repeats start cold)."""
    _COUNTERS.clear()
