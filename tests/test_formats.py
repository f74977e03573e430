"""The output formats' registry (chunkviz.formats.external.formats): each format declared once, and the
CLI, batch, the app's downloads and the audit's readers all take it from there."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from chunkviz.cli import commands as cli
from chunkviz.cli.batch.run import run_batch
from chunkviz.cli.batch.state import make_layout, output_format
from chunkviz.core.types import Chunk
from chunkviz.document.model import Document
from chunkviz.evaluation.config import save_config
from chunkviz.formats.external import CHUNK_FORMATS
from chunkviz.formats.external.formats import (
    OutputFormat,
    app_formats,
    batch_formats,
    cli_formats,
    exports,
    get_format,
    output_formats,
    register_format,
    unregister_format,
)
from chunkviz.text.tokenizers import Tokenizer, get_tokenizer

TEXT = "Alpha beta gamma. Delta epsilon.\n\nZeta eta theta.\n"


def _spans(document: Document, chunks: Sequence[Chunk], tokenizer: Tokenizer, source: str) -> list[dict[str, Any]]:
    return [{"source": source, "span": [c.start, c.end]} for c in chunks]


def _spans_text(records: Sequence[Any]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


@pytest.fixture
def spans_format() -> Iterator[OutputFormat]:
    """A new format, registered for one test: one JSON line ``{"source", "span"}`` per chunk."""
    added = register_format(
        OutputFormat(
            "spans", "Spans", ".spans.jsonl", "application/jsonl", _spans, _spans_text, "lines", names_source=True
        )
    )
    yield added
    unregister_format("spans")


def test_a_registered_format_is_in_the_cli_batch_and_the_app(
    spans_format: OutputFormat, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "spans" in cli_formats() and "spans" in batch_formats() and spans_format in app_formats()
    # the CLI: a --format choice that writes it
    path = tmp_path / "doc.txt"
    path.write_text(TEXT, encoding="utf-8")
    argv = ["chunk", str(path), "-s", "fixed_chars", "-p", "chunk_size=20", "-p", "overlap=0", "--format", "spans"]
    assert cli.main(argv) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [TEXT[a:b] for a, b in (r["span"] for r in records)] == [TEXT[i : i + 20] for i in range(0, len(TEXT), 20)]
    # batch: a --format choice, its extension names the output, its records are joined as lines
    assert output_format("spans", str(tmp_path)) == "spans"
    assert make_layout(str(tmp_path / "out"), "spans", "0" * 16).output.name == "chunks.spans.jsonl"
    config = save_config(
        {"tokenizer": "chars", "columns": [{"strategy": "fixed_chars", "params": {"chunk_size": 20, "overlap": 0}}]},
        tmp_path / "chunkviz.json",
    )
    summary = run_batch([str(path)], config, tmp_path / "out", fmt="spans", progress=None)
    written = (tmp_path / "out" / "chunks.spans.jsonl").read_text("utf-8").splitlines()
    assert len(written) == summary.chunks == len(records) and json.loads(written[0])["span"] == [0, 20]
    # the app: a download of it
    document = Document(TEXT, name="doc.txt")
    chunks = [Chunk.from_span(TEXT, 0, 0, 20, reason="size_limit")]
    downloads = exports(document, chunks, get_tokenizer("chars"), "doc.txt")
    assert downloads["spans"] == '{"source": "doc.txt", "span": [0, 20]}\n'
    assert spans_format.file_name("doc.fixed_chars") == "doc.fixed_chars.spans.jsonl"


def test_llamaindex_is_one_json_list_everywhere(tmp_path: Path) -> None:
    llamaindex = get_format("llamaindex")
    assert (llamaindex.extension, llamaindex.mime, llamaindex.batch) == (".json", "application/json", "list")
    path = tmp_path / "doc.txt"
    path.write_text(TEXT, encoding="utf-8")
    config = save_config(
        {"tokenizer": "chars", "columns": [{"strategy": "fixed_chars", "params": {"chunk_size": 20, "overlap": 0}}]},
        tmp_path / "chunkviz.json",
    )
    run_batch([str(path), str(path)], config, tmp_path / "out", fmt="llamaindex", progress=None)
    nodes = json.loads((tmp_path / "out" / "chunks.json").read_text("utf-8"))  # batch wrote .jsonl before
    assert [(n["start_char_idx"], n["end_char_idx"]) for n in nodes] == [(i, min(i + 20, len(TEXT))) for i in range(0, len(TEXT), 20)]  # fmt: skip


def test_every_format_is_named_once_and_read_back_by_an_audit_reader() -> None:
    names = [f.name for f in output_formats()]
    assert len(names) == len(set(names))
    assert cli_formats() == ["jsonl", "json", "csv", "text", "langchain", "llamaindex"]
    assert batch_formats() == ["jsonl", "langchain", "llamaindex", "parquet"]
    assert [f.name for f in app_formats()] == ["jsonl", "json", "csv", "langchain", "llamaindex"]
    assert all(f.reader in CHUNK_FORMATS for f in output_formats() if f.reader is not None)
    with pytest.raises(ValueError, match="unknown output format 'xml'; choose one of: jsonl, json"):
        get_format("xml")
