"""The app's retrieval model (issue 37): the playground, the Evaluate view and Find the best embed
with the model chosen in the sidebar, not MiniLM always. The model is an ``openai:MODEL`` on a
scripted loopback endpoint (tests/support/embeddings.py), so every text each view embeds is seen
arriving for that model, and the numbers shown are the engine's with that model."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from support.apptest import app_test
from support.embeddings import FakeEmbeddings, endpoint_env

import chunkviz
from chunkviz.evaluation.evaluate import evaluate
from chunkviz.evaluation.questions import load_questions
from chunkviz.semantic import embedcache
from chunkviz.semantic.cache import clear_memory_cache
from chunkviz.semantic.embeddings import DEFAULT_MODEL
from chunkviz.ui.embedmodel import CURVE_MODELS, RETRIEVAL_MODEL_KEY

REPO = Path(__file__).resolve().parent.parent
APP = REPO / "app.py"
SAMPLE = "topic_shifts.txt"
SAMPLE_PATH = REPO / "chunkviz/sample_docs" / SAMPLE
MODEL = "openai:retrieval-test-model"
QUERY = "Where do the birds nest?"


@pytest.fixture(autouse=True)
def _plain_argv(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.argv", [str(APP)])


@pytest.fixture
def endpoint(fake_embeddings: FakeEmbeddings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeEmbeddings:
    """The scripted endpoint, with an empty embedding cache: every text is asked for."""
    endpoint_env(monkeypatch, fake_embeddings.base_url)
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path / "cache"))
    embedcache.clear_memory()
    clear_memory_cache()
    return fake_embeddings


def run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, "the app raised: " + "\n".join(str(e.message) for e in at.exception)
    return at


def models_asked(server: FakeEmbeddings) -> set[str]:
    return {str(r.get("model")) for r in server.requests}


def test_the_retrieval_model_is_offered_from_the_registry_and_the_sidebar(endpoint: FakeEmbeddings) -> None:
    at = run(app_test(APP, 120))
    control = at.selectbox(key=RETRIEVAL_MODEL_KEY)
    assert control.value == DEFAULT_MODEL and list(control.options) == list(CURVE_MODELS.values())
    at.text_input(key="embedding_model_endpoint").set_value(MODEL)
    run(at)
    control = at.selectbox(key=RETRIEVAL_MODEL_KEY)
    assert list(control.options) == [*CURVE_MODELS.values(), MODEL]  # the sidebar's endpoint model is offered
    assert endpoint.requests == []  # offered, not used: nothing embedded yet


def test_the_chosen_model_embeds_the_playground_evaluate_and_find_best(endpoint: FakeEmbeddings) -> None:
    at = run(app_test(APP, 300))
    at.selectbox(key="sample").set_value(SAMPLE)
    at.text_input(key="embedding_model_endpoint").set_value(MODEL)
    run(at)
    at.selectbox(key=RETRIEVAL_MODEL_KEY).set_value(MODEL)
    run(at)
    # the playground: the query and the columns' chunks go to the chosen model
    at.text_input(key="playground.query").set_value(QUERY)
    run(at)
    assert models_asked(endpoint) == {MODEL.removeprefix("openai:")}
    assert QUERY in endpoint.texts()
    text = SAMPLE_PATH.read_text(encoding="utf-8")
    assert {c.text for c in chunkviz.chunk(text, "fixed_tokens")} <= set(endpoint.texts())  # column 1's chunks
    asked = len(endpoint.requests)
    # the Evaluate view: its run embeds with the chosen model, and says so
    at.segmented_control(key="view").set_value("Evaluate retrieval")
    run(at)
    at.button(key="eval.run").click()
    run(at)
    assert len(endpoint.requests) > asked and models_asked(endpoint) == {MODEL.removeprefix("openai:")}
    assert any(f"{MODEL} embeddings, exact cosine" in c.value for c in at.caption)
    (stored,) = at.session_state["_eval.runs"].values()
    assert stored.model == MODEL
    questions = load_questions(REPO / "chunkviz/sample_docs/questions/topic_shifts.jsonl", {SAMPLE: text})
    direct = evaluate({SAMPLE: text}, questions, [stored.results[0].configuration], k=5, model=MODEL)
    assert direct[0].summary() == stored.results[0].summary()
    asked = len(endpoint.requests)
    # Find the best: its search embeds with the chosen model; its command names it
    at.session_state["findbest.open"] = True
    run(at)
    at.multiselect(key="findbest.strategies").set_value(["fixed_chars"])  # chunks not embedded before
    at.multiselect(key="findbest.retrievers").set_value(["dense"])
    at.number_input(key="findbest.budget").set_value(1)
    run(at)
    at.button(key="findbest.run").click()
    run(at)
    (study,) = at.session_state["_findbest.studies"].values()
    assert study.chunkings == 1
    assert len(endpoint.requests) > asked and models_asked(endpoint) == {MODEL.removeprefix("openai:")}
    at.slider(key="findbest.recall").set_value(0)
    run(at)
    assert any(f"--model {MODEL}" in c.value for c in at.code if c.value.startswith("chunkviz eval"))
