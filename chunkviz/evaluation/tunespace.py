"""The search space of ``chunkviz tune``: chunkings (a strategy at a size, with an overlap, and
the values of the parameters it declares tunable), the coarse grid and the neighbours
refinement proposes (:mod:`chunkviz.evaluation.tune`)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from chunkviz.core.errors import ChunkvizError
from chunkviz.evaluation.evaluate import Configuration
from chunkviz.evaluation.objectives import TuneError
from chunkviz.evaluation.report import fit_to_size, swept_param
from chunkviz.evaluation.retrievers import (
    DEFAULT_ALPHA,
    DEFAULT_RERANK_CANDIDATES,
    RETRIEVERS,
    check_alpha,
    check_fusion,
    check_rerank_candidates,
    check_retriever,
)
from chunkviz.strategies.base import ParamInfo, get_strategy
from chunkviz.text.tokenizers import DEFAULT_TOKENIZER

#: The coarse grid's sizes (each strategy's size parameter, in its own unit).
DEFAULT_SIZES: tuple[int, ...] = (64, 128, 256, 512)
#: Strategies searched when none are named: no model calls, one size parameter each.
DEFAULT_STRATEGIES: tuple[str, ...] = ("recursive", "fixed_tokens", "sentences")
#: The smallest size refinement proposes (smaller chunks carry too little to be found).
MIN_REFINED_SIZE = 16


#: The hybrid fusions and the weighted fusion's dense weights searched when none are named.
DEFAULT_FUSIONS: tuple[str, ...] = ("rrf", "weighted")
DEFAULT_ALPHAS: tuple[float, ...] = (0.3, 0.5, 0.7)


@dataclass(frozen=True)
class RetrievalGrid:
    """The retrieval axes of a search, every one tried on each chunking (on its embeddings):
    the retrievers; for ``hybrid``, each fusion (``weighted`` at each alpha); and, when a
    cross-encoder folder is configured, each of those again reranked."""

    retrievers: tuple[str, ...] = RETRIEVERS
    fusions: tuple[str, ...] = DEFAULT_FUSIONS
    alphas: tuple[float, ...] = DEFAULT_ALPHAS
    rerank: str | None = None
    rerank_candidates: int = DEFAULT_RERANK_CANDIDATES

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "retrievers", tuple(check_retriever(r) for r in dict.fromkeys(self.retrievers)))
            object.__setattr__(self, "fusions", tuple(check_fusion(f) for f in dict.fromkeys(self.fusions)))
            object.__setattr__(self, "alphas", tuple(check_alpha(a) for a in dict.fromkeys(self.alphas)))
            check_rerank_candidates(self.rerank_candidates)
        except ValueError as exc:
            raise TuneError(str(exc)) from None
        if not self.retrievers or not self.fusions or not self.alphas:
            raise TuneError("give at least one retriever, one fusion and one alpha to search")
        if self.rerank is not None and not self.rerank.strip():
            raise TuneError("rerank: give a local cross-encoder model folder")

    def settings(self) -> list[dict[str, Any]]:
        """Each retrieval as :class:`Configuration` keyword arguments, plain before reranked."""
        plain: list[dict[str, Any]] = []
        for r in self.retrievers:
            if r != "hybrid":
                plain.append({"retriever": r})
                continue
            for f in self.fusions:
                alphas = self.alphas if f == "weighted" else (DEFAULT_ALPHA,)
                plain.extend({"retriever": r, "fusion": f, "alpha": a} for a in alphas)
        if self.rerank is None:
            return plain
        reranked = [{**s, "rerank": self.rerank, "rerank_candidates": self.rerank_candidates} for s in plain]
        return plain + reranked

    def axes(self) -> list[str]:
        """``["retriever: dense, bm25, hybrid", "fusion: rrf, weighted (alpha 0.3, 0.5, 0.7)", ...]``."""
        out = [f"retriever: {', '.join(self.retrievers)}"]
        if "hybrid" in self.retrievers:
            weights = f" (alpha {', '.join(f'{a:g}' for a in self.alphas)})" if "weighted" in self.fusions else ""
            out.append(f"fusion: {', '.join(self.fusions)}{weights}")
        if self.rerank is not None:
            out.append(f"rerank: none, {self.rerank} top {self.rerank_candidates}")
        return out


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

    def configurations(self, retrieval: RetrievalGrid | Sequence[str]) -> list[Configuration]:
        """This chunking with each retrieval of ``retrieval`` (a grid, or retriever names with their defaults)."""
        grid = retrieval if isinstance(retrieval, RetrievalGrid) else RetrievalGrid(tuple(retrieval), ("rrf",))
        return [Configuration(self.strategy, dict(self.params), self.tokenizer, **s) for s in grid.settings()]

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
    strategy: str,
    size: int,
    overlap: int = 0,
    tokenizer: str = DEFAULT_TOKENIZER,
    round: int = 0,
    setting: Mapping[str, Any] | None = None,
) -> Chunking | None:
    """The chunking of ``strategy`` at ``size`` (its size parameter) with ``overlap`` (its
    overlap parameter, in its unit: tokens, characters or sentences; ignored without one) and the
    tunable parameters' values of ``setting``; other parameters that would not fit the size are
    scaled with it (:func:`fit_to_size`). None when the result does not validate."""
    spec = get_strategy(strategy)
    name = swept_param(strategy, "chunk_size")
    base: dict[str, Any] = dict(setting or {})
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


def coarse_grid(
    strategies: Sequence[str],
    sizes: Sequence[int],
    tokenizer: str = DEFAULT_TOKENIZER,
    axes: Mapping[str, Sequence[Any]] | None = None,
) -> list[Chunking]:
    """Each strategy at each size within its range, with each setting of the ``axes`` it declares
    tunable (:func:`settings`), no overlap: sizes middle-out, the settings of a size together,
    strategies in turn."""
    per_strategy: list[list[Chunking]] = []
    for strategy in strategies:
        low, high = size_range(strategy)
        made = (
            chunking(strategy, s, 0, tokenizer, setting=setting)
            for s in middle_out([s for s in sizes if low <= s <= high])
            for setting in settings(strategy, axes or {})
        )
        per_strategy.append([c for c in made if c is not None])
    grid: list[Chunking] = []
    for position in range(max((len(p) for p in per_strategy), default=0)):
        grid.extend(p[position] for p in per_strategy if position < len(p))
    return grid


def neighbours(c: Chunking, tried: Sequence[Chunking], round: int) -> list[Chunking]:
    """The chunkings refinement proposes next to ``c``: midpoint sizes towards the nearest sizes
    tried for the strategy (a step of √2 past the ends), and ``c`` with an overlap; each keeps
    ``c``'s tunable parameters."""
    low, high = size_range(c.strategy)
    sizes = sorted({t.size for t in tried if t.strategy == c.strategy})
    smaller = [s for s in sizes if s < c.size]
    larger = [s for s in sizes if s > c.size]
    below = math.sqrt(c.size * smaller[-1]) if smaller else c.size / math.sqrt(2)
    above = math.sqrt(c.size * larger[0]) if larger else c.size * math.sqrt(2)
    out: list[Chunking] = []
    overlap = overlap_of(c)
    setting = setting_of(c)
    for size in (round_size(below), round_size(above)):
        if max(low, MIN_REFINED_SIZE) <= size <= high and size != c.size:
            made = chunking(c.strategy, size, min(overlap, max(0, size - 1)), c.tokenizer, round, setting)
            if made is not None:
                out.append(made)
    if overlap == 0 and (step := overlap_step(c.strategy, c.size)):
        made = chunking(c.strategy, c.size, step, c.tokenizer, round, setting)
        if made is not None:
            out.append(made)
    return out


