"""Contextual retrieval (chunkviz.llm.contextual) against the loopback chat-completions server:
exact contexts and metadata, the document window, calls counted at the server (a second run
makes none), failures never cached; a property over the window."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.chunking import assert_valid_chunking
from support.llm import LoopbackLLM, Reply, fast_settings, server_error
from support.texts import SETTINGS, examples

from chunkviz import Chunk, Reason, chunk
from chunkviz.document.model import as_document
from chunkviz.llm import LLMClient, LLMError
from chunkviz.llm.cache import clear_memory
from chunkviz.llm.client import count_tokens
from chunkviz.llm.contextual import (
    CONTEXT_PROMPT,
    GAP,
    ContextBudgetError,
    clean_context,
    contextualize,
    document_excerpt,
    estimate_contexts,
    plan_contexts,
    token_positions,
)
from chunkviz.text.tokenizers import get_tokenizer

DOC = "# Guide\n\nIntro text.\n\n## Auth\n\nUse tokens. They expire.\n"
CUTS = [0, 22, 31, len(DOC)]


def _flat(text: str, cuts: list[int]) -> list[Chunk]:
    structure = as_document(text).structure
    return [
        Chunk.from_span(text, k, a, b, Reason.UNIT_END, boundary=structure.boundary_at(b))
        for k, (a, b) in enumerate(zip(cuts[:-1], cuts[1:]))
    ]


def chunk_of(request: dict[str, Any]) -> str:
    user = request["messages"][-1]["content"]
    return re.search(r"<chunk>\n(.*)\n</chunk>", user, re.DOTALL).group(1)


def about_first_word(request: dict[str, Any]) -> Reply:
    """A context naming the chunk's first word (after '#' marks)."""
    word = chunk_of(request).lstrip("# \n").split()[0]
    return Reply(f"Context: This chunk is about {word}.\n")


@pytest.fixture(autouse=True)
def _fresh_memory() -> None:
    clear_memory()


@pytest.fixture
def client(llm_server: LoopbackLLM, tmp_path: Path) -> LLMClient:
    llm_server.reset(about_first_word)
    return LLMClient(fast_settings(llm_server), tmp_path / "cache")


def test_contexts_are_added_text_in_front_with_their_costs(client: LLMClient, llm_server: LoopbackLLM) -> None:
    chunks = _flat(DOC, CUTS)
    assert [c.text for c in chunks] == ["# Guide\n\nIntro text.\n\n", "## Auth\n\n", "Use tokens. They expire.\n"]
    got = contextualize(client, DOC, chunks, tokenizer="words")
    assert [c.added_text for c in got] == [
        "This chunk is about Guide.\n\n",
        "This chunk is about Auth.\n\n",
        "This chunk is about Use.\n\n",
    ]
    assert [(c.index, c.start, c.end, c.text, c.reason) for c in got] == [
        (c.index, c.start, c.end, c.text, c.reason) for c in chunks
    ]
    # words: the context is 5 words; the spans 4, 2 and 4 words
    assert [dict(c.metadata) for c in got] == [
        {
            "token_count": 4,
            "enriched_token_count": 9,
            "enriched_over_limit": False,
            "context_token_count": 5,
            "context_document": "whole",
        },
        {
            "token_count": 2,
            "enriched_token_count": 7,
            "enriched_over_limit": False,
            "context_token_count": 5,
            "context_document": "whole",
        },
        {
            "token_count": 4,
            "enriched_token_count": 9,
            "enriched_over_limit": False,
            "context_token_count": 5,
            "context_document": "whole",
        },
    ]
    assert llm_server.calls == 3
    (user,) = [r["messages"][-1]["content"] for r in llm_server.requests if chunk_of(r).startswith("# Guide")]
    assert user.startswith(
        f"<document>\n{DOC}\n</document>\n\nHere is a chunk of that document:\n<chunk>\n# Guide\n\nIntro text.\n\n\n</chunk>"
    )
    assert_valid_chunking(DOC, got, allow_added_text=True)


def test_a_second_identical_run_makes_no_call(client: LLMClient, llm_server: LoopbackLLM, tmp_path: Path) -> None:
    chunks = _flat(DOC, CUTS)
    first = contextualize(client, DOC, chunks)
    assert llm_server.calls == 3
    assert estimate_contexts(client, DOC, chunks).calls == 0
    clear_memory()  # a new process: the disk cache answers
    again = LLMClient(fast_settings(llm_server), tmp_path / "cache")
    estimate = estimate_contexts(again, DOC, chunks)
    assert (estimate.calls, estimate.cached) == (0, 3)
    assert contextualize(again, DOC, chunks) == first
    assert llm_server.calls == 3
    assert (again.stats.made, again.stats.cached) == (0, 3)


