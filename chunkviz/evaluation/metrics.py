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

Ranking scores, with MRR's relevance: a span is **relevant** when it overlaps a reference by one
character or more (binary gain). The relevant items are the chunking's spans that retrieval can
return (``chunks``) and that are relevant, ``n`` of them, as ``trec_eval`` / ``ir-measures``
read a run of chunk ids against qrels of those ids (``tests/test_evaluation_ranking.py`` checks
it):

- ``ndcg_at_k``: ``DCG / IDCG`` with ``DCG = Σ rel_i / log2(i + 1)`` over the k ranks and the
  ideal ``IDCG`` of ``min(k, n)`` relevant spans first;
- ``average_precision`` (its mean is MAP): ``Σ_{relevant i} precision@i / n`` (trec_eval's AP of
  a run cut at k: a reference split over more than k spans cannot reach 1);
- ``recall_at``: recall@c (the ``recall_at_k`` rule) at the cutoffs c of :func:`cutoffs`.

**Document-level labels** (a question that names only the documents that answer it,
:func:`document_scores`): the ranking is the documents of the retrieved spans in the order of
their first span, a document is relevant when the question names it, and recall@k, MRR, NDCG@k
and MAP are computed on that ranking; the span scores (recall, precision, IoU, precision_Ω) do
not apply and are NaN (``null`` in JSON, "n/a" in tables), and means leave them out.

All scores are fractions in ``[0, 1]``; :func:`summarize` gives mean and standard deviation.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Mapping, Protocol, Sequence


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
    reference answer, a retrieved chunk); within one text a span is :data:`chunkviz.core.types.Span`."""

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
    ndcg_at_k: float = 0.0
    average_precision: float = 0.0
    #: (cutoff, recall@cutoff) for each of :func:`cutoffs`
    recall_at: tuple[tuple[int, float], ...] = ()


#: The per-question scores that are means in a summary (``recall_at`` is summarised per cutoff).
METRICS: tuple[str, ...] = tuple(name for name in Scores.__dataclass_fields__ if name != "recall_at")
#: The scores a question labelled by documents only has no value for (NaN).
SPAN_METRICS: tuple[str, ...] = ("recall", "precision", "iou", "precision_omega")
#: The cutoffs recall@c is reported at (those up to k, and k itself).
CUTOFFS: tuple[int, ...] = (1, 3, 5, 10, 20, 50, 100)


def cutoffs(k: int) -> tuple[int, ...]:
    """The cutoffs recall@c is given at for a run of ``k``: :data:`CUTOFFS` up to ``k``, and ``k``."""
    return tuple(sorted({c for c in CUTOFFS if c < k} | {k}))


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
    references: Sequence[SpanLike], retrieved: Sequence[SpanLike], chunks: Sequence[SpanLike], k: int | None = None
) -> Scores:
    """The scores of one question: ``retrieved`` in rank order (the top ``k``, default their
    number), ``chunks`` every span of the chunking retrieval can return (for ``precision_omega``
    and the relevant spans of the ranking scores)."""
    k = len(retrieved) if k is None else k
    relevant = [any(overlaps(c, r) for r in references) for c in retrieved]
    n_relevant = max(sum(1 for c in chunks if any(overlaps(c, r) for r in references)), sum(relevant))
    ndcg, ap = ranking_scores(relevant, n_relevant, k)
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
        reciprocal_rank=next((1 / rank for rank, hit in enumerate(relevant, 1) if hit), 0.0),
        ndcg_at_k=ndcg,
        average_precision=ap,
        recall_at=tuple(
            (c, _ratio(sum(1 for r in references if any(overlaps(x, r) for x in retrieved[:c])), len(references)))
            for c in cutoffs(k)
        ),
    )


def ranking_scores(relevant: Sequence[bool], n_relevant: int, k: int) -> tuple[float, float]:
    """NDCG@k and average precision of a ranking whose ranks are ``relevant`` or not (binary
    gain), ``n_relevant`` relevant items existing in all; only the first ``k`` ranks count."""
    ranks = list(relevant)[:k]
    dcg = sum(1 / math.log2(i + 1) for i, hit in enumerate(ranks, 1) if hit)
    ideal = sum(1 / math.log2(i + 1) for i in range(1, min(k, n_relevant) + 1))
    hits, precision_sum = 0, 0.0
    for i, hit in enumerate(ranks, 1):
        if hit:
            hits += 1
            precision_sum += hits / i
    return _ratio(dcg, ideal), _ratio(precision_sum, n_relevant)


def document_scores(documents: Sequence[str], retrieved: Sequence[SpanLike], k: int | None = None) -> Scores:
    """The scores of a question labelled by documents only (``documents``: the names that answer
    it): the ranking scores on the documents of ``retrieved`` in the order of their first span;
    the span scores NaN (see the module)."""
    k = len(retrieved) if k is None else k
    named = set(documents)
    ranking = list(dict.fromkeys(c.document for c in retrieved[:k]))
    relevant = [d in named for d in ranking]
    ndcg, ap = ranking_scores(relevant, len(named), k)

    def found(c: int) -> float:
        return _ratio(len(named & {x.document for x in retrieved[:c]}), len(named))

    return Scores(
        recall=math.nan,
        precision=math.nan,
        iou=math.nan,
        precision_omega=math.nan,
        recall_at_k=found(k),
        reciprocal_rank=next((1 / rank for rank, hit in enumerate(relevant, 1) if hit), 0.0),
        ndcg_at_k=ndcg,
        average_precision=ap,
        recall_at=tuple((c, found(c)) for c in cutoffs(k)),
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
    """Per metric: (mean, population standard deviation) over the questions that have a value
    (not NaN), as fractions; NaN when none has. ``recall@c`` for each cutoff follows."""
    out = {name: _mean_std([getattr(s, name) for s in scores]) for name in METRICS}
    for c in dict.fromkeys(c for s in scores for c, _ in s.recall_at):
        out[f"recall@{c}"] = _mean_std([v for s in scores for cut, v in s.recall_at if cut == c])
    return out


def _mean_std(values: Sequence[float]) -> tuple[float, float]:
    known = [v for v in values if not math.isnan(v)]
    if not known:
        return (math.nan, math.nan)
    mean = sum(known) / len(known)
    return (mean, math.sqrt(sum((v - mean) ** 2 for v in known) / len(known)))


def as_percent(summary: Mapping[str, tuple[float, float]]) -> dict[str, str]:
    """``{"recall": "78.7 ± 39.2", ...}`` as the study prints them ("n/a": no question has one)."""
    return {
        name: "n/a" if math.isnan(mean) else f"{100 * mean:.1f} ± {100 * std:.1f}"
        for name, (mean, std) in summary.items()
    }


def scores_dict(scores: Scores) -> dict[str, Any]:
    """The scores as JSON values: NaN (does not apply) as None, ``recall_at`` as ``{"1": ..}``."""
    out: dict[str, Any] = {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in asdict(scores).items()}
    out["recall_at"] = {str(c): v for c, v in scores.recall_at}
    return out
