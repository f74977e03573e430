"""Breakpoint thresholds on adjacent-sentence similarities (pure numpy).

Similarity ``i`` compares sentence ``i`` and ``i + 1``; a breakpoint ``i`` cuts after sentence
``i``. Threshold types (all expressed on similarities unless noted):

- ``percentile`` p: cut where similarity is below ``np.percentile(similarities, 100 - p)``, i.e.
  in the bottom (100 - p) percent (p = 95 cuts the 5 % least similar pairs);
- ``standard_deviation`` k: below ``mean - k * std``;
- ``interquartile`` k: below ``mean - k * (Q3 - Q1)``;
- ``gradient`` p: on the rise of the distance (1 - similarity) from the previous pair, above
  its p-th percentile (a sudden drop in similarity; cuts at the dip itself);
- ``absolute`` s: below the similarity ``s``.

Tie rule (one rule for chunks, plot marks and counts): a pair cuts only when it is strictly
beyond the threshold (similarity ``<`` value; rise of distance ``>`` value), as LangChain's
``distance > threshold``. A pair exactly at the threshold is not a breakpoint: with linear
interpolation this happens whenever ``(pairs - 1) * (100 - p) / 100`` is a whole number, e.g. at
p = 95 with 21 pairs the threshold *is* the second-lowest similarity, so only the lowest pair cuts.
:attr:`Threshold.at_threshold` lists such pairs so that views can say so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

THRESHOLD_TYPES = ("percentile", "standard_deviation", "interquartile", "gradient", "absolute")


@dataclass(frozen=True)
class Threshold:
    """Where to cut: ``metric`` values compared with ``value`` (below for similarities, above for
    the distance gradient). ``amount`` is the setting that gave ``value`` (p, k or s)."""

    threshold_type: str
    value: float
    metric: str  # "similarity" or "distance_gradient"
    metric_values: np.ndarray = field(compare=False)
    breakpoints: tuple[int, ...]
    amount: float = float("nan")

    @property
    def at_threshold(self) -> tuple[int, ...]:
        """Pairs exactly at the threshold: not breakpoints (see the tie rule above)."""
        if self.value != self.value:
            return ()
        return tuple(int(i) for i in np.flatnonzero(self.metric_values == self.value))

    def describe(self) -> str:
        """One phrase naming the threshold and where it comes from, e.g.
        ``similarity threshold 0.023 = 5th percentile of 21 pairs``."""
        if self.value != self.value:  # NaN: fewer than two sentences
            return "no threshold (fewer than two sentences)"
        n = len(self.metric_values)
        pairs = f"{n:,} pair{'' if n == 1 else 's'}"
        if self.threshold_type == "gradient":
            return f"distance-gradient threshold {self.value:.3f} = {ordinal(self.amount)} percentile of {n:,} rises in distance"
        origin = {
            "percentile": f"= {ordinal(100.0 - self.amount)} percentile of {pairs}",
            "standard_deviation": f"= mean - {self.amount:g} × standard deviation of {pairs}",
            "interquartile": f"= mean - {self.amount:g} × interquartile range of {pairs}",
            "absolute": "(absolute)",
        }[self.threshold_type]
        return f"similarity threshold {self.value:.3f} {origin}"

    def rule(self) -> str:
        """Which pairs cut, in words (the tie rule)."""
        if self.metric == "similarity":
            return "a pair cuts when its similarity is below the threshold (at it: no cut)"
        return "a pair cuts when its rise in distance is above the threshold (at it: no cut)"


def ordinal(value: float) -> str:
    """``5`` -> ``5th``, ``1`` -> ``1st``, ``22`` -> ``22nd``, ``2.5`` -> ``2.5th``."""
    value = round(float(value), 6)
    if value != int(value):
        return f"{value:g}th"
    n = int(value)
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def cuts(metric_values: np.ndarray, value: float, metric: str) -> np.ndarray:
    """Indices of the pairs that cut at ``value`` (strictly beyond it: the tie rule)."""
    values = np.asarray(metric_values, dtype=np.float64)
    return np.flatnonzero(values > value) if metric == "distance_gradient" else np.flatnonzero(values < value)


def compute_threshold(similarities: np.ndarray, threshold_type: str = "percentile", amount: float = 95.0) -> Threshold:
    """The threshold and breakpoints for one threshold type (see the module docstring)."""
    sims = np.asarray(similarities, dtype=np.float64)
    if threshold_type not in THRESHOLD_TYPES:
        raise ValueError(f"unknown threshold type {threshold_type!r}; choose one of: {', '.join(THRESHOLD_TYPES)}")
    amount = float(amount)
    if len(sims) == 0:
        metric = "distance_gradient" if threshold_type == "gradient" else "similarity"
        return Threshold(threshold_type, float("nan"), metric, sims, (), amount)
    if threshold_type == "gradient":
        distances = 1.0 - sims
        # how much the distance rose from the previous pair: it peaks AT a similarity dip
        # (LangChain's np.gradient is a central difference that peaks one sentence early)
        gradient = np.diff(distances, prepend=distances[0])
        value = float(np.percentile(gradient, amount))
        cut = cuts(gradient, value, "distance_gradient")
        return Threshold(threshold_type, value, "distance_gradient", gradient, tuple(int(i) for i in cut), amount)
    value = _similarity_threshold(sims, threshold_type, amount)
    cut = cuts(sims, value, "similarity")
    return Threshold(threshold_type, value, "similarity", sims, tuple(int(i) for i in cut), amount)


def _similarity_threshold(sims: np.ndarray, threshold_type: str, amount: float) -> float:
    if threshold_type == "percentile":
        return float(np.percentile(sims, 100.0 - amount))
    if threshold_type == "standard_deviation":
        return float(np.mean(sims) - amount * np.std(sims))
    if threshold_type == "interquartile":
        q1, q3 = np.percentile(sims, [25, 75])
        return float(np.mean(sims) - amount * (q3 - q1))
    return amount


def chunk_count_curve(
    similarities: np.ndarray, percentiles: Sequence[float] = tuple(range(0, 101))
) -> list[tuple[float, int]]:
    """(percentile, number of breakpoint groups) for a sweep of percentiles (before size limits)."""
    sims = np.asarray(similarities, dtype=np.float64)
    if len(sims) == 0:
        return [(float(p), 1) for p in percentiles]
    return [(float(p), len(cuts(sims, float(np.percentile(sims, 100.0 - p)), "similarity")) + 1) for p in percentiles]
