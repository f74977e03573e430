"""Answer quality (issue 11 item 6): token F1, the judge's answer read leniently, the run against
a loopback chat-completions server (cached, estimated, failures clear and never cached)."""

from __future__ import annotations

import argparse
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.llm import LoopbackLLM, Reply, fast_settings, server_error
from support.texts import SETTINGS, examples

from chunkviz.evaluation.evaluate import Configuration, Result, Retrieved
from chunkviz.evaluation.metrics import DocumentSpan, Scores
from chunkviz.evaluation.questions import Question, Reference
from chunkviz.evaluation.report import table
from chunkviz.llm import LLMError, LLMNotConfigured, LLMSettings, use_llm
from chunkviz.llm.answers import (
    ANSWER_PROMPT,
    JUDGE_PROMPT,
    AnsweredQuestion,
    AnswerQuality,
    Verdict,
    add_answer_arguments,
    answer_cells,
    answer_input,
    answer_quality,
    answer_rows,
    check_answer_endpoint,
    estimate_answers,
    judge_input,
    normalize_answer,
    passages,
    prompt_text,
    read_verdict,
    results_with_answers,
    run_answers,
    token_f1,
    with_answer_columns,
)
from chunkviz.llm.cache import AnswerCache, clear_memory
from chunkviz.llm.jsonanswer import read_json_answer


@pytest.fixture(autouse=True)
def _fresh_memory() -> None:
    clear_memory()


# ---- token F1 ------------------------------------------------------------------------------------
def test_normalization_is_squad_lowercase_no_punctuation_no_articles() -> None:
    assert normalize_answer("The Cat, an owl & a dog’s “toy”!") == "cat owl dogs toy"
    assert normalize_answer("  A-B  the\tend. ") == "ab end"
    assert normalize_answer("Theory and another anthem") == "theory and another anthem"  # articles only as words


@pytest.mark.parametrize(
    ("prediction", "reference", "f1"),
    [
        # [cat sat on mat] vs [cat sat on red mat]: common 4, P 4/4, R 4/5 -> 2*0.8/1.8
        ("the cat sat on the mat", "A cat sat on a red mat.", 8 / 9),
        # [x y y] vs [y y y z]: common 2 (y twice), P 2/3, R 2/4 -> 4/7
        ("x y y", "y y y z", 4 / 7),
        ("Paris", "London", 0.0),
        ("", "", 1.0),
        ("the", "a", 1.0),  # both empty after normalization
        ("something", "", 0.0),
        # a short right answer against a long excerpt: P 3/3, R 3/10 -> 2*0.3/1.3
        ("Every two weeks.", "Each station is visited at least once every two weeks", 6 / 13),
    ],
)
def test_token_f1_hand_computed(prediction: str, reference: str, f1: float) -> None:
    assert token_f1(prediction, reference) == pytest.approx(f1, abs=1e-12)


words = st.lists(st.sampled_from(["a", "the", "cat", "Cat,", "sat", "mat.", "x", "y", "über", "—"]), max_size=12).map(
    " ".join
)


@settings(max_examples=examples(200), **SETTINGS)
@given(words, words)
def test_token_f1_is_a_symmetric_fraction_and_one_on_itself(a: str, b: str) -> None:
    f1 = token_f1(a, b)
    assert 0.0 <= f1 <= 1.0
    assert f1 == pytest.approx(token_f1(b, a))
    assert token_f1(a, a) == 1.0
    assert (f1 == 1.0) == (sorted(normalize_answer(a).split()) == sorted(normalize_answer(b).split()))


