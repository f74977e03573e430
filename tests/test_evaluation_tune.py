"""chunkviz.evaluation.tune: frontiers on hand-made points, constraints, the search space, the
budget, and a tiny corpus end to end with a bag-of-words encoder (no model)."""

from __future__ import annotations

import re
import zlib
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pytest

from chunkviz.evaluation.evaluate import Configuration, evaluate
from chunkviz.evaluation.published import CHROMA_CORPORA, MINILM_ROWS, chroma_corpus_name, is_chroma
from chunkviz.evaluation.questions import load_questions
from chunkviz.evaluation.tune import (
    Constraint,
    Point,
    TuneError,
    TuneProgress,
    best,
    check_sizes,
    chunking,
    closest,
    coarse_grid,
    dominates,
    duration,
    eval_command,
    frontier_figure,
    middle_out,
    neighbours,
    pareto,
    parse_constraint,
    parse_constraints,
    round_size,
    size_range,
    tune,
)
from chunkviz.semantic import embedcache

SAMPLE = Path(__file__).resolve().parent.parent / "chunkviz" / "sample_docs"


def point(recall: float, iou: float, tokens: float = 100.0, name: str = "p", retriever: str = "dense") -> Point:
    scores = {"recall": recall, "iou": iou, "tokens": tokens, "precision": iou, "precision_omega": iou}
    scores |= {"recall_at_k": recall, "mrr": recall}
    return Point(Configuration("recursive", {"chunk_size": 1 + len(name)}, retriever=retriever), scores)


# ----------------------------------------------------------------------------- frontiers
def test_pareto_keeps_exactly_the_undominated_points_ordered_along_x() -> None:
    points = [
        point(0.9, 0.02),  # 0: best recall
        point(0.8, 0.05),  # 1: frontier
        point(0.7, 0.04),  # 2: dominated by 1
        point(0.6, 0.08),  # 3: best IoU
        point(0.8, 0.03),  # 4: dominated by 1 (same recall, lower IoU)
        point(0.5, 0.08),  # 5: dominated by 3 (same IoU, lower recall)
    ]
    assert pareto(points, "iou", "recall") == [0, 1, 3]


def test_equal_points_are_both_on_the_frontier() -> None:
    points = [point(0.5, 0.05), point(0.5, 0.05), point(0.4, 0.04)]
    assert pareto(points, "iou", "recall") == [0, 1]


def test_tokens_are_better_lower() -> None:
    points = [point(0.9, 0.01, tokens=900), point(0.8, 0.01, tokens=400), point(0.7, 0.01, tokens=500)]
    # ordered from the worst x (most tokens) to the best (fewest)
    assert pareto(points, "tokens", "recall") == [0, 1]
    assert dominates(points[1], points[2], "tokens", "recall")
    assert not dominates(points[2], points[1], "tokens", "recall")


def test_best_under_a_constraint_and_the_closest_when_none_meets_it() -> None:
    points = [point(0.9, 0.02, name="a"), point(0.82, 0.05, name="bb"), point(0.6, 0.08, name="ccc")]
    assert best(points, "iou", [parse_constraint("recall>=0.8")]) is points[1]
    assert best(points, "iou") is points[2]
    assert best(points, "recall", [parse_constraint("iou>0.05")]) is points[2]
    assert best(points, "tokens", minimise=True) is points[0]  # equal tokens: the higher recall wins
    unreachable = [parse_constraint("recall>=0.95")]
    assert best(points, "iou", unreachable) is None
    assert closest(points, unreachable) is points[0]


def test_best_minimises_tokens_by_default() -> None:
    points = [point(0.9, 0.02, tokens=800), point(0.8, 0.03, tokens=300)]
    assert best(points, "tokens") is points[1]
    assert best(points, "tokens", [parse_constraint("recall>=85%")]) is points[0]


# ----------------------------------------------------------------------------- constraints
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("recall>=0.8", Constraint("recall", ">=", 0.8)),
        (" recall >= 80% ", Constraint("recall", ">=", 0.8)),
        ("IoU>0.072", Constraint("iou", ">", 0.072)),
        ("recall@k=>0.5", Constraint("recall_at_k", ">=", 0.5)),
        ("tokens<=600", Constraint("tokens", "<=", 600.0)),
        ("mrr<1", Constraint("mrr", "<", 1.0)),
    ],
)
def test_constraints_parse(text: str, expected: Constraint) -> None:
    assert parse_constraint(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("recall>=80", "recall is a fraction from 0 to 1; write recall>=0.8 or recall>=80%"),
        ("recal>=0.8", "unknown metric 'recal'; choose one of recall, precision"),
        ("recall", "write it as METRIC>=VALUE, e.g. recall>=0.8"),
        ("recall==0.8", "write it as METRIC>=VALUE"),
        ("recall>=high", "'high' is not a number"),
        ("tokens<=60%", "tokens is a count, not a percentage"),
        ("iou>=150%", "iou cannot exceed 100%"),
        ("recall>=-1", "the value must be a number of 0 or more"),
    ],
)
def test_bad_constraints_say_what_to_write(text: str, message: str) -> None:
    with pytest.raises(TuneError, match=re.escape(message)):
        parse_constraint(text)


