"""The retriever choice in the app (``streamlit.testing.v1.AppTest``): the Evaluate view's
Retrievers control (a row per retriever on the same chunks, the engine's numbers), the weighted
fusion's alpha, the rerank folder's message, and the playground's retriever. BM25 alone embeds
nothing, so most of this runs without the model."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from test_app import DEFAULT_COLUMNS, DEFAULT_SAMPLE, engine, new_app, sample_text, set_widget, view_payload, widget
from test_app_evaluate import (
    APP,
    app_configurations,
    evaluate_view,
    press_run,
    results_table,
    sample,
    set_value,
    texts,
)

from chunkviz.evaluation.evaluate import evaluate
from chunkviz.evaluation.playground import HITS_COLUMN, score_row, search
from chunkviz.evaluation.report import TITLES, summary_rows
from chunkviz.strategies.base import get_strategy


@pytest.fixture(autouse=True)
def _plain_argv(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.argv", [str(APP)])


def renamed(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            ({TITLES["recall_at_k"]: "recall@5", TITLES["ndcg_at_k"]: "NDCG@5"}.get(key, key)): value
            for key, value in row.items()
        }
        for row in rows
    ]


def test_bm25_rows_are_the_engines_numbers_and_say_their_retriever() -> None:
    at = evaluate_view(**{"eval.retrievers": ["bm25"]})
    assert not [n for n in at.number_input if n.key == "eval.alpha"], "alpha only for the weighted fusion"
    at = press_run(at)
    configurations = [replace(c, retriever="bm25") for c in app_configurations(at)]
    corpus, questions = sample()
    labels = ["1. fixed_tokens · bm25", "2. recursive · bm25", "3. paragraphs · bm25"]
    expected = summary_rows(evaluate(corpus, questions, configurations, k=5), labels)
    assert results_table(at).to_dict("records") == renamed(expected)
    assert "; also bm25 ·" in " ".join(texts(at.caption))


def test_weighted_fusion_asks_for_alpha_and_a_missing_rerank_folder_is_named() -> None:
    at = evaluate_view(**{"eval.retrievers": ["hybrid (weighted)"]})
    (alpha,) = [n for n in at.number_input if n.key == "eval.alpha"]
    assert alpha.value == 0.5
    at = set_value(at, "eval.alpha", 0.8)
    at = set_value(at, "eval.rerank", str(Path("/no/such/cross-encoder")))
    at = press_run(at)
    warnings = " ".join(texts(at.warning))
    assert "hybrid: weighted alpha=0.8 · rerank: cross-encoder top 20 did not run" in warnings
    assert "no such folder" in warnings and "ships none" in warnings


def test_no_retriever_chosen_says_so() -> None:
    at = evaluate_view(**{"eval.retrievers": []})
    assert "Choose at least one retriever" in " ".join(texts(at.error))
    assert not [b for b in at.button if b.key == "eval.run"]


def test_the_playground_searches_with_the_chosen_retriever() -> None:
    query = "how long do the batteries last"
    at = new_app()
    widget(at, "playground.retriever").set_value("bm25")
    at = set_widget(at, "playground.query", query)
    (table,) = [d.value for d in at.dataframe if HITS_COLUMN in d.value.columns]
    text = sample_text(DEFAULT_SAMPLE)
    for i, strategy in enumerate(DEFAULT_COLUMNS):
        chunks = engine(text, strategy)
        parents = get_strategy(strategy).returns_parents
        hits = search(chunks, parents, None, 5, "unused", refuse_to_embed, query=query, retriever="bm25")
        assert hits, strategy
        assert table.to_dict("records")[i][HITS_COLUMN] == score_row("", hits, None)[HITS_COLUMN]
    # the view draws the same hits: rank badges of the bm25 ranking
    assert [[(h["index"], h["rank"]) for h in c["hits"]] for c in view_payload(at)["columns"]][0] == [
        (h.index, h.rank) for h in search(engine(text, DEFAULT_COLUMNS[0]), False, None, 5, "unused", refuse_to_embed,
                                          query=query, retriever="bm25")
    ]  # fmt: skip


def refuse_to_embed(texts, progress=None):  # noqa: ANN001, ANN201
    raise AssertionError("bm25 embeds nothing")
