"""chunkviz.evaluation.report's helpers for the app (sizes, k, params fitted to a swept size, the
results and per-question tables) and the evaluation figures of chunkviz.drawing.charts, on hand-made results."""

from __future__ import annotations

import math
from typing import Any

import pytest

from chunkviz.drawing.charts import configuration_bars_figure, sweep_figure
from chunkviz.evaluation.evaluate import Configuration, Result
from chunkviz.evaluation.metrics import Scores
from chunkviz.evaluation.questions import Question, Reference
from chunkviz.evaluation.report import (
    BEST_MARK,
    MAX_K,
    Adjustment,
    SweepError,
    adjustment_note,
    best_rows,
    check_k,
    configurations,
    fit_to_size,
    parse_sizes,
    question_rows,
    summary_rows,
    sweep_label,
)
from chunkviz.strategies.base import get_strategy


def scores(value: float, rr: float = 1.0) -> Scores:
    return Scores(
        recall=value, precision=value / 2, iou=value / 4, precision_omega=0.5, recall_at_k=value, reciprocal_rank=rr
    )


def result(*per_question: Scores, chunks: int = 10, chars: float = 123.4) -> Result:
    return Result(Configuration("recursive"), 5, tuple(per_question), tuple(() for _ in per_question), chunks, chars)


@pytest.mark.parametrize(
    ("text", "sizes"),
    [
        ("128,256,512", [128, 256, 512]),
        (" 128, 256  512 ,", [128, 256, 512]),
        ("256, 128, 256", [256, 128]),
        ("7", [7]),
    ],
)
def test_parse_sizes(text: str, sizes: list[int]) -> None:
    assert parse_sizes(text) == sizes


@pytest.mark.parametrize(
    ("text", "words"),
    [("", "no sizes"), (" , ", "no sizes"), ("128, x", "'x'"), ("0", "'0'"), ("-5", "'-5'"), ("1.5", "'1.5'")],
)
def test_parse_sizes_refuses(text: str, words: str) -> None:
    with pytest.raises(SweepError, match=words):
        parse_sizes(text)


@pytest.mark.parametrize(
    ("strategy", "params", "name", "size", "fitted", "adjusted"),
    [
        # a size the params still fit: nothing changes (overlap 16 < 32, min_tokens 32 <= 32)
        ("fixed_tokens", {}, "chunk_size", 32, {"chunk_size": 32}, ()),
        (
            "paragraphs",
            {"min_tokens": 32, "max_tokens": 128},
            "max_tokens",
            32,
            {"min_tokens": 32, "max_tokens": 32},
            (),
        ),
        # the overlap keeps its ratio to the size (floored: it stays below)
        (
            "fixed_tokens",
            {"chunk_size": 128, "overlap": 16},
            "chunk_size",
            16,
            {"chunk_size": 16, "overlap": 2},
            (("overlap", 16, 128, 2, 16),),
        ),
        ("recursive", {}, "chunk_size", 8, {"chunk_size": 8, "overlap": 1}, (("overlap", 16, 128, 1, 8),)),
        (
            "recursive",
            {"chunk_size": 256, "overlap": 100},
            "chunk_size",
            100,
            {"chunk_size": 100, "overlap": 39},
            (("overlap", 100, 256, 39, 100),),
        ),
        ("fixed_tokens", {}, "chunk_size", 1, {"chunk_size": 1, "overlap": 0}, (("overlap", 16, 128, 0, 1),)),
        ("fixed_chars", {}, "chunk_size", 50, {"chunk_size": 50, "overlap": 6}, (("overlap", 64, 512, 6, 50),)),
        (
            "paragraphs",
            {"min_tokens": 32, "max_tokens": 128},
            "max_tokens",
            16,
            {"min_tokens": 4, "max_tokens": 16},
            (("min_tokens", 32, 128, 4, 16),),
        ),
        (
            "tables",
            {"text_overlap": 40},
            "max_tokens",
            16,
            {"text_overlap": 5, "max_tokens": 16},
            (("text_overlap", 40, 128, 5, 16),),
        ),
        # the swept size itself is refused (child_size no longer below parent_size): the parent grows with it (ceiled)
        (
            "parent_child",
            {},
            "child_size",
            1024,
            {"child_size": 1024, "parent_size": 8000},
            (("parent_size", 1000, 128, 8000, 1024),),
        ),
        (
            "parent_child",
            {"parent_size": 300},
            "child_size",
            1000,
            {"parent_size": 2344, "child_size": 1000},
            (("parent_size", 300, 128, 2344, 1000),),
        ),
        (
            "parent_child",
            {},
            "child_size",
            8,
            {"child_size": 8, "child_overlap": 1},
            (("child_overlap", 16, 128, 1, 8),),
        ),
        # no ratio to keep (the column's size is 0: the model's limit), or not a whole-number sweep: unscaled, the run says why
        ("semantic", {"min_tokens": 40}, "max_tokens", 16, {"min_tokens": 40, "max_tokens": 16}, ()),
        ("semantic", {"similarity": 0.5}, "similarity", 0.7, {"similarity": 0.7}, ()),
    ],
)
def test_fit_to_size_scales_what_no_longer_fits(
    strategy: str,
    params: dict[str, Any],
    name: str,
    size: Any,
    fitted: dict[str, Any],
    adjusted: tuple[tuple[Any, ...], ...],
) -> None:
    before = dict(params)
    got, adjustments = fit_to_size(strategy, params, name, size)
    assert got == fitted
    assert adjustments == tuple(Adjustment(*a) for a in adjusted)
    if adjusted:
        get_strategy(strategy).make_params(got)  # valid
    assert params == before, "the column's params are not changed"


