"""What ``chunkviz eval`` needs besides the engine: configurations from the command line (with
a size sweep, parameters that depend on the size scaled with it) and the results as a text table."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from chunkviz.core.errors import ChunkvizError, InvalidParamError
from chunkviz.evaluation.evaluate import Configuration, Result
from chunkviz.evaluation.metrics import METRICS, as_percent, cutoffs

if TYPE_CHECKING:
    from chunkviz.strategies.base import ParamInfo, Strategy

#: Column titles of the table, in the study's order, then the guide's.
TITLES = {
    "recall": "recall",
    "precision": "precision",
    "precision_omega": "precision_Ω",
    "iou": "IoU",
    "recall_at_k": "recall@k",
    "reciprocal_rank": "MRR",
    "ndcg_at_k": "NDCG@k",
    "average_precision": "MAP",
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
        out.extend(
            Configuration(strategy, fit_to_size(strategy, params, swept, value)[0], tokenizer) for value in values
        )
    return out


def parse_choices(text: str, choices: Sequence[str], flag: str) -> list[str]:
    """``"rewrite,hyde"`` -> ["rewrite", "hyde"]: comma-separated values, each one of ``choices``
    (repeats dropped), or a SweepError naming ``flag`` and the choices."""
    items = list(dict.fromkeys(item.strip() for item in text.split(",") if item.strip()))
    unknown = [item for item in items if item not in choices]
    if not items or unknown:
        what = f"unknown value {unknown[0]!r}" if unknown else "no value"
        raise SweepError(f"{flag} {text!r}: {what}; choose from {', '.join(choices)} (several separated by commas)")
    return items


def variant_options(
    enrich: str | None = None,
    query: str | None = None,
    summaries: str | None = None,
    retriever: str | None = None,
    fusion: str | None = None,
) -> dict[str, list[Any]]:
    """The twins ``--enrich``, ``--query``, ``--summaries``, ``--retriever`` and ``--fusion`` ask
    for, as keyword arguments of :func:`chunkviz.evaluation.evaluate.with_variants`: each
    technique's list starts with the plain setting (no enrichment, the raw query, no summaries),
    so every technique is compared with the same chunks without it; the retrievers are the ones
    named, in their order (default: dense), ``--fusion`` the fusions of the hybrid rows (default rrf)."""
    from chunkviz.evaluation.evaluate import ENRICHMENTS
    from chunkviz.evaluation.retrievers import FUSIONS, RETRIEVERS
    from chunkviz.evaluation.summaries import SUMMARY_MODES
    from chunkviz.llm.queries import QUERY_MODES

    retrievers = parse_choices(retriever, RETRIEVERS, "--retriever") if retriever else ["dense"]
    fusions = parse_choices(fusion, FUSIONS, "--fusion") if fusion else ["rrf"]
    if fusion and "hybrid" not in retrievers:
        raise SweepError(f"--fusion {fusion!r} fuses the hybrid retriever's rankings: add --retriever hybrid")
    return {
        "enrich": [None, *(parse_choices(enrich, ENRICHMENTS, "--enrich") if enrich else [])],
        "query": ["raw", *(parse_choices(query, QUERY_MODES, "--query") if query else [])],
        "summaries": [None, *(parse_choices(summaries, SUMMARY_MODES, "--summaries") if summaries else [])],
        "retriever": retrievers,
        "fusion": fusions,
    }


def retrieval_options(alpha: Any = 0.5, rerank: str | None = None, rerank_candidates: Any = 20) -> dict[str, Any]:
    """``--alpha``, ``--rerank`` and ``--rerank-candidates`` as :class:`Configuration` fields,
    checked (a SweepError naming the flag)."""
    from chunkviz.evaluation.retrievers import check_alpha, check_rerank_candidates

    try:
        check_alpha(alpha)
    except ValueError as exc:
        raise SweepError(f"--alpha {alpha!r}: {exc}") from None
    try:
        check_rerank_candidates(rerank_candidates)
    except ValueError:
        raise SweepError(f"--rerank-candidates {rerank_candidates!r}: give a whole number from 1 to 1000") from None
    if rerank is not None and not rerank.strip():
        raise SweepError("--rerank: give a local cross-encoder model folder")
    return {"alpha": float(alpha), "rerank": rerank, "rerank_candidates": int(rerank_candidates)}


def saved_configurations(args: Any) -> tuple[list[Configuration], str | None]:
    """``chunkviz eval --config FILE``: the file's configurations (retrieval included) and its
    embedding model (``--model`` when given); a SweepError for a flag that would change them."""
    from chunkviz.evaluation.config import eval_configurations, load_config

    flags = {"-s": args.strategy, "-p": args.param, "--sweep": args.sweep, "--retriever": args.retriever,
             "--fusion": args.fusion, "--rerank": args.rerank, "--enrich": args.enrich, "--query": args.query,
             "--summaries": args.summaries}  # fmt: skip
    given = [flag for flag, value in flags.items() if value]
    if given:
        raise SweepError(f"--config runs the file's configuration exactly; drop {', '.join(given)} (or --config)")
    config = load_config(args.config)
    return eval_configurations(config), args.model or config.embedding_model


def size_names() -> list[str]:
    """The names of the registered strategies' declared sizes (``chunk_size``, ``max_tokens`` ...):
    a sweep of any of them sweeps each strategy's own size."""
    from chunkviz.strategies.base import registered

    return list(dict.fromkeys(size.name for spec in registered() if (size := spec.size_param()) is not None))


