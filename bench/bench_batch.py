#!/usr/bin/env python
"""Batch throughput: documents/s and MB/s of ``chunkviz batch`` locally (1 and 2 worker processes)
and on a local Ray, over many copies of ``../shared/realdocs`` and ``chunkviz/sample_docs`` (~100 MB).

    .venv/bin/python bench/bench_batch.py [--mb 100] [--skip-ray]

The corpus is generated in a temporary folder (each copy in its own folder, so every document
has its own source). Each run writes to a fresh output folder with the same configuration
(recursive, chunk_size 256, overlap 32, cl100k_base, metadata enrichment); the three outputs are
compared byte for byte. Times include starting the workers (spawned processes import chunkviz and
load the tokenizer; Ray actors likewise), not starting Ray itself, which is printed on its own.
Then, for the 2-million-document estimate: the share of the time spent in BPE tokenization
alone (tiktoken over the same text), the rate of the ``semantic`` strategy, whose embedding model
dominates, on one copy of chunkviz/sample_docs (model loading included), and the rate of reading the
files (from the page cache here).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from chunkviz.cli.batch.inputs import expand_inputs
from chunkviz.cli.batch.run import BatchSummary, run_batch
from chunkviz.evaluation.config import save_config

REALDOCS = REPO_ROOT.parent / "shared" / "realdocs"
SAMPLE_DOCS = REPO_ROOT / "chunkviz/sample_docs"
CONFIG = {
    "version": 1,
    "tokenizer": "cl100k_base",
    "enrichment": {"kind": "metadata"},
    "columns": [{"strategy": "recursive", "params": {"chunk_size": 256, "overlap": 32}}],
}
SEMANTIC = {
    "version": 1,
    "tokenizer": "cl100k_base",
    "columns": [{"strategy": "semantic", "params": {"max_tokens": 256}}],
}
DOCUMENTS_TARGET = 2_000_000


def one_set_bytes() -> int:
    return sum(p.stat().st_size for folder in (REALDOCS, SAMPLE_DOCS) for p in folder.rglob("*") if p.is_file())


def make_corpus(root: Path, megabytes: float) -> tuple[int, int]:
    """Copies of realdocs + chunkviz/sample_docs until ``megabytes``; returns (documents, bytes)."""
    per_set = one_set_bytes()
    copies = max(1, round(megabytes * 1e6 / per_set))
    for i in range(copies):
        shutil.copytree(REALDOCS, root / f"copy{i:04d}" / "realdocs")
        shutil.copytree(SAMPLE_DOCS, root / f"copy{i:04d}" / "chunkviz/sample_docs")
    files = expand_inputs([str(root)])
    return len(files), sum(os.path.getsize(f) for f in files)


def timed_run(label: str, corpus: Path, config: Path, out: Path, **kwargs: Any) -> BatchSummary:
    summary = run_batch([str(corpus)], config, out, progress=None, **kwargs)
    rate = summary.chunked / summary.seconds
    kb = summary.bytes / 1e3 / summary.seconds
    print(
        f"  {label:<22} {summary.documents:>6,} docs  {summary.seconds:7.1f} s  {rate:8.1f} documents/s  {kb / 1e3:6.2f} MB/s"
        f"  ({kb:,.1f} kB/s)  {summary.chunks:,} chunks, {summary.failed} failed"
    )
    return summary


def tokenization_rate(corpus: Path, limit_bytes: int) -> float:
    """MB/s of tiktoken's cl100k_base alone over the corpus's first ``limit_bytes``."""
    from chunkviz.text.tokenizers import get_tokenizer

    get_tokenizer("cl100k_base")  # installs the offline encoding file
    import tiktoken

    encoding = tiktoken.get_encoding("cl100k_base")
    texts, total = [], 0
    for path in expand_inputs([str(corpus)]):
        data = Path(path).read_bytes()
        texts.append(data.decode("utf-8", "replace"))
        total += len(data)
        if total >= limit_bytes:
            break
    started = time.perf_counter()
    for text in texts:
        encoding.encode_ordinary(text)
    return total / 1e6 / (time.perf_counter() - started)


def read_rate(corpus: Path) -> float:
    files = expand_inputs([str(corpus)])
    started = time.perf_counter()
    total = sum(len(Path(f).read_bytes()) for f in files)
    return total / 1e6 / (time.perf_counter() - started)


def main() -> int:
    sys.stdout.reconfigure(line_buffering=True)  # each figure as soon as it is measured
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # as ./dev bench: models only from the installed packages
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=100.0, help="corpus size in MB (default 100)")
    parser.add_argument("--skip-ray", action="store_true", help="local engine only")
    args = parser.parse_args()
    if not REALDOCS.is_dir():
        print(f"bench_batch: {REALDOCS} not found", file=sys.stderr)
        return 1
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory(prefix="chunkviz-bench-batch-") as tmp:
        root = Path(tmp)
        os.environ["CHUNKVIZ_CACHE_DIR"] = str(root / "cache")  # the semantic run embeds, not reads a cache
        corpus = root / "corpus"
        documents, size = make_corpus(corpus, args.mb)
        print(f"corpus: {documents:,} documents, {size / 1e6:.1f} MB ({size / documents / 1e3:.1f} kB per document)")
        config = save_config(CONFIG, root / "chunkviz.json")
        print(f"configuration: {json.dumps(CONFIG['columns'][0])}, metadata enrichment")
        runs: dict[str, BatchSummary] = {}
        runs["local, 1 worker"] = timed_run("local, 1 worker", corpus, config, root / "out1", workers=1)
        runs["local, 2 workers"] = timed_run("local, 2 workers", corpus, config, root / "out2", workers=2)
        if not args.skip_ray:
            import ray

            started = time.perf_counter()
            ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False, logging_level="ERROR")
            print(f"  (ray.init: {time.perf_counter() - started:.1f} s, not counted)")
            try:
                runs["ray, 2 actors"] = timed_run(
                    "ray, 2 actors", corpus, config, root / "out3", engine="ray", workers=2
                )
            finally:
                ray.shutdown()
        outputs = {label: (root / f"out{i + 1}" / "chunks.jsonl").read_bytes() for i, label in enumerate(runs)}
        reference = outputs["local, 1 worker"]
        same = all(data == reference for data in outputs.values())
        print(f"outputs identical byte for byte: {same} ({len(reference) / 1e6:.1f} MB of JSONL each)")
        one = runs["local, 1 worker"]
        two = runs["local, 2 workers"]
        print(f"2 workers / 1 worker: {one.seconds / two.seconds:.2f}x")
        if "ray, 2 actors" in runs:
            print(f"ray 2 actors / local 2 workers: {two.seconds / runs['ray, 2 actors'].seconds:.2f}x")

        chunk_mb = one.bytes / 1e6 / one.seconds
        token_mb = tokenization_rate(corpus, 10_000_000)
        print(
            f"tokenization alone (tiktoken cl100k_base, 10 MB): {token_mb:.2f} MB/s = {chunk_mb / token_mb * 100:.0f}% of one worker's chunking time"
        )
        semantic_config = save_config(SEMANTIC, root / "semantic.json")
        sem = timed_run(
            "semantic, 1 worker",
            corpus / "copy0000" / "chunkviz/sample_docs",
            semantic_config,
            root / "out-semantic",
            workers=1,
        )
        print(f"reading the files (page cache): {read_rate(corpus):.0f} MB/s")

        per_doc = size / documents
        total = DOCUMENTS_TARGET * per_doc
        output_ratio = len(reference) / size
        rates = {"recursive": one.bytes / one.seconds, "semantic (CPU)": sem.bytes / sem.seconds}
        print(f"output: {output_ratio:.2f} bytes of JSONL per input byte")
        print()
        print(
            f"estimate for {DOCUMENTS_TARGET:,} documents of {per_doc / 1e3:.1f} kB ({total / 1e9:.0f} GB in, "
            f"{total * output_ratio / 1e9:.0f} GB of JSONL out), from one worker's bytes/s:"
        )
        for workers in (1, 64, 256):
            hours = "   ".join(f"{name} {total / (rate * workers) / 3600:9.2f} h" for name, rate in rates.items())
            print(f"  {workers:>4} workers: {hours}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
