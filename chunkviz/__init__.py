"""chunkviz: see exactly how RAG chunking strategies cut a document."""

from chunkviz.api import chunk, strategies
from chunkviz.enrich import enrich
from chunkviz.errors import ChunkvizError, DocumentError, InvalidParamError, UnknownStrategyError
from chunkviz.tokenizers import Tokenizer, get_tokenizer
from chunkviz.types import Chunk, Reason

__all__ = [
    "Chunk",
    "ChunkvizError",
    "DocumentError",
    "InvalidParamError",
    "Reason",
    "Tokenizer",
    "UnknownStrategyError",
    "chunk",
    "enrich",
    "get_tokenizer",
    "strategies",
]
__version__ = "0.1.0"
