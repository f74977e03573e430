"""Issue 23 items 9 and 10: side files (configurations and question files) are read within
bounds, and every problem is ``FILE, line N: what to fix`` (exit 2), never a Python-internal
message. Checked on generated files of each class: other depths, bracket kinds, digit counts,
line positions and cell sizes than the issue's examples.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest

from chunkviz.cli.commands import main
from chunkviz.core.limits import (
    MAX_CONFIG_COLUMNS,
    MAX_CONFIG_TEXT_CHARS,
    MAX_SIDE_FILE_DEPTH,
    MAX_SIDE_FILE_DIGITS,
)
from chunkviz.core.sidefile import check_depth, parse_json
from chunkviz.evaluation import config as config_module
from chunkviz.evaluation.config import ConfigError, load_config
from chunkviz.evaluation.questions import QuestionFileError, load_questions, parse_questions

DOC = "The gauge at the north station read 3.5 m at dawn. The river rose again by noon.\n"
CORPUS = {"doc.md": DOC}
GOOD = '{"question": "What did the gauge read?", "references": [{"excerpt": "read 3.5 m at dawn"}]}'
INTERNAL = ("RecursionError", "set_int_max_str_digits", "field larger than field limit", "MemoryError", "Traceback")


def nested(depth: int, kind: str) -> str:
    """A JSON value ``depth`` levels deep: lists, objects or both alternating."""
    if kind == "list":
        return "[" * depth + "]" * depth
    if kind == "object":
        return '{"a":' * depth + "1" + "}" * depth
    return _alternating(depth)


def _alternating(depth: int) -> str:
    """Objects and lists in turn (``{"k": [{"k": [...]}]}``)."""
    opens = "".join("[" if i % 2 else '{"k": ' for i in range(depth))
    closes = "".join("]" if i % 2 else "}" for i in reversed(range(depth)))
    return opens + "0" + closes


def no_internal(message: str) -> None:
    assert not any(word in message for word in INTERNAL), message


# --------------------------------------------------------------------------- nesting


@pytest.mark.parametrize("depth", [MAX_SIDE_FILE_DEPTH + 1, 1_000, 100_000, 250_000])
@pytest.mark.parametrize("kind", ["list", "object", "mixed"])
def test_deep_json_in_a_question_line_names_the_line(depth: int, kind: str) -> None:
    value = nested(depth, kind)
    line = 2 + depth % 5
    lines = [GOOD] * (line - 1) + [json.dumps({"question": "q", "references": [{"excerpt": "x"}], "x": 0})[:-1]]
    lines[-1] += f', "extra": {value}}}'
    with pytest.raises(QuestionFileError) as error:
        parse_questions("\n".join(lines) + "\n", CORPUS, format="jsonl", name="q.jsonl")
    assert str(error.value).startswith(f"q.jsonl, line {line}: JSON nested more than {MAX_SIDE_FILE_DEPTH} levels")
    no_internal(str(error.value))


def test_deep_json_in_a_csv_references_cell_names_the_row(tmp_path: Path) -> None:
    rows = [["question", "references", "corpus_id"], ["q1", "[" * 5_000 + "]" * 5_000, "doc"]]
    path = tmp_path / "q.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    with pytest.raises(QuestionFileError, match=r"q\.csv, line 2: JSON nested more than"):
        load_questions(path, CORPUS)


@pytest.mark.parametrize("depth", [40, 5_000, 100_000])
def test_deep_json_in_a_config_names_the_line(tmp_path: Path, depth: int) -> None:
    path = tmp_path / "c.json"
    path.write_text(
        '{\n"version": 1,\n"columns": [{"strategy": "recursive", "params": {"separators": '
        + _alternating(depth)
        + "}}]}\n"
    )
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value).startswith(f"{path}, line 3: JSON nested more than")
    no_internal(str(error.value))


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    text = json.dumps({"question": "[" * 10_000 + "{" * 10_000, "references": [{"excerpt": "read 3.5 m at dawn"}]})
    assert parse_questions(text, CORPUS, format="jsonl")[0].question.startswith("[[[")
    check_depth('"\\"' + "[" * 100 + '"', lambda line, message: AssertionError(message))  # an escaped quote


# --------------------------------------------------------------------------- numbers


@pytest.mark.parametrize("digits", [MAX_SIDE_FILE_DIGITS + 1, 4_301, 5_000, 60_000])
@pytest.mark.parametrize("sign", ["", "-"])
def test_huge_offsets_in_questions_are_the_files_error(tmp_path: Path, digits: int, sign: str) -> None:
    number = sign + "9" + "1234567890" * (digits // 10) + "7" * (digits % 10 - 1 if digits % 10 else 9)
    jsonl = f'{GOOD}\n{{"question": "q", "references": [{{"start": {number}, "end": 10}}]}}\n'
    with pytest.raises(QuestionFileError) as error:
        parse_questions(jsonl, CORPUS, format="jsonl", name="q.jsonl")
    assert str(error.value).startswith("q.jsonl, line 2: a whole number of")
    no_internal(str(error.value))
    cell = json.dumps([{"content": "x", "start_index": 0, "end_index": 1}]).replace(": 1}", f": {number}}}")
    path = tmp_path / "q.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["question", "references", "corpus_id"], ["q", cell, "doc"]])
    with pytest.raises(QuestionFileError, match=r"q\.csv, line 2: a whole number of"):
        load_questions(path, CORPUS)


def test_a_huge_number_in_a_config_is_its_error(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text('{"columns": [\n{"strategy": "recursive",\n"params": {"chunk_size": ' + "8" * 5_000 + "}}]}")
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value).startswith(f"{path}, line 3: a whole number of 5,000 digits")
    assert parse_json("[" + "1" * MAX_SIDE_FILE_DIGITS + "]", lambda line, m: AssertionError(m)) == [
        int("1" * MAX_SIDE_FILE_DIGITS)
    ]


# --------------------------------------------------------------------------- CSV cells


@pytest.mark.parametrize("size", [csv.field_size_limit() + 1, 200_000])
@pytest.mark.parametrize("fill", ["x", "é", "日", ",,"])
def test_a_csv_cell_over_the_readers_limit_names_the_line(tmp_path: Path, size: int, fill: str) -> None:
    rows = [["question", "references", "corpus_id"]]
    start = DOC.index("read 3.5 m at dawn")
    good = json.dumps([{"content": "read 3.5 m at dawn", "start_index": start, "end_index": start + 18}])
    rows += [[f"q{i}", good, "doc"] for i in range(size % 3)]
    rows.append([fill * (size // len(fill) + 1), good, "doc"])
    path = tmp_path / "q.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    with pytest.raises(QuestionFileError) as error:
        load_questions(path, CORPUS)
    assert str(error.value).startswith(f"{path}, line {len(rows)}: a cell of more than")
    no_internal(str(error.value))


def test_a_nul_in_a_csv_is_the_files_error(tmp_path: Path) -> None:
    path = tmp_path / "q.csv"
    path.write_bytes(b'question,references,corpus_id\n"q\x00",[],doc\n')
    with pytest.raises(QuestionFileError, match=r"line 2: "):
        load_questions(path, CORPUS)


# --------------------------------------------------------------------------- sizes and the BOM


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_dev_zero_as_config_or_questions_is_refused_as_a_device_before_reading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A device is no side file (issue 36 item 16): refused at once, not read up to the size limit."""
    doc = tmp_path / "doc.md"
    doc.write_text(DOC)
    device = "is a character device, not a regular file; give the file itself (a pipe or a device is not read)"
    assert main(["chunk", str(doc), "--config", "/dev/zero"]) == 2
    assert capsys.readouterr().err == f"chunkviz: error: /dev/zero {device}\n"
    assert main(["eval", str(doc), "--questions", "/dev/zero"]) == 2
    assert capsys.readouterr().err == f"chunkviz: error: /dev/zero: {device}\n"


