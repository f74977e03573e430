#!/usr/bin/env python
"""Reproduce the all-MiniLM-L6-v2 rows of Chroma's "Evaluating Chunking Strategies for Retrieval".

Data: ``../shared/eval/chroma/`` (five corpora, 472 questions, 790 reference spans; see its
NOTES.md); skipped with a message when absent. Embeddings: the offline all-MiniLM-L6-v2, cached
per chunk text (a second run embeds nothing). Retrieval: exact cosine, top 5, over all corpora
(Chroma's query is not filtered by corpus).

Rows: RecursiveCharacterTextSplitter = chunkviz ``recursive_langchain`` (LangChain's algorithm,
placed exactly) with the study's separators ``["\\n\\n", "\\n", ".", "?", "!", " ", ""]`` and
the separator kept at the start of each split; TokenTextSplitter = ``fixed_tokens`` in cl100k
tokens; ClusterSemanticChunker = ``cluster`` (max_tokens = the row's size, 50-token pieces in
cl100k, pieces embedded with the same MiniLM). ``--length`` is what the Recursive rows' length function counts: ``cl100k`` tokens (the
study's stated setting) or ``minilm`` wordpieces with [CLS]/[SEP] added to every measured piece
(``len(minilm_tokenizer.encode(piece))``; chunk_size 250/200 as published). Every row is scored
under both span mappings (``--mapping``): ``exact`` spans, and Chroma's ``first_find`` placement
of each chunk's text. Printed: ours (mean ± std, %) next to the published numbers.

``--retriever dense,bm25,hybrid`` (default dense) scores every row with each retriever (hybrid: both
fusions, rrf and weighted with ``--alpha``), and prints the cold and warm time of the row's BM25
index build (cold: no index and no stem cached; warm: the same texts again, from the index cache).

    .venv/bin/python bench/bench_chroma.py [--rows recursive|token|cluster|all] [--length cl100k|minilm] [--mapping exact|first_find|both]
                                           [--retriever dense,bm25,hybrid] [--alpha 0.5]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

DATA = REPO.parent / "shared" / "eval" / "chroma"
SEPARATORS = ["\n\n", "\n", ".", "?", "!", " ", ""]
RECURSIVE = "recursive_langchain"
TOKEN = "fixed_tokens"
CLUSTER = "cluster"
#: The Cluster rows' pieces: Chroma's min_chunk_size (50 cl100k tokens); max_tokens is the row's size.
CLUSTER_PIECE_TOKENS = 50
#: (label, strategy, chunk_size, overlap, published recall, precision, precision_Ω, IoU, published mean size).
ROWS = [
    ("Recursive 250/125", RECURSIVE, 250, 125, (78.7, 4.9, 21.9, 4.9), 180),
    ("TokenText 250/125", TOKEN, 250, 125, (82.4, 3.6, 11.4, 3.5), 250),
    ("Recursive 250/0", RECURSIVE, 250, 0, (78.5, 5.4, 26.7, 5.4), 162),
    ("TokenText 250/0", TOKEN, 250, 0, (77.1, 3.3, 16.4, 3.3), 250),
    ("Recursive 200/0", RECURSIVE, 200, 0, (75.7, 6.5, 31.2, 6.5), 128),
    ("TokenText 200/0", TOKEN, 200, 0, (76.6, 4.1, 19.1, 4.1), 200),
    ("Cluster 250", CLUSTER, 250, 0, (77.3, 6.1, 28.6, 6.0), 168),
    ("Cluster 200", CLUSTER, 200, 0, (75.2, 7.2, 33.6, 7.2), 102),
]
#: ``--rows`` choice -> the strategy of its rows.
ROW_STRATEGIES = {"recursive": RECURSIVE, "token": TOKEN, "cluster": CLUSTER}
SHOWN = ("recall", "precision", "precision_omega", "iou")
MAPPINGS = ("exact", "first_find")


def row_setting(strategy: str, size: int, overlap: int, length: str) -> tuple[dict[str, Any], str]:
    """The strategy's params and tokenizer for one row."""
    if strategy == CLUSTER:  # ClusterSemanticChunker(max_chunk_size=size, min_chunk_size=50): no overlap
        return {"max_tokens": size, "min_tokens": CLUSTER_PIECE_TOKENS}, "cl100k_base"
    params: dict[str, Any] = {"chunk_size": size, "overlap": overlap}
    if strategy != RECURSIVE:
        return params, "cl100k_base"
    params.update(separators=SEPARATORS, keep_separator="start")
    if length == "minilm":
        return {**params, "count_special_tokens": True}, "minilm"
    return params, "cl100k_base"


def mean_cl100k(corpus: dict[str, Any], strategy: str, params: dict[str, Any], tokenizer: str) -> tuple[int, float]:
    """How many chunks the row makes and their mean size in cl100k tokens (the study's "~actual")."""
    from chunkviz import chunk
    from chunkviz.text.tokenizers import get_tokenizer

    count = get_tokenizer("cl100k_base").count
    sizes = [count(c.text) for doc in corpus.values() for c in chunk(doc, strategy, tokenizer=tokenizer, **params)]
    return len(sizes), sum(sizes) / max(1, len(sizes))


