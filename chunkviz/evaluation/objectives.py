"""What ``chunkviz tune`` optimises: the metrics it can maximise or constrain, constraints such as
``recall>=0.8``, the points it tried, their Pareto frontiers and the study they make (:mod:`chunkviz.evaluation.tune`)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from chunkviz.core.errors import ChunkvizError
from chunkviz.evaluation.evaluate import Configuration

METHOD = (
    "a coarse grid (each strategy at each size, no overlap), then refinement around the frontier "
    "(midpoint sizes and an overlap next to every frontier point), the retrievals of a chunking (retrievers, "
    "hybrid fusions and alphas, a rerank) evaluated together on its embeddings"
)

#: Metric name -> the :class:`~chunkviz.evaluation.metrics.Scores` field it averages ("tokens": tokens retrieved per question).
METRICS: dict[str, str] = {
    "recall": "recall",
    "precision": "precision",
    "precision_omega": "precision_omega",
    "iou": "iou",
    "recall_at_k": "recall_at_k",
    "mrr": "reciprocal_rank",
    "ndcg": "ndcg_at_k",
    "map": "average_precision",
    "tokens": "tokens",
}
#: Spellings accepted for the metrics (``recall@k``, ``precision_Ω``, ``IoU``...).
ALIASES: dict[str, str] = {
    "recall@k": "recall_at_k",
    "recall_at": "recall_at_k",
    "precision_ω": "precision_omega",
    "precision_Ω": "precision_omega",
    "reciprocal_rank": "mrr",
    "ndcg@k": "ndcg",
    "ndcg_at_k": "ndcg",
    "average_precision": "map",
    "tokens_per_question": "tokens",
}
#: Metrics that are better when lower.
LOWER_IS_BETTER: frozenset[str] = frozenset({"tokens"})
#: How the tables and messages name the metrics.
TITLES: dict[str, str] = {
    "recall": "recall",
    "precision": "precision",
    "precision_omega": "precision_Ω",
    "iou": "IoU",
    "recall_at_k": "recall@k",
    "mrr": "MRR",
    "ndcg": "NDCG@k",
    "map": "MAP",
    "tokens": "tokens/question",
}


class TuneError(ChunkvizError, ValueError):
    """A tune setting that cannot be used (a bad constraint, metric, strategy or budget)."""


def metric_name(text: str) -> str:
    """The canonical name of a metric as a user may write it (``IoU``, ``recall@k``), or a TuneError."""
    raw = text.strip()
    name = ALIASES.get(raw, ALIASES.get(raw.lower(), raw.lower()))
    if name not in METRICS:
        raise TuneError(f"unknown metric {text!r}; choose one of {', '.join(METRICS)}")
    return name


def is_fraction(metric: str) -> bool:
    """Whether the metric is a fraction in [0, 1] (every one but tokens per question)."""
    return metric != "tokens"


# ----------------------------------------------------------------------------- constraints
@dataclass(frozen=True)
class Constraint:
    """``metric op value``, e.g. recall >= 0.8 (fractions as fractions, tokens as a count)."""

    metric: str
    op: str
    value: float

    def holds(self, point: Point) -> bool:
        v = point.value(self.metric)
        return {">=": v >= self.value, "<=": v <= self.value, ">": v > self.value, "<": v < self.value}[self.op]

    def slack(self, point: Point) -> float:
        """How far ``point`` is from the boundary (in the metric's unit; positive: it holds)."""
        v = point.value(self.metric)
        return v - self.value if self.op in (">=", ">") else self.value - v

    def __str__(self) -> str:
        shown = f"{100 * self.value:g}%" if is_fraction(self.metric) else f"{self.value:g}"
        return f"{self.metric}{self.op}{shown}"


_CONSTRAINT = re.compile(r"^\s*([^<>=!\s]+)\s*(>=|<=|=>|=<|>|<)\s*([^%\s]*)\s*(%?)\s*$")


def parse_constraint(text: str) -> Constraint:
    """``recall>=0.8`` (or ``recall >= 80%``, ``tokens<=600``) -> a :class:`Constraint`; a
    TuneError saying what to write otherwise."""
    example = "write it as METRIC>=VALUE, e.g. recall>=0.8, iou>=0.05 or tokens<=600"
    match = _CONSTRAINT.match(text)
    if not match:
        raise TuneError(f"constraint {text!r}: {example}")
    raw_metric, op, raw_value, percent = match.groups()
    try:
        metric = metric_name(raw_metric)
    except TuneError as exc:
        raise TuneError(f"constraint {text!r}: {exc}") from None
    op = {"=>": ">=", "=<": "<="}.get(op, op)
    try:
        value = float(raw_value)
    except ValueError:
        raise TuneError(f"constraint {text!r}: {raw_value!r} is not a number; {example}") from None
    if not math.isfinite(value) or value < 0:
        raise TuneError(f"constraint {text!r}: the value must be a number of 0 or more; {example}")
    if is_fraction(metric):
        if percent:
            value /= 100
        elif value > 1:
            raise TuneError(
                f"constraint {text!r}: {metric} is a fraction from 0 to 1; write {metric}{op}{value / 100:g} "
                f"or {metric}{op}{value:g}%"
            )
        if value > 1:
            raise TuneError(f"constraint {text!r}: {metric} cannot exceed 100%")
    elif percent:
        raise TuneError(f"constraint {text!r}: {metric} is a count, not a percentage; write e.g. {metric}{op}{value:g}")
    return Constraint(metric, op, value)


def parse_constraints(texts: Sequence[str]) -> list[Constraint]:
    """Every constraint of ``texts`` (each may hold several separated by commas)."""
    return [parse_constraint(part) for text in texts for part in text.split(",") if part.strip()]


# ----------------------------------------------------------------------------- points and frontiers
@dataclass(frozen=True)
class Point:
    """One configuration tried: its mean scores (fractions; ``tokens``: tokens retrieved per
    question), its chunk count, and the search round that proposed it (0: the coarse grid)."""

    configuration: Configuration
    scores: Mapping[str, float] = field(hash=False)
    chunks: int = 0
    mean_chunk_chars: float = 0.0
    round: int = 0

    def value(self, metric: str) -> float:
        return float(self.scores[metric])

    def retrieval(self) -> str:
        """How this point retrieves: ``dense``, ``bm25``, ``hybrid: weighted alpha=0.3``, with ``rerank: ...``."""
        c = self.configuration
        return " · ".join(c.retrieval_tags()) if c.retriever != "dense" or c.rerank else "dense"

    def to_dict(self) -> dict[str, Any]:
        c = self.configuration
        return {
            "strategy": c.strategy,
            "params": dict(c.params),
            "tokenizer": c.tokenizer,
            **c.retrieval_dict(),
            "label": c.label(),
            "chunks": self.chunks,
            "mean_chunk_chars": self.mean_chunk_chars,
            "round": self.round,
            "scores": dict(self.scores),
        }


def better(metric: str, a: float, b: float) -> bool:
    """Whether ``a`` is strictly better than ``b`` on ``metric``."""
    return a < b if metric in LOWER_IS_BETTER else a > b


def dominates(p: Point, q: Point, x: str, y: str) -> bool:
    """``p`` is at least as good as ``q`` on both metrics and strictly better on one."""
    px, py, qx, qy = p.value(x), p.value(y), q.value(x), q.value(y)
    no_worse = not better(x, qx, px) and not better(y, qy, py)
    return no_worse and (better(x, px, qx) or better(y, py, qy))


def pareto(points: Sequence[Point], x: str, y: str = "recall") -> list[int]:
    """Positions of the points no other point dominates on ``x`` and ``y`` (each better higher,
    tokens lower), ordered by ``x`` from worst to best (ties: by ``y``, then position), so they
    draw as a line. Points with equal values on both are all kept."""
    keep = [i for i, p in enumerate(points) if not any(dominates(q, p, x, y) for q in points)]
    sign_x = 1 if x in LOWER_IS_BETTER else -1
    sign_y = 1 if y in LOWER_IS_BETTER else -1
    return sorted(keep, key=lambda i: (-sign_x * points[i].value(x), sign_y * points[i].value(y), i))


def best(
    points: Sequence[Point], objective: str, constraints: Sequence[Constraint] = (), *, minimise: bool | None = None
) -> Point | None:
    """The point with the best ``objective`` among those meeting every constraint (None: none
    does). ``minimise`` defaults to the metric's own direction (tokens: lower). Ties: the
    higher recall, then fewer tokens, then the earlier point."""
    low = objective in LOWER_IS_BETTER if minimise is None else minimise
    feasible = [p for p in points if all(c.holds(p) for c in constraints)]
    if not feasible:
        return None
    return min(
        feasible,
        key=lambda p: (
            p.value(objective) if low else -p.value(objective),
            -p.value("recall"),
            p.value("tokens"),
        ),
    )


def closest(points: Sequence[Point], constraints: Sequence[Constraint]) -> Point | None:
    """The point that misses the constraints by the least (its worst slack, relative to each
    constraint's value): what the search reached when nothing meets them."""
    if not points or not constraints:
        return None

    def shortfall(p: Point) -> float:
        return max(-c.slack(p) / (abs(c.value) or 1.0) for c in constraints)

    return min(points, key=shortfall)


# ----------------------------------------------------------------------------- the study
@dataclass(frozen=True)
class Study:
    """What a search tried and found."""

    points: tuple[Point, ...]
    chunkings: int  # embedded (each with every retriever)
    budget: int
    k: int
    retrievers: tuple[str, ...]
    strategies: tuple[str, ...]
    seconds: float
    skipped: tuple[tuple[str, str], ...] = ()  # (label, why) of chunkings that could not run
    method: str = METHOD
    #: the retrieval axes searched (:meth:`RetrievalGrid.axes`)
    retrieval: tuple[str, ...] = ()
    #: the tunable parameters searched, ``"separators: default, chroma"`` (:func:`~chunkviz.evaluation.tunespace.check_axes`)
    axes: tuple[str, ...] = ()

    def frontier(self, x: str = "iou", y: str = "recall", retriever: str | None = None) -> list[Point]:
        """The Pareto frontier of ``y`` against ``x`` (of one retriever's points, or all)."""
        points = [p for p in self.points if retriever is None or p.configuration.retriever == retriever]
        return [points[i] for i in pareto(points, x, y)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "budget": self.budget,
            "chunkings": self.chunkings,
            "k": self.k,
            "retrievers": list(self.retrievers),
            "retrieval": list(self.retrieval),
            "axes": list(self.axes),
            "strategies": list(self.strategies),
            "seconds": self.seconds,
            "points": [p.to_dict() for p in self.points],
            "skipped": [{"label": label, "reason": why} for label, why in self.skipped],
        }
