#!/usr/bin/env python
"""App benchmark: the Streamlit page on a ~50,000-word document, through AppTest (no browser).

The document is ``make_document(50_000)`` from ``bench_engine.py`` (deterministic, no network).
It is given to the app as the Paste source, with the default three columns (fixed_tokens,
recursive, paragraphs) and the default tokenizer (cl100k_base). Timed, server side (one
``AppTest.run()`` each, which is one script run plus AppTest's own element-tree bookkeeping):

  first run, cold   a fresh process: imports done, but tokenizers, caches and models not loaded
  first run, warm   a new document (the text plus a newline), tokenizers loaded
  param change      column 2 (recursive) chunk_size 128 -> 300 (then 3 more values, median)
  no change         a re-run with nothing changed (every engine call is a cache hit)

Then the size of the HTML the chunk views send to the browser (per column and in total, also
per character of the document) and the number of HTML elements per chunk, and a breakdown of
the parameter-change re-run into its engine and rendering parts (same calls the app makes).

Targets: parameter-change re-run < 1 s; HTML < 2.5 bytes per document character per column.

    .venv/bin/python bench/bench_app.py [--words N] [--json PATH]

With ``--browser`` it measures instead what a person waits for in Chromium (cold start, a new
visitor, a parameter change; ratios against a bare Streamlit page in the same run): see
``bench/app_browser.py``.

    .venv/bin/python bench/bench_app.py --browser [--visits 5] [--changes 10] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
BENCH_DIR = Path(__file__).resolve().parent
for path in (REPO_ROOT, BENCH_DIR, REPO_ROOT / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from bench_engine import make_document  # noqa: E402
from support.docview import column_html  # noqa: E402

APP = REPO_ROOT / "app.py"
TARGET_PARAM_CHANGE_S = 1.0
TARGET_BYTES_PER_CHAR = 2.5
COLUMNS = ("fixed_tokens", "recursive", "paragraphs")
_TAG = re.compile(r"<[a-zA-Z]")
_VIEW = re.compile(r'\s*<div class="cv-doc" data-strategy="col(\d+)"')


def chunks_shown(at: Any) -> list[int]:
    """Each column's chunk count as the page shows it (the numbers under the document view)."""
    bodies = " ".join(h.proto.body for h in at.get("html"))
    return [int(v.replace(",", "")) for v in re.findall(r"<span>chunks</span><b>([\d,]+)</b>", bodies)]


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def timed_run(at: Any) -> float:
    began = time.perf_counter()
    at.run()
    elapsed = time.perf_counter() - began
    if at.exception:
        raise SystemExit("the app raised:\n" + "\n".join(str(e.message) for e in at.exception))
    if at.error:
        raise SystemExit("the app showed errors: " + "; ".join(e.value for e in at.error))
    return elapsed


def chunk_views(at: Any) -> dict[int, str]:
    """Column -> the whole HTML of its chunk view (the document view component's data sends its pages)."""
    views = {}
    for element in at.get("bidi_component"):
        if element.proto.component_name != "chunkviz_docview":
            continue
        for column in json.loads(element.proto.json)["columns"]:
            html = column_html(column)  # its pages as sent, or (a long column) its whole HTML the page cache holds
            match = _VIEW.match(html)
            if match:
                views[int(match.group(1))] = html
    return views


def component_payload_bytes(at: Any) -> int:
    """Everything the document view component receives (its JSON data), in bytes."""
    return sum(
        len(e.proto.json.encode("utf-8"))
        for e in at.get("bidi_component")
        if e.proto.component_name == "chunkviz_docview"
    )


def new_app(text: str) -> Any:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP), default_timeout=600)
    at.session_state["source"] = "Paste"
    at.session_state["paste"] = text
    return at


