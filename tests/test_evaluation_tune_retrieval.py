"""``chunkviz tune`` searches retrieval too (retrievers, hybrid fusions, alphas, a rerank), and
``chunkviz eval --config`` runs a saved configuration exactly (retrieval included)."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from test_evaluation_tune import encode_words, sample  # noqa: F401  (the fixture)

from chunkviz.cli.commands import main
from chunkviz.evaluation.evaluate import Configuration, evaluate
from chunkviz.evaluation.tune import RetrievalGrid, TuneError, eval_command, frontier_table, tune

SAMPLES = Path(__file__).resolve().parent.parent / "chunkviz" / "sample_docs"


def test_the_retrieval_grid_lists_every_fusion_and_alpha_then_each_reranked() -> None:
    grid = RetrievalGrid(("dense", "hybrid"), ("rrf", "weighted"), (0.3, 0.7))
    assert grid.settings() == [
        {"retriever": "dense"},
        {"retriever": "hybrid", "fusion": "rrf", "alpha": 0.5},
        {"retriever": "hybrid", "fusion": "weighted", "alpha": 0.3},
        {"retriever": "hybrid", "fusion": "weighted", "alpha": 0.7},
    ]
    assert grid.axes() == ["retriever: dense, hybrid", "fusion: rrf, weighted (alpha 0.3, 0.7)"]
    reranked = RetrievalGrid(("bm25",), rerank="models/ce", rerank_candidates=10)
    assert reranked.settings() == [
        {"retriever": "bm25"},
        {"retriever": "bm25", "rerank": "models/ce", "rerank_candidates": 10},
    ]
    with pytest.raises(TuneError, match="alpha"):
        RetrievalGrid(("hybrid",), ("weighted",), (1.5,))
    with pytest.raises(TuneError, match="fusion"):
        RetrievalGrid(("hybrid",), ("max",))


def test_the_search_evaluates_every_retrieval_of_a_chunking_on_its_embeddings(sample: Any) -> None:  # noqa: F811
    corpus, questions = sample
    calls: list[list[Configuration]] = []

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(list(args[2]))
        return evaluate(*args, **kwargs)

    study = tune(
        corpus, questions, strategies=["recursive"], budget=2, sizes=[32, 128], encode=encode_words,
        model="tests-words", evaluator=counting,
    )  # fmt: skip
    # dense, bm25, hybrid rrf and hybrid weighted at 0.3 / 0.5 / 0.7: one evaluate call per chunking
    assert [len(c) for c in calls] == [6, 6]
    assert len(study.points) == 12
    assert {p.retrieval() for p in study.points} == {
        "dense", "bm25", "hybrid: rrf", "hybrid: weighted alpha=0.3", "hybrid: weighted alpha=0.5",
        "hybrid: weighted alpha=0.7",
    }  # fmt: skip
    assert study.retrieval == ("retriever: dense, bm25, hybrid", "fusion: rrf, weighted (alpha 0.3, 0.5, 0.7)")
    hybrid = study.frontier("iou", "recall", "hybrid")
    table = frontier_table(hybrid, study.k)
    assert all(p.retrieval() in table for p in hybrid)
    weighted = next(p for p in study.points if p.configuration.fusion == "weighted")
    command = eval_command(weighted, ["doc.txt"], "q.jsonl", 5)
    assert f"--retriever hybrid --fusion weighted --alpha {weighted.configuration.alpha:g}" in command
    point = study.points[0].to_dict()
    assert {"retriever", "fusion", "alpha", "rerank"} <= set(point) and "ndcg" in point["scores"]


def _run(args: list[str]) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(args) == 0
    return out.getvalue()


@pytest.mark.slow
def test_eval_config_reproduces_a_tuned_configuration_exactly(tmp_path: Path) -> None:
    document, questions = SAMPLES / "api_guide.md", SAMPLES / "questions" / "api_guide.jsonl"
    saved, study_path = tmp_path / "chunkviz.json", tmp_path / "study.json"
    _run([
        "tune", str(document), "--questions", str(questions), "--strategies", "recursive", "--sizes", "48,96",
        "--budget", "2", "--retrievers", "hybrid", "--alphas", "0.3,0.7", "--maximise", "mrr",
        "-o", str(saved), "--json", str(study_path),
    ])  # fmt: skip
    study = json.loads(study_path.read_text(encoding="utf-8"))
    chosen = study["points"][study["chosen"]]
    assert json.loads(saved.read_text(encoding="utf-8"))["retrieval"]["retriever"] == "hybrid"
    assert {p["fusion"] for p in study["points"]} == {"rrf", "weighted"}
    (result,) = json.loads(
        _run(["eval", str(document), "--questions", str(questions), "--config", str(saved), "--json", "-"])
    )
    assert (result["retriever"], result["fusion"], result["alpha"]) == (
        chosen["retriever"],
        chosen["fusion"],
        chosen["alpha"],
    )
    names = {"recall": "recall", "iou": "iou", "precision": "precision", "mrr": "reciprocal_rank", "ndcg": "ndcg_at_k"}
    for mine, theirs in names.items():
        assert result["summary"][theirs]["mean"] == chosen["scores"][mine], mine  # exactly, not approximately


def test_eval_config_refuses_flags_that_would_change_the_configuration(tmp_path: Path) -> None:
    saved = tmp_path / "chunkviz.json"
    saved.write_text(
        json.dumps({"version": 1, "columns": [{"strategy": "recursive", "params": {"chunk_size": 64}}]}),
        encoding="utf-8",
    )
    document, questions = SAMPLES / "api_guide.md", SAMPLES / "questions" / "api_guide.jsonl"
    args = ["eval", str(document), "--questions", str(questions), "--config", str(saved), "--retriever", "bm25"]
    assert main(args) == 2
