"""The ``llm`` strategy against a real loopback chat-completions server (tests/support/llm.py).

Each scripted case of issue 11 gives a valid chunking or a clear message; nothing partial is
cached; a second identical run makes zero HTTP calls (counted at the server).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.chunking import assert_valid_chunking
from support.llm import (
    LoopbackLLM,
    Reply,
    empty,
    fast_settings,
    good_json,
    malformed_json,
    numbered_sentences,
    out_of_range_unsorted,
    rate_limited,
    running_server,
    sections_reply,
    server_error,
    slow,
)

from chunkviz import chunk
from chunkviz.llm import LLMError, LLMNotConfigured, use_llm
from chunkviz.llm.cache import AnswerCache, clear_memory
from chunkviz.llm.client import ANSWER_ATTEMPTS
from chunkviz.strategies import get_strategy
from chunkviz.strategies.llm import MODEL_CUT, LLMParams, estimate_llm, explain_llm
from chunkviz.text.tokenizers import get_tokenizer

DOC = (
    "# Intro\n\nThis is the first part. It has two sentences.\n\n"
    "# Method\n\nWe did things. Then more things.\n\n"
    "# End\n\nDone here."
)
# sentences: 1 "# Intro", 2-3 intro, 4 "# Method", 5-6, 7 "# End", 8
SECTIONS = [
    "# Intro\n\nThis is the first part. It has two sentences.\n\n",
    "# Method\n\nWe did things. Then more things.\n\n",
    "# End\n\nDone here.",
]


@pytest.fixture(autouse=True)
def _fresh_memory() -> None:
    clear_memory()


def run(server: LoopbackLLM, cache: Path, text: str = DOC, **params):
    """Chunk ``text`` with the llm strategy in a session on ``server``; (chunks, session)."""
    with use_llm(fast_settings(server), cache_dir=cache) as session:
        chunks = chunk(text, "llm", **params)
    return chunks, session


def texts(chunks) -> list[str]:
    return [c.text for c in chunks]


def test_the_models_section_starts_become_the_cuts(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    llm_server.play(good_json([4, 7]))
    chunks, session = run(llm_server, tmp_path)
    assert texts(chunks) == SECTIONS
    assert [c.reason for c in chunks] == [MODEL_CUT, MODEL_CUT, "end_of_document"]
    assert [c.metadata["sentences"] for c in chunks] == [[0, 3], [3, 6], [6, 8]]
    assert all(c.metadata["cut_by"] == "llm" and "llm_repairs" not in c.metadata for c in chunks)
    assert_valid_chunking(DOC, chunks)
    assert llm_server.calls == 1 and (session.stats.made, session.stats.cached) == (1, 0)
    prompt = llm_server.requests[0]["messages"][1]["content"]
    assert numbered_sentences(llm_server.requests[0])[:4] == [
        "# Intro",
        "This is the first part.",
        "It has two sentences.",
        "# Method",
    ]
    assert "Below are the sentences of a document," in prompt


@pytest.mark.parametrize(
    ("script", "repairs"),
    [
        (malformed_json([4, 7]), ["not valid JSON: read the numbers from the text"]),
        (
            out_of_range_unsorted([4, 7]),
            ["dropped numbers out of range 1..8: 10000, 0", "sorted the numbers", "removed repeated number: 4"],
        ),
    ],
    ids=["malformed_json", "out_of_range_unsorted"],
)
def test_repaired_answers_give_the_same_cuts_and_say_what_was_repaired(
    llm_server: LoopbackLLM, tmp_path: Path, script, repairs: list[str]
) -> None:
    llm_server.play(script)
    chunks, _ = run(llm_server, tmp_path)
    assert texts(chunks) == SECTIONS
    assert all(c.metadata["llm_repairs"] == repairs for c in chunks)
    llm_server.play(fallback=server_error)  # the explanation reads the cached answer: no call
    with use_llm(fast_settings(llm_server), cache_dir=tmp_path):
        summary = explain_llm(DOC, LLMParams(), get_tokenizer("cl100k_base")).summary()
    assert summary.endswith("repaired: answer: " + ", ".join(repairs))
    assert llm_server.calls == 1


def test_an_empty_answer_is_a_clear_error_and_nothing_is_cached(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    llm_server.play(empty(ANSWER_ATTEMPTS))
    with pytest.raises(
        LLMError, match=r"gave no usable answer to prompt 'llm_chunking' in 2 attempts: the last answer was empty"
    ):
        run(llm_server, tmp_path)
    assert llm_server.calls == ANSWER_ATTEMPTS
    assert AnswerCache(tmp_path).count() == 0
    llm_server.play(good_json([4, 7]))
    assert texts(run(llm_server, tmp_path)[0]) == SECTIONS


def test_an_answer_without_numbers_is_asked_again_then_a_clear_error(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    llm_server.play(fallback=lambda request: Reply("I think the document is fine as it is."))
    with pytest.raises(LLMError, match=r"the last answer was not usable \('I think the document is fine as it is.'\)"):
        run(llm_server, tmp_path)
    assert llm_server.calls == ANSWER_ATTEMPTS and AnswerCache(tmp_path).count() == 0


def test_a_deeply_nested_answer_is_asked_again_then_a_clear_error(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    """Issue 36 item 17: 100,000 nested lists from the model ended the run in a RecursionError
    ("this is a bug"); now the answer is unusable like any other, asked again, then LLMError."""
    deep = "[" * 100_000 + "]" * 100_000
    llm_server.play(fallback=lambda request: Reply(deep))
    with pytest.raises(
        LLMError, match=r"gave no usable answer to prompt 'llm_chunking' in 2 attempts: the last answer was not usable"
    ):
        run(llm_server, tmp_path)
    assert llm_server.calls == ANSWER_ATTEMPTS and AnswerCache(tmp_path).count() == 0


def test_a_slow_answer_past_the_timeout_is_a_clear_error(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    llm_server.play(slow(1.0, times=3))
    with use_llm(fast_settings(llm_server, timeout=0.2, max_retries=1), cache_dir=tmp_path):
        with pytest.raises(
            LLMError, match=r"did not answer within 0.2 s after 2 attempts; raise the timeout \(--llm-timeout\)"
        ):
            chunk(DOC, "llm")
    assert llm_server.calls == 2 and AnswerCache(tmp_path).count() == 0


def test_429_then_success_chunks_normally(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    llm_server.play(rate_limited(sections_reply([4, 7]), retry_after=0.01))
    chunks, session = run(llm_server, tmp_path)
    assert texts(chunks) == SECTIONS
    assert llm_server.calls == 2 and session.stats.retries == 1


def test_500_forever_is_a_clear_error_and_nothing_is_cached(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    llm_server.play(fallback=server_error)
    with pytest.raises(LLMError, match=r"failed with HTTP 500: model crashed after 3 attempts"):
        run(llm_server, tmp_path)
    assert llm_server.calls == 3  # max_retries 2
    assert AnswerCache(tmp_path).count() == 0


def test_a_second_identical_run_makes_no_call(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    text = "\n\n".join(f"# Part {i}\n\nSentence one of part {i}. Sentence two of part {i}." for i in range(40))
    first, session = run(llm_server, tmp_path, text, context_tokens=1024)
    calls = llm_server.calls
    assert calls > 1 and session.stats.made == calls
    clear_memory()  # as a new process: the disk cache only
    second, session = run(llm_server, tmp_path, text, context_tokens=1024)
    assert llm_server.calls == calls
    assert (session.stats.made, session.stats.cached) == (0, calls)
    assert second == first


def test_without_an_endpoint_the_error_says_what_to_set(monkeypatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "CHUNKVIZ_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(LLMNotConfigured, match="OPENAI_BASE_URL=http://localhost:11434/v1 CHUNKVIZ_LLM_MODEL=llama3.1"):
        chunk(DOC, "llm")
    with pytest.raises(LLMNotConfigured):
        chunk("One sentence only.", "llm")  # even when no call would be needed


def test_sections_over_max_tokens_are_split_at_sentences_and_flagged(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    llm_server.play(good_json([4, 7]))
    chunks, _ = run(llm_server, tmp_path, max_tokens=8)
    assert_valid_chunking(DOC, chunks, limit=8, tokenizer="cl100k_base")
    split = [c for c in chunks if c.metadata.get("llm_section_split")]
    assert split and all(c.metadata["split_unit"] for c in split)
    # the model's cuts are still cuts; the inner ones are size_limit
    assert {c.end for c in chunks} >= {len(SECTIONS[0]), len(SECTIONS[0]) + len(SECTIONS[1])}
    assert {str(c.reason) for c in chunks} <= {str(MODEL_CUT), "size_limit", "end_of_document"}
    assert any(c.reason == "size_limit" for c in split)


def test_long_documents_go_in_overlapping_windows_whose_proposals_merge(
    llm_server: LoopbackLLM, tmp_path: Path
) -> None:
    text = "\n\n".join(
        f"# Topic {i}\n\n" + " ".join(f"Statement {j} about topic {i} is here." for j in range(6)) for i in range(30)
    )
    whole, _ = run(llm_server, tmp_path, text, context_tokens=200_000)
    assert llm_server.calls == 1
    llm_server.reset()
    windowed, _ = run(llm_server, tmp_path, text, context_tokens=1024, overlap_sentences=8)
    windows = llm_server.calls
    assert windows > 2
    assert sorted(r["messages"][1]["content"].split(",")[0] for r in llm_server.requests) == sorted(
        f"Below are the sentences of part {k} of {windows} of a document" for k in range(1, windows + 1)
    )
    # every heading starts a section whichever window saw it
    assert [c.span for c in windowed] == [c.span for c in whole]
    assert [c.text.split("\n")[0] for c in windowed] == [f"# Topic {i}" for i in range(30)]
    # each section start was decided by the window whose core holds it
    with use_llm(fast_settings(llm_server), cache_dir=tmp_path):
        cores = [
            w["decides"]
            for w in explain_llm(text, LLMParams(context_tokens=1024), get_tokenizer("cl100k_base")).to_dict()[
                "windows"
            ]
        ]
    assert len(cores) == windows and llm_server.calls == windows  # explaining again is served from the cache
    for c in windowed[1:]:
        start, end = cores[c.metadata["llm_window"]]
        assert start <= c.metadata["sentences"][0] < end


def test_estimate_and_the_sessions_hooks(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    text = "\n\n".join(f"# Part {i}\n\nSentence one of part {i}. Sentence two of part {i}." for i in range(40))
    params = LLMParams(context_tokens=1024)
    tokenizer = get_tokenizer("cl100k_base")
    announced, progress = [], []
    with use_llm(
        fast_settings(llm_server),
        cache_dir=tmp_path,
        progress=lambda d, t: progress.append((d, t)),
        on_estimate=lambda what, e: announced.append((what, e)),
    ) as session:
        before = estimate_llm(text, params, tokenizer)
        assert before.calls > 1 and before.cached == 0 and before.input_tokens > 1000
        assert llm_server.calls == 0
        chunk(text, "llm", context_tokens=1024)
        assert estimate_llm(text, params, tokenizer).calls == 0
    assert announced == [("llm chunking of document", before)]  # the Document's default name
    assert progress[0] == (0, before.calls) and progress[-1] == (before.calls, before.calls)
    assert session.stats.made == before.calls == llm_server.calls


def test_prepare_asks_up_front_then_chunking_is_served_from_the_cache(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    spec = get_strategy("llm")
    seen = []
    with use_llm(fast_settings(llm_server), cache_dir=tmp_path) as session:
        spec.prepare(DOC, spec.make_params({}), get_tokenizer("cl100k_base"), lambda d, t: seen.append((d, t)))
        assert llm_server.calls == 1 and seen[-1] == (1, 1)
        chunk(DOC, "llm")
    assert llm_server.calls == 1 and (session.stats.made, session.stats.cached) == (1, 1)


def test_explanation_to_dict(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    llm_server.play(out_of_range_unsorted([4, 7]))
    with use_llm(fast_settings(llm_server), cache_dir=tmp_path):
        explanation = explain_llm(DOC, LLMParams(), get_tokenizer("cl100k_base"))
    assert json.loads(json.dumps(explanation.to_dict())) == {
        "model": "loopback-model",
        "sentences": 8,
        "context_tokens": 4096,
        "calls": 1,
        "windows": [
            {
                "sentences": [0, 8],
                "decides": [0, 8],
                "proposed": [3, 6],
                "repairs": [
                    "dropped numbers out of range 1..8: 10000, 0",
                    "sorted the numbers",
                    "removed repeated number: 4",
                ],
            }
        ],
        "section_starts": [3, 6],
        "split_sections": 0,
    }
    assert explanation.summary() == (
        "model loopback-model · 8 sentences · 1 window of at most 4,096 tokens (1 call) · 2 section starts (2 proposed) · "
        "repaired: answer: dropped numbers out of range 1..8: 10000, 0, sorted the numbers, removed repeated number: 4"
    )
    assert explanation.figures(explanation.chunks) == []


def test_blank_and_one_sentence_documents_need_no_call(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    assert run(llm_server, tmp_path, "  \n\n ")[0] == []
    one, _ = run(llm_server, tmp_path, "Just one sentence here.")
    assert texts(one) == ["Just one sentence here."]
    assert llm_server.calls == 0


# ---- property: whatever the model answers, the chunks tile the text and respect max_tokens ---------------
TEXTS = [
    DOC,
    "\n\n".join(
        f"## Section {i}\n\n"
        + " ".join(f"Line {j} of {i} says something longer than before." for j in range(i % 5 + 1))
        for i in range(25)
    ),
    "One. Two three. Four five six.\nSeven eight nine ten. " * 12,
    "Ünïcödé sentences 😀 here. 日本語の文です。 Another one follows! Does it? Yes.\n\n" * 6,
]


@pytest.fixture(scope="module")
def shared_server():
    with running_server() as server:
        yield server


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=st.sampled_from(TEXTS),
    indices=st.lists(st.one_of(st.integers(-3, 400), st.sampled_from(["2", "x", None, 3.0])), max_size=40),
    max_tokens=st.sampled_from([4, 16, 64, 512]),
    context_tokens=st.sampled_from([1024, 4096]),
)
def test_any_scripted_indices_give_exact_spans_that_tile_and_fit(
    shared_server: LoopbackLLM, text: str, indices: list, max_tokens: int, context_tokens: int
) -> None:
    clear_memory()
    shared_server.reset(fallback=lambda request: sections_reply(indices))
    with tempfile.TemporaryDirectory() as cache:
        chunks, _ = run(shared_server, Path(cache), text, max_tokens=max_tokens, context_tokens=context_tokens)
    assert_valid_chunking(text, chunks, limit=max_tokens, tokenizer="cl100k_base", strictly_advancing=True)
    assert chunks[0].start == 0 and chunks[-1].end == len(text)
    assert all(a.end == b.start for a, b in zip(chunks, chunks[1:]))  # a tiling: no gap, no overlap
    assert all(c.metadata["cut_by"] == "llm" for c in chunks)
