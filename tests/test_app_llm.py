"""The app's LLM endpoint controls and the ``llm`` column, through AppTest, against the loopback
chat-completions server (tests/support/llm.py) and with no endpoint at all.

What a user must see: with no endpoint, what to set (the other columns still run); with one, how
many calls and tokens a column will cost before any call is made, the column only after they
allowed it, then the calls made vs cached; the API key never anywhere on the page.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest
from support.apptest import app_test
from support.llm import LoopbackLLM, Reply
from test_app import APP, run, sample_text
from test_app_views import column_html

import chunkviz
from chunkviz.llm.cache import clear_memory
from chunkviz.llm.session import use_llm

SECRET = "sk-test-never-shown-0123456789"
QUERY = {
    "doc": "field_station_handbook.md",
    "n": "2",
    "s0": "llm",
    "p0": json.dumps({"max_tokens": 400, "context_tokens": 32768}),
    "s1": "paragraphs",
}


@pytest.fixture
def endpoint(llm_server: LoopbackLLM, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> LoopbackLLM:  # noqa: F811
    monkeypatch.setenv("OPENAI_BASE_URL", llm_server.base_url)
    monkeypatch.setenv("CHUNKVIZ_LLM_MODEL", "loopback-model")
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path / "cache"))
    clear_memory()
    return llm_server


@pytest.fixture
def no_endpoint(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    for name in ("OPENAI_BASE_URL", "CHUNKVIZ_LLM_MODEL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path / "cache"))
    clear_memory()


def new_app(query: dict[str, str]) -> AppTest:
    at = app_test(APP, 120)
    for key, value in query.items():
        at.query_params[key] = value
    return run(at)


def page_text(at: AppTest) -> str:
    """Every piece of text the page shows (markdown, captions, alerts, inputs, the views' HTML)."""
    parts: list[str] = []
    for kind in ("markdown", "caption", "info", "warning", "error", "success", "text_input", "button", "header"):
        for element in at.get(kind):
            parts.append(str(getattr(element, "value", "")) + str(getattr(element, "label", "")))
    parts += [json.dumps(c.proto.json) for c in at.get("bidi_component")]
    return "\n".join(parts)


def test_no_endpoint_says_what_to_set_and_the_other_columns_run(no_endpoint: None) -> None:
    at = new_app(QUERY)
    sidebar = "\n".join(c.value for c in at.sidebar.caption)
    assert (
        "No LLM endpoint" in sidebar
        and "OPENAI_BASE_URL=http://localhost:11434/v1" in sidebar
        and "OPENAI_API_KEY=sk-..." in sidebar
    )
    errors = [e.value for e in at.error]
    assert any("no LLM endpoint is configured" in e for e in errors), errors
    text = sample_text("field_station_handbook.md")
    expected = chunkviz.chunk(text, "paragraphs")
    assert column_html(at, 1).count("data-chunk-index=") >= len(expected)  # the paragraphs column ran


def test_a_column_waits_for_consent_then_calls_once_and_then_never(endpoint: LoopbackLLM) -> None:
    at = new_app(QUERY)
    info = [i.value for i in at.info if "will make" in i.value]
    assert len(info) == 1 and "1 call (about " in info[0] and "loopback-model" in info[0]
    assert endpoint.calls == 0  # nothing is called before the user agrees
    next(b for b in at.button if b.label == "Call the model").click()
    run(at)
    assert endpoint.calls == 1
    text = sample_text("field_station_handbook.md")
    with use_llm():
        expected = chunkviz.chunk(text, "llm", max_tokens=400, context_tokens=32768)  # the same answer, from the cache
    assert endpoint.calls == 1
    html = column_html(at, 0)
    assert [f'data-start="{c.start}" data-end="{c.end}"' in html for c in expected] == [True] * len(expected)
    assert any("model calls: 1 call made" in c.value for c in at.caption), [c.value for c in at.caption]
    assert not [i for i in at.info if "will make" in i.value]  # the prompt is gone once allowed
    run(at)  # a rerun (any widget change) calls nothing and asks nothing
    assert endpoint.calls == 1 and not [i for i in at.info if "will make" in i.value]
    assert SECRET not in page_text(at)


def test_changing_the_model_in_the_sidebar_asks_again(endpoint: LoopbackLLM) -> None:
    at = new_app(QUERY)
    next(b for b in at.button if b.label == "Call the model").click()
    run(at)
    assert endpoint.calls == 1
    at.sidebar.text_input(key="llm.model").set_value("another-model")
    run(at)
    info = [i.value for i in at.info if "will make" in i.value]
    assert len(info) == 1 and "another-model" in info[0] and endpoint.calls == 1
    assert SECRET not in page_text(at)


def rewrite_or_passage(request: dict) -> Reply:
    user = request["messages"][-1]["content"]
    system = request["messages"][0]["content"]
    if "passage" in (system + user).lower() and "rewrite" not in (system + user).lower():
        return Reply("Each station has a cellular modem that sends the readings to the server every ten minutes.")
    return Reply("station readings transmission to server")


def docview_hits(at: AppTest) -> list[list[int]]:
    data = [json.loads(c.proto.json) for c in at.get("bidi_component")]
    view = next(d for d in data if "columns" in d)
    return [[h["index"] for h in column.get("hits", [])] for column in view["columns"]]


def test_query_forms_side_by_side_with_their_own_hits(endpoint: LoopbackLLM) -> None:
    endpoint.reset(fallback=rewrite_or_passage)
    at = new_app({"doc": "field_station_handbook.md", "n": "1", "s0": "paragraphs"})
    at.text_input(key="playground.query").set_value("How do the readings get to the server?")
    run(at)
    assert endpoint.calls == 0  # off by default: the raw query needs no model
    at.checkbox(key="playground.variants").check()
    run(at)
    assert endpoint.calls == 2  # one rewrite, one passage
    forms = [m.value for m in at.markdown if m.value.startswith("**") and m.value.endswith("**")]
    assert forms[-3:] == ["**raw query**", "**rewritten query**", "**hypothetical passage (HyDE)**"]
    captions = [c.value for c in at.caption]
    assert "station readings transmission to server" in captions
    assert any("cellular modem that sends the readings" in c for c in captions)
    tables = [d.value for d in at.dataframe if "strategy" in d.value.columns or "column" in d.value.columns]
    assert len(tables) >= 3, [list(d.value.columns) for d in at.dataframe]
    raw_hits = docview_hits(at)
    at.segmented_control(key="playground.drawn").set_value("hyde")
    run(at)
    assert endpoint.calls == 2  # cached
    assert len(docview_hits(at)[0]) == 5 and raw_hits[0]
    assert SECRET not in page_text(at)


def contexts(request: dict) -> Reply:
    return Reply("This part of the field station handbook is about the network.")


def test_contextual_retrieval_asks_then_draws_the_contexts_as_added_text(endpoint: LoopbackLLM) -> None:
    endpoint.reset(fallback=contexts)
    at = new_app({"doc": "field_station_handbook.md", "n": "1", "s0": "paragraphs"})
    at.sidebar.checkbox(key="enrich.contextual").check()
    run(at)
    text = sample_text("field_station_handbook.md")
    chunks = chunkviz.chunk(text, "paragraphs")
    embedded = [c for c in chunks if c.text.strip()]
    info = [i.value for i in at.info if "will make" in i.value]
    assert len(info) == 1 and f"{len(embedded)} calls" in info[0] and "contextual retrieval" in info[0]
    assert endpoint.calls == 0
    next(b for b in at.button if b.label == "Call the model").click()
    run(at)
    assert endpoint.calls == len(embedded)
    html = column_html(at, 0)
    assert html.count("This part of the field station handbook is about the network.") == len(embedded)
    assert [f'data-start="{c.start}" data-end="{c.end}"' in html for c in chunks] == [True] * len(
        chunks
    )  # spans unchanged
    at.sidebar.checkbox(key="enrich.contextual").uncheck()
    run(at)
    assert "This part of the field station handbook" not in column_html(at, 0)
    at.sidebar.checkbox(key="enrich.contextual").check()
    run(at)
    assert endpoint.calls == len(embedded) and not [i for i in at.info if "will make" in i.value]  # all cached