@pytest.mark.parametrize("limit", [64, 1_000])
def test_a_config_one_byte_over_the_limit_is_refused_and_at_the_limit_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: int
) -> None:
    monkeypatch.setattr(config_module, "MAX_CONFIG_BYTES", limit)
    body = '{"strategy": "recursive"}'
    path = tmp_path / "c.json"
    path.write_text(body + " " * (limit - len(body)))
    assert load_config(path).columns[0].strategy == "recursive"
    path.write_text(body + " " * (limit - len(body) + 1))
    with pytest.raises(ConfigError, match="is larger than"):
        load_config(path)


def test_a_long_title_or_many_columns_are_refused_before_the_work(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    title = "Ω" * (MAX_CONFIG_TEXT_CHARS + 1)
    path.write_text(json.dumps({"enrichment": {"title": title}, "strategy": "recursive"}))
    with pytest.raises(ConfigError, match=f"enrichment.title: {MAX_CONFIG_TEXT_CHARS + 1:,} characters"):
        load_config(path)
    path.write_text(json.dumps({"columns": [{"strategy": "fixed_chars"}] * (MAX_CONFIG_COLUMNS + 1)}))
    with pytest.raises(ConfigError, match=f"{MAX_CONFIG_COLUMNS + 1:,} columns; a configuration may have at most"):
        load_config(path)
    path.write_text(json.dumps({"columns": [{"strategy": "fixed_chars"}] * MAX_CONFIG_COLUMNS}))
    assert len(load_config(path).columns) == MAX_CONFIG_COLUMNS


def test_a_question_upload_over_the_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from chunkviz.evaluation import questions

    monkeypatch.setattr(questions, "MAX_QUESTION_FILE_BYTES", 100)
    with pytest.raises(QuestionFileError, match="upload.jsonl: is larger than"):
        load_questions((GOOD + "\n").encode() * 2, CORPUS, name="upload.jsonl")
    with pytest.raises(QuestionFileError, match="is larger than"):
        parse_questions((GOOD + "\n") * 2, CORPUS)


@pytest.mark.parametrize(
    "config",
    [
        {"strategy": "recursive"},
        {"version": 1, "columns": [{"strategy": "paragraphs", "params": {"max_tokens": 64}}], "enrichment": None},
        {"strategy": "fixed_chars", "params": {"chunk_size": 50, "overlap": 5}, "tokenizer": "chars"},
    ],
)
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_config_with_a_utf8_bom_is_read_like_one_without(tmp_path: Path, config: dict, newline: str) -> None:
    plain, with_bom = tmp_path / "plain.json", tmp_path / "bom.json"
    text = json.dumps(config, indent=2).replace("\n", newline)
    plain.write_bytes(text.encode())
    with_bom.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert load_config(with_bom) == load_config(plain)


def test_the_cli_reports_a_bad_question_file_as_file_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(DOC)
    questions = tmp_path / "q.jsonl"
    questions.write_text(GOOD + "\n" + GOOD.replace('"excerpt": "read 3.5 m at dawn"', '"x": ' + "[" * 50_000))
    assert main(["eval", str(doc), "--questions", str(questions)]) == 2
    err = capsys.readouterr().err
    assert f"{questions}, line 2: JSON nested more than" in err
    no_internal(err)
