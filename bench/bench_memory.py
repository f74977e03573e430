#!/usr/bin/env python
"""Memory and time of issue 13's reader and parameter reproductions (items 4 and 5).

    .venv/bin/python bench/bench_memory.py [--mb 4] [--quick]

Each case runs in fresh child processes: one reports its wall time and peak resident size
(getrusage), another the peak of Python allocations (tracemalloc, which slows Python down, so
that run is not timed). The reference, measured in the
same run, is ``chunk -s recursive`` with default parameters on the same document: the cases print
their time and peak as ratios of it, and their peak per unit of input (B/in: per character of
the document, per byte of the HTML or DOCX file).

Cases (document: ``--mb`` MB of the sample handbook, repeated):

  reference        recursive, default parameters
  fixed_chars 1    chunk_size=1, overlap=0: refused up front (chunkviz.core.limits) -- before: 4M chunks
  fixed_chars cap  the smallest chunk_size the limit accepts (100,000 chunks)
  fixed_tokens 1   chunk_size=1, overlap=0: refused up front
  fixed_tokens cap the smallest chunk_size the limit accepts
  diagnose         recursive + diagnose(), default parameters
  html nesting     "<ul><li>item" * 20000 (240 kB) read
  docx bomb        a DOCX whose XML inflates to 1 GB: refused before inflating
  docx paragraphs  a DOCX of 40,000 short paragraphs read (4,000 with --quick)

No assertion on time: the numbers are printed for the report; the script fails only if a case
raises something other than the expected refusal.
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "chunkviz/sample_docs" / "field_station_handbook.md"

CHILD = r"""
import io, json, resource, sys, time, tracemalloc, zipfile
case, path, arg, traced = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "traced"
import chunkviz
from chunkviz.strategies.base import get_strategy
from chunkviz.text.tokenizers import get_tokenizer
from chunkviz.core.limits import check_chunk_count_bound, TooManyChunksError, estimated_chunk_count
from chunkviz.core.errors import DocumentError
from chunkviz.document.read import read_bytes
chunkviz.chunk("warm up. Two sentences.", "recursive")  # tokenizer and imports outside the measurement
text = open(path, encoding="utf-8").read()
data = open(arg, "rb").read() if arg.endswith((".html", ".docx")) else b""
warm = open(arg.replace(".docx", ".warm.docx"), "rb").read() if arg.endswith(".docx") else b""

def run_chunk(text, strategy, **params):
    spec = get_strategy(strategy)
    tok = get_tokenizer("cl100k_base")
    check_chunk_count_bound(spec, spec.make_params(params), text, tok)
    return len(chunkviz.chunk(text, strategy, tokenizer=tok, **params))

def smallest(text, strategy):
    spec = get_strategy(strategy)
    bound = estimated_chunk_count(spec, spec.make_params({"chunk_size": 1, "overlap": 0}), text, get_tokenizer("cl100k_base"))
    return bound.size_for(100_000) if bound is not None else 1

def run_case(text, data):
    if case == "reference":
        return f"{run_chunk(text, 'recursive'):,} chunks"
    if case in ("fixed_chars 1", "fixed_tokens 1"):
        return f"{run_chunk(text, case.split()[0], chunk_size=1, overlap=0):,} chunks"
    if case in ("fixed_chars cap", "fixed_tokens cap"):
        name = case.split()[0]
        size = smallest(text, name)
        return f"chunk_size={size}: {run_chunk(text, name, chunk_size=size, overlap=0):,} chunks"
    if case == "diagnose":
        from chunkviz.diagnostics import diagnose
        from chunkviz.document.model import Document
        doc = Document(text, format="markdown")
        chunks = chunkviz.chunk(doc, "recursive")
        diagnose(doc, chunks, tokenizer=get_tokenizer("cl100k_base"), strategy="recursive", params={})
        return f"{len(chunks):,} chunks diagnosed"
    return f"{len(read_bytes(data, arg).text):,} characters read"

