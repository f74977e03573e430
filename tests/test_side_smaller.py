"""Issue 23, "Smaller": min/max parameter pairs, huge numbers in messages, malformed LLM base URLs
and JSONL line separators, each checked as a class (every strategy with a pair, every writer of
JSONL, every way a URL can be unusable), not only the issue's example.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.texts import SETTINGS, examples

from chunkviz.cli.commands import main
from chunkviz.core.errors import InvalidParamError
from chunkviz.core.jsonl import json_line
from chunkviz.evaluation.questions import Question, Reference, parse_questions, questions_to_jsonl
from chunkviz.formats.export import to_jsonl as export_jsonl
from chunkviz.formats.interop import to_jsonl as interop_jsonl
from chunkviz.llm.client import LLMClient, LLMSettings, LLMSettingsError, check_base_url
from chunkviz.strategies.base import min_max_pairs, registered, shown

# --------------------------------------------------------------------------- min <= max

PAIRED = [(s.name, low, high) for s in registered() for low, high in min_max_pairs(s.params_type)]


def test_the_pairs_are_found() -> None:
    assert ("paragraphs", "min_tokens", "max_tokens") in PAIRED and ("semantic", "min_tokens", "max_tokens") in PAIRED


@pytest.mark.parametrize(("strategy", "low", "high"), PAIRED)
@given(data=st.data())
@settings(max_examples=examples(25), **SETTINGS)
def test_every_min_above_its_max_is_refused_naming_the_min(
    strategy: str, low: str, high: str, data: st.DataObject
) -> None:
    spec = next(s for s in registered() if s.name == strategy)
    infos = {p.name: p for p in spec.params_info()}
    top = int(infos[high].maximum or 100_000)
    high_value = data.draw(st.integers(max(3, int(infos[high].minimum or 1)), min(top, int(infos[low].maximum or top))))
    low_value = data.draw(st.integers(int(infos[low].minimum or 0), int(infos[low].maximum or top)))
    if low_value > high_value:
        with pytest.raises(InvalidParamError) as error:
            spec.make_params({low: low_value, high: high_value})
        assert error.value.param == low and f"at most {high} ({high_value})" in str(error.value)
    else:
        spec.make_params({low: low_value, high: high_value})


@pytest.mark.parametrize("min_tokens", [257, 1_000, 100_000])
def test_semantic_min_tokens_above_the_models_limit_is_refused_when_max_tokens_is_0(min_tokens: int) -> None:
    spec = next(s for s in registered() if s.name == "semantic")
    with pytest.raises(InvalidParamError, match=r"at most the largest chunk, 256 tokens \(max_tokens=0"):
        spec.make_params({"min_tokens": min_tokens})
    spec.make_params({"min_tokens": 256})
    spec.make_params({"min_tokens": min_tokens, "max_tokens": 100_000})


# --------------------------------------------------------------------------- huge numbers in messages


@pytest.mark.parametrize("value", [1e308, 1.7e308, 10**20, 10**400, -(10**999), "9" * 5_000, "1e308", "x" * 10_000])
def test_a_huge_value_gives_a_short_message_for_every_numeric_parameter(value: object) -> None:
    for spec in registered():
        for info in spec.params_info():
            if info.type not in ("int", "float"):
                continue
            try:
                spec.make_params({info.name: value})
            except InvalidParamError as exc:
                assert len(str(exc)) < 300, str(exc)
                assert "0" * 30 not in str(exc) and "9" * 30 not in str(exc)


def test_shown() -> None:
    assert shown(10**308) == "1e+308"
    assert shown(-(10**400)) == "a number of 401 digits"
    assert shown(12) == "12" and shown("abc") == "'abc'"
    assert shown("y" * 100).endswith("(102 characters)")


def test_the_cli_prints_a_short_message_for_1e308(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "d.md"
    doc.write_text("text\n")
    assert main(["chunk", str(doc), "-s", "fixed_tokens", "-p", "chunk_size=1e308"]) == 2
    err = capsys.readouterr().err
    assert "got 1e+308" in err and len(err) < 200


# --------------------------------------------------------------------------- LLM base URLs

BAD_URLS = [
    "notaurl",
    "localhost:11434/v1",
    "127.0.0.1:8080",
    "http://",
    "https:///v1",
    "ftp://host/v1",
    "http://host:99999/v1",
    "http://host:port/v1",
    "http://host:0/v1",
    "http://a b/v1",
    "http://host/v1\n",
    "http://[::1/v1",
    "//host/v1",
    "file:///etc/passwd",
]


@pytest.mark.parametrize("url", BAD_URLS)
def test_a_malformed_base_url_fails_before_any_call(url: str) -> None:
    with pytest.raises(LLMSettingsError, match="is not usable"):
        LLMClient(LLMSettings(base_url=url, model="m"))


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:1/v1", "https://api.example.org/v1", "http://[::1]:8080/v1", "HTTP://host"]
)
def test_good_base_urls_pass(url: str) -> None:
    check_base_url(url)


def test_credentials_never_appear_in_the_message() -> None:
    with pytest.raises(LLMSettingsError) as error:
        check_base_url("http://user:s3cret@host:notaport/v1")
    assert "s3cret" not in str(error.value)


@pytest.mark.parametrize("url", ["notaurl", "http://", "localhost:11434"])
def test_the_cli_refuses_the_flag_before_reading_anything(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["chunk", "/no/such/file.md", "-s", "llm", "--llm-base-url", url, "--llm-model", "m"]) == 2
    err = capsys.readouterr().err
    assert "--llm-base-url" in err and "is not usable" in err and "no/such" not in err


# --------------------------------------------------------------------------- JSONL line ends

#: every character str.splitlines() ends a line at, and lone surrogates
BREAKS = ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\ud800", "\udcff"]
TEXTS = st.lists(st.one_of(st.sampled_from(BREAKS), st.text(max_size=5)), max_size=12).map("".join)


def _check(out: str, values: list[object]) -> None:
    out.encode("utf-8")  # strict
    lines = out.splitlines()
    assert len(lines) == len(values)
    # what any JSON writer gives back (a high and a low surrogate in a row read back as one character)
    assert [json.loads(line) for line in lines] == [json.loads(json.dumps(v)) for v in values]


@given(st.lists(TEXTS, min_size=1, max_size=4))
@settings(max_examples=examples(80), **SETTINGS)
def test_every_jsonl_writer_keeps_one_record_per_line_for_any_text(texts: list[str]) -> None:
    records = [{"text": t, "metadata": {"k": t}} for t in texts]
    for writer in (export_jsonl, interop_jsonl):
        _check(writer(records), records)
    _check("".join(json_line(r, sort_keys=True) for r in records), records)


def test_question_files_and_batch_output_escape_line_separators(tmp_path: Path) -> None:
    from chunkviz.cli.batch.run import run_batch
    from chunkviz.evaluation.config import save_config

    doc = "First\u2028line\x85and\u2029more text that runs on for a while.\n"
    corpus = {"d.md": doc}
    written = questions_to_jsonl([Question("q\u2028?", (Reference("d.md", 0, 12),))], corpus)
    assert len(written.splitlines()) == 1
    assert parse_questions(written, corpus)[0].question == "q\u2028?"
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "d.md").write_text(doc)
    config = save_config(
        {"tokenizer": "chars", "columns": [{"strategy": "fixed_chars", "params": {"chunk_size": 10, "overlap": 0}}]},
        tmp_path / "c.json",
    )
    for fmt in ("jsonl", "langchain", "llamaindex"):
        out = tmp_path / f"{fmt}.jsonl"
        summary = run_batch([str(tmp_path / "in")], config, out, fmt=fmt, progress=None)
        brackets = 2 if fmt == "llamaindex" else 0  # a JSON list: "[" and "]" on lines of their own
        assert len(out.read_text(encoding="utf-8").splitlines()) == summary.chunks + brackets > 3


@pytest.mark.parametrize("text", ["9" * 31, "9" * 5_000, "-" + "1" * 4_400, "x" * 10_000])
def test_a_command_line_count_of_thousands_of_digits_is_a_short_error(text: str) -> None:
    import argparse

    from chunkviz.core.argtypes import whole_number

    with pytest.raises(argparse.ArgumentTypeError) as error:
        whole_number(1, 1024, "a number of processes")(text)
    message = str(error.value)
    assert len(message) < 120 and text[:35] not in message
    assert ("digits" if text.lstrip("-").isdigit() else "characters)") in message
    assert whole_number(1, None)("1" * 30) == int("1" * 30)


@pytest.mark.parametrize(
    "value", ["[" * 40, "[" * 100_000, '["a", ' + "[" * 5_000 + "]" * 5_000 + "]", "[" + "7" * 5_000 + "]"]
)
def test_a_deep_or_huge_json_list_parameter_on_the_command_line_is_the_parameters_error(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = tmp_path / "d.md"
    doc.write_text("text\n")
    assert main(["chunk", str(doc), "-s", "recursive", "-p", f"separators={value}"]) == 2
    err = capsys.readouterr().err
    assert "parameter 'separators'" in err and len(err) < 400 and "RecursionError" not in err
