"""The query playground in the Compare view, driven through ``streamlit.testing.v1.AppTest``.

What the page shows (the hits in the document view's data, the table, the scores) is checked
against :mod:`chunkviz.evaluation.playground` called directly on the same chunks, with the real
offline MiniLM (embeddings cached in the run's temporary folder, tests/support/caches.py). A text
selection in the document view is the component's state ``{"answer": {start, end, nonce}}``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest
from test_app import (
    DEFAULT_COLUMNS,
    DEFAULT_SAMPLE,
    DOCVIEW,
    engine,
    media,  # noqa: F401 - a fixture
    new_app,
    run,
    sample_text,
    send_component_state,
    set_widget,
    view_payload,
    warnings,
    widget,
)

import chunkviz.semantic.embeddings as embeddings
from chunkviz.evaluation.playground import answer_scores, embed_query, score_row, search
from chunkviz.evaluation.questions import Question, Reference, load_questions
from chunkviz.semantic import embedcache
from chunkviz.semantic.embeddings import default_encoder
from chunkviz.strategies.base import get_strategy

REPO = Path(__file__).resolve().parent.parent
APP = REPO / "app.py"
QUERY = "How do the readings get from a station to the server?"
EXCERPT = "a cellular modem that sends the readings to our server every ten minutes."
PLAYGROUND_QUESTIONS = "playground.questions"


@pytest.fixture(autouse=True)
def _plain_argv(monkeypatch: pytest.MonkeyPatch) -> None:
    """app.py reads a file in ``sys.argv[1]`` as the document; run as ``streamlit run app.py`` does."""
    monkeypatch.setattr("sys.argv", [str(APP)])


# ----------------------------------------------------------------------------- helpers


def expected_hits(query: str, k: int) -> dict[int, tuple[list[Any], list[Any], bool]]:
    """Column -> (chunks, hits, returns_parents) computed directly, as the default columns chunk."""
    text = sample_text(DEFAULT_SAMPLE)
    model = embeddings.DEFAULT_MODEL
    encode = default_encoder(model)
    vector = embed_query(query, model, encode)
    out = {}
    for i, strategy in enumerate(DEFAULT_COLUMNS):
        chunks = engine(text, strategy)
        parents = get_strategy(strategy).returns_parents
        out[i] = (chunks, search(chunks, parents, vector, k, model, encode), parents)
    return out


def playground_frame(at: AppTest) -> pd.DataFrame:
    found = [d.value for d in at.dataframe if "top k: rank, chunk, score" in d.value.columns]
    assert len(found) == 1, f"{len(found)} playground tables"
    return found[0]


def hits_in_view(at: AppTest) -> list[list[tuple[int, int, int | None]]]:
    return [[(h["index"], h["rank"], h["matched"]) for h in c["hits"]] for c in view_payload(at)["columns"]]


def with_query(query: str = QUERY, k: int | None = None) -> AppTest:
    at = new_app()
    if k is not None:
        widget(at, "playground.k").set_value(k)
    return set_widget(at, "playground.query", query)


# ----------------------------------------------------------------------------- tests


def test_no_query_embeds_nothing_and_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    monkeypatch.setattr(embeddings, "default_encoder", lambda model: asked.append(model))
    at = new_app()
    payload = view_payload(at)
    assert all(c["hits"] == [] for c in payload["columns"])
    assert payload["references"] == [] and payload["answer_selection"] is False
    assert asked == [] and not warnings(at)
    assert not any("top k: rank, chunk, score" in d.value.columns for d in at.dataframe)
    assert widget(at, "playground.k").value == 5


def test_a_query_shows_each_columns_top_k_in_the_view_and_the_table() -> None:
    at = with_query(k=3)
    expected = expected_hits(QUERY, 3)
    assert hits_in_view(at) == [[(h.index, h.rank, h.matched) for h in expected[i][1]] for i in range(3)]
    for i, column in enumerate(view_payload(at)["columns"]):
        assert [h["score"] for h in column["hits"]] == pytest.approx([h.score for h in expected[i][1]], abs=1e-6)
    frame = playground_frame(at)
    labels = [f"{i + 1}. {s}" for i, s in enumerate(DEFAULT_COLUMNS)]
    assert frame.to_dict("records") == [score_row(labels[i], expected[i][1], None) for i in range(3)]
    assert view_payload(at)["answer_selection"] is True
    assert any("Select the expected answer" in c.value for c in at.caption)
    assert not warnings(at)


def test_a_pasted_answer_scores_every_column() -> None:
    at = with_query()
    at = set_widget(at, "playground.paste", EXCERPT)
    text = sample_text(DEFAULT_SAMPLE)
    start = text.index(EXCERPT)
    answer = (start, start + len(EXCERPT))
    assert view_payload(at)["references"] == [list(answer)]
    expected = expected_hits(QUERY, 5)
    labels = [f"{i + 1}. {s}" for i, s in enumerate(DEFAULT_COLUMNS)]
    rows = []
    for i in range(3):
        chunks, hits, parents = expected[i]
        rows.append(score_row(labels[i], hits, answer_scores(chunks, parents, hits, answer)))
    frame = playground_frame(at)
    assert list(frame.columns) == [
        "column",
        "top k: rank, chunk, score",
        "recall %",
        "IoU %",
        "precision %",
        "recall@k %",
        "RR",
    ]
    assert frame.to_dict("records") == rows
    assert any(r["recall %"] > 0 for r in rows)  # the answer is found somewhere
    for i, column in enumerate(view_payload(at)["columns"]):  # the headers carry recall and IoU
        scores = answer_scores(expected[i][0], expected[i][2], expected[i][1], answer)
        assert column["summary"].startswith(f"answer: recall {100 * scores.recall:.0f}% · IoU {100 * scores.iou:.1f}%")
    assert any(f"characters {answer[0]:,}–{answer[1]:,}" in c.value for c in at.caption)


@pytest.mark.parametrize(
    "pasted, message",
    [
        ("a cellular modem that sends the readings by carrier pigeon", "is not in the document"),
        ("the river", "more than once"),
    ],
)
def test_a_pasted_answer_not_found_once_says_so(pasted: str, message: str) -> None:
    at = set_widget(with_query(), "playground.paste", pasted)
    assert any(message in w for w in warnings(at)), warnings(at)
    assert view_payload(at)["references"] == []
    assert "recall %" not in playground_frame(at).columns


def test_a_selection_in_the_document_view_is_the_answer_trimmed() -> None:
    at = with_query()
    text = sample_text(DEFAULT_SAMPLE)
    start = text.index(EXCERPT)
    state = {
        "selection": None,
        "answer": {"start": start - 1, "end": start + len(EXCERPT) + 1, "nonce": 7},
    }  # "- a ... minutes.\n"
    assert text[start - 1].isspace() and text[start + len(EXCERPT)].isspace()
    at = send_component_state(at, DOCVIEW, state)
    assert view_payload(at)["references"] == [[start, start + len(EXCERPT)]]
    assert "recall %" in playground_frame(at).columns
    # a click on a chunk afterwards keeps the answer (same nonce: not a new selection)
    at = send_component_state(at, DOCVIEW, {**state, "selection": {"column": 0, "index": 1, "nonce": 8}})
    assert view_payload(at)["references"] == [[start, start + len(EXCERPT)]]
    at.button(key="playground.clear").click()
    run(at)
    assert view_payload(at)["references"] == []


def test_questions_are_kept_and_downloaded_as_a_file_the_cli_reads(
    media: dict[str, tuple[bytes, str, str | None]],
) -> None:
    at = set_widget(with_query(), "playground.paste", EXCERPT)
    at.button(key="playground.add").click()
    run(at)
    at.button(key="playground.add").click()  # the same pair again: kept once
    run(at)
    text = sample_text(DEFAULT_SAMPLE)
    start = text.index(EXCERPT)
    expected = [Question(QUERY, (Reference(DEFAULT_SAMPLE, start, start + len(EXCERPT)),))]
    assert at.session_state[PLAYGROUND_QUESTIONS] == expected
    button = {b.key: b for b in at.get("download_button")}["playground.download"]
    assert button.label == "Download 1 question"
    data, mime, file_name = media[button.proto.url]
    assert file_name == "field_station_handbook.questions.jsonl" and mime == "application/jsonl"
    # chunkviz eval chunkviz/sample_docs/field_station_handbook.md --questions field_station_handbook.questions.jsonl
    corpus_key = "chunkviz/sample_docs/field_station_handbook.md"
    assert load_questions(data, {corpus_key: text}) == [
        Question(QUERY, (Reference(corpus_key, start, start + len(EXCERPT)),))
    ]


def test_a_model_that_cannot_load_leaves_a_message_and_the_page_working(monkeypatch: pytest.MonkeyPatch) -> None:
    def unavailable(name: str = "") -> Any:
        raise embeddings.ModelUnavailable("cannot load embedding model 'x' offline (a test)")

    embedcache.clear_memory()
    monkeypatch.setattr(embeddings, "load_model", unavailable)
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", "")  # nothing cached: the query must be embedded
    at = with_query("a query no other test embeds")
    assert any("The query cannot be searched: cannot load embedding model" in w for w in warnings(at)), warnings(at)
    assert all(c["hits"] == [] for c in view_payload(at)["columns"])
    assert len(at.get("bidi_component")) >= 1 and at.subheader  # the view and the columns' details are there


def test_a_parent_child_column_returns_parents_around_the_matched_children() -> None:
    at = set_widget(new_app(), "col2.strategy", "parent_child")
    at = set_widget(at, "playground.query", QUERY)
    text = sample_text(DEFAULT_SAMPLE)
    chunks = engine(text, "parent_child")
    model = embeddings.DEFAULT_MODEL
    encode = default_encoder(model)
    expected = search(chunks, True, embed_query(QUERY, model, encode), 5, model, encode)
    assert hits_in_view(at)[2] == [(h.index, h.rank, h.matched) for h in expected]
    by_index = {c.index: c for c in chunks}
    assert all(h.matched is not None and by_index[h.matched].parent == h.index for h in expected)
    assert "via" in playground_frame(at).to_dict("records")[2]["top k: rank, chunk, score"]
