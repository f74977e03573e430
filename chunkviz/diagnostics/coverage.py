"""The coverage audit: gaps, text covered more than once, the covered fraction (one event sweep)."""

from __future__ import annotations

import bisect
import dataclasses
from typing import Iterable

from chunkviz.core.types import Span
from chunkviz.diagnostics.results import Coverage


def _merge_spans(spans: Iterable[Span]) -> list[Span]:
    merged: list[Span] = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        elif b > a:
            merged.append((a, b))
    return merged


def _clip(gaps: Iterable[Span], scope: list[Span]) -> list[Span]:
    """The parts of ``gaps`` inside ``scope`` (both sorted)."""
    out: list[Span] = []
    for a, b in gaps:
        k = bisect.bisect_right(scope, (a, float("inf"))) - 1
        k = max(k, 0)
        while k < len(scope) and scope[k][0] < b:
            lo, hi = max(a, scope[k][0]), min(b, scope[k][1])
            if hi > lo:
                out.append((lo, hi))
            k += 1
    return out


def audit_coverage(text: str, spans: Iterable[Span], scope: Iterable[Span] | None = None) -> Coverage:
    """Gaps, multiply covered text and the covered fraction of ``spans`` over ``text``.

    With ``scope`` (e.g. the parents of a deeper level), only text inside it can be a gap and
    the covered fraction is relative to it. One sweep over sorted start/end events: O(k log k)
    in the number of spans.
    """
    if scope is not None:
        region = _merge_spans(scope)
        whole = audit_coverage(text, spans)
        content = tuple(g for g in _clip(whole.content_gaps, region) if not text[g[0] : g[1]].isspace())
        blank = tuple(
            sorted(
                [
                    *_clip(whole.whitespace_gaps, region),
                    *(g for g in _clip(whole.content_gaps, region) if text[g[0] : g[1]].isspace()),
                ]
            )
        )
        region_chars = sum(b - a for a, b in region)
        return dataclasses.replace(
            whole,
            document_chars=region_chars,
            covered_fraction=whole.covered_chars / region_chars if region_chars else 1.0,
            content_gaps=content,
            whitespace_gaps=blank,
        )
    n = len(text)
    events: dict[int, int] = {}
    for start, end in spans:
        if end > start:
            events[start] = events.get(start, 0) + 1
            events[end] = events.get(end, 0) - 1
    content_gaps: list[Span] = []
    whitespace_gaps: list[Span] = []
    multi: list[Span] = []
    covered = multi_chars = max_depth = 0
    depth = 0
    prev = 0

    def segment(a: int, b: int, d: int) -> None:
        nonlocal covered, multi_chars
        if b <= a:
            return
        if d == 0:
            gaps = whitespace_gaps if text[a:b].isspace() else content_gaps
            if gaps and gaps[-1][1] == a:  # cannot happen for a sweep, kept for safety
                gaps[-1] = (gaps[-1][0], b)
            else:
                gaps.append((a, b))
            return
        covered += b - a
        if d >= 2:
            multi_chars += b - a
            if multi and multi[-1][1] == a:
                multi[-1] = (multi[-1][0], b)
            else:
                multi.append((a, b))

    for pos in sorted(events):
        segment(prev, pos, depth)
        depth += events[pos]
        max_depth = max(max_depth, depth)
        prev = pos
    segment(prev, n, depth)
    return Coverage(
        document_chars=n,
        covered_chars=covered,
        covered_fraction=covered / n if n else 1.0,
        content_gaps=tuple(content_gaps),
        whitespace_gaps=tuple(whitespace_gaps),
        multi_covered=tuple(multi),
        multi_covered_chars=multi_chars,
        max_depth=max_depth,
    )


def covered_runs(n: int, coverage: Coverage) -> list[Span]:
    """Maximal covered spans: the complement of the gaps."""
    runs = []
    pos = 0
    for start, end in coverage.gaps:
        if start > pos:
            runs.append((pos, start))
        pos = end
    if pos < n and coverage.covered_chars:
        runs.append((pos, n))
    return runs


def percent(part: int, whole: int) -> float:
    return part / whole * 100.0 if whole else 0.0
