"""The peer splitters chunkviz can run, what each needs installed, and our equivalent of each."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

from chunkviz.core.errors import install_command

PEERS_EXTRA = install_command("peers")
SEMANTIC_EXTRA = install_command("semantic")


@dataclass(frozen=True)
class PeerInfo:
    """One peer: its strategy name, what it is, the modules it imports and our nearest strategy."""

    name: str
    label: str  # e.g. "LangChain RecursiveCharacterTextSplitter"
    distribution: str  # the package that provides it (for versions and install hints)
    modules: tuple[str, ...]  # every module it needs importable
    ours: str  # our strategy that does the same job (the comparison and the benchmark)
    install: str = PEERS_EXTRA


PEERS: tuple[PeerInfo, ...] = (
    PeerInfo(
        "langchain_recursive",
        "LangChain RecursiveCharacterTextSplitter",
        "langchain-text-splitters",
        ("langchain_text_splitters",),
        "recursive_langchain",
    ),
    PeerInfo(
        "langchain_token",
        "LangChain TokenTextSplitter",
        "langchain-text-splitters",
        ("langchain_text_splitters", "tiktoken"),
        "fixed_tokens",
    ),
    PeerInfo(
        "langchain_markdown_headers",
        "LangChain MarkdownHeaderTextSplitter",
        "langchain-text-splitters",
        ("langchain_text_splitters",),
        "headings",
    ),
    PeerInfo(
        "langchain_semantic",
        "LangChain SemanticChunker (experimental)",
        "langchain-experimental",
        ("langchain_experimental", "langchain_core", "sentence_transformers"),
        "semantic",
    ),
    PeerInfo("semchunk", "semchunk", "semchunk", ("semchunk",), "recursive"),
    PeerInfo("chonkie_recursive", "Chonkie RecursiveChunker", "chonkie", ("chonkie",), "recursive"),
    PeerInfo("chonkie_token", "Chonkie TokenChunker", "chonkie", ("chonkie",), "fixed_tokens"),
    PeerInfo(
        "chonkie_semantic", "Chonkie SemanticChunker", "chonkie", ("chonkie", "sentence_transformers"), "semantic"
    ),
    PeerInfo("memchunk", "memchunk (byte offsets)", "memchunk", ("memchunk",), "fixed_chars"),
    PeerInfo(
        "chonkie_fast", "Chonkie FastChunker (chonkie-core, byte offsets)", "chonkie", ("chonkie_core",), "fixed_chars"
    ),
)

PEER_NAMES: frozenset[str] = frozenset(p.name for p in PEERS)


def peer_info(name: str) -> PeerInfo:
    return next(p for p in PEERS if p.name == name)


def is_peer(name: str) -> bool:
    """Whether ``name`` is a peer column (its chunks are audited, not exact by construction)."""
    return name in PEER_NAMES


def missing_modules(info: PeerInfo) -> list[str]:
    """The modules of ``info`` that cannot be found (found without importing them: importing
    Chonkie or LangChain costs seconds, so they are imported when a peer first runs)."""
    return [module for module in info.modules if not _findable(module)]


def _findable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a blocked or broken package counts as absent
        return False


def available_peers() -> list[PeerInfo]:
    return [p for p in PEERS if not missing_modules(p)]


def install_hint(info: PeerInfo, missing: list[str]) -> str:
    """What to install for ``info`` given its ``missing`` modules."""
    if missing == ["sentence_transformers"]:
        return SEMANTIC_EXTRA
    if "sentence_transformers" in missing:
        return f"{info.install} and {SEMANTIC_EXTRA}"
    return info.install


def peer_notes() -> list[str]:
    """Lines for ``chunkviz strategies``: which peers are not listed and what adds them."""
    missing = [(p, missing_modules(p)) for p in PEERS]
    absent = [(p, m) for p, m in missing if m]
    if not absent:
        return []
    by_hint: dict[str, list[str]] = {}
    for info, modules in absent:
        by_hint.setdefault(install_hint(info, modules), []).append(info.name)
    return [
        f"not listed (their packages are not installed): {', '.join(names)} — {hint}" for hint, names in by_hint.items()
    ]


def version_of(info: PeerInfo) -> str:
    """The installed version of the peer's package ("" when unknown)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(info.distribution)
    except PackageNotFoundError:
        return ""


__all__ = [
    "PEERS",
    "PEERS_EXTRA",
    "PEER_NAMES",
    "PeerInfo",
    "available_peers",
    "install_hint",
    "is_peer",
    "missing_modules",
    "peer_info",
    "peer_notes",
    "version_of",
]
