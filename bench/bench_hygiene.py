#!/usr/bin/env python
"""Hygiene flags: their cost next to the chunking they diagnose, and how it grows with the text.

    .venv/bin/python bench/bench_hygiene.py [--copies 1,4,16] [--strategy recursive]

For every real document of ``../shared/realdocs`` (or ``$CHUNKVIZ_SHARED/realdocs``), and for Alice
repeated ``copies`` times (every paragraph then has copies: the worst case of the duplicate buckets
and the boilerplate counter), it prints the CPU seconds of chunking (``chunk()``) and of
``hygiene()`` (all six flags, the document's text given), the ratios hygiene / chunking and hygiene /
the other diagnostics (``diagnose`` with the hygiene flags off), and per
100,000 characters the hygiene time at each size with its ratio to the previous size (near 1:
linear). CPU time of this process, so other work on a shared machine does not enter the ratios.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chunkviz import chunk
from chunkviz.diagnostics import diagnose
from chunkviz.diagnostics.hygiene import HygieneRules, hygiene
from chunkviz.document.read import read_bytes, read_path


def _shared() -> Path:
    env = os.environ.get("CHUNKVIZ_SHARED")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "shared"


def _cpu(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, float]:
    """``fn(*args, **kwargs)`` and the CPU seconds it took."""
    began = time.process_time()
    value = fn(*args, **kwargs)
    return value, time.process_time() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", default="1,4,16")
    parser.add_argument("--strategy", default="recursive")
    args = parser.parse_args()
    realdocs = _shared() / "realdocs"
    if not realdocs.is_dir():
        print(f"no real documents at {realdocs} (set CHUNKVIZ_SHARED)", file=sys.stderr)
        return 2
    print(
        f"{'document':42} {'chars':>9} {'chunks':>7} {'chunk s':>8} {'diagnose s':>10} {'hygiene s':>9} "
        f"{'/chunk':>6} {'/diagnose':>9}"
    )
    for path in sorted(realdocs.iterdir()):
        if path.name in ("SOURCES.md", "README.md") or not path.is_file():
            continue
        document = read_path(path)
        chunks, chunking = _cpu(chunk, document, args.strategy)
        _, others = _cpu(diagnose, document, chunks, hygiene_rules=HygieneRules.off())
        _, spent = _cpu(hygiene, chunks, None, document.text)
        print(
            f"{path.name:42} {len(document.text):9,} {len(chunks):7,} {chunking:8.3f} {others:10.3f} {spent:9.3f} "
            f"{spent / max(chunking, 1e-9):6.2f} {spent / max(others, 1e-9):9.2f}"
        )
    alice = (realdocs / "alice29.txt").read_text(encoding="utf-8")
    print(f"\nalice29.txt repeated, {args.strategy}: hygiene CPU s per 100,000 characters")
    previous = None
    for copies in (int(c) for c in args.copies.split(",")):
        document = read_bytes((alice * copies).encode(), name="alice.txt")
        chunks = chunk(document, args.strategy)
        _, spent = _cpu(hygiene, chunks, None, document.text)
        per = spent / len(document.text) * 100_000
        ratio = f"{per / previous:.2f}" if previous else "-"
        print(f"  x{copies:<3} {len(document.text):10,} chars {len(chunks):7,} chunks  {per:.4f} s  ratio {ratio}")
        previous = per
    return 0


if __name__ == "__main__":
    sys.exit(main())
