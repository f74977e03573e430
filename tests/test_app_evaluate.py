"""The app's Evaluate view, driven through ``streamlit.testing.v1.AppTest`` (no browser).

What the page shows is checked against :func:`chunkviz.evaluation.evaluate.evaluate` called
directly with the same configurations, on the real offline MiniLM (embeddings cached in the
run's temporary folder, tests/support/caches.py: the first run embeds, later ones read the cache).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest
from support.apptest import app_test
from support.docview import column_html

import chunkviz.ui.evaluation as evaluation_view
from chunkviz.core.errors import ChunkvizError
from chunkviz.diagnostics.compare import config_from_query
from chunkviz.document.read import read_bytes
from chunkviz.evaluation.evaluate import Configuration, evaluate
from chunkviz.evaluation.questions import Question, Reference, load_questions
from chunkviz.evaluation.report import TITLES, summary_rows

REPO = Path(__file__).resolve().parent.parent
APP = REPO / "app.py"
SAMPLE = "field_station_handbook.md"
SAMPLE_PATH = REPO / "chunkviz/sample_docs" / SAMPLE
QUESTIONS_PATH = REPO / "chunkviz/sample_docs" / "questions" / "field_station_handbook.jsonl"
DOCVIEW = "chunkviz_docview"


@pytest.fixture(autouse=True)
def _plain_argv(monkeypatch: pytest.MonkeyPatch) -> None:
    """app.py reads a file in ``sys.argv[1]`` as the document; run as ``streamlit run app.py`` does."""
    monkeypatch.setattr("sys.argv", [str(APP)])


# ----------------------------------------------------------------------------- helpers
def run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, "the app raised: " + "\n".join(
        str(e.message) + "\n" + "\n".join(e.stack_trace) for e in at.exception
    )
    return at


def evaluate_view(**state: Any) -> AppTest:
    """The app on the default sample, switched to the Evaluate view (``state``: widget values)."""
    at = run(app_test(APP, 300))
    at.segmented_control(key="view").set_value("Evaluate retrieval")
    run(at)
    for key, value in state.items():
        set_value(at, key, value)
    return at


def set_value(at: AppTest, key: str, value: Any) -> AppTest:
    for kind in ("radio", "text_input", "number_input", "selectbox", "multiselect"):
        for w in getattr(at, kind):
            if w.key == key:
                w.set_value(value)
                return run(at)
    raise AssertionError(f"no widget {key!r}")


def press_run(at: AppTest) -> AppTest:
    at.button(key="eval.run").click()
    return run(at)


def results_table(at: AppTest) -> Any:
    (frame,) = [d.value for d in at.dataframe if "configuration" in d.value.columns]
    return frame


def chart(at: AppTest, metric: str) -> dict[str, Any]:
    (found,) = [c for c in at.get("plotly_chart") if c.key == f"eval.chart.{metric}"]
    return json.loads(found.proto.spec)


def payload(at: AppTest) -> dict[str, Any] | None:
    found = [c for c in at.get("bidi_component") if c.proto.component_name == DOCVIEW]
    assert len(found) <= 1, f"{len(found)} document views"
    return json.loads(found[0].proto.json) if found else None


def pick_question(at: AppTest, row: int) -> AppTest:
    at.session_state["eval.questions"] = {"selection": {"rows": [row], "columns": []}}
    return run(at)


def texts(elements: Any) -> list[str]:
    return [e.value for e in elements]


def unmarked(row: dict[str, Any]) -> dict[str, Any]:
    """A results row without its best marks (which depend on the other rows)."""
    return {key: value.removesuffix(" ★") if isinstance(value, str) else value for key, value in row.items()}


def app_configurations(at: AppTest) -> list[Configuration]:
    """The sidebar's columns as the page shares them (its URL), as engine configurations."""
    query = {
        key: at.query_params[key][0] if isinstance(at.query_params[key], list) else at.query_params[key]
        for key in at.query_params
    }
    _, tokenizer, columns = config_from_query(query)
    return [Configuration(c.strategy, dict(c.params), c.tokenizer or tokenizer) for c in columns]


def sample() -> tuple[dict[str, Any], list[Question]]:
    document = read_bytes(SAMPLE_PATH.read_bytes(), SAMPLE)
    return {SAMPLE: document}, load_questions(QUESTIONS_PATH, {SAMPLE: document.text})


#: the app's column titles at k = 5
TITLES_AT_5 = {TITLES["recall_at_k"]: "recall@5", TITLES["ndcg_at_k"]: "NDCG@5"}


