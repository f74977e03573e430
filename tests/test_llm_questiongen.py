"""Questions for your own documents (issue 11 item 7): answers read leniently, excerpts checked
verbatim and once, duplicates dropped and counted, the question file round-trips, and the
``questions`` command runs against a loopback chat-completions server."""

from __future__ import annotations

import argparse
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.llm import LoopbackLLM, Reply, fast_settings, rate_limited, server_error
from support.texts import SETTINGS, examples

from chunkviz.cli.llm import add_questions_parser, cmd_questions
from chunkviz.evaluation.questiongen import (
    QUESTION_PROMPT,
    Proposal,
    ReadAnswer,
    allocate,
    check_proposal,
    estimate_questions,
    generate_questions,
    occurrences,
    plan_windows,
    question_input,
    read_questions,
)
from chunkviz.evaluation.questions import Question, Reference, load_questions
from chunkviz.llm import CallEstimate, LLMError, LLMNotConfigured, LLMSettings, use_llm
from chunkviz.llm.cache import AnswerCache, clear_memory


@pytest.fixture(autouse=True)
def _fresh_memory() -> None:
    clear_memory()


# ---- reading the model's answer ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            '{"questions": [{"question": "Q1?", "references": ["a b", " c d "]}]}',
            ReadAnswer((Proposal("Q1?", ("a b", "c d")),)),
        ),
        ('{"questions": []}', ReadAnswer(())),
        (
            '```json\n[{"question": "Q1?", "references": "a b"}]\n```',
            ReadAnswer(
                (Proposal("Q1?", ("a b",)),),
                (
                    "removed a Markdown code fence around the JSON",
                    "read a bare list (no 'questions' key)",
                    "read a single excerpt given as text (not a list)",
                ),
            ),
        ),
        (
            "Sure! {'question': 'Q1?', 'excerpts': [{'content': 'a b'}]}",
            ReadAnswer(
                (Proposal("Q1?", ("a b",)),),
                (
                    "read a Python-style literal (single quotes) as JSON",
                    "ignored text around the JSON",
                    "read a single question object (no 'questions' list)",
                    "read the excerpts under 'excerpts' (not 'references')",
                    "read excerpts given as objects",
                ),
            ),
        ),
        (
            '{"items": [{"question": "  Q1\\n  again? ", "references": []}, "junk"]}',
            ReadAnswer(
                (Proposal("Q1 again?", ()), Proposal(None, ())), ("read the list under 'items' (not 'questions')",)
            ),
        ),
        (
            '{"questions": [{"question": "Q\\udc80?", "references": ["a"]}]}',
            ReadAnswer((Proposal("Q\ufffd?", ("a",)),)),
        ),
        ("no JSON here", None),
        ('{"a": 1}', None),
        ("", None),
    ],
)
def test_read_questions(answer: str, expected: ReadAnswer | None) -> None:
    assert read_questions(answer) == expected


# ---- checking proposals against the document -----------------------------------------------------
DOC = (
    "# Station\n\nThe station is visited every two weeks. Each visit logs the water level.\n\n"
    "The log is kept in the blue binder. The blue binder stays in the hut.\n"
)
NAME = "station.md"


def ref(text: str) -> Reference:
    start = DOC.index(text)
    return Reference(NAME, start, start + len(text))


def test_check_proposal_locates_excerpts_and_names_why_others_are_dropped() -> None:
    from chunkviz.evaluation.questiongen import _Kept

    kept = _Kept()
    visit = "The station is visited every two weeks."
    first = check_proposal(Proposal("How often is the station visited?", (visit, visit)), DOC, NAME, kept)
    assert first == Question("How often is the station visited?", (ref(visit),))
    assert check_proposal(Proposal("Where?", ("The log is kept in the red binder.",)), DOC, NAME, kept) == "not_found"
    assert check_proposal(Proposal("What is blue?", ("blue binder",)), DOC, NAME, kept) == "ambiguous"
    assert (
        check_proposal(
            Proposal("how often is THE station visited", ("Each visit logs the water level.",)), DOC, NAME, kept
        )
        == "duplicate"
    )
    assert check_proposal(Proposal("What is logged?", ("the water level.", visit)), DOC, NAME, kept) == "duplicate"
    assert (
        check_proposal(
            Proposal("Many?", tuple(f"{w}" for w in ("# Station", "Each", "water", "hut", "kept", "log is"))),
            DOC,
            NAME,
            kept,
        )
        == "too_many_references"
    )
    assert check_proposal(Proposal(None, ("x",)), DOC, NAME, kept) == "unreadable"
    assert check_proposal(Proposal("Q?", ()), DOC, NAME, kept) == "unreadable"
    both = check_proposal(
        Proposal(
            "What is logged, and where?", ("Each visit logs the water level.", "The log is kept in the blue binder.")
        ),
        DOC,
        NAME,
        kept,
    )
    assert both == Question(
        "What is logged, and where?",
        (ref("Each visit logs the water level."), ref("The log is kept in the blue binder.")),
    )