def test_several_constraints_in_one_argument() -> None:
    assert parse_constraints(["recall>=0.8,tokens<=600", "iou>0.05"]) == [
        Constraint("recall", ">=", 0.8),
        Constraint("tokens", "<=", 600.0),
        Constraint("iou", ">", 0.05),
    ]
    assert str(parse_constraint("recall>=0.8")) == "recall>=80%"


# ----------------------------------------------------------------------------- the search space
def test_middle_out_spans_the_sizes_first() -> None:
    assert middle_out([64, 128, 256, 512]) == [128, 64, 512, 256]
    assert middle_out([64, 128]) == [64, 128]
    assert sorted(middle_out(list(range(1, 10)))) == list(range(1, 10))
    assert middle_out(list(range(1, 10)))[:3] == [5, 1, 9]


def test_the_coarse_grid_stays_in_each_strategys_range_and_takes_strategies_in_turn() -> None:
    grid = coarse_grid(["recursive", "sentences"], [0, 64, 128, 200_000])
    assert [(c.strategy, c.size) for c in grid] == [
        ("recursive", 64),
        ("sentences", 64),
        ("recursive", 128),
        ("sentences", 128),
    ]
    assert size_range("recursive") == (1, 100_000)
    assert dict(grid[0].params) == {"chunk_size": 64, "overlap": 0}
    assert dict(grid[1].params) == {"max_tokens": 64, "overlap_sentences": 0}


def test_a_size_that_would_not_fit_scales_the_other_parameters() -> None:
    c = chunking("paragraphs", 16)
    assert c is not None
    assert dict(c.params)["max_tokens"] == 16 and dict(c.params)["min_tokens"] <= 16


def test_neighbours_are_midpoints_and_an_overlap() -> None:
    tried = [chunking("recursive", s) for s in (64, 128, 256)]
    assert all(t is not None for t in tried)
    middle = tried[1]
    assert middle is not None
    found = [(n.size, dict(n.params)["overlap"]) for n in neighbours(middle, [t for t in tried if t], 1)]
    assert found == [(88, 0), (184, 0), (128, 16)]  # √(64·128) ≈ 90.5 → 88, √(128·256) ≈ 181 → 184
    edge = [(n.size, dict(n.params)["overlap"]) for n in neighbours(tried[0], [t for t in tried if t], 1)]
    assert edge == [(44, 0), (88, 0), (64, 8)]  # 64/√2 ≈ 45.3 → 44 (steps of 4 under 64)
    assert [round_size(v) for v in (3.4, 17.9, 90.5)] == [3, 16, 88]


def test_model_calling_and_sizeless_strategies_are_refused() -> None:
    with pytest.raises(TuneError, match="calls a language model"):
        tune({"d": "text"}, [], strategies=["llm"])
    with pytest.raises(TuneError, match="no size parameter"):
        tune({"d": "text"}, [], strategies=["hierarchical"])
    with pytest.raises(TuneError, match="budget must be at least 1"):
        tune({"d": "text"}, [], budget=0)


def test_sizes_outside_a_strategys_range_are_refused_with_the_range_that_fits() -> None:
    """Issue 36 item 14: the grid left them out, and with a single size the whole search."""
    with pytest.raises(TuneError) as refused:
        tune({"d": "text"}, [], strategies=["fixed_chars", "recursive"], sizes=[512, 500_000])
    assert str(refused.value) == (
        "size 500,000 is outside the range of recursive's chunk_size, 1 to 100,000; give sizes from 1 to 100,000"
    )
    check_sizes(["fixed_chars"], [512, 500_000])  # characters: up to 10,000,000


# ----------------------------------------------------------------------------- the search, end to end
def encode_words(texts: Sequence[str], progress: Any = None) -> np.ndarray:
    """Words hashed into 64 buckets (plus a constant): exact, fast, no model."""
    out = np.zeros((len(texts), 64), dtype=np.float32)
    out[:, 63] = 0.05
    for i, text in enumerate(texts):
        for word in re.findall(r"\w+", text.lower()):
            out[i, zlib.crc32(word.encode()) % 63] += 1.0
    if progress is not None:
        progress(len(texts), len(texts))
    return out


@pytest.fixture
def sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, str], list[Any]]:
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path / "cache"))
    embedcache.clear_memory()
    text = (SAMPLE / "topic_shifts.txt").read_text(encoding="utf-8")
    corpus = {"topic_shifts.txt": text}
    questions = load_questions(SAMPLE / "questions" / "topic_shifts.jsonl", corpus)[:8]
    return corpus, questions


