"""Token windows: fixed-size runs of tokens as exact character spans.

A window of tokens ``[first, stop)`` becomes the span from the character where token ``first``
starts to the one where token ``stop`` starts, read from the tokenizer's exact token offsets
(never by decoding and searching). ``fixed_tokens`` windows the whole document;
``parent_child`` windows each parent (:class:`SpanTokens` are the tokens of one span).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from chunkviz.core.deadline import check_time
from chunkviz.core.types import frozen_instance
from chunkviz.core.vocabulary import Meta
from chunkviz.text.spancount import SpanCounter


def window_starts(n_units: int, chunk_size: int, overlap: int) -> range:
    """Start unit of every window; the last window reaches the end."""
    step = chunk_size - overlap
    if n_units == 0:
        return range(0)
    last = max(0, -(-(n_units - chunk_size) // step)) if n_units > chunk_size else 0
    return range(0, last * step + 1, step)


@dataclass(frozen=True)
class SpanTokens:
    """The tokens of a span ``[start, end)``: where each starts (clamped into the span) and
    whether that start is exact (not snapped down to a multibyte character's start)."""

    start: int
    end: int
    starts: Sequence[int] | np.ndarray  # the document's own token arrays, or a list for a re-tokenized span
    exact: Sequence[bool] | np.ndarray

    @property
    def n(self) -> int:
        return len(self.starts)

    def char_at(self, k: int) -> int:
        """Character position of token boundary ``k`` (0 = span start, n = span end)."""
        if k <= 0:
            return self.start
        if k >= len(self.starts):
            return self.end
        return min(max(int(self.starts[k]), self.start), self.end)

    def exact_at(self, k: int) -> bool:
        return k <= 0 or k >= len(self.starts) or bool(self.exact[k])

    def slice(self, first: int, stop: int, start: int, end: int) -> "SpanTokens":
        return SpanTokens(start, end, self.starts[first:stop], self.exact[first:stop])


def document_tokens(text: str, counter: SpanCounter) -> SpanTokens:
    """The tokens of the whole text (the counter's tokenization, done once per document)."""
    bounds = counter.bounds
    n = bounds.n_tokens
    return SpanTokens(0, len(text), bounds.positions[:n], bounds.exact[:n])


def tokens_of_span(text: str, counter: SpanCounter, doc: SpanTokens, start: int, end: int) -> SpanTokens:
    """Tokens of ``text[start:end]``: the document's own where both ends are clean cuts (so the
    span tokenizes exactly like that part of the document), else the span tokenized alone."""
    if counter.is_clean(start) and counter.is_clean(end):
        first = bisect.bisect_left(doc.starts, start)
        stop = bisect.bisect_left(doc.starts, end)
        return doc.slice(first, stop, start, end)
    bounds = counter.tokenizer.boundaries(text[start:end])
    n = bounds.n_tokens
    return SpanTokens(start, end, [int(p) + start for p in bounds.positions[:n]], list(bounds.exact[:n]))


@dataclass(frozen=True)
class Window:
    """A window of tokens ``[first, stop)`` (indexes into its span's tokens) and its span."""

    start: int
    end: int
    first: int
    stop: int  # exclusive
    snapped: tuple[str, ...] = ()  # "start"/"end" snapped to a character start
    merged: bool = False  # a cut inside it was dropped: it fell inside the one character before it

    @property
    def tokens(self) -> int:
        return self.stop - self.first


def tiles(tokens: SpanTokens, size: int) -> list[Window]:
    """Windows of ``size`` tokens without overlap that tile the span.

    A cut that snapping to a character start would leave empty (all tokens of the window start
    inside one multibyte character) is dropped, so its tokens join the window before it.
    """
    if tokens.n == 0:
        return [Window(tokens.start, tokens.end, 0, 0)]
    cuts = [0]
    merged: set[int] = set()  # windows (by their first token) that absorbed a dropped cut
    for k in range(size, tokens.n, size):
        check_time()  # the app's time limit (a no-op without one)
        pos = tokens.char_at(k)
        if tokens.char_at(cuts[-1]) < pos < tokens.end:
            cuts.append(k)
        else:
            merged.add(cuts[-1])
    cuts.append(tokens.n)
    windows = []
    for first, stop in zip(cuts[:-1], cuts[1:]):
        snapped = tuple(side for side, k in (("start", first), ("end", stop)) if not tokens.exact_at(k))
        windows.append(Window(tokens.char_at(first), tokens.char_at(stop), first, stop, snapped, first in merged))
    return windows


def overlapping_windows(tokens: SpanTokens, size: int, overlap: int) -> list[Window]:
    """Windows like ``fixed_tokens`` (``size`` tokens, ``overlap`` shared), confined to the span.

    Without overlap these are :func:`tiles`: neighbours meet, and no character is in two windows
    even where a boundary had to move to a character's start.
    """
    if overlap == 0:
        return tiles(tokens, size)
    if tokens.n == 0:
        return [Window(tokens.start, tokens.end, 0, 0)]
    n = tokens.n
    firsts = window_starts(n, size, overlap)
    stops = [min(first + size, n) for first in firsts]
    starts_at, start_exact = _chars_and_exactness(tokens, firsts)
    ends_at, end_exact = _chars_and_exactness(tokens, stops)
    windows = []
    for first, stop, start, end, exact_start, exact_end in zip(
        firsts, stops, starts_at, ends_at, start_exact, end_exact
    ):
        check_time()
        snapped: tuple[str, ...] = ()
        if not (exact_start and exact_end):
            snapped = ("end",) if exact_start else ("start",) if exact_end else ("end", "start")
        if end <= start:
            if start >= tokens.end:
                # every token of the window starts inside the character just past the span (its
                # start was snapped down to the span's end): the span has no text left for it
                continue
            end = start + 1  # a window inside one multibyte character: take the whole character
            snapped = tuple(sorted({*snapped, "end"}))
        windows.append(
            frozen_instance(Window, start=start, end=end, first=first, stop=stop, snapped=snapped, merged=False)
        )
    return windows


def _chars_and_exactness(tokens: SpanTokens, ks: Sequence[int]) -> tuple[list[int], list[bool]]:
    """:meth:`SpanTokens.char_at` and :meth:`SpanTokens.exact_at` of many boundaries at once."""
    k = np.asarray(ks, dtype=np.int64)
    inner = np.clip(k, 0, tokens.n - 1)
    chars = np.clip(np.asarray(tokens.starts, dtype=np.int64)[inner], tokens.start, tokens.end)
    chars = np.where(k <= 0, tokens.start, np.where(k >= tokens.n, tokens.end, chars))
    exact = (k <= 0) | (k >= tokens.n) | np.asarray(tokens.exact, dtype=bool)[inner]
    return chars.tolist(), exact.tolist()


#: Why a window whose cuts are exact token starts can still be over its size.
RETOKENIZED_NOTE = "the window's text alone tokenizes to more tokens than the window held (a word cut inside it)"


def window_metadata(window: Window, counter: SpanCounter, size: int, **extra: object) -> dict[str, object]:
    """A window's metadata (see :func:`windows_metadata`) after the ``extra`` items."""
    return {**extra, **windows_metadata([window], counter, size)[0]}


def windows_metadata(
    windows: Sequence[Window], counter: SpanCounter, size: int, token_range: bool = False
) -> list[dict[str, object]]:
    """Each window's metadata: ``token_count`` is the token count of the window's own text (not
    ``stop - first``), and a window over ``size`` says so; with ``token_range``, the window's
    tokens (``token_start``, ``token_end``) come first.

    A window over ``size`` is flagged ``over_size_limit``. Where a boundary moved to a
    character's start (``snapped_to_character``), or a cut inside it was dropped because it fell
    inside one character, the window holds a whole character whose bytes were spread over
    several tokens: it is over because that character cannot be cut (``indivisible``). Otherwise
    the window's text re-tokenizes on its own to more tokens (a wordpiece tokenizer reading a
    word cut in the middle), which a note says.
    """
    counts = counter.count_many([(w.start, w.end) for w in windows])
    out = []
    for window, count in zip(windows, counts):
        metadata: dict[str, object] = (
            {_TOKEN_START: window.first, _TOKEN_END: window.stop, _TOKEN_COUNT: count}
            if token_range
            else {_TOKEN_COUNT: count}
        )
        if window.snapped:
            metadata[_SNAPPED] = list(window.snapped)
        if count > size:
            metadata[_OVER_SIZE_LIMIT] = True
            if window.snapped or window.merged:
                metadata[_INDIVISIBLE] = True
            else:
                metadata[_NOTE] = RETOKENIZED_NOTE
        out.append(metadata)
    return out


#: Metadata keys as plain strings (a chunk's metadata has plain string keys).
_TOKEN_START, _TOKEN_END, _TOKEN_COUNT = "token_start", "token_end", str(Meta.TOKEN_COUNT)
_SNAPPED, _OVER_SIZE_LIMIT = str(Meta.SNAPPED), str(Meta.OVER_SIZE_LIMIT)
_INDIVISIBLE, _NOTE = str(Meta.INDIVISIBLE), str(Meta.NOTE)


__all__ = [
    "RETOKENIZED_NOTE",
    "SpanTokens",
    "Window",
    "document_tokens",
    "overlapping_windows",
    "tiles",
    "tokens_of_span",
    "window_metadata",
    "window_starts",
    "windows_metadata",
]
