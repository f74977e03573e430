"""Recursive separator splitting (seed 000 §13.4) with exact offsets and honest overlap.

The text is split at the first separator of the hierarchy that occurs in it; pieces that fit
``chunk_size`` tokens are merged greedily into chunks, pieces that do not are split again with
the next separators. Unlike the popular splitter, nothing is stripped or re-joined: every chunk
is a span of the document, cut positions are chosen where the tokenizer's count stays additive,
and overlap is taken from the tail of the previous chunk at a word boundary, so it does not
silently vanish when pieces are larger than the overlap.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Iterable


from chunkviz.errors import InvalidParamError
from chunkviz.spancount import SpanCounter, best_cut
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


@dataclass
class _Run:
    """Consecutive pieces (start, end) that may be merged into chunks together."""

    cuts: list[int]  # piece boundaries: piece k is [cuts[k], cuts[k + 1])


class RecursiveSplitter:
    """Splits one document; holds the span counter and the reason of every cut."""

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
        self.counter = counter or SpanCounter(text, tokenizer)
        self.chunk_size = chunk_size
        self.overlap = overlap
        self.separators = separators
        self.cut_reason: dict[int, str] = {}
        self.cut_separator: dict[int, str] = {}

    # ---- splitting -------------------------------------------------------------------
    def _split(self, start: int, end: int, level: int, runs: list[_Run]) -> None:
        """Split [start, end) with separators[level:]; append mergeable runs in order."""
        level, cuts = self._first_separator_cuts(start, end, level)
        if level is None:  # no separator left: an indivisible piece
            runs.append(_Run([start, end]))
            return
        counts = self._piece_counts(cuts)
        current = [cuts[0]]
        for k, count in enumerate(counts):
            a, b = cuts[k], cuts[k + 1]
            if count <= self.chunk_size or (b - a == 1):
                current.append(b)
                continue
            if len(current) > 1:
                runs.append(_Run(current))
            self._split(a, b, level + 1, runs)
            current = [b]
        if len(current) > 1:
            runs.append(_Run(current))

    def _first_separator_cuts(self, start: int, end: int, level: int) -> tuple[int | None, list[int]]:
        """The first separator from ``level`` on that splits [start, end), and its cut positions."""
        for lvl in range(level, len(self.separators)):
            sep = self.separators[lvl]
            if sep == "":
                cuts = list(range(start, end + 1))
            else:
                cuts = self._separator_cuts(sep, start, end)
            if len(cuts) > 2:
                reason = separator_reason(sep)
                for c in cuts[1:-1]:
                    self.cut_reason.setdefault(c, reason)
                    self.cut_separator.setdefault(c, sep)
                return lvl, cuts
        return None, [start, end]

    def _separator_cuts(self, sep: str, start: int, end: int) -> list[int]:
        text = self.text
        cuts = [start]
        for match in _separator_regex(sep).finditer(text, start, end):
            cut = self._choose_cut(match.start(), match.end())
            if cut <= cuts[-1] or cut >= end:
                continue
            if _NON_SPACE.search(text, cuts[-1], cut) is None:  # never leave a whitespace-only piece
                if len(cuts) > 1:
                    cuts[-1] = cut
                continue
            cuts.append(cut)
        if len(cuts) > 1 and _NON_SPACE.search(text, cuts[-1], end) is None:
            cuts.pop()
        cuts.append(end)
        return cuts

    def _choose_cut(self, q: int, r: int) -> int:
        return best_cut(self.text, q, r, self.counter)

    def _piece_counts(self, cuts: list[int]) -> list[int]:
        counter = self.counter
        clean = [counter.is_clean(c) for c in cuts]
        before = counter.tokens_before_many(cuts)
        counts = []
        for k in range(len(cuts) - 1):
            if clean[k] and clean[k + 1]:
                counts.append(int(before[k + 1] - before[k]))
            else:
                counts.append(counter.tokenizer.count(self.text[cuts[k] : cuts[k + 1]]))
        return counts

    # ---- merging ---------------------------------------------------------------------
    def chunk_spans(self) -> list[tuple[int, int, bool]]:
        """(start, end, over_limit) of every chunk, in order."""
        return self.split_span(0, len(self.text))

    def split_span(self, start: int, end: int) -> list[tuple[int, int, bool]]:
        """(start, end, over_limit) of the chunks of ``text[start:end]`` alone."""
        runs: list[_Run] = []
        self._split(start, end, 0, runs)
        spans: list[tuple[int, int, bool]] = []
        for run in runs:
            self._pack(run.cuts, spans)
        return spans

    def _pack(self, cuts: list[int], spans: list[tuple[int, int, bool]]) -> None:
        count = self.counter.count
        size = self.chunk_size
        i = 0  # index of the first piece not yet in a chunk
        last = len(cuts) - 1
        while i < last:
            pos = self._overlap_start(spans, cuts[i]) if spans else cuts[i]
            if count(pos, cuts[i + 1]) > size:
                pos = cuts[i]
            j = self._furthest_fit(pos, cuts, i + 1)
            if j is None:  # a single piece over the limit: indivisible
                spans.append((cuts[i], cuts[i + 1], True))
                i += 1
                continue
            spans.append((pos, cuts[j], False))
            i = j

    def _furthest_fit(self, pos: int, cuts: list[int], first: int) -> int | None:
        """Largest j >= first with count(pos, cuts[j]) <= chunk_size, or None."""
        count = self.counter.count
        size = self.chunk_size
        if count(pos, cuts[first]) > size:
            return None
        target = self.counter.tokens_before(pos) + size
        lo = first
        hi = len(cuts) - 1
        # estimate by the document's token positions, then correct with exact counts
        guess = bisect.bisect_right(cuts, self._char_at_token(target), lo, hi + 1) - 1
        j = max(lo, min(guess, hi))
        while j > lo and count(pos, cuts[j]) > size:
            j -= 1
        while j < hi and count(pos, cuts[j + 1]) <= size:
            j += 1
        return j

    def _char_at_token(self, token_index: int) -> int:
        positions = self.counter.bounds.positions
        if token_index >= len(positions) - 1:
            return len(self.text)
        return int(positions[max(token_index, 0)])

    def _overlap_start(self, spans: list[tuple[int, int, bool]], end: int) -> int:
        """Start of the longest tail of the previous chunk with at most ``overlap`` tokens that
        begins at a word boundary (any character boundary when the text has no spaces)."""
        prev_start, prev_end, _ = spans[-1]
        if self.overlap == 0 or prev_end != end:
            return end
        count = self.counter.count
        approx = self._char_at_token(self.counter.tokens_before(end) - self.overlap - 2)
        lo = max(prev_start + 1, approx)
        found_any = False
        for match in _WORD_START.finditer(self.text, lo, end):
            found_any = True
            if count(match.start(), end) <= self.overlap:
                return match.start()
        if found_any:
            return end
        # no word boundary (e.g. CJK): binary search over character positions
        low, high = lo, end
        while low < high:
            mid = (low + high) // 2
            if count(mid, end) <= self.overlap:
                high = mid
            else:
                low = mid + 1
        return low


_NON_SPACE = re.compile(r"\S")
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
    chunks = []
    for index, (start, end, over) in enumerate(spans):
        if end >= len(text):
            reason = str(Reason.END_OF_DOCUMENT)
        else:
            reason = splitter.cut_reason.get(end, str(Reason.CHARACTER))
        metadata: dict[str, object] = {}
        if end in splitter.cut_separator and end < len(text):
            metadata["separator"] = splitter.cut_separator[end]
        if over:
            metadata["over_limit"] = True
            metadata["indivisible"] = True
        chunks.append(Chunk.from_span(text, index, start, end, reason, metadata=metadata))
    return chunks
