"""The one packer: natural units (sentences, paragraphs, lines, sections) into size budgets.

Units are given as cuts that tile a span (unit ``k`` is ``[cuts[k], cuts[k+1])``). A
:class:`PackPolicy` says how to fill a chunk: up to ``max_tokens`` (always), stopping early once
it has ``min_tokens`` (reach a minimum), repeating ``overlap_units`` trailing units of the
previous chunk (overlap by units), and joining a small last chunk to the one before it (merge a
small tail). A unit over ``max_tokens`` on its own is split by the recursive splitter and its
pieces are marked ``split_unit``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

from chunkviz.core.deadline import check_time
from chunkviz.core.vocabulary import Meta, Reason
from chunkviz.splitting.pieces import Piece
from chunkviz.splitting.recursive import RecursiveSplitter
from chunkviz.text.spancount import SpanCounter, best_cut

#: How an over-long unit is split when the policy says nothing else: lines, words, characters.
UNIT_SPLIT_SEPARATORS: tuple[str, ...] = ("\n", " ", "")


@dataclass(frozen=True)
class PackPolicy:
    """How units are packed into chunks (see the module docstring)."""

    max_tokens: int
    min_tokens: int | None = None
    overlap_units: int = 0
    merge_small_tail: bool = False
    split_separators: tuple[str, ...] = UNIT_SPLIT_SEPARATORS
    #: why a chunk ends when its units run out (the end of the packed span)
    last_reason: Reason = Reason.UNIT_END


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


def unit_cuts(text: str, unit_starts: Sequence[int], counter: SpanCounter) -> list[int]:
    """Boundaries that tile the whole text into units starting at ``unit_starts`` (the first
    unit takes any whitespace before it)."""
    return cuts_between(text, list(unit_starts)[1:], counter, 0, len(text))


class _Packer:
    def __init__(self, text: str, cuts: Sequence[int], counter: SpanCounter, policy: PackPolicy) -> None:
        self.text = text
        self.cuts = cuts
        self.counter = counter
        self.policy = policy
        self._splitter: RecursiveSplitter | None = None

    def splitter(self) -> RecursiveSplitter:
        if self._splitter is None:
            self._splitter = RecursiveSplitter(
                self.text,
                self.counter.tokenizer,
                self.policy.max_tokens,
                0,
                list(self.policy.split_separators),
                counter=self.counter,
            )
        return self._splitter

    def pack(self) -> list[Piece]:
        cuts, count, policy = self.cuts, self.counter.count, self.policy
        n = len(cuts) - 1
        pieces: list[Piece] = []
        units: list[tuple[int, int]] = []  # (first unit, last unit exclusive) of each piece
        i = 0
        while i < n:
            check_time()  # the app's time limit (a no-op without one)
            if count(cuts[i], cuts[i + 1]) > policy.max_tokens:
                reason = policy.last_reason if i + 1 == n else Reason.UNIT_END
                for piece in self.splitter().split_span(cuts[i], cuts[i + 1], reason):
                    pieces.append(replace(piece, split_unit=True, metadata={Meta.UNITS: [i, i + 1]}))
                    units.append((i, i + 1))
                i += 1
                continue
            first = i
            previous_whole = pieces and not pieces[-1].split_unit
            if previous_whole and policy.overlap_units > 0:
                first = max(units[-1][0] + 1, units[-1][1] - policy.overlap_units)
                while first < i and count(cuts[first], cuts[i + 1]) > policy.max_tokens:
                    first += 1
            j, reason = self._fill(first, i + 1)
            pieces.append(Piece(cuts[first], cuts[j], reason, metadata={Meta.UNITS: [first, j]}))
            units.append((first, j))
            i = j
        if policy.merge_small_tail:
            self._merge_small_tail(pieces, units)
        return pieces

    def _fill(self, first: int, j: int) -> tuple[int, Reason]:
        """Take units from ``j`` on while they fit: (exclusive end unit, why the chunk ends)."""
        cuts, count, policy = self.cuts, self.counter.count, self.policy
        n = len(cuts) - 1
        while j < n:
            check_time()
            if policy.min_tokens is not None and count(cuts[first], cuts[j]) >= policy.min_tokens:
                return j, Reason.MIN_SIZE
            if count(cuts[first], cuts[j + 1]) > policy.max_tokens:
                return j, Reason.SIZE_LIMIT
            j += 1
        return j, policy.last_reason

    def _merge_small_tail(self, pieces: list[Piece], units: list[tuple[int, int]]) -> None:
        """A last chunk under ``min_tokens`` joins the previous one when the two fit together."""
        count, policy = self.counter.count, self.policy
        if len(pieces) < 2 or policy.min_tokens is None:
            return
        last, prev = pieces[-1], pieces[-2]
        if last.split_unit or prev.split_unit or count(last.start, last.end) >= policy.min_tokens:
            return
        if prev.end != last.start or count(prev.start, last.end) > policy.max_tokens:
            return
        pieces[-2:] = [Piece(prev.start, last.end, last.reason, metadata={Meta.UNITS: [units[-2][0], units[-1][1]]})]
        units[-2:] = [(units[-2][0], units[-1][1])]


def pack_units(text: str, cuts: Sequence[int], counter: SpanCounter, policy: PackPolicy) -> list[Piece]:
    """Pack the units ``[cuts[k], cuts[k+1])`` into pieces by ``policy`` (module docstring)."""
    return _Packer(text, cuts, counter, policy).pack()


__all__ = ["PackPolicy", "UNIT_SPLIT_SEPARATORS", "cuts_between", "pack_units", "unit_cuts"]