# ---- the judge's answer ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('{"verdict": "correct", "reason": "It matches."}', Verdict("correct", 1.0, "It matches.")),
        ('{"verdict": "partially correct", "reason": "Half."}', Verdict("partially correct", 0.5, "Half.")),
        (
            '```json\n{"verdict": "Partially_Correct", "reason": "Half."}\n```',
            Verdict(
                "partially correct",
                0.5,
                "Half.",
                (
                    "removed a Markdown code fence around the JSON",
                    "read the verdict 'Partially_Correct' as 'partially correct'",
                ),
            ),
        ),
        (
            "Here you go: {'verdict': 'incorrect', 'reason': 'Wrong year.'} Hope that helps.",
            Verdict(
                "incorrect",
                0.0,
                "Wrong year.",
                ("read a Python-style literal (single quotes) as JSON", "ignored text around the JSON"),
            ),
        ),
        (
            '{"grade": "wrong"}',
            Verdict(
                "incorrect",
                0.0,
                "",
                (
                    "read the verdict under 'grade' (not 'verdict')",
                    "read the verdict 'wrong' as 'incorrect'",
                    "no reason given",
                ),
            ),
        ),
        (
            '[{"verdict": "correct", "reason": "ok"}]',
            Verdict("correct", 1.0, "ok", ("read the object inside a one-item list",)),
        ),
        (
            "Incorrect. The excerpt says every two weeks.",
            Verdict("incorrect", 0.0, "", ("not valid JSON: read the verdict from the text", "no reason given")),
        ),
        (
            '{"verdict": "correct", "reason": "' + "x" * 400 + '"}',
            Verdict("correct", 1.0, "x" * 299 + "…", ("shortened the reason to 300 characters",)),
        ),
        ("", None),
        ("correct or incorrect, hard to say", None),  # two verdicts: none
        ('{"verdict": "maybe", "reason": "unsure"}', None),
        ('{"reason": "no verdict"}', None),
    ],
)
def test_read_verdict(answer: str, expected: Verdict | None) -> None:
    assert read_verdict(answer) == expected


@pytest.mark.parametrize(
    "answer",
    ["[" * 100_000 + "]" * 100_000, '{"a": ' * 40_000 + "1" + "}" * 40_000, "[" * 20_000],
    ids=["list", "object", "unclosed"],
)
def test_a_judge_answer_nested_too_deeply_is_unusable_not_a_crash(answer: str) -> None:
    """Issue 36 item 17: json.loads recursed once per level (RecursionError); the side files'
    depth bound (chunkviz.core.sidefile) makes the answer unusable, so it is asked for again."""
    assert read_json_answer(answer) is None
    assert read_verdict(answer) is None


def test_the_judge_prompt_is_shown_as_the_model_gets_it() -> None:
    shown = prompt_text(JUDGE_PROMPT)
    assert shown.startswith("[system]\nYou grade answers to questions against reference excerpts from a document.")
    assert "\n\n[user]\nQuestion: {question}\n" in shown and "{references}" in shown and "{answer}" in shown
    assert shown.endswith('{"verdict": "correct", "reason": "one short sentence"}')
    messages = JUDGE_PROMPT.messages(judge_input("Q?", ["first  excerpt\nline", "second"], " the answer "))
    assert messages[1]["content"].startswith(
        "Question: Q?\n\nReference excerpts from the document (they hold the correct answer):\n"
        "- first excerpt line\n- second\n\nAnswer to grade:\nthe answer\n\n"
    )
    assert messages[1]["content"].endswith('{"verdict": "correct", "reason": "one short sentence"}')


# ---- a small evaluation to answer ----------------------------------------------------------------
DOC = "Alpha station notes.\n\nThe station is visited every two weeks.\n\nThe log is kept in the blue binder.\n\nGamma closing line."
NAME = "notes.md"
VISIT = "The station is visited every two weeks."
LOG = "The log is kept in the blue binder."


def span_of(text: str) -> DocumentSpan:
    start = DOC.index(text)
    return DocumentSpan(NAME, start, start + len(text))


