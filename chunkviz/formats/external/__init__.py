"""Your own chunks: chunk files from other pipelines, placed in their document and audited.

``chunkviz.load_chunks(document, path_or_records, format=...)`` reads LangChain ``Document``
JSONL, LlamaIndex node JSON, chunkviz's own JSONL, a list of strings or a delimited text file
(:mod:`.records`), and places and audits every chunk with the peers' rules (:mod:`.load`):
the result is chunkviz :class:`~chunkviz.core.types.Chunk`\\ s (drawn like any column) plus the
audit. ``chunkviz audit`` is its command (:mod:`.cli`).
"""

from chunkviz.formats.external.load import FILE_INDEX_KEY, FILE_LINE_KEY, LoadedChunks, chunk_flags, load_chunks
from chunkviz.formats.external.records import CHUNK_FORMATS, ChunkFileError

__all__ = [
    "CHUNK_FORMATS",
    "FILE_INDEX_KEY",
    "FILE_LINE_KEY",
    "ChunkFileError",
    "LoadedChunks",
    "chunk_flags",
    "load_chunks",
]
