"""What an evaluation's LLM techniques cost before any call (chunkviz/evaluation/costs.py).

The client points at the loopback chat-completions server (``llm_server``); estimating never
calls it (its request count stays 0), and answers a real run cached are counted as cached. The
document's chunkings are small enough to count by hand: ``fixed_tokens`` of 4 words over the
14 words of ``TEXT`` (``#`` is a word) gives 4 chunks; ``headings`` gives its 2 sections.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from support.llm import LoopbackLLM, fast_settings

from chunkviz.evaluation.costs import TechniqueCost, answer_calls_upper_bound, technique_costs, total
from chunkviz.evaluation.evaluate import Configuration
from chunkviz.llm.client import CallEstimate, LLMClient
from chunkviz.llm.queries import query_texts

TEXT = "# Alpha\n\none two three four five.\n\n# Beta\n\nsix seven eight nine ten.\n"
FIXED = Configuration("fixed_tokens", {"chunk_size": 4, "overlap": 0}, tokenizer="words")
SECTIONS = Configuration("headings", {}, tokenizer="words")


@dataclass(frozen=True)
class Asked:
    question: str


QUESTIONS = [Asked("who counts to five?"), Asked("what follows nine?"), Asked("who counts to five?")]


@pytest.fixture
def client(llm_server: LoopbackLLM, tmp_path: Path) -> LLMClient:
    return LLMClient(fast_settings(llm_server), tmp_path / "llm")


def costs(client: LLMClient, *configurations: Configuration) -> list[tuple[str, int, int]]:
    return [
        (c.what, c.estimate.calls, c.estimate.cached) for c in technique_costs(TEXT, QUESTIONS, configurations, client)
    ]


def test_configurations_without_a_model_cost_nothing(client: LLMClient, llm_server: LoopbackLLM) -> None:
    plain = [
        FIXED,
        SECTIONS,
        Configuration("fixed_tokens", {"chunk_size": 4}, enrich="metadata", summaries="extractive"),
    ]
    assert technique_costs(TEXT, QUESTIONS, plain, client) == []
    assert total([]) == CallEstimate(0, 0, 0)
    assert llm_server.calls == 0


@pytest.mark.parametrize("mode", ["rewrite", "hyde"])
def test_query_techniques_ask_once_per_distinct_question(client: LLMClient, mode: str) -> None:
    configurations = [
        Configuration("fixed_tokens", {"chunk_size": 4}, query=mode),
        Configuration("headings", query=mode),
    ]
    assert costs(client, *configurations) == [(f"{mode} of 3 questions", 2, 0)]  # the repeated question once


def test_both_query_modes_are_counted_apart(client: LLMClient) -> None:
    assert costs(client, Configuration("headings", query="rewrite"), Configuration("headings", query="hyde")) == [
        ("rewrite of 3 questions", 2, 0),
        ("hyde of 3 questions", 2, 0),
    ]


def test_contexts_are_one_call_per_searched_chunk_of_each_chunking(client: LLMClient) -> None:
    contextual = Configuration("fixed_tokens", FIXED.params, tokenizer="words", enrich="contextual")
    twin = Configuration("fixed_tokens", FIXED.params, tokenizer="words", enrich="contextual", placement="first_find")
    other = Configuration("fixed_tokens", {"chunk_size": 6, "overlap": 0}, tokenizer="words", enrich="contextual")
    assert costs(client, contextual, twin, other) == [
        ("contexts of 4 chunks (fixed_tokens)", 4, 0),  # the twin shares them
        ("contexts of 3 chunks (fixed_tokens)", 3, 0),  # 14 words in chunks of 6
    ]


def test_llm_summaries_are_one_call_per_section(client: LLMClient) -> None:
    summaries = Configuration("headings", tokenizer="words", summaries="llm")
    both = Configuration("headings", tokenizer="words", summaries="llm", enrich="contextual", query="hyde")
    assert costs(client, summaries) == [("summaries of the sections (headings)", 2, 0)]
    assert costs(client, both) == [
        ("hyde of 3 questions", 2, 0),
        ("contexts of 2 chunks (headings)", 2, 0),
        ("summaries of the sections (headings)", 2, 0),
    ]


def test_estimating_calls_nothing_and_cached_answers_count_as_cached(
    client: LLMClient, llm_server: LoopbackLLM
) -> None:
    rewrite = Configuration("headings", query="rewrite")
    before = technique_costs(TEXT, QUESTIONS, [rewrite], client)
    assert llm_server.calls == 0
    assert before[0].estimate.input_tokens > 0
    query_texts(client, ["who counts to five?"], "rewrite")  # one answer, now cached
    assert llm_server.calls == 1
    after = technique_costs(TEXT, QUESTIONS, [rewrite], client)
    assert (after[0].estimate.calls, after[0].estimate.cached) == (1, 1)
    assert 0 < after[0].estimate.input_tokens < before[0].estimate.input_tokens
    assert llm_server.calls == 1


def test_total_adds_the_costs_up() -> None:
    parts = [TechniqueCost("a", CallEstimate(2, 1, 300)), TechniqueCost("b", CallEstimate(3, 0, 50))]
    assert total(parts) == CallEstimate(5, 1, 350)


@pytest.mark.parametrize(
    ("configurations", "questions", "judge", "bound"),
    [(3, 4, False, 12), (3, 4, True, 24), (0, 9, True, 0), (1, 1, False, 1)],
)
def test_answer_calls_upper_bound(configurations: int, questions: int, judge: bool, bound: int) -> None:
    assert answer_calls_upper_bound(configurations, questions, judge) == bound


@pytest.mark.parametrize(
    ("configuration", "expected"),
    [
        (Configuration("headings"), False),
        (Configuration("headings", enrich="metadata", summaries="extractive"), False),
        (Configuration("headings", enrich="contextual"), True),
        (Configuration("headings", query="rewrite"), True),
        (Configuration("headings", query="hyde"), True),
        (Configuration("headings", summaries="llm"), True),
        (Configuration("llm"), True),  # the strategy declares that it calls a model
    ],
)
def test_uses_llm(configuration: Configuration, expected: bool) -> None:
    assert configuration.uses_llm is expected
