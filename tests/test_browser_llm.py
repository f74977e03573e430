"""The LLM controls in a real browser: app.py served by Streamlit against a loopback
chat-completions server (tests/support/llm.py), and with no endpoint at all.

With an endpoint, an ``llm`` column shows what it will cost and waits; after "Call the model"
its chunks appear in the document view, cut where the model said, and the key is nowhere on
the page. With none, the sidebar and the column say what to set while the other column runs.
Screenshots go to ``test-output/``.
"""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path
from typing import Any, Iterator

import pytest
from support.browser import js, open_page, streamlit_server, wait_for
from support.caches import cache_root_sharing_vectors
from support.llm import LoopbackLLM, fast_settings, running_server

import chunkviz
from chunkviz.llm.session import use_llm

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parent.parent
OUTPUT = REPO / "test-output"
SECRET = "sk-browser-test-never-shown-42"
QUERY = {
    "doc": "field_station_handbook.md",
    "n": "2",
    "s0": "llm",
    "p0": json.dumps({"max_tokens": 400, "context_tokens": 32768}),
    "s1": "paragraphs",
}


@pytest.fixture(scope="module")
def loopback() -> Iterator[LoopbackLLM]:
    with running_server() as server:
        yield server


def _serve(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> Iterator[str]:
    env = {"CHUNKVIZ_CACHE_DIR": str(cache_root_sharing_vectors(tmp_path_factory)), **env}
    with streamlit_server(REPO / "app.py", tmp_path_factory.mktemp("streamlit"), env) as url:
        yield url


@pytest.fixture(scope="module")
def llm_app(loopback: LoopbackLLM, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from _serve(
        tmp_path_factory,
        {"OPENAI_BASE_URL": loopback.base_url, "CHUNKVIZ_LLM_MODEL": "loopback-model", "OPENAI_API_KEY": SECRET},
    )


@pytest.fixture(scope="module")
def no_llm_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from _serve(tmp_path_factory, {"OPENAI_BASE_URL": "", "CHUNKVIZ_LLM_MODEL": "", "OPENAI_API_KEY": ""})


def open_app(browser: Any, url: str) -> Any:
    return open_page(browser, f"{url}/?{urllib.parse.urlencode(QUERY)}")


def shot(page: Any, name: str) -> None:
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / name))


def column_chunks(page: Any, column: int) -> list[list[int]]:
    return js(page, f"return [...root.querySelectorAll('.cvd-box')][{column}] ? [...[...root.querySelectorAll('.cvd-box')][{column}]"
                    ".querySelectorAll('[data-chunk-index]')].map(e => [+e.dataset.start, +e.dataset.end]) : [];")  # fmt: skip


def test_an_llm_column_asks_first_then_draws_the_models_cuts(browser: Any, llm_app: str, loopback: LoopbackLLM) -> None:
    page = open_app(browser, llm_app)
    page.get_by_text("will make 1 call").wait_for()
    assert loopback.calls == 0
    wait_for(lambda: len(column_chunks(page, 1)) > 0, "the paragraphs column to be drawn")
    shot(page, "llm_consent.png")
    page.get_by_role("button", name="Call the model").click()
    wait_for(lambda: len(column_chunks(page, 0)) > 1, "the llm column to be drawn")
    assert loopback.calls == 1
    text = (REPO / "chunkviz/sample_docs" / "field_station_handbook.md").read_text(encoding="utf-8")
    spans = column_chunks(page, 0)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))  # the model's sections tile the document
    page.get_by_text("model calls: 1 call made").first.wait_for()
    assert page.get_by_text("will make 1 call").count() == 0  # the prompt is gone once allowed
    shot(page, "llm_column.png")
    assert SECRET not in page.content() and SECRET not in page.url
    with use_llm(fast_settings(loopback)):  # the same cuts, asked again in this process
        expected = chunkviz.chunk(text, "llm", max_tokens=400, context_tokens=32768)
    assert spans == [[c.start, c.end] for c in expected]
    assert page.page_errors == []
    page.close()


def test_without_an_endpoint_the_page_says_what_to_set(browser: Any, no_llm_app: str) -> None:
    page = open_app(browser, no_llm_app)
    page.get_by_text("no LLM endpoint is configured").first.wait_for()
    page.get_by_text("No LLM endpoint").first.wait_for()  # the sidebar's help
    wait_for(lambda: len(column_chunks(page, 1)) > 0, "the paragraphs column to be drawn")
    shot(page, "llm_no_endpoint.png")
    assert page.page_errors == []
    page.close()