@settings(max_examples=examples(300), **SETTINGS)
@given(
    st.text(alphabet="ab. \n", max_size=60),
    st.lists(st.tuples(st.integers(0, 60), st.integers(1, 12)), max_size=7),
    st.booleans(),
)
def test_check_proposal_keeps_only_excerpts_found_exactly_once(
    text: str, slices: list[tuple[int, int]], garble: bool
) -> None:
    excerpts = [text[a : a + n].strip() for a, n in slices] + (["zzz"] if garble else [])
    proposal = Proposal("Q?", tuple(e for e in excerpts if e))
    outcome = check_proposal(proposal, text, "d")
    unique = list(dict.fromkeys(proposal.excerpts))
    if not unique:
        assert outcome == "unreadable"
    elif len(unique) > 5:
        assert outcome == "too_many_references"
    elif isinstance(outcome, Question):
        assert [text[r.start : r.end] for r in outcome.references] == unique
        assert all(occurrences(text, text[r.start : r.end], 3) == [r.start] for r in outcome.references)
    else:
        first_bad = next(e for e in unique if len(occurrences(text, e)) != 1)
        assert outcome == ("not_found" if not occurrences(text, first_bad) else "ambiguous")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=examples(300), **SETTINGS)
@given(json_values, st.text(max_size=12), st.text(max_size=12))
def test_reading_any_answer_never_raises(value: Any, before: str, after: str) -> None:
    from chunkviz.llm.answers import read_verdict
    from chunkviz.llm.jsonanswer import read_json_answer

    for answer in (before + json.dumps(value) + after, before + after, before + repr(value) + after):
        read_questions(answer)
        read_verdict(answer)
        read_json_answer(answer)
    parsed = read_json_answer(" " + json.dumps(value) + "\n")
    if isinstance(value, (dict, list)):
        assert parsed is not None and parsed.value == value and parsed.repairs == ()


# ---- windows and allocation ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("total", "windows", "shift", "expected"),
    [
        (10, 5, 0, [2, 2, 2, 2, 2]),
        (12, 5, 0, [2, 3, 2, 3, 2]),
        (3, 10, 0, [0, 1, 0, 0, 0, 1, 0, 0, 1, 0]),
        (3, 10, 1, [0, 0, 1, 0, 0, 0, 1, 0, 0, 1]),
        (1, 4, 0, [0, 0, 1, 0]),
        (0, 3, 0, [0, 0, 0]),
        (5, 1, 2, [5]),
        (4, 0, 0, []),
    ],
)
def test_allocate_spreads_questions_evenly(total: int, windows: int, shift: int, expected: list[int]) -> None:
    assert allocate(total, windows, shift) == expected


@settings(max_examples=examples(200), **SETTINGS)
@given(st.integers(0, 200), st.integers(1, 60), st.integers(0, 100))
def test_allocate_property(total: int, windows: int, shift: int) -> None:
    counts = allocate(total, windows, shift)
    assert len(counts) == windows and sum(counts) == total and max(counts) - min(counts) <= 1


def test_windows_are_exact_spans_of_at_most_the_window_size() -> None:
    text = "".join(
        f"Paragraph {i} says something about topic {i}. It has a second sentence too.\n\n" for i in range(30)
    )
    windows = plan_windows(text, 400)
    assert len(windows) > 5
    assert all(w.end - w.start <= 400 for w in windows)
    assert [w.index for w in windows] == list(range(len(windows)))
    assert all(a.end <= b.start for a, b in zip(windows, windows[1:]))
    assert "".join(text[w.start : w.end] for w in windows).split() == text.split()
    with pytest.raises(ValueError, match="window_chars = 10"):
        plan_windows(text, 10)