ALPHA, GAMMA = span_of("Alpha station notes."), span_of("Gamma closing line.")
QUESTIONS = [
    Question("How often is the station visited?", (Reference(NAME, span_of(VISIT).start, span_of(VISIT).end),)),
    Question("Where is the log kept?", (Reference(NAME, span_of(LOG).start, span_of(LOG).end),)),
]
NO_SCORES = Scores(0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


def result(size: int, *per_question: list[DocumentSpan]) -> Result:
    retrieved = tuple(
        tuple(Retrieved(rank, 1.0 - rank / 10, s, i) for i, (rank, s) in enumerate(enumerate(spans, 1)))
        for spans in per_question
    )
    return Result(
        Configuration("recursive", {"chunk_size": size}), 2, (NO_SCORES,) * len(per_question), retrieved, 4, 30.0
    )


# A retrieves what answers both questions; B retrieves the same for question 1 (the same prompt:
# one call for both) and nothing useful for question 2.
RESULTS = [
    result(64, [span_of(VISIT), ALPHA], [span_of(LOG), GAMMA]),
    result(32, [span_of(VISIT), ALPHA], [GAMMA, ALPHA]),
]
ONE = result(64, [span_of(VISIT), ALPHA])


def scripted(request: dict[str, Any]) -> Reply:
    """Answers from the passages; the judge by what the answer says."""
    system, user = request["messages"][0]["content"], request["messages"][-1]["content"]
    if system == JUDGE_PROMPT.system:
        answer = user.split("Answer to grade:\n", 1)[1].split("\n\n", 1)[0]
        if "do not say" in answer:
            return Reply('{"verdict": "incorrect", "reason": "No answer given."}')
        if "binder" in answer:
            return Reply('```json\n{"verdict": "Correct", "reason": "Same place."}\n```')
        return Reply('{"verdict": "correct", "reason": "Matches the excerpt."}')
    question = re.search(r"^Question: (.*)$", user, re.MULTILINE).group(1)
    if "visited" in question and "every two weeks" in user:
        return Reply(VISIT)
    if "log" in question and "blue binder" in user:
        return Reply("It is kept in the blue binder.")
    return Reply("The passages do not say.")


@pytest.fixture
def server(llm_server: LoopbackLLM) -> LoopbackLLM:
    llm_server.reset(fallback=scripted)
    return llm_server


def test_passages_are_the_top_k_in_rank_order_with_their_text() -> None:
    from chunkviz.document.model import Document

    hits = (Retrieved(2, 0.5, ALPHA, 0), Retrieved(1, 0.9, span_of(LOG), 2), Retrieved(3, 0.1, GAMMA, 3))
    for corpus in ({NAME: DOC}, {NAME: Document(DOC, name=NAME)}):
        shown = passages(hits, corpus, 2)
        assert [(p.rank, p.text) for p in shown] == [(1, LOG), (2, "Alpha station notes.")]
    assert [p.rank for p in passages(hits, {NAME: DOC})] == [1, 2, 3]
    assert answer_input("Q?", passages(hits, {NAME: DOC}, 2)) == {
        "passages": f"[1] {LOG}\n\n[2] Alpha station notes.",
        "question": "Q?",
    }
    assert answer_input("Q?", [])["passages"] == "(no passages were retrieved)"


def test_answer_quality_scores_each_answer_and_a_second_run_makes_no_call(server: LoopbackLLM, tmp_path: Path) -> None:
    settings = fast_settings(server)
    announced: list[tuple[str, Any]] = []
    ticks: list[tuple[int, int]] = []
    with use_llm(
        settings,
        cache_dir=tmp_path,
        on_estimate=lambda what, e: announced.append((what, e)),
        progress=lambda d, t: ticks.append((d, t)),
    ) as session:
        qualities = answer_quality(RESULTS, QUESTIONS, {NAME: DOC}, judge=True)
        stats = session.stats
    # answers: A1 = B1 (one call), A2, B2; judge: A1 = B1, A2, B2
    assert server.calls == 6
    assert (stats.made, stats.cached) == (6, 0)
    assert [(what, e.calls, e.cached) for what, e in announced] == [
        ("answer quality of 2 configurations × 2 questions with the judge", 6, 0),
    ]
    assert announced[0][1].input_tokens > 0
    assert ticks[0] == (0, 4) and ticks[-1] == (4, 4)  # answers, then the judge: 4 items each
    a, b = qualities
    assert (a.label, b.label) == ("recursive(chunk_size=64)", "recursive(chunk_size=32)")
    assert [x.answer for x in a.answers] == [VISIT, "It is kept in the blue binder."]
    assert [x.answer for x in b.answers] == [VISIT, "The passages do not say."]
    # "It is kept in the blue binder." vs the excerpt: [it is kept in blue binder] vs [log is kept in blue binder]: 5 of 6 each way
    assert [x.f1 for x in a.answers] == [1.0, pytest.approx(5 / 6)]
    assert [x.f1 for x in b.answers] == [1.0, 0.0]
    assert [x.verdict for x in a.answers] == [
        Verdict("correct", 1.0, "Matches the excerpt."),
        Verdict(
            "correct",
            1.0,
            "Same place.",
            ("removed a Markdown code fence around the JSON", "read the verdict 'Correct' as 'correct'"),
        ),
    ]
    assert b.answers[1].verdict == Verdict("incorrect", 0.0, "No answer given.")
    assert [(p.rank, p.start, p.end) for p in b.answers[1].passages] == [
        (1, GAMMA.start, GAMMA.end),
        (2, ALPHA.start, ALPHA.end),
    ]
    assert a.summary()["answer_f1"] == (pytest.approx(11 / 12), pytest.approx(1 / 12))
    assert a.summary()["judge"] == (1.0, 0.0)
    assert b.summary() == {"answer_f1": (0.5, 0.5), "judge": (0.5, 0.5)}
    assert answer_cells(a) == {"answer F1": "91.7 ± 8.3", "judge": "100.0 ± 0.0"}
    # the second identical run: every answer from the disk cache, no estimate announced
    clear_memory()
    announced.clear()
    with use_llm(settings, cache_dir=tmp_path, on_estimate=lambda what, e: announced.append((what, e))) as session:
        again = answer_quality(RESULTS, QUESTIONS, {NAME: DOC}, judge=True)
        assert (session.stats.made, session.stats.cached) == (0, 6)
    assert server.calls == 6 and announced == [] and again == qualities
    with use_llm(settings, cache_dir=tmp_path) as session:
        assert estimate_answers(RESULTS, QUESTIONS, {NAME: DOC}, judge=True).calls == 0


def test_the_table_gets_answer_columns_and_the_json_its_answers(server: LoopbackLLM, tmp_path: Path) -> None:
    with use_llm(fast_settings(server), cache_dir=tmp_path):
        qualities = answer_quality(RESULTS, QUESTIONS, {NAME: DOC}, judge=True)
    base = table(RESULTS).split("\n")
    lines = with_answer_columns(table(RESULTS), qualities).split("\n")
    assert [line[: len(b)] for line, b in zip(lines, base)] == base
    assert [line[len(b) :] for line, b in zip(lines, base)] == [
        "    answer F1        judge",
        "  -----------  -----------",
        "   91.7 ± 8.3  100.0 ± 0.0",
        "  50.0 ± 50.0  50.0 ± 50.0",
    ]
    with pytest.raises(ValueError, match="1 rows for 2"):
        with_answer_columns("\n".join(base[:3]), qualities)
    records = json.loads(json.dumps(results_with_answers(RESULTS, qualities)))
    assert records[0]["answers"]["prompts"] == {
        "answer_question": {"version": 1, "text": prompt_text(ANSWER_PROMPT)},
        "answer_judge": {"version": 1, "text": prompt_text(JUDGE_PROMPT)},
    }
    assert records[1]["answers"]["summary"]["judge"] == {"mean": 0.5, "std": 0.5}
    assert records[1]["answers"]["questions"][1] == {
        "number": 2,
        "question": "Where is the log kept?",
        "answer": "The passages do not say.",
        "f1": 0.0,
        "passages": [
            {"rank": 1, "document": NAME, "start": GAMMA.start, "end": GAMMA.end},
            {"rank": 2, "document": NAME, "start": ALPHA.start, "end": ALPHA.end},
        ],
        "judge": {"verdict": "incorrect", "score": 0.0, "reason": "No answer given.", "repairs": []},
    }
    assert answer_rows(qualities[1])[1] == {
        "#": 2,
        "question": "Where is the log kept?",
        "answer": "The passages do not say.",
        "answer F1": 0.0,
        "judge": "incorrect",
        "reason": "No answer given.",
    }


def test_without_the_judge_only_answers_are_asked(server: LoopbackLLM, tmp_path: Path) -> None:
    with use_llm(fast_settings(server), cache_dir=tmp_path):
        quality = answer_quality(RESULTS[:1], QUESTIONS, {NAME: DOC}, k=1)[0]
    assert server.calls == 2
    assert all(len(x.passages) == 1 and x.verdict is None for x in quality.answers)
    summary = quality.summary()
    assert summary["answer_f1"] == (pytest.approx(11 / 12), pytest.approx(1 / 12)) and math.isnan(summary["judge"][0])
    assert answer_cells(quality)["judge"] == "–"
    assert "judge" not in answer_rows(quality)[0]


def test_eval_options_through_argparse(server: LoopbackLLM, tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    add_answer_arguments(parser)
    with use_llm(fast_settings(server), cache_dir=tmp_path) as session:
        assert run_answers(parser.parse_args([]), {NAME: DOC}, QUESTIONS, RESULTS, session) is None
        assert server.calls == 0
        judged = run_answers(
            parser.parse_args(["--judge", "--answer-k", "1"]), {NAME: DOC}, QUESTIONS, RESULTS, session
        )
    assert judged is not None and [q.judged for q in judged] == [True, True]
    assert {len(x.passages) for q in judged for x in q.answers} == {1}
    with pytest.raises(ValueError, match="answer k = 0"):
        answer_quality(RESULTS, QUESTIONS, {NAME: DOC}, k=0, session=session)
    with pytest.raises(SystemExit):
        parser.parse_args(["--answer-k", "0"])
    with use_llm(LLMSettings(), cache_dir=tmp_path) as session:
        check_answer_endpoint(parser.parse_args([]), session)  # nothing asked: no endpoint needed
        with pytest.raises(LLMNotConfigured):
            check_answer_endpoint(parser.parse_args(["--answers"]), session)


def test_answer_quality_after_a_real_evaluation(
    server: LoopbackLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engine's own Results: a bag-of-words retriever puts each question's paragraph first."""
    import numpy as np

    from chunkviz.evaluation.evaluate import evaluate
    from chunkviz.semantic import embedcache

    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path / "cache"))
    embedcache.clear_memory()
    vocabulary = ["station", "visited", "log", "kept", "alpha", "gamma"]

    def encode(texts: Any, progress: Any = None) -> Any:
        return np.asarray(
            [[re.findall(r"[a-z]+", t.lower()).count(w) for w in vocabulary] + [0.01] for t in texts], dtype=np.float32
        )

    (result,) = evaluate(
        {NAME: DOC},
        QUESTIONS,
        [Configuration("paragraphs", {"min_tokens": 1, "max_tokens": 100})],
        k=1,
        model="words",
        encode=encode,
    )
    with use_llm(fast_settings(server), cache_dir=tmp_path):
        (quality,) = answer_quality([result], QUESTIONS, {NAME: DOC})
    assert [p.text.strip() for a in quality.answers for p in a.passages] == [VISIT, LOG]
    assert [a.answer for a in quality.answers] == [VISIT, "It is kept in the blue binder."]
    assert [a.f1 for a in quality.answers] == [1.0, pytest.approx(5 / 6)]
    assert server.calls == 2


# ---- failures: clear messages, nothing incomplete cached -----------------------------------------
def test_no_endpoint_raises_what_the_client_says(tmp_path: Path) -> None:
    settings = LLMSettings()
    with use_llm(settings, cache_dir=tmp_path), pytest.raises(LLMNotConfigured) as caught:
        answer_quality(RESULTS, QUESTIONS, {NAME: DOC})
    assert str(caught.value) == str(LLMNotConfigured(settings.missing()))
    assert "OPENAI_BASE_URL=http://localhost:11434/v1" in str(caught.value)


def test_a_server_error_forever_stops_the_run_and_caches_nothing(server: LoopbackLLM, tmp_path: Path) -> None:
    server.reset(fallback=server_error)
    with use_llm(fast_settings(server, concurrency=1), cache_dir=tmp_path), pytest.raises(LLMError) as caught:
        answer_quality(RESULTS[:1], QUESTIONS, {NAME: DOC})
    assert "failed with HTTP 500: model crashed after 3 attempts" in str(caught.value)
    assert "sk-test-SECRET" not in str(caught.value)
    assert AnswerCache(tmp_path).count() == 0


def test_an_empty_answer_is_asked_again_then_reported_and_never_cached(server: LoopbackLLM, tmp_path: Path) -> None:
    server.reset(fallback=lambda request: Reply(""))
    with (
        use_llm(fast_settings(server, concurrency=1), cache_dir=tmp_path),
        pytest.raises(LLMError, match="the last answer was empty"),
    ):
        answer_quality([ONE], QUESTIONS[:1], {NAME: DOC})
    assert server.calls == 2 and AnswerCache(tmp_path).count() == 0


def test_a_judge_answer_without_a_verdict_is_not_cached_and_a_rerun_asks_only_the_judge(
    server: LoopbackLLM, tmp_path: Path
) -> None:
    def no_verdict(request: dict[str, Any]) -> Reply:
        if request["messages"][0]["content"] == JUDGE_PROMPT.system:
            return Reply("I would rather not say.")
        return scripted(request)

    server.reset(fallback=no_verdict)
    with use_llm(fast_settings(server, concurrency=1), cache_dir=tmp_path), pytest.raises(LLMError) as caught:
        answer_quality([ONE], QUESTIONS[:1], {NAME: DOC}, judge=True)
    assert "gave no usable answer to prompt 'answer_judge' in 2 attempts" in str(caught.value)
    assert "was not usable ('I would rather not say.')" in str(caught.value)
    assert server.calls == 3  # the answer, then the judge twice
    assert AnswerCache(tmp_path).count() == 1  # the complete answer only
    clear_memory()
    server.reset(fallback=scripted)
    with use_llm(fast_settings(server), cache_dir=tmp_path):
        quality = answer_quality([ONE], QUESTIONS[:1], {NAME: DOC}, judge=True)[0]
    assert server.calls == 1 and quality.answers[0].verdict == Verdict("correct", 1.0, "Matches the excerpt.")


def test_the_answer_prompt_is_versioned_and_plain_text() -> None:
    assert (ANSWER_PROMPT.name, ANSWER_PROMPT.version, ANSWER_PROMPT.json) == ("answer_question", 1, False)
    assert (JUDGE_PROMPT.name, JUDGE_PROMPT.version, JUDGE_PROMPT.json) == ("answer_judge", 1, True)
    quality = AnswerQuality("x", None, "m", (AnsweredQuestion(1, "q", (), "a", 0.25),), judged=False)
    assert quality.to_dict()["summary"]["answer_f1"] == {"mean": 0.25, "std": 0.0}
    assert list(quality.to_dict()["prompts"]) == ["answer_question"]
