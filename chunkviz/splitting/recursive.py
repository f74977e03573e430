"""The recursive separator splitter (seed 000 §13.4): exact spans, honest overlap.

A span is split at the first separator of a hierarchy that occurs in it; pieces that fit the
token budget are merged greedily, pieces that do not are split again with the next separators.
Nothing is stripped or re-joined: every piece is a span of the document, cut positions are
chosen where the tokenizer's count stays additive, and overlap is taken from the tail of the
previous piece at a word boundary. The separators ``"\n\n"`` and ``"\n"`` mean the document
structure's paragraph and line breaks (:mod:`chunkviz.document.structure`), so a paragraph is
the same thing here as everywhere else.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
from typing import Iterable

from chunkviz.core.deadline import check_time
from chunkviz.core.errors import InvalidParamError
from chunkviz.core.sidefile import parse_json
from chunkviz.core.vocabulary import Reason
from chunkviz.document.structure import (
    LINE_BREAK,
    LINE_BREAK_CHARS,
    PARAGRAPH_SEPARATOR,
    SpaceRuns,
)
from chunkviz.splitting.pieces import Piece
from chunkviz.text.spancount import SpanCounter, best_cut, shared_counter
from chunkviz.text.tokenizers import Tokenizer

#: Separator hierarchies. Every preset ends with "" (single characters) so that no chunk has
#: to exceed the limit; the seeds' lists stop at " ".
PRESETS: dict[str, list[str]] = {
    "default": ["\n\n", "\n", " ", ""],
    "markdown": ["\n# ", "\n## ", "\n### ", "\n#### ", "\n\n", "\n", " ", ""],
    "python": ["\nclass ", "\ndef ", "\n\n", "\n", " ", ""],
    "guide": ["\n## ", "\n### ", "\n\n", "\n", ". ", " ", ""],
    #: Chroma's chunking study (its RecursiveTokenChunker and ClusterSemanticChunker pieces).
    "chroma": ["\n\n", "\n", ".", "?", "!", " ", ""],
}

#: Edge effects of tokenizing a span alone versus inside the document stay within this many tokens.
_ESTIMATE_SLACK = 16


def resolve_separators(separators: str | Iterable[str], strategy: str = "recursive") -> list[str]:
    """A preset name, a JSON list or a list of separator strings, validated."""
    if isinstance(separators, str):
        text = separators.strip()
        if text.startswith("["):
            try:  # nesting and number lengths bounded, as in a side file
                separators = parse_json(text, lambda _line, problem: InvalidParamError(strategy, "separators", problem))
            except json.JSONDecodeError as exc:
                raise InvalidParamError(strategy, "separators", f"is not a valid JSON list: {exc}") from None
        elif text in PRESETS:
            return list(PRESETS[text])
        else:
            raise InvalidParamError(
                strategy, "separators", f"must be one of {', '.join(PRESETS)} or a list of strings, got {text!r}"
            )
    if not isinstance(separators, (list, tuple)):
        raise InvalidParamError(
            "recursive",
            "separators",
            f"must be a preset name ({', '.join(PRESETS)}) or a list of strings, got {separators!r}",
        )
    result = list(separators)
    if not result or not all(isinstance(s, str) for s in result):
        raise InvalidParamError(strategy, "separators", "must be a non-empty list of strings")
    return result


def _separator_regex(separator: str) -> re.Pattern[str]:
    """A literal separator; a line break in it also matches CRLF so Windows text splits alike.
    ``"\n\n"`` and ``"\n"`` are the structure's paragraph and line breaks."""
    if separator == "\n\n":
        return PARAGRAPH_SEPARATOR
    if separator == "\n":
        return LINE_BREAK
    parts = [re.escape(part) for part in separator.split("\n")]
    return re.compile(r"\r?\n".join(parts))


def _lead_chars(separator: str) -> tuple[str, ...]:
    """The characters an occurrence of ``separator`` can start with (see ``_separator_regex``)."""
    if separator in ("\n\n", "\n"):
        return tuple(LINE_BREAK_CHARS)  # the structure's breaks start with a line break character
    if separator.startswith("\n"):
        return ("\r", "\n")
    return (separator[0],)


@functools.lru_cache(maxsize=16)
def _present(text: str, chars: tuple[str, ...]) -> tuple[str, ...]:
    """The ``chars`` that occur in ``text`` (cached: splitters are built per unit of one text)."""
    return tuple(ch for ch in chars if ch in text)


def _self_overlapping(separator: str) -> bool:
    """Whether two occurrences of ``separator`` can overlap (e.g. "aa" in "aaa")."""
    return any(separator[:k] == separator[-k:] for k in range(1, len(separator)))


