"""The command line (chunkviz.cli.commands), in-process with capsys and as a real ``python -m chunkviz``."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import chunkviz
from chunkviz.cli import commands as cli
from chunkviz.core.vocabulary import BOUNDARY_LABELS, REASON_LABELS
from chunkviz.diagnostics.hygiene import HygieneRules
from chunkviz.document import Document
from chunkviz.document.read import MAX_BYTES
from chunkviz.formats.export import RECORD_FIELDS
from chunkviz.formats.external.formats import cli_formats
from chunkviz.formats.interop import INTEROP_FORMATS
from chunkviz.strategies.base import get_strategy, registered
from chunkviz.strategies.peers import is_peer
from chunkviz.text.tokenizers import TokenizerUnavailable, get_tokenizer

REPO_ROOT = Path(__file__).resolve().parents[1]

RECORD_KEYS = {
    "index",
    "start",
    "end",
    "text",
    "reason",
    "boundary",
    "parent",
    "level",
    "added_text",
    "token_count",
    "metadata",
}

# CRLF line endings, non-ASCII text and a repeated paragraph (a `find`-based splitter would
# give the second copy the first one's offsets).
DOC_TEXT = (
    "# Café notes\r\n\r\n"
    "The same paragraph appears twice. It has two sentences.\r\n\r\n"
    "Naïve façade — “quoted” text with an emoji 👍 and more words to fill the line.\r\n\r\n"
    "The same paragraph appears twice. It has two sentences.\r\n\r\n"
    "Last line without a newline"
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def doc_path(tmp_path: Path) -> Path:
    path = tmp_path / "doc.md"
    path.write_bytes(DOC_TEXT.encode("utf-8"))
    return path


def as_read(path: Path) -> str:
    """The file content as read: its bytes decoded, nothing normalized."""
    return path.read_bytes().decode("utf-8")


def check_records(records: list[dict], doc: str, tokenizer: str = "cl100k_base", covers: bool = True) -> None:
    """Exact spans with real counts; ``covers``: from the first character to the last (a peer's
    chunks may leave whitespace out: they are audited in test_peers, not held to our coverage)."""
    tok = get_tokenizer(tokenizer)
    assert records, "expected at least one chunk"
    for i, record in enumerate(records):
        assert set(record) == RECORD_KEYS
        assert record["index"] == i
        assert record["text"] == doc[record["start"] : record["end"]]
        assert record["token_count"] == tok.count(record["text"])
        assert isinstance(record["metadata"], dict)
    if covers:
        assert records[0]["start"] == 0
        assert max(r["end"] for r in records) == len(doc)


# ----------------------------------------------------------------------------- strategies


def test_strategies_json_lists_every_registered_strategy_with_params(capsys) -> None:
    code, out, err = run(capsys, "strategies", "--json")
    assert (code, err) == (0, "")
    listed = json.loads(out)
    assert [s["name"] for s in listed] == [s.name for s in registered()]
    assert listed == chunkviz.strategies()
    for spec in listed:
        assert spec["description"]
        for p in spec["params"]:
            assert {"name", "type", "default", "range", "help"} <= set(p)
    recursive = next(s for s in listed if s["name"] == "recursive")
    assert {p["name"] for p in recursive["params"]} >= {"chunk_size", "overlap", "separators"}


def test_strategies_human_format(capsys) -> None:
    code, out, err = run(capsys, "strategies")
    assert (code, err) == (0, "")
    blocks = out.rstrip("\n").split("\n\n")  # one block per strategy
    described = chunkviz.strategies()
    assert len(blocks) == len(described)
    for block, spec in zip(blocks, described):
        lines = block.splitlines()
        assert lines[0] == f"{spec['name']}: {spec['description']}"
        for p in spec["params"]:
            line = next(line for line in lines[1:] if line.strip().startswith(p["name"] + " "))
            assert p["type"] in line and p["range"] in line and p["help"] in line
    assert "chunk_size  int" in out


# ----------------------------------------------------------------------------- chunk


def test_chunk_jsonl_records_are_exact_spans(capsys, doc_path: Path) -> None:
    code, out, err = run(capsys, "chunk", str(doc_path), "-s", "recursive", "-p", "chunk_size=20", "-p", "overlap=0")
    assert code == 0
    assert err == "note: line endings are CRLF (kept as-is; offsets count each \\r)\n"
    assert out.endswith("\n")
    records = [json.loads(line) for line in out.splitlines()]
    doc = as_read(doc_path)
    check_records(records, doc)
    assert len(records) > 2
    # the repeated paragraph is found at both of its places
    found = sorted({r["start"] + r["text"].index("The same") for r in records if "The same" in r["text"]})
    assert found == [doc.index("The same"), doc.rindex("The same")]
    # ensure_ascii=False: the text is written as UTF-8, not \u escapes
    assert "Café" in out and "👍" in out


@pytest.mark.parametrize("name", [s.name for s in registered()])
def test_every_strategy_gives_exact_spans_through_the_cli(capsys, doc_path: Path, name: str) -> None:
    code, out, err = run(capsys, "chunk", str(doc_path), "-s", name, "--tokenizer", "words")
    assert code == 0, err
    check_records([json.loads(line) for line in out.splitlines()], as_read(doc_path), "words", covers=not is_peer(name))


def test_chunk_with_words_tokenizer_counts_words(capsys, doc_path: Path) -> None:
    code, out, _ = run(
        capsys,
        "chunk",
        str(doc_path),
        "-s",
        "fixed_tokens",
        "-p",
        "chunk_size=5",
        "-p",
        "overlap=2",
        "--tokenizer",
        "words",
    )
    assert code == 0
    records = [json.loads(line) for line in out.splitlines()]
    check_records(records, as_read(doc_path), "words")
    assert all(r["token_count"] <= 5 for r in records)


def test_chunk_json_format_equals_jsonl(capsys, doc_path: Path) -> None:
    args = ["chunk", str(doc_path), "-s", "recursive", "-p", "chunk_size=15", "-p", "overlap=3"]
    _, jsonl, _ = run(capsys, *args)
    code, out, _ = run(capsys, *args, "--format", "json")
    assert code == 0
    records = json.loads(out)
    assert records == [json.loads(line) for line in jsonl.splitlines()]
    check_records(records, as_read(doc_path))


def test_chunk_csv_format(capsys, doc_path: Path) -> None:
    code, out, _ = run(
        capsys, "chunk", str(doc_path), "-s", "recursive", "-p", "chunk_size=15", "-p", "overlap=5", "--format", "csv"
    )
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out, newline="")))
    assert rows and list(rows[0]) == list(RECORD_FIELDS)
    doc = as_read(doc_path)
    for i, row in enumerate(rows):
        start, end = int(row["start"]), int(row["end"])
        assert int(row["index"]) == i
        assert row["text"] == doc[start:end]  # CRLF inside quoted fields survives
        assert int(row["token_count"]) == get_tokenizer("cl100k_base").count(row["text"])
        assert isinstance(json.loads(row["metadata"]), dict)
        assert row["parent"] == ""


def test_chunk_text_format(capsys, doc_path: Path) -> None:
    code, out, _ = run(
        capsys,
        "chunk",
        str(doc_path),
        "-s",
        "fixed_chars",
        "-p",
        "chunk_size=60",
        "-p",
        "overlap=10",
        "--format",
        "text",
    )
    assert code == 0
    headers = [line for line in out.splitlines() if line.startswith("--- chunk ")]
    doc = as_read(doc_path)
    chunks = chunkviz.chunk(doc, "fixed_chars", chunk_size=60, overlap=10)
    assert len(headers) == len(chunks) > 1
    first = chunks[0]
    tokens = get_tokenizer("cl100k_base").count(first.text)
    # the header names why the chunk ends (reason) and where that cut falls (boundary), with labels
    assert headers[0] == (
        f"--- chunk 0 [0:60] 60 chars, {tokens} tokens, ends at: {first.reason} "
        f"({REASON_LABELS[first.reason]}; cut at: {BOUNDARY_LABELS[first.boundary]}) ---"
    )
    assert doc[:60] in out
    assert out.splitlines()[-1] == (
        f"{len(headers)} chunks from {doc_path} ({len(doc)} characters), strategy fixed_chars, tokenizer cl100k_base"
    )


def test_json_list_param(capsys, doc_path: Path) -> None:
    code, out, err = run(
        capsys,
        "chunk",
        str(doc_path),
        "-s",
        "recursive",
        "-p",
        'separators=["\\r\\n\\r\\n", " "]',
        "-p",
        "chunk_size=30",
        "-p",
        "overlap=0",
    )
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    check_records(records, as_read(doc_path))


def test_string_param_preset(capsys, doc_path: Path) -> None:
    code, out, err = run(
        capsys,
        "chunk",
        str(doc_path),
        "-s",
        "recursive",
        "-p",
        "separators=markdown",
        "-p",
        "chunk-size=30",
        "-p",
        "overlap=10",
    )
    assert code == 0, err
    check_records([json.loads(line) for line in out.splitlines()], as_read(doc_path))


def test_stdin_dash(capsys, monkeypatch) -> None:
    data = b"caf\xe9 \x93quoted\x94\r\nsecond line"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, out, err = run(capsys, "chunk", "-", "-s", "recursive", "-p", "chunk_size=3", "-p", "overlap=0")
    assert code == 0
    assert "note: decoded as cp1252 (not valid UTF-8)\n" in err
    check_records([json.loads(line) for line in out.splitlines()], data.decode("cp1252"))


@pytest.mark.parametrize(
    ("content", "note"), [(b"", "document is empty"), (b"  \r\n\t\n", "document contains only whitespace")]
)
@pytest.mark.parametrize("fmt", [f for f in cli_formats() if f not in INTEROP_FORMATS])  # those: test_interop
def test_empty_document_gives_zero_chunks(capsys, tmp_path: Path, content: bytes, note: str, fmt: str) -> None:
    path = tmp_path / "empty.txt"
    path.write_bytes(content)
    code, out, err = run(capsys, "chunk", str(path), "-s", "recursive", "--format", fmt)
    assert code == 0
    assert err == f"note: {note}\n"
    expected = {
        "jsonl": "",
        "json": "[]\n",
        "csv": ",".join(RECORD_FIELDS) + "\n",
        "text": f"0 chunks from {path} ({len(content)} characters), strategy recursive, tokenizer cl100k_base\n",
    }
    assert out == expected[fmt]


# ----------------------------------------------------------------------------- bad input


def _one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("chunkviz: error: ")
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (["-s", "nope"], "chunkviz: error: unknown strategy 'nope'; choose one of: "),
        (
            ["-s", "recursive", "-p", "bogus=1"],
            "chunkviz: error: recursive: parameter 'bogus' is unknown; valid parameters: chunk_size, overlap, separators",
        ),
        (
            ["-s", "recursive", "-p", "chunk_size=100", "-p", "overlap=100"],
            "chunkviz: error: recursive: parameter 'overlap' must be smaller than chunk_size (100), got 100",
        ),
        (
            ["-s", "fixed_tokens", "-p", "chunk_size=10", "-p", "overlap=20"],
            "chunkviz: error: fixed_tokens: parameter 'overlap' must be smaller than chunk_size (10), got 20",
        ),
        (
            ["-s", "recursive", "-p", "chunk_size=0"],
            "chunkviz: error: recursive: parameter 'chunk_size' must be in 1..100,000, got 0",
        ),
        (
            ["-s", "recursive", "-p", "chunk_size=-5"],
            "chunkviz: error: recursive: parameter 'chunk_size' must be in 1..100,000, got -5",
        ),
        (
            ["-s", "recursive", "-p", "chunk_size=abc"],
            "chunkviz: error: recursive: parameter 'chunk_size' must be an integer (1..100,000), got 'abc'",
        ),
        (["-s", "recursive", "-p", "chunk_size"], "chunkviz: error: -p expects key=value, got 'chunk_size'"),
        (["-s", "recursive", "-p", "=5"], "chunkviz: error: -p expects key=value, got '=5'"),
        (
            ["-s", "recursive", "-p", "separators=[1, 2]"],
            "chunkviz: error: recursive: parameter 'separators' must be a JSON list of strings",
        ),
        (
            ["-s", "recursive", "-p", "separators=[oops"],
            "chunkviz: error: recursive: parameter 'separators' must be a JSON list",
        ),
        (
            ["-s", "recursive", "--tokenizer", "nope"],
            "chunkviz: error: unknown tokenizer 'nope'; choose one of: cl100k_base",
        ),
        (
            [],
            "chunkviz: error: choose a strategy with -s NAME (see 'chunkviz strategies'), or give --config chunkviz.json",
        ),
        (["-s", "recursive", "--format", "xml"], "chunkviz: error: argument --format: invalid choice: 'xml'"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(capsys, doc_path: Path, extra: list[str], expected: str) -> None:
    code, out, err = run(capsys, "chunk", str(doc_path), *extra)
    assert code == 2
    assert out == ""
    assert _one_error_line(err).startswith(expected)


def test_unknown_strategy_lists_every_valid_name(capsys, doc_path: Path) -> None:
    _, _, err = run(capsys, "chunk", str(doc_path), "-s", "nope")
    line = _one_error_line(err)
    for spec in registered():
        assert spec.name in line


def test_tokenizer_unavailable_exits_2(capsys, doc_path: Path, monkeypatch) -> None:
    import chunkviz.text.tokenizers

    def unavailable(name):
        raise TokenizerUnavailable(f"tiktoken encoding {name!r} is not available offline:\nits data file is missing")

    monkeypatch.setattr(chunkviz.text.tokenizers, "get_tokenizer", unavailable)
    monkeypatch.setattr(cli, "get_tokenizer", unavailable)  # the CLI imports it at module level
    code, out, err = run(capsys, "chunk", str(doc_path), "-s", "recursive", "--tokenizer", "o200k_base")
    assert (code, out) == (2, "")
    assert _one_error_line(err) == (
        "chunkviz: error: tiktoken encoding 'o200k_base' is not available offline: its data file is missing"
    )


def test_missing_file(capsys, tmp_path: Path) -> None:
    missing = tmp_path / "missing.txt"
    code, out, err = run(capsys, "chunk", str(missing), "-s", "recursive")
    assert (code, out) == (2, "")
    assert _one_error_line(err) == f"chunkviz: error: file not found: {missing}"


@pytest.mark.parametrize(
    ("name", "data", "expected"),
    [
        ("scan.pdf", b"%PDF-1.5\n...", "could not be read as a PDF: "),  # PDFs are read now; this one is damaged
        ("pic.png", b"\x89PNG\r\n\x1a\n\x00\x00", "looks like a PNG image, not text"),
        ("blob.bin", b"abc\x00def", "looks like a binary file: it contains NUL bytes"),
    ],
)
def test_binary_file(capsys, tmp_path: Path, name: str, data: bytes, expected: str) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    code, out, err = run(capsys, "chunk", str(path), "-s", "recursive")
    assert (code, out) == (2, "")
    assert _one_error_line(err).startswith(f"chunkviz: error: {path} {expected}")


def test_too_large_file(capsys, tmp_path: Path) -> None:
    path = tmp_path / "huge.txt"
    with path.open("wb") as handle:
        handle.truncate(MAX_BYTES + 1)
    code, out, err = run(capsys, "chunk", str(path), "-s", "recursive")
    assert (code, out) == (2, "")
    assert _one_error_line(err) == (
        f"chunkviz: error: {path} is too large: 20,000,001 bytes (20 MB); the limit is 20 MB (20,000,000 bytes)"
    )


def test_no_command(capsys) -> None:
    code, out, err = run(capsys)
    assert (code, out) == (2, "")
    assert _one_error_line(err).startswith("chunkviz: error: choose a command: strategies, chunk, diagnose")


def test_help_exits_0(capsys) -> None:
    code, out, _ = run(capsys, "chunk", "--help")
    assert code == 0
    assert "--tokenizer" in out and "jsonl" in out


def test_diagnose_bad_input_is_also_one_line(capsys, doc_path: Path) -> None:
    code, out, err = run(capsys, "diagnose", str(doc_path), "-s", "recursive", "-p", "overlap=900")
    assert (code, out) == (2, "")
    assert "parameter 'overlap' must be smaller than chunk_size (128), got 900" in _one_error_line(err)


# ----------------------------------------------------------------------------- diagnose


class _FakeReport:
    def __init__(self, n_chunks: int) -> None:
        self.n_chunks = n_chunks

    def to_dict(self) -> dict:
        return {"chunks": self.n_chunks, "coverage": 1.0, "flags": ["café ✓"]}

    def summary_lines(self) -> list[str]:
        return [f"{self.n_chunks} chunks", "coverage 100%"]


@pytest.fixture
def fake_diagnostics(monkeypatch) -> list[dict]:
    calls: list[dict] = []

    def diagnose(document, chunks, *, tokenizer, strategy, params, hygiene_rules):
        calls.append(
            {"document": document, "chunks": chunks, "tokenizer": tokenizer, "strategy": strategy, "params": params}
        )
        assert hygiene_rules == HygieneRules()  # no --hygiene: the defaults
        return _FakeReport(len(chunks))

    monkeypatch.setattr(cli, "diagnose", diagnose)
    return calls


def test_diagnose_passes_document_chunks_and_params(capsys, doc_path: Path, fake_diagnostics: list[dict]) -> None:
    code, out, err = run(
        capsys,
        "diagnose",
        str(doc_path),
        "-s",
        "recursive",
        "-p",
        "chunk_size=20",
        "-p",
        "overlap=5",
        "--tokenizer",
        "words",
    )
    assert code == 0
    (call,) = fake_diagnostics
    # the reader's Document (with its format) is passed on, not only its text
    assert isinstance(call["document"], Document)
    assert call["document"].text == as_read(doc_path)
    assert call["chunks"] == chunkviz.chunk(call["document"], "recursive", tokenizer="words", chunk_size=20, overlap=5)
    assert call["tokenizer"].name == "words"
    assert call["strategy"] == "recursive"
    # the full validated parameters, defaults included
    assert call["params"] == dataclasses.asdict(get_strategy("recursive").make_params({"chunk_size": 20, "overlap": 5}))
    assert call["params"]["chunk_size"] == 20
    assert set(call["params"]) == {"chunk_size", "overlap", "separators"}
    assert out == f"{len(call['chunks'])} chunks\ncoverage 100%\n"
    assert err.startswith("note: line endings are CRLF")


def test_diagnose_json(capsys, doc_path: Path, fake_diagnostics: list[dict]) -> None:
    code, out, _ = run(
        capsys, "diagnose", str(doc_path), "-s", "fixed_chars", "-p", "chunk_size=50", "-p", "overlap=0", "--json"
    )
    assert code == 0
    assert json.loads(out) == {"chunks": len(fake_diagnostics[0]["chunks"]), "coverage": 1.0, "flags": ["café ✓"]}
    assert "café ✓" in out


def test_diagnose_with_the_real_module(capsys, doc_path: Path) -> None:
    pytest.importorskip("chunkviz.diagnostics")
    code, out, err = run(
        capsys, "diagnose", str(doc_path), "-s", "recursive", "-p", "chunk_size=20", "-p", "overlap=5", "--json"
    )
    assert code == 0, err
    assert isinstance(json.loads(out), dict)
    code, out, err = run(capsys, "diagnose", str(doc_path), "-s", "recursive", "-p", "chunk_size=20", "-p", "overlap=5")
    assert code == 0, err
    assert out.strip()


# ----------------------------------------------------------------------------- subprocess


def run_module(
    *argv: str, input: bytes | None = None, env_extra: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH", "")]))
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "chunkviz", *argv],
        input=input if input is not None else b"",
        capture_output=True,
        env=env,
        cwd=cwd,
        timeout=120,
    )


def test_python_m_chunkviz_chunk(tmp_path: Path, doc_path: Path) -> None:
    # ASCII stdout encoding on purpose: the CLI must still write UTF-8
    proc = run_module(
        "chunk",
        str(doc_path),
        "-s",
        "recursive",
        "-p",
        "chunk_size=20",
        "-p",
        "overlap=0",
        env_extra={"PYTHONIOENCODING": "ascii"},
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.decode("utf-8").splitlines()]
    check_records(records, as_read(doc_path))
    assert "Café".encode("utf-8") in proc.stdout


def test_python_m_chunkviz_stdin(tmp_path: Path) -> None:
    data = b"caf\xe9 \x93quoted\x94 and a second sentence here.\r\n"
    proc = run_module(
        "chunk", "-", "-s", "fixed_chars", "-p", "chunk_size=10", "-p", "overlap=2", input=data, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.decode().splitlines()[0] == "note: decoded as cp1252 (not valid UTF-8)"
    records = [json.loads(line) for line in proc.stdout.decode("utf-8").splitlines()]
    check_records(records, data.decode("cp1252"))


def test_python_m_chunkviz_error_is_one_line(tmp_path: Path, doc_path: Path) -> None:
    proc = run_module(
        "chunk", str(doc_path), "-s", "recursive", "-p", "overlap=1000", "-p", "chunk_size=10", cwd=tmp_path
    )
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert proc.stderr.decode("utf-8") == (
        "chunkviz: error: recursive: parameter 'overlap' must be smaller than chunk_size (10), got 1000\n"
    )


def test_python_m_chunkviz_strategies_json(tmp_path: Path) -> None:
    proc = run_module("strategies", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert [s["name"] for s in json.loads(proc.stdout)] == [s.name for s in registered()]


# ----------------------------------------------------------------------------- new model


def test_unexpected_error_is_one_line_never_a_traceback(capsys, doc_path: Path, monkeypatch) -> None:
    def boom(args):  # noqa: ANN001, ANN202
        raise KeyError("internal")

    monkeypatch.setitem(cli._COMMANDS, "chunk", boom)
    code, out, err = run(capsys, "chunk", str(doc_path), "-s", "fixed_chars")
    assert code == 1 and out == ""
    assert err.startswith("chunkviz: error: unexpected KeyError") and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_chunk_passes_the_readers_document_with_its_format(capsys, tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "guide.rst"
    path.write_text("Title\n=====\n\nIntro text.\n\nPart\n----\n\nBody.\n", encoding="utf-8")
    seen = []
    real_run = cli.guarded_run

    def spy(document, prepared, tokenizer, **kwargs):  # noqa: ANN001, ANN202, ANN003
        seen.append(document)
        return real_run(document, prepared, tokenizer, **kwargs)

    monkeypatch.setattr(cli, "guarded_run", spy)
    code, out, err = run(capsys, "chunk", str(path), "-s", "paragraphs")
    assert code == 0, err
    assert isinstance(seen[0], Document) and seen[0].format == "rst"


def test_explain_needs_a_strategy_with_an_explain_hook(capsys, doc_path: Path) -> None:
    code, _, err = run(capsys, "explain", str(doc_path), "-s", "fixed_chars")
    assert code == 2 and "has no analysis to show" in err


def test_strategies_says_which_extra_adds_the_missing_peers(capsys, monkeypatch) -> None:  # noqa: ANN001
    from chunkviz.cli import commands as cli
    from chunkviz.strategies.peers import catalogue

    monkeypatch.setattr(catalogue, "missing_modules", lambda info: ["semchunk"] if info.name == "semchunk" else [])
    monkeypatch.setattr(cli, "peer_notes", catalogue.peer_notes)
    assert cli.main(["strategies"]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().splitlines()[-1].startswith("not listed (their packages are not installed): semchunk — ")
    assert "chunkviz[peers]" in out.rstrip().splitlines()[-1]
