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

    def describe(self) -> str:
        """One phrase, e.g. ``similarity threshold 0.023 (percentile 95)``."""
        if self.value != self.value:  # NaN: fewer than two sentences
            return "no threshold (fewer than two sentences)"
        metric = "similarity" if self.metric == "similarity" else "distance-gradient"
        setting = {
            "percentile": f"percentile {self.amount:g}",
            "gradient": f"gradient percentile {self.amount:g}",
            "standard_deviation": f"mean - {self.amount:g} × standard deviation",
            "interquartile": f"mean - {self.amount:g} × interquartile range",
            "absolute": "absolute",
        }[self.threshold_type]
        return f"{metric} threshold {self.value:.3f} ({setting})"


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
        cut = np.flatnonzero(gradient > value)
        return Threshold(threshold_type, value, "distance_gradient", gradient, tuple(int(i) for i in cut), amount)
    value = _similarity_threshold(sims, threshold_type, amount)
    cut = np.flatnonzero(sims < value)
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


def chunk_count_curve(similarities: np.ndarray, percentiles: Sequence[float] = tuple(range(0, 101))) -> list[tuple[float, int]]:
    """(percentile, number of breakpoint groups) for a sweep of percentiles (before size limits)."""
    sims = np.asarray(similarities, dtype=np.float64)
    if len(sims) == 0:
        return [(float(p), 1) for p in percentiles]
    return [(float(p), int(np.count_nonzero(sims < np.percentile(sims, 100.0 - p))) + 1) for p in percentiles]