def outcome_of(text, data):
    try:
        return run_case(text, data)
    except (TooManyChunksError, DocumentError) as exc:
        return "refused: " + str(exc)[:110]

# warm-up on a small input of the same kind: imports (spaCy, torch, mammoth ...) are not measured
outcome_of(text[:20_000], data[:2_400] if arg.endswith(".html") else warm)
if traced:
    tracemalloc.start()
start = time.perf_counter()
outcome = outcome_of(text, data)
elapsed = time.perf_counter() - start
peak = tracemalloc.get_traced_memory()[1] if traced else 0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"case": case, "seconds": elapsed, "peak": peak, "rss": rss, "outcome": outcome, "chars": len(text), "input": len(data) or len(text)}))
"""


def _document(path: Path, megabytes: float) -> None:
    source = SAMPLE.read_text(encoding="utf-8")
    n = int(megabytes * 1_000_000)
    path.write_text((source * (n // len(source) + 1))[:n], encoding="utf-8")


def _nested_html(path: Path) -> None:
    path.write_bytes(b"<ul><li>item" * 20000)


def _docx(paragraphs: int) -> bytes:
    import docx

    document = docx.Document()
    for i in range(paragraphs):
        document.add_paragraph(f"Paragraph {i} has a few words of text in it.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _docx_bomb(inflated: int) -> bytes:
    """A DOCX whose document.xml inflates to about ``inflated`` bytes (the tests' builder)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from support.files import docx_bomb

    return docx_bomb(inflated)


def _child(case: str, document: Path, arg: str, mode: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, case, str(document), arg, mode],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{case} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _run(case: str, document: Path, arg: str) -> dict:
    """Time and resident size from a plain run; the allocation peak from a traced one
    (tracemalloc slows Python down several times, so its run is not timed)."""
    plain = _child(case, document, arg, "plain")
    plain["peak"] = _child(case, document, arg, "traced")["peak"]
    return plain


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=4.0, help="document size in MB (default 4)")
    parser.add_argument("--quick", action="store_true", help="1 MB document, 4,000-paragraph DOCX, 100 MB DOCX bomb")
    args = parser.parse_args()
    megabytes = 1.0 if args.quick else args.mb
    work = Path("/tmp") / f"chunkviz-bench-memory-{int(time.time())}"
    work.mkdir(parents=True, exist_ok=True)
    document = work / "doc.md"
    _document(document, megabytes)
    html = work / "nested.html"
    _nested_html(html)
    (work / "bomb.warm.docx").write_bytes(_docx(10))
    (work / "many.warm.docx").write_bytes(_docx(10))
    bomb = work / "bomb.docx"
    bomb.write_bytes(_docx_bomb(100_000_000 if args.quick else 1_000_000_000))
    many = work / "many.docx"
    many.write_bytes(_docx(4_000 if args.quick else 40_000))
    cases = [
        ("reference", ""),
        ("fixed_chars 1", ""),
        ("fixed_chars cap", ""),
        ("fixed_tokens 1", ""),
        ("fixed_tokens cap", ""),
        ("diagnose", ""),
        ("html nesting", str(html)),
        ("docx bomb", str(bomb)),
        ("docx paragraphs", str(many)),
    ]
    results = [_run(case, document, arg) for case, arg in cases]
    reference = results[0]
    print(f"document: {megabytes:g} MB ({reference['chars']:,} characters); reference = recursive, default parameters")
    print(f"{'case':18} {'time s':>8} {'x ref':>7} {'peak MB':>8} {'x ref':>7} {'B/in':>7} {'RSS MB':>7}  outcome")
    for r in results:
        print(
            f"{r['case']:18} {r['seconds']:8.2f} {r['seconds'] / reference['seconds']:7.2f} {r['peak'] / 1e6:8.1f} "
            f"{r['peak'] / reference['peak']:7.2f} {r['peak'] / r['input']:7.1f} {r['rss'] / 1e6:7.0f}  {r['outcome']}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