def breakdown(text: str, tokenizer: str, chunk_size: int) -> dict[str, float]:
    """The parameter-change re-run's work, outside Streamlit: what each app step costs.

    Like the app, the Document (the Paste source's) is read once and kept across re-runs, so its
    structure is already built when a parameter changes; building it for a new document is
    shown on its own line (not in the sum). Split-table and split-code flags are part of
    ``diagnose()`` now.
    """
    from chunkviz.api import chunk
    from chunkviz.diagnostics import diagnose
    from chunkviz.diagnostics.compare import (
        StrategyRun,
        chunk_annotations,
        chunk_table,
        full_params,
        run_strategy,
        token_counts,
    )
    from chunkviz.document import Document
    from chunkviz.drawing.charts import token_distribution_figure
    from chunkviz.drawing.render import RenderOptions, render_html
    from chunkviz.formats.export import chunk_records, serialize
    from chunkviz.text.tokenizers import EMBEDDING_TOKENIZER, get_tokenizer

    out: dict[str, float] = {}
    document = Document(text, "pasted text")
    t = time.perf_counter()
    run_strategy(document, "recursive", {}, tokenizer)  # the column before the change
    out["  first run, new document"] = time.perf_counter() - t
    # new chunks have new texts: their token counts are not memoized yet in the app either
    for name in (tokenizer, EMBEDDING_TOKENIZER):
        get_tokenizer(name).count.cache_clear()
    params = full_params("recursive", {"chunk_size": chunk_size})
    t = time.perf_counter()
    chunks = tuple(chunk(document, "recursive", tokenizer=tokenizer, chunk_size=chunk_size))
    out["chunk()"] = time.perf_counter() - t
    t = time.perf_counter()
    diagnostics = diagnose(document, chunks, tokenizer=tokenizer, strategy="recursive", params=params)
    out["diagnose()"] = time.perf_counter() - t
    run = StrategyRun("recursive", params, tokenizer, chunks, diagnostics)
    t = time.perf_counter()
    render_html(
        text, chunks, RenderOptions("col1", tokenizer, None, chunk_annotations(run), diagnostics.coverage.content_gaps)
    )
    out["render_html()"] = time.perf_counter() - t
    t = time.perf_counter()
    chunk_table(run)
    out["chunk_table()"] = time.perf_counter() - t
    t = time.perf_counter()
    records = chunk_records(chunks, get_tokenizer(tokenizer), text)
    for fmt in ("jsonl", "json", "csv"):
        serialize(records, fmt)
    out["records + 3 exports"] = time.perf_counter() - t
    t = time.perf_counter()
    token_distribution_figure({"a": token_counts(run), "b": token_counts(run), "c": token_counts(run)}, tokenizer)
    out["token_distribution_figure()"] = time.perf_counter() - t
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--words", type=int, default=50_000, help="document size in words (default 50,000)")
    parser.add_argument("--json", type=Path, help="also write the results as JSON to this path")
    parser.add_argument("--browser", action="store_true", help="time the page in Chromium instead (app_browser.py)")
    parser.add_argument("--visits", type=int, default=5, help="--browser: new visitors per server (default 5)")
    parser.add_argument("--changes", type=int, default=10, help="--browser: parameter changes timed (default 10)")
    args = parser.parse_args(argv)
    if args.browser:
        from app_browser import run as run_browser

        browser_results = run_browser(args.visits, args.changes, args.words)
        if args.json:
            args.json.write_text(json.dumps(browser_results, indent=2), encoding="utf-8")
        return 0

    sys.argv = [str(APP)]  # app.py reads a document path from sys.argv[1]
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

    text, stats = make_document(args.words)
    n_chars = len(text)
    print(f"document: {stats['words']:,} words, {n_chars:,} characters, {stats['bytes']:,} UTF-8 bytes")
    print(f"columns: {', '.join(COLUMNS)} (app defaults); tokenizer cl100k_base; source Paste")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"machine: {os.cpu_count()} CPUs, 1-minute load average {load:.2f} at start (timings are wall time; other load inflates them)"
    )
    print()

    results: dict[str, Any] = {"words": stats["words"], "characters": n_chars}

    at = new_app(text)
    cold = timed_run(at)
    views = chunk_views(at)
    if sorted(views) != [0, 1, 2]:
        raise SystemExit(f"expected three chunk views, got columns {sorted(views)}")
    if [at.session_state[f"col{i}.strategy"] for i in range(3)] != list(COLUMNS):
        raise SystemExit("the app's default columns changed; update COLUMNS")

    warm_at = new_app(text + "\n")  # a new document: every document-keyed cache misses, tokenizers stay loaded
    warm = timed_run(warm_at)

    at.number_input(key="col1.recursive.chunk_size").set_value(300)
    change = timed_run(at)
    more = []
    for value in (350, 400, 450):
        at.number_input(key="col1.recursive.chunk_size").set_value(value)
        more.append(timed_run(at))
    at.number_input(key="col1.recursive.chunk_size").set_value(300)
    timed_run(at)  # back to 300 (a cache hit) for the measurements below
    nochange = [timed_run(at) for _ in range(3)]

    print("server-side time (AppTest.run)")
    print(f"  first run, cold process (tokenizers load, nothing cached) {cold:8.2f} s")
    print(f"  first run, warm process (a new document)                   {warm:8.2f} s")
    print(
        f"  re-run after col1 recursive chunk_size 128 -> 300          {change:8.2f} s   "
        f"target < {TARGET_PARAM_CHANGE_S:g} s: {verdict(change < TARGET_PARAM_CHANGE_S)}"
    )
    print(
        f"    more values (350, 400, 450): {', '.join(f'{x:.2f}' for x in more)} s; median {statistics.median(more):.2f} s"
    )
    print(f"  re-run with no change (median of 3)                        {statistics.median(nochange):8.2f} s")
    results.update(
        first_run_cold_s=cold, first_run_warm_s=warm, param_change_s=change, param_change_more_s=more,
        no_change_s=statistics.median(nochange),
    )  # fmt: skip

    print()
    views = chunk_views(at)
    counts = chunks_shown(at)
    sizes = {i: len(views[i].encode("utf-8")) for i in sorted(views)}
    total = sum(sizes.values())
    print("HTML of the chunk views (in the document view component's data)")
    print(
        f"  {'column':<22} {'chunks':>7} {'bytes':>12} {'bytes/char':>11} {'tags':>8} {'tags/chunk':>11}   target < {TARGET_BYTES_PER_CHAR:g} B/char"
    )
    per_column = []
    all_ok = True
    for i, size in sizes.items():
        strategy = at.session_state[f"col{i}.strategy"]
        tags = len(_TAG.findall(views[i]))
        ratio = size / n_chars
        ok = ratio < TARGET_BYTES_PER_CHAR
        all_ok &= ok
        per_column.append(
            {
                "column": i,
                "strategy": strategy,
                "chunks": counts[i],
                "bytes": size,
                "bytes_per_char": ratio,
                "tags": tags,
            }
        )
        label = f"{i + 1}. {strategy}" + (" (size 300)" if i == 1 else "")
        print(
            f"  {label:<22} {counts[i]:>7,} {size:>12,} {ratio:>11.2f} {tags:>8,} {tags / max(counts[i], 1):>11.1f}   {verdict(ok)}"
        )
    print(f"  {'total':<22} {sum(counts):>7,} {total:>12,} {total / n_chars:>11.2f}")
    payload = component_payload_bytes(at)
    ok = payload / n_chars / max(len(sizes), 1) < TARGET_BYTES_PER_CHAR
    all_ok &= ok
    print(
        f"  whole component payload (page tables, the pages near the window, ribbon cuts, labels, legend as JSON): {payload:,} bytes, "
        f"{payload / n_chars / max(len(sizes), 1):.2f} B/char per column   {verdict(ok)}"
    )
    results.update(
        html=per_column,
        html_total_bytes=total,
        html_total_bytes_per_char=total / n_chars,
        component_payload_bytes=payload,
    )

    print()
    print(
        "where the parameter-change re-run goes (same calls outside Streamlit, recursive chunk_size 300, count memos cleared)"
    )
    parts = breakdown(text, "cl100k_base", 300)
    total_parts = sum(v for k, v in parts.items() if not k.startswith(" "))
    for name, seconds in parts.items():
        print(f"  {name:<30} {seconds:8.3f} s")
    print(
        f"  {'sum':<30} {total_parts:8.3f} s   (the export and figure steps run for every column on every re-run, "
        f"changed or not; the rest is Streamlit: caching, protobuf, AppTest)"
    )
    results["breakdown_s"] = parts

    print()
    print(
        f"targets: param-change re-run < {TARGET_PARAM_CHANGE_S:g} s: {verdict(change < TARGET_PARAM_CHANGE_S)}; "
        f"HTML < {TARGET_BYTES_PER_CHAR:g} B/char per column: {verdict(all_ok)}"
    )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
