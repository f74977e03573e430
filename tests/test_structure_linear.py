"""Paragraphs of many short lines are linear (issue 23 item 4): ``'# Title\\n' + 'line\\n' * n``,
code of many lines and an HTML ``<pre>`` block took time growing with the square of their lines
(``Structure._could_start_heading`` scanned the rest of the paragraph from every line).

No clock is read. The work is counted at three sizes: the lines of chunkviz's code that run
(``sys.settrace``), and the characters the search for a paragraph's underline reads
(``UnderlinesBelow._scan``, which runs in C), which must stay within a few passes of the text.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable

import pytest

import chunkviz
from chunkviz.document import structure
from chunkviz.document.model import Document
from chunkviz.document.read import read_bytes
from chunkviz.text.spancount import clear_shared_counters

CHUNKVIZ_DIR = os.path.dirname(chunkviz.__file__)
SIZES = (2_000, 8_000, 32_000)  # lines
#: Work may grow this much for 4 times the text (linear: 4, quadratic: 16).
MAX_RATIO = 6.0

SHAPES: dict[str, Callable[[int], tuple[str, str]]] = {
    "short_lines": lambda n: ("# Title\n" + "line\n" * n, "markdown"),
    "short_lines_crlf": lambda n: ("# Title\r\n" + "line\r\n" * n, "markdown"),
    "numbered_lines": lambda n: ("Intro\n" + "".join(f"{k} x\n" for k in range(n)), "text"),
    "code_lines": lambda n: ("# Code\n\n```\n" + "x = 1\n" * n + "```\n", "markdown"),
}


def html_pre(n: int) -> Document:
    return read_bytes(("<html><body><h1>T</h1><pre>" + "a b\n" * n + "</pre></body></html>").encode(), "p.html")


def count_underline_scans(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A one-item list that counts, from now on, the characters the underline search reads."""
    scanned = [0]
    scan = structure.UnderlinesBelow._scan

    def counting_scan(self: structure.UnderlinesBelow, line: int, known_from: int) -> tuple[int | None, bool]:
        stop, value = scan(self, line, known_from)
        scanned[0] += (min(known_from, len(self.text)) if stop is None else min(stop, len(self.text))) - line
        return stop, value

    monkeypatch.setattr(structure.UnderlinesBelow, "_scan", counting_scan)
    return scanned


def work(document: Document, strategy: str, params: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """(lines of chunkviz code run, characters read by the underline search) to chunk ``document``."""
    clear_shared_counters()
    scanned = count_underline_scans(monkeypatch)
    lines = [0]

    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            lines[0] += 1
        return local

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename.startswith(CHUNKVIZ_DIR) else None

    sys.settrace(tracer)
    try:
        chunks = chunkviz.chunk(document, strategy, **params)
    finally:
        sys.settrace(None)
    assert chunks and all(c.text == document.text[c.start : c.end] for c in chunks)
    return lines[0], scanned[0]


CASES = [("fixed_chars", {"chunk_size": 64, "overlap": 0}), ("recursive", {"chunk_size": 16, "overlap": 4})]


def assert_linear(
    make: Callable[[int], Document], strategy: str, params: dict[str, Any], mp: pytest.MonkeyPatch
) -> None:
    measured = []
    for n in SIZES:
        document = make(n)
        lines, scanned = work(document, strategy, params, mp)
        assert scanned <= 2 * len(document.text), (
            f"the underline search read {scanned / len(document.text):.1f}x the text"
        )
        measured.append(lines)
    for small, large in zip(measured, measured[1:]):
        assert large <= MAX_RATIO * small, f"lines of chunkviz code at {SIZES}: {measured} (linear grows 4x)"


@pytest.mark.parametrize(("strategy", "params"), CASES)
@pytest.mark.parametrize("shape", list(SHAPES))
def test_paragraphs_of_many_lines_are_linear(
    shape: str, strategy: str, params: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    def make(n: int) -> Document:
        text, fmt = SHAPES[shape](n)
        return Document(text, format=fmt)

    assert_linear(make, strategy, params, monkeypatch)


@pytest.mark.parametrize(("strategy", "params"), CASES)
def test_an_html_pre_block_of_many_lines_is_linear(
    strategy: str, params: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert_linear(html_pre, strategy, params, monkeypatch)


def test_the_old_scan_from_every_line_would_fail() -> None:
    """The measure catches the quadratic shape: a scan to the paragraph's end from every line."""

    def scan_from_every_line(n: int) -> int:
        text = "line\n" * n
        return sum(len(text) - start for start in range(0, len(text), 5))

    assert scan_from_every_line(4 * SIZES[0]) > MAX_RATIO * scan_from_every_line(SIZES[0])
