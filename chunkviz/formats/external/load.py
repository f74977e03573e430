"""Chunks that already exist, placed in their document and audited with the peers' rules.

:func:`load_chunks` reads a chunk file (or records / LangChain and LlamaIndex objects) and runs
each level through :func:`chunkviz.strategies.peers.audit.audit`, the one locator and audit of the
project: given offsets are checked against the document (the text must be
``document[start:end]`` there), chunks without offsets are searched in order (a list in
reverse order backwards; a text that occurs once is placed there in any order), and a text that
occurs at several places where it could be is flagged ``ambiguous_placement``, never guessed.
Offsets a library found by searching (LangChain's ``start_index``, LlamaIndex's
``start_char_idx``) are also checked against the chunks' order: one that points at an earlier
or later copy, or at nothing (``-1``), is ``misplaced``. Stated spans (chunkviz's records) are
accepted where their text is.

The result holds chunkviz :class:`~chunkviz.core.types.Chunk`\\ s (the spans drawn, with the audit's
flags in ``metadata["peer_flags"]``, which :func:`chunkviz.diagnostics.diagnose` and the views
read like any column's flags), the audit's counts, and :meth:`LoadedChunks.placed`: the chunks
whose exact place is known (what ``chunkviz audit --fix`` writes).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import Meta, Reason
from chunkviz.document.model import Document, as_document
from chunkviz.formats.external.records import (
    ChunkFile,
    ChunkRecord,
    for_document,
    read_chunk_file,
    records_from_objects,
)
from chunkviz.strategies.peers.audit import (
    AuditedChunk,
    AuditSummary,
    PeerChunk,
    PeerOutput,
    audit,
    summarize,
    to_chunks,
)
from chunkviz.strategies.peers.flags import PEER_FLAGS_KEY, TRUE_SPAN_KEY, UNCERTAIN_KEY, PeerFlag
from chunkviz.text.tokenizers import DEFAULT_TOKENIZER, Tokenizer, get_tokenizer

if TYPE_CHECKING:  # the diagnostics load on first use: `import chunkviz` stays light
    from chunkviz.diagnostics import Diagnostics
    from chunkviz.diagnostics.hygiene import HygieneRules

#: Metadata keys of a loaded chunk besides the audit's (``peer_flags``, ``peer_start`` ...).
FILE_LINE_KEY = "file_line"  # the line of the chunk file the chunk was read from
FILE_INDEX_KEY = "file_index"  # its position among the file's records (0-based)
REASON_UNKNOWN_KEY = "reason_unknown"  # True when the file does not say why the chunk ends (its reason is a stand-in)

#: Flags after which a chunk's place is not known exactly (left out of :meth:`LoadedChunks.placed`).
_UNPLACED = (PeerFlag.AMBIGUOUS_PLACEMENT, PeerFlag.TEXT_NOT_IN_SOURCE)


@dataclass(frozen=True)
class LoadedChunks:
    """A chunk file placed in its document and audited.

    ``chunks`` are spans of the document in file order (``text == document.text[start:end]``),
    each with the audit's flags in ``metadata["peer_flags"]`` (see :func:`chunk_flags`), the
    file's text in ``metadata["peer_text"]`` when it differs from the span's, and its line in
    ``metadata["file_line"]``. ``audit`` counts the flags (``audit.describe()``: e.g.
    ``"3 misplaced chunks"``); ``skipped`` is how many records had an empty text,
    ``other_documents`` how many belong to other documents of a corpus export (left out).
    """

    document: Document
    chunks: tuple[Chunk, ...]
    audit: AuditSummary
    format: str
    source: str
    placement: str
    skipped: int = 0
    limit: int | None = None
    tokenizer: str | None = None
    #: Records of other documents left out (a corpus export whose metadata names several sources).
    other_documents: int = 0

    @property
    def in_document_order(self) -> bool:
        """Whether the file lists each level's chunks in document order (by start)."""
        return _in_document_order(self.chunks)

    def placed(self) -> list[Chunk]:
        """The chunks whose exact place is known, at that place, re-indexed (``parent`` kept when
        its parent is kept): a chunk whose text is where it says; a misplaced one at the only
        place its order allows; one whose whitespace changed as the document's span of the same
        text. Left out: ambiguous chunks, texts not in the document, and misplaced chunks whose
        true place is not certain. In the file's order when that is document order, else sorted
        into it level by level (as ``chunkviz chunk`` writes them)."""
        text = self.document.text
        kept: list[Chunk] = []
        for c in self.chunks:
            flags = chunk_flags(c)
            moved = PeerFlag.MISPLACED in flags or PeerFlag.WHITESPACE_CHANGED in flags
            if any(f in flags for f in _UNPLACED) or (moved and c.metadata.get(UNCERTAIN_KEY)):
                continue
            true = c.metadata.get(TRUE_SPAN_KEY)
            if isinstance(true, list) and len(true) == 2 and (true[0], true[1]) != (c.start, c.end):
                c = replace(c, start=true[0], end=true[1], text=text[true[0] : true[1]])
            kept.append(c)
        if not _in_document_order(kept):
            kept.sort(key=lambda c: (c.level, c.start, c.end))
        new_index = {c.index: i for i, c in enumerate(kept)}
        return [
            replace(c, index=i, parent=new_index.get(c.parent) if c.parent is not None else None)
            for i, c in enumerate(kept)
        ]

    def diagnostics(self, tokenizer: str | Tokenizer | None = None, hygiene: HygieneRules | None = None) -> Diagnostics:
        """Coverage (text in no chunk), overlaps, token statistics and every flag of the
        chunks as drawn (:func:`chunkviz.diagnostics.diagnose`; ``hygiene``: the hygiene flags' thresholds)."""
        from chunkviz.diagnostics import diagnose

        tok = tokenizer if tokenizer is not None else (self.tokenizer or DEFAULT_TOKENIZER)
        return diagnose(self.document, list(self.chunks), tokenizer=tok, hygiene_rules=hygiene)

    def to_dict(self) -> dict[str, Any]:
        """The audit as JSON-ready data: the file, its format and placement, the counts and
        each flagged chunk."""
        flagged = [
            {
                "index": c.index,
                "line": c.metadata.get(FILE_LINE_KEY),
                "start": c.start,
                "end": c.end,
                "flags": list(c.metadata.get(PEER_FLAGS_KEY, ())),
                "note": c.metadata.get(str(Meta.NOTE), ""),
            }
            for c in self.chunks
            if c.metadata.get(PEER_FLAGS_KEY)
        ]
        return {
            "chunks_file": self.source,
            "document": self.document.name,
            "format": self.format,
            "placement": self.placement,
            "chunks": self.audit.chunks,
            "skipped_empty": self.skipped,
            "other_documents": self.other_documents,
            "flags": dict(self.audit.counts),
            "misplacements": dict(self.audit.misplacements),
            "limit": None if self.limit is None else {"max_tokens": self.limit, "tokenizer": self.tokenizer},
            "placed_exactly": len(self.placed()),
            "in_document_order": self.in_document_order,
            "flagged": flagged,
        }


