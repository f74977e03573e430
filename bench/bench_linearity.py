#!/usr/bin/env python
"""Linearity benchmark: time per 100,000 characters of every strategy at its smallest limits.

    .venv/bin/python bench/bench_linearity.py [--sizes 10000,100000,1000000] [--strategies a,b]
                                              [--texts blank_lines,one_long_line,prose] [--tokenizer cl100k_base]

For every registered strategy but ``llm`` (its work is the model's answers) and the peers (another
library's code: LangChain, semchunk, Chonkie), at the smallest
limits it allows, on texts built to be hard (issues 13 and 23):

  blank_lines     one word in the middle of a run of blank lines (40,000 newlines took 99.8 s
                  in ``recursive`` before the fix)
  one_long_line   "abcdefghij" repeated: no space, no line break, no sentence end
  prose           ordinary sentences and paragraphs, no two alike
  short_lines     "# Title" and one paragraph of "line" lines (issue 23)
  deep_lists      lists nested 600 deep, one after another (issue 23)
  punct_run       one line of "=" between two sentences (issue 23: 16 kB took 91 s)
  mixed_punct     a run of punctuation that never repeats a piece, no space
  br_runs         HTML: "x<br>" repeated (issue 23: 5 MB took 88 s and 1.3 GB), read and chunked
  html_pre        HTML: one <pre> block of short lines, read and chunked

it prints the CPU seconds of this process per 100,000 characters at each size (nan where the run
is refused for making more than 100,000 chunks) (end to end:
Document, structure, splitting, Chunk objects with their boundaries; CPU time, not wall time, so
other work on a shared machine does not enter the ratios) and the ratio of each size's time per 100,000
characters to the previous size's. Near-linear work keeps the ratio near 1 (a quadratic step
from 100k to 1M characters would show about 10). Every call is cold: a fresh Document, the shared
span counters and the tokenizer's count memo cleared. The ``semantic`` strategy embeds with a
cheap hashed bag of words instead of the neural model (said in the output), so the times are the
chunking work, not the model's. The whole run takes several minutes at 1,000,000 characters.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any, Callable

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402

import chunkviz  # noqa: E402
from chunkviz.core.limits import TooManyChunksError  # noqa: E402
from chunkviz.document.model import Document  # noqa: E402
from chunkviz.document.read import read_bytes  # noqa: E402
from chunkviz.strategies.peers.catalogue import PEER_NAMES  # noqa: E402
from chunkviz.text.spancount import clear_shared_counters  # noqa: E402
from chunkviz.text.tokenizers import get_tokenizer  # noqa: E402

#: The smallest limits each strategy allows (overlap off).
SMALLEST: dict[str, dict[str, Any]] = {
    "fixed_tokens": {"chunk_size": 1, "overlap": 0},
    "fixed_chars": {"chunk_size": 1, "overlap": 0},
    "sentences": {"max_tokens": 1, "overlap_sentences": 0},
    "paragraphs": {"min_tokens": 1, "max_tokens": 1},
    "recursive": {"chunk_size": 1, "overlap": 0},
    "recursive_langchain": {"chunk_size": 1, "overlap": 0},
    "semantic": {"max_tokens": 3},
    "headings": {"max_tokens": 1},
    "hierarchical": {"depth": 6, "max_tokens": 1, "split_oversized": True},
    "tables": {"max_tokens": 1, "rows_per_chunk": 1},
    "code": {"max_tokens": 1},
    "parent_child": {"parent_size": 2, "child_size": 1, "child_overlap": 0},
    "small_to_big": {"max_parent_tokens": 1, "max_child_tokens": 1},
}
#: ``llm``'s work is the model's answers; the peers run another library's code
SKIPPED = {"llm"} | set(PEER_NAMES)
PROSE_WORDS = "the station gauge read 3.5 m at dawn; Dr. Smith logged it, and the river rose again".split()


def prose(n: int) -> str:
    out, k, size = [], 0, 0
    while size < n:
        words = [PROSE_WORDS[(k * 7 + i * 3) % len(PROSE_WORDS)] for i in range(5 + k % 9)]
        piece = f"{' '.join(words).capitalize()} {k}{'.' + chr(10) * 2 if k % 4 == 3 else '. '}"
        out.append(piece)
        size += len(piece)
        k += 1
    return "".join(out)[:n]


TEXTS: dict[str, Callable[[int], str]] = {
    "blank_lines": lambda n: "\n" * (n // 2 - 2) + "word" + "\n" * (n - n // 2 - 2),
    "one_long_line": lambda n: ("abcdefghij" * (n // 10 + 1))[:n],
    "prose": prose,
    # one paragraph of short lines under a heading (issue 23 item 4: 1 MB took over 100 s)
    "short_lines": lambda n: ("# Title\n" + "line\n" * (n // 5 + 1))[:n],
    # lists nested 600 deep, one after another (issue 23 item 8: 500 deep raised RecursionError)
    "deep_lists": lambda n: (("- " * 600 + "deep\n\n") * (n // 1206 + 1))[:n],
    # a line of one punctuation character (issue 23 item 3: 16 kB of "=" took 91 s in diagnose)
    "punct_run": lambda n: "Intro. " + "=" * max(n - 12, 0) + " End.",
    # punctuation that never repeats a piece, no space: every token is new to spaCy's tokenizer
    "mixed_punct": lambda n: (
        "Intro. " + "".join("=!?-*#~^.,;:"[(k * k + k // 7) % 12] for k in range(n - 12)) + " End."
    ),
    # HTML, read by the HTML reader inside the timing (issue 23 item 5: 'x<br>' * 1M took 88 s)
    "br_runs": lambda n: ("x<br>" * (n // 5 + 1))[: n - n % 5],
    # HTML, one <pre> block of short lines (issue 23 item 4)
    "html_pre": lambda n: "<pre>" + "a b\n" * max((n - 11) // 4, 1) + "</pre>",
}
#: Texts that are HTML: read with the HTML reader (inside the timing) before chunking.
HTML_TEXTS = {"br_runs", "html_pre"}


class HashedBagOfWords:
    """A cheap stand-in embedder: words hashed into 256 buckets (no neural model)."""

    def encode(self, texts: Any, progress: Any = None, batch: int = 512, batch_size: int = 64) -> np.ndarray:
        out = np.zeros((len(texts), 256), dtype=np.float32)
        out[:, 255] = 0.05
        for i, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[i, zlib.crc32(word.encode("utf-8", "replace")) % 255] += 1.0
        return out / np.linalg.norm(out, axis=1, keepdims=True)


FAKE_MODEL = "bench/hashed-bag-of-words"


def use_cheap_embedder() -> None:
    """Make the ``semantic`` strategy embed with :class:`HashedBagOfWords` under FAKE_MODEL."""
    from chunkviz.semantic import embeddings

    class Cheap(HashedBagOfWords, embeddings.EmbeddingModel):
        pass

    fake = Cheap(FAKE_MODEL, None, get_tokenizer("minilm"), 256)
    real = embeddings.load_model
    embeddings.load_model = lambda name=embeddings.DEFAULT_MODEL: fake if name == FAKE_MODEL else real(name)
    SMALLEST["semantic"] = {**SMALLEST["semantic"], "model": FAKE_MODEL}


def cold() -> None:
    clear_shared_counters()
    for name in ("cl100k_base", "minilm", "chars", "words"):
        try:
            get_tokenizer(name).count.cache_clear()  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - a tokenizer that cannot load here is simply not used
            pass
    try:
        from chunkviz.semantic import cache

        cache.clear_memory_cache()
    except ImportError:
        pass


def timed(text: str, name: str, params: dict[str, Any], tokenizer: str, html: bool = False) -> tuple[float, int]:
    cold()
    start = time.process_time()
    document = read_bytes(text.encode("utf-8"), "bench.html") if html else Document(text)
    chunks = chunkviz.chunk(document, name, tokenizer=tokenizer, **params)
    return time.process_time() - start, len(chunks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000", help="document lengths in characters")
    parser.add_argument("--strategies", default="", help="comma-separated names (default: every strategy but llm)")
    parser.add_argument("--texts", default=",".join(TEXTS), help="comma-separated: " + ", ".join(TEXTS))
    parser.add_argument("--tokenizer", default="cl100k_base")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    names = [s["name"] for s in chunkviz.strategies() if s["name"] not in SKIPPED]
    if args.strategies:
        names = [n for n in args.strategies.split(",") if n]
    texts = [t for t in args.texts.split(",") if t]
    os.environ.setdefault("CHUNKVIZ_CACHE_DIR", tempfile.mkdtemp(prefix="chunkviz-bench-"))
    use_cheap_embedder()
    # warm up imports (spaCy, markdown-it) outside the timings
    for name in names:
        chunkviz.chunk(
            Document("Warm up. Two sentences.\n\n# H\n\nText.\n"),
            name,
            tokenizer=args.tokenizer,
            **SMALLEST.get(name, {}),
        )

    print(f"chunkviz linearity: CPU seconds per 100,000 characters, smallest limits, tokenizer {args.tokenizer}")
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cpus; cold caches per call")
    print("semantic embeds with a hashed bag of words (a cheap stand-in, not the neural model): chunking work only")
    print("ratio = time per 100k chars at this size / at the previous size (near 1 = linear; ~10 = quadratic)\n")
    header = (
        f"{'strategy':20s} {'text':14s} "
        + " ".join(f"{s:>12,d}" for s in sizes)
        + "  "
        + " ".join(f"{'x' + format(b, ','):>11s}" for b in sizes[1:])
    )
    print(header)
    print("-" * len(header))
    worst = 0.0
    for name in names:
        params = SMALLEST.get(name, {})
        for kind in texts:
            per_100k = []
            for n in sizes:
                try:
                    seconds, _ = timed(TEXTS[kind](n), name, params, args.tokenizer, html=kind in HTML_TEXTS)
                except TooManyChunksError:  # over the 100,000-chunk cap at these limits: refused (shown as nan)
                    per_100k.append(float("nan"))
                    continue
                per_100k.append(seconds / (n / 100_000))
            ratios = [b / a if a > 0 else float("nan") for a, b in zip(per_100k, per_100k[1:])]
            worst = max([worst, *(r for r in ratios if r == r)])  # nan (refused) left out
            print(
                f"{name:20s} {kind:14s} "
                + " ".join(f"{t:12.3f}" for t in per_100k)
                + "  "
                + " ".join(f"{r:11.2f}" for r in ratios),
                flush=True,
            )
    print(f"\nlargest ratio: {worst:.2f} (sizes grow {', '.join(f'{b // a}x' for a, b in zip(sizes, sizes[1:]))})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
