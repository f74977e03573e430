"""chunkviz: see exactly how RAG chunking strategies cut a document."""

from chunkviz.api import chunk, strategies
from chunkviz.core import moved as _moved
from chunkviz.core.errors import ChunkvizError, DocumentError, InvalidParamError, UnknownStrategyError
from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import Boundary, Reason
from chunkviz.document import Document, read_bytes, read_path
from chunkviz.document.enrich import enrich
from chunkviz.formats.external import ChunkFileError, LoadedChunks, load_chunks
from chunkviz.text.tokenizers import Tokenizer, get_tokenizer
from chunkviz.views.notebook import ChunkView, show

_moved.install()  # the module paths before the layer folders keep importing (chunkviz/core/moved.py)

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
