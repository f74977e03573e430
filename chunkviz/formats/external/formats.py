"""The one registry of output formats: every file chunkviz writes chunks to, declared once.

An :class:`OutputFormat` says its name (``--format NAME``), the app's button label, its file
extension and MIME type, how a document's chunks become its records, how records become the
file's text, how ``chunkviz batch`` joins the documents' parts, and which ``chunkviz audit``
reader reads it back. The CLI's ``--format`` choices (``chunk`` and ``batch``), the app's
downloads, the batch worker and the audit's format names all come from here, so adding a format
is one :func:`register_format` call (no other file changes).

LlamaIndex TextNodes are a JSON list everywhere (the CLI, the app and ``batch``, which wraps the
documents' records in one list): one format, one file type.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import BOUNDARY_LABELS, REASON_LABELS
from chunkviz.document.model import Document
from chunkviz.formats.export import chunk_records, to_csv, to_json, to_jsonl
from chunkviz.formats.interop import langchain_documents, llamaindex_nodes
from chunkviz.text.printable import visible_name
from chunkviz.text.tokenizers import Tokenizer

Record = dict[str, Any]
#: A document's chunks as records: ``(document, chunks, tokenizer, source) -> records``.
RecordsOf = Callable[[Document, Sequence[Chunk], Tokenizer, str], list[Record]]
#: How ``batch`` joins the documents' record lines: one after the other, as one JSON list, or
#: into a Parquet table (``batch`` owns that writer: it needs pyarrow).
BATCH_JOINS = ("lines", "list", "parquet")


@dataclass(frozen=True)
class OutputFormat:
    """One output format (see the module docstring)."""

    name: str
    label: str
    extension: str  #: the file's extension, e.g. ``.jsonl``
    mime: str
    records: RecordsOf
    #: the text of one document's file from its records (None: only ``batch`` writes it)
    write: Callable[[Sequence[Mapping[str, Any]]], str] | None = None
    #: how ``batch`` joins the documents (None: not a batch output)
    batch: str | None = None
    #: whether the records name their document themselves (``batch`` adds ``source`` otherwise)
    names_source: bool = False
    #: the ``chunkviz audit --format`` reader that reads the file back (None: none)
    reader: str | None = None
    #: offered as a download in the app
    app: bool = True
    #: the download's file name ends with ``.<name><extension>`` (the extension alone does not say the format)
    tagged: bool = False

    def __post_init__(self) -> None:
        if self.batch is not None and self.batch not in BATCH_JOINS:
            raise ValueError(f"{self.name}: batch must be one of {', '.join(BATCH_JOINS)}, got {self.batch!r}")

    def text(self, document: Document, chunks: Sequence[Chunk], tokenizer: Tokenizer, source: str) -> str:
        """The file's text for one document (a format ``batch`` alone writes has none)."""
        if self.write is None:
            raise ValueError(f"--format {self.name} is written by 'chunkviz batch' only")
        return self.write(self.records(document, chunks, tokenizer, source))

    def file_name(self, stem: str) -> str:
        """The app's download name for ``stem``, e.g. ``guide.recursive.langchain.jsonl``."""
        return f"{stem}.{self.name}{self.extension}" if self.tagged else f"{stem}{self.extension}"


_REGISTRY: dict[str, OutputFormat] = {}


def register_format(output: OutputFormat) -> OutputFormat:
    """Add ``output`` to the registry (a name registered already is replaced)."""
    _REGISTRY[output.name] = output
    return output


def unregister_format(name: str) -> None:
    """Remove a format (tests that register one clean up with it)."""
    _REGISTRY.pop(name, None)


def output_formats() -> list[OutputFormat]:
    """Every registered format, in registration order."""
    return list(_REGISTRY.values())


def get_format(name: str) -> OutputFormat:
    """The format ``name``; an unknown one is a ValueError naming the choices."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown output format {name!r}; choose one of: {', '.join(_REGISTRY)}") from None


def cli_formats() -> list[str]:
    """``chunkviz chunk --format`` choices: the formats with a one-document file."""
    return [f.name for f in _REGISTRY.values() if f.write is not None]


def batch_formats() -> list[str]:
    """``chunkviz batch --format`` choices."""
    return [f.name for f in _REGISTRY.values() if f.batch is not None]


def app_formats() -> list[OutputFormat]:
    """The app's downloads, in order."""
    return [f for f in _REGISTRY.values() if f.app and f.write is not None]


