"""Find the best configuration: a bounded search over strategies × sizes × overlaps × retrievers.

**Method: a coarse grid, then refinement around the frontier.** Embedding a chunking's whole
corpus is what costs (every chunk of every document, whatever the number of questions), so the
unit of the budget is a *chunking* (a strategy with its parameters): ``budget`` bounds how many
are embedded. The retrievers of one chunking share its embeddings and are evaluated together,
in one :func:`~chunkviz.evaluation.evaluate.evaluate` call (embeddings are cached per text, so a
chunking tried again, or a size whose chunks another size shares, costs nothing twice).

1. *Coarse grid*: each strategy at each of ``sizes`` (its size parameter, kept within the
   parameter's declared range), no overlap. When the grid is larger than two thirds of the
   budget, the sizes are taken middle-out and the strategies in turn, so a small budget still
   spans the range.
2. *Refinement*: the chunkings of the points on either frontier (recall against IoU, recall
   against tokens retrieved per question; any retriever) propose their neighbours: the
   geometric midpoint between their size and the next size tried on each side (or a step past
   the end of the range tried), and the same size with an overlap (an eighth of the size, or
   one sentence). With a constraint, the frontier points closest to its boundary go first.
   Rounds repeat until the budget is spent or no neighbour is new.

The Pareto frontier (:func:`pareto`) keeps the points no other point beats on both axes; the
best configuration (:func:`best`) maximises (or minimises) one metric subject to constraints
such as ``recall>=0.8`` (:func:`parse_constraint`). No Streamlit here.
"""

from __future__ import annotations

import math
import re
import shlex
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from chunkviz.document.model import Document, as_document
from chunkviz.errors import ChunkvizError
from chunkviz.evaluation.evaluate import Configuration, Result, evaluate
from chunkviz.evaluation.report import fit_to_size, swept_param
from chunkviz.evaluation.retrievers import RETRIEVERS, check_retriever
from chunkviz.semantic.embeddings import DEFAULT_MODEL, Encoder, canonical_model
from chunkviz.strategies.base import get_strategy
from chunkviz.tokenizers import DEFAULT_TOKENIZER, get_tokenizer

