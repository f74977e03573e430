"""The ``code`` strategy on tree-sitter against a bare tokenization and ``fixed_tokens``, on real files.

    python bench/bench_code.py [--repeat 5] [FILE ...]

For each file (by default the project's own JavaScript, the TypeScript declarations of the npm
package ``typescript`` under node_modules and the samples written for ``code``: whichever exist)
it measures, in interleaved rounds of CPU time from cold caches: a bare ``encode`` of the text
(the reference), reading the file (tree-sitter outline included), ``code`` and ``fixed_tokens``
at 128 tokens, both end to end from the bytes. It prints the median of each as a ratio to the
encode of the same round, and how many chunks each made. Needs the ``code`` extra.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Callable

import chunkviz
from chunkviz.document.code.outline import clear_outline_cache
from chunkviz.document.read import read_bytes
from chunkviz.text.spancount import clear_shared_counters
from chunkviz.text.tokenizers import get_tokenizer

REPO = Path(__file__).resolve().parent.parent
DEFAULT_FILES = [
    *sorted((REPO / "chunkviz/ui").glob("*.js")),
    *sorted((REPO / "node_modules/@typescript").glob("*/lib/lib.es5.d.ts")),
    *sorted((REPO / "node_modules/typescript/dist/api/sync").glob("api.d.ts")),
    *(REPO / "chunkviz/sample_docs" / name for name in ("rate_limiter.ts", "ring_buffer.go", "river_gauge.rs")),
]


def cpu(action: Callable[[], object]) -> float:
    """CPU seconds of one run of ``action`` from cold span-count and outline caches."""
    clear_shared_counters()
    clear_outline_cache()
    began = time.process_time()
    action()
    return time.process_time() - began


def chunk_file(data: bytes, path: Path, strategy: str) -> list[chunkviz.Chunk]:
    """``strategy`` at its defaults on the file, from its bytes."""
    return chunkviz.chunk(read_bytes(data, path.name), strategy)


def measure(path: Path, repeat: int) -> None:
    data = path.read_bytes()
    text = data.decode("utf-8")
    tokenizer = get_tokenizer("cl100k_base")
    runs: dict[str, list[float]] = {"read": [], "code": [], "fixed_tokens": []}
    counts: dict[str, int] = {}
    for _ in range(repeat):
        reference = cpu(lambda: tokenizer.boundaries(text))
        runs["read"].append(cpu(lambda: read_bytes(data, path.name)) / reference)
        for name in ("code", "fixed_tokens"):
            runs[name].append(
                cpu(lambda strategy=name: counts.update({strategy: len(chunk_file(data, path, strategy))})) / reference
            )
    shown = "  ".join(f"{name} {statistics.median(ratios):5.2f}x" for name, ratios in runs.items())
    print(
        f"{path.name:<28} {len(text):>9,} chars  {shown}  chunks: code {counts['code']}, fixed {counts['fixed_tokens']}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="source files (default: see the module docstring)")
    parser.add_argument("--repeat", type=int, default=5, help="interleaved rounds (default 5)")
    args = parser.parse_args()
    files = [p for p in (args.files or DEFAULT_FILES) if p.is_file()]
    print("median CPU time over a bare tokenization of the same text (cl100k_base), same round")
    for path in files:
        measure(path, max(1, args.repeat))


if __name__ == "__main__":
    main()
