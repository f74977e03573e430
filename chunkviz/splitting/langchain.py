"""LangChain's RecursiveCharacterTextSplitter algorithm on document offsets.

A faithful port of ``langchain_text_splitters.RecursiveCharacterTextSplitter`` (``_split_text``,
``_split_text_with_regex``, ``_merge_splits`` with its overlap loop, ``strip_whitespace``) for
literal separators with the separator kept (``keep_separator`` ``"start"``, LangChain's ``True``,
or ``"end"``). It works on ``(start, end)`` offsets instead of strings, so every chunk is an
exact span: ``text[start:end]`` equals the string LangChain returns, in the same order.

Lengths are measured as LangChain measures them: ``length(piece)`` for every split on its own,
summed in ``_merge_splits`` together with ``length("")`` per join (the merge separator is ``""``
when the separator is kept). Where LangChain is quadratic (it copies the current window on every
pop and re-measures the popped split) this port keeps the same output at linear cost: each split
is measured once and the window is a pair of indices.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Literal

from chunkviz.core.errors import ChunkvizError

KeepSeparator = Literal["start", "end"]
KEEP_SEPARATOR: tuple[str, ...] = ("start", "end")


class LangChainSplitError(ChunkvizError, ValueError):
    """Parameters LangChain's splitter rejects (the message says which and why)."""


@dataclass(frozen=True)
class LangChainChunk:
    """One chunk as LangChain returns it, placed: ``text[start:end]`` is LangChain's string.

    ``cut_level`` is the separator level of the cut at its end (None: the text ended there);
    ``length`` is LangChain's measure of the chunk (its splits' lengths plus the join
    separators'), which is not the token count of the chunk's text; ``indivisible`` marks a
    split LangChain returns as it is because no separator is left to split it with.
    """

    start: int
    end: int
    cut_level: int | None
    length: int
    indivisible: bool = False


