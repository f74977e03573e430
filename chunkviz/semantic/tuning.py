"""What the semantic tuning panel draws, as plain JSON-able data (pure: no Streamlit, no model).

:func:`tuning_data` turns one :class:`~chunkviz.semantic.explanation.SemanticExplanation` into the
panel's payload: the similarity of every adjacent sentence pair at its character offset, the
threshold (value, kind, amount, caption), the control's range and step, and a table of the
threshold at *every* control step, so that the browser can move the threshold line and the
breakpoint marks instantly while the user drags; Python then reruns and sends the truth.

Exactness: the table's ``cuts[k]`` is the number of pairs that cut at step ``k`` (strictly beyond
the threshold: the tie rule of :mod:`chunkviz.semantic.thresholds`), and ``order`` lists the pairs
in cut order (least similar first), so the pairs that cut at step ``k`` are ``order[:cuts[k]]`` and
the pairs exactly at the threshold are the next ``ties[k]``. Values are rounded for drawing only.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from chunkviz.core.types import Chunk
from chunkviz.semantic.thresholds import compute_threshold

if TYPE_CHECKING:
    from chunkviz.semantic.explanation import SemanticExplanation

#: Digits kept for drawn values (similarities, threshold line); counts stay exact.
DIGITS = 4


@dataclass(frozen=True)
class Control:
    """The control of one threshold type: the strategy parameter, its meaning and its range."""

    param: str
    label: str
    minimum: float
    maximum: float
    step: float

    def steps(self) -> list[float]:
        count = int(round((self.maximum - self.minimum) / self.step))
        return [round(self.minimum + k * self.step, 6) for k in range(count + 1)]


CONTROLS = {
    "percentile": Control(
        "percentile", "percentile p: cut pairs less similar than the (100 - p)th percentile", 0.0, 100.0, 1.0
    ),
    "gradient": Control(
        "percentile", "percentile p: cut pairs whose rise in distance is above its p-th percentile", 0.0, 100.0, 1.0
    ),
    "standard_deviation": Control(
        "std_multiplier", "k: cut pairs less similar than mean - k × standard deviation", 0.0, 10.0, 0.1
    ),
    "interquartile": Control(
        "iqr_multiplier", "k: cut pairs less similar than mean - k × interquartile range", 0.0, 10.0, 0.1
    ),
    "absolute": Control("similarity", "similarity s: cut pairs less similar than s", -1.0, 1.0, 0.01),
}


def tuning_data(explanation: SemanticExplanation, chunks: Sequence[Chunk] | None = None) -> dict[str, Any]:
    """The tuning panel's payload for one semantic chunking (JSON-able; see the module docstring).

    Keys: ``kind``, ``metric``, ``amount``, ``threshold``, ``caption``, ``rule``, ``control``
    (param, label, min, max, step), ``length``, ``sentence_starts`` and ``last_end`` (with
    ``pairs.x`` the sentences' spans), ``pairs`` (``x``: character offset of the end of sentence
    i, ``y``: rounded metric value),
    ``order``, ``table`` (``values`` and ``cuts``/``ties`` per control step, step k is
    ``min + k * step``), ``breakpoints``, ``at_threshold``, ``size_cuts`` (pairs cut to fit
    max_tokens), ``chunks`` ([start, end] per chunk), ``curve`` (chunks after the size limits for
    percentiles 0..100, percentile only, else null).
    """
    chunks = explanation.chunks if chunks is None else chunks
    threshold = explanation.threshold
    sentences = [[int(a), int(b)] for a, b in explanation.analysis.sentences]
    values = np.asarray(threshold.metric_values, dtype=np.float64)
    control = CONTROLS[threshold.threshold_type]
    has_pairs = len(values) > 0
    return {
        "kind": threshold.threshold_type,
        "metric": threshold.metric,
        "amount": _finite(threshold.amount),
        "threshold": _round(threshold.value) if has_pairs else None,
        "caption": explanation.threshold_caption(),
        "rule": threshold.rule(),
        "control": {
            "param": control.param,
            "label": control.label,
            "min": control.minimum,
            "max": control.maximum,
            "step": control.step,
        },
        "length": len(explanation.text),
        "sentence_starts": [a for a, _ in sentences],
        "last_end": sentences[-1][1] if sentences else 0,
        "pairs": {"x": [b for _, b in sentences[:-1]], "y": [_round(v) for v in values]},
        "order": cut_order(values, threshold.metric),
        "table": step_table(explanation.analysis.similarities, threshold.threshold_type, control.steps())
        if has_pairs
        else None,
        "breakpoints": list(threshold.breakpoints),
        "at_threshold": list(threshold.at_threshold),
        "size_cuts": list(explanation.size_splits),
        "chunks": leaf_spans(chunks),
        "curve": [n for _, n in explanation.count_curve]
        if has_pairs and threshold.threshold_type == "percentile"
        else None,
    }


def cut_order(values: np.ndarray, metric: str) -> list[int]:
    """Pair indices in the order they start to cut as the threshold moves (stable on ties)."""
    keys = -values if metric == "distance_gradient" else values
    return [int(i) for i in np.argsort(keys, kind="stable")]


def step_table(similarities: np.ndarray, threshold_type: str, steps: Sequence[float]) -> dict[str, list[Any]]:
    """Threshold value, pairs that cut and pairs exactly at the threshold, for every step (the
    same :func:`~chunkviz.semantic.thresholds.compute_threshold` as the chunking). It depends on
    the similarities only, not on the current amount: computed once per document and type."""
    sims = np.ascontiguousarray(similarities, dtype=np.float64)
    table = _step_table(sims.tobytes(), threshold_type, tuple(steps))
    return {name: list(column) for name, column in table.items()}


@lru_cache(maxsize=16)
def _step_table(similarities: bytes, threshold_type: str, steps: tuple[float, ...]) -> dict[str, tuple[Any, ...]]:
    sims = np.frombuffer(similarities, dtype=np.float64)
    table: dict[str, list[Any]] = {"values": [], "cuts": [], "ties": []}
    for amount in steps:
        got = compute_threshold(sims, threshold_type, amount)
        table["values"].append(_round(got.value))
        table["cuts"].append(len(got.breakpoints))
        table["ties"].append(len(got.at_threshold))
    return {name: tuple(column) for name, column in table.items()}


def leaf_spans(chunks: Sequence[Chunk]) -> list[list[int]]:
    """[start, end] of every chunk without children."""
    parents = {c.parent for c in chunks if c.parent is not None}
    return [[c.start, c.end] for c in chunks if c.index not in parents]


def _round(value: float) -> float:
    return round(float(value), DIGITS)


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None