def swept_param(strategy: str, name: str) -> str:
    """The parameter a sweep of ``name`` sets for ``strategy``: ``name`` itself, or, when ``name``
    is a size (:func:`size_names`) the strategy calls otherwise, its declared size (``chunk_size``
    sweeps paragraphs' ``max_tokens``). Any other name is refused, listing the valid ones (a typo
    must not sweep the size instead)."""
    from chunkviz.strategies.base import get_strategy

    spec = get_strategy(strategy)
    own = [p.name for p in spec.params_info()]
    if name in own:
        return name
    size = spec.size_param()
    sizes = size_names()
    if size is not None and name in sizes:
        return size.name
    problem = f"--sweep {name}: {strategy} has no parameter {name!r}"
    if size is None and name in sizes:
        problem += " and no size parameter to sweep instead"
    choices = f"; choose one of: {', '.join(own)}" if own else ""
    if size is not None:
        choices += f", or a size name ({', '.join(sizes)}) to sweep its {size.name}"
    raise SweepError(problem + choices)


@dataclass(frozen=True)
class Adjustment:
    """A parameter scaled with a swept size: ``value`` at the configuration's own size ``base``
    became ``scaled`` at ``size`` (the value would not have fitted the size)."""

    param: str
    value: int
    base: int
    scaled: int
    size: int


def fit_to_size(
    strategy: str, params: Mapping[str, Any], name: str, size: Any
) -> tuple[dict[str, Any], tuple[Adjustment, ...]]:
    """``params`` with the size parameter ``name`` set to ``size``, and what had to be scaled.

    When the new size makes another whole-number parameter invalid (an overlap or a minimum no
    longer below the size, a parent no longer above it), that parameter keeps its ratio to the
    size instead: floored when the size shrinks, ceiled when it grows, within its range (overlap
    16 at 128 -> 4 at 32). Parameters that still fit are kept. When scaling cannot make the
    configuration valid, the params come back unscaled (running them reports why).
    """
    from chunkviz.strategies.base import get_strategy

    spec = get_strategy(strategy)
    infos = {p.name: p for p in spec.params_info()}
    base = params.get(name, infos[name].default) if name in infos else None
    fitted = {**params, name: size}
    if (
        not (isinstance(base, int) and not isinstance(base, bool) and _whole(size) and base > 0 and size > 0)
        or base == size
    ):
        return fitted, ()
    adjusted: list[Adjustment] = []
    for _ in infos:
        problem = _invalid_param(spec, fitted)
        if problem is None:
            return fitted, tuple(adjusted)
        step = _rescue(spec, infos, params, fitted, problem, name, base, size, {a.param for a in adjusted})
        if step is None:
            break
        adjusted.append(step)
        fitted[step.param] = step.scaled
    return {**params, name: size}, ()


