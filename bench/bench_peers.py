#!/usr/bin/env python
"""CPU time of each peer splitter against our equivalent, on the real documents, plus the audit.

For every real document (``../shared/realdocs`` or ``$CHUNKVIZ_SHARED/realdocs``) and every
installed peer, in this process, best of ``--repeat``:

  peer   the peer's own call as :mod:`chunkviz.strategies.peers.runners` makes it (construction, split and
         its users' placement: LangChain's add_start_index, Chonkie's indices, semchunk's
         offsets), ``time.process_time`` around that call only, with chunkviz's embedding cache
         (which the semantic peers share in the app) emptied; LangChain is given the
         tokenizer's plain (unmemoized) counter, as a user would pass it;
  ours   ``chunkviz.chunk`` with our strategy for the same job and the same sizes, on a new
         Document each round (its structure is rebuilt) with the tokenizer's count cache
         cleared and, for ``semantic``, its in-memory and disk embedding caches emptied.

Pairs: langchain_recursive/recursive_langchain, langchain_token/fixed_tokens,
langchain_markdown_headers/headings, semchunk/recursive, chonkie_recursive/recursive,
chonkie_token/fixed_tokens and, with ``--semantic``, langchain_semantic and chonkie_semantic
against semantic (the model and our sentence segmenter are loaded once before timing). Sizes: 128 tokens (cl100k_base),
overlap 16 where the pair has one. It prints milliseconds per pair and document, the ratio
peer/ours (> 1: the peer takes more CPU), totals, and the audit's counts for each peer.

    .venv/bin/python bench/bench_peers.py [--repeat 3] [--semantic] [--docs alice29.txt,...]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import chunkviz  # noqa: E402
from chunkviz.document.model import Document  # noqa: E402
from chunkviz.strategies.base import get_strategy  # noqa: E402
from chunkviz.strategies.peers import available_peers, run_peer  # noqa: E402
from chunkviz.strategies.peers.runners import RUNNERS  # noqa: E402
from chunkviz.text.tokenizers import get_tokenizer, surrogate_safe  # noqa: E402

TOKENIZER = "cl100k_base"
SEMANTIC_PEERS = {"langchain_semantic", "chonkie_semantic"}
#: peer -> (its parameters, our strategy, our parameters)
PAIRS: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {
    "langchain_recursive": (
        {"chunk_size": 128, "chunk_overlap": 16},
        "recursive_langchain",
        {"chunk_size": 128, "overlap": 16},
    ),
    "langchain_token": ({"chunk_size": 128, "chunk_overlap": 16}, "fixed_tokens", {"chunk_size": 128, "overlap": 16}),
    "langchain_markdown_headers": ({}, "headings", {}),
    "semchunk": ({"chunk_size": 128}, "recursive", {"chunk_size": 128, "overlap": 0}),
    "chonkie_recursive": ({"chunk_size": 128}, "recursive", {"chunk_size": 128, "overlap": 0}),
    "chonkie_token": ({"chunk_size": 128, "chunk_overlap": 16}, "fixed_tokens", {"chunk_size": 128, "overlap": 16}),
    "langchain_semantic": ({}, "semantic", {}),
    "chonkie_semantic": ({}, "semantic", {}),
    # byte-offset splitters: 2,048 UTF-8 bytes against 2,048 characters (the same on ASCII text)
    "memchunk": ({"size": 2048}, "fixed_chars", {"chunk_size": 2048, "overlap": 0}),
    "chonkie_fast": ({"size": 2048}, "fixed_chars", {"chunk_size": 2048, "overlap": 0}),
}
FORMATS = {".md": "markdown", ".py": "python", ".rst": "rst"}


def realdocs() -> Path:
    shared = os.environ.get("CHUNKVIZ_SHARED")
    return (Path(shared).expanduser() if shared else REPO_ROOT.parent / "shared") / "realdocs"


def documents(only: set[str] | None) -> list[tuple[str, str, str]]:
    folder = realdocs()
    if not folder.is_dir():
        raise SystemExit(f"real documents not found at {folder} (set CHUNKVIZ_SHARED to the shared folder)")
    found = []
    for path in sorted(folder.iterdir()):
        if path.name in {"SOURCES.md", "README.md"} or path.name.startswith(".") or (only and path.name not in only):
            continue
        with open(path, encoding="utf-8", newline="") as handle:
            found.append((path.name, handle.read(), FORMATS.get(path.suffix, "text")))
    return found


def peer_cpu(name: str, text: str, params: dict[str, Any], repeat: int) -> float:
    """Best CPU seconds of the peer's own call (the runner called directly; for a semantic peer,
    chunkviz's embedding cache, which the app gives it, emptied before each round)."""
    from chunkviz.semantic.embedcache import clear_memory

    validated = get_strategy(name).make_params(params)
    tokenizer = get_tokenizer(TOKENIZER)
    source = surrogate_safe(text)
    best = float("inf")
    for _ in range(repeat):
        clear_memory()
        with tempfile.TemporaryDirectory() as cache:
            os.environ["CHUNKVIZ_CACHE_DIR"] = cache
            best = min(best, RUNNERS[name](source, validated, tokenizer).cpu_seconds)
    return best


