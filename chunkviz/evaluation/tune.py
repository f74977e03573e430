"""Find the best configuration: a bounded search over strategies × sizes × overlaps × tunable
parameters × retrievers.

**Method: a coarse grid, then refinement around the frontier.** Embedding a chunking's whole
corpus is what costs (every chunk of every document, whatever the number of questions), so the
unit of the budget is a *chunking* (a strategy with its parameters): ``budget`` bounds how many
are embedded. The retrievers of one chunking share its embeddings and are evaluated together,
in one :func:`~chunkviz.evaluation.evaluate.evaluate` call (embeddings are cached per text, so a
chunking tried again, or a size whose chunks another size shares, costs nothing twice).

1. *Coarse grid*: each strategy at each of ``sizes`` (its size parameter, kept within the
   parameter's declared range) with each combination of the ``axes`` values it declares tunable
   (e.g. ``recursive_langchain``'s separators and keep_separator), no overlap. When the grid is larger than two thirds of the
   budget, the sizes are taken middle-out and the strategies in turn, so a small budget still
   spans the range.
2. *Refinement*: the chunkings of the points on either frontier (recall against IoU, recall
   against tokens retrieved per question; any retriever) propose their neighbours: the
   geometric midpoint between their size and the next size tried on each side (or a step past
   the end of the range tried), and the same size with an overlap (an eighth of the size, or
   one sentence), both with the same tunable values. With a constraint, the frontier points closest to its boundary go first.
   Rounds repeat until the budget is spent or no neighbour is new.

The Pareto frontier (:func:`pareto`) keeps the points no other point beats on both axes; the
best configuration (:func:`best`) maximises (or minimises) one metric subject to constraints
such as ``recall>=0.8`` (:func:`parse_constraint`). No Streamlit here.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from chunkviz.core.errors import ChunkvizError
from chunkviz.document.model import Document, as_document
from chunkviz.evaluation.evaluate import Result, evaluate
from chunkviz.evaluation.objectives import (
    ALIASES,
    LOWER_IS_BETTER,
    METHOD,
    METRICS,
    TITLES,
    Constraint,
    Point,
    Study,
    TuneError,
    best,
    better,
    closest,
    dominates,
    is_fraction,
    metric_name,
    pareto,
    parse_constraint,
    parse_constraints,
)
from chunkviz.evaluation.retrievers import RETRIEVERS
from chunkviz.evaluation.tunefigure import (
    PUBLISHED_COLOUR,
    RETRIEVER_COLOURS,
    axis_title,
    eval_command,
    frontier_figure,
    frontier_table,
)
from chunkviz.evaluation.tunespace import (
    DEFAULT_SIZES,
    DEFAULT_STRATEGIES,
    MIN_REFINED_SIZE,
    Chunking,
    RetrievalGrid,
    check_axes,
    check_sizes,
    check_strategy,
    chunking,
    coarse_grid,
    middle_out,
    neighbours,
    overlap_of,
    overlap_step,
    round_size,
    size_range,
)
from chunkviz.semantic.embeddings import Encoder
from chunkviz.text.tokenizers import DEFAULT_TOKENIZER, get_tokenizer

DEFAULT_BUDGET = 12

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


def tune(
    corpus: Mapping[str, Document | str],
    questions: Sequence[Any],
    *,
    strategies: Sequence[str] = DEFAULT_STRATEGIES,
    retrievers: Sequence[str] = RETRIEVERS,
    retrieval: RetrievalGrid | None = None,
    budget: int = DEFAULT_BUDGET,
    k: int = 5,
    sizes: Sequence[int] = DEFAULT_SIZES,
    axes: Mapping[str, Sequence[Any]] | None = None,
    tokenizer: str = DEFAULT_TOKENIZER,
    constraints: Sequence[Constraint] = (),
    model: str | None = None,
    encode: Encoder | None = None,
    progress: Callable[[TuneProgress], None] | None = None,
    evaluator: Callable[..., list[Result]] = evaluate,
) -> Study:
    """Search strategies × sizes × overlaps × retrievers on ``corpus`` and ``questions`` (see the
    module's method), embedding at most ``budget`` chunkings. ``axes`` maps a tunable parameter
    (``separators``, ``keep_separator``) to the values to search (:func:`check_axes`); a strategy
    that does not declare one keeps its default. ``constraints`` steer the
    refinement towards their boundary. ``encode`` replaces the embedding model (tests);
    ``evaluator`` replaces :func:`evaluate` (tests count its calls)."""
    if budget < 1:
        raise TuneError(f"the budget must be at least 1 chunking, got {budget}")
    if k < 1:
        raise TuneError(f"k must be at least 1, got {k}")
    strategies = [check_strategy(s) for s in dict.fromkeys(strategies)]
    grid = retrieval if retrieval is not None else RetrievalGrid(tuple(retrievers))
    if not strategies:
        raise TuneError("give at least one strategy to search")
    check_sizes(strategies, sizes)
    chunking_axes = check_axes(strategies, axes or {})
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
                documents, questions, c.configurations(grid), k=k, model=model, encode=encode, progress=step
            )
        except ChunkvizError as exc:
            skipped.append((label, str(exc)))
            return
        clock.finish()
        tried.append(c)
        points.extend(_point(r, documents, counter, c.round) for r in results)

    space = coarse_grid(strategies, sizes, tokenizer, chunking_axes)
    coarse = space if len(space) <= budget else space[: max(1, math.ceil(2 * budget / 3))]
    for c in coarse:
        if len(tried) >= budget:
            break
        run(c)
    rounds = 0
    while len(tried) < budget:
        rounds += 1
        proposals = [n for c in _frontier_chunkings(points, tried, constraints) for n in neighbours(c, tried, rounds)]
        proposals += [c for c in space if c.key not in seen]  # the grid's remainder, after the frontier's neighbours
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
        grid.retrievers,
        tuple(strategies),
        time.monotonic() - clock.began,
        tuple(skipped),
        retrieval=tuple(grid.axes()),
        axes=tuple(f"{name}: {', '.join(map(str, values))}" for name, values in chunking_axes.items()),
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


__all__ = [
    "ALIASES", "DEFAULT_BUDGET", "DEFAULT_SIZES", "DEFAULT_STRATEGIES", "FINISHED", "LOWER_IS_BETTER", "METHOD",
    "METRICS", "MIN_REFINED_SIZE", "PUBLISHED_COLOUR", "RETRIEVER_COLOURS", "TITLES", "Chunking", "Constraint",
    "Point", "RetrievalGrid", "Study", "TuneError", "TuneProgress", "axis_title", "best", "better", "check_axes", "check_sizes",
    "check_strategy", "chunking", "closest", "coarse_grid", "dominates", "duration", "eval_command",
    "frontier_figure", "frontier_table", "is_fraction", "metric_name", "middle_out", "neighbours", "overlap_of",
    "overlap_step", "parse_constraint", "parse_constraints", "pareto", "round_size", "size_range",
    "tokens_per_question", "tune",
]  # fmt: skip
