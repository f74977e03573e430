"""What a semantic column carries into a static view so that the page can re-cut it (pure, no model).

A report or notebook view has no Python behind it, so the percentile slider re-cuts in the browser
(``report.js``, ``cvRecut``) from numbers stored here, by the same arithmetic as
:mod:`chunkviz.semantic.assembly`:

- which pairs cut at each integer percentile: :func:`chunkviz.semantic.tuning.step_table` (the
  count of pairs strictly below the threshold, the tie rule) over :func:`~chunkviz.semantic.tuning.cut_order`
  (pairs least similar first, stable): the pairs that cut at step ``k`` are ``order[:cuts[k]]``;
- the weakest pair of a group over the budget and the more similar neighbour of a small group:
  a dense rank of the similarities (equal similarities, equal rank), so ties break as numpy's
  ``argmin`` (first) and Python's stable sort (left first) do;
- sizes in the model's tokens, as :meth:`chunkviz.text.spancount.SpanCounter.count` computes them: for
  each sentence cut, the clean cut it uses as a span's start (the first within ``EDGE_REACH``
  characters after it) and as a span's end (the last before it), the tokens of the few characters
  between, and the tokens before that clean cut; a group's size is ``head + inner + tail``. The rare
  short spans the counter tokenizes whole (no clean cut inside) are stored as they are (``direct``);
- a single sentence over the budget: its word-split pieces (they do not depend on the threshold;
  the last one ends with the group's reason);
- the structure's boundary at every place a chunk can end.

When the model's tokenizer has no local clean-cut rule (sizes would not be arithmetic) or the threshold is not a percentile,
the column carries its plot and caption without a slider, and ``recut`` says why.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from chunkviz.core.vocabulary import Reason
from chunkviz.document.model import Document
from chunkviz.semantic.assembly import group_pieces, size_setup
from chunkviz.semantic.explanation import SemanticExplanation
from chunkviz.semantic.thresholds import compute_threshold
from chunkviz.semantic.tuning import CONTROLS, DIGITS, cut_order, step_table
from chunkviz.text.spancount import EDGE_REACH, SpanCounter


def semantic_view_data(document: Document, explanation: SemanticExplanation) -> dict[str, Any]:
    """The plot, caption and (for a percentile threshold over clean sentence cuts) the re-cut
    tables of one semantic column; the shape is ``SemanticData`` in ``report.js``."""
    analysis, threshold = explanation.analysis, explanation.threshold
    sims = np.asarray(analysis.similarities, dtype=np.float64)
    sentences = analysis.sentences
    out: dict[str, Any] = {
        "caption": explanation.threshold_caption(),
        "summary": explanation.summary(),
        "metric": threshold.metric,
        "kind": threshold.threshold_type,
        "amount": float(threshold.amount) if np.isfinite(threshold.amount) else None,
        "threshold": round(float(threshold.value), DIGITS) if len(sims) else None,
        "x": [int(b) for _, b in sentences[:-1]],
        "y": [round(float(v), DIGITS) for v in threshold.metric_values],
        "breakpoints": list(threshold.breakpoints),
        "ties": list(threshold.at_threshold),
        "size_cuts": list(explanation.size_splits),
        "recut": None,
        "why_not": "",
    }
    if threshold.threshold_type != "percentile":
        out["why_not"] = f"the slider re-cuts a percentile threshold; this column's is {threshold.threshold_type}"
        return out
    if len(sims) == 0:
        out["why_not"] = "fewer than two sentences: nothing to compare"
        return out
    recut = _recut_tables(document, explanation, sims)
    if isinstance(recut, str):
        out["why_not"] = recut
    else:
        out["recut"] = recut
    return out


def _recut_tables(document: Document, explanation: SemanticExplanation, sims: np.ndarray) -> dict[str, Any] | str:
    analysis = explanation.analysis
    text = document.text
    setup = size_setup(text, analysis.sentences, analysis.model, explanation.max_tokens)
    counter = setup.counter
    if not counter.tokenizer.clean_cut_is_local:
        return f"the {counter.tokenizer.name} tokenizer's clean cuts are not local (sizes would not be arithmetic)"
    cuts = list(setup.cuts)
    n = len(cuts) - 1
    edges = [_edges(counter, c) for c in cuts]
    far = [c for c, e in zip(cuts, edges) if e[0] < 0 or e[3] < 0]
    if far:
        return f"no clean token cut within {EDGE_REACH} characters of the sentence cut at {far[0]} (sizes would not be exact)"
    sizes = {"edges": edges, "direct": _direct_sizes(counter, cuts, edges)}
    if any(_size(sizes, cuts, k, k + 1) != setup.size(k, k + 1) for k in range(n)):
        return "the model's token counts of the sentences do not add up (sizes would not be exact)"
    long_pieces: dict[int, list[list[int]]] = {}
    ends: set[int] = set(cuts[1:])
    for k in range(n):
        if setup.size(k, k + 1) > setup.budget:
            pieces = group_pieces([(k, k + 1, Reason.SEMANTIC_BREAKPOINT)], setup)
            long_pieces[k] = [[p.start, p.end, int(p.metadata.get("model_tokens", 0))] for p in pieces]
            ends.update(p.end for p in pieces)
    points = sorted(ends)
    boundaries = dict(zip(points, (str(b) for b in document.structure.boundaries_at(points))))
    names = sorted(set(boundaries.values()))
    control = CONTROLS["percentile"]
    steps = control.steps()
    table = step_table(sims, "percentile", steps)
    values = [f"{compute_threshold(sims, 'percentile', p).value:.3f}" for p in steps]
    ranks = np.unique(sims, return_inverse=True)[1]
    return {
        "cuts": cuts,
        "edges": [_compact(e, c) for e, c in zip(edges, cuts)],
        "direct": sizes["direct"],
        "budget": setup.budget,
        "specials": setup.special_tokens,
        "limit": setup.limit,
        "min_tokens": explanation.min_tokens,
        "rank": [int(r) for r in ranks],
        "order": cut_order(sims, "similarity"),
        "steps": steps,
        "step_cuts": table["cuts"],
        "step_ties": table["ties"],
        "step_values": values,
        "long": {
            str(k): [[a, b, t, names.index(boundaries[b])] for a, b, t in pieces] for k, pieces in long_pieces.items()
        },
        "boundary_names": names,
        "cut_boundary": [-1, *(names.index(boundaries[c]) for c in cuts[1:])],
    }


def _compact(edges: Edges, pos: int) -> int | Edges:
    """A clean cut's edges as the tokens before it alone (most cuts; the page reads both forms)."""
    start, head, before, end, tail, _ = edges
    return before if start == pos == end and head == tail == 0 else edges