def test_only_embedded_non_blank_chunks_get_a_context(client: LLMClient, llm_server: LoopbackLLM) -> None:
    text = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu\n"
    chunks = chunk(text, "parent_child", parent_size=8, child_size=4, child_overlap=0, tokenizer="words")
    children = [c for c in chunks if c.parent is not None]
    estimate = estimate_contexts(client, text, chunks)
    assert estimate.calls == len(children) == 3
    got = contextualize(client, text, chunks)
    assert llm_server.calls == 3
    assert all(c.added_text == "" and "context_token_count" not in c.metadata for c in got if c.parent is None)
    assert [c.added_text for c in got if c.parent is not None] == [
        "This chunk is about alpha.\n\n",
        "This chunk is about epsilon.\n\n",
        "This chunk is about iota.\n\n",
    ]
    blank = [
        Chunk.from_span("a\n\n\n", 0, 0, 1, Reason.UNIT_END),
        Chunk.from_span("a\n\n\n", 1, 1, 4, Reason.END_OF_DOCUMENT),
    ]
    assert plan_contexts("a\n\n\n", blank).positions == (0,)


def test_a_context_that_pushes_the_chunk_over_the_embedding_limit_is_flagged(
    client: LLMClient, llm_server: LoopbackLLM
) -> None:
    minilm = get_tokenizer("minilm")
    text = " ".join(["word"] * 250) + "\n"
    other = " ".join(["other"] * 250) + "\n"
    assert minilm.count(text) + 2 <= 256 and minilm.count(other) + 2 <= 256
    long_context = " ".join(["context"] * 20)
    llm_server.reset(lambda request: Reply(long_context if chunk_of(request).startswith("word") else "short"))
    chunks = _flat(text + other, [0, len(text), len(text) + len(other)])
    got = contextualize(client, text + other, chunks)
    assert [c.metadata["enriched_over_limit"] for c in got] == [True, False]
    assert got[0].metadata["context_token_count"] == get_tokenizer("cl100k_base").count(long_context + "\n\n")


def test_clean_context() -> None:
    assert clean_context("Context:  It covers\n the login.  ") == "It covers the login."
    assert clean_context("Here is the context: X.") == "X."
    assert clean_context("   ") == ""


def test_an_empty_answer_is_asked_again_and_never_cached(client: LLMClient, llm_server: LoopbackLLM) -> None:
    llm_server.play(Reply("Context:   "), Reply(""))
    chunks = _flat(DOC, [0, len(DOC)])
    with pytest.raises(LLMError, match="gave no usable answer"):
        contextualize(client, DOC, chunks)
    assert llm_server.calls == 2
    assert estimate_contexts(client, DOC, chunks).calls == 1  # nothing cached
    assert contextualize(client, DOC, chunks)[0].added_text == "This chunk is about Guide.\n\n"


