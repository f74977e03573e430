"""Chunk files from other pipelines, read into plain records (text, offsets if any, file line).

Five shapes are read (``--format``; ``auto`` tells them apart by their fields):

- ``langchain``: LangChain ``Document`` records, one JSON object per line or a JSON list:
  ``{"page_content", "metadata": {"start_index"?}}`` as users write them, what
  ``Document.model_dump()`` / ``dict()`` give (``id``, ``type`` too) and what ``to_json()``
  gives (``{"lc": 1, "type": "constructor", "kwargs": {...}}``);
- ``llamaindex``: LlamaIndex node JSON (``text``, ``start_char_idx``, ``end_char_idx``), as
  ``node.to_dict()`` / ``node.to_json()`` write it (a docstore's ``{"__data__": ...}`` too);
- ``chunkviz``: what ``chunkviz chunk`` writes (``index``, ``start``, ``end``, ``text``, ...);
- ``texts``: a JSON/JSONL list of strings, or (with ``delimiter``) a text file of chunks
  separated by that string.

Offsets are read, not trusted: :mod:`chunkviz.formats.external` verifies them against the document.
Whether they *state* a span or are the result of a text search matters to that audit:
LangChain's ``start_index`` and LlamaIndex's ``start_char_idx`` are both ``str.find`` results
(from the previous chunk on), so a repeated text can get another copy's offset; chunkviz's own
records (and its LangChain / LlamaIndex exports, whose metadata carries ``chunk_index``,
``reason`` and ``boundary``) state exact spans.

Every problem is a :class:`ChunkFileError` whose message is ``FILE, line N: what to fix``. The
file is held to the documents' size limit (:data:`chunkviz.document.read.MAX_BYTES`), the
records to :data:`chunkviz.core.limits.MAX_CHUNKS`, and JSON nesting to :data:`MAX_DEPTH` (checked
before parsing, so a deeply nested file cannot exhaust the parser's recursion).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from chunkviz.core.errors import FileLineError
from chunkviz.core.files import NotRegularFileError, open_regular
from chunkviz.core.limits import MAX_CHUNKS
from chunkviz.core.sizes import format_size
from chunkviz.core.vocabulary import Reason
from chunkviz.document.read import MAX_BYTES
from chunkviz.document.readers.text import decode_bytes

#: ``--format`` choices.
CHUNK_FORMATS = ("auto", "langchain", "llamaindex", "chunkviz", "texts")
#: Deepest JSON nesting accepted (a LlamaIndex node with relationships is about 5 deep).
MAX_DEPTH = 64

#: Metadata keys chunkviz's LangChain and LlamaIndex exports write (:mod:`chunkviz.formats.interop`):
#: records carrying all of them state exact spans.
_CHUNKVIZ_EXPORT_KEYS = ("chunk_index", "reason", "boundary")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BLOCK = 1 << 20  # bytes counted at once by the nesting check
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\"}


class ChunkFileError(FileLineError):
    """A chunk file that cannot be read: ``FILE, line N: what to fix``."""


@dataclass(frozen=True)
class ChunkRecord:
    """One chunk as a file gives it: its text, its offsets when it has any, where it was read."""

    text: str
    start: int | None = None
    end: int | None = None
    line: int | None = None
    level: int = 0
    parent: int | None = None  #: the parent's position in the file (chunkviz records), else None
    reason: Reason | None = None  #: why the chunk ends, when the file says it in chunkviz's words
    metadata: Mapping[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class ChunkFile:
    """The records of one chunk file, in file order, and how their offsets were obtained."""

    name: str
    format: str  #: ``langchain``, ``llamaindex``, ``chunkviz`` or ``texts``
    records: tuple[ChunkRecord, ...]
    #: True when the offsets state spans (chunkviz's records and exports); False when they are a
    #: library's text search (LangChain's start_index, LlamaIndex's start_char_idx) or absent.
    stated_spans: bool
    #: How the offsets were obtained, for messages (e.g. ``LangChain's start_index``).
    placement: str


def unescape_delimiter(text: str) -> str:
    r"""``--delimiter`` as typed on a command line: ``\n``, ``\t``, ``\r``, ``\0`` and ``\\``
    are read as the characters they name; everything else is literal."""
    return re.sub(r"\\([ntr0\\])", lambda m: _ESCAPES[m.group(1)], text)


# ----------------------------------------------------------------------------- reading


def read_chunk_file(
    path_or_data: str | Path | bytes,
    *,
    format: str = "auto",
    delimiter: str | None = None,
    name: str | None = None,
    max_bytes: int = MAX_BYTES,
) -> ChunkFile:
    """Read a chunk file (a path, or its bytes with ``name`` for messages)."""
    if isinstance(path_or_data, bytes):
        data, source = path_or_data, name or "chunks"
    else:
        source = name or str(path_or_data)
        data = _read_bytes(Path(path_or_data), source, max_bytes)
    if len(data) > max_bytes:
        raise ChunkFileError(source, None, _too_large(len(data), max_bytes))
    return parse_chunk_data(data, source, format=format, delimiter=delimiter)


def _too_large(size: int, max_bytes: int) -> str:
    return (
        f"too large: {size:,} bytes ({format_size(size)}); the limit is {format_size(max_bytes)} "
        f"({max_bytes:,} bytes), as for documents"
    )


def _read_bytes(path: Path, source: str, max_bytes: int) -> bytes:
    try:
        with open_regular(path) as handle:  # a pipe or a device is refused, never waited on
            size = os.fstat(handle.fileno()).st_size
            if size > max_bytes:
                raise ChunkFileError(source, None, _too_large(size, max_bytes))
            return handle.read(max_bytes + 1)
    except IsADirectoryError:
        raise ChunkFileError(source, None, "is a directory, not a chunk file") from None
    except NotRegularFileError as exc:
        raise ChunkFileError(source, None, exc.problem) from None
    except FileNotFoundError:
        raise ChunkFileError(source, None, "file not found") from None
    except PermissionError:
        raise ChunkFileError(source, None, "permission denied") from None
    except OSError as exc:
        raise ChunkFileError(source, None, f"cannot read it: {exc.strerror or exc}") from None


def parse_chunk_data(data: bytes, source: str, *, format: str = "auto", delimiter: str | None = None) -> ChunkFile:
    """Parse a chunk file's bytes (see the module docstring)."""
    if format not in CHUNK_FORMATS:
        raise ChunkFileError(source, None, f"unknown format {format!r}; choose one of: {', '.join(CHUNK_FORMATS)}")
    if delimiter is not None:
        if format not in ("auto", "texts"):
            raise ChunkFileError(
                source, None, f"--delimiter reads a text file of chunks: use it with --format texts, not {format}"
            )
        if not delimiter:
            raise ChunkFileError(source, None, "the delimiter is empty: name the string that separates the chunks")
        return _delimited(decode_bytes(data, source).text, source, delimiter)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ChunkFileError(source, line, f"not UTF-8 (byte {exc.start}): JSON chunk files are UTF-8") from None
    items = _json_items(text, source)
    return parse_records(items, source, format=format)