METHOD = (
    "a coarse grid (each strategy at each size, no overlap), then refinement around the frontier "
    "(midpoint sizes and an overlap next to every frontier point), the retrievers of a chunking evaluated together"
)
#: The coarse grid's sizes (each strategy's size parameter, in its own unit).
DEFAULT_SIZES: tuple[int, ...] = (64, 128, 256, 512)
#: Strategies searched when none are named: no model calls, one size parameter each.
DEFAULT_STRATEGIES: tuple[str, ...] = ("recursive", "fixed_tokens", "sentences")
DEFAULT_BUDGET = 12
#: The smallest size refinement proposes (smaller chunks carry too little to be found).
MIN_REFINED_SIZE = 16

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

    def to_dict(self) -> dict[str, Any]:
        c = self.configuration
        return {
            "strategy": c.strategy,
            "params": dict(c.params),
            "tokenizer": c.tokenizer,
            "retriever": c.retriever,
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


# ----------------------------------------------------------------------------- the search space
@dataclass(frozen=True)
class Chunking:
    """One chunking to embed: a strategy and its parameters (sorted items), the size it was asked
    for, and the tokenizer its sizes count."""

    strategy: str
    params: tuple[tuple[str, Any], ...]
    size: int
    tokenizer: str = DEFAULT_TOKENIZER
    round: int = 0

    @property
    def key(self) -> tuple[str, tuple[tuple[str, Any], ...], str]:
        return (self.strategy, self.params, self.tokenizer)

    def configurations(self, retrievers: Sequence[str]) -> list[Configuration]:
        return [Configuration(self.strategy, dict(self.params), self.tokenizer, retriever=r) for r in retrievers]

    def label(self) -> str:
        return Configuration(self.strategy, dict(self.params), self.tokenizer).label()


def check_strategy(name: str) -> str:
    """``name`` when tune can search it (registered, a size parameter, no model calls), else a TuneError."""
    spec = get_strategy(name)  # an unknown name: UnknownStrategyError listing the known ones
    if spec.calls_model:
        raise TuneError(f"strategy {name!r} calls a language model for every chunking; tune searches without one")
    if spec.size_param() is None:
        raise TuneError(
            f"strategy {name!r} has no size parameter to search; choose e.g. {', '.join(DEFAULT_STRATEGIES)}"
        )
    return name


def size_range(strategy: str) -> tuple[int, int]:
    """The smallest and largest size ``strategy``'s size parameter accepts."""
    info = {p.name: p for p in get_strategy(strategy).params_info()}[swept_param(strategy, "chunk_size")]
    low = int(info.minimum) if info.minimum is not None else 1
    high = int(info.maximum) if info.maximum is not None else 1_000_000
    return low, high


def check_sizes(strategies: Sequence[str], sizes: Sequence[int]) -> None:
    """A TuneError unless ``sizes`` are whole numbers within the size range of every strategy
    searched (a size out of range would be left out of the grid, and with it the whole search);
    the message gives the range that fits them all."""
    bad = [s for s in sizes if not isinstance(s, int) or isinstance(s, bool) or s < 1]
    if bad or not sizes:
        raise TuneError(f"sizes must be whole numbers of 1 or more, e.g. {', '.join(map(str, DEFAULT_SIZES))}")
    ranges = {strategy: size_range(strategy) for strategy in strategies}
    if not ranges:
        return
    low, high = max(r[0] for r in ranges.values()), min(r[1] for r in ranges.values())
    fits = f"give sizes from {low:,} to {high:,}" if low <= high else "search these strategies one at a time"
    for strategy, (first, last) in ranges.items():
        outside = next((s for s in sizes if not first <= s <= last), None)
        if outside is not None:
            name = swept_param(strategy, "chunk_size")
            raise TuneError(
                f"size {outside:,} is outside the range of {strategy}'s {name}, {first:,} to {last:,}; {fits}"
            )


def chunking(
    strategy: str, size: int, overlap: int = 0, tokenizer: str = DEFAULT_TOKENIZER, round: int = 0
) -> Chunking | None:
    """The chunking of ``strategy`` at ``size`` (its size parameter) with ``overlap`` (its
    overlap parameter, in its unit: tokens, characters or sentences; ignored without one); other
    parameters that would not fit the size are scaled with it (:func:`fit_to_size`). None when
    the result does not validate."""
    spec = get_strategy(strategy)
    name = swept_param(strategy, "chunk_size")
    base: dict[str, Any] = {}
    overlap_info = spec.overlap_param()
    if overlap_info is not None:
        base[overlap_info.name] = overlap
    params, _ = fit_to_size(strategy, base, name, size)
    if overlap_info is not None:
        params[overlap_info.name] = overlap  # the overlap asked for, not a scaled one
    try:
        spec.make_params(params)
    except ChunkvizError:
        return None
    return Chunking(strategy, tuple(sorted(params.items())), size, tokenizer, round)


def overlap_of(c: Chunking) -> int:
    info = get_strategy(c.strategy).overlap_param()
    return int(dict(c.params).get(info.name, 0)) if info is not None else 0


def overlap_step(strategy: str, size: int) -> int:
    """The overlap refinement tries: one sentence, else an eighth of the size (at least 1)."""
    info = get_strategy(strategy).overlap_param()
    if info is None:
        return 0
    return 1 if info.overlap_unit == "sentences" else max(1, size // 8)


def middle_out(values: Sequence[int]) -> list[int]:
    """``values`` in an order that spans them early: the middle, then the ends, then the rest by
    bisection ([64, 128, 256, 512] -> [128, 64, 512, 256])."""
    ordered = sorted(dict.fromkeys(values))
    if len(ordered) <= 2:
        return ordered
    out = [ordered[(len(ordered) - 1) // 2], ordered[0], ordered[-1]]
    pending = [(0, (len(ordered) - 1) // 2), ((len(ordered) - 1) // 2, len(ordered) - 1)]
    while pending:
        lo, hi = pending.pop(0)
        if hi - lo < 2:
            continue
        mid = (lo + hi) // 2
        out.append(ordered[mid])
        pending += [(lo, mid), (mid, hi)]
    return out + [v for v in ordered if v not in out]


def coarse_grid(strategies: Sequence[str], sizes: Sequence[int], tokenizer: str = DEFAULT_TOKENIZER) -> list[Chunking]:
    """Each strategy at each size within its range, no overlap: sizes middle-out, strategies in turn."""
    per_strategy: list[list[Chunking]] = []
    for strategy in strategies:
        low, high = size_range(strategy)
        made = (chunking(strategy, s, 0, tokenizer) for s in middle_out([s for s in sizes if low <= s <= high]))
        per_strategy.append([c for c in made if c is not None])
    grid: list[Chunking] = []
    for position in range(max((len(p) for p in per_strategy), default=0)):
        grid.extend(p[position] for p in per_strategy if position < len(p))
    return grid


def neighbours(c: Chunking, tried: Sequence[Chunking], round: int) -> list[Chunking]:
    """The chunkings refinement proposes next to ``c``: midpoint sizes towards the nearest sizes
    tried for the strategy (a step of √2 past the ends), and ``c`` with an overlap."""
    low, high = size_range(c.strategy)
    sizes = sorted({t.size for t in tried if t.strategy == c.strategy})
    smaller = [s for s in sizes if s < c.size]
    larger = [s for s in sizes if s > c.size]
    below = math.sqrt(c.size * smaller[-1]) if smaller else c.size / math.sqrt(2)
    above = math.sqrt(c.size * larger[0]) if larger else c.size * math.sqrt(2)
    out: list[Chunking] = []
    overlap = overlap_of(c)
    for size in (round_size(below), round_size(above)):
        if max(low, MIN_REFINED_SIZE) <= size <= high and size != c.size:
            made = chunking(c.strategy, size, min(overlap, max(0, size - 1)), c.tokenizer, round)
            if made is not None:
                out.append(made)
    if overlap == 0 and (step := overlap_step(c.strategy, c.size)):
        made = chunking(c.strategy, c.size, step, c.tokenizer, round)
        if made is not None:
            out.append(made)
    return out


def round_size(value: float) -> int:
    """A size rounded to a readable number: to 8 from 64 up, to 4 from 16, else to 1."""
    step = 8 if value >= 64 else 4 if value >= 16 else 1
    return max(1, int(round(value / step)) * step)


# ----------------------------------------------------------------------------- progress
#: The label of the last progress report (the search is over).
FINISHED = "finished"


@dataclass(frozen=True)
class TuneProgress:
    """Where a search is: ``done`` of at most ``budget`` chunkings embedded, the one under way
    (``label``, its embedding ``embedded`` of ``to_embed`` texts), seconds so far and the
    estimated seconds left (None until one chunking has finished)."""

    done: int
    budget: int
    label: str
    embedded: int
    to_embed: int
    elapsed: float
    eta: float | None

    def line(self) -> str:
        """``chunking 3/12 · recursive(chunk_size=128, overlap=0): embedding 1,200/4,000 · 9 left · ETA 4 min 10 s``"""
        if self.eta == 0 and self.label == FINISHED:
            return (
                f"{self.done} chunking{'s' if self.done != 1 else ''} embedded and scored in {duration(self.elapsed)}"
            )
        step = f"embedding {self.embedded:,}/{self.to_embed:,}" if self.to_embed else "chunking and scoring"
        left = self.budget - self.done
        eta = f"ETA {duration(self.eta)}" if self.eta is not None else "ETA after the first chunking"
        return f"chunking {min(self.done + 1, self.budget)}/{self.budget} · {self.label}: {step} · {left} left · {eta}"


def duration(seconds: float) -> str:
    """``4 min 10 s``, ``12 s``, ``1 h 02 min``."""
    s = max(0, int(round(seconds)))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class _Clock:
    """Elapsed time and the ETA: the mean time of the chunkings done × those left, less the
    part of the current one already embedded. Chunkings whose chunks were all cached already
    (nothing to embed) are left out of the mean while any other has been timed: they would make
    the rest look instant."""

    def __init__(self, budget: int, report: Callable[[TuneProgress], None] | None) -> None:
        self.began = time.monotonic()
        self.budget, self.report = budget, report
        self.durations: list[tuple[float, bool]] = []  # (seconds, whether it embedded anything)
        self.current_began = self.began
        self.current_embedded = False

    def start(self) -> None:
        self.current_began = time.monotonic()
        self.current_embedded = False

    def finish(self) -> None:
        self.durations.append((time.monotonic() - self.current_began, self.current_embedded))

    def mean(self) -> float:
        fresh = [d for d, embedded in self.durations if embedded]
        timed = fresh or [d for d, _ in self.durations]
        return sum(timed) / len(timed)

    def tell(self, done: int, label: str, embedded: int = 0, to_embed: int = 0, running: bool = True) -> None:
        if self.report is None:
            return
        now = time.monotonic()
        self.current_embedded = self.current_embedded or to_embed > 0
        eta = None
        spent = now - self.current_began
        # the current chunking at its embedding rate so far, when it has embedded something
        projected = spent * to_embed / embedded if to_embed and embedded else None
        if not running:
            eta = 0.0
        elif self.durations or projected is not None:
            mean = self.mean() if self.durations else float(projected or 0.0)
            current = projected - spent if projected is not None else max(0.0, mean - spent)
            eta = mean * max(0, self.budget - done - 1) + current
        self.report(TuneProgress(done, self.budget, label, embedded, to_embed, now - self.began, eta))


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
            "strategies": list(self.strategies),
            "seconds": self.seconds,
            "points": [p.to_dict() for p in self.points],
            "skipped": [{"label": label, "reason": why} for label, why in self.skipped],
        }


def tune(
    corpus: Mapping[str, Document | str],
    questions: Sequence[Any],
    *,
    strategies: Sequence[str] = DEFAULT_STRATEGIES,
    retrievers: Sequence[str] = RETRIEVERS,
    budget: int = DEFAULT_BUDGET,
    k: int = 5,
    sizes: Sequence[int] = DEFAULT_SIZES,
    tokenizer: str = DEFAULT_TOKENIZER,
    constraints: Sequence[Constraint] = (),
    model: str | None = None,
    encode: Encoder | None = None,
    progress: Callable[[TuneProgress], None] | None = None,
    evaluator: Callable[..., list[Result]] = evaluate,
) -> Study:
    """Search strategies × sizes × overlaps × retrievers on ``corpus`` and ``questions`` (see the
    module's method), embedding at most ``budget`` chunkings. ``constraints`` steer the
    refinement towards their boundary. ``encode`` replaces the embedding model (tests);
    ``evaluator`` replaces :func:`evaluate` (tests count its calls)."""
    if budget < 1:
        raise TuneError(f"the budget must be at least 1 chunking, got {budget}")
    if k < 1:
        raise TuneError(f"k must be at least 1, got {k}")
    strategies = [check_strategy(s) for s in dict.fromkeys(strategies)]
    retrievers = [check_retriever(r) for r in dict.fromkeys(retrievers)]
    if not strategies or not retrievers:
        raise TuneError("give at least one strategy and one retriever to search")
    check_sizes(strategies, sizes)
    documents = {name: as_document(doc) for name, doc in corpus.items()}
    counter = get_tokenizer(tokenizer)
    clock = _Clock(budget, progress)
    tried: list[Chunking] = []
    seen: set[Any] = set()
    points: list[Point] = []
    skipped: list[tuple[str, str]] = []

    def run(c: Chunking) -> None:
        seen.add(c.key)
        label = c.label()
        clock.start()
        clock.tell(len(tried), label)

        def step(what: str, done: int, total: int) -> None:
            if what != "questions":
                clock.tell(len(tried), label, done, total)

        try:
            results = evaluator(
                documents, questions, c.configurations(retrievers), k=k, model=model, encode=encode, progress=step
            )
        except ChunkvizError as exc:
            skipped.append((label, str(exc)))
            return
        clock.finish()
        tried.append(c)
        points.extend(_point(r, documents, counter, c.round) for r in results)

    grid = coarse_grid(strategies, sizes, tokenizer)
    coarse = grid if len(grid) <= budget else grid[: max(1, math.ceil(2 * budget / 3))]
    for c in coarse:
        if len(tried) >= budget:
            break
        run(c)
    rounds = 0
    while len(tried) < budget:
        rounds += 1
        proposals = [n for c in _frontier_chunkings(points, tried, constraints) for n in neighbours(c, tried, rounds)]
        proposals += [c for c in grid if c.key not in seen]  # the grid's remainder, after the frontier's neighbours
        fresh = list({p.key: p for p in proposals if p.key not in seen}.values())
        if not fresh:
            break
        for c in fresh:
            if len(tried) >= budget:
                break
            run(c)
    clock.tell(len(tried), FINISHED, running=False)
    return Study(
        tuple(points),
        len(tried),
        budget,
        k,
        tuple(retrievers),
        tuple(strategies),
        time.monotonic() - clock.began,
        tuple(skipped),
    )


def _frontier_chunkings(
    points: Sequence[Point], tried: Sequence[Chunking], constraints: Sequence[Constraint]
) -> list[Chunking]:
    """The chunkings of the points on either frontier, those nearest the constraints' boundary first."""
    on = {i for x in ("iou", "tokens") for i in pareto(points, x, "recall")}
    chosen = [points[i] for i in sorted(on)]
    if constraints:
        chosen.sort(key=lambda p: min(abs(c.slack(p)) / (abs(c.value) or 1.0) for c in constraints))
    by_key = {c.key: c for c in tried}
    out: dict[Any, Chunking] = {}
    for p in chosen:
        c = p.configuration
        key = (c.strategy, tuple(sorted(c.params.items())), c.tokenizer)
        if key in by_key:
            out.setdefault(key, by_key[key])
    return list(out.values())


def _point(result: Result, documents: Mapping[str, Document], counter: Any, round: int) -> Point:
    summary = result.summary()
    scores = {name: summary[field_][0] for name, field_ in METRICS.items() if field_ != "tokens"}
    scores["tokens"] = tokens_per_question(result, documents, counter)
    return Point(result.configuration, scores, result.chunks, result.mean_chunk_chars, round)


def tokens_per_question(result: Result, documents: Mapping[str, Document], counter: Any) -> float:
    """The mean, over the questions, of the tokens of the spans retrieved for each (what a
    pipeline hands the model; ``counter``: a tokenizer)."""
    if not result.retrieved:
        return 0.0
    total = 0
    for hits in result.retrieved:
        for hit in hits:
            span = hit.span
            total += counter.count(documents[span.document].text[span.start : span.end])
    return total / len(result.retrieved)


# ----------------------------------------------------------------------------- reporting
def frontier_table(points: Sequence[Point], k: int, marked: Point | None = None) -> str:
    """One row per point: configuration, retriever, chunks, then the metrics in percent and the
    tokens per question; ``marked`` gets a ``*``. Every line has the same columns aligned."""
    header = [
        "",
        "configuration",
        "retriever",
        "chunks",
        "recall",
        "IoU",
        "precision",
        f"recall@{k}",
        "MRR",
        f"NDCG@{k}",
        "MAP",
        "tokens/q",
    ]
    rows = [header]
    for p in points:
        c = p.configuration
        rows.append([
            "*" if p is marked else "", Configuration(c.strategy, dict(c.params), c.tokenizer).label(), c.retriever,
            f"{p.chunks:,}", *(f"{100 * p.value(m):.1f}" for m in ("recall", "iou", "precision", "recall_at_k", "mrr", "ndcg", "map")),
            f"{p.value('tokens'):,.0f}",
        ])  # fmt: skip
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(w) if i < 3 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))).rstrip()
        for row in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def eval_command(point: Point, corpus: Sequence[str], questions: str, k: int, model: str | None = None) -> str:
    """The ``chunkviz eval`` command line that evaluates ``point``'s configuration again (with
    the embedding ``model`` the study used, when it is not the default)."""
    c = point.configuration
    parts = ["chunkviz", "eval", *corpus, "--questions", questions, "-s", c.strategy]
    for name, value in sorted(c.params.items()):
        text = _param_text(value)
        parts += ["-p", f"{name}={text}"]
    parts += ["--tokenizer", c.tokenizer, "--k", str(k)]
    if model and canonical_model(model) != DEFAULT_MODEL:
        parts += ["--model", model]
    if c.retriever != "dense":
        parts += ["--retriever", c.retriever]
    return " ".join(shlex.quote(p) for p in parts)


def _param_text(value: Any) -> str:
    import json

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


# ----------------------------------------------------------------------------- the figure
#: One colour per retriever (the frontier lines too), the published rows in grey.
RETRIEVER_COLOURS: dict[str, str] = {"dense": "#1c7ed6", "bm25": "#f08c00", "hybrid": "#2f9e44"}
PUBLISHED_COLOUR = "#495057"


def axis_title(metric: str, k: int) -> str:
    if metric == "tokens":
        return "tokens retrieved per question"
    return TITLES[metric].replace("@k", f"@{k}") + " (%)"


def _shown(metric: str, value: float) -> float:
    return value if metric == "tokens" else 100 * value


def frontier_figure(
    study: Study, x: str = "iou", y: str = "recall", published: Sequence[Any] = (), marked: Point | None = None
) -> Any:
    """Every configuration tried as a point (one colour per retriever; its position in
    ``study.points`` as ``customdata``, for a click), each retriever's frontier as a line, the
    ``published`` rows (:mod:`chunkviz.evaluation.published`) as grey diamonds and ``marked``
    (the chosen configuration) ringed. Needs plotly (the app extra)."""
    from chunkviz.explain import go, require_plotly

    require_plotly()
    fig = go.Figure()
    for retriever in study.retrievers:
        colour = RETRIEVER_COLOURS.get(retriever, "#862e9c")
        mine = [i for i, p in enumerate(study.points) if p.configuration.retriever == retriever]
        if not mine:
            continue
        fig.add_trace(
            go.Scatter(
                x=[_shown(x, study.points[i].value(x)) for i in mine],
                y=[_shown(y, study.points[i].value(y)) for i in mine],
                mode="markers",
                name=f"{retriever}: tried",
                customdata=mine,
                text=[_plain_label(study.points[i]) for i in mine],
                marker={"color": colour, "size": 9, "opacity": 0.55},
                hovertemplate="%{text}<br>"
                + f"{TITLES[x]} %{{x:.1f}} · {TITLES[y]} %{{y:.1f}}<extra>{retriever}</extra>",
            )
        )
        line = [mine[j] for j in pareto([study.points[i] for i in mine], x, y)]
        fig.add_trace(
            go.Scatter(
                x=[_shown(x, study.points[i].value(x)) for i in line],
                y=[_shown(y, study.points[i].value(y)) for i in line],
                mode="lines+markers",
                name=f"{retriever}: frontier",
                customdata=line,
                text=[_plain_label(study.points[i]) for i in line],
                line={"color": colour, "width": 2},
                marker={"color": colour, "size": 11},
                hovertemplate="%{text}<br>" + f"{TITLES[x]} %{{x:.1f}} · {TITLES[y]} %{{y:.1f}}<extra>frontier</extra>",
            )
        )
    rows = [r for r in published if r.value(x) is not None and r.value(y) is not None]
    if rows:
        fig.add_trace(
            go.Scatter(
                x=[_shown(x, r.value(x)) for r in rows],
                y=[_shown(y, r.value(y)) for r in rows],
                mode="markers+text",
                name="Chroma's study (MiniLM)" + (", tokens ≈ k × mean size" if "tokens" in (x, y) else ""),
                text=[f"{r.chunker} {r.size}" for r in rows],
                textposition="top center",
                textfont={"size": 10, "color": PUBLISHED_COLOUR},
                marker={"color": PUBLISHED_COLOUR, "symbol": "diamond", "size": 9},
                hovertemplate="%{text}<br>"
                + f"{TITLES[x]} %{{x:.1f}} · {TITLES[y]} %{{y:.1f}}<extra>published</extra>",
            )
        )
    if marked is not None:
        fig.add_trace(
            go.Scatter(
                x=[_shown(x, marked.value(x))],
                y=[_shown(y, marked.value(y))],
                mode="markers",
                name="chosen",
                customdata=[i for i, p in enumerate(study.points) if p is marked][:1],
                hoverinfo="skip",
                marker={"size": 20, "color": "rgba(0,0,0,0)", "line": {"color": "#e03131", "width": 3}},
            )
        )
    fig.update_layout(
        xaxis_title=axis_title(x, study.k),
        yaxis_title=axis_title(y, study.k),
        height=460,
        margin={"l": 50, "r": 20, "t": 30, "b": 50},
        template="plotly_white",
        legend={"orientation": "h", "y": -0.2},
        clickmode="event+select",
    )
    return fig


def _plain_label(point: Point) -> str:
    import html

    c = point.configuration
    return html.escape(Configuration(c.strategy, dict(c.params), c.tokenizer).label())
