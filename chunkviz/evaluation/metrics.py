"""Retrieval scores of one question, on character spans (pure; no embeddings here).

A *span* is anything with ``document``, ``start`` and ``end`` (a reference answer, a retrieved
chunk); spans of different documents never intersect. For one question with references ``R``
and retrieved spans ``C`` (the top k, in rank order):

Chroma's "Evaluating Chunking Strategies for Retrieval" (character offsets, as implemented in its
``base_evaluation.py``; see ``../shared/eval/chroma/NOTES.md``):

- ``I = |(∪C) ∩ (∪R)|``, each character once;
- ``recall = I / Σ|r|``;
- ``precision = I / Σ|c|`` (a plain sum: an overlap retrieved twice counts twice);
- ``iou = I / (Σ|c| + |∪R| - I)`` (the references' characters no retrieved span covers are added);
- ``precision_omega``: the same ratio over *all* the chunking's spans that reach a reference
  (touching counts, as in Chroma: ``c.start <= r.end and r.start <= c.end``), with unions
  throughout: ``|(∪C_Ω) ∩ (∪R)| / |(∪C_Ω) ∪ (∪R)|``: the best precision retrieval could reach.

The guide's retrieval scores:

- ``recall_at_k``: the fraction of the references that at least one retrieved span overlaps (by
  one character or more);
- ``reciprocal_rank``: ``1 / rank`` of the first retrieved span that overlaps a reference (0 when
  none does).

All scores are fractions in ``[0, 1]``; :func:`summarize` gives mean and standard deviation.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Iterable, Mapping, Protocol, Sequence


class SpanLike(Protocol):
    @property
    def document(self) -> str: ...

    @property
    def start(self) -> int: ...

    @property
    def end(self) -> int: ...


@dataclass(frozen=True)
class DocumentSpan:
    """A character span ``[start, end)`` of the document named ``document`` in a corpus (a
    reference answer, a retrieved chunk); within one text a span is :data:`chunkviz.types.Span`."""

    document: str
    start: int
    end: int


@dataclass(frozen=True)
class Scores:
    """The scores of one question (fractions in [0, 1])."""

    recall: float
    precision: float
    iou: float
    precision_omega: float
    recall_at_k: float
    reciprocal_rank: float


METRICS: tuple[str, ...] = tuple(Scores.__dataclass_fields__)

Intervals = list[tuple[int, int]]


def union(spans: Iterable[SpanLike]) -> dict[str, Intervals]:
    """Per document, the sorted disjoint intervals covering ``spans`` (empty spans dropped)."""
    by_document: dict[str, list[tuple[int, int]]] = {}
    for s in spans:
        if s.end > s.start:
            by_document.setdefault(s.document, []).append((s.start, s.end))
    return {document: _merge(intervals) for document, intervals in by_document.items()}


def _merge(intervals: list[tuple[int, int]]) -> Intervals:
    merged: Intervals = []
    for a, b in sorted(intervals):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def covered(intervals: Mapping[str, Intervals]) -> int:
    """Characters covered by disjoint intervals."""
    return sum(b - a for spans in intervals.values() for a, b in spans)


def intersection(x: Mapping[str, Intervals], y: Mapping[str, Intervals]) -> dict[str, Intervals]:
    """Per document, the intersection of two sets of disjoint sorted intervals."""
    out: dict[str, Intervals] = {}
    for document in x.keys() & y.keys():
        a, b, i, j, both = x[document], y[document], 0, 0, []
        while i < len(a) and j < len(b):
            lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
            if lo < hi:
                both.append((lo, hi))
            if a[i][1] < b[j][1]:
                i += 1
            else:
                j += 1
        if both:
            out[document] = both
    return out


def overlaps(a: SpanLike, b: SpanLike) -> bool:
    """Whether two spans share at least one character."""
    return a.document == b.document and max(a.start, b.start) < min(a.end, b.end)


def touches(a: SpanLike, b: SpanLike) -> bool:
    """Chroma's test for "contains part of a reference": sharing a character, or only an edge."""
    return a.document == b.document and a.start <= b.end and b.start <= a.end


def question_scores(
    references: Sequence[SpanLike], retrieved: Sequence[SpanLike], chunks: Sequence[SpanLike]
) -> Scores:
    """The scores of one question: ``retrieved`` in rank order (the top k), ``chunks`` every span
    of the chunking (for ``precision_omega``)."""
    refs = union(references)
    ref_total = sum(r.end - r.start for r in references)
    found = covered(intersection(union(retrieved), refs))
    retrieved_total = sum(c.end - c.start for c in retrieved)
    return Scores(
        recall=_ratio(found, ref_total),
        precision=_ratio(found, retrieved_total),
        iou=_ratio(found, retrieved_total + covered(refs) - found),
        precision_omega=precision_omega(references, chunks),
        recall_at_k=_ratio(sum(1 for r in references if any(overlaps(c, r) for c in retrieved)), len(references)),
        reciprocal_rank=next(
            (1 / rank for rank, c in enumerate(retrieved, 1) if any(overlaps(c, r) for r in references)), 0.0
        ),
    )


def precision_omega(references: Sequence[SpanLike], chunks: Sequence[SpanLike]) -> float:
    """Chroma's precision_Ω: the precision of retrieving exactly the chunks that reach a reference."""
    reaching = [c for c in chunks if any(touches(c, r) for r in references)]
    refs, spans = union(references), union(reaching)
    both = covered(intersection(spans, refs))
    either = covered(spans) + covered(refs) - both
    return _ratio(both, either)


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


def summarize(scores: Sequence[Scores]) -> dict[str, tuple[float, float]]:
    """Per metric: (mean, population standard deviation) over questions, as fractions."""
    out: dict[str, tuple[float, float]] = {}
    for name in METRICS:
        values = [getattr(s, name) for s in scores]
        if not values:
            out[name] = (math.nan, math.nan)
            continue
        mean = sum(values) / len(values)
        out[name] = (mean, math.sqrt(sum((v - mean) ** 2 for v in values) / len(values)))
    return out


def as_percent(summary: Mapping[str, tuple[float, float]]) -> dict[str, str]:
    """``{"recall": "78.7 ± 39.2", ...}`` as the study prints them."""
    return {name: f"{100 * mean:.1f} ± {100 * std:.1f}" for name, (mean, std) in summary.items()}


def scores_dict(scores: Scores) -> dict[str, float]:
    return asdict(scores)