def _rescue(
    spec: Strategy[Any],
    infos: Mapping[str, ParamInfo],
    params: Mapping[str, Any],
    fitted: Mapping[str, Any],
    problem: str,
    name: str,
    base: int,
    size: int,
    done: set[str],
) -> Adjustment | None:
    """The first parameter whose scaling removes ``problem``: the invalid parameter itself, or,
    when the swept size is the one named (child_size no longer below parent_size), another."""
    candidates = [problem] if problem != name else [p for p in infos if p != name]
    for param in (c for c in candidates if c in infos and c not in done):
        value = params.get(param, infos[param].default)
        scaled = _scaled(infos[param], value, base, size)
        if scaled is not None and _invalid_param(spec, {**fitted, param: scaled}) != problem:
            return Adjustment(param, value, base, scaled, size)
    return None


def _scaled(info: ParamInfo, value: Any, base: int, size: int) -> int | None:
    """``value * size / base`` rounded towards validity and kept in the parameter's range (None:
    not a whole number, or it would not change)."""
    if not _whole(value):
        return None
    scaled = value * size // base if size < base else -(-value * size // base)
    if info.minimum is not None:
        scaled = max(scaled, int(info.minimum))
    if info.maximum is not None:
        scaled = min(scaled, int(info.maximum))
    return None if scaled == value else scaled


def _invalid_param(spec: Strategy[Any], params: Mapping[str, Any]) -> str | None:
    """The parameter ``params`` are refused for ("" when the refusal names none), or None."""
    try:
        spec.make_params(params)
    except InvalidParamError as exc:
        return exc.param
    except ChunkvizError:
        return ""
    return None


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def adjustment_note(adjustments: Sequence[Adjustment]) -> str:
    """What was scaled, per parameter: ``overlap scaled with the size: 16 at 128 → 4 at 32, 2 at 16``."""
    groups: dict[tuple[str, int, int], list[str]] = {}
    for a in adjustments:
        groups.setdefault((a.param, a.value, a.base), []).append(f"{a.scaled} at {a.size}")
    return "; ".join(
        f"{param} scaled with the size: {value} at {base} → {', '.join(parts)}"
        for (param, value, base), parts in groups.items()
    )


def sweep_label(column: str, name: str, size: int, adjustments: Sequence[Adjustment]) -> str:
    """A swept configuration's label with its real params: ``1. recursive · chunk_size=32, overlap=4``."""
    return f"{column} · " + ", ".join(
        f"{param}={value}" for param, value in [(name, size), *((a.param, a.scaled) for a in adjustments)]
    )


#: The metrics a technique's row is compared on with its plain twin (percentage points).
DELTA_METRICS: tuple[str, ...] = ("recall", "iou", "reciprocal_rank")


def plain_twins(results: Sequence[Result]) -> list[int | None]:
    """For each result with a technique (enrichment, query mode or summaries) or another
    retrieval (bm25, hybrid, a rerank), the position of the result of the same chunking without
    any, retrieved densely (same strategy, parameters, tokenizer and placement); None for plain
    results and techniques evaluated without their plain twin."""

    def key(config: Configuration) -> tuple[Any, ...]:
        return (config.strategy, sorted(config.params.items()), config.tokenizer, config.placement)

    def is_plain(config: Configuration) -> bool:
        techniques = config.enrich is not None or config.query != "raw" or config.summaries is not None
        return not techniques and config.retriever == "dense" and config.rerank is None

    plain: dict[str, int] = {}
    for i, r in enumerate(results):
        if is_plain(r.configuration):
            plain.setdefault(repr(key(r.configuration)), i)
    return [None if is_plain(r.configuration) else plain.get(repr(key(r.configuration))) for r in results]


