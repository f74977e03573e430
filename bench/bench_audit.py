#!/usr/bin/env python
"""``chunkviz audit`` on LangChain's own output for the real documents, against the peer column.

For every real document (``../shared/realdocs`` or ``$CHUNKVIZ_SHARED/realdocs``): LangChain's
RecursiveCharacterTextSplitter (chunk_size=128 cl100k tokens, chunk_overlap=16,
add_start_index=True) exported as its users export it (JSONL of page_content and metadata),
then read and audited with :func:`chunkviz.load_chunks` from the file (CPU time of that call,
``time.process_time``, best of ``--repeat``; the diagnostics of ``chunkviz audit`` timed apart).
Printed per document: LangChain's chunk count, misplaced chunks found by the audit of the file,
misplaced in the ``langchain_recursive`` peer column (which has an exact reference), whether the
two sets are the same, and the times.

    .venv/bin/python bench/bench_audit.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import chunkviz  # noqa: E402
from chunkviz.document.read import read_path  # noqa: E402
from chunkviz.strategies.peers import run_peer  # noqa: E402
from chunkviz.text.tokenizers import get_tokenizer  # noqa: E402

SHARED = Path(os.environ.get("CHUNKVIZ_SHARED", REPO_ROOT.parent / "shared")).expanduser()
REALDOCS = SHARED / "realdocs"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not REALDOCS.is_dir():
        print(f"skipped: no real documents at {REALDOCS} (set CHUNKVIZ_SHARED)")
        return 0
    try:
        from langchain_text_splitters import RecursiveCharacterTextSplitter
    except ImportError:
        print("skipped: langchain-text-splitters is not installed (pip install 'chunkviz[peers]')")
        return 0
    tokenizer = get_tokenizer("cl100k_base")
    paths = sorted(p for p in REALDOCS.iterdir() if p.is_file() and p.name not in ("SOURCES.md", "README.md"))
    print(f"{'document':42} {'chars':>8} {'chunks':>6} {'audit':>6} {'peer':>6} same {'load ms':>8} {'diag ms':>8}")
    with tempfile.TemporaryDirectory() as folder:
        for path in paths:
            document = read_path(path)
            splitter = RecursiveCharacterTextSplitter(
                chunk_size=128, chunk_overlap=16, length_function=tokenizer._count, add_start_index=True
            )
            exported = Path(folder) / f"{path.name}.jsonl"
            with exported.open("w", encoding="utf-8") as out:
                for d in splitter.create_documents([document.text]):
                    out.write(json.dumps({"page_content": d.page_content, "metadata": d.metadata}) + "\n")
            best_load = best_diag = float("inf")
            for _ in range(args.repeat):
                before = time.process_time()
                loaded = chunkviz.load_chunks(document, exported)
                middle = time.process_time()
                loaded.diagnostics("cl100k_base")
                after = time.process_time()
                best_load, best_diag = min(best_load, middle - before), min(best_diag, after - middle)
            ours = [c.index for c in loaded.chunks if "misplaced" in c.metadata["peer_flags"]]
            peer = run_peer(document, "langchain_recursive", {"chunk_size": 128, "chunk_overlap": 16}, tokenizer)
            theirs = [c.metadata["peer_index"] for c in peer.chunks if "misplaced" in c.metadata["peer_flags"]]
            print(
                f"{path.name:42} {len(document.text):8,} {loaded.audit.chunks:6} {len(ours):6} {len(theirs):6} "
                f"{'yes ' if ours == theirs else 'NO  '} {best_load * 1000:8.1f} {best_diag * 1000:8.1f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
