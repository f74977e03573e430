"""Where a cut falls: inside a word or grapheme, inside a sentence, inside a table or code block."""

from __future__ import annotations

import bisect
import re
from typing import Iterable, Sequence

from chunkviz.core.types import Chunk, Span
from chunkviz.core.vocabulary import Flag
from chunkviz.document.blocks import Block
from chunkviz.document.words import cuts_mid_word

_NON_SPACE = re.compile(r"\S")


class SentenceIndex:
    """Sorted sentence spans with O(log n) lookups."""

    def __init__(self, text: str, spans: Iterable[Span]) -> None:
        self.text = text
        ordered = sorted((int(s), int(e)) for s, e in spans if e > s)
        self.starts = [s for s, _ in ordered]
        self.ends = [e for _, e in ordered]
        self._content_starts: list[int] | None = None

    def cuts(self, pos: int) -> bool:
        """True when the non-whitespace text before and after ``pos`` is one sentence."""
        text = self.text
        if pos <= 0 or pos >= len(text):
            return False
        match = _NON_SPACE.search(text, pos)
        if match is None:
            return False
        after = match.start()
        k = bisect.bisect_right(self.starts, after) - 1
        if k < 0 or after >= self.ends[k]:
            return False
        # Is there non-whitespace in [sentence start, pos)? Scan back over whitespace only.
        start = self.starts[k]
        before = pos - 1
        while before >= start and text[before].isspace():
            before -= 1
        return before >= start

    def count_starting_in(self, start: int, end: int) -> int:
        """Number of sentences whose first non-whitespace character lies in ``[start, end)``."""
        if self._content_starts is None:
            content = []
            for s, e in zip(self.starts, self.ends):
                match = _NON_SPACE.search(self.text, s, e)
                if match is not None:
                    content.append(match.start())
            self._content_starts = content
        return bisect.bisect_left(self._content_starts, end) - bisect.bisect_left(self._content_starts, start)


def cut_key(text: str, pos: int) -> int:
    """One key per cut: positions in the same whitespace run are the same cut."""
    match = _NON_SPACE.search(text, pos)
    return match.start() if match is not None else len(text)


class CutFacts:
    """What a cut at a position splits, computed once per distinct position."""

    def __init__(self, text: str, sentences: SentenceIndex | None) -> None:
        self.text = text
        self.sentences = sentences
        self._word: dict[int, bool] = {}
        self._sentence: dict[int, bool] = {}

    def mid_word(self, pos: int) -> bool:
        value = self._word.get(pos)
        if value is None:
            value = self._word[pos] = cuts_mid_word(self.text, pos)
        return value

    def mid_sentence(self, pos: int) -> bool:
        if self.sentences is None:
            return False
        value = self._sentence.get(pos)
        if value is None:
            value = self._sentence[pos] = self.sentences.cuts(pos)
        return value


_SPLIT_FLAGS = {"table": Flag.SPLIT_TABLE, "code": Flag.SPLIT_CODE}


def split_block_flags(text: str, chunks: Sequence[Chunk], blocks: Sequence[Block]) -> dict[int, Flag]:
    """For each chunk whose end falls strictly inside a table or code block (text of the block
    on both sides of the cut): ``split_table`` / ``split_code``, by chunk index.

    ``blocks`` come from ``document.structure.of_kind("table", "code")``.
    """
    ordered = sorted((b for b in blocks if b.kind in _SPLIT_FLAGS), key=lambda b: b.start)
    if not ordered:
        return {}
    starts = [b.start for b in ordered]
    flags: dict[int, Flag] = {}
    for c in chunks:
        k = bisect.bisect_left(starts, c.end) - 1  # last block starting before the cut
        if k < 0 or c.end >= len(text):
            continue
        block = ordered[k]
        if c.end < block.end and text[block.start : c.end].strip() and text[c.end : block.end].strip():
            flags[c.index] = _SPLIT_FLAGS[block.kind]
    return flags