def deltas(results: Sequence[Result]) -> list[dict[str, float] | None]:
    """Per result, its mean minus its plain twin's for :data:`DELTA_METRICS`, in percentage
    points (None: no twin; see :func:`plain_twins`)."""
    summaries = [r.summary() for r in results]
    out: list[dict[str, float] | None] = []
    for i, twin in enumerate(plain_twins(results)):
        if twin is None:
            out.append(None)
            continue
        out.append({m: 100 * (summaries[i][m][0] - summaries[twin][m][0]) for m in DELTA_METRICS})
    return out


def table(results: Sequence[Result]) -> str:
    """Mean ± standard deviation in percent per metric, one row per configuration; when some
    rows add a technique to a plain row of the same chunking, columns ``Δ recall``, ``Δ IoU``
    and ``Δ MRR`` give the difference in points (``+3.1``; ``–`` on rows without a plain twin).
    Every line of the table has the same width (columns may be appended to it)."""
    changes = deltas(results)
    shown = any(d is not None for d in changes)
    k = max((r.k for r in results), default=0)
    shown_metrics = [*METRICS_ORDER, *(f"recall@{c}" for c in cutoffs(k) if c < k)]
    header = ["configuration", "chunks", "mean chars", *(TITLES.get(m, m) for m in shown_metrics)]
    if shown:
        header += [f"Δ {TITLES[m]}" for m in DELTA_METRICS]
    rows = [header]
    for result, change in zip(results, changes):
        summary = result.summary()
        rows.append([
            result.configuration.label(), f"{result.chunks:,}", f"{result.mean_chunk_chars:,.0f}",
            *(as_percent({m: summary.get(m, (math.nan, math.nan))})[m] for m in shown_metrics),
        ])  # fmt: skip
        if shown:
            rows[-1] += [f"{change[m]:+.1f}" if change is not None else "–" for m in DELTA_METRICS]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))).rstrip()
        for row in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


METRICS_ORDER: tuple[str, ...] = (
    "recall", "precision", "precision_omega", "iou", "recall_at_k", "reciprocal_rank", "ndcg_at_k", "average_precision"
)  # fmt: skip
assert set(METRICS_ORDER) == set(METRICS)


# ----------------------------------------------------------------------------- the app's view
#: The app's metric columns: the guide's recall@k first, then the study's, then MRR.
APP_METRICS: tuple[str, ...] = (
    "recall_at_k", "recall", "precision", "iou", "precision_omega", "reciprocal_rank", "ndcg_at_k", "average_precision"
)  # fmt: skip
assert set(APP_METRICS) == set(METRICS)
#: What marks the best value of a metric column.
BEST_MARK = "★"
#: Largest k the app offers (a retriever hands an LLM a few chunks, not dozens).
MAX_K = 20
#: The app's default sweep (2048 is allowed, but slow for an interactive default).
DEFAULT_SIZES: tuple[int, ...] = (128, 256, 512, 1024)


def parse_sizes(text: str) -> list[int]:
    """``"128, 256 512"`` -> [128, 256, 512]: whole, positive, distinct sizes in the given order."""
    items = [item for item in text.replace(",", " ").split() if item]
    if not items:
        raise SweepError("the sweep has no sizes: give one or more whole numbers, e.g. 128, 256, 512, 1024")
    sizes: list[int] = []
    for item in items:
        if not item.isdigit() or int(item) < 1:
            raise SweepError(f"size {item!r} is not a whole number of 1 or more; write sizes like 128, 256, 512, 1024")
        if int(item) not in sizes:
            sizes.append(int(item))
    return sizes