class _SeparatorFinder:
    """First and last occurrence of one separator in a range of the text.

    Candidates are found with ``str.find``/``str.rfind`` on the characters an occurrence can start
    with (C speed, no regex scan over every character), then confirmed with the separator's regex.
    ``first`` equals ``pattern.search``; ``last`` is the occurrence that starts last.
    """

    def __init__(self, text: str, separator: str) -> None:
        self.text = text
        self.pattern = _separator_regex(separator)
        # lead characters absent from the text are never searched for (most texts have only "\n")
        self.lead = _present(text, _lead_chars(separator))
        # a plain separator is its own regex: str.rfind finds its last occurrence directly
        self.literal = separator if "\n" not in separator and not _self_overlapping(separator) else None

    def first(self, lo: int, hi: int) -> tuple[int, int] | None:
        if self.literal is not None:
            at = self.text.find(self.literal, lo, hi)
            return None if at < 0 else (at, at + len(self.literal))
        if not self.lead:
            return None
        # growing windows: a rare lead character is not searched for up to the end of the text
        width = _WINDOW
        while lo < hi:
            found = self._first_in(lo, min(hi, lo + width), hi)
            if found is not None:
                return found
            lo, width = lo + width, width * 4
        return None

    def last(self, lo: int, hi: int) -> tuple[int, int] | None:
        if self.literal is not None:
            at = self.text.rfind(self.literal, lo, hi)
            return None if at < 0 else (at, at + len(self.literal))
        if not self.lead:
            return None
        width = _WINDOW
        top = hi
        while lo < top:
            found = self._last_in(max(lo, top - width), top, hi)
            if found is not None:
                return found
            top, width = top - width, width * 4
        return None

    def _first_in(self, lo: int, window_end: int, hi: int) -> tuple[int, int] | None:
        """The first occurrence that starts in [lo, window_end) and ends by ``hi``."""
        text, match = self.text, self.pattern.match
        next_at = {ch: text.find(ch, lo, window_end) for ch in self.lead}
        while True:
            at = min((p for p in next_at.values() if p >= 0), default=-1)
            if at < 0:
                return None
            found = match(text, at, hi)
            if found is not None:
                return found.start(), found.end()
            ch = text[at]
            next_at[ch] = text.find(ch, at + 1, window_end)

    def _last_in(self, lo: int, window_end: int, hi: int) -> tuple[int, int] | None:
        """The last occurrence that starts in [lo, window_end) and ends by ``hi``."""
        text, match = self.text, self.pattern.match
        last_at = {ch: text.rfind(ch, lo, window_end) for ch in self.lead}
        while True:
            at = max(last_at.values(), default=-1)
            if at < 0:
                return None
            found = match(text, at, hi)
            if found is not None:
                return found.start(), found.end()
            ch = text[at]
            last_at[ch] = text.rfind(ch, lo, at)


class _BudgetCheck:
    """``count(chunk_start, cut) <= size`` for the cuts of one chunk, with the chunk start's
    token index and cleanness computed once (a clean cut is then one bisect)."""

    __slots__ = ("counter", "starts", "text", "clean", "chunk_start", "size", "first_token", "clean_start")

    def __init__(self, counter: SpanCounter, chunk_start: int, size: int) -> None:
        self.counter = counter
        self.starts = counter.starts
        self.text = counter.text
        self.clean = counter.clean_rule
        self.chunk_start = chunk_start
        self.size = size
        self.first_token = bisect.bisect_left(self.starts, chunk_start)
        self.clean_start = self.clean(self.text, chunk_start)

    def __call__(self, cut: int) -> bool:
        if self.clean_start and cut > self.chunk_start and self.clean(self.text, cut):
            return bisect.bisect_left(self.starts, cut) - self.first_token <= self.size
        return self.counter.count(self.chunk_start, cut) <= self.size

    def estimate(self, cut: int) -> int:
        """Roughly how many tokens ``cut`` is over the budget (negative: under)."""
        return bisect.bisect_left(self.starts, cut) - self.first_token - self.size

    def budget_limit(self) -> int:
        """The furthest character a clean cut may reach within the token budget."""
        index = self.first_token + self.size
        return self.starts[index] if index < len(self.starts) else len(self.text)


#: First search window of :class:`_SeparatorFinder` (characters); it grows fourfold.
_WINDOW = 2048