def test_question_input_lists_questions_to_avoid_only_in_later_rounds() -> None:
    first = question_input("Some text \ud800 here.", 1)
    assert first == {"text": "Some text \ufffd here.", "count": "1", "plural": "", "avoid": ""}
    later = question_input("T", 3, ["Q1?", "Q2\nnext?"])
    assert later["avoid"] == "\n\nThese questions have been asked already; do not repeat them:\n- Q1?\n- Q2 next?"
    user = QUESTION_PROMPT.messages(later)[1]["content"]
    assert user.startswith("Text:\n<<<\nT\n>>>\n\nWrite 3 questions about this text.")
    assert user.endswith(
        '{"questions": [{"question": "...", "references": ["exact excerpt", "another exact excerpt"]}]}'
    )


# ---- generating against the loopback server ------------------------------------------------------
VISIT = "The station is visited every two weeks."
HUT = "The blue binder stays in the hut."
PROPOSALS = [
    {"question": "How often is the station visited?", "references": [VISIT]},  # kept
    {"question": "Where is the log kept?", "references": ["The log is kept in the red binder."]},  # not verbatim
    {"question": "What is blue?", "references": ["blue binder"]},  # twice in the text
    {
        "question": "how often is the station visited",
        "references": ["Each visit logs the water level."],
    },  # same question
    {"question": "What happens every two weeks?", "references": [VISIT]},  # same excerpt
    {"question": "Where does the blue binder stay?", "references": [HUT]},  # kept
    {"question": "", "references": ["x"]},  # no question
]


def window_text(request: dict[str, Any]) -> str:
    return re.search(r"<<<\n(.*)\n>>>", request["messages"][-1]["content"], re.DOTALL).group(1)


def same_proposals(request: dict[str, Any]) -> Reply:
    return Reply(json.dumps({"questions": PROPOSALS}))