def ours_cpu(strategy: str, text: str, fmt: str, params: dict[str, Any], repeat: int) -> float:
    """Best CPU seconds of our strategy on a new Document, count cache cleared (and a new
    embedding cache folder for semantic)."""
    tokenizer = get_tokenizer(TOKENIZER)
    best = float("inf")
    if strategy == "semantic":  # load the sentence segmenter once, untimed, as the model is for the peers
        with tempfile.TemporaryDirectory() as cache:
            os.environ["CHUNKVIZ_CACHE_DIR"] = cache
            chunkviz.chunk("A first sentence. A second one.", strategy, tokenizer=tokenizer)
    for _ in range(repeat):
        tokenizer.count.cache_clear()  # type: ignore[attr-defined]
        if strategy == "semantic":
            from chunkviz.semantic.cache import clear_memory_cache
            from chunkviz.strategies import semantic as semantic_strategy

            clear_memory_cache()  # embed again, as the peers do
            semantic_strategy.EXPLANATIONS.clear()  # its per-(document, params) result cache
        document = Document(text=text, name="bench", format=fmt)
        with tempfile.TemporaryDirectory() as cache:
            os.environ["CHUNKVIZ_CACHE_DIR"] = cache
            before = time.process_time()
            chunkviz.chunk(document, strategy, tokenizer=tokenizer, **params)
            best = min(best, time.process_time() - before)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--semantic", action="store_true", help="also the semantic peers (loads the offline embedding model)"
    )
    parser.add_argument("--docs", default="", help="comma-separated file names (default: all)")
    args = parser.parse_args()
    docs = documents(set(filter(None, args.docs.split(","))) or None)
    peers = [p.name for p in available_peers() if args.semantic or p.name not in SEMANTIC_PEERS]
    if not peers:
        raise SystemExit("no peer is installed: pip install 'chunkviz[peers]'")
    if any(p in SEMANTIC_PEERS for p in peers):
        from chunkviz.semantic.embeddings import load_model

        load_model()
    print(f"CPU time (time.process_time, best of {args.repeat}), {TOKENIZER}, on {len(docs)} real documents")
    print(f"{'document':40s} {'peer':28s} {'peer ms':>9s} {'ours':20s} {'ours ms':>9s} {'peer/ours':>9s}")
    totals: dict[str, list[float]] = {}
    for doc_name, text, fmt in docs:
        for name in peers:
            peer_params, ours, ours_params = PAIRS[name]
            theirs = peer_cpu(name, text, peer_params, args.repeat)
            mine = ours_cpu(ours, text, fmt, ours_params, args.repeat)
            total = totals.setdefault(name, [0.0, 0.0])
            total[0] += theirs
            total[1] += mine
            ratio = theirs / mine if mine > 0 else float("inf")
            print(f"{doc_name:40s} {name:28s} {theirs * 1000:9.1f} {ours:20s} {mine * 1000:9.1f} {ratio:9.2f}")
    print("\ntotals over the documents")
    for name, (theirs, mine) in totals.items():
        ratio = theirs / mine if mine > 0 else float("inf")
        print(
            f"  {name:28s} {theirs * 1000:9.1f} ms   {PAIRS[name][1]:20s} {mine * 1000:9.1f} ms   peer/ours {ratio:6.2f}"
        )
    print("\naudit of each peer's chunks (all documents, the sizes above)")
    for name in peers:
        counts: dict[str, int] = {}
        kinds: dict[str, int] = {}
        chunks = 0
        for _, text, fmt in docs:
            run = run_peer(Document(text=text, name="bench", format=fmt), name, PAIRS[name][0], TOKENIZER)
            chunks += run.audit.chunks
            for key, value in run.audit.counts.items():
                counts[key] = counts.get(key, 0) + value
            for key, value in run.audit.misplacements.items():
                kinds[key] = kinds.get(key, 0) + value
        print(f"  {name:28s} {chunks:5d} chunks  flags {counts or '{}'}  misplaced by kind {kinds or '{}'}")


if __name__ == "__main__":
    main()