class LangChainSplitter:
    """Splits one text as ``RecursiveCharacterTextSplitter`` does, returning exact spans.

    ``length(piece)`` is the length function LangChain would be given. ``measured`` counts the
    calls to it and ``measured_chars`` the characters they were given (the cost of a split).
    """

    def __init__(
        self,
        text: str,
        separators: list[str],
        chunk_size: int,
        chunk_overlap: int,
        length: Callable[[str], int],
        keep_separator: KeepSeparator = "start",
        strip_whitespace: bool = True,
    ) -> None:
        _check(separators, chunk_size, chunk_overlap, keep_separator)
        self.text = text
        self.separators = list(separators)
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self.keep_separator = keep_separator
        self.strip_whitespace = strip_whitespace
        self._length = length
        self._lengths: dict[str, int] = {}
        self.measured = 0
        self.measured_chars = 0

    # ---- public ------------------------------------------------------------------------
    def split(self) -> list[LangChainChunk]:
        """The chunks of the whole text, in LangChain's order."""
        out: list[LangChainChunk] = []
        if self.text:
            self._split_text(0, len(self.text), 0, None, out)
        return out

    def length(self, start: int, end: int) -> int:
        """LangChain's length of ``text[start:end]`` (memoized per distinct string)."""
        piece = self.text[start:end]
        found = self._lengths.get(piece)
        if found is None:
            self.measured += 1
            self.measured_chars += end - start
            found = self._lengths[piece] = self._length(piece)
        return found

    # ---- _split_text -----------------------------------------------------------------------
    def _choose(self, start: int, end: int, first: int) -> tuple[int, int | None]:
        """The separator level LangChain uses for ``text[start:end]`` given ``separators[first:]``
        and the first level of the separators left for its pieces (None: none left)."""
        last = len(self.separators) - 1
        for level in range(first, len(self.separators)):
            separator = self.separators[level]
            if not separator:
                return level, None
            if self.text.find(separator, start, end) >= 0:
                return level, (level + 1 if level < last else None)
        return last, None

    def _splits(self, start: int, end: int, level: int) -> list[tuple[int, int]]:
        """``_split_text_with_regex`` with the separator kept: the non-empty pieces as spans."""
        separator = self.separators[level]
        if not separator:
            return [(p, p + 1) for p in range(start, end)]
        width = len(separator)
        shift = 0 if self.keep_separator == "start" else width
        cuts = [start]
        at = self.text.find(separator, start, end)
        while at >= 0:
            cuts.append(at + shift)
            at = self.text.find(separator, at + width, end)
        cuts.append(end)
        return [(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]

    def _split_text(self, start: int, end: int, first: int, final: int | None, out: list[LangChainChunk]) -> None:
        """Chunks of ``text[start:end]`` with ``separators[first:]``; the cut at ``end`` is of
        level ``final`` (None: the end of the text)."""
        level, deeper = self._choose(start, end, first)
        splits = self._splits(start, end, level)
        good: list[tuple[int, int, int]] = []
        for k, (a, b) in enumerate(splits):
            cut = final if k == len(splits) - 1 else level
            size = self.length(a, b)
            if size < self.chunk_size:
                good.append((a, b, size))
                continue
            if good:
                self._merge(good, level, level, out)
                good = []
            if deeper is None:
                out.append(LangChainChunk(a, b, cut, size, indivisible=True))
            else:
                self._split_text(a, b, deeper, cut, out)
        if good:
            self._merge(good, level, final, out)

    # ---- _merge_splits -----------------------------------------------------------------------
    def _merge(
        self, splits: list[tuple[int, int, int]], level: int, final: int | None, out: list[LangChainChunk]
    ) -> None:
        """``_merge_splits(splits, "")``: greedy windows of consecutive splits with LangChain's
        overlap loop; the window is ``splits[first:k]`` and ``total`` its LangChain length."""
        join = self.length(0, 0)  # LangChain measures the merge separator "" too
        size, overlap = self.chunk_size, self.chunk_overlap
        total = 0
        first = 0
        for k, (_, _, n) in enumerate(splits):
            if total + n + (join if k > first else 0) > size:
                if k > first:
                    self._emit(splits[first][0], splits[k - 1][1], level, total, out)
                    while total > overlap or (total + n + (join if k > first else 0) > size and total > 0):
                        total -= splits[first][2] + (join if k - first > 1 else 0)
                        first += 1
            total += n + (join if k > first else 0)
        self._emit(splits[first][0], splits[-1][1], final, total, out)

    def _emit(self, start: int, end: int, cut: int | None, total: int, out: list[LangChainChunk]) -> None:
        """``_join_docs``: the window's span, stripped of whitespace; nothing if that is empty."""
        if self.strip_whitespace:
            start, end = _stripped(self.text, start, end)
        if end > start:
            out.append(LangChainChunk(start, end, cut, total))


def _stripped(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of ``text[start:end].strip()``."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _check(separators: list[str], chunk_size: int, chunk_overlap: int, keep_separator: str) -> None:
    if not separators:
        raise LangChainSplitError("separators must be a non-empty list of strings")
    if chunk_size <= 0:
        raise LangChainSplitError(f"chunk_size must be > 0, got {chunk_size}")
    if chunk_overlap < 0:
        raise LangChainSplitError(f"chunk_overlap must be >= 0, got {chunk_overlap}")
    if chunk_overlap > chunk_size:
        raise LangChainSplitError(
            f"chunk_overlap ({chunk_overlap}) is larger than chunk_size ({chunk_size}); set it to at most {chunk_size}"
        )
    if keep_separator not in KEEP_SEPARATOR:
        raise LangChainSplitError(f"keep_separator must be 'start' or 'end', got {keep_separator!r}")


def split_spans(
    text: str,
    separators: list[str],
    chunk_size: int,
    chunk_overlap: int,
    length: Callable[[str], int],
    keep_separator: KeepSeparator = "start",
) -> list[tuple[int, int]]:
    """The spans of ``RecursiveCharacterTextSplitter(...).split_text(text)``, in order."""
    splitter = LangChainSplitter(text, separators, chunk_size, chunk_overlap, length, keep_separator)
    return [(c.start, c.end) for c in splitter.split()]


__all__ = [
    "KEEP_SEPARATOR",
    "KeepSeparator",
    "LangChainChunk",
    "LangChainSplitError",
    "LangChainSplitter",
    "split_spans",
]
