"""What ``chunkviz eval`` needs besides the engine: configurations from the command line (with
a size sweep) and the results as a text table."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from chunkviz.errors import ChunkvizError
from chunkviz.evaluation.evaluate import Configuration, Result
from chunkviz.evaluation.metrics import METRICS

#: Column titles of the table, in the study's order, then the guide's.
TITLES = {
    "recall": "recall",
    "precision": "precision",
    "precision_omega": "precision_Ω",
    "iou": "IoU",
    "recall_at_k": "recall@k",
    "reciprocal_rank": "MRR",
}


class SweepError(ChunkvizError, ValueError):
    """A --sweep value that is not ``name=v1,v2,...``."""


def parse_sweep(text: str) -> tuple[str, list[Any]]:
    """``chunk_size=128,256,512`` -> ("chunk_size", [128, 256, 512]) (integers where they are)."""
    name, sep, values = text.partition("=")
    items = [v.strip() for v in values.split(",") if v.strip()]
    if not sep or not name.strip() or not items:
        raise SweepError(f"--sweep {text!r}: write it as NAME=V1,V2,... e.g. --sweep chunk_size=128,256,512")
    return name.strip(), [_number(v) for v in items]


def _number(value: str) -> Any:
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def configurations(
    strategies: Sequence[str], params: Mapping[str, Any], tokenizer: str, sweep: tuple[str, list[Any]] | None
) -> list[Configuration]:
    """One configuration per strategy, or per strategy and swept value."""
    out = []
    for strategy in strategies:
        if sweep is None:
            out.append(Configuration(strategy, dict(params), tokenizer))
            continue
        name, values = sweep
        swept = swept_param(strategy, name)
        out.extend(Configuration(strategy, {**params, swept: value}, tokenizer) for value in values)
    return out


def swept_param(strategy: str, name: str) -> str:
    """The parameter a sweep of ``name`` sets for ``strategy``: ``name`` itself, or, when the
    strategy has no such parameter, its declared size (``chunk_size`` sweeps paragraphs'
    ``max_tokens``)."""
    from chunkviz.strategies.base import get_strategy

    spec = get_strategy(strategy)
    if any(p.name == name for p in spec.params_info()):
        return name
    size = spec.size_param()
    if size is None:
        raise SweepError(f"--sweep {name}: {strategy} has no parameter {name!r} and no size parameter to sweep instead")
    return size.name


def table(results: Sequence[Result]) -> str:
    """Mean ± standard deviation in percent per metric, one row per configuration."""
    header = ["configuration", "chunks", "mean chars", *(TITLES[m] for m in METRICS_ORDER)]
    rows = [header]
    for result in results:
        summary = result.summary()
        rows.append([
            result.configuration.label(), f"{result.chunks:,}", f"{result.mean_chunk_chars:,.0f}",
            *(f"{100 * summary[m][0]:.1f} ± {100 * summary[m][1]:.1f}" for m in METRICS_ORDER),
        ])  # fmt: skip
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


METRICS_ORDER: tuple[str, ...] = ("recall", "precision", "precision_omega", "iou", "recall_at_k", "reciprocal_rank")
assert set(METRICS_ORDER) == set(METRICS)
