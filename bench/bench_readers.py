"""How long the readers take on large generated documents (the timings the reader tests used to assert).

    python bench/bench_readers.py [--repeat 3]

Builds the reader tests' large documents in memory (tests/support/files.py: a DOCX of 100 sections
with tables and lists, an HTML page of 300 sections, a PDF of 200 pages, a workbook of 20,000 rows
and the same rows as CSV, a deck of 200 slides, a book of 100 chapters, a LaTeX paper of 300
sections), reads each ``--repeat`` times with ``chunkviz.document.read.read_bytes`` and prints the
size, what was found, the fastest and slowest read, and the fastest read against reading the text
it gave as Markdown (``x md``: the reader's cost over the plain reading, measured in the same run).
Needs the ``formats`` extra and python-docx (the test extra).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parent.parent
for _path in (REPO, REPO / "tests"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from support.files import large_docx, large_epub, large_html, large_pptx, large_xlsx, make_pdf

from chunkviz.document.model import Document
from chunkviz.document.read import read_bytes


def cases() -> list[tuple[str, bytes, Callable[[Document], str]]]:
    pdf_pages = [[f"Page {n} heading", f"Body text of page {n}, with a few words."] for n in range(1, 201)]
    return [
        ("large.docx", large_docx(100), lambda d: f"{len(d.structure.headings)} headings, {len(d.structure.tables)} tables"),
        ("large.html", large_html(300).encode(), lambda d: f"{len(d.structure.headings)} headings, {len(d.structure.tables)} tables"),
        ("long.pdf", make_pdf(pdf_pages), lambda d: f"{len(d.structure.of_kind('page'))} pages"),
        ("large.xlsx", large_xlsx(20_000), lambda d: f"{len(d.structure.tables[0].rows):,} table lines"),
        ("large.csv", csv_of(20_000), lambda d: f"{len(d.structure.tables[0].rows):,} table lines"),
        ("large.pptx", large_pptx(200), lambda d: f"{len(d.structure.headings)} slides"),
        ("large.epub", large_epub(100), lambda d: f"{len(d.structure.headings)} headings"),
        ("large.tex", latex_of(300), lambda d: f"{len(d.structure.headings)} headings"),
    ]  # fmt: skip


def csv_of(rows: int, columns: int = 8) -> bytes:
    """The rows of ``large_xlsx`` as CSV."""
    lines = [",".join(f"column {c}" for c in range(columns))]
    lines += [
        ",".join(f"station {r % 97}" if c % 2 == 0 else str(r * 0.25 + c) for c in range(columns)) for r in range(rows)
    ]
    return ("\n".join(lines) + "\n").encode()


def latex_of(sections: int) -> bytes:
    """A paper of ``sections`` sections of five paragraphs, with comments."""
    body = "".join(
        f"\\section{{Section {n}}} % about {n}\n"
        + "".join(f"Paragraph {k} of section {n} with 50\\% words.\n\n" for k in range(5))
        for n in range(sections)
    )
    return f"\\documentclass{{article}}\n\\begin{{document}}\n{body}\\end{{document}}\n".encode()


def fastest(data: bytes, name: str, repeat: int) -> tuple[float, float, Document]:
    """The fastest and slowest of ``repeat`` reads (the structure's headings parsed: it is lazy)."""
    seconds = []
    for _ in range(max(1, repeat)):
        began = time.perf_counter()
        document = read_bytes(data, name)
        _ = document.structure.headings
        seconds.append(time.perf_counter() - began)
    return min(seconds), max(seconds), document


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="reads per document (default 3)")
    args = parser.parse_args()
    print(f"{'file':<12} {'size':>9}  {'fastest':>8} {'slowest':>8}  {'x md':>6}  found")
    for name, data, found in cases():
        low, high, document = fastest(data, name, args.repeat)
        reference, _, _ = fastest(document.text.encode("utf-8"), "same.md", args.repeat)
        ratio = low / reference if reference else float("inf")
        print(f"{name:<12} {len(data) / 1e3:>7.0f}kB  {low:>7.2f}s {high:>7.2f}s  {ratio:>5.1f}x  {found(document)}")


if __name__ == "__main__":
    main()
