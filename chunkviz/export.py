"""Chunk records and configuration exports shared by the CLI and the app."""

from __future__ import annotations

import csv
import io
import json
import shlex
from typing import Any, Mapping, Sequence

from chunkviz.counts import TokenCounter
from chunkviz.tokenizers import Tokenizer
from chunkviz.types import Chunk

RECORD_FIELDS = (
    "index", "start", "end", "text", "reason", "boundary", "parent", "level", "added_text", "token_count", "metadata",
)
FORMATS = ("jsonl", "json", "csv")


def chunk_records(chunks: Sequence[Chunk], tokenizer: Tokenizer, text: str | None = None) -> list[dict[str, Any]]:
    """One JSON-ready record per chunk (``Chunk.to_record``: with its ``reason`` and ``boundary``)
    and its token count from :mod:`chunkviz.counts` (pass the document ``text`` to count spans
    on its one tokenization)."""
    counter = TokenCounter(text, tokenizer)
    return [c.to_record(token_count=counter.tokens(c)) for c in chunks]


def to_jsonl(records: Sequence[Mapping[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in records)


def to_json(records: Sequence[Mapping[str, Any]]) -> str:
    return json.dumps(list(records), indent=2, ensure_ascii=False, default=str) + "\n"


def to_csv(records: Sequence[Mapping[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=RECORD_FIELDS, lineterminator="\n")
    writer.writeheader()
    for record in records:
        row = dict(record)
        row["metadata"] = json.dumps(record["metadata"], ensure_ascii=False, sort_keys=True, default=str)
        row["parent"] = "" if record["parent"] is None else record["parent"]
        writer.writerow(row)
    return out.getvalue()


def serialize(records: Sequence[Mapping[str, Any]], fmt: str) -> str:
    """Records as ``jsonl``, ``json`` or ``csv`` text."""
    if fmt == "jsonl":
        return to_jsonl(records)
    if fmt == "json":
        return to_json(records)
    if fmt == "csv":
        return to_csv(records)
    raise ValueError(f"unknown export format {fmt!r}; choose one of: {', '.join(FORMATS)}")


def _param_text(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return json.dumps(list(value), ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def cli_command(file: str, strategy: str, params: Mapping[str, Any], tokenizer: str, fmt: str = "jsonl") -> str:
    """The equivalent ``chunkviz chunk`` command line."""
    parts = ["chunkviz", "chunk", file, "-s", strategy]
    for key, value in params.items():
        parts += ["-p", f"{key}={_param_text(value)}"]
    parts += ["--tokenizer", tokenizer, "--format", fmt]
    return " ".join(shlex.quote(p) for p in parts)


def python_snippet(file: str, strategy: str, params: Mapping[str, Any], tokenizer: str) -> str:
    """A Python snippet that reproduces the chunking."""
    args = "".join(f", {key}={value!r}" for key, value in params.items())
    return (
        "import chunkviz\n"
        "from chunkviz.document.read import read_path\n\n"
        f"text = read_path({file!r}).text\n"
        f"chunks = chunkviz.chunk(text, {strategy!r}, tokenizer={tokenizer!r}{args})\n"
        "for c in chunks:\n"
        "    print(c.index, c.start, c.end, c.reason, repr(c.text[:60]))\n"
    )