def reader_formats() -> list[str]:
    """The ``chunkviz audit`` readers the registered formats are read back with (each once)."""
    return list(dict.fromkeys(f.reader for f in _REGISTRY.values() if f.reader is not None))


def exports(document: Document, chunks: Sequence[Chunk], tokenizer: Tokenizer, source: str) -> dict[str, str]:
    """Every app download's text, by format name."""
    return {f.name: f.text(document, chunks, tokenizer, source) for f in app_formats()}


# ----------------------------------------------------------------------------- the built-in formats


def _chunk_records(document: Document, chunks: Sequence[Chunk], tokenizer: Tokenizer, source: str) -> list[Record]:
    return chunk_records(chunks, tokenizer, document.text)


def _langchain(document: Document, chunks: Sequence[Chunk], tokenizer: Tokenizer, source: str) -> list[Record]:
    return langchain_documents(document, chunks, source=source)


def _llamaindex(document: Document, chunks: Sequence[Chunk], tokenizer: Tokenizer, source: str) -> list[Record]:
    return llamaindex_nodes(document, chunks, source=source)


def text_listing(records: Sequence[Mapping[str, Any]]) -> str:
    """``--format text``: each chunk with a header line (span, sizes, reason, cut), its metadata
    and added text, then its span text."""
    out: list[str] = []
    for record in records:
        header = (
            f"--- chunk {record['index']} [{record['start']}:{record['end']}] "
            f"{record['end'] - record['start']} chars, {record['token_count']} tokens, ends at: {record['reason']} "
            f"({REASON_LABELS.get(record['reason'], record['reason'])}; cut at: "
            f"{BOUNDARY_LABELS.get(record['boundary'], record['boundary'])})"
        )
        if record["parent"] is not None or record["level"]:
            header += f", level {record['level']}, parent {record['parent']}"
        out.append(header + " ---\n")
        if record["metadata"]:
            out.append(
                "metadata: " + json.dumps(record["metadata"], ensure_ascii=False, sort_keys=True, default=str) + "\n"
            )
        if record["added_text"]:
            out.append("[added text, not in the document]\n")
            out.append(record["added_text"] if record["added_text"].endswith("\n") else record["added_text"] + "\n")
            out.append("[span text]\n")
        text = record["text"]
        out.append(text if text.endswith("\n") else text + "\n")
        out.append("\n")
    return "".join(out)


def text_footer(count: int, name: str, length: int, strategy: str, tokenizer: str) -> str:
    """The last line of ``--format text``: what was chunked, how."""
    return (
        f"{count} chunk{'' if count == 1 else 's'} from {visible_name(name)} ({length} characters), "
        f"strategy {strategy}, tokenizer {tokenizer}\n"
    )


def joined_lines(lines: Iterable[str]) -> Iterable[str]:
    """The documents' record lines as one JSON list (``batch`` of a ``list`` format)."""
    first = True
    for line in lines:
        yield ("[\n" if first else ",\n") + line.rstrip("\n")
        first = False
    yield "\n]\n" if not first else "[]\n"


for _output in (
    OutputFormat("jsonl", "JSONL", ".jsonl", "application/jsonl", _chunk_records, to_jsonl, "lines", reader="chunkviz"),
    OutputFormat("json", "JSON", ".json", "application/json", _chunk_records, to_json, reader="chunkviz"),
    OutputFormat("csv", "CSV", ".csv", "text/csv", _chunk_records, to_csv),
    OutputFormat("text", "Text", ".txt", "text/plain", _chunk_records, text_listing, app=False),
    OutputFormat(
        "langchain",
        "LangChain",
        ".jsonl",
        "application/jsonl",
        _langchain,
        to_jsonl,
        "lines",
        names_source=True,
        reader="langchain",
        tagged=True,
    ),  # fmt: skip
    OutputFormat(
        "llamaindex",
        "LlamaIndex",
        ".json",
        "application/json",
        _llamaindex,
        to_json,
        "list",
        names_source=True,
        reader="llamaindex",
        tagged=True,
    ),  # fmt: skip
    OutputFormat("parquet", "Parquet", ".parquet", "application/vnd.apache.parquet", _chunk_records, None, "parquet"),
):
    register_format(_output)

__all__ = [
    "BATCH_JOINS",
    "OutputFormat",
    "app_formats",
    "batch_formats",
    "cli_formats",
    "exports",
    "get_format",
    "joined_lines",
    "output_formats",
    "reader_formats",
    "register_format",
    "text_footer",
    "text_listing",
    "unregister_format",
]
