#!/usr/bin/env python
"""Static report benchmark (issue 21, item 1): size and time to write ``chunkviz report`` files.

For the default sample and each document of ``../shared/realdocs/`` (skipped when absent), three
columns (fixed_tokens, recursive, semantic) are run and written as one report, as the CLI does.
Reported per document:

  chars        the document's characters
  bytes        the report file (UTF-8)
  B/char/col   (bytes - fixed) / characters / columns
  growth       (bytes - base) / characters / columns, where base is the report of a two-sentence
               document with the same columns, written in the same run (the script, the styles and
               what every report carries whatever its length: labels, legend, statistics,
               configuration, commands, the slider's step tables): the budget is 3
  run s        running the columns (chunking, diagnostics, the semantic analysis: embeddings come
               from the disk cache after the first run, as in the app)
  write s      the page: payload, pages, semantic tables, HTML
  fixed        bytes that do not grow with the document (docview.js + report.js, the stylesheets)

    .venv/bin/python bench/bench_report.py [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from chunkviz.diagnostics.compare import ColumnConfig  # noqa: E402
from chunkviz.document import read_path  # noqa: E402
from chunkviz.views.build import build_view  # noqa: E402
from chunkviz.views.page import fixed_bytes, report_html  # noqa: E402

COLUMNS = [ColumnConfig("fixed_tokens"), ColumnConfig("recursive"), ColumnConfig("semantic")]
BUDGET = 3.0


def documents() -> list[Path]:
    found = [ROOT / "chunkviz" / "sample_docs" / "field_station_handbook.md"]
    realdocs = ROOT.parent / "shared" / "realdocs"
    if not realdocs.is_dir():
        realdocs = ROOT.parents[1] / "shared" / "realdocs"
    if realdocs.is_dir():
        found += sorted(p for p in realdocs.iterdir() if p.is_file() and p.name != "SOURCES.md")
    else:
        print(f"(no realdocs folder next to the repository: {realdocs}; only the sample)")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    args = parser.parse_args()
    fixed = fixed_bytes()
    base = len(report_html(build_view("One short sentence here. Another one there.", COLUMNS)).encode("utf-8"))
    rows = []
    print(f"fixed (script and styles): {fixed:,} bytes; a two-sentence document's report: {base:,} bytes")
    print(f"{'document':42} {'chars':>9} {'bytes':>11} {'B/char/col':>10} {'growth':>7} {'run s':>7} {'write s':>8}")
    failed = False
    for path in documents():
        document = read_path(path)
        began = time.perf_counter()
        view = build_view(document, COLUMNS, doc_name=str(path))
        ran = time.perf_counter() - began
        began = time.perf_counter()
        page = report_html(view)
        wrote = time.perf_counter() - began
        size = len(page.encode("utf-8"))
        chars = max(1, len(document.text))
        per = (size - fixed) / chars / len(COLUMNS)
        growth = (size - base) / chars / len(COLUMNS)
        failed = failed or growth > BUDGET
        rows.append({"document": path.name, "chars": chars, "bytes": size, "per_char_per_column": round(per, 3), "growth": round(growth, 3),
                     "run_s": round(ran, 2), "write_s": round(wrote, 2)})  # fmt: skip
        print(f"{path.name[:42]:42} {chars:>9,} {size:>11,} {per:>10.2f} {growth:>7.2f} {ran:>7.1f} {wrote:>8.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"fixed": fixed, "base": base, "rows": rows}, indent=2), encoding="utf-8")
    if failed:
        print(f"a report grows by more than {BUDGET:g} bytes per character per column", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
