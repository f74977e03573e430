"""Greedy packing of natural units (sentences, paragraphs) into chunks under a token limit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from chunkviz.spancount import SpanCounter, best_cut
from chunkviz.strategies.recursive import RecursiveSplitter, separator_reason
from chunkviz.types import Chunk, Reason


@dataclass(frozen=True)
class PackedSpan:
    start: int
    end: int
    reason: str
    first_unit: int
    last_unit: int  # exclusive
    split_unit: bool = False
    over_limit: bool = False
    separator: str | None = None


def unit_cuts(text: str, unit_starts: list[int], counter: SpanCounter) -> list[int]:
    """Boundaries that tile ``text`` into units starting at ``unit_starts`` (the first unit
    takes any whitespace before it)."""
    return cuts_between(text, unit_starts[1:], counter, 0, len(text))


def cuts_between(text: str, starts: Sequence[int], counter: SpanCounter, start: int, end: int) -> list[int]:
    """Boundaries that tile ``text[start:end]`` into pieces beginning at each of ``starts``.

    The whitespace before each start is cut at a clean position (after a line break, else
    before the whitespace) so the pieces' token counts stay exact arithmetic.
    """
    cuts = [start]
    for unit_start in starts:
        gap_start = unit_start
        while gap_start > cuts[-1] + 1 and text[gap_start - 1].isspace():
            gap_start -= 1
        cut = best_cut(text, gap_start, unit_start, counter) if gap_start < unit_start else unit_start
        if cut > cuts[-1]:
            cuts.append(cut)
    if end > cuts[-1]:
        cuts.append(end)
    return cuts


def pack_units(
    text: str,
    cuts: list[int],
    counter: SpanCounter,
    max_tokens: int,
    overlap_units: int,
    unit_reason: str,
    split_separators: list[str],
    target_tokens: int | None = None,
) -> list[PackedSpan]:
    """Pack units ``[cuts[k], cuts[k+1])`` greedily into spans of at most ``max_tokens`` tokens.

    Each span after the first repeats up to ``overlap_units`` trailing units of the previous one,
    as many as fit. A unit longer than ``max_tokens`` on its own is split further with the
    recursive splitter on ``split_separators`` and its pieces are marked ``split_unit``.
    With ``target_tokens``, a span stops taking units once it has at least that many tokens
    (instead of filling up to ``max_tokens``).
    """
    count = counter.count
    n = len(cuts) - 1
    spans: list[PackedSpan] = []
    splitter: RecursiveSplitter | None = None
    i = 0
    while i < n:
        if count(cuts[i], cuts[i + 1]) > max_tokens:
            if splitter is None:
                splitter = RecursiveSplitter(text, counter.tokenizer, max_tokens, 0, split_separators, counter=counter)
            pieces = splitter.split_span(cuts[i], cuts[i + 1])
            for k, (start, end, over) in enumerate(pieces):
                last_piece = k == len(pieces) - 1
                if last_piece:
                    reason = unit_reason if end < len(text) else str(Reason.END_OF_DOCUMENT)
                else:
                    reason = splitter.cut_reason.get(end, str(Reason.CHARACTER))
                spans.append(
                    PackedSpan(start, end, reason, i, i + 1, split_unit=True, over_limit=over,
                               separator=None if last_piece else splitter.cut_separator.get(end))
                )
            i += 1
            continue
        first = i
        if spans and not spans[-1].split_unit and overlap_units > 0:
            prev = spans[-1]
            first = max(prev.first_unit + 1, prev.last_unit - overlap_units)
            while first < i and count(cuts[first], cuts[i + 1]) > max_tokens:
                first += 1
        j = i + 1
        while j < n and count(cuts[first], cuts[j + 1]) <= max_tokens:
            if target_tokens is not None and count(cuts[first], cuts[j]) >= target_tokens:
                break
            j += 1
        reason = unit_reason if cuts[j] < len(text) else str(Reason.END_OF_DOCUMENT)
        spans.append(PackedSpan(cuts[first], cuts[j], reason, first, j))
        i = j
    return spans


def spans_to_chunks(text: str, spans: list[PackedSpan], counter: SpanCounter, split_flag: str) -> list[Chunk]:
    chunks = []
    for index, span in enumerate(spans):
        metadata: dict[str, object] = {"units": [span.first_unit, span.last_unit]}
        if span.split_unit:
            metadata[split_flag] = True
        if span.over_limit:
            metadata["over_limit"] = True
            metadata["indivisible"] = True
        if span.separator is not None:
            metadata["separator"] = span.separator
        chunks.append(Chunk.from_span(text, index, span.start, span.end, span.reason, metadata=metadata))
    return chunks


__all__ = ["PackedSpan", "cuts_between", "pack_units", "spans_to_chunks", "unit_cuts", "separator_reason"]
