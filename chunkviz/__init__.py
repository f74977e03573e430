"""chunkviz: see exactly how RAG chunking strategies cut a document."""

from chunkviz.api import chunk, strategies
from chunkviz.document import Document, read_bytes, read_path
from chunkviz.enrich import enrich
from chunkviz.errors import ChunkvizError, DocumentError, InvalidParamError, UnknownStrategyError
from chunkviz.external import ChunkFileError, LoadedChunks, load_chunks
from chunkviz.notebook import ChunkView, show
from chunkviz.tokenizers import Tokenizer, get_tokenizer
from chunkviz.types import Chunk
from chunkviz.vocabulary import Boundary, Reason

__all__ = [
    "Boundary",
    "Chunk",
    "ChunkFileError",
    "ChunkView",
    "ChunkvizError",
    "Document",
    "DocumentError",
    "InvalidParamError",
    "LoadedChunks",
    "Reason",
    "Tokenizer",
    "UnknownStrategyError",
    "chunk",
    "enrich",
    "get_tokenizer",
    "load_chunks",
    "read_bytes",
    "read_path",
    "show",
    "strategies",
]
__version__ = "0.1.0"
