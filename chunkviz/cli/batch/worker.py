"""The per-document function every engine runs: bytes in, one part file out.

A :class:`DocumentChunker` is built once per worker process (local) or actor (Ray): it validates
the configuration and loads the tokenizer (and, through a first small run, whatever the strategy
loads: spaCy, the embedding model), so nothing is loaded again per document. ``process`` then
reads a document, chunks it exactly as ``chunkviz chunk --config`` would, enriches it when the
configuration says so, and writes its output lines as one part (atomically). Any error in one
document becomes a ``failed`` result naming it; it never ends the run.

A file name that is not valid UTF-8 (POSIX names are bytes; Python holds the undecodable ones
as lone surrogates, which no UTF-8 writer, JSON reader or Parquet string accepts) is recorded in
a lossless, valid form (:func:`recorded_source`): its ``source`` percent-encodes each byte that
is not UTF-8 and each ``%`` (``caf\xe9.md`` -> ``caf%E9.md``), and its records' ``metadata``
say ``"source_percent_encoded": true``; ``urllib.parse.unquote_to_bytes(source)`` gives the
name's exact bytes back. Names that are valid UTF-8 are recorded as they are.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chunkviz.cli.batch.state import content_hash, part_key, part_path, write_atomic
from chunkviz.core.errors import ChunkvizError
from chunkviz.core.files import NotRegularFileError, open_regular
from chunkviz.core.jsonl import json_line
from chunkviz.core.types import Chunk
from chunkviz.document.model import Document
from chunkviz.document.read import MAX_BYTES, read_bytes
from chunkviz.evaluation.config import config_from_dict
from chunkviz.formats.external.formats import get_format
from chunkviz.strategies.guarded import guarded_run, prepare
from chunkviz.text.tokenizers import get_tokenizer

#: How many times a DocumentChunker was built in this process (one per worker).
SETUPS = 0

#: The metadata key that marks a percent-encoded ``source`` (see the module docstring).
PERCENT_ENCODED = "source_percent_encoded"


def recorded_source(source: str) -> tuple[str, bool]:
    """``(the source as records carry it, whether it is percent-encoded)``: unchanged when the
    name is valid UTF-8; else each undecodable byte (a surrogate escape U+DC80-U+DCFF) as
    ``%XX`` and each ``%`` as ``%25``, so that ``unquote_to_bytes`` gives the exact bytes."""
    try:
        source.encode("utf-8")
    except UnicodeEncodeError:
        pass
    else:
        return source, False
    out = []
    for ch in source:
        code = ord(ch)
        if ch == "%":
            out.append("%25")
        elif 0xDC80 <= code <= 0xDCFF:  # an undecodable byte, as os.fsdecode holds it
            out.append(f"%{code - 0xDC00:02X}")
        elif 0xD800 <= code <= 0xDFFF:  # any other lone surrogate: its UTF-8 bytes (surrogatepass)
            out.extend(f"%{b:02X}" for b in ch.encode("utf-8", "surrogatepass"))
        else:
            out.append(ch)
    return "".join(out), True


def shown_source(source: str) -> str:
    """The source as messages show it (the recorded form)."""
    return recorded_source(source)[0]


_WARM_UP_TEXT = "# Warm-up\n\nA first sentence loads the models. A second one follows.\n"


@dataclass(frozen=True)
class Plan:
    """What every worker needs (plain data, cheap to send to a process or an actor)."""

    config: Mapping[str, Any]  # the configuration's dict (ChunkvizConfig.to_dict())
    column: int | None  # 1-based, None when the configuration has one column
    fmt: str
    parts: str  # the run's parts folder
    language: str | None = None  # every document's language (--language); None: each one's detected


@dataclass(frozen=True)
class DocResult:
    """What happened to one document. ``status``: ``done`` (chunked now), ``kept`` (done by an
    earlier run of the same configuration on the same content) or ``failed``."""

    source: str
    status: str
    content_sha256: str | None = None
    part: str | None = None
    chunks: int = 0
    bytes: int = 0
    error: str | None = None
    worker: int = 0  # the process id of the worker
    setups: int = 0  # chunkers built in that process so far (1: its models loaded once)


class DocumentChunker:
    """The configured chunker of one worker (see the module docstring)."""

    def __init__(self, plan: Plan, done: Mapping[str, int] | None = None) -> None:
        global SETUPS
        SETUPS += 1
        self.plan = plan
        self.done = dict(done or {})
        self.parts = Path(plan.parts)
        config = config_from_dict(dict(plan.config), source="the batch configuration")
        column = config.column(plan.column)
        self.prepared = prepare(column.strategy, column.params)  # the one validation
        self.tokenizer = get_tokenizer(config.tokenizer_of(column))
        self.enrichment = config.enrichment
        self.pid = os.getpid()
        self._warm_up()

    def _warm_up(self) -> None:
        """Load what the strategy loads lazily (sentence segmenter, embedding model) now, once."""
        try:
            self._chunks(
                read_bytes(_WARM_UP_TEXT.encode(), name="warm-up.md", language=self.plan.language), "warm-up.md"
            )
        except ChunkvizError:
            pass  # e.g. a parameter the tiny text cannot satisfy: real documents report it

    def process_path(self, source: str) -> DocResult:
        """Read ``source`` from disk and :meth:`process` it."""
        try:
            with open_regular(source) as handle:  # a file swapped for a pipe is refused, not waited on
                size = os.fstat(handle.fileno()).st_size
                if size > MAX_BYTES:
                    return self._failed(source, None, size, _size_message(source, size))
                data = handle.read(MAX_BYTES + 1)
        except NotRegularFileError as exc:
            return self._failed(source, None, 0, f"{shown_source(source)} {exc.problem}")
        except OSError as exc:
            return self._failed(source, None, 0, f"cannot read {shown_source(source)}: {exc.strerror or exc}")
        return self.process(source, data)

    def process(self, source: str, data: bytes) -> DocResult:
        """Chunk one document's bytes into its part (or find it done already)."""
        digest = content_hash(data)
        key = part_key(source, digest)
        if key in self.done and part_path(self.parts, key).exists():
            return DocResult(source, "kept", digest, key, self.done[key], len(data), worker=self.pid, setups=SETUPS)
        try:
            document = read_bytes(data, name=shown_source(source), language=self.plan.language)
            lines = self._lines(document, source)
        except Exception as exc:  # noqa: BLE001 - one document's failure never ends the run
            return self._failed(source, digest, len(data), _message(exc))
        write_atomic(part_path(self.parts, key), "".join(lines).encode("utf-8"))
        return DocResult(source, "done", digest, key, len(lines), len(data), worker=self.pid, setups=SETUPS)

    def _chunks(self, document: Document, source: str) -> list[Chunk]:
        enrichment = self.enrichment
        enrich = (
            None
            if enrichment is None
            else lambda doc, found: enrichment.apply(doc, found, source=source, tokenizer=self.tokenizer)
        )
        return guarded_run(document, self.prepared, self.tokenizer, enrich=enrich).chunks

    def _lines(self, document: Document, source: str) -> list[str]:
        """The document's output lines in the plan's format."""
        recorded, encoded = recorded_source(source)
        chunks = self._chunks(document, recorded)
        output = get_format(self.plan.fmt)
        records = output.records(document, chunks, self.tokenizer, recorded)
        if not output.names_source:
            records = [{"source": recorded, **r} for r in records]
        if encoded:
            for record in records:
                if isinstance(record.get("metadata"), dict):
                    record["metadata"] = {**record["metadata"], PERCENT_ENCODED: True}
        return [json_line(r) for r in records]

    def _failed(self, source: str, digest: str | None, size: int, message: str) -> DocResult:
        return DocResult(source, "failed", digest, None, 0, size, message, self.pid, SETUPS)


def _message(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    if isinstance(exc, ChunkvizError):
        return text
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _size_message(source: str, size: int) -> str:
    from chunkviz.core.sizes import format_size

    return f"{shown_source(source)} is too large: {size:,} bytes; the limit is {format_size(MAX_BYTES)} ({MAX_BYTES:,} bytes)"


__all__ = ["PERCENT_ENCODED", "SETUPS", "DocResult", "DocumentChunker", "Plan", "recorded_source", "shown_source"]
