"""The peers' parameters, named as each peer names them (defaults: ours where a size is compared,
so a peer column and ours start from the same budget; else the peer's own)."""

from __future__ import annotations

from dataclasses import dataclass

from chunkviz.core.errors import InvalidParamError
from chunkviz.splitting import PRESETS, resolve_separators
from chunkviz.strategies.base import param

THRESHOLD_TYPES = ("percentile", "standard_deviation", "interquartile", "gradient")
KEEP_SEPARATOR = ("start", "end")


DEFAULT_OVERLAP = 16


def _overlap_below(strategy: str, name: str, overlap: int, size: int, *, allow_equal: bool = False) -> None:
    """The peer's own rule (LangChain allows overlap == size, the others do not), said up front."""
    if overlap > size or (overlap == size and not allow_equal):
        bound = "at most" if allow_equal else "smaller than"
        hint = f" (the default {name} is {DEFAULT_OVERLAP}: set {name} too)" if overlap == DEFAULT_OVERLAP else ""
        raise InvalidParamError(strategy, name, f"must be {bound} chunk_size ({size}), got {overlap}{hint}")


@dataclass(frozen=True)
class LangChainRecursiveParams:
    chunk_size: int = param(
        128,
        "LangChain's chunk_size, with the page's tokenizer as length_function",
        minimum=1,
        maximum=100_000,
        unit="tokens",
        size_target=True,
    )
    chunk_overlap: int = param(
        DEFAULT_OVERLAP,
        "LangChain's chunk_overlap, in the same length",
        minimum=0,
        maximum=100_000,
        overlap_unit="tokens",
    )
    separators: str | list[str] = param(
        "default",
        "LangChain's separators: a preset (default, markdown, python, guide) or a list of strings",
        presets=PRESETS,
    )
    keep_separator: str = param("start", "LangChain's keep_separator: start (True) or end", choices=KEEP_SEPARATOR)
    strip_whitespace: bool = param(True, "LangChain's strip_whitespace: strip every chunk")

    def __post_init__(self) -> None:
        _overlap_below("langchain_recursive", "chunk_overlap", self.chunk_overlap, self.chunk_size, allow_equal=True)
        resolve_separators(self.separators, "langchain_recursive")


@dataclass(frozen=True)
class LangChainTokenParams:
    chunk_size: int = param(
        128,
        "LangChain's chunk_size: tokens per chunk (the page's tokenizer)",
        minimum=1,
        maximum=100_000,
        unit="tokens",
        size_target=True,
    )
    chunk_overlap: int = param(
        DEFAULT_OVERLAP,
        "LangChain's chunk_overlap: tokens shared with the previous chunk",
        minimum=0,
        maximum=100_000,
        overlap_unit="tokens",
    )

    def __post_init__(self) -> None:
        _overlap_below("langchain_token", "chunk_overlap", self.chunk_overlap, self.chunk_size)


@dataclass(frozen=True)
class LangChainMarkdownHeadersParams:
    headers_to_split_on: list[str] = param(
        ["#", "##", "###"], "LangChain's headers_to_split_on: the heading markers that start a chunk"
    )
    strip_headers: bool = param(True, "LangChain's strip_headers: leave the heading lines out of the chunks")
    return_each_line: bool = param(False, "LangChain's return_each_line: one chunk per line")

    def __post_init__(self) -> None:
        if not self.headers_to_split_on or not all(h.strip() for h in self.headers_to_split_on):
            raise InvalidParamError(
                "langchain_markdown_headers",
                "headers_to_split_on",
                "must be a non-empty list of heading markers such as #, ##",
            )


@dataclass(frozen=True)
class LangChainSemanticParams:
    breakpoint_threshold_type: str = param(
        "percentile", "LangChain's breakpoint_threshold_type", choices=THRESHOLD_TYPES
    )
    breakpoint_threshold_amount: float = param(
        95.0,
        "LangChain's breakpoint_threshold_amount (its defaults: percentile 95, standard_deviation 3, interquartile 1.5, gradient 95)",
        minimum=0.0,
        maximum=1000.0,
    )
    buffer_size: int = param(
        1, "LangChain's buffer_size: sentences on each side embedded with a sentence", minimum=0, maximum=20
    )
    min_chunk_size: int = param(0, "LangChain's min_chunk_size in characters (0: none)", minimum=0, maximum=1_000_000)


@dataclass(frozen=True)
class SemchunkParams:
    chunk_size: int = param(
        128,
        "semchunk's chunk_size: tokens per chunk (the page's tokenizer)",
        minimum=1,
        maximum=100_000,
        unit="tokens",
        size_target=True,
    )
    overlap: int = param(0, "semchunk's overlap in tokens (0: none)", minimum=0, maximum=100_000, overlap_unit="tokens")

    def __post_init__(self) -> None:
        _overlap_below("semchunk", "overlap", self.overlap, self.chunk_size)


@dataclass(frozen=True)
class ChonkieRecursiveParams:
    chunk_size: int = param(
        128,
        "Chonkie's chunk_size: tokens per chunk (the page's tokenizer)",
        minimum=1,
        maximum=100_000,
        unit="tokens",
        size_target=True,
    )
    min_characters_per_chunk: int = param(24, "Chonkie's min_characters_per_chunk", minimum=1, maximum=100_000)


@dataclass(frozen=True)
class ChonkieTokenParams:
    chunk_size: int = param(
        128,
        "Chonkie's chunk_size: tokens per chunk (the page's tokenizer)",
        minimum=1,
        maximum=100_000,
        unit="tokens",
        size_target=True,
    )
    chunk_overlap: int = param(
        DEFAULT_OVERLAP, "Chonkie's chunk_overlap in tokens", minimum=0, maximum=100_000, overlap_unit="tokens"
    )

    def __post_init__(self) -> None:
        _overlap_below("chonkie_token", "chunk_overlap", self.chunk_overlap, self.chunk_size)


@dataclass(frozen=True)
class ChonkieSemanticParams:
    threshold: float = param(
        0.8, "Chonkie's threshold: similarity below which a chunk ends", minimum=0.01, maximum=0.99
    )
    chunk_size: int = param(
        2048,
        "Chonkie's chunk_size in the embedding model's tokens (Chonkie counts with the model's tokenizer)",
        minimum=1,
        maximum=100_000,
    )
    similarity_window: int = param(3, "Chonkie's similarity_window: sentences compared", minimum=1, maximum=50)
    min_sentences_per_chunk: int = param(1, "Chonkie's min_sentences_per_chunk", minimum=1, maximum=100)
    min_characters_per_sentence: int = param(24, "Chonkie's min_characters_per_sentence", minimum=1, maximum=10_000)


__all__ = [
    "ChonkieRecursiveParams",
    "ChonkieSemanticParams",
    "ChonkieTokenParams",
    "LangChainMarkdownHeadersParams",
    "LangChainRecursiveParams",
    "LangChainSemanticParams",
    "LangChainTokenParams",
    "SemchunkParams",
]


@dataclass(frozen=True)
class ByteChunkerParams:
    """memchunk's and Chonkie's FastChunker's one size: UTF-8 bytes (their delimiters: their
    default, a line break, a full stop or a question mark)."""

    size: int = param(
        2048,
        "the target size in UTF-8 bytes: a chunk ends after the last delimiter before it, else at it",
        minimum=1,
        maximum=10_000_000,
    )
