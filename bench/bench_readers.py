"""How long the readers take on large generated documents (the timings the reader tests used to assert).

    python bench/bench_readers.py [--repeat 3]

Builds the reader tests' large documents in memory (tests/support/files.py: a DOCX of 100 sections
with tables and lists, an HTML page of 300 sections, a PDF of 200 pages), reads each ``--repeat``
times with ``chunkviz.document.read.read_bytes`` and prints the size, what was found and the
fastest and slowest read. Needs the ``formats`` extra and python-docx (the test extra).
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

from support.files import large_docx, large_html, make_pdf

from chunkviz.document.model import Document
from chunkviz.document.read import read_bytes


def cases() -> list[tuple[str, bytes, Callable[[Document], str]]]:
    pdf_pages = [[f"Page {n} heading", f"Body text of page {n}, with a few words."] for n in range(1, 201)]
    return [
        ("large.docx", large_docx(100), lambda d: f"{len(d.structure.headings)} headings, {len(d.structure.tables)} tables"),
        ("large.html", large_html(300).encode(), lambda d: f"{len(d.structure.headings)} headings, {len(d.structure.tables)} tables"),
        ("long.pdf", make_pdf(pdf_pages), lambda d: f"{len(d.structure.of_kind('page'))} pages"),
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="reads per document (default 3)")
    args = parser.parse_args()
    print(f"{'file':<12} {'size':>9}  {'fastest':>8} {'slowest':>8}  found")
    for name, data, found in cases():
        seconds = []
        for _ in range(max(1, args.repeat)):
            began = time.perf_counter()
            document = read_bytes(data, name)
            _ = document.structure.headings  # the structure is parsed lazily: include it
            seconds.append(time.perf_counter() - began)
        print(f"{name:<12} {len(data) / 1e3:>7.0f}kB  {min(seconds):>7.2f}s {max(seconds):>7.2f}s  {found(document)}")


if __name__ == "__main__":
    main()
