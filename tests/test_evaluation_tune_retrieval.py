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
from chunkviz.document.model import as_document
from chunkviz.evaluation.evaluate import Configuration, evaluate
from chunkviz.evaluation.tune import RetrievalGrid, TuneError, eval_command, frontier_table, tune
from chunkviz.evaluation.tunespace import check_axes, coarse_grid, neighbours, setting_of, tunable_params
from chunkviz.splitting import PRESETS
from chunkviz.strategies.base import get_strategy
from chunkviz.text.tokenizers import DEFAULT_TOKENIZER, get_tokenizer

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


# ----------------------------------------------------------------------------- tunable parameters


def test_strategies_declare_which_parameters_tune_may_search() -> None:
    assert list(tunable_params("recursive_langchain")) == ["separators", "keep_separator"]
    assert list(tunable_params("recursive")) == ["separators"]
    assert tunable_params("fixed_tokens") == {}
    assert PRESETS["chroma"] == ["\n\n", "\n", ".", "?", "!", " ", ""]


def test_the_grid_crosses_each_size_with_the_values_a_strategy_declares_tunable() -> None:
    axes = {"separators": ("default", "chroma"), "keep_separator": ("start", "end")}
    grid = coarse_grid(["recursive_langchain", "fixed_tokens"], [64, 128], axes=axes)
    assert [(c.strategy, c.size, setting_of(c)) for c in grid] == [
        ("recursive_langchain", 64, {"separators": "default", "keep_separator": "start"}),
        ("fixed_tokens", 64, {}),
        ("recursive_langchain", 64, {"separators": "default", "keep_separator": "end"}),
        ("fixed_tokens", 128, {}),
        ("recursive_langchain", 64, {"separators": "chroma", "keep_separator": "start"}),
        ("recursive_langchain", 64, {"separators": "chroma", "keep_separator": "end"}),
        ("recursive_langchain", 128, {"separators": "default", "keep_separator": "start"}),
        ("recursive_langchain", 128, {"separators": "default", "keep_separator": "end"}),
        ("recursive_langchain", 128, {"separators": "chroma", "keep_separator": "start"}),
        ("recursive_langchain", 128, {"separators": "chroma", "keep_separator": "end"}),
    ]
    (first,) = [c for c in grid if c.size == 128 and setting_of(c) == {"separators": "chroma", "keep_separator": "end"}]
    assert [(n.size, setting_of(n)) for n in neighbours(first, grid, 1)] == [
        (88, {"separators": "chroma", "keep_separator": "end"}),
        (184, {"separators": "chroma", "keep_separator": "end"}),
        (128, {"separators": "chroma", "keep_separator": "end"}),  # with an overlap
    ]
    assert dict(neighbours(first, grid, 1)[2].params)["overlap"] == 16


def test_tunable_axes_are_checked_against_the_strategies_searched() -> None:
    assert check_axes(["recursive", "fixed_tokens"], {"separators": ["chroma", "chroma", "default"]}) == {
        "separators": ("chroma", "default")
    }
    with pytest.raises(TuneError, match=r"no strategy searched \(fixed_tokens\) tunes 'keep_separator'"):
        check_axes(["fixed_tokens"], {"keep_separator": ["end"]})
    with pytest.raises(TuneError, match="separators 'chrome' is not one of recursive_langchain's: "):
        check_axes(["recursive_langchain"], {"separators": ["chrome"]})
    with pytest.raises(TuneError, match="keep_separator 'middle' is not one of"):
        check_axes(["recursive_langchain"], {"keep_separator": ["middle"]})


def test_each_tunable_value_reaches_the_chunker(sample: Any) -> None:  # noqa: F811
    corpus, questions = sample
    calls: list[list[Configuration]] = []

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(list(args[2]))
        return evaluate(*args, **kwargs)

    axes = {"separators": ["default", "chroma"], "keep_separator": ["start", "end"]}
    study = tune(
        corpus, questions, strategies=["recursive_langchain"], retrievers=["bm25"], budget=4, sizes=[48],
        axes=axes, encode=encode_words, model="tests-words", evaluator=counting,
    )  # fmt: skip
    assert [{k: c[0].params[k] for k in axes} for c in calls] == [
        {"separators": "default", "keep_separator": "start"},
        {"separators": "default", "keep_separator": "end"},
        {"separators": "chroma", "keep_separator": "start"},
        {"separators": "chroma", "keep_separator": "end"},
    ]
    assert study.axes == ("separators: default, chroma", "keep_separator: start, end")
    spec = get_strategy("recursive_langchain")
    tokenizer = get_tokenizer(DEFAULT_TOKENIZER)
    (text,) = corpus.values()
    for point in study.points:
        chunks = spec.function(as_document(text), spec.make_params(point.configuration.params), tokenizer)
        assert point.chunks == len(chunks)
    counts = {
        (p.configuration.params["separators"], p.configuration.params["keep_separator"]): p.chunks for p in study.points
    }
    assert counts[("chroma", "start")] != counts[("default", "start")]  # the preset changed the chunks


def test_eval_config_reproduces_a_configuration_tuned_over_separators(tmp_path: Path) -> None:
    document, questions = SAMPLES / "api_guide.md", SAMPLES / "questions" / "api_guide.jsonl"
    saved, study_path = tmp_path / "chunkviz.json", tmp_path / "study.json"
    out = _run([
        "tune", str(document), "--questions", str(questions), "--strategies", "recursive_langchain",
        "--sizes", "48", "--budget", "4", "--retrievers", "bm25", "--separators", "default,chroma",
        "--keep-separator", "start,end", "--maximise", "iou", "-o", str(saved), "--json", str(study_path),
    ])  # fmt: skip
    assert "parameters searched: separators: default, chroma; keep_separator: start, end" in out
    study = json.loads(study_path.read_text(encoding="utf-8"))
    assert study["axes"] == ["separators: default, chroma", "keep_separator: start, end"]
    assert {(p["params"]["separators"], p["params"]["keep_separator"]) for p in study["points"]} == {
        ("default", "start"), ("default", "end"), ("chroma", "start"), ("chroma", "end"),
    }  # fmt: skip
    chosen = study["points"][study["chosen"]]
    label = "recursive_langchain(chunk_size=48, keep_separator={keep_separator}, overlap=0, separators={separators})"
    assert label.format(**chosen["params"]) in out  # the frontier table shows the values
    params = json.loads(saved.read_text(encoding="utf-8"))["columns"][0]["params"]
    assert (params["separators"], params["keep_separator"]) == (
        chosen["params"]["separators"],
        chosen["params"]["keep_separator"],
    )
    (result,) = json.loads(
        _run(["eval", str(document), "--questions", str(questions), "--config", str(saved), "--json", "-"])
    )
    names = {"recall": "recall", "iou": "iou", "precision": "precision", "mrr": "reciprocal_rank", "ndcg": "ndcg_at_k"}
    for mine, theirs in names.items():
        assert result["summary"][theirs]["mean"] == chosen["scores"][mine], mine  # exactly, not approximately


def test_tune_refuses_a_separator_preset_it_does_not_know(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document, questions = SAMPLES / "api_guide.md", SAMPLES / "questions" / "api_guide.jsonl"
    args = ["tune", str(document), "--questions", str(questions), "--strategies", "recursive_langchain",
            "--separators", "default,chrome", "-o", str(tmp_path / "c.json")]  # fmt: skip
    assert main(args) == 2
    assert "separators 'chrome' is not one of recursive_langchain's" in capsys.readouterr().err
    assert not (tmp_path / "c.json").exists()
