"""Chunk records and configuration exports shared by the CLI and the app.

CSV is the spreadsheet format, so its cells are written safe to open (OWASP's CSV injection
advice): a text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return,
which a spreadsheet would run as a formula, gets a leading apostrophe; so does a cell that
already starts with an apostrophe, so that removing the first character of every cell starting
with ``'`` gives the exact text back. Text cells are always quoted (a chunk may hold a lone
carriage return). JSON and JSONL are written exactly (JSONL by :mod:`chunkviz.core.jsonl`: no
character inside a record ends its line for any reader).
"""

from __future__ import annotations

import csv
import io
import json
import shlex
from typing import Any, Mapping, Sequence

from chunkviz.core.jsonl import to_jsonl as _jsonl
from chunkviz.core.types import Chunk
from chunkviz.text.counts import TokenCounter
from chunkviz.text.tokenizers import Tokenizer

RECORD_FIELDS = (
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
)
FORMATS = ("jsonl", "json", "csv")

#: First characters a spreadsheet reads as the start of a formula (OWASP: CSV injection).
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
#: What neutralizes such a cell: a leading apostrophe, which spreadsheets show as text.
CSV_ESCAPE = "'"


def chunk_records(chunks: Sequence[Chunk], tokenizer: Tokenizer, text: str | None = None) -> list[dict[str, Any]]:
    """One JSON-ready record per chunk (``Chunk.to_record``: with its ``reason`` and ``boundary``)
    and its token count from :mod:`chunkviz.text.counts` (pass the document ``text`` to count spans
    on its one tokenization)."""
    counter = TokenCounter(text, tokenizer)
    return [c.to_record(token_count=counter.tokens(c)) for c in chunks]


def to_jsonl(records: Sequence[Mapping[str, Any]]) -> str:
    return _jsonl(records)


def to_json(records: Sequence[Mapping[str, Any]]) -> str:
    return json.dumps(list(records), indent=2, ensure_ascii=False, default=str) + "\n"


def to_csv(records: Sequence[Mapping[str, Any]]) -> str:
    out = io.StringIO()
    # every text cell quoted: a lone "\r" in a chunk is not a line terminator, so QUOTE_MINIMAL
    # would leave it bare and a reader would split the row there
    writer = csv.DictWriter(out, fieldnames=RECORD_FIELDS, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
    out.write(",".join(RECORD_FIELDS) + "\n")  # the plain header (field names need no quotes)
    for record in records:
        row = dict(record)
        row["metadata"] = json.dumps(record["metadata"], ensure_ascii=False, sort_keys=True, default=str)
        row["parent"] = "" if record["parent"] is None else record["parent"]
        writer.writerow({key: spreadsheet_safe(value) for key, value in row.items()})
    return out.getvalue()


def spreadsheet_safe(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as text: strings starting with a formula trigger (or with
    the apostrophe itself, to stay reversible) get a leading apostrophe; other values unchanged."""
    if isinstance(value, str) and value.startswith((*FORMULA_TRIGGERS, CSV_ESCAPE)):
        return CSV_ESCAPE + value
    return value


def csv_cell_text(cell: str) -> str:
    """The exact text of a cell written by :func:`to_csv` (the inverse of :func:`spreadsheet_safe`)."""
    return cell[1:] if cell.startswith(CSV_ESCAPE) else cell


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
