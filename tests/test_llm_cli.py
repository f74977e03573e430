"""chunkviz.cli.llm (the flags and the command's session) and the llm strategy through the CLI."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import pytest
from support.llm import LoopbackLLM, Reply, good_json, server_error

import chunkviz.strategies.llm  # noqa: F401 - registers the strategy
from chunkviz import chunk
from chunkviz.cli.commands import main
from chunkviz.cli.llm import add_llm_arguments, cli_llm_session, settings_from_args
from chunkviz.llm.cache import clear_memory

SECRET = "sk-test-SECRET-0123456789"
DOC = "# Intro\n\nThis is the first part. It has two sentences.\n\n# Method\n\nWe did things. Then more things.\n\n# End\n\nDone here."


@pytest.fixture(autouse=True)
def _fresh_memory() -> None:
    clear_memory()


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="t")
    add_llm_arguments(p)
    return p


def test_flags_override_the_environment_and_the_key_comes_only_from_it(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://env:1/v1")
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("CHUNKVIZ_LLM_MODEL", "env-model")
    unset = settings_from_args(parser().parse_args([]))
    assert (unset.base_url, unset.model, unset.api_key, unset.timeout, unset.concurrency, unset.max_retries) == (
        "http://env:1/v1",
        "env-model",
        SECRET,
        60.0,
        4,
        4,
    )
    args = parser().parse_args(
        [
            "--llm-base-url",
            "http://localhost:11434/v1",
            "--llm-model",
            "llama3.1",
            "--llm-timeout",
            "12.5",
            "--llm-concurrency",
            "2",
            "--llm-retries",
            "0",
        ]
    )
    given = settings_from_args(args)
    assert (given.base_url, given.model, given.api_key, given.timeout, given.concurrency, given.max_retries) == (
        "http://localhost:11434/v1",
        "llama3.1",
        SECRET,
        12.5,
        2,
        0,
    )
    help_text = " ".join(parser().format_help().split())
    assert "--llm-api-key" not in help_text and "read only from OPENAI_API_KEY" in help_text


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--llm-timeout", "0"], "must be more than 0 seconds"),
        (["--llm-concurrency", "0"], "must be in 1..64"),
        (["--llm-timeout", "soon"], "expected a number of seconds"),
        (["--llm-retries", "x"], "expected an integer"),
    ],
)
def test_bad_flag_values_are_usage_errors(capsys, flags: list[str], says: str) -> None:
    with pytest.raises(SystemExit) as caught:
        parser().parse_args(flags)
    assert caught.value.code == 2 and says in capsys.readouterr().err


def test_the_commands_session_reports_estimate_progress_and_calls(llm_endpoint_env: LoopbackLLM) -> None:
    llm_endpoint_env.play(good_json([4, 7]))
    out = io.StringIO()
    for _ in range(2):
        with cli_llm_session(parser().parse_args([]), out):
            chunk(DOC, "llm")
    lines = out.getvalue().replace("\r", "\n").split("\n")
    base = llm_endpoint_env.base_url
    first_estimate = next(line for line in lines if line.startswith("llm: llm chunking"))
    assert first_estimate.startswith("llm: llm chunking of document: 1 call, about ")
    assert first_estimate.endswith(f"input tokens (model loopback-model at {base})")
    assert any(line.startswith("llm: 1/1 answers · ") for line in lines)  # whole lines (chunkviz.cli.progress)
    assert "\r" not in out.getvalue()
    assert [line for line in lines if "made" in line] == [
        f"llm: 1 call made, 0 from the cache, {_usage(llm_endpoint_env)} input tokens",
        "llm: 0 calls made, 1 from the cache, 0 input tokens",  # the second run: no estimate line, no call
    ]
    assert sum(line.startswith("llm: llm chunking") for line in lines) == 1
    assert llm_endpoint_env.calls == 1 and SECRET not in out.getvalue()


def _usage(server: LoopbackLLM) -> int:
    """The prompt tokens the loopback server reported for its first answer."""
    return sum(len(m["content"].split()) for m in server.requests[0]["messages"])


def test_a_session_that_calls_no_model_prints_nothing(monkeypatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "CHUNKVIZ_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    out = io.StringIO()
    with cli_llm_session(parser().parse_args([]), out):
        chunk(DOC, "recursive")
    assert out.getvalue() == ""


# ---- through chunkviz.cli.commands as it is today (the endpoint from the environment) --------------------------
@pytest.fixture
def doc_path(tmp_path: Path) -> Path:
    path = tmp_path / "doc.md"
    path.write_text(DOC, encoding="utf-8")
    return path


def test_cli_without_an_endpoint_exits_2_with_what_to_set(capsys, monkeypatch, doc_path: Path) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "CHUNKVIZ_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    assert main(["chunk", str(doc_path), "-s", "llm"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("chunkviz: error: no LLM endpoint is configured")
    assert "Ollama: OPENAI_BASE_URL=http://localhost:11434/v1 CHUNKVIZ_LLM_MODEL=llama3.1" in err


def test_cli_chunks_with_the_endpoint_and_never_prints_the_key(
    capsys, llm_endpoint_env: LoopbackLLM, doc_path: Path
) -> None:
    llm_endpoint_env.play(good_json([4, 7]))
    assert main(["chunk", str(doc_path), "-s", "llm", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    records = json.loads(out)
    method, end = DOC.index("# Method"), DOC.index("# End")
    assert [r["text"] for r in records] == [DOC[:method], DOC[method:end], DOC[end:]]
    assert SECRET not in out + err
    llm_endpoint_env.play(fallback=server_error)
    clear_memory()
    assert main(["chunk", str(doc_path), "-s", "llm", "-p", "max_tokens=9"]) == 0  # same answer from the disk cache
    assert llm_endpoint_env.calls == 1


def test_cli_endpoint_failure_is_one_line_without_the_key(
    capsys, llm_endpoint_env: LoopbackLLM, doc_path: Path
) -> None:
    llm_endpoint_env.play(fallback=server_error)
    code = main(["chunk", str(doc_path), "-s", "llm", "--llm-retries", "0"])
    err = capsys.readouterr().err
    assert code == 1  # the endpoint failed: not a usage error
    lines = err.split("\n")
    assert lines[0].startswith("llm: llm chunking of ") and "1 call" in lines[0]  # the estimate, before the call
    # no progress line: a log gets one per interval or on completion, and the call failed at once
    assert lines[1] == "llm: 0 calls made, 0 from the cache, 1 failed, 0 input tokens"
    assert "failed with HTTP 500: model crashed" in lines[2] and lines[3:] == [""] and SECRET not in err
    assert llm_endpoint_env.calls == 1


def test_cli_explain_and_diagnose_show_what_the_model_did(
    capsys, llm_endpoint_env: LoopbackLLM, doc_path: Path
) -> None:
    llm_endpoint_env.play(fallback=lambda r: Reply('```json\n{"section_starts": [7, 4]}\n```'))
    assert main(["explain", str(doc_path), "-s", "llm"]) == 0
    out = capsys.readouterr().out
    assert (
        "model loopback-model · 8 sentences · 1 window of at most 4,096 tokens (1 call) · 2 section starts (2 proposed) · "
        "repaired: answer: removed a Markdown code fence around the JSON, sorted the numbers\nchunks: 3\n"
    ) in out
    assert main(["diagnose", str(doc_path), "-s", "llm", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["strategy"] == "llm" and len(report["chunks"]) == 3
    assert llm_endpoint_env.calls == 1  # explain and diagnose: the same answer, from the cache


# ---- questions and answer quality through chunkviz's own command line ------------------------------
STATION = (
    "# Station 4\n\nThe station at Morrow Quay is visited every month by two volunteers.\n\n"
    "The spare batteries are kept in the blue box under the bench.\n"
)
VISITS = "The station at Morrow Quay is visited every month by two volunteers."
SPARES = "The spare batteries are kept in the blue box under the bench."


def station_model(request: dict) -> Reply:
    """Question generation gets two questions with exact excerpts; every other prompt (answering
    a question from the retrieved chunks) gets the same short answer."""
    user = request["messages"][-1]["content"]
    if "<<<" in user:
        questions = [{"question": "How often is the station visited?", "references": [VISITS]},
                     {"question": "Where are the spare batteries?", "references": [SPARES]}]  # fmt: skip
        return Reply(json.dumps({"questions": questions}))
    return Reply("It is visited every month by two volunteers.")


def test_questions_then_eval_with_answers_through_main(capsys, llm_endpoint_env: LoopbackLLM, tmp_path: Path) -> None:
    llm_endpoint_env.reset(fallback=station_model)
    doc, questions = tmp_path / "station.md", tmp_path / "questions.jsonl"
    doc.write_text(STATION, encoding="utf-8")
    assert main(["questions", str(doc), "--out", str(questions), "-n", "2", "--rounds", "1"]) == 0
    written = [json.loads(line) for line in questions.read_text(encoding="utf-8").splitlines()]
    assert [(q["question"], q["references"][0]["excerpt"]) for q in written] == [
        ("How often is the station visited?", VISITS), ("Where are the spare batteries?", SPARES)]  # fmt: skip
    assert llm_endpoint_env.calls == 1
    capsys.readouterr()
    argv = [
        "eval",
        str(doc),
        "--questions",
        str(questions),
        "-s",
        "paragraphs",
        "--k",
        "1",
        "--answers",
        "--json",
        str(tmp_path / "r.json"),
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "answer F1" in out.splitlines()[1]
    assert llm_endpoint_env.calls == 3  # one answer per question
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    f1 = [q["f1"] for q in report[0]["answers"]["questions"]] if "answers" in report[0] else None
    assert f1 is not None and f1[0] > 0.6 and f1[1] < 0.2  # the answer fits the first question only
    clear_memory()
    assert main(argv) == 0 and llm_endpoint_env.calls == 3  # answers come from the cache


def test_eval_answers_without_an_endpoint_fails_before_embedding(capsys, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("CHUNKVIZ_LLM_MODEL", raising=False)
    doc, questions = tmp_path / "station.md", tmp_path / "questions.jsonl"
    doc.write_text(STATION, encoding="utf-8")
    questions.write_text(json.dumps({"question": "Q?", "references": [VISITS]}) + "\n", encoding="utf-8")
    assert main(["eval", str(doc), "--questions", str(questions), "--answers"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no LLM endpoint is configured" in err
