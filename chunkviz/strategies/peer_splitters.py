"""The peer splitters as strategies: registered only when their packages are installed.

Each peer column runs the peer's own code (:mod:`chunkviz.strategies.peers.runners`) and shows its chunks
where its users place them, audited against the source (:mod:`chunkviz.strategies.peers.audit`); the
flags are in each chunk's ``metadata["peer_flags"]`` and the peer's CPU time in the explanation.
"""

from __future__ import annotations

import functools
from typing import Any

from chunkviz.core.types import Chunk
from chunkviz.document.model import Document, is_blank
from chunkviz.strategies.base import register
from chunkviz.strategies.peers import available_peers, explain_peer, run_peer
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
from chunkviz.text.tokenizers import Tokenizer

_PARAMS: dict[str, type] = {
    "langchain_recursive": LangChainRecursiveParams,
    "langchain_token": LangChainTokenParams,
    "langchain_markdown_headers": LangChainMarkdownHeadersParams,
    "langchain_semantic": LangChainSemanticParams,
    "semchunk": SemchunkParams,
    "chonkie_recursive": ChonkieRecursiveParams,
    "chonkie_token": ChonkieTokenParams,
    "chonkie_semantic": ChonkieSemanticParams,
    "memchunk": ByteChunkerParams,
    "chonkie_fast": ByteChunkerParams,
}

_WHAT = {
    "langchain_recursive": "placed by its add_start_index (text.find from the previous start)",
    "langchain_token": "placed by its add_start_index (text.find from the previous start)",
    "langchain_markdown_headers": "no offsets: placed by the first find after the previous chunk",
    "langchain_semantic": "placed by its add_start_index (a running sum of chunk lengths)",
    "semchunk": "placed by its offsets=True",
    "chonkie_recursive": "placed by its start_index/end_index",
    "chonkie_token": "placed by its start_index/end_index",
    "chonkie_semantic": "placed by its start_index/end_index, with the offline embedding model",
    "memchunk": "placed by its UTF-8 byte offsets (a cut inside a character is flagged)",
    "chonkie_fast": "placed by chonkie-core's UTF-8 byte offsets (a cut inside a character is flagged)",
}


def _peer_chunks(name: str, document: Document, params: Any, tokenizer: Tokenizer) -> list[Chunk]:
    if is_blank(document.text):
        return []
    return list(run_peer(document, name, params, tokenizer).chunks)


def _register_available() -> list[str]:
    names = []
    for info in available_peers():
        register(
            info.name,
            f"Peer: {info.label} ({info.distribution}), its own code, {_WHAT[info.name]}; audited against the source.",
            _PARAMS[info.name],
            explain=functools.partial(explain_peer, name=info.name),
        )(functools.partial(_peer_chunks, info.name))
        names.append(info.name)
    return names


REGISTERED: tuple[str, ...] = tuple(_register_available())

__all__ = ["REGISTERED"]