def test_fit_to_size_leaves_what_scaling_cannot_fix_unscaled() -> None:
    # overlap 16 at chunk_size 16 was never valid: there is no ratio that fits, the run reports it
    assert fit_to_size("fixed_tokens", {"chunk_size": 16, "overlap": 16}, "chunk_size", 8) == (
        {"chunk_size": 8, "overlap": 16},
        (),
    )
    # a parameter that does not exist is refused by the run, not scaled
    assert fit_to_size("recursive", {"nope": 1}, "chunk_size", 8) == ({"nope": 1, "chunk_size": 8}, ())


def test_adjustment_note_and_label_name_what_runs() -> None:
    one = Adjustment("overlap", 16, 128, 4, 32)
    assert adjustment_note([one]) == "overlap scaled with the size: 16 at 128 → 4 at 32"
    several = [
        Adjustment("overlap", 16, 128, 2, 16),
        Adjustment("overlap", 16, 128, 1, 8),
        Adjustment("min_tokens", 32, 128, 4, 16),
    ]
    assert adjustment_note(several) == (
        "overlap scaled with the size: 16 at 128 → 2 at 16, 1 at 8; min_tokens scaled with the size: 32 at 128 → 4 at 16"
    )
    assert adjustment_note([]) == ""
    assert sweep_label("1. recursive", "chunk_size", 32, [one]) == "1. recursive · chunk_size=32, overlap=4"
    assert sweep_label("3. paragraphs", "max_tokens", 256, []) == "3. paragraphs · max_tokens=256"


def test_the_command_lines_sweep_scales_too() -> None:
    got = configurations(["recursive", "paragraphs"], {}, "cl100k_base", ("chunk_size", [16, 128]))
    assert got == [
        Configuration("recursive", {"chunk_size": 16, "overlap": 2}), Configuration("recursive", {"chunk_size": 128}),
        Configuration("paragraphs", {"max_tokens": 16, "min_tokens": 4}), Configuration("paragraphs", {"max_tokens": 128}),
    ]  # fmt: skip
    assert got[0].label() == "recursive(chunk_size=16, overlap=2)"


@pytest.mark.parametrize("k", [1, 5, MAX_K, 5.0])
def test_check_k_accepts(k: float) -> None:
    assert check_k(k) == int(k) and isinstance(check_k(k), int)


@pytest.mark.parametrize("k", [0, -1, MAX_K + 1, 2.5, None, "5", True, math.nan])
def test_check_k_refuses(k: object) -> None:
    with pytest.raises(SweepError, match=f"from 1 to {MAX_K}"):
        check_k(k)