def _in_document_order(chunks: Sequence[Chunk]) -> bool:
    """Whether each level's chunks come in document order (none starts before the one before it)."""
    last: dict[int, int] = {}
    for c in chunks:
        if c.start < last.get(c.level, 0):
            return False
        last[c.level] = c.start
    return True


def chunk_flags(chunk: Chunk) -> tuple[PeerFlag, ...]:
    """The audit's flags of a loaded chunk (empty when it is where its text is)."""
    return tuple(PeerFlag(f) for f in chunk.metadata.get(PEER_FLAGS_KEY, ()))


def load_chunks(
    document: Document | str,
    chunks: str | Path | bytes | Sequence[Any],
    *,
    format: str = "auto",
    delimiter: str | None = None,
    max_tokens: int | None = None,
    tokenizer: str | Tokenizer = DEFAULT_TOKENIZER,
    name: str | None = None,
) -> LoadedChunks:
    """Place and audit chunks made elsewhere in ``document`` (a :class:`Document` or its text).

    ``chunks`` is a chunk file (a path, or its bytes), or records: dicts as in such a file,
    strings, LangChain ``Document`` or LlamaIndex node objects. ``format`` is ``auto``,
    ``langchain``, ``llamaindex``, ``chunkviz`` or ``texts``; ``delimiter`` reads a text file of
    chunks separated by that string. With ``max_tokens``, a chunk over that many ``tokenizer``
    tokens is flagged ``over_peer_limit``. A malformed file raises
    :class:`~chunkviz.formats.external.records.ChunkFileError` (``FILE, line N: what to fix``).
    """
    doc = as_document(document)
    if isinstance(chunks, (str, Path, bytes)):
        file = read_chunk_file(chunks, format=format, delimiter=delimiter, name=name)
    else:
        file = records_from_objects(chunks, name or "chunks", format=format)
    tok = get_tokenizer(tokenizer) if max_tokens is not None else None
    if max_tokens is not None and max_tokens < 1:
        raise ValueError(f"max_tokens must be at least 1, got {max_tokens}")
    return audit_file(doc, file, max_tokens, tok)