# ----------------------------------------------------------------------------- tests
def test_the_current_columns_give_one_row_each_with_the_engines_numbers() -> None:
    at = evaluate_view()
    assert "45 questions · 49 reference spans · from field_station_handbook.jsonl" in " ".join(texts(at.caption))
    assert not [d for d in at.dataframe if "configuration" in d.value.columns], "nothing runs before the Run button"
    at = press_run(at)
    configurations = app_configurations(at)
    assert [c.strategy for c in configurations] == ["fixed_tokens", "recursive", "paragraphs"]
    corpus, questions = sample()
    expected = summary_rows(
        evaluate(corpus, questions, configurations, k=5), ["1. fixed_tokens", "2. recursive", "3. paragraphs"]
    )
    frame = results_table(at)
    renamed = [{TITLES_AT_5.get(key, key): value for key, value in row.items()} for row in expected]
    assert frame.to_dict("records") == renamed
    assert all(any(str(v).endswith("★") for v in frame[column]) for column in frame.columns[3:]), (
        "each metric's best is marked"
    )
    # bars per configuration, coloured by column
    bars = chart(at, "recall_at_k")["data"]
    assert len(bars) == 1 and bars[0]["x"] == list(frame["configuration"])
    assert len(set(bars[0]["marker"]["color"])) == 3


def test_a_sweep_draws_one_line_per_strategy_over_the_sizes(monkeypatch: pytest.MonkeyPatch) -> None:
    at = evaluate_view(**{"eval.configs": "A size sweep", "eval.sizes": "128, 256"})
    at = press_run(at)
    frame = results_table(at)
    assert list(frame["configuration"]) == [
        "1. fixed_tokens · chunk_size=128", "1. fixed_tokens · chunk_size=256",
        "2. recursive · chunk_size=128", "2. recursive · chunk_size=256",
        "3. paragraphs · max_tokens=128", "3. paragraphs · max_tokens=256",
    ]  # fmt: skip
    for metric in ("recall_at_k", "iou"):
        traces = chart(at, metric)["data"]
        assert [t["name"] for t in traces] == ["1. fixed_tokens", "2. recursive", "3. paragraphs"]
        assert all(t["x"] == [128, 256] for t in traces)
        assert len({t["line"]["color"] for t in traces}) == 3
        # each point is labelled with its mean in percent (whole, or one decimal under 10), as in the table
        column = frame["recall@5" if metric == "recall_at_k" else TITLES[metric]]
        means = [float(cell.split(" ± ")[0]) for cell in column]
        labels = [v for t in traces for v in t["text"]]
        assert all(abs(float(label) - mean) <= 0.55 for label, mean in zip(labels, means, strict=True)), (labels, means)
        assert all(("." in label) == (mean < 9.95) for label, mean in zip(labels, means)), (labels, means)


def test_a_picked_question_shows_its_reference_and_each_configurations_top_k() -> None:
    at = press_run(evaluate_view())
    assert payload(at) is None, "no document view before a question is picked"
    corpus, questions = sample()
    at = pick_question(at, 6)
    question = questions[6]
    assert len(question.references) == 2
    view = payload(at)
    assert view["references"] == sorted([r.start, r.end] for r in question.references)
    assert "Question 7:" in " ".join(texts(at.markdown))
    assert {corpus[SAMPLE].text[r.start : r.end] for r in question.references} <= set(texts(at.code))
    (expected_run,) = evaluate(corpus, [question], [app_configurations(at)[1]], k=5)
    column = view["columns"][1]
    assert [h["rank"] for h in column["hits"]] == [1, 2, 3, 4, 5]
    assert [(h["index"], round(h["score"], 5)) for h in column["hits"]] == [
        (r.chunk_index, round(r.score, 5)) for r in expected_run.retrieved[0]
    ]
    assert all(f'data-chunk-index="{h["index"]}"' in column_html(column) for h in column["hits"])
    assert column["summary"].startswith("recall@5 ")
    (table,) = [d.value for d in at.dataframe if "question" in d.value.columns]
    assert len(table) == 45 and set(table["first hit"]) <= {"–", *(f"#{r}" for r in range(1, 6))}


