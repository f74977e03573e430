#!/usr/bin/env python
"""A longer fuzz of the Markdown path than ``./dev test`` runs (issue 36 item 4).

    .venv/bin/python bench/bench_markdown_fuzz.py [--scale 20] [--texts 20000]

Two parts:

1. how often random Markdown (``tests/test_markdown_fuzz.py``'s pieces: brackets, backticks,
   emphasis, lists, tables, HTML, link references, headings) makes markdown-it-pyrs panic with
   every CommonMark rule (what chunkviz parsed with before), and with the block rules chunkviz
   uses now (``chunkviz.document.markdown.BLOCK_RULES``); ``--texts`` texts, seeded;
2. ``tests/test_markdown_fuzz.py`` under pytest with ``CHUNKVIZ_HYPOTHESIS_SCALE=--scale``: every
   property with that many times its examples.

Fails (exit 1) when the block rules panic on any text or the tests fail.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
for _path in (REPO_ROOT, REPO_ROOT / "tests"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from markdown_it_pyrs import MarkdownIt  # noqa: E402

from chunkviz.document.markdown import BLOCK_RULES, is_native_panic  # noqa: E402


def pieces() -> list[str]:
    from test_markdown_fuzz import PIECES  # the test's pieces: one definition

    return list(PIECES)


def panics(parser: MarkdownIt, texts: list[str]) -> int:
    found = 0
    for text in texts:
        try:
            parser.tree(text)
        except BaseException as exc:  # noqa: BLE001 - a Rust panic is a BaseException
            if not is_native_panic(exc):
                raise
            found += 1
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=20.0, help="times the test's examples (default 20)")
    parser.add_argument("--texts", type=int, default=20_000, help="random texts for the panic count (default 20,000)")
    args = parser.parse_args()
    rng = random.Random(36)
    choices = pieces()
    texts = ["".join(rng.choices(choices, k=rng.randint(1, 60))) for _ in range(args.texts)]
    print(f"{len(texts):,} random Markdown texts of up to 60 pieces; the Rust panic messages go to stderr", flush=True)
    for name, md in (
        ("every CommonMark rule (before)", MarkdownIt("commonmark").enable("table")),
        ("the block rules (now)", MarkdownIt("zero").enable_many(list(BLOCK_RULES))),
    ):
        began = time.perf_counter()
        found = panics(md, texts)
        print(
            f"  {name}: {found:,} panics ({found / len(texts):.2%}) in {time.perf_counter() - began:.1f} s", flush=True
        )
    block_panics = found
    env = {**os.environ, "CHUNKVIZ_HYPOTHESIS_SCALE": str(args.scale), "PYTHONPATH": str(REPO_ROOT)}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "tests/test_markdown_fuzz.py"]
    print(f"CHUNKVIZ_HYPOTHESIS_SCALE={args.scale:g} {' '.join(command[1:])}", flush=True)
    began = time.perf_counter()
    tests = subprocess.run(command, cwd=REPO_ROOT, env=env, check=False)
    print(f"  exit {tests.returncode} in {time.perf_counter() - began:.0f} s")
    return 1 if block_panics or tests.returncode else 0


if __name__ == "__main__":
    raise SystemExit(main())