def audit_file(
    document: Document, file: ChunkFile, max_tokens: int | None, tokenizer: Tokenizer | None
) -> LoadedChunks:
    """Audit the records of ``file`` against ``document``, each level on its own."""
    text = document.text
    file, other_documents = for_document(file, document.name)
    kept = [(i, r) for i, r in enumerate(file.records) if r.text]
    by_level: dict[int, list[tuple[int, ChunkRecord]]] = {}
    for i, r in kept:
        by_level.setdefault(r.level, []).append((i, r))
    placed: dict[int, Chunk] = {}
    every: list[AuditedChunk] = []
    for members in by_level.values():
        output = _output(file, [r for _, r in members], max_tokens, tokenizer)
        audited = audit(text, output)  # one entry per member: every text is non-empty
        every.extend(audited)
        for (i, record), chunk in zip(members, to_chunks(document, audited, Reason.UNIT_END, None, text)):
            placed[i] = _finish(chunk, record, i, len(text))
    order = sorted(placed)
    position = {i: k for k, i in enumerate(order)}
    parents = [file.records[i].parent for i in order]
    chunks = tuple(
        replace(placed[i], index=k, parent=None if parent is None else position.get(parent))
        for k, (i, parent) in enumerate(zip(order, parents))
    )
    return LoadedChunks(
        document,
        chunks,
        summarize(every),
        file.format,
        file.name,
        file.placement,
        len(file.records) - len(kept),
        max_tokens,
        tokenizer.name if tokenizer is not None else None,
        other_documents,
    )


def _output(
    file: ChunkFile, records: Sequence[ChunkRecord], max_tokens: int | None, tokenizer: Tokenizer | None
) -> PeerOutput:
    """The audit's view of one level: the users' placement, the limit, whether chunks overlap."""
    sizes = [tokenizer.count(r.text) if tokenizer is not None else None for r in records]
    peer_chunks = tuple(PeerChunk(r.text, r.start, r.end, size) for r, size in zip(records, sizes))
    return PeerOutput(
        peer_chunks,
        max_tokens,
        True,  # each chunk is searched from just after the previous one's start: chunks may overlap
        not file.stated_spans,
        None,
        Reason.UNIT_END,
        0.0,
        file.placement,
    )


def _finish(chunk: Chunk, record: ChunkRecord, position: int, n: int) -> Chunk:
    metadata: dict[str, Any] = dict(chunk.metadata)
    metadata.pop("peer_index", None)
    metadata[FILE_INDEX_KEY] = position
    if record.line is not None:
        metadata[FILE_LINE_KEY] = record.line
    reason = record.reason if record.reason is not None else chunk.reason
    if record.reason is None:
        metadata[REASON_UNKNOWN_KEY] = True
    if chunk.end >= n:
        reason = Reason.END_OF_DOCUMENT
    return replace(chunk, reason=reason, level=record.level, metadata=metadata)


__all__ = [
    "FILE_INDEX_KEY",
    "FILE_LINE_KEY",
    "REASON_UNKNOWN_KEY",
    "LoadedChunks",
    "audit_file",
    "chunk_flags",
    "load_chunks",
]
