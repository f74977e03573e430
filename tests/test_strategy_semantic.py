"""The ``semantic`` strategy: registry hooks, vocabulary of its cuts, the extra, and the CLI."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from support.semantic import MINILM_LIMIT, SHIFTS, TOPIC_SENTENCES, TOPIC_TEXT

from chunkviz.cli import commands as cli
from chunkviz.document.sentences import get_segmenter
from chunkviz.semantic import DEFAULT_MODEL


# ============================================================================ CLI
def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def topic_file(tmp_path: Path, topic) -> Path:
    path = tmp_path / "topics.txt"
    path.write_bytes(TOPIC_TEXT.encode("utf-8"))
    return path


def test_cli_similarities_json(capsys, topic_file: Path) -> None:
    code, out, err = run_cli(capsys, "similarities", str(topic_file), "--json")
    assert code == 0, err
    report = json.loads(out)
    required = {
        "sentences",
        "similarities",
        "threshold",
        "threshold_type",
        "metric",
        "breakpoints",
        "size_splits",
        "chunks",
        "model",
        "segmenter",
        "max_tokens",
    }
    assert required <= set(report)
    n = len(report["sentences"])
    assert n == 30 and len(report["similarities"]) == n - 1
    assert all(set(s) == {"start", "end"} for s in report["sentences"])
    assert [TOPIC_TEXT[s["start"] : s["end"]] for s in report["sentences"]] == TOPIC_SENTENCES
    assert report["threshold_type"] == "percentile" and report["metric"] == "similarity"
    assert isinstance(report["threshold"], float)
    assert all(0 <= i < n - 1 for i in report["breakpoints"] + report["size_splits"])
    assert set(report["breakpoints"]) == SHIFTS and report["size_splits"] == []
    assert report["model"] == DEFAULT_MODEL and report["max_tokens"] == MINILM_LIMIT
    assert report["segmenter"] == get_segmenter().name
    # chunk records are exactly those of `chunkviz chunk -s semantic`
    code, jsonl, err = run_cli(capsys, "chunk", str(topic_file), "-s", "semantic")
    assert code == 0, err
    assert report["chunks"] == [json.loads(line) for line in jsonl.splitlines()]
    for record in report["chunks"]:
        assert record["text"] == TOPIC_TEXT[record["start"] : record["end"]]


def test_cli_similarities_params_and_tokenizer(capsys, topic_file: Path) -> None:
    code, out, err = run_cli(
        capsys,
        "similarities",
        str(topic_file),
        "--json",
        "-p",
        "threshold_type=gradient",
        "-p",
        "percentile=90",
        "-p",
        "max-tokens=64",
        "--tokenizer",
        "words",
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["metric"] == "distance_gradient" and report["threshold_type"] == "gradient"
    assert report["max_tokens"] == 64 and report["size_splits"]
    assert report["size_splits"] == sorted(report["size_splits"])
    assert all(r["metadata"]["model_tokens"] <= 64 for r in report["chunks"])
    assert all(r["token_count"] == len(r["text"].split()) for r in report["chunks"])


def test_cli_similarities_stdin_and_fewer_than_two_sentences(capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"Only one sentence here.\n")))
    code, out, err = run_cli(capsys, "similarities", "-", "--json")
    assert code == 0, err
    report = json.loads(out)  # valid JSON: no NaN
    assert report["threshold"] is None
    assert report["similarities"] == [] and report["breakpoints"] == [] and len(report["sentences"]) == 1
    assert len(report["chunks"]) == 1


def test_cli_similarities_human_summary(capsys, topic_file: Path) -> None:
    # the human summary is now the explanation's one-line summary() (the CLI prints it for any
    # explaining strategy); the breakpoint listing is in the --json report
    code, out, err = run_cli(capsys, "similarities", str(topic_file))
    assert code == 0, err
    assert "30 sentences · segmenter " in out
    assert re.search(r"· similarity threshold -?\d\.\d{3} = 5th percentile of \d+ pairs · 2 breakpoints · ", out), out
    assert "0 cuts forced by max_tokens (256 model tokens)\n" in out
    assert "chunks: 3\n" in out
    assert f"model {DEFAULT_MODEL}" in out


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        (["-p", "percentile=150"], "chunkviz: error: semantic: parameter 'percentile' must be in 0..100, got 150.0"),
        (
            ["-p", "threshold_type=median"],
            "chunkviz: error: semantic: parameter 'threshold_type' must be one of percentile, ",
        ),
        (
            ["-p", "bogus=1"],
            "chunkviz: error: semantic: parameter 'bogus' is unknown; valid parameters: threshold_type, ",
        ),
        (["-p", "buffer_size=x"], "chunkviz: error: semantic: parameter 'buffer_size' must be an integer"),
        (
            ["-p", "model=chunkviz-tests/no-such-model"],
            "chunkviz: error: cannot load embedding model 'chunkviz-tests/no-such-model' offline",
        ),
        (["-s", "recursive"], "chunkviz: error: unrecognized arguments: -s recursive"),
    ],
)
@pytest.mark.timeout(60)
def test_cli_similarities_bad_input_exits_2(capsys, topic_file: Path, params: list[str], expected: str) -> None:
    code, out, err = run_cli(capsys, "similarities", str(topic_file), *params)
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert lines[0].startswith(expected), lines[0]


def test_cli_similarities_missing_file(capsys, tmp_path: Path) -> None:
    code, out, err = run_cli(capsys, "similarities", str(tmp_path / "missing.txt"))
    assert code == 2 and out == ""
    assert err.startswith("chunkviz: error: ") and len(err.splitlines()) == 1


# ============================================================================ the strategy
def test_strategy_reasons_follow_the_vocabulary(topic) -> None:
    import chunkviz
    from chunkviz.core.types import Boundary, Reason
    from chunkviz.core.vocabulary import Meta

    chunks = chunkviz.chunk(TOPIC_TEXT, "semantic", max_tokens=64)
    reasons = {c.reason for c in chunks}
    # a cut forced by max_tokens is size_limit (was max_tokens); breakpoints stay semantic_breakpoint
    assert reasons == {Reason.SEMANTIC_BREAKPOINT, Reason.SIZE_LIMIT, Reason.END_OF_DOCUMENT}
    assert all(c.boundary == Boundary.SENTENCE for c in chunks[:-1]) and chunks[-1].boundary == Boundary.DOCUMENT_END
    tiny = chunkviz.chunk(TOPIC_TEXT, "semantic", max_tokens=3)
    split = [c for c in tiny if c.metadata.get(Meta.SPLIT_UNIT)]
    # budget 1: one wordpiece per chunk, so words are cut too
    assert split and {c.boundary for c in split} <= {
        Boundary.WORD,
        Boundary.INSIDE_WORD,
        Boundary.SENTENCE,
        Boundary.DOCUMENT_END,
    }
    assert {c.reason for c in split} <= {Reason.SIZE_LIMIT, Reason.SEMANTIC_BREAKPOINT, Reason.END_OF_DOCUMENT}
    assert not any(c.metadata.get(Meta.OVER_SIZE_LIMIT) for c in tiny)


def test_strategy_equals_the_explanation_chunks(topic) -> None:
    import chunkviz

    assert tuple(chunkviz.chunk(TOPIC_TEXT, "semantic")) == topic.chunks
