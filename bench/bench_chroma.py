#!/usr/bin/env python
"""Reproduce the all-MiniLM-L6-v2 rows of Chroma's "Evaluating Chunking Strategies for Retrieval".

Data: ``../shared/eval/chroma/`` (five corpora, 472 questions, 790 reference spans; see its
NOTES.md); skipped with a message when absent. Embeddings: the offline all-MiniLM-L6-v2, cached
per chunk text (a second run embeds nothing). Retrieval: exact cosine, top 5, over all corpora
(Chroma's query is not filtered by corpus).

Rows: RecursiveCharacterTextSplitter-like = chunkviz ``recursive`` with the study's separators
``["\\n\\n", "\\n", ".", "?", "!", " ", ""]``; TokenTextSplitter-like = ``fixed_tokens``; sizes in
cl100k_base tokens, as the study. Printed: ours (mean ± std, %) next to the published numbers.

    .venv/bin/python bench/bench_chroma.py [--rows recursive|token|all]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

DATA = REPO.parent / "shared" / "eval" / "chroma"
SEPARATORS = ["\n\n", "\n", ".", "?", "!", " ", ""]
#: (label, strategy, params, published recall, precision, precision_Ω, IoU) from the study.
ROWS = [
    ("Recursive 250/125", "recursive", {"chunk_size": 250, "overlap": 125, "separators": SEPARATORS}, (78.7, 4.9, 21.9, 4.9)),
    ("TokenText 250/125", "fixed_tokens", {"chunk_size": 250, "overlap": 125}, (82.4, 3.6, 11.4, 3.5)),
    ("Recursive 250/0", "recursive", {"chunk_size": 250, "overlap": 0, "separators": SEPARATORS}, (78.5, 5.4, 26.7, 5.4)),
    ("TokenText 250/0", "fixed_tokens", {"chunk_size": 250, "overlap": 0}, (77.1, 3.3, 16.4, 3.3)),
    ("Recursive 200/0", "recursive", {"chunk_size": 200, "overlap": 0, "separators": SEPARATORS}, (75.7, 6.5, 31.2, 6.5)),
    ("TokenText 200/0", "fixed_tokens", {"chunk_size": 200, "overlap": 0}, (76.6, 4.1, 19.1, 4.1)),
]
SHOWN = ("recall", "precision", "precision_omega", "iou")


def configuration(strategy: str, params: dict, length: str):  # noqa: ANN201 - a Configuration
    from chunkviz.evaluation.evaluate import Configuration

    if length == "cl100k":
        return Configuration(strategy, params, "cl100k_base")
    return Configuration(strategy, {**params, "chunk_size": params["chunk_size"] - 2}, "minilm")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", choices=("recursive", "token", "all"), default="all")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument(
        "--length", choices=("cl100k", "minilm"), default="cl100k",
        help="count chunk sizes in cl100k tokens (the study's setting) or in MiniLM wordpieces with [CLS]/[SEP] "
        "(size - 2 wordpieces: what the study's recursive chunks measured in the model's own tokens)",
    )
    args = parser.parse_args()
    if not (DATA / "questions_df.csv").exists():
        print(f"skipped: the Chroma evaluation data is not at {DATA}")
        return 0
    from chunkviz.document.read import read_path
    from chunkviz.evaluation.evaluate import evaluate
    from chunkviz.evaluation.questions import load_questions

    corpus = {path.stem: read_path(path) for path in sorted((DATA / "corpora").glob("*.md"))}
    questions = load_questions(DATA / "questions_df.csv", {name: doc.text for name, doc in corpus.items()})
    rows = [r for r in ROWS if args.rows == "all" or r[1] == ("recursive" if args.rows == "recursive" else "fixed_tokens")]
    print(f"{len(questions)} questions, {len(corpus)} corpora ({sum(len(d.text) for d in corpus.values()):,} characters), top {args.k}, "
          f"all-MiniLM-L6-v2, sizes in {'cl100k tokens' if args.length == 'cl100k' else 'MiniLM wordpieces incl. [CLS]/[SEP]'}")
    print(f"{'row':<20} {'chunks':>7}  " + "  ".join(f"{m:>24}" for m in SHOWN) + "   seconds")
    for label, strategy, params, published in rows:
        began = time.perf_counter()
        (result,) = evaluate(corpus, questions, [configuration(strategy, params, args.length)], k=args.k)
        seconds = time.perf_counter() - began
        summary = result.summary()
        cells = [f"{100 * summary[m][0]:5.1f} ± {100 * summary[m][1]:4.1f} ({p:5.1f})" for m, p in zip(SHOWN, published)]
        print(f"{label:<20} {result.chunks:>7,}  " + "  ".join(f"{c:>24}" for c in cells) + f"   {seconds:7.1f}")
    print("cells: ours mean ± std (published mean)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