def test_best_rows_marks_the_highest_mean_and_every_tie() -> None:
    results = [
        result(scores(0.5), scores(1.0)),
        result(scores(1.0), scores(0.5)),
        result(scores(0.2), scores(0.2), chunks=3),
    ]
    best = best_rows(results)
    assert best["recall"] == {0, 1} and best["iou"] == {0, 1}
    assert best["precision_omega"] == {0, 1, 2}
    assert best["reciprocal_rank"] == {0, 1, 2}


def test_best_rows_without_questions_marks_nothing() -> None:
    assert all(rows == set() for rows in best_rows([result(), result()]).values())


def test_summary_rows_are_percent_mean_and_std_with_the_best_marked() -> None:
    rows = summary_rows(
        [result(scores(0.5), scores(1.0), chunks=7, chars=99.6), result(scores(0.25), scores(0.25))], ["a", "b"]
    )
    assert list(rows[0]) == [
        "configuration",
        "chunks",
        "mean chunk chars",
        "recall@k",
        "recall",
        "precision",
        "IoU",
        "precision_Ω",
        "MRR",
        "NDCG@k",
        "MAP",
    ]
    assert rows[0]["configuration"] == "a" and rows[0]["chunks"] == 7 and rows[0]["mean chunk chars"] == 100
    assert rows[0]["recall"] == f"75.0 ± 25.0 {BEST_MARK}"
    assert rows[1]["recall"] == "25.0 ± 0.0"
    assert rows[0]["IoU"] == f"18.8 ± 6.2 {BEST_MARK}"
    assert rows[0]["precision_Ω"].endswith(BEST_MARK) and rows[1]["precision_Ω"].endswith(BEST_MARK)
    assert summary_rows([result()], ["empty"])[0]["recall"] == "–"
    with pytest.raises(ValueError, match="2 labels for 1 results"):
        summary_rows([result()], ["a", "b"])


def test_question_rows_give_each_questions_scores_and_first_hit() -> None:
    questions = [
        Question("first?", (Reference("d", 0, 5),)),
        Question("second?", (Reference("d", 0, 5), Reference("d", 9, 12))),
        Question("third?", (Reference("d", 1, 2),)),
    ]
    rows = question_rows(result(scores(1.0, 1.0), scores(0.5, 1 / 3), scores(0.0, 0.0)), questions)
    assert [(r["#"], r["question"], r["references"], r["first hit"]) for r in rows] == [
        (1, "first?", 1, 1), (2, "second?", 2, 3), (3, "third?", 1, None),
    ]  # fmt: skip
    assert rows[1]["recall"] == 50.0 and rows[1]["IoU"] == 12.5 and rows[1]["recall@k"] == 50.0
    assert "MRR" not in rows[0], "the first hit's rank says it per question"


def test_sweep_figure_has_a_labelled_line_per_strategy_on_a_log_axis() -> None:
    fig = sweep_figure(
        {"1. recursive": [(512, 0.9, 0.1), (128, 0.5, 0.2)], "2. <b>x</b>": [(128, 0.0512, 0.0)]},
        "recall@5", {"1. recursive": "#123456"},
    )  # fmt: skip
    first, second = fig.data
    assert first.name == "1. recursive" and list(first.x) == [128, 512] and list(first.y) == [50.0, 90.0]
    assert list(first.text) == ["50", "90"] and first.line.color == "#123456" and first.marker.color == "#123456"
    assert list(first.customdata) == [20.0, 10.0]
    assert "&lt;b&gt;" in second.hovertemplate, "labels are escaped in hover text"
    assert list(second.text) == ["5.1"], "one decimal under 10 %"
    assert (first.textposition, second.textposition) == ("top center", "bottom center"), "close lines' labels part"
    assert fig.layout.xaxis.type == "log" and list(fig.layout.xaxis.tickvals) == [128, 512]
    assert fig.layout.yaxis.title.text == "recall@5 (%)"


def test_configuration_bars_figure_has_a_bar_per_configuration() -> None:
    fig = configuration_bars_figure({"a": (0.5, 0.1), "b": (0.25, 0.0)}, "IoU", {"a": "#111111"})
    (bars,) = fig.data
    assert list(bars.x) == ["a", "b"] and list(bars.y) == [50.0, 25.0] and list(bars.text) == ["50.0", "25.0"]
    assert list(bars.marker.color) == ["#111111", "#868e96"]
    assert list(bars.customdata) == [10.0, 0.0]