def round_size(value: float) -> int:
    """A size rounded to a readable number: to 8 from 64 up, to 4 from 16, else to 1."""
    step = 8 if value >= 64 else 4 if value >= 16 else 1
    return max(1, int(round(value / step)) * step)


# ----------------------------------------------------------------------------- tunable parameters


def tunable_params(strategy: str) -> dict[str, ParamInfo]:
    """The parameters ``strategy`` declares tunable (``param(..., tunable=True)``), by name."""
    return {p.name: p for p in get_strategy(strategy).params_info() if p.tunable}


def check_axes(strategies: Sequence[str], axes: Mapping[str, Sequence[Any]]) -> dict[str, tuple[Any, ...]]:
    """``axes`` (a tunable parameter's name -> the values to search) checked against the
    strategies searched: each name declared tunable by at least one of them, each value a name
    (a choice or a preset, so the saved configuration names it) that every one of them accepts.
    Duplicates are dropped; a TuneError says what to change."""
    checked: dict[str, tuple[Any, ...]] = {}
    for name, values in axes.items():
        declaring = [s for s in strategies if name in tunable_params(s)]
        if not declaring:
            offered = sorted({p for s in strategies for p in tunable_params(s)})
            hint = f"they declare {', '.join(offered)}" if offered else "they declare no tunable parameter"
            raise TuneError(f"no strategy searched ({', '.join(strategies)}) tunes {name!r}: {hint}")
        unique = tuple(dict.fromkeys(values))
        if not unique:
            raise TuneError(f"{name}: give at least one value to search")
        for value in unique:
            _check_axis_value(declaring, name, value)
        checked[name] = unique
    return checked


def _check_axis_value(strategies: Sequence[str], name: str, value: Any) -> None:
    for strategy in strategies:
        info = tunable_params(strategy)[name]
        names = list(info.choices or ()) + list(info.presets or {})
        if not isinstance(value, str) or (names and value not in names):
            raise TuneError(f"{name} {value!r} is not one of {strategy}'s: {', '.join(names)}")
        try:
            get_strategy(strategy).make_params({name: value})
        except ChunkvizError as exc:
            raise TuneError(f"{name} {value!r}: {exc}") from None


def settings(strategy: str, axes: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """Every combination of the ``axes`` values ``strategy`` declares tunable, in the order given
    (``[{}]`` when it declares none of them: the strategy's defaults)."""
    own = {name: values for name, values in axes.items() if name in tunable_params(strategy)}
    return [dict(zip(own, combination)) for combination in itertools.product(*own.values())]


def setting_of(c: Chunking) -> dict[str, Any]:
    """The tunable parameters' values of ``c`` (what its neighbours keep)."""
    tunable = tunable_params(c.strategy)
    return {name: value for name, value in c.params if name in tunable}
