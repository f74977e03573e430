"""Recursive separator splitting (seed 000 §13.4) with exact offsets and honest overlap.

The text is split at the first separator of the hierarchy that occurs in it; pieces that fit
``chunk_size`` tokens are merged greedily into chunks, pieces that do not are split again with
the next separators. Unlike the popular splitter, nothing is stripped or re-joined: every chunk
is a span of the document, cut positions are chosen where the tokenizer's count stays additive,
and overlap is taken from the tail of the previous chunk at a word boundary, so it does not
silently vanish when pieces are larger than the overlap.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable


from chunkviz.errors import InvalidParamError
from chunkviz.spancount import SpanCounter, best_cut, shared_counter
from chunkviz.strategies.base import check_overlap_below_size, param, register
from chunkviz.tokenizers import Tokenizer
from chunkviz.types import Chunk, Reason

#: Separator hierarchies. Every preset ends with "" (single characters) so that no chunk has
#: to exceed the limit; the seeds' lists stop at " ".
PRESETS: dict[str, list[str]] = {
    "default": ["\n\n", "\n", " ", ""],
    "markdown": ["\n# ", "\n## ", "\n### ", "\n#### ", "\n\n", "\n", " ", ""],
    "python": ["\nclass ", "\ndef ", "\n\n", "\n", " ", ""],
    "guide": ["\n## ", "\n### ", "\n\n", "\n", ". ", " ", ""],
}

_SEPARATOR_REASONS = {
    "\n\n": Reason.PARAGRAPH,
    "\n": Reason.LINE,
    " ": Reason.WORD,
    "": Reason.CHARACTER,
    "\n# ": Reason.HEADING,
    "\n## ": Reason.HEADING,
    "\n### ": Reason.HEADING,
    "\n#### ": Reason.HEADING,
    "\nclass ": Reason.CLASS,
    "\ndef ": Reason.FUNCTION,
    ". ": Reason.SENTENCE,
}


@dataclass(frozen=True)
class RecursiveParams:
    chunk_size: int = param(500, "maximum tokens per chunk", minimum=1, maximum=100_000)
    overlap: int = param(50, "tokens repeated from the end of the previous chunk", minimum=0, maximum=100_000)
    separators: str | list[str] = param(
        "default",
        "separator hierarchy: a preset (default, markdown, python, guide) or a list of strings",
    )

    def __post_init__(self) -> None:
        check_overlap_below_size("recursive", self.chunk_size, self.overlap, 50)
        resolve_separators(self.separators)


#: Edge effects of tokenizing a span alone versus inside the document stay within this many tokens.
_ESTIMATE_SLACK = 16


def resolve_separators(separators: str | Iterable[str]) -> list[str]:
    """A preset name or a list of separator strings, validated."""
    if isinstance(separators, str):
        text = separators.strip()
        if text.startswith("["):
            import json

            try:
                separators = json.loads(text)
            except json.JSONDecodeError as exc:
                raise InvalidParamError("recursive", "separators", f"is not a valid JSON list: {exc}") from None
        elif text in PRESETS:
            return list(PRESETS[text])
        else:
            raise InvalidParamError(
                "recursive", "separators", f"must be one of {', '.join(PRESETS)} or a list of strings, got {text!r}"
            )
    if not isinstance(separators, (list, tuple)):
        raise InvalidParamError(
            "recursive", "separators", f"must be a preset name ({', '.join(PRESETS)}) or a list of strings, got {separators!r}"
        )
    result = list(separators)
    if not result or not all(isinstance(s, str) for s in result):
        raise InvalidParamError("recursive", "separators", "must be a non-empty list of strings")
    return result


def separator_reason(separator: str) -> str:
    return str(_SEPARATOR_REASONS.get(separator, Reason.SEPARATOR))


def _separator_regex(separator: str) -> re.Pattern[str]:
    """A literal separator; a line break in it also matches CRLF so Windows text splits alike."""
    parts = [re.escape(part) for part in separator.split("\n")]
    return re.compile(r"\r?\n".join(parts))


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
        self.cut_reason: dict[int, str] = {}
        self.cut_separator: dict[int, str] = {}
        self._patterns = [_separator_regex(sep) for sep in separators]

    # ---- public ------------------------------------------------------------------------
    def chunk_spans(self) -> list[tuple[int, int, bool]]:
        """(start, end, over_limit) of every chunk, in order."""
        return self.split_span(0, len(self.text))

    def split_span(self, start: int, end: int) -> list[tuple[int, int, bool]]:
        """(start, end, over_limit) of the chunks of ``text[start:end]`` alone."""
        spans: list[tuple[int, int, bool]] = []
        self._split(start, end, 0, spans)
        return spans

    # ---- splitting -----------------------------------------------------------------------
    def _split(self, start: int, end: int, level: int, spans: list[tuple[int, int, bool]]) -> None:
        """Chunk [start, end) with separators[level:], appending to ``spans``."""
        level = self._first_separator_level(start, end, level)
        if level is None:  # no separator left: an indivisible piece
            spans.append((start, end, self.counter.count(start, end) > self.chunk_size))
            return
        count = self.counter.count
        size = self.chunk_size
        reason = separator_reason(self.separators[level])
        pos = start
        while pos < end:
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
                    self._mark(piece_end, level, reason)
                pos = piece_end
                continue
            spans.append((chunk_start, cut, False))
            if cut < end:
                self._mark(cut, level, reason)
            pos = cut

    def _mark(self, cut: int, level: int, reason: str) -> None:
        self.cut_reason.setdefault(cut, reason)
        self.cut_separator.setdefault(cut, self.separators[level])

    def _first_separator_level(self, start: int, end: int, level: int) -> int | None:
        """The first separator from ``level`` on that occurs inside [start, end)."""
        for lvl in range(level, len(self.separators)):
            if self.separators[lvl] == "":
                return lvl if end - start > 1 else None
            if self._patterns[lvl].search(self.text, start, end) is not None:
                return lvl
        return None

    def _run_of(self, occurrence: int, length: int) -> tuple[int, int]:
        """The whole whitespace run around a separator occurrence (so a line separator never
        cuts between the two line breaks of a paragraph break)."""
        text = self.text
        start, end = occurrence, occurrence + length
        while start > 0 and text[start - 1].isspace():
            start -= 1
        while end < len(text) and text[end].isspace():
            end += 1
        return start, end

    def _cut_of(self, occurrence: int, length: int) -> int:
        start, end = self._run_of(occurrence, length)
        return best_cut(self.text, start, end, self.counter)

    def _budget_limit(self, chunk_start: int) -> int:
        """The furthest character a clean cut may reach within the token budget."""
        counter = self.counter
        starts = counter.bounds.positions
        index = counter.tokens_before(chunk_start) + self.chunk_size
        return len(self.text) if index >= len(starts) - 1 else int(starts[index])

    def _last_fitting_cut(self, chunk_start: int, pos: int, end: int, level: int) -> int | None:
        """Largest cut c in (pos, end] of this level with count(chunk_start, c) <= chunk_size."""
        count = self.counter.count
        size = self.chunk_size
        # the document's token positions bound the count within a few tokens at each edge, so a
        # span estimated far over the budget is not re-tokenized (that would be quadratic)
        if self.counter.estimate(chunk_start, end) <= size + _ESTIMATE_SLACK and count(chunk_start, end) <= size:
            return end
        limit = min(self._budget_limit(chunk_start), end)
        if self.separators[level] == "":
            cut = limit
            while cut > pos and count(chunk_start, cut) > size:
                cut -= 1
            while cut + 1 < end and count(chunk_start, cut + 1) <= size:
                cut += 1
            return cut if cut > pos else None
        text = self.text
        # a separator whose whitespace run starts within the budget counts even if its line
        # breaks come after it: extend the search over the whitespace run at the budget's edge
        search_end = limit
        while search_end < end and text[search_end].isspace():
            search_end += 1
        hi = min(end, search_end + len(self.separators[level]) + 2)
        for _ in range(256):
            found = self._last_match(level, pos, hi)
            if found is None:
                return None
            best, best_end = found
            run_start, run_end = self._run_of(best, best_end - best)
            # the preferred cut of the run, else its start (the run's whitespace goes to the next piece)
            for cut in (best_cut(text, run_start, run_end, self.counter), run_start):
                if pos < cut < end and count(chunk_start, cut) <= size:
                    return cut
            hi = min(best, run_start)  # earlier occurrences only (outside this whitespace run)
            if hi <= pos:
                return None
        return None

    def _last_match(self, level: int, lo: int, hi: int) -> tuple[int, int] | None:
        """The last occurrence of this level's separator inside [lo, hi) (CRLF-aware), searching
        backwards in growing windows."""
        pattern = self._patterns[level]
        width = 512
        while True:
            start = max(lo, hi - width)
            last = None
            for last in pattern.finditer(self.text, start, hi):
                pass
            if last is not None:
                return last.start(), last.end()
            if start == lo:
                return None
            width *= 4

    def _next_cut(self, pos: int, end: int, level: int) -> int:
        """The first cut of this level after ``pos`` (or ``end``)."""
        if self.separators[level] == "":
            return pos + 1
        for match in self._patterns[level].finditer(self.text, pos, end):
            cut = self._cut_of(match.start(), match.end() - match.start())
            if pos < cut < end:
                return cut
        return end

    def _char_at_token(self, token_index: int) -> int:
        positions = self.counter.bounds.positions
        if token_index >= len(positions) - 1:
            return len(self.text)
        return int(positions[max(token_index, 0)])

    def _overlap_start(self, prev_start: int, end: int) -> int:
        """Start of the longest tail of the previous chunk with at most ``overlap`` tokens that
        begins at a word boundary (any character boundary when the text has no spaces)."""
        count = self.counter.count
        approx = self._char_at_token(self.counter.tokens_before(end) - self.overlap - 2)
        lo = min(max(prev_start + 1, approx), end)
        for match in _WORD_START.finditer(self.text, lo, end):
            if count(match.start(), end) <= self.overlap:
                return match.start()
        if _WORD_START.search(self.text, prev_start + 1, end) is not None:
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


def chunk_recursive_spans(
    text: str, tokenizer: Tokenizer, chunk_size: int, overlap: int, separators: list[str]
) -> tuple[list[tuple[int, int, bool]], RecursiveSplitter]:
    """Chunk spans and the splitter (for cut reasons); used by other strategies too."""
    splitter = RecursiveSplitter(text, tokenizer, chunk_size, overlap, separators)
    return splitter.chunk_spans(), splitter


@register(
    "recursive",
    "Split at the first separator in a hierarchy (paragraph, line, word, character) and merge pieces up to chunk_size tokens.",
    RecursiveParams,
)
def recursive(text: str, params: RecursiveParams, tokenizer: Tokenizer) -> list[Chunk]:
    separators = resolve_separators(params.separators)
    spans, splitter = chunk_recursive_spans(text, tokenizer, params.chunk_size, params.overlap, separators)
    return spans_to_recursive_chunks(text, spans, splitter)


def spans_to_recursive_chunks(
    text: str, spans: list[tuple[int, int, bool]], splitter: RecursiveSplitter, extra: dict[str, object] | None = None
) -> list[Chunk]:
    """Chunks for the splitter's spans: the reason and separator of each cut, flags for pieces
    over the limit, plus ``extra`` metadata on every chunk."""
    chunks = []
    for index, (start, end, over) in enumerate(spans):
        if end >= len(text):
            reason = str(Reason.END_OF_DOCUMENT)
        else:
            reason = splitter.cut_reason.get(end, str(Reason.CHARACTER))
        metadata: dict[str, object] = dict(extra or {})
        if end in splitter.cut_separator and end < len(text):
            metadata["separator"] = splitter.cut_separator[end]
        if over:
            metadata["over_limit"] = True
            metadata["indivisible"] = True
        chunks.append(Chunk.from_span(text, index, start, end, reason, metadata=metadata))
    return chunks
