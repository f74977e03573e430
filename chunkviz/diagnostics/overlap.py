"""Overlap: what each strategy declares (``param(..., overlap_unit=...)``) against what chunks have."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from chunkviz.core.errors import UnknownStrategyError
from chunkviz.core.types import Chunk
from chunkviz.diagnostics.cuts import SentenceIndex
from chunkviz.diagnostics.results import OverlapCheck, TokenStats
from chunkviz.strategies import get_strategy
from chunkviz.text.counts import TokenCounter


def params_dict(params: Mapping[str, Any] | Any | None) -> dict[str, Any]:
    """Params (a mapping or a params dataclass) as a plain dict."""
    if params is None:
        return {}
    if isinstance(params, Mapping):
        return dict(params)
    if dataclasses.is_dataclass(params) and not isinstance(params, type):
        return {f.name: getattr(params, f.name) for f in dataclasses.fields(params)}
    return dict(params)


def configured_overlap(strategy: str | None, params: Mapping[str, Any] | Any | None) -> tuple[int | None, str | None]:
    """The overlap a strategy was asked for and its unit, e.g. ``(50, "tokens")``.

    The overlap parameter is the one the strategy's params class declares with
    ``param(..., overlap_unit=...)`` (:meth:`Strategy.overlap_param`); parameters the caller left
    out take their defaults. Unknown strategies and strategies without an overlap parameter give
    ``(None, None)``.
    """
    if strategy is None:
        return None, None
    try:
        info = get_strategy(strategy).overlap_param()
    except UnknownStrategyError:
        return None, None
    if info is None:
        return None, None
    value = params_dict(params).get(info.name, info.default)
    try:
        return (int(value) if value is not None else None), info.overlap_unit
    except (TypeError, ValueError):
        return None, info.overlap_unit


@dataclass(frozen=True)
class PairOverlap:
    """The overlap of a chunk with the previous chunk of its level, in document order."""

    chars: int = 0
    tokens: int = 0
    sentences: int | None = None

    def in_unit(self, unit: str | None) -> int | None:
        return {"tokens": self.tokens, "chars": self.chars, "sentences": self.sentences}.get(unit or "")


def pair_overlaps(
    chunks: Sequence[Chunk],
    members: Sequence[int],
    counter: TokenCounter,
    sentences: SentenceIndex | None,
    unit: str | None,
) -> dict[int, PairOverlap]:
    """For every member (positions in ``chunks``, in document order) after the first: its overlap
    with the one before it."""
    pairs: dict[int, PairOverlap] = {}
    for prev_i, i in zip(members, members[1:]):
        a, b = chunks[prev_i], chunks[i]
        lo, hi = max(a.start, b.start), min(a.end, b.end)
        chars = max(0, hi - lo)
        in_sentences = None
        if unit == "sentences" and sentences is not None:
            in_sentences = sentences.count_starting_in(lo, hi) if chars else 0
        pairs[i] = PairOverlap(chars, counter.span(lo, hi) if chars else 0, in_sentences)
    return pairs


def overlap_check(
    configured: int | None,
    unit: str | None,
    chunks: Sequence[Chunk],
    members: Sequence[int],
    pairs: Mapping[int, PairOverlap],
) -> OverlapCheck:
    """Configured against actual overlap over one level's adjacent pairs."""
    ordered = [(i, pairs[i]) for i in members[1:]]
    actual = [] if configured is None else [(i, v) for i, p in ordered if (v := p.in_unit(unit)) is not None]
    mismatched = [chunks[i].index for i, v in actual if v != configured]
    diffs = [abs(v - configured) for _, v in actual] if configured is not None else []
    return OverlapCheck(
        configured=configured,
        unit=unit,
        boundaries=max(0, len(members) - 1),
        actual=tuple(v for _, v in actual),
        mismatches=len(mismatched),
        max_difference=max(diffs, default=0),
        mismatched_indices=tuple(mismatched),
        chars=TokenStats.of([p.chars for _, p in ordered]),
        tokens=TokenStats.of([p.tokens for _, p in ordered]),
    )
