"""The tuning panel's data (pure): caption, the tie rule, the per-step table, marks = chunks.

Explanations are built by hand from known similarities (no embedding model): the sentences are
short, so the size limit never cuts unless a test asks for it.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import chunkviz.semantic.explanation as explanation_module
from chunkviz.document.model import Document
from chunkviz.drawing.charts import similarity_figure
from chunkviz.semantic.assembly import assemble
from chunkviz.semantic.cache import SentenceSimilarities
from chunkviz.semantic.embeddings import DEFAULT_MODEL
from chunkviz.semantic.explanation import SemanticExplanation
from chunkviz.semantic.thresholds import chunk_count_curve, compute_threshold
from chunkviz.semantic.tuning import CONTROLS, cut_order, tuning_data
from chunkviz.ui.tuning import panel_payload

#: 21 pairs: at p = 95 the threshold sits at position (21 - 1) * 0.05 = 1.0 exactly, i.e. it IS
#: the second-lowest similarity (pair 7). Pair 15 is the lowest.
SIMS_21 = [0.5 + 0.01 * k for k in range(21)]
SIMS_21[7], SIMS_21[15] = 0.02, -0.1


def explain(sims, threshold_type="percentile", amount=95.0, max_tokens=None) -> SemanticExplanation:  # noqa: ANN001
    """A SemanticExplanation over ``len(sims) + 1`` short sentences with these similarities."""
    sentences = [f"Sentence {k} says a few words." for k in range(len(sims) + 1)]
    text = " ".join(sentences) + "\n"
    spans, pos = [], 0
    for s in sentences:
        spans.append((pos, pos + len(s)))
        pos += len(s) + 1
    analysis = SentenceSimilarities(tuple(spans), np.asarray(sims, dtype=np.float64), DEFAULT_MODEL, "test", 0)
    threshold = compute_threshold(analysis.similarities, threshold_type, amount)
    built = assemble(Document(text), analysis, threshold, max_tokens)
    return SemanticExplanation(
        text, analysis, threshold, built.chunks, built.max_tokens, built.model_tokenizer, built.size_splits
    )


@pytest.fixture(autouse=True)
def no_model_for_the_curve(monkeypatch: pytest.MonkeyPatch) -> None:
    """The count curve re-runs the grouping per percentile; here: breakpoints + 1 (no size cuts)."""

    def curve(text, *, model, buffer_size, max_tokens, min_tokens):  # noqa: ANN001, ANN202
        raise AssertionError("tests set the curve through chunk_count_curve")

    monkeypatch.setattr(explanation_module, "final_chunk_counts", curve)
    monkeypatch.setattr(
        SemanticExplanation, "count_curve", property(lambda self: chunk_count_curve(self.analysis.similarities))
    )


def chunk_ends(e: SemanticExplanation) -> set[int]:
    """Pairs i where a chunk ends after sentence i (the last chunk excluded)."""
    return {c.metadata["sentences"][1] - 1 for c in e.chunks[:-1]}


def test_caption_names_the_similarity_threshold_and_its_percentile() -> None:
    e = explain(SIMS_21)
    data = tuning_data(e)
    assert data["caption"] == (
        "similarity threshold 0.020 = 5th percentile of 21 pairs · 1 breakpoint"
        " · 1 pair is exactly at the threshold (not cut) · 0 cuts forced by max_tokens (256 model tokens)"
    )
    assert data["threshold"] == 0.02 and data["kind"] == "percentile" and data["amount"] == 95.0
    assert data["metric"] == "similarity" and "below the threshold" in data["rule"]


def test_tie_rule_a_pair_exactly_at_the_threshold_is_not_cut_in_chunks_marks_and_counts() -> None:
    e = explain(SIMS_21)
    data = tuning_data(e)
    assert e.threshold.value == SIMS_21[7]  # exactly, not approximately
    # chunks: cut after pair 15 only
    assert chunk_ends(e) == {15} and len(e.chunks) == 2
    # marks: one breakpoint, one open circle at the threshold, nothing forced by size
    assert data["breakpoints"] == [15] and data["at_threshold"] == [7] and data["size_cuts"] == []
    # counts: the table row of p = 95 and the curve agree with the chunks
    k = CONTROLS["percentile"].steps().index(95.0)
    assert data["table"]["cuts"][k] == 1 and data["table"]["ties"][k] == 1
    assert data["order"][:1] == [15] and data["order"][1:2] == [7]
    assert data["curve"][95] == len(e.chunks)
    # the plotly figure draws the same marks
    fig = similarity_figure(
        e.text,
        e.analysis.sentences,
        list(e.threshold.metric_values),
        "similarity",
        e.threshold.value,
        e.threshold.breakpoints,
        e.size_splits,
        [],
        e.threshold.at_threshold,
    )
    traces = {t.name: [x - 0.5 for x in t.x] for t in fig.data}
    assert traces["breakpoint"] == [15] and traces["at threshold (not cut)"] == [7]


def test_a_step_off_the_tie_cuts_both_low_pairs() -> None:
    e = explain(SIMS_21, amount=94)  # position 1.2: strictly between the 2nd and 3rd lowest
    assert e.threshold.value == pytest.approx(0.02 + 0.2 * (0.5 - 0.02))
    assert chunk_ends(e) == {7, 15} and e.threshold.at_threshold == ()
    data = tuning_data(e)
    assert data["caption"].startswith(
        "similarity threshold 0.116 = 6th percentile of 21 pairs · 2 breakpoints · 0 cuts"
    )
    k = CONTROLS["percentile"].steps().index(94.0)
    assert (data["table"]["cuts"][k], data["table"]["ties"][k]) == (2, 0)


def test_several_pairs_tied_at_the_median() -> None:
    sims = [0.9, 0.5, 0.5, 0.1, 0.5]
    e = explain(sims, amount=50)
    data = tuning_data(e)
    assert e.threshold.value == 0.5
    assert data["breakpoints"] == [3] and data["at_threshold"] == [1, 2, 4] and chunk_ends(e) == {3}
    assert data["order"] == [3, 1, 2, 4, 0]
    k = CONTROLS["percentile"].steps().index(50.0)
    cuts, ties = data["table"]["cuts"][k], data["table"]["ties"][k]
    assert (cuts, ties) == (1, 3)
    assert (
        data["order"][:cuts] == data["breakpoints"]
        and sorted(data["order"][cuts : cuts + ties]) == data["at_threshold"]
    )
    assert "3 pairs are exactly at the threshold (not cut)" in data["caption"]


@pytest.mark.parametrize("threshold_type", list(CONTROLS))
def test_every_table_row_agrees_with_compute_threshold(threshold_type: str) -> None:
    rng = np.random.default_rng(9)
    sims = np.round(rng.uniform(-0.2, 0.9, 40), 2)  # rounded: many ties
    amount = {"percentile": 90, "gradient": 90, "standard_deviation": 1.0, "interquartile": 1.0, "absolute": 0.3}[
        threshold_type
    ]
    e = explain(sims, threshold_type, amount)
    data = tuning_data(e)
    control = CONTROLS[threshold_type]
    assert data["control"] == {
        "param": control.param,
        "label": control.label,
        "min": control.minimum,
        "max": control.maximum,
        "step": control.step,
    }
    assert len(data["table"]["values"]) == len(control.steps())
    for k, amount_k in enumerate(control.steps()):
        got = compute_threshold(sims, threshold_type, amount_k)
        cuts = data["table"]["cuts"][k]
        assert sorted(data["order"][:cuts]) == list(got.breakpoints), (amount_k, got.value)
        assert sorted(data["order"][cuts : cuts + data["table"]["ties"][k]]) == list(got.at_threshold)
        assert data["table"]["values"][k] == round(got.value, 4)
    assert data["breakpoints"] == list(e.threshold.breakpoints)
    assert (data["curve"] is not None) == (threshold_type == "percentile")


def test_pairs_sit_at_the_end_of_their_first_sentence_and_chunks_are_spans() -> None:
    e = explain([0.5, 0.1, 0.6])
    data = tuning_data(e)
    spans = e.analysis.sentences
    assert data["pairs"]["x"] == [b for _, b in spans[:-1]]
    assert data["sentence_starts"] == [a for a, _ in spans] and data["last_end"] == spans[-1][1]
    assert data["pairs"]["y"] == [0.5, 0.1, 0.6]
    assert data["chunks"] == [[c.start, c.end] for c in e.chunks]
    assert data["length"] == len(e.text)


def test_size_forced_cuts_are_reported_apart_from_breakpoints() -> None:
    sims = [0.8, 0.7, 0.6, 0.9, 0.75, 0.85]
    e = explain(sims, amount=100, max_tokens=20)  # p = 100: no breakpoint; 20 tokens: forced cuts
    data = tuning_data(e)
    assert data["breakpoints"] == [] and data["size_cuts"] == list(e.size_splits) and data["size_cuts"]
    assert set(data["size_cuts"]) == chunk_ends(e)
    assert (
        f"{len(data['size_cuts'])} cut" in data["caption"]
        and "forced by max_tokens (20 model tokens)" in data["caption"]
    )


def test_gradient_order_is_largest_rise_first() -> None:
    assert cut_order(np.array([0.1, 0.5, -0.2, 0.5]), "distance_gradient") == [1, 3, 0, 2]
    assert cut_order(np.array([0.1, 0.5, -0.2, 0.5]), "similarity") == [2, 0, 1, 3]


def test_payload_is_json_and_small() -> None:
    e = explain(SIMS_21)
    payload = panel_payload(tuning_data(e), "<div class='cv-doc'></div>")
    text = json.dumps(payload)
    assert json.loads(text)["tuning"]["breakpoints"] == [15]
    assert set(payload) == {"tuning", "html", "plot_height", "text_height"}


def test_no_pairs() -> None:
    e = explain([])
    data = tuning_data(e)
    assert data["threshold"] is None and data["table"] is None and data["curve"] is None
    assert data["pairs"] == {"x": [], "y": []} and data["breakpoints"] == []
    assert data["caption"] == "no threshold (fewer than two sentences)"