def test_generation_keeps_checked_questions_and_counts_the_dropped(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    llm_server.reset(fallback=same_proposals)
    announced: list[tuple[str, int]] = []
    with use_llm(
        fast_settings(llm_server), cache_dir=tmp_path, on_estimate=lambda what, e: announced.append((what, e.calls))
    ):
        one = generate_questions(DOC, 1, name=NAME)
    assert llm_server.calls == 1 and announced == [(f"questions for {NAME}", 1)]
    assert one.questions == (Question("How often is the station visited?", (ref(VISIT),)),)
    assert one.dropped == {"not_found": 1, "ambiguous": 1, "duplicate": 2, "extra": 1, "unreadable": 1}
    assert one.summary() == (
        "station.md: 1 of 1 question (7 proposed in 1 window, 1 round); dropped: 1 no question text or no excerpt, "
        "1 an excerpt not found verbatim, 1 an excerpt found more than once, 2 a duplicate of an earlier question or "
        "excerpt, 1 beyond the number asked for"
    )
    assert window_text(llm_server.requests[0]) == DOC
    # asking for more: a second round lists the kept questions, adds nothing new, and stops
    with use_llm(
        fast_settings(llm_server), cache_dir=tmp_path, on_estimate=lambda what, e: announced.append((what, e.calls))
    ):
        ten = generate_questions(DOC, 10, name=NAME)
    assert ten.questions == (
        Question("How often is the station visited?", (ref(VISIT),)),
        Question("Where does the blue binder stay?", (ref(HUT),)),
    )
    assert (ten.proposed, ten.rounds) == (14, 2)
    assert ten.dropped == {"not_found": 2, "ambiguous": 2, "duplicate": 6, "unreadable": 2}
    assert llm_server.calls == 3  # round 1 asks for 10 (a new prompt), round 2 for 8
    assert "Write 10 questions" in llm_server.requests[1]["messages"][-1]["content"]
    second_round = llm_server.requests[2]["messages"][-1]["content"]
    assert "Write 8 questions" in second_round
    assert (
        "do not repeat them:\n- How often is the station visited?\n- Where does the blue binder stay?" in second_round
    )
    assert announced[-1] == (f"questions for {NAME} (round 2)", 1)


def first_sentence_question(request: dict[str, Any]) -> Reply:
    """One question per window, about its first sentence (copied exactly)."""
    sentence = re.match(r"\s*(.*?\.)", window_text(request), re.DOTALL).group(1)
    return Reply(
        json.dumps(
            {
                "questions": [
                    {"question": f"What does the text say about {sentence.split()[0]}?", "references": [sentence]}
                ]
            }
        )
    )


LONG = "".join(
    f"Topic{i} opens paragraph {i}. "
    + "".join(f"Sentence {j} of paragraph {i} adds detail. " for j in range(4))
    + "\n\n"
    for i in range(10)
)  # four windows of 600 characters: Topic0.., Topic3.., Topic6.., Topic9


def test_windows_are_asked_in_parallel_and_a_second_run_makes_no_call(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    llm_server.reset(fallback=first_sentence_question)
    settings_ = fast_settings(llm_server)
    with use_llm(settings_, cache_dir=tmp_path) as session:
        before = estimate_questions(LONG, 3, window_chars=600)
        made = generate_questions(LONG, 3, name="long.md", window_chars=600)
        assert (before.calls, before.cached) == (3, 0) and before.input_tokens > 0
        assert estimate_questions(LONG, 3, window_chars=600) == CallEstimate(0, 3, 0)
        assert (session.stats.made, session.stats.cached) == (3, 0)
    assert made.windows == len(plan_windows(LONG, 600)) == 4
    assert llm_server.calls == 3 and made.rounds == 1 and made.dropped == {}
    # three questions for four windows: the first, third and fourth are asked
    assert made.questions == tuple(
        Question(
            f"What does the text say about Topic{i}?",
            (
                Reference(
                    "long.md",
                    LONG.index(f"Topic{i} "),
                    LONG.index(f"Topic{i} ") + len(f"Topic{i} opens paragraph {i}."),
                ),
            ),
        )
        for i in (0, 6, 9)
    )
    clear_memory()
    with use_llm(settings_, cache_dir=tmp_path) as session:
        again = generate_questions(LONG, 3, name="long.md", window_chars=600)
        assert (session.stats.made, session.stats.cached) == (0, 3)
    assert llm_server.calls == 3 and again == made


def test_a_rate_limit_is_waited_out(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    llm_server.reset(fallback=same_proposals)
    llm_server.play(rate_limited(same_proposals({})))
    with use_llm(fast_settings(llm_server), cache_dir=tmp_path) as session:
        made = generate_questions(DOC, 2, name=NAME, rounds=1)
        assert (session.stats.made, session.stats.retries) == (1, 1)
    assert llm_server.calls == 2 and len(made.questions) == 2


def test_no_endpoint_raises_what_the_client_says(tmp_path: Path) -> None:
    settings_ = LLMSettings()
    with use_llm(settings_, cache_dir=tmp_path), pytest.raises(LLMNotConfigured) as caught:
        generate_questions(DOC, 2)
    assert str(caught.value) == str(LLMNotConfigured(settings_.missing()))


@pytest.mark.parametrize(
    ("reply", "says"),
    [
        (Reply("Here are some questions: none today."), "was not usable ('Here are some questions: none today.')"),
        (Reply(""), "the last answer was empty"),
        (Reply('{"questions": [{"question": "Q?", "references": ["x"'), "was not usable"),  # cut off: not JSON
    ],
)
def test_unusable_answers_are_asked_again_then_reported_and_never_cached(
    llm_server: LoopbackLLM, tmp_path: Path, reply: Reply, says: str
) -> None:
    llm_server.reset(fallback=lambda request: reply)
    with use_llm(fast_settings(llm_server, concurrency=1), cache_dir=tmp_path), pytest.raises(LLMError) as caught:
        generate_questions(DOC, 2, name=NAME)
    assert "gave no usable answer to prompt 'question_generation' in 2 attempts" in str(caught.value) and says in str(
        caught.value
    )
    assert llm_server.calls == 2 and AnswerCache(tmp_path).count() == 0


def test_a_failing_window_stops_the_run_and_only_complete_answers_are_cached(
    llm_server: LoopbackLLM, tmp_path: Path
) -> None:
    def second_fails(request: dict[str, Any]) -> Reply:
        return server_error(request) if "Topic9" in window_text(request) else first_sentence_question(request)

    llm_server.reset(fallback=second_fails)
    with (
        use_llm(fast_settings(llm_server, concurrency=1), cache_dir=tmp_path),
        pytest.raises(LLMError, match="HTTP 500: model crashed"),
    ):
        generate_questions(LONG, 4, name="long.md", window_chars=600)
    cached = AnswerCache(tmp_path).count()
    assert cached == 3  # the windows answered before the failure (one call at a time), each a complete answer
    clear_memory()
    llm_server.reset(fallback=first_sentence_question)
    with use_llm(fast_settings(llm_server), cache_dir=tmp_path):
        made = generate_questions(LONG, 4, name="long.md", window_chars=600)
    assert llm_server.calls == 4 - cached and len(made.questions) == 4


# ---- the command -----------------------------------------------------------------------------------
def run_command(argv: list[str]) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="chunkviz")
    add_questions_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["questions", *argv])
    out, err = io.StringIO(), io.StringIO()
    code = cmd_questions(args, out, err)
    return code, out.getvalue(), err.getvalue()


def test_the_command_writes_a_question_file_eval_reads_back(llm_endpoint_env: LoopbackLLM, tmp_path: Path) -> None:
    llm_endpoint_env.reset(fallback=same_proposals)
    doc = tmp_path / NAME
    doc.write_text(DOC, encoding="utf-8")
    target = tmp_path / "questions.jsonl"
    code, out, err = run_command([str(doc), "--out", str(target), "-n", "2", "--rounds", "1"])
    assert code == 0 and out == ""
    lines = err.split("\n")
    assert lines[0].startswith(f"llm: questions for {doc}: 1 call, about ") and lines[0].endswith(
        "(model loopback-model at " + llm_endpoint_env.base_url + ")"
    )
    assert lines[1].startswith("llm: 1/1 answers · ")  # a whole line when it completes (chunkviz.cli.progress)
    assert lines[2] == (
        f"{doc}: 2 of 2 questions (7 proposed in 1 window, 1 round); dropped: 1 no question text or no excerpt, "
        "1 an excerpt not found verbatim, 1 an excerpt found more than once, 2 a duplicate of an earlier question or excerpt"
    )
    assert lines[3].startswith("llm: 1 call made, 0 from the cache, ")
    assert lines[4] == f"wrote 2 questions to {target}"
    corpus = {str(doc): DOC}
    loaded = load_questions(target, corpus)
    expected = [
        Question("How often is the station visited?", (Reference(str(doc), ref(VISIT).start, ref(VISIT).end),)),
        Question("Where does the blue binder stay?", (Reference(str(doc), ref(HUT).start, ref(HUT).end),)),
    ]
    assert loaded == expected
    first = json.loads(target.read_text(encoding="utf-8").splitlines()[0])
    assert first == {
        "question": "How often is the station visited?",
        "references": [{"document": str(doc), "start": ref(VISIT).start, "end": ref(VISIT).end, "excerpt": VISIT}],
    }
    # the same command again: every answer from the cache, the same file
    clear_memory()
    before = target.read_text(encoding="utf-8")
    code, _, err = run_command([str(doc), "--out", str(target), "-n", "2", "--rounds", "1"])
    assert code == 0 and llm_endpoint_env.calls == 1 and target.read_text(encoding="utf-8") == before
    assert "llm: 0 calls made, 1 from the cache" in err and "llm: questions for" not in err
    # standard output
    code, out, _ = run_command([str(doc), "--out", "-", "-n", "2", "--rounds", "1"])
    assert out == before


def test_the_command_without_an_endpoint_or_with_no_usable_question(
    monkeypatch, llm_endpoint_env: LoopbackLLM, tmp_path: Path
) -> None:
    doc = tmp_path / NAME
    doc.write_text(DOC, encoding="utf-8")
    target = tmp_path / "q.jsonl"
    llm_endpoint_env.reset(
        fallback=lambda request: Reply(json.dumps({"questions": [{"question": "Q?", "references": ["not in it"]}]}))
    )
    with pytest.raises(
        LLMError, match=r"no question survived the checks \(1 proposed, none kept\): nothing written to"
    ):
        run_command([str(doc), "--out", str(target), "-n", "1", "--rounds", "1"])
    assert not target.exists()
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "CHUNKVIZ_LLM_MODEL"):
        monkeypatch.delenv(name)
    with pytest.raises(LLMNotConfigured) as caught:
        run_command([str(doc), "--out", str(target)])
    assert str(caught.value) == str(LLMNotConfigured(LLMSettings.from_env().missing()))
    assert not target.exists()


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["-n", "0"], "must be 1 or more, got 0"),
        (["--window-chars", "50"], "must be 200 or more, got 50"),
        (["--rounds", "x"], "expected a whole number, got 'x'"),
    ],
)
def test_bad_numbers_are_usage_errors(capsys, flags: list[str], says: str) -> None:
    with pytest.raises(SystemExit) as exited:
        run_command(["doc.md", "--out", "q.jsonl", *flags])
    assert exited.value.code == 2 and says in capsys.readouterr().err


def test_the_command_refuses_a_document_given_twice(llm_endpoint_env: LoopbackLLM, tmp_path: Path) -> None:
    from chunkviz.core.errors import ChunkvizError

    doc = tmp_path / NAME
    doc.write_text(DOC, encoding="utf-8")
    with pytest.raises(ChunkvizError, match="given more than once"):
        run_command([str(doc), str(doc), "--out", str(tmp_path / "q.jsonl")])
    assert llm_endpoint_env.calls == 0