class RecursiveSplitter:
    """Splits one document; holds the span counter and the reason of every cut.

    The pieces of a separator level are never all materialized: from the current position the
    chunk's token budget gives the furthest admissible character (exact arithmetic on the
    document's token starts), and the last separator occurrence before it is found by searching
    backwards. A piece that does not fit on its own is split with the next separators. The
    result equals greedy merging of the pieces of each level, as in the popular splitter.
    """

    def __init__(
        self,
        text: str,
        tokenizer: Tokenizer,
        chunk_size: int,
        overlap: int,
        separators: list[str],
        counter: SpanCounter | None = None,
    ):
        self.text = text
        self.counter = counter or shared_counter(text, tokenizer)
        self.chunk_size = chunk_size
        self.overlap = overlap
        self.separators = separators
        self.cut_separator: dict[int, str] = {}
        self._finders = [_SeparatorFinder(text, sep) if sep else None for sep in separators]
        self._spaces = SpaceRuns(text)
        self._run_cuts: dict[tuple[int, int], int] = {}  # best_cut of each run met (one per run)

    # ---- public ------------------------------------------------------------------------
    def split_span(self, start: int, end: int, final_reason: Reason = Reason.SIZE_LIMIT) -> list[Piece]:
        """Pieces of ``text[start:end]`` alone: every inner cut is ``size_limit`` with the
        separator it was made at; the last piece ends with ``final_reason``."""
        spans: list[tuple[int, int, bool]] = []
        self._split(start, end, 0, spans)
        last = len(spans) - 1
        return [
            Piece(a, b, final_reason, None, over)
            if k == last
            else Piece(a, b, Reason.SIZE_LIMIT, self.cut_separator.get(b), over)
            for k, (a, b, over) in enumerate(spans)
        ]

    # ---- splitting -----------------------------------------------------------------------
    def _split(self, start: int, end: int, level: int, spans: list[tuple[int, int, bool]]) -> None:
        """Chunk [start, end) with separators[level:], appending to ``spans``."""
        found = self._first_separator_level(start, end, level)
        if found is None:  # no separator left: an indivisible piece
            spans.append((start, end, self.counter.count(start, end) > self.chunk_size))
            return
        level = found
        count = self.counter.count
        size = self.chunk_size
        pos = start
        while pos < end:
            check_time()  # the app's time limit (a no-op without one)
            chunk_start = pos
            if self.overlap and spans and spans[-1][1] == pos and not spans[-1][2]:
                chunk_start = self._overlap_start(spans[-1][0], pos)
            cut = self._last_fitting_cut(chunk_start, pos, end, level)
            if cut is None and chunk_start < pos:  # the overlap leaves no room: drop it
                chunk_start = pos
                cut = self._last_fitting_cut(chunk_start, pos, end, level)
            if cut is None:  # the next piece alone is too large: split it further
                piece_end = self._next_cut(pos, end, level)
                if piece_end - pos == 1 or level + 1 >= len(self.separators):
                    spans.append((pos, piece_end, count(pos, piece_end) > size))
                else:
                    self._split(pos, piece_end, level + 1, spans)
                if piece_end < end:
                    self._mark(piece_end, level)
                pos = piece_end
                continue
            spans.append((chunk_start, cut, False))
            if cut < end:
                self._mark(cut, level)
            pos = cut

    def _mark(self, cut: int, level: int) -> None:
        self.cut_separator.setdefault(cut, self.separators[level])

    def _first_separator_level(self, start: int, end: int, level: int) -> int | None:
        """The first separator from ``level`` on that occurs inside [start, end)."""
        for lvl in range(level, len(self.separators)):
            if self.separators[lvl] == "":
                return lvl if end - start > 1 else None
            if self._finders[lvl].first(start, end) is not None:  # type: ignore[union-attr]  # None only for "", handled above
                return lvl
        return None

    def _run_of(self, occurrence: int, length: int) -> tuple[int, int]:
        """The whole whitespace run around a separator occurrence (so a line separator never
        cuts between the two line breaks of a paragraph break)."""
        return self._spaces.start_before(occurrence), self._spaces.end_after(occurrence + length)

    def _run_cut(self, run_start: int, run_end: int) -> int:
        """``best_cut`` of a run, computed once per run (every separator inside a run shares it)."""
        cut = self._run_cuts.get((run_start, run_end))
        if cut is None:
            cut = self._run_cuts[(run_start, run_end)] = best_cut(self.text, run_start, run_end, self.counter)
        return cut

    def _cut_of(self, occurrence: int, length: int) -> int:
        return self._run_cut(*self._run_of(occurrence, length))

    def _last_fitting_cut(self, chunk_start: int, pos: int, end: int, level: int) -> int | None:
        """Largest cut c in (pos, end] of this level with count(chunk_start, c) <= chunk_size."""
        fits = _BudgetCheck(self.counter, chunk_start, self.chunk_size)
        # the document's token positions bound the count within a few tokens at each edge, so a
        # span estimated far over the budget is not re-tokenized (that would be quadratic)
        if fits.estimate(end) <= _ESTIMATE_SLACK and fits(end):
            return end
        limit = min(fits.budget_limit(), end)
        if self.separators[level] == "":
            cut = limit
            while cut > pos and not fits(cut):
                check_time()
                cut -= 1
            while cut + 1 < end and fits(cut + 1):
                cut += 1
            return cut if cut > pos else None
        # a separator whose whitespace run starts within the budget counts even if its line
        # breaks come after it: extend the search over the whitespace run at the budget's edge
        spaces, run_cuts = self._spaces, self._run_cuts
        search_end = min(spaces.end_after(limit), end) if limit < end else limit
        hi = min(end, search_end + len(self.separators[level]) + 2)
        last_match = self._finders[level].last  # type: ignore[union-attr]  # None only for "", handled above
        for _ in range(256):
            found = last_match(pos, hi)
            if found is None:
                return None
            best, best_end = found
            # the whole whitespace run around the occurrence (see _run_of)
            run_start, run_end = spaces.start_before(best), spaces.end_after(best_end)
            run_cut = run_cuts.get((run_start, run_end))
            if run_cut is None:
                run_cut = self._run_cut(run_start, run_end)
            # the preferred cut of the run, else its start (the run's whitespace goes to the next piece)
            if pos < run_cut < end and fits(run_cut):
                return run_cut
            if pos < run_start < end and fits(run_start):
                return run_start
            hi = min(best, run_start)  # earlier occurrences only (outside this whitespace run)
            if hi <= pos:
                return None
        return None

    def _last_match(self, level: int, lo: int, hi: int) -> tuple[int, int] | None:
        """The last occurrence of this level's separator inside [lo, hi) (CRLF-aware)."""
        return self._finders[level].last(lo, hi)  # type: ignore[union-attr]  # callers never ask for the "" level

    def _next_cut(self, pos: int, end: int, level: int) -> int:
        """The first cut of this level after ``pos`` (or ``end``)."""
        if self.separators[level] == "":
            return pos + 1
        finder = self._finders[level]
        text = self.text
        at = pos
        while (found := finder.first(at, end)) is not None:  # type: ignore[union-attr]  # None only for "", returned above
            run_start, run_end = self._run_of(found[0], found[1] - found[0])
            cut = self._run_cut(run_start, run_end)
            if pos < cut < end:
                return cut
            # every later occurrence inside the same whitespace run has the same run and cut
            at = max(found[1], run_end) if text[found[0] : found[1]].isspace() else found[1]
        return end

    def _overlap_start(self, prev_start: int, end: int) -> int:
        """Start of the longest tail of the previous chunk with at most ``overlap`` tokens that
        begins at a word boundary (any character boundary when the text has no spaces)."""
        counter, text, overlap = self.counter, self.text, self.overlap
        count, clean, starts = counter.count, counter.clean_rule, counter.starts
        end_token = bisect.bisect_left(starts, end)  # counter.tokens_before(end)
        first_token = end_token - overlap  # the overlap's first token
        lo = min(max(prev_start + 1, counter.char_at_token(first_token - 2)), end)
        word_lo = lo
        end_is_clean = clean(text, end)
        if end_is_clean and first_token >= 1:
            # a word start (a clean cut) at or before token first_token - 1 starts a tail of more
            # than ``overlap`` tokens: the first candidate is just after that token's start
            word_lo = min(max(lo, counter.char_at_token(first_token - 1) + 1), end)
        while (match := _WORD_START.search(text, word_lo, end)) is not None:
            at = match.start()
            if end_is_clean and clean(text, at):  # count(at, end) between two clean cuts: arithmetic
                check_time()
                tail = end_token - bisect.bisect_left(starts, at)
            else:
                tail = count(at, end)
            if tail <= overlap:
                return at
            word_lo = at + 1
        if _WORD_START.search(text, prev_start + 1, end) is not None:
            return end  # the text has word boundaries but no word-aligned tail fits: no overlap
        # no word boundary (e.g. CJK): binary search over character positions
        low, high = lo, end
        while low < high:
            mid = (low + high) // 2
            if count(mid, end) <= self.overlap:
                high = mid
            else:
                low = mid + 1
        return low


# a cut before a space that follows a non-space, or at a line start after a line break
_WORD_START = re.compile(r"(?<=\S)(?=[ \t])|(?<=\n)(?=\S)")