def test_a_failing_server_caches_nothing(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    llm_server.reset(server_error)
    client = LLMClient(fast_settings(llm_server, max_retries=1), tmp_path / "cache")
    chunks = _flat(DOC, CUTS)
    with pytest.raises(LLMError, match="HTTP 500"):
        contextualize(client, DOC, chunks)
    llm_server.reset(about_first_word)
    before = llm_server.calls
    assert estimate_contexts(client, DOC, chunks).calls == 3
    contextualize(client, DOC, chunks)
    assert llm_server.calls - before == 3


def test_lone_surrogates_are_sent_as_replacement_characters(client: LLMClient, llm_server: LoopbackLLM) -> None:
    text = "Odd \ud800 text.\n\nMore text.\n"
    chunks = _flat(text, [0, 13, len(text)])
    got = contextualize(client, text, chunks)
    assert got[0].text == "Odd \ud800 text.\n\n"  # the span keeps the character
    assert all("Odd \ufffd text." in r["messages"][-1]["content"] for r in llm_server.requests)


# ----------------------------------------------------------------------------- the document window
WORDS = "word " * 3000  # cl100k: "word" then " word" x 2999; token k >= 1 starts at 5k - 1


def test_a_long_document_is_shown_as_its_opening_and_a_window_around_the_chunk() -> None:
    positions = token_positions(WORDS)
    assert len(positions) - 1 == 3001  # the last token is the trailing space
    # budget 400 - 8 for the gap marks: opening 98 tokens, window 294 around the chunk's tokens
    # 1400..1420 (21 tokens): 136 before, 137 after
    excerpt = document_excerpt(WORDS, 7000, 7100, 400, positions)
    assert excerpt.ranges == ((0, positions[98]), (positions[1264], positions[1558]))
    assert excerpt.ranges == ((0, 489), (6319, 7789))
    assert excerpt.text == WORDS[:489] + GAP + WORDS[6319:7789] + GAP
    assert excerpt.describe(len(WORDS)) == "[0:489] + [6319:7789] of 15000 characters"
    # near the start the window joins the opening; near the end it ends at the end
    assert document_excerpt(WORDS, 10, 50, 400, positions).ranges == ((0, positions[392]),)
    assert document_excerpt(WORDS, 14900, 15000, 400, positions).ranges == ((0, 489), (positions[3001 - 294], 15000))
    # a document that fits is shown whole
    assert document_excerpt(WORDS, 0, 10, 3001, positions).whole


def test_plan_windows_long_documents_into_the_model_context() -> None:
    chunks = _flat(WORDS, [0, 5000, 10000, 15000])
    plan = plan_contexts(WORDS, chunks, context_tokens=2048)
    assert len(plan.inputs) == 3
    for inputs, shown in zip(plan.inputs, plan.shown):
        assert shown != "whole"
        assert count_tokens(CONTEXT_PROMPT.messages(inputs)) <= 2048 - 256  # room kept for the answer
        assert inputs["chunk"].endswith(" …")  # a 1000-token chunk is shortened to half the budget
    with pytest.raises(ContextBudgetError, match="leaves no room"):
        plan_contexts(WORDS, chunks, context_tokens=300)


@settings(max_examples=examples(150), **SETTINGS)
@given(
    text=st.lists(st.sampled_from(["a", "b ", "é", "\n", "😀", " ", "xyz ", "word "]), min_size=1, max_size=300).map(
        "".join
    ),
    data=st.data(),
    budget=st.integers(12, 120),
)
def test_the_window_holds_the_chunk_and_stays_in_budget(text: str, data: st.DataObject, budget: int) -> None:
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    positions = token_positions(text)
    excerpt = document_excerpt(text, start, end, budget, positions)
    ranges = excerpt.ranges
    assert all(0 <= a < b <= len(text) for a, b in ranges)
    assert all(b1 < a2 for (_, b1), (a2, _) in zip(ranges, ranges[1:]))  # disjoint, in order, a gap between
    if excerpt.whole:
        assert excerpt.text == text and len(positions) - 1 <= budget
        return
    shown_tokens = sum(1 for p in positions[:-1] if any(a <= p < b for a, b in ranges))
    assert shown_tokens <= budget
    gaps = [GAP] if ranges[0][0] > 0 else []
    expected = "".join(gaps) + GAP.join(text[a:b] for a, b in ranges) + (GAP if ranges[-1][1] < len(text) else "")
    assert excerpt.text == expected
    opening = int((budget - 8) * 0.25)
    chunk_tokens = sum(1 for p in positions[:-1] if start <= p < end) + 1
    if chunk_tokens <= (budget - 8) - opening - 1:  # a chunk that fits the window is shown whole
        assert any(a <= start and end <= b for a, b in ranges)


# ----------------------------------------------------------------------------- the CLI
def test_cli_eval_enrich_contextual_compares_the_same_chunks(
    capsys: pytest.CaptureFixture[str],
    llm_endpoint_env: LoopbackLLM,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import json

    import numpy as np

    import chunkviz.evaluation.evaluate as engine
    from chunkviz.cli.commands import main

    def encode(texts: Any, progress: Any = None) -> Any:
        vocabulary = ["guide", "auth", "tokens", "expire"]
        return np.asarray([[t.lower().count(v) for v in vocabulary] + [0.01] for t in texts], dtype=np.float32)

    monkeypatch.setattr(engine, "default_encoder", lambda model, role="passage": encode)
    llm_endpoint_env.reset(about_first_word)
    doc = tmp_path / "guide.md"
    doc.write_text(DOC, encoding="utf-8")
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        json.dumps(
            {"question": "when do tokens expire", "references": [{"document": "guide.md", "excerpt": "They expire."}]}
        )
        + "\n"
    )
    argv = [
        "eval",
        str(doc),
        "--questions",
        str(questions),
        "-s",
        "paragraphs",
        "-p",
        "min_tokens=1",
        "--enrich",
        "contextual",
        "--json",
        "-",
    ]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert [(d["label"], d["enrich"], d["chunks"]) for d in data] == [
        ("paragraphs(min_tokens=1)", None, 4),
        ("paragraphs(min_tokens=1) [enrich: contextual]", "contextual", 4),
    ]
    assert [[(h["start"], h["end"]) for h in d["questions"][0]["retrieved"]] for d in data][0] == [
        [(h["start"], h["end"]) for h in d["questions"][0]["retrieved"]] for d in data
    ][1]  # the same spans are ranked
    assert "contextual retrieval for paragraphs(min_tokens=1) [enrich: contextual]" in err and ": 4 calls" in err
    assert (
        llm_endpoint_env.calls == 4
    )  # one per paragraph: '# Guide', 'Intro text.', '## Auth', 'Use tokens. They expire.'
    clear_memory()
    assert main(argv) == 0
    again, err = capsys.readouterr()
    assert (again, llm_endpoint_env.calls) == (out, 4)
    assert "llm: 0 calls made, 4 from the cache" in err