def _delimited(text: str, source: str, delimiter: str) -> ChunkFile:
    records = []
    pos = 0
    for part in text.split(delimiter):
        if part:
            records.append(ChunkRecord(part, line=text.count("\n", 0, pos) + 1))
        pos += len(part) + len(delimiter)
    _check_count(records, source)
    return ChunkFile(source, "texts", tuple(records), False, "the first find after the previous chunk")


def _check_depth(text: str, source: str) -> None:
    """Refuse JSON nested deeper than :data:`MAX_DEPTH` (strings masked, brackets counted a
    block at a time, so the memory stays small for a file at the size limit)."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    masked = _STRING.sub('""', text) if '"' in text else text
    raw = masked.encode("utf-8", "surrogatepass")
    depth = 0
    for first in range(0, len(raw), _BLOCK):
        block = np.frombuffer(raw, dtype=np.uint8, count=min(_BLOCK, len(raw) - first), offset=first)
        delta = ((block == ord("[")) | (block == ord("{"))).astype(np.int32)
        delta -= (block == ord("]")) | (block == ord("}"))
        running = np.cumsum(delta) + depth
        if running.size and int(running.max()) > MAX_DEPTH:
            at = first + int(np.argmax(running > MAX_DEPTH))
            line = raw[:at].count(b"\n") + 1
            raise ChunkFileError(source, line, f"JSON nested deeper than {MAX_DEPTH} levels: a chunk record is flatter")
        depth = int(running[-1]) if running.size else depth


def _json_items(text: str, source: str) -> list[tuple[Any, int]]:
    """The file's records with their line numbers: the elements of a JSON list, the one JSON
    object of a file, or one JSON value per line (JSONL; blank lines skipped)."""
    stripped = text.lstrip()
    if not stripped:
        raise ChunkFileError(source, None, "is empty: it holds no chunks")
    _check_depth(text, source)
    offset = len(text) - len(stripped)
    decoder = json.JSONDecoder()
    if stripped[0] == "[":
        return _json_list(text, offset, source, decoder)
    if stripped[0] not in '{"':
        line = text.count("\n", 0, offset) + 1
        raise ChunkFileError(
            source, line, "not JSON or JSONL; for a text file of chunks, name their separator with --delimiter"
        )
    try:
        value, end = decoder.raw_decode(text, offset)
    except json.JSONDecodeError as exc:
        raise ChunkFileError(source, exc.lineno, f"not valid JSON: {exc.msg} (column {exc.colno})") from None
    if not text[end:].strip():
        if isinstance(value, dict) and isinstance(value.get("nodes"), list):  # {"nodes": [...]}
            return [(v, text.count("\n", 0, offset) + 1) for v in value["nodes"]]
        return [(value, text.count("\n", 0, offset) + 1)]
    items = []
    for number, row in enumerate(text.split("\n"), 1):  # not splitlines: JSON strings may hold U+2028 raw
        if not row.strip():
            continue
        try:
            items.append((json.loads(row), number))
        except json.JSONDecodeError as exc:
            raise ChunkFileError(
                source, number, f"not valid JSON: {exc.msg} (column {exc.colno}); JSONL holds one JSON value per line"
            ) from None
        if len(items) > MAX_CHUNKS:
            raise ChunkFileError(source, number, f"more than {MAX_CHUNKS:,} chunks: a run may hold at most that many")
    return items


def _json_list(text: str, offset: int, source: str, decoder: json.JSONDecoder) -> list[tuple[Any, int]]:
    """The elements of the JSON list at ``offset``, each with the line it starts on."""
    items: list[tuple[Any, int]] = []
    pos = _skip(text, offset + 1)
    line, counted = 1, 0

    def line_at(p: int) -> int:
        nonlocal line, counted
        line += text.count("\n", counted, p)
        counted = p
        return line

    if pos < len(text) and text[pos] == "]":
        pos += 1
    else:
        while True:
            try:
                value, pos = decoder.raw_decode(text, pos)
            except json.JSONDecodeError as exc:
                raise ChunkFileError(source, exc.lineno, f"not valid JSON: {exc.msg} (column {exc.colno})") from None
            items.append((value, line_at(pos)))
            if len(items) > MAX_CHUNKS:
                raise ChunkFileError(source, line, f"more than {MAX_CHUNKS:,} chunks: a run may hold at most that many")
            pos = _skip(text, pos)
            if pos < len(text) and text[pos] == ",":
                pos = _skip(text, pos + 1)
                continue
            if pos < len(text) and text[pos] == "]":
                pos += 1
                break
            raise ChunkFileError(
                source, line_at(min(pos, len(text))), "not valid JSON: expected ',' or ']' in the list"
            )
    if text[pos:].strip():
        raise ChunkFileError(source, line_at(_skip(text, pos)), "not valid JSON: text after the end of the list")
    return items


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


# ----------------------------------------------------------------------------- records


def record_kind(value: Any) -> str | None:
    """The format one JSON value looks like (None: none of them)."""
    if isinstance(value, str):
        return "texts"
    if not isinstance(value, dict):
        return None
    value = _unwrap(value)
    if "page_content" in value:
        return "langchain"
    if "text" in value and {"start", "end", "index"} <= value.keys():
        return "chunkviz"
    if "text" in value and ({"start_char_idx", "end_char_idx", "id_"} & value.keys() or "class_name" in value):
        return "llamaindex"
    if set(value) == {"text"}:
        return "texts"
    return None


def _unwrap(value: dict[str, Any]) -> dict[str, Any]:
    """LangChain's ``to_json()`` (``{"lc", "type": "constructor", "kwargs"}``) and a LlamaIndex
    docstore entry (``{"__data__": ...}``) hold the record one level down."""
    if value.get("lc") is not None and isinstance(value.get("kwargs"), dict):
        return value["kwargs"]
    if isinstance(value.get("__data__"), dict):
        return value["__data__"]
    return value


def parse_records(items: Sequence[tuple[Any, int | None]], source: str, *, format: str = "auto") -> ChunkFile:
    """Records from JSON values (each with its line, or None), in one of the formats."""
    if not items:
        raise ChunkFileError(source, None, "holds no chunks")
    if len(items) > MAX_CHUNKS:
        raise ChunkFileError(source, None, f"{len(items):,} chunks: a run may hold at most {MAX_CHUNKS:,}")
    fmt = format
    if fmt == "auto":
        first, line = items[0]
        kind = record_kind(first)
        if kind is None:
            raise ChunkFileError(source, line, f"{_unknown_shape(first)}; {_SHAPES}")
        fmt = kind
    records = [_record(value, line, source, fmt) for value, line in items]
    _check_count(records, source)
    if fmt == "chunkviz":
        records = _chunkviz_parents(records, [v for v, _ in items])
    stated = fmt == "chunkviz" or (
        fmt in ("langchain", "llamaindex") and all(_is_chunkviz_export(r.metadata) for r in records)
    )
    if fmt in ("langchain", "llamaindex") and stated:  # chunkviz's exports: one level of a multi-level chunking each
        records = [_with_level(r, r.metadata["level"]) if _is_int(r.metadata.get("level")) else r for r in records]
    placement = {
        "langchain": "LangChain's start_index",
        "llamaindex": "LlamaIndex's start_char_idx",
        "chunkviz": "chunkviz's spans",
        "texts": "the first find after the previous chunk",
    }[fmt]
    if stated and fmt != "chunkviz":
        placement = f"chunkviz's spans (its {fmt} export)"
    return ChunkFile(source, fmt, tuple(records), stated, placement)


_SHAPES = (
    "expected LangChain Documents (page_content), LlamaIndex nodes (text, start_char_idx), chunkviz records "
    "(index, start, end, text) or strings"
)


def _unknown_shape(value: Any) -> str:
    if isinstance(value, dict):
        keys = ", ".join(sorted(map(str, value))[:6]) or "no keys"
        return f"a JSON object with {keys} is not a chunk record"
    return f"a JSON {type(value).__name__} is not a chunk record"


def _with_level(record: ChunkRecord, level: int) -> ChunkRecord:
    return ChunkRecord(
        record.text, record.start, record.end, record.line, max(level, 0), None, record.reason, record.metadata
    )


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_chunkviz_export(metadata: Mapping[str, Any]) -> bool:
    return all(key in metadata for key in _CHUNKVIZ_EXPORT_KEYS)


def _check_count(records: Sequence[ChunkRecord], source: str) -> None:
    if not any(r.text for r in records):
        raise ChunkFileError(source, None, "holds no chunks (every chunk is empty)")
    if len(records) > MAX_CHUNKS:
        raise ChunkFileError(source, None, f"{len(records):,} chunks: a run may hold at most {MAX_CHUNKS:,}")


def _offset(value: Any, what: str, source: str, line: int | None, *, allow_missing: int = 0) -> int | None:
    """A character offset: a whole number >= 0 (``-1`` too where the library writes it for
    "not found"), or None when absent."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ChunkFileError(source, line, f"{what} must be a whole number of characters, got {value!r}")
    if value < -allow_missing:
        raise ChunkFileError(source, line, f"{what} must be 0 or more, got {value}")
    return value


