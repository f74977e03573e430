"""What a strategy declares is all the app needs: a throwaway strategy, registered here, that calls
a (loopback) model and has a tuning analysis gets the app's confirmation prompt before its calls
and the Tune view, with no other edit (issue 19, item 1).

The model is tests/support/llm.py's chat-completions server on 127.0.0.1; the strategy asks it once
per window of words (answers cached) and cuts where a window's score is below ``threshold``, the
parameter its tuning panel's control sets.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, Sequence

import pytest
from streamlit.testing.v1 import AppTest
from support.apptest import app_test
from support.llm import LoopbackLLM
from test_app import APP, TUNE, errors, run, send_component_state, set_widget, widget

from chunkviz.core.explain import Explanation, ExplanationFigure
from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import Reason
from chunkviz.document.model import Document
from chunkviz.llm.cache import clear_memory
from chunkviz.llm.client import CallEstimate, Prompt
from chunkviz.llm.session import active_session
from chunkviz.splitting import Piece, to_chunks
from chunkviz.strategies.base import TuningAnalysis, get_strategy, param, temporary_strategy
from chunkviz.text.tokenizers import Tokenizer

NAME = "asked_windows_test"
PROMPT = Prompt(NAME, 1, "You score passages.", "Score this passage from 0 to 1: {text}")
TUNING = "chunkviz_tuning"
QUERY = {"doc": "api_guide.md", "n": "1", "s0": NAME}


# ----------------------------------------------------------------------------- the one definition


@dataclass(frozen=True)
class AskedParams:
    words: int = param(120, "words per window (one model call each)", minimum=10, maximum=10_000)
    threshold: float = param(0.5, "cut after a window whose score is below this", minimum=0.0, maximum=1.0)


def windows(document: Document, params: AskedParams) -> list[tuple[int, int]]:
    """Spans of ``params.words`` words each, covering the text."""
    text = document.text
    starts = [i for i, ch in enumerate(text) if not ch.isspace() and (i == 0 or text[i - 1].isspace())]
    cuts = [0, *starts[params.words :: params.words], len(text)]
    return [(a, b) for a, b in zip(cuts[:-1], cuts[1:]) if b > a]


def inputs(document: Document, params: AskedParams) -> list[Mapping[str, str]]:
    return [{"text": document.text[a:b]} for a, b in windows(document, params)]


def estimate(document: Document, params: AskedParams, tokenizer: Tokenizer) -> CallEstimate:
    return active_session().client().estimate(PROMPT, inputs(document, params))


def scores(document: Document, params: AskedParams) -> list[float]:
    """One call per window (the loopback model's answers are not numbers: the score is their length's parity)."""
    client = active_session().client()
    return [float(len(client.complete(PROMPT, given)) % 2) for given in inputs(document, params)]


@dataclass(frozen=True)
class AskedExplanation(Explanation):
    spans: tuple[tuple[int, int], ...]
    scores: tuple[float, ...]
    threshold: float

    def summary(self) -> str:
        return f"{len(self.spans)} windows scored by the model · threshold {self.threshold}"

    def figures(self, chunks: Sequence[Chunk]) -> list[ExplanationFigure]:
        return []

    def to_dict(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "threshold": self.threshold}


def explain(document: Document, params: AskedParams, tokenizer: Tokenizer) -> AskedExplanation:
    return AskedExplanation(tuple(windows(document, params)), tuple(scores(document, params)), params.threshold)


def asked_windows(document: Document, params: AskedParams, tokenizer: Tokenizer) -> list[Chunk]:
    explanation = explain(document, params, tokenizer)
    cuts = [b for (_, b), s in zip(explanation.spans, explanation.scores) if s < params.threshold]
    if not cuts or cuts[-1] != len(document.text):
        cuts.append(len(document.text))
    return to_chunks(document, [Piece(a, b, Reason.SIZE_LIMIT) for a, b in zip([0, *cuts[:-1]], cuts)])


def panel(explanation: AskedExplanation, chunks: Sequence[Chunk]) -> dict[str, Any]:
    """The panel's payload: each window's score at its end, the threshold and its control."""
    return {
        "kind": "score",
        "amount": explanation.threshold,
        "control": {"param": "threshold", "label": "score s", "min": 0.0, "max": 1.0, "step": 0.05},
        "pairs": {"x": [b for _, b in explanation.spans], "y": list(explanation.scores)},
        "chunks": [[c.start, c.end] for c in chunks],
    }


@pytest.fixture
def asked_strategy() -> Iterator[None]:
    with temporary_strategy(
        NAME,
        "Windows of words the model scores (a strategy defined in a test).",
        AskedParams,
        asked_windows,
        explain=explain,
        estimate=estimate,
        tuning=TuningAnalysis(panel, lambda params: "threshold", what="score"),
    ):
        yield


@pytest.fixture
def endpoint(llm_server: LoopbackLLM, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> LoopbackLLM:  # noqa: F811
    monkeypatch.setenv("OPENAI_BASE_URL", llm_server.base_url)
    monkeypatch.setenv("CHUNKVIZ_LLM_MODEL", "loopback-model")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-declarations")
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr("sys.argv", [str(APP)])
    clear_memory()
    return llm_server


def panel_data(at: AppTest) -> dict[str, Any]:
    (element,) = [c for c in at.get("bidi_component") if c.proto.component_name == TUNING]
    return json.loads(element.proto.json)


# ----------------------------------------------------------------------------- picked up by the app


def test_the_declarations_are_registered() -> None:
    with temporary_strategy(NAME, "plain", AskedParams, asked_windows):
        assert not get_strategy(NAME).calls_model and get_strategy(NAME).tuning is None
    with pytest.raises(ValueError, match="explain"):
        with temporary_strategy(NAME, "no explain", AskedParams, asked_windows, tuning=TuningAnalysis(panel, str)):
            pass


def test_the_app_asks_before_its_calls_and_tunes_it(asked_strategy: None, endpoint: LoopbackLLM) -> None:
    at = app_test(APP, 120)
    for key, value in QUERY.items():
        at.query_params[key] = value
    run(at)
    spec = get_strategy(NAME)
    assert spec.calls_model and spec.describe()["calls_model"] and spec.describe()["tuning"]
    prompts = [i.value for i in at.info if "will make" in i.value]
    assert len(prompts) == 1 and f"({NAME} chunking)" in prompts[0] and "loopback-model" in prompts[0], prompts
    assert endpoint.calls == 0, "nothing is called before the user agrees"
    next(b for b in at.button if b.label == "Call the model").click()
    run(at)
    called = endpoint.calls
    assert called >= 2 and not errors(at), errors(at)
    assert not [i for i in at.info if "will make" in i.value]
    assert [b for b in at.button if b.key == "col0.tune"], "its details offer the Tune view"

    set_widget(at, "view", TUNE)
    assert not errors(at), errors(at)
    data = panel_data(at)["tuning"]
    assert data["kind"] == "score" and data["amount"] == 0.5 and data["control"]["param"] == "threshold"
    send_component_state(at, TUNING, {"amount": 0.25})
    assert widget(at, f"col0.{NAME}.threshold").value == 0.25, "the sidebar control follows the panel"
    assert panel_data(at)["tuning"]["amount"] == 0.25
    assert endpoint.calls == called, "the answers are cached: tuning calls nothing again"
