"""The typed explain hook: ``Explanation`` and the semantic strategy's ``SemanticExplanation``."""

from __future__ import annotations

import json
import math
import pickle
import re

import numpy as np
import pytest
from support.semantic import SHIFTS, TOPIC_TEXT

from chunkviz.core import explain
from chunkviz.core.explain import Explanation, ExplanationFigure, FiguresUnavailable
from chunkviz.document.model import Document
from chunkviz.semantic import SemanticExplanation, compute_threshold, semantic_chunking
from chunkviz.strategies import get_strategy
from chunkviz.text.tokenizers import get_tokenizer


def test_explanation_is_abstract() -> None:
    with pytest.raises(TypeError):
        Explanation()  # type: ignore[abstract]


def test_registered_explain_takes_a_document_and_returns_a_semantic_explanation(topic) -> None:
    spec = get_strategy("semantic")
    result = spec.explain(Document(TOPIC_TEXT), spec.make_params({}), get_tokenizer("cl100k_base"))
    assert isinstance(result, SemanticExplanation) and isinstance(result, Explanation)
    assert result.chunks == topic.chunks


def test_summary_names_the_similarity_threshold_not_a_percentile_value(topic) -> None:
    # issue 9: the caption said "threshold percentile = 0.023" (0.023 is the similarity value)
    line = topic.summary()
    value = topic.threshold.value
    # 29 pairs: the 5th percentile is at position 1.4, strictly between two similarities (no tie)
    assert f"similarity threshold {value:.3f} = 5th percentile of 29 pairs · 2 breakpoints · 0 cuts" in line
    assert "exactly at the threshold" not in line
    assert "percentile =" not in line and "(percentile 95)" not in line and "\n" not in line
    assert (
        "30 sentences" in line and "2 breakpoints" in line and "0 cuts forced by max_tokens (256 model tokens)" in line
    )


@pytest.mark.parametrize(
    ("threshold_type", "amount", "phrase"),
    [
        ("gradient", 90, r"distance-gradient threshold -?\d\.\d{3} = 90th percentile of 29 rises in distance · "),
        (
            "standard_deviation",
            1.5,
            r"similarity threshold -?\d\.\d{3} = mean - 1\.5 × standard deviation of 29 pairs · ",
        ),
        ("interquartile", 1, r"similarity threshold -?\d\.\d{3} = mean - 1 × interquartile range of 29 pairs · "),
        ("absolute", 0.3, r"similarity threshold 0\.300 \(absolute\)"),
    ],
)
def test_summary_of_every_threshold_type(topic, threshold_type: str, amount: float, phrase: str) -> None:
    result = semantic_chunking(TOPIC_TEXT, threshold_type=threshold_type, amount=amount, max_tokens=64)
    line = result.summary()
    assert re.search(phrase, line), line
    assert re.search(r"\d+ cuts? forced by max_tokens \(64 model tokens\)", line), line


def test_threshold_describe_without_similarities() -> None:
    assert compute_threshold(np.array([]), "percentile", 95).describe() == "no threshold (fewer than two sentences)"


def test_figures_are_named_and_the_curve_is_for_percentiles_only(topic) -> None:
    figures = topic.figures(topic.chunks)
    assert [f.name for f in figures] == ["similarity", "curve"]
    assert all(isinstance(f, ExplanationFigure) for f in figures)
    assert figures[0].selectable and not figures[1].selectable and figures[1].caption
    similarity = figures[0].figure
    assert list(similarity.data[0].y) == pytest.approx(list(topic.analysis.similarities))
    assert [round(x - 0.5) for x in similarity.data[1].x] == sorted(SHIFTS)  # the breakpoints
    curve = dict(topic.count_curve)
    assert curve[95.0] == len(topic.chunks)
    absolute = semantic_chunking(TOPIC_TEXT, threshold_type="absolute", amount=0.2)
    assert [f.name for f in absolute.figures(absolute.chunks)] == ["similarity"]


def test_a_point_of_the_similarity_plot_selects_its_chunk(topic) -> None:
    assert topic.chunk_at("similarity", {"x": 9.5, "y": 0.1}, topic.chunks) == 0
    assert topic.chunk_at("similarity", {"x": 19.5}, topic.chunks) == 1
    assert topic.chunk_at("similarity", {"x": 3.5}, topic.chunks) is None  # inside a chunk
    assert topic.chunk_at("curve", {"x": 9.5}, topic.chunks) is None


def test_one_sentence_has_no_figures_and_says_so() -> None:
    result = semantic_chunking("Only one sentence here.\n")
    assert result.figures(result.chunks) == []
    assert result.summary().endswith("fewer than two sentences: nothing to compare")
    data = result.to_dict()
    assert data["threshold"] is None and data["similarities"] == []
    json.dumps(data, allow_nan=False)


def test_to_dict_is_json_without_nan(topic) -> None:
    data = topic.to_dict()
    text = json.dumps(data, allow_nan=False)
    assert json.loads(text)["breakpoints"] == sorted(SHIFTS)
    assert data["threshold"] == pytest.approx(topic.threshold.value)
    assert data["amount"] == 95.0 and data["metric"] == "similarity" and data["summary"] == topic.summary()
    assert len(data["sentences"]) == 30 and not any(
        isinstance(v, float) and math.isnan(v) for v in data["similarities"]
    )


def test_explanation_pickles_for_the_app_cache(topic) -> None:
    again = pickle.loads(pickle.dumps(topic))
    assert again.chunks == topic.chunks and again.summary() == topic.summary()


def test_figures_without_plotly_name_the_app_extra(topic, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(explain, "go", None)
    with pytest.raises(FiguresUnavailable, match=r"pip install 'chunkviz\[app\]'"):
        topic.figures(topic.chunks)