def _text(value: Any, what: str, source: str, line: int | None) -> str:
    if not isinstance(value, str):
        got = "nothing" if value is None else f"a {type(value).__name__}"
        raise ChunkFileError(source, line, f"{what} must be a string (the chunk's text), got {got}")
    return value


def _metadata(value: Any, source: str, line: int | None) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ChunkFileError(source, line, f"metadata must be a JSON object, got a {type(value).__name__}")
    return value


def _record(value: Any, line: int | None, source: str, fmt: str) -> ChunkRecord:
    if fmt == "texts":
        if isinstance(value, dict) and set(value) == {"text"}:
            value = value["text"]
        if not isinstance(value, str):
            raise ChunkFileError(source, line, f"{_unknown_shape(value)}: a list of texts holds only strings")
        return ChunkRecord(value, line=line)
    if not isinstance(value, dict):
        raise ChunkFileError(source, line, f"{_unknown_shape(value)}; a {fmt} file holds one JSON object per chunk")
    value = _unwrap(value)
    if fmt == "langchain":
        if "page_content" not in value:
            raise ChunkFileError(source, line, "no page_content: a LangChain Document holds its text there")
        metadata = _metadata(value.get("metadata"), source, line)
        start = _offset(metadata.get("start_index"), "metadata.start_index", source, line, allow_missing=1)
        end = _offset(metadata.get("end_index"), "metadata.end_index", source, line)
        return ChunkRecord(
            _text(value["page_content"], "page_content", source, line),
            start,
            end,
            line,
            0,
            None,
            _reason(metadata),
            metadata,
        )
    if fmt == "llamaindex":
        if "text" not in value:
            raise ChunkFileError(source, line, "no text: a LlamaIndex node holds its text there")
        metadata = _metadata(value.get("metadata"), source, line)
        start = _offset(value.get("start_char_idx"), "start_char_idx", source, line)
        end = _offset(value.get("end_char_idx"), "end_char_idx", source, line)
        return ChunkRecord(
            _text(value["text"], "text", source, line), start, end, line, 0, None, _reason(metadata), metadata
        )
    missing = [k for k in ("text", "start", "end") if k not in value]
    if missing:
        raise ChunkFileError(source, line, f"no {', '.join(missing)}: a chunkviz record has text, start and end")
    start = _offset(value["start"], "start", source, line)
    end = _offset(value["end"], "end", source, line)
    level = _offset(value.get("level"), "level", source, line) or 0
    metadata = _metadata(value.get("metadata"), source, line)
    reason = _reason(value)
    return ChunkRecord(_text(value["text"], "text", source, line), start, end, line, level, None, reason, metadata)