def check_k(k: Any) -> int:
    """``k`` as an int when it is a whole number from 1 to :data:`MAX_K`, else a SweepError saying so."""
    if isinstance(k, bool) or not isinstance(k, (int, float)) or not 1 <= k <= MAX_K or k != int(k):
        raise SweepError(f"k = {k!r}: choose how many chunks each question retrieves, a whole number from 1 to {MAX_K}")
    return int(k)


def best_rows(results: Sequence[Result]) -> dict[str, set[int]]:
    """Per metric, the positions of the results with the highest mean (ties: all of them; every
    metric here is better when higher). Metrics without a number (no questions) have none."""
    summaries = [r.summary() for r in results]
    best: dict[str, set[int]] = {}
    for metric in APP_METRICS:
        means = [s[metric][0] for s in summaries]
        known = [m for m in means if m == m]
        top = max(known) if known else None
        best[metric] = set() if top is None else {i for i, m in enumerate(means) if m == m and abs(m - top) < 1e-12}
    return best


def summary_rows(results: Sequence[Result], labels: Sequence[str]) -> list[dict[str, Any]]:
    """The app's results table: per configuration its label, chunk count, mean chunk length and
    each metric as ``mean ± std`` in percent, the best of each column marked with :data:`BEST_MARK`."""
    if len(labels) != len(results):
        raise ValueError(f"{len(labels)} labels for {len(results)} results")
    best = best_rows(results)
    rows = []
    for i, (result, label) in enumerate(zip(results, labels)):
        summary = result.summary()
        row: dict[str, Any] = {
            "configuration": label,
            "chunks": result.chunks,
            "mean chunk chars": round(result.mean_chunk_chars),
        }
        for metric in APP_METRICS:
            mean, std = summary[metric]
            cell = "–" if mean != mean else f"{100 * mean:.1f} ± {100 * std:.1f}"
            row[TITLES[metric]] = f"{cell} {BEST_MARK}" if i in best[metric] else cell
        rows.append(row)
    return rows


def question_rows(result: Result, questions: Sequence[Any]) -> list[dict[str, Any]]:
    """One row per question of one configuration: the question, its number of references, the
    rank of the first retrieved chunk that overlaps a reference (None: none in the top k), and
    its scores in percent (rounded to 0.1)."""
    rows = []
    for number, (question, scores) in enumerate(zip(questions, result.scores), start=1):
        first = round(1 / scores.reciprocal_rank) if scores.reciprocal_rank else None
        row: dict[str, Any] = {
            "#": number,
            "question": question.question,
            "references": len(question.references),
            "first hit": first,
        }
        row.update({TITLES[m]: round(100 * getattr(scores, m), 1) for m in APP_METRICS if m != "reciprocal_rank"})
        rows.append(row)
    return rows


def twin_question_rows(plain: Result, variant: Result, questions: Sequence[Any]) -> list[dict[str, Any]]:
    """Per question, how a technique changed it against the plain twin: the question, the
    characters its references span, the rank of the first hit and the recall (%) of each, and
    the change. Broadest questions (longest references) first, so a summary index's effect on
    broad questions is at the top."""
    if len(plain.scores) != len(questions) or len(variant.scores) != len(questions):
        raise ValueError(f"{len(questions)} questions for results of {len(plain.scores)} and {len(variant.scores)}")
    label = " ".join(variant.configuration.tags()) or variant.configuration.label()
    rows = []
    for number, (question, a, b) in enumerate(zip(questions, plain.scores, variant.scores), start=1):
        rows.append({
            "#": number, "question": question.question, "reference chars": sum(r.end - r.start for r in question.references),
            "first hit": _first_hit(a), f"first hit ({label})": _first_hit(b),
            "recall %": round(100 * a.recall, 1), f"recall % ({label})": round(100 * b.recall, 1),
            "Δ recall": round(100 * (b.recall - a.recall), 1),
        })  # fmt: skip
    return sorted(rows, key=lambda row: (-row["reference chars"], row["#"]))


def _first_hit(scores: Any) -> int | None:
    return round(1 / scores.reciprocal_rank) if scores.reciprocal_rank else None
