"""Chunks as LangChain ``Document`` and LlamaIndex ``TextNode`` records, without either library.

Both keep the exact span: the text is ``document[start:end]`` (enrichment's added text goes in
the metadata as ``added_text``, never into the text), and the offsets are character offsets in
the document chunkviz read.

* LangChain: ``{"id", "page_content", "metadata", "type": "Document"}`` per chunk, one JSON
  object per line; ``metadata`` holds ``source``, ``start_index`` (as ``add_start_index=True``
  writes it), ``end_index``, ``heading_path`` (the section titles around the chunk's first
  character), ``parent_id`` (the id of the chunk's parent in a multi-level chunking, else
  None), ``chunk_index``, ``level``, ``reason``, ``boundary`` and the chunk's own metadata.
  Load with ``Document(**json.loads(line))``.
* LlamaIndex: the ``TextNode`` JSON ``TextNode.to_json()`` writes (``id_``, ``text``,
  ``start_char_idx``, ``end_char_idx``, ``metadata``, ``relationships``: SOURCE the document,
  PARENT / CHILD between levels, PREVIOUS / NEXT among chunks of the same level). Load with
  ``TextNode.from_dict(node)``.

Ids are deterministic: ``<doc_id>#<chunk index>`` (``doc_id`` defaults to the source).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from chunkviz.core.jsonl import to_jsonl as jsonl_text
from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import Meta
from chunkviz.document.model import Document

#: ``--format`` names of these exports.
INTEROP_FORMATS = ("langchain", "llamaindex")

# LlamaIndex's enum values (llama_index.core.schema.NodeRelationship / ObjectType), written as
# its JSON has them so that TextNode.from_dict reads them back.
_SOURCE, _PREVIOUS, _NEXT, _PARENT, _CHILD = "1", "2", "3", "4", "5"
_TEXT_NODE, _DOCUMENT_NODE = "1", "4"


def chunk_id(doc_id: str, index: int) -> str:
    """The id of chunk ``index`` of document ``doc_id``."""
    return f"{doc_id}#{index}"


def _heading_path(document: Document, chunk: Chunk) -> list[str]:
    stored = chunk.metadata.get(Meta.HEADING_PATH)
    if isinstance(stored, (list, tuple)):
        return [str(t) for t in stored]
    text = chunk.text
    first = chunk.start + (len(text) - len(text.lstrip()) if text.strip() else 0)
    return list(document.structure.heading_path_at(first))


def _common_metadata(document: Document, chunk: Chunk, source: str) -> dict[str, Any]:
    metadata: dict[str, Any] = {str(k): v for k, v in chunk.metadata.items()}
    metadata.update(
        {
            "source": source,
            "heading_path": _heading_path(document, chunk),
            "chunk_index": chunk.index,
            "level": chunk.level,
            "reason": str(chunk.reason),
            "boundary": str(chunk.boundary),
        }
    )
    if chunk.added_text:
        metadata["added_text"] = chunk.added_text
    return metadata


def langchain_documents(
    document: Document, chunks: Sequence[Chunk], *, source: str | None = None, doc_id: str | None = None
) -> list[dict[str, Any]]:
    """One LangChain ``Document`` dict per chunk of ``document`` (see the module docstring)."""
    source = document.name if source is None else source
    doc_id = source if doc_id is None else doc_id
    records = []
    for c in chunks:
        metadata = _common_metadata(document, c, source)
        metadata.update(
            {
                "start_index": c.start,
                "end_index": c.end,
                "parent_id": None if c.parent is None else chunk_id(doc_id, c.parent),
            }
        )
        records.append(
            {"id": chunk_id(doc_id, c.index), "page_content": c.text, "metadata": metadata, "type": "Document"}
        )
    return records


def llamaindex_nodes(
    document: Document, chunks: Sequence[Chunk], *, source: str | None = None, doc_id: str | None = None
) -> list[dict[str, Any]]:
    """One LlamaIndex ``TextNode`` dict per chunk of ``document`` (see the module docstring)."""
    source = document.name if source is None else source
    doc_id = source if doc_id is None else doc_id
    children: dict[int, list[int]] = {}
    for c in chunks:
        if c.parent is not None:
            children.setdefault(c.parent, []).append(c.index)
    siblings = _siblings(chunks)
    nodes: list[dict[str, Any]] = []
    for c in chunks:
        relationships: dict[str, Any] = {_SOURCE: _related(doc_id, _DOCUMENT_NODE)}
        previous, following = siblings[c.index]
        if previous is not None:
            relationships[_PREVIOUS] = _related(chunk_id(doc_id, previous), _TEXT_NODE)
        if following is not None:
            relationships[_NEXT] = _related(chunk_id(doc_id, following), _TEXT_NODE)
        if c.parent is not None:
            relationships[_PARENT] = _related(chunk_id(doc_id, c.parent), _TEXT_NODE)
        if c.index in children:
            relationships[_CHILD] = [_related(chunk_id(doc_id, i), _TEXT_NODE) for i in children[c.index]]
        nodes.append(
            {
                "id_": chunk_id(doc_id, c.index),
                "embedding": None,
                "metadata": _common_metadata(document, c, source),
                "excluded_embed_metadata_keys": [],
                "excluded_llm_metadata_keys": [],
                "relationships": relationships,
                "metadata_template": "{key}: {value}",
                "metadata_separator": "\n",
                "text": c.text,
                "mimetype": "text/plain",
                "start_char_idx": c.start,
                "end_char_idx": c.end,
                "text_template": "{metadata_str}\n\n{content}",
                "class_name": "TextNode",
            }
        )
    return nodes


def _related(node_id: str, node_type: str) -> dict[str, Any]:
    return {"node_id": node_id, "node_type": node_type, "metadata": {}, "hash": None, "class_name": "RelatedNodeInfo"}


def _siblings(chunks: Sequence[Chunk]) -> dict[int, tuple[int | None, int | None]]:
    """For each chunk index: the chunk before and after it among chunks of the same level
    (in document order)."""
    by_level: dict[int, list[Chunk]] = {}
    for c in chunks:
        by_level.setdefault(c.level, []).append(c)
    result: dict[int, tuple[int | None, int | None]] = {}
    for level_chunks in by_level.values():
        ordered = sorted(level_chunks, key=lambda c: (c.start, c.end, c.index))
        for i, c in enumerate(ordered):
            before = ordered[i - 1].index if i > 0 else None
            after = ordered[i + 1].index if i + 1 < len(ordered) else None
            result[c.index] = (before, after)
    return result


def interop_records(
    document: Document, chunks: Sequence[Chunk], fmt: str, *, source: str | None = None, doc_id: str | None = None
) -> list[dict[str, Any]]:
    """:func:`langchain_documents` or :func:`llamaindex_nodes` by ``--format`` name."""
    if fmt == "langchain":
        return langchain_documents(document, chunks, source=source, doc_id=doc_id)
    if fmt == "llamaindex":
        return llamaindex_nodes(document, chunks, source=source, doc_id=doc_id)
    raise ValueError(f"unknown export format {fmt!r}; choose one of: {', '.join(INTEROP_FORMATS)}")


def to_jsonl(records: Sequence[Mapping[str, Any]]) -> str:
    """One JSON object per line (the LangChain export; also what ``batch`` writes for both)."""
    return jsonl_text(records)


def to_json(records: Sequence[Mapping[str, Any]]) -> str:
    """A JSON list (the LlamaIndex export of one document: a list of TextNodes)."""
    return json.dumps(list(records), indent=2, ensure_ascii=False, default=str) + "\n"


def interop_text(document: Document, chunks: Sequence[Chunk], fmt: str, *, source: str | None = None) -> str:
    """What ``chunkviz chunk --format langchain|llamaindex`` prints and the app downloads:
    LangChain Documents as JSONL, LlamaIndex TextNodes as a JSON list."""
    records = interop_records(document, chunks, fmt, source=source)
    return to_jsonl(records) if fmt == "langchain" else to_json(records)


__all__ = [
    "INTEROP_FORMATS",
    "chunk_id",
    "interop_records",
    "interop_text",
    "langchain_documents",
    "llamaindex_nodes",
    "to_json",
    "to_jsonl",
]
