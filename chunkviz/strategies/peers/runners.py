"""Run each peer's own code on a text and collect what its users would have.

Each runner builds the peer exactly as its users do (parameters under the peer's names, the
page's tokenizer where the peer accepts one, the offline embedding model for the semantic
ones), measures the CPU time of the peer's call (``time.process_time``, placement included) and
returns a :class:`~chunkviz.strategies.peers.audit.PeerOutput`: the peer's strings, their users'
placement, the limit it was given and, when it can be computed exactly, the spans the peer's
own sequence implies (the reference the audit compares the placement with).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeVar, cast

import numpy as np

from chunkviz.core.errors import ChunkvizError
from chunkviz.core.types import Span
from chunkviz.core.vocabulary import Reason
from chunkviz.splitting import resolve_separators
from chunkviz.splitting.langchain import KeepSeparator, LangChainSplitter
from chunkviz.strategies.peers.adapters import (
    PieceCodec,
    chonkie_embeddings,
    chonkie_tokenizer,
    langchain_embeddings,
    native_tiktoken,
)
from chunkviz.strategies.peers.audit import PeerChunk, PeerOutput
from chunkviz.strategies.peers.params import (
    ByteChunkerParams,
    ChonkieRecursiveParams,
    ChonkieSemanticParams,
    ChonkieTokenParams,
    LangChainMarkdownHeadersParams,
    LangChainRecursiveParams,
    LangChainSemanticParams,
    LangChainTokenParams,
    SemchunkParams,
)
from chunkviz.text.tokenizers import Tokenizer, get_tokenizer

T = TypeVar("T")
START_INDEX = "LangChain's start_index"


class PeerFailed(ChunkvizError, RuntimeError):
    """A peer splitter raised on this document or these parameters (its message is kept)."""


def timed(call: Callable[[], T]) -> tuple[T, float]:
    """``call()`` and the CPU seconds it took (``time.process_time``: this process, all threads)."""
    before = time.process_time()
    result = call()
    return result, time.process_time() - before


def token_windows(tokenizer: Tokenizer, source: str, size: int, overlap: int) -> tuple[Span, ...]:
    """The exact spans of windows of ``size`` tokens advancing by ``size - overlap`` (the windows
    LangChain's and Chonkie's token splitters take), on our token boundaries."""
    positions = tokenizer.boundaries(source).positions.tolist()
    total = len(positions) - 1
    spans = []
    for first in range(0, total, size - overlap):
        last = min(first + size, total)
        spans.append((positions[first], positions[last]))
        if last == total:
            break
    return tuple(spans)


def _call(label: str, call: Callable[[], T]) -> tuple[T, float]:
    try:
        return timed(call)
    except ChunkvizError:
        raise
    except Exception as exc:
        raise PeerFailed(f"{label} failed on this document: {type(exc).__name__}: {exc}") from exc


def _langchain_placed(documents: list[Any], count: Callable[[str], int] | None) -> tuple[PeerChunk, ...]:
    return tuple(
        PeerChunk(d.page_content, d.metadata.get("start_index"), size=count(d.page_content) if count else None)
        for d in documents
    )


def run_langchain_recursive(source: str, params: LangChainRecursiveParams, tokenizer: Tokenizer) -> PeerOutput:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    separators = resolve_separators(params.separators, "langchain_recursive")
    length = tokenizer._count  # what a user passes: a plain, unmemoized counter
    keep_at = cast(KeepSeparator, params.keep_separator)  # one of KEEP_SEPARATOR: the params validate it
    keep: bool | Literal["end"] = True if keep_at == "start" else "end"

    def split() -> list[Any]:
        splitter = RecursiveCharacterTextSplitter(
            separators=separators,
            keep_separator=keep,
            chunk_size=params.chunk_size,
            chunk_overlap=params.chunk_overlap,
            length_function=length,
            add_start_index=True,
            strip_whitespace=params.strip_whitespace,
        )
        return splitter.create_documents([source])

    documents, cpu = _call("LangChain's RecursiveCharacterTextSplitter", split)
    chunks = _langchain_placed(documents, length)
    reference = None
    if params.strip_whitespace:  # our exact port of the same algorithm (chunkviz.splitting.langchain)
        port = LangChainSplitter(source, separators, params.chunk_size, params.chunk_overlap, length, keep_at).split()
        spans = tuple((c.start, c.end) for c in port)
        if [source[a:b] for a, b in spans] == [c.text for c in chunks]:
            reference = spans
    return PeerOutput(
        chunks, params.chunk_size, params.chunk_overlap > 0, True, reference, Reason.SIZE_LIMIT, cpu, START_INDEX
    )


def run_langchain_token(source: str, params: LangChainTokenParams, tokenizer: Tokenizer) -> PeerOutput:
    from langchain_text_splitters import TextSplitter, TokenTextSplitter
    from langchain_text_splitters import Tokenizer as LangChainTokenizer
    from langchain_text_splitters.base import split_text_on_tokens

    encoding = native_tiktoken(tokenizer)
    notes: tuple[str, ...] = ()
    if encoding is not None:

        def split() -> list[Any]:
            splitter = TokenTextSplitter(
                encoding_name=encoding.name,
                chunk_size=params.chunk_size,
                chunk_overlap=params.chunk_overlap,
                add_start_index=True,
            )
            return splitter.create_documents([source])
    else:
        codec = PieceCodec(tokenizer)
        notes = (
            f"TokenTextSplitter reads only tiktoken encodings: LangChain's split_text_on_tokens runs with the {tokenizer.name} tokenizer",
        )

        class PiecesTextSplitter(TextSplitter):
            def split_text(self, text: str) -> list[str]:
                return split_text_on_tokens(
                    text=text,
                    tokenizer=LangChainTokenizer(
                        chunk_overlap=params.chunk_overlap,
                        tokens_per_chunk=params.chunk_size,
                        decode=codec.decode,
                        encode=codec.encode,
                    ),
                )

        def split() -> list[Any]:
            splitter = PiecesTextSplitter(
                chunk_size=params.chunk_size, chunk_overlap=params.chunk_overlap, add_start_index=True
            )
            return splitter.create_documents([source])

    documents, cpu = _call("LangChain's TokenTextSplitter", split)
    chunks = _langchain_placed(documents, tokenizer._count)
    windows = token_windows(tokenizer, source, params.chunk_size, params.chunk_overlap)
    return PeerOutput(
        chunks, params.chunk_size, params.chunk_overlap > 0, True, windows, Reason.SIZE_LIMIT, cpu, START_INDEX, notes
    )


def run_langchain_markdown_headers(
    source: str, params: LangChainMarkdownHeadersParams, tokenizer: Tokenizer
) -> PeerOutput:
    from langchain_text_splitters import MarkdownHeaderTextSplitter

    headers = [(marker, f"Header {k}") for k, marker in enumerate(params.headers_to_split_on, 1)]

    def split() -> list[PeerChunk]:
        splitter = MarkdownHeaderTextSplitter(
            headers, return_each_line=params.return_each_line, strip_headers=params.strip_headers
        )
        placed, after = [], 0
        for document in splitter.split_text(source):  # no offsets: users search each text after the previous one
            start = source.find(document.page_content, after)
            placed.append(PeerChunk(document.page_content, start))
            if start >= 0:
                after = start + len(document.page_content)
        return placed

    chunks, cpu = _call("LangChain's MarkdownHeaderTextSplitter", split)
    return PeerOutput(
        tuple(chunks), None, False, True, None, Reason.UNIT_END, cpu, "the first find after the previous chunk"
    )


def run_langchain_semantic(source: str, params: LangChainSemanticParams, tokenizer: Tokenizer) -> PeerOutput:
    from langchain_experimental.text_splitter import SemanticChunker

    embeddings = langchain_embeddings()  # loaded before the clock starts: the model is shared with ours

    def split() -> list[Any]:
        chunker = SemanticChunker(
            embeddings,
            buffer_size=params.buffer_size,
            add_start_index=True,
            breakpoint_threshold_type=params.breakpoint_threshold_type,  # a str the params check against THRESHOLD_TYPES
            breakpoint_threshold_amount=params.breakpoint_threshold_amount,
            min_chunk_size=params.min_chunk_size or None,
        )
        return chunker.create_documents([source])

    documents, cpu = _call("LangChain's SemanticChunker", split)
    chunks = _langchain_placed(documents, None)
    return PeerOutput(
        chunks,
        None,
        False,
        False,
        None,
        Reason.SEMANTIC_BREAKPOINT,
        cpu,
        "LangChain's start_index (a running sum of chunk lengths)",
    )


def run_semchunk(source: str, params: SemchunkParams, tokenizer: Tokenizer) -> PeerOutput:
    import semchunk

    counter: Any = native_tiktoken(tokenizer) or tokenizer._count

    chunker = semchunk.chunkerify(counter, params.chunk_size)  # built once per process by its users: not timed

    def split() -> tuple[list[str], list[tuple[int, int]]]:
        return chunker(source, offsets=True, overlap=params.overlap or None)  # offsets=True: (texts, spans)

    (texts, offsets), cpu = _call("semchunk", split)
    chunks = tuple(PeerChunk(t, a, b, tokenizer._count(t)) for t, (a, b) in zip(texts, offsets))
    return PeerOutput(
        chunks, params.chunk_size, params.overlap > 0, False, None, Reason.SIZE_LIMIT, cpu, "semchunk's offsets"
    )


def _chonkie_placed(chunks: list[Any], count: Callable[[str], int]) -> tuple[PeerChunk, ...]:
    return tuple(PeerChunk(c.text, c.start_index, c.end_index, count(c.text)) for c in chunks)


def run_chonkie_recursive(source: str, params: ChonkieRecursiveParams, tokenizer: Tokenizer) -> PeerOutput:
    from chonkie import RecursiveChunker

    given = chonkie_tokenizer(tokenizer)

    def split() -> list[Any]:
        chunker = RecursiveChunker(
            tokenizer=given, chunk_size=params.chunk_size, min_characters_per_chunk=params.min_characters_per_chunk
        )
        return chunker.chunk(source)

    chunks, cpu = _call("Chonkie's RecursiveChunker", split)
    return PeerOutput(
        _chonkie_placed(chunks, tokenizer._count),
        params.chunk_size,
        False,
        False,
        None,
        Reason.SIZE_LIMIT,
        cpu,
        "Chonkie's start_index",
    )


def run_chonkie_token(source: str, params: ChonkieTokenParams, tokenizer: Tokenizer) -> PeerOutput:
    from chonkie import TokenChunker

    given = chonkie_tokenizer(tokenizer)

    def split() -> list[Any]:
        return TokenChunker(tokenizer=given, chunk_size=params.chunk_size, chunk_overlap=params.chunk_overlap).chunk(
            source
        )

    chunks, cpu = _call("Chonkie's TokenChunker", split)
    windows = token_windows(tokenizer, source, params.chunk_size, params.chunk_overlap)
    return PeerOutput(
        _chonkie_placed(chunks, tokenizer._count),
        params.chunk_size,
        params.chunk_overlap > 0,
        False,
        windows,
        Reason.SIZE_LIMIT,
        cpu,
        "Chonkie's start_index",
    )


def run_chonkie_semantic(source: str, params: ChonkieSemanticParams, tokenizer: Tokenizer) -> PeerOutput:
    from chonkie import SemanticChunker

    embeddings = chonkie_embeddings()  # the offline model object: Chonkie loads nothing by name
    model_tokens = get_tokenizer("minilm")._count  # Chonkie measures chunk_size with the model's tokenizer

    def split() -> list[Any]:
        chunker = SemanticChunker(
            embedding_model=embeddings,
            threshold=params.threshold,
            chunk_size=params.chunk_size,
            similarity_window=params.similarity_window,
            min_sentences_per_chunk=params.min_sentences_per_chunk,
            min_characters_per_sentence=params.min_characters_per_sentence,
        )
        return chunker.chunk(source)

    chunks, cpu = _call("Chonkie's SemanticChunker", split)
    return PeerOutput(
        _chonkie_placed(chunks, model_tokens),
        params.chunk_size,
        False,
        False,
        None,
        Reason.SEMANTIC_BREAKPOINT,
        cpu,
        "Chonkie's start_index",
        (
            "chunk_size counts the embedding model's tokens: Chonkie's SemanticChunker measures with the model's tokenizer",
        ),
    )


def _byte_placed(source: str, data: bytes, offsets: Sequence[tuple[int, int]]) -> tuple[PeerChunk, ...]:
    """Chunks of byte offsets as their users read them: the bytes decoded (a cut inside a
    character leaves U+FFFD where its bytes were split), placed at the characters that start
    before each offset (exact where the offset is a character's first byte)."""
    leads = np.cumsum((np.frombuffer(data, dtype=np.uint8) & 0xC0) != 0x80, dtype=np.int64)
    chars_before = np.concatenate(([0], leads))  # chars_before[b]: characters starting before byte b
    return tuple(
        PeerChunk(data[a:b].decode("utf-8", errors="replace"), int(chars_before[a]), int(chars_before[b]), b - a)
        for a, b in offsets
    )


def _run_byte_chunker(
    label: str, chunk_offsets: Callable[[bytes], Sequence[tuple[int, int]]], source: str, size: int
) -> PeerOutput:
    data = source.encode("utf-8")  # run_peer's source has no lone surrogate
    offsets, cpu = _call(label, lambda: chunk_offsets(data))
    return PeerOutput(
        _byte_placed(source, data, offsets),
        size,
        False,
        False,
        None,
        Reason.SIZE_LIMIT,
        cpu,
        f"{label}'s byte offsets",
        (f"{label} counts and cuts UTF-8 bytes: a cut inside a character is no span of the text",),
    )


def run_memchunk(source: str, params: ByteChunkerParams, tokenizer: Tokenizer) -> PeerOutput:
    import memchunk

    return _run_byte_chunker(
        "memchunk", lambda data: memchunk.chunk_offsets(data, size=params.size), source, params.size
    )


def run_chonkie_fast(source: str, params: ByteChunkerParams, tokenizer: Tokenizer) -> PeerOutput:
    import chonkie_core  # what Chonkie's FastChunker calls, without Chonkie's import time

    return _run_byte_chunker(
        "Chonkie's FastChunker", lambda data: chonkie_core.chunk_offsets(data, size=params.size), source, params.size
    )


RUNNERS: dict[str, Callable[[str, Any, Tokenizer], PeerOutput]] = {
    "langchain_recursive": run_langchain_recursive,
    "langchain_token": run_langchain_token,
    "langchain_markdown_headers": run_langchain_markdown_headers,
    "langchain_semantic": run_langchain_semantic,
    "semchunk": run_semchunk,
    "chonkie_recursive": run_chonkie_recursive,
    "chonkie_token": run_chonkie_token,
    "chonkie_semantic": run_chonkie_semantic,
    "memchunk": run_memchunk,
    "chonkie_fast": run_chonkie_fast,
}

__all__ = ["RUNNERS", "PeerFailed", "timed", "token_windows"]