def load_average() -> str:
    try:
        return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - not available everywhere
        return "load average unknown"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", choices=("recursive", "token", "cluster", "all"), default="all")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument(
        "--length",
        choices=("cl100k", "minilm"),
        default="cl100k",
        help="the Recursive rows' length function: cl100k tokens (the study's setting) or MiniLM wordpieces "
        "with [CLS]/[SEP] counted for every measured piece",
    )
    parser.add_argument(
        "--mapping",
        choices=("exact", "first_find", "both"),
        default="both",
        help="span mapping: exact spans, Chroma's first find of each chunk's text, or both",
    )
    parser.add_argument(
        "--retriever",
        default="dense",
        help="comma-separated retrievers to score every row with: dense, bm25, hybrid (hybrid: rrf and weighted fusion)",
    )
    parser.add_argument("--alpha", type=float, default=0.5, help="the dense weight of the weighted hybrid fusion")
    return parser.parse_args()


def retrieval_configs(configs: list[Any], retriever: str, alpha: float) -> list[Any]:
    """Each configuration with every retriever asked for (hybrid: both fusions)."""
    from dataclasses import replace

    from chunkviz.evaluation.evaluate import with_variants
    from chunkviz.evaluation.report import variant_options

    options = variant_options(retriever=retriever, fusion="rrf,weighted" if "hybrid" in retriever else None)
    twins = with_variants(configs, retriever=options["retriever"], fusion=options["fusion"])
    return [replace(c, alpha=alpha) for c in twins]


def index_times(corpus: dict[str, Any], strategy: str, params: dict[str, Any], tokenizer: str) -> str:
    """The cold and warm time of the BM25 index of one row's chunks (as evaluate indexes them)."""
    from chunkviz import chunk
    from chunkviz.evaluation import retrievers
    from chunkviz.evaluation.retrieval import searchable
    from chunkviz.evaluation.summaries import embedding_text

    texts = [
        embedding_text(c)
        for doc in corpus.values()
        for c in searchable(chunk(doc, strategy, tokenizer=tokenizer, **params))
    ]
    retrievers.INDEXES.clear()
    retrievers.STEMS.clear()
    began = time.perf_counter()
    retrievers.bm25_index(texts)
    cold = time.perf_counter() - began
    began = time.perf_counter()
    retrievers.bm25_index(texts)
    warm = time.perf_counter() - began
    return f"bm25 index of {len(texts):,} chunks: cold {cold:.2f} s, warm {1000 * warm:.1f} ms"


def main() -> int:
    args = parse_args()
    if not (DATA / "questions_df.csv").exists():
        print(f"skipped: the Chroma evaluation data is not at {DATA}")
        return 0
    began = time.perf_counter()
    from chunkviz.document.read import read_path
    from chunkviz.evaluation.evaluate import Configuration, evaluate
    from chunkviz.evaluation.questions import load_questions

    corpus = {path.stem: read_path(path) for path in sorted((DATA / "corpora").glob("*.md"))}
    questions = load_questions(DATA / "questions_df.csv", {name: doc.text for name, doc in corpus.items()})
    mappings = MAPPINGS if args.mapping == "both" else (args.mapping,)
    rows = [r for r in ROWS if args.rows == "all" or r[1] == ROW_STRATEGIES[args.rows]]
    print(
        f"{len(questions)} questions, {len(corpus)} corpora ({sum(len(d.text) for d in corpus.values()):,} characters), "
        f"top {args.k}, all-MiniLM-L6-v2; Recursive sizes in "
        f"{'cl100k tokens' if args.length == 'cl100k' else 'MiniLM wordpieces + [CLS]/[SEP] per piece'}; {load_average()}"
    )
    print(
        f"{'row':<18} {'chunks':>6} {'~cl100k':>12}  {'mapping, retrieval':<10} "
        + "  ".join(f"{m:>20}" for m in SHOWN)
        + "  seconds"
    )
    for label, strategy, size, overlap, published, published_mean in rows:
        row_began = time.perf_counter()
        params, tokenizer = row_setting(strategy, size, overlap, args.length)
        chunks, mean = mean_cl100k(corpus, strategy, params, tokenizer)
        configs = [Configuration(strategy, params, tokenizer, placement) for placement in mappings]
        configs = retrieval_configs(configs, args.retriever, args.alpha)
        if args.retriever != "dense":
            print(f"{label}: {index_times(corpus, strategy, params, tokenizer)}", flush=True)
        results = evaluate(corpus, questions, configs, k=args.k)
        seconds = time.perf_counter() - row_began
        for n, result in enumerate(results):
            placement = " ".join([result.configuration.placement, *result.configuration.retrieval_tags()])
            summary = result.summary()
            cells = [
                f"{100 * summary[m][0]:4.1f}±{100 * summary[m][1]:4.1f} ({p:4.1f})" for m, p in zip(SHOWN, published)
            ]
            head = f"{label:<18} {chunks:>6,} {f'{mean:.0f} (~{published_mean})':>12}" if n == 0 else " " * 38
            tail = f"  {seconds:7.1f}" if n == 0 else ""
            width = 10 if args.retriever == "dense" else 34
            print(f"{head}  {placement:<{width}} " + "  ".join(f"{c:>20}" for c in cells) + tail, flush=True)
    print(
        f"cells: ours mean±std (published mean); ~cl100k: our mean chunk size in cl100k tokens (published ~actual); "
        f"total {time.perf_counter() - began:.1f} s; {load_average()}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