def test_the_search_honours_the_budget_and_evaluates_retrievers_of_a_chunking_together(sample: Any) -> None:
    corpus, questions = sample
    calls: list[list[Configuration]] = []

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(list(args[2]))
        return evaluate(*args, **kwargs)

    study = tune(
        corpus, questions, strategies=["recursive", "fixed_tokens"], retrievers=["dense"], budget=5,
        sizes=[32, 64, 128], encode=encode_words, model="tests-words", evaluator=counting,
    )  # fmt: skip
    assert study.chunkings == len(calls) == 5
    assert len(study.points) == 5
    keys = [(c[0].strategy, tuple(sorted(c[0].params.items()))) for c in calls]
    assert len(set(keys)) == 5  # no chunking twice
    # the coarse grid first (two thirds of the budget: 4), middle-out, strategies in turn
    assert [(c[0].strategy, c[0].params[next(iter(c[0].params))]) for c in calls[:4]] == [
        ("recursive", 64),
        ("fixed_tokens", 64),
        ("recursive", 32),
        ("fixed_tokens", 32),
    ]
    assert {p.round for p in study.points[4:]} == {1}


def test_a_tiny_corpus_end_to_end(sample: Any) -> None:
    corpus, questions = sample
    reports: list[TuneProgress] = []
    study = tune(
        corpus, questions, strategies=["recursive"], retrievers=["dense"], budget=4, sizes=[32, 128],
        encode=encode_words, model="tests-words", progress=reports.append,
    )  # fmt: skip
    assert study.chunkings == 4
    assert reports[0].eta is None and reports[0].done == 0
    assert reports[-1].done == 4 and reports[-1].eta == 0
    assert reports[-1].line().startswith("4 chunkings embedded and scored in")
    assert all(r.eta is not None for r in reports if r.done >= 1)
    for p in study.points:
        assert 0 <= p.value("recall") <= 1 and 0 <= p.value("iou") <= 1 and p.value("tokens") > 0
    frontier = study.frontier("iou", "recall")
    assert frontier and all(p in study.points for p in frontier)
    assert all(not any(dominates(q, p, "iou", "recall") for q in study.points) for p in frontier)
    # the best point, evaluated again by itself, gives the same scores
    chosen = best(study.points, "iou", [Constraint("recall", ">=", 0.0)])
    assert chosen is not None
    (again,) = evaluate(corpus, questions, [chosen.configuration], k=5, model="tests-words", encode=encode_words)
    assert again.summary()["iou"][0] == pytest.approx(chosen.value("iou"))
    command = eval_command(chosen, ["topic_shifts.txt"], "q.jsonl", 5)
    size = chosen.configuration.params["chunk_size"]
    assert command == (
        f"chunkviz eval topic_shifts.txt --questions q.jsonl -s recursive -p chunk_size={size} "
        f"-p overlap={chosen.configuration.params['overlap']} --tokenizer cl100k_base --k 5"
    )
    # the study's embedding model is part of what reproduces it (the default goes without saying)
    assert eval_command(chosen, ["topic_shifts.txt"], "q.jsonl", 5, "openai:text-embedding-3-small") == (
        command + " --model openai:text-embedding-3-small"
    )
    assert eval_command(chosen, ["topic_shifts.txt"], "q.jsonl", 5, "all-MiniLM-L6-v2") == command


def test_the_frontier_figure_has_every_point_the_lines_and_the_published_rows(sample: Any) -> None:
    pytest.importorskip("plotly")
    corpus, questions = sample
    study = tune(
        corpus, questions, strategies=["recursive"], retrievers=["dense"], budget=2, sizes=[32, 128],
        encode=encode_words, model="tests-words",
    )  # fmt: skip
    figure = frontier_figure(study, published=MINILM_ROWS, marked=study.points[0])
    names = [t.name for t in figure.data]
    assert names == ["dense: tried", "dense: frontier", "Chroma's study (MiniLM)", "chosen"]
    assert list(figure.data[0].customdata) == [0, 1]
    assert len(figure.data[2].x) == len(MINILM_ROWS)
    assert figure.data[2].y[-1] == pytest.approx(75.2)


def test_chroma_corpus_is_recognised_by_name_and_length() -> None:
    assert chroma_corpus_name("corpora/finance.md", 737_905) == "finance"
    assert chroma_corpus_name("finance.md", 737_904) is None
    assert is_chroma({name + ".md": "x" * n for name, n in CHROMA_CORPORA.items()})
    assert not is_chroma({"finance.md": "x" * 737_905, "notes.md": "x"})
    assert not is_chroma({})


def test_durations_read_well() -> None:
    assert [duration(s) for s in (4.4, 75, 3725)] == ["4 s", "1 min 15 s", "1 h 02 min"]