#: One sentence cut's size facts: ``[clean cut as a start, head tokens, tokens before it,
#: clean cut as an end, tail tokens, tokens before it]`` (-1: no clean cut within reach).
Edges = list[int]


def _edges(counter: SpanCounter, pos: int) -> Edges:
    text, clean, count = counter.text, counter.clean_rule, counter.tokenizer.count
    start = pos if clean(text, pos) else next((c for c in range(pos + 1, pos + EDGE_REACH) if clean(text, c)), -1)
    end = (
        pos
        if clean(text, pos)
        else next((c for c in range(pos - 1, pos - EDGE_REACH - 1, -1) if c >= 0 and clean(text, c)), -1)
    )
    before = counter.tokens_before_many([max(start, 0), max(end, 0)])
    head = count(text[pos:start]) if start > pos else 0
    tail = count(text[end:pos]) if 0 <= end < pos else 0
    return [start, head, before[0] if start >= 0 else 0, end, tail, before[1] if end >= 0 else 0]


def _formula(edges: Sequence[Edges], cuts: Sequence[int], a: int, b: int) -> int | None:
    """``SpanCounter.count(cuts[a], cuts[b])`` from the edges, or None where it tokenizes the span whole."""
    s, e = cuts[a], cuts[b]
    if e <= s:
        return 0
    start, head, before_start = edges[a][0], edges[a][1], edges[a][2]
    if start < 0 or (start != s and start >= e):
        return None
    end, tail, before_end = edges[b][3], edges[b][4], edges[b][5]
    if end != e and (end < 0 or end < max(start, e - EDGE_REACH)):
        return None
    if end == e:
        return head + before_end - before_start
    return head + before_end - before_start + tail


def _direct_sizes(counter: SpanCounter, cuts: Sequence[int], edges: Sequence[Edges]) -> dict[str, int]:
    """Counts of the spans between sentence cuts that the formula cannot give (short ones only:
    both edges' clean cuts lie within ``EDGE_REACH`` of their ends)."""
    out: dict[str, int] = {}
    for a in range(len(cuts) - 1):
        b = a + 1
        while b < len(cuts) and cuts[b] - cuts[a] < 2 * EDGE_REACH + 2:
            if _formula(edges, cuts, a, b) is None:
                out[f"{a},{b}"] = counter.count(cuts[a], cuts[b])
            b += 1
        if b < len(cuts) and _formula(edges, cuts, a, b) is None:
            out[f"{a},{b}"] = counter.count(cuts[a], cuts[b])
    return out


def _size(sizes: dict[str, Any], cuts: Sequence[int], a: int, b: int) -> int | None:
    """A group's size in the model's tokens, as the page computes it (``cvSize`` in report.js)."""
    found = sizes["direct"].get(f"{a},{b}")
    return found if found is not None else _formula(sizes["edges"], cuts, a, b)