def _reason(holder: Mapping[str, Any]) -> Reason | None:
    value = holder.get("reason")
    try:
        return Reason(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _chunkviz_parents(records: list[ChunkRecord], values: Sequence[Any]) -> list[ChunkRecord]:
    """chunkviz records name their parent by its ``index``: turned into the parent's position."""
    position = {v.get("index"): i for i, v in enumerate(values) if isinstance(v, dict)}
    out = []
    for record, value in zip(records, values):
        parent = value.get("parent") if isinstance(value, dict) else None
        at = position.get(parent) if isinstance(parent, int) and not isinstance(parent, bool) else None
        out.append(
            ChunkRecord(
                record.text, record.start, record.end, record.line, record.level, at, record.reason, record.metadata
            )
        )
    return out


#: Metadata keys that name a chunk's document: LangChain loaders' ``source``, LlamaIndex's
#: SimpleDirectoryReader ``file_path`` / ``file_name``.
SOURCE_KEYS = ("source", "file_path", "file_name")


def record_source(record: ChunkRecord) -> str | None:
    """The document a record names in its metadata, if any."""
    for key in SOURCE_KEYS:
        value = record.metadata.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def for_document(file: ChunkFile, document_name: str) -> tuple[ChunkFile, int]:
    """The records of ``document_name`` in a file of several documents' chunks (a corpus export:
    their metadata names more than one ``source``), and how many were left out. A file naming
    one document or none is kept whole; a source matches by path, file name or stem."""
    sources = {record_source(r) for r in file.records} - {None}
    if len(sources) < 2:
        return file, 0
    wanted = Path(document_name)

    def matches(source: str) -> bool:
        path = Path(source)
        return source == document_name or path.name == wanted.name or (path.stem == wanted.stem and not path.suffix)

    positions = [i for i, r in enumerate(file.records) if (src := record_source(r)) is not None and matches(src)]
    new_position = {old: new for new, old in enumerate(positions)}
    kept = tuple(_reparented(file.records[i], new_position) for i in positions)
    if not kept:
        listed = ", ".join(sorted(str(s) for s in sources)[:5]) + (" ..." if len(sources) > 5 else "")
        raise ChunkFileError(
            file.name, None, f"holds chunks of {len(sources)} documents ({listed}) and none is {document_name}"
        )
    lines_kept = ChunkFile(file.name, file.format, kept, file.stated_spans, file.placement)
    return lines_kept, len(file.records) - len(kept)


def _reparented(record: ChunkRecord, new_position: Mapping[int, int]) -> ChunkRecord:
    parent = record.parent
    return replace(record, parent=None if parent is None else new_position.get(parent))


def records_from_objects(objects: Sequence[Any], source: str = "chunks", *, format: str = "auto") -> ChunkFile:
    """Records from Python objects: dicts and strings as in a file, LangChain ``Document`` and
    LlamaIndex node objects (read through their fields, neither library imported)."""
    items: list[tuple[Any, int | None]] = []
    for obj in objects:
        if isinstance(obj, (str, dict)):
            items.append((obj, None))
        elif hasattr(obj, "page_content"):
            items.append(
                ({"page_content": obj.page_content, "metadata": dict(getattr(obj, "metadata", {}) or {})}, None)
            )
        elif hasattr(obj, "start_char_idx") and hasattr(obj, "text"):
            items.append(
                (
                    {
                        "text": obj.text,
                        "start_char_idx": obj.start_char_idx,
                        "end_char_idx": getattr(obj, "end_char_idx", None),
                        "metadata": dict(getattr(obj, "metadata", {}) or {}),
                    },
                    None,
                )
            )
        else:
            raise ChunkFileError(source, None, f"a {type(obj).__name__} is not a chunk: {_SHAPES}")
    return parse_records(items, source, format=format)


__all__ = [
    "CHUNK_FORMATS",
    "MAX_DEPTH",
    "ChunkFile",
    "ChunkFileError",
    "ChunkRecord",
    "SOURCE_KEYS",
    "for_document",
    "record_source",
    "parse_chunk_data",
    "parse_records",
    "read_chunk_file",
    "record_kind",
    "records_from_objects",
    "unescape_delimiter",
]
