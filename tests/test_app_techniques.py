"""The Evaluate view's retrieval techniques through AppTest, against the loopback
chat-completions server (tests/support/llm.py) and with no endpoint.

A technique is compared with the same chunks without it (twin rows); the (LLM) ones say what
they cost before the run and make no call twice; answer quality adds its columns; the model can
write the questions. With no endpoint, choosing an LLM technique says what to set.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest
from support.apptest import app_test
from support.llm import LoopbackLLM, Reply
from test_app_evaluate import APP, SAMPLE_PATH, press_run, results_table, run, set_value

from chunkviz.llm.cache import clear_memory

pytestmark = pytest.mark.usefixtures("semantic_cache_dir")

TEXT = SAMPLE_PATH.read_text(encoding="utf-8")
QUESTIONS = len(
    (SAMPLE_PATH.parent / "questions" / "field_station_handbook.jsonl").read_text(encoding="utf-8").splitlines()
)
EXCERPT = "a cellular modem that sends the readings to our server every ten minutes"


def model(request: dict[str, Any]) -> Reply:
    """Question writing gets one question with an exact excerpt; the judge a verdict; every
    other prompt (a rewrite, a HyDE passage, an answer) the same sentence."""
    user = request["messages"][-1]["content"]
    if "<<<" in user:
        return Reply(
            json.dumps({"questions": [{"question": "How do readings reach the server?", "references": [EXCERPT]}]})
        )
    if "Answer to grade" in user:
        return Reply(json.dumps({"verdict": "correct", "reason": "it says so"}))
    return Reply("The station's cellular modem sends the readings to the server every ten minutes.")


@pytest.fixture(autouse=True)
def _plain_argv(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.argv", [str(APP)])


@pytest.fixture
def endpoint(llm_server: LoopbackLLM, monkeypatch: pytest.MonkeyPatch) -> LoopbackLLM:  # noqa: F811
    monkeypatch.setenv("OPENAI_BASE_URL", llm_server.base_url)
    monkeypatch.setenv("CHUNKVIZ_LLM_MODEL", "loopback-model")
    clear_memory()
    llm_server.reset(fallback=model)
    return llm_server


def evaluate_view(query: dict[str, str] | None = None) -> AppTest:
    at = app_test(APP, 300)
    for key, value in (query or {"n": "1", "s0": "paragraphs"}).items():
        at.query_params[key] = value
    run(at)
    at.segmented_control(key="view").set_value("Evaluate retrieval")
    return run(at)


def test_without_an_endpoint_an_llm_technique_says_what_to_set(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "CHUNKVIZ_LLM_MODEL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    at = evaluate_view()
    set_value(at, "eval.techniques", ["HyDE passage (LLM)"])
    assert any("No LLM endpoint" in w.value and "OPENAI_BASE_URL" in w.value for w in at.warning)
    assert [b for b in at.button if b.key == "eval.run"] == []  # nothing to run until an endpoint is set
    set_value(at, "eval.techniques", ["metadata prefix", "extractive summaries"])  # these need no model
    press_run(at)
    labels = list(results_table(at)["configuration"])
    assert labels == ["1. paragraphs", "1. paragraphs · metadata prefix", "1. paragraphs · extractive summaries",
                      "1. paragraphs · extractive summaries · metadata prefix"]  # fmt: skip
    set_value(at, "eval.config", "1. paragraphs · extractive summaries")
    changed = [d.value for d in at.dataframe if "Δ recall" in d.value.columns]
    assert len(changed) == 1 and len(changed[0]) == QUESTIONS
    spans = list(changed[0]["reference chars"])
    assert spans == sorted(spans, reverse=True)  # the broadest questions first


def test_hyde_twins_cost_first_then_call_once_per_question_and_never_again(endpoint: LoopbackLLM) -> None:
    at = evaluate_view()
    set_value(at, "eval.techniques", ["HyDE passage (LLM)"])
    costs = [i.value for i in at.info if i.value.startswith("Run calls")]
    assert len(costs) == 1 and f"{QUESTIONS} calls" in costs[0] and f"hyde of {QUESTIONS} questions" in costs[0]
    assert endpoint.calls == 0
    press_run(at)
    assert endpoint.calls == QUESTIONS
    frame = results_table(at)
    assert list(frame["configuration"]) == ["1. paragraphs", "1. paragraphs · HyDE"]
    assert frame["chunks"].nunique() == 1  # the same chunks, searched with another query text
    set_value(at, "eval.k", 3)
    press_run(at)
    assert endpoint.calls == QUESTIONS  # the passages come from the cache
    assert not [i for i in at.info if i.value.startswith("Run calls") and "0 calls" not in i.value]


def test_answer_quality_adds_its_columns_and_the_answers(endpoint: LoopbackLLM) -> None:
    at = evaluate_view()
    at.checkbox(key="eval.answers").check()
    run(at)
    at.checkbox(key="eval.judge").check()
    run(at)
    assert any("[system]" in c.value for c in at.code)  # the prompts are shown
    press_run(at)
    frame = results_table(at)
    assert "answer F1" in frame.columns and "judge" in frame.columns
    assert frame["judge"][0].startswith("100.0")  # every verdict "correct"
    assert endpoint.calls == 2 * QUESTIONS  # an answer and a verdict per question
    answers = [d.value for d in at.dataframe if "answer" in d.value.columns and "reason" in d.value.columns]
    assert answers and len(answers[0]) == QUESTIONS and set(answers[0]["judge"]) == {"correct"}


def test_the_model_writes_the_questions_and_they_can_be_downloaded(endpoint: LoopbackLLM) -> None:
    at = evaluate_view()
    set_value(at, "eval.source", "Written by the model (LLM)")
    assert endpoint.calls == 0
    set_value(at, "eval.gen_n", 1)
    at.button(key="eval.generate").click()
    run(at)
    assert any("1 of 1 question" in c.value for c in at.caption), [c.value for c in at.caption]
    assert any("1 questions · 1 reference spans" in c.value for c in at.caption)
    calls = endpoint.calls
    press_run(at)
    assert endpoint.calls == calls  # evaluating them calls nothing
    assert list(results_table(at)["configuration"]) == ["1. paragraphs"]