def test_parents_are_returned_with_their_matched_child() -> None:
    at = run(app_test(APP, 300))
    at.number_input(key="n_columns").set_value(1)
    at.selectbox(key="col0.strategy").set_value("parent_child")
    run(at)
    at.segmented_control(key="view").set_value("Evaluate retrieval")
    at = pick_question(press_run(run(at)), 0)
    hits = payload(at)["columns"][0]["hits"]
    assert [h["rank"] for h in hits] == list(range(1, len(hits) + 1)) and hits
    assert all(h["matched"] is not None and h["matched"] != h["index"] for h in hits), (
        "parent_child returns parents of matched children"
    )
    assert len({h["index"] for h in hits}) == len(hits)


def test_results_survive_switching_views_and_picking_questions(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = evaluation_view.evaluate
    monkeypatch.setattr(evaluation_view, "evaluate", lambda *a, **kw: calls.append(1) or real(*a, **kw))
    at = press_run(evaluate_view(**{"eval.k": 3}))
    ran = len(calls)
    assert ran == 3
    at.segmented_control(key="view").set_value("Compare strategies")
    run(at)
    assert not [d for d in at.dataframe if "configuration" in d.value.columns]
    at.segmented_control(key="view").set_value("Evaluate retrieval")
    run(at)
    assert at.number_input(key="eval.k").value == 3, "the settings are kept while another view is shown"
    assert "recall@3" in results_table(at).columns
    at = pick_question(at, 0)
    at.selectbox(key="eval.config").set_value("3. paragraphs")
    run(at)
    assert [h["rank"] for h in payload(at)["columns"][0]["hits"]] == [1, 2, 3]
    assert len(calls) == ran, "the evaluation ran again"


@pytest.mark.parametrize(
    ("content", "line", "words"),
    [
        (
            '{"question": "Q1", "references": [{"excerpt": "eleven small stations"}]}\n{"question": "Q2", "references": [}\n',
            2,
            "not valid JSON",
        ),
        ('{"question": "Q1", "references": [{"excerpt": "not in this handbook at all"}]}\n', 1, "is not in"),
        (
            '{"question": "Q1", "references": [{"document": "api_guide.md", "excerpt": "eleven"}]}\n',
            1,
            "not in the corpus",
        ),
    ],
)
def test_a_bad_question_file_names_the_line(content: str, line: int, words: str) -> None:
    at = evaluate_view(**{"eval.source": "A question file"})
    assert any("Upload a question file" in v for v in texts(at.info))
    at.file_uploader(key="eval.upload").set_value(("mine.jsonl", content.encode(), "application/jsonl"))
    run(at)
    (message,) = texts(at.error)
    assert f"mine.jsonl, line {line}:" in message and words in message
    assert not [b for b in at.button if b.key == "eval.run"]


def test_an_uploaded_chroma_csv_is_evaluated() -> None:
    text = SAMPLE_PATH.read_text(encoding="utf-8")
    start = text.index("eleven small stations")
    refs = json.dumps([{"content": text[start : start + 21], "start_index": start, "end_index": start + 21}])
    csv = (
        "question,references,corpus_id\n"
        + f'"How many stations?","{refs.replace(chr(34), chr(34) * 2)}",field_station_handbook\n'
    )
    at = evaluate_view(**{"eval.source": "A question file"})
    at.file_uploader(key="eval.upload").set_value(("chroma.csv", csv.encode(), "text/csv"))
    at = press_run(run(at))
    assert "1 questions · 1 reference spans · from chroma.csv" in " ".join(texts(at.caption))
    assert len(results_table(at)) == 3


def test_playground_questions_are_offered_and_other_documents_left_out() -> None:
    at = run(app_test(APP, 300))
    text = SAMPLE_PATH.read_text(encoding="utf-8")
    start = text.index("eleven small stations")
    at.session_state["playground.questions"] = [
        Question("How many stations?", (Reference(SAMPLE, start, start + 21),)),
        Question("Elsewhere?", (Reference("api_guide.md", 0, 10),)),
    ]
    at.segmented_control(key="view").set_value("Evaluate retrieval")
    run(at)
    assert "The playground's questions (2)" in at.radio(key="eval.source").options
    set_value(at, "eval.source", "The playground's questions")
    captions = " ".join(texts(at.caption))
    assert "1 questions · 1 reference spans · from the playground" in captions
    assert "1 of the playground's questions answer from another document" in captions
    # a question added in the playground keeps this choice (the option's label counts the questions)
    more = Question("Again?", (Reference(SAMPLE, start, start + 6),))
    at.session_state["playground.questions"] = [*at.session_state["playground.questions"], more]
    run(at)
    assert at.radio(key="eval.source").value == "The playground's questions"
    assert "2 questions · 2 reference spans · from the playground" in " ".join(texts(at.caption))


@pytest.mark.parametrize(
    ("state", "words"),
    [
        ({"eval.k": 0}, "from 1 to 20"),
        ({"eval.k": 21}, "from 1 to 20"),
        ({"eval.configs": "A size sweep", "eval.sizes": ""}, "no sizes"),
        ({"eval.configs": "A size sweep", "eval.sizes": "128, big"}, "'big' is not a whole number"),
        ({"eval.source": "A question file"}, None),
    ],
)
def test_absurd_inputs_get_a_message_and_no_run(state: dict[str, Any], words: str | None) -> None:
    at = evaluate_view(**state)
    if words is not None:
        assert any(words in e for e in texts(at.error)), texts(at.error)
    assert not [b for b in at.button if b.key == "eval.run"]
    assert "Share and reproduce" in texts(at.header), "the rest of the page still runs"


def test_a_sweep_to_small_sizes_scales_what_no_longer_fits_and_every_configuration_runs() -> None:
    # 16 needs every column's overlap or minimum scaled, 256 none (each size's chunks are all embedded)
    at = press_run(evaluate_view(**{"eval.configs": "A size sweep", "eval.sizes": "16, 256"}))
    assert not texts(at.warning), "every configuration ran"
    captions = texts(at.caption)
    for note in (
        "1. fixed_tokens: overlap scaled with the size: 16 at 128 → 2 at 16, where the column's value would not fit.",
        "2. recursive: overlap scaled with the size: 16 at 128 → 2 at 16, where the column's value would not fit.",
        "3. paragraphs: min_tokens scaled with the size: 32 at 128 → 4 at 16, where the column's value would not fit.",
    ):
        assert note in captions, captions
    frame = results_table(at)
    assert list(frame["configuration"]) == [
        "1. fixed_tokens · chunk_size=16, overlap=2", "1. fixed_tokens · chunk_size=256",
        "2. recursive · chunk_size=16, overlap=2", "2. recursive · chunk_size=256",
        "3. paragraphs · max_tokens=16, min_tokens=4", "3. paragraphs · max_tokens=256",
    ]  # fmt: skip
    assert all(t["x"] == [16, 256] for t in chart(at, "recall_at_k")["data"])
    # what ran is the scaled configuration: the engine's numbers for it
    corpus, questions = sample()
    scaled = Configuration("paragraphs", {"max_tokens": 16, "min_tokens": 4})
    (expected,) = summary_rows(evaluate(corpus, questions, [scaled], k=5), [frame["configuration"][4]])
    expected = {TITLES_AT_5.get(key, key): value for key, value in expected.items()}
    assert unmarked(frame.iloc[4].to_dict()) == unmarked(expected)


def test_a_configuration_that_fails_is_named_and_the_others_still_run(monkeypatch: pytest.MonkeyPatch) -> None:
    real = evaluation_view.evaluate

    def failing(corpus: Any, questions: Any, configs: list[Configuration], **kwargs: Any) -> Any:
        if configs[0].strategy == "recursive" and configs[0].params["chunk_size"] == 128:
            raise ChunkvizError("recursive: this document cannot be split")
        return real(corpus, questions, configs, **kwargs)

    monkeypatch.setattr(evaluation_view, "evaluate", failing)
    at = press_run(evaluate_view(**{"eval.configs": "A size sweep", "eval.sizes": "128, 256"}))
    assert texts(at.warning) == ["2. recursive · chunk_size=128 did not run: recursive: this document cannot be split"]
    assert list(results_table(at)["configuration"]) == [
        "1. fixed_tokens · chunk_size=128", "1. fixed_tokens · chunk_size=256", "2. recursive · chunk_size=256",
        "3. paragraphs · max_tokens=128", "3. paragraphs · max_tokens=256",
    ]  # fmt: skip


def test_the_progress_bar_says_what_is_embedded_and_how_far() -> None:
    seen: list[tuple[float, str]] = []

    class Bar:
        def progress(self, value: float, text: str) -> None:
            seen.append((value, text))

    report = evaluation_view._reporter(Bar(), 1, 4, "2. recursive")
    report("questions", 10, 45)
    report("recursive", 24, 48)
    report("recursive", 0, 0)  # everything was cached
    assert seen == [
        (pytest.approx((1 + 10 / 45) / 4), "2/4 · 2. recursive: embedding the questions 10/45"),
        (pytest.approx(1.5 / 4), "2/4 · 2. recursive: embedding chunks 24/48"),
        (pytest.approx(2 / 4), "2/4 · 2. recursive: chunks already embedded"),
    ]
