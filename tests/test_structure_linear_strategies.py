"""Paragraphs of many short lines are linear for every strategy, not only ``fixed_chars`` and
``recursive`` (issue 23 item 4; tests/test_structure_linear.py traces lines for those two).

Each strategy at its defaults chunks ``'# Title\\n' + 'line\\n' * n`` and an HTML ``<pre>`` of
``n`` lines at three sizes. No clock is read and no line is traced: the work is the calls of
chunkviz's functions (``sys.setprofile``, call events only), the characters the underline search
reads (``UnderlinesBelow._scan``) and the characters given to the tokenizer.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable

import pytest
from test_linearity import NOT_MEASURED, CountingTokenizer
from test_structure_linear import count_underline_scans

import chunkviz
from chunkviz.document.model import Document
from chunkviz.document.read import read_bytes
from chunkviz.semantic import cache as semantic_cache
from chunkviz.text.spancount import clear_shared_counters
from chunkviz.text.tokenizers import get_tokenizer

CHUNKVIZ_DIR = os.path.dirname(chunkviz.__file__)
SIZES = (500, 2_000, 8_000)  # lines
MAX_RATIO = 6.0  # linear grows 4x, quadratic 16x

SHAPES: dict[str, Callable[[int], Document]] = {
    "short_lines": lambda n: Document("# Title\n" + "".join(f"l{k % 10}\n" for k in range(n)), format="markdown"),
    "html_pre": lambda n: read_bytes(
        ("<html><body><h2>T</h2><pre>" + "x = 1\n" * n + "</pre><p>after</p></body></html>").encode(), "p.html"
    ),
}


def work(
    document: Document, strategy: str, params: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, int, int]:
    """(calls of chunkviz functions, characters the underline search read, characters tokenized)."""
    clear_shared_counters()
    semantic_cache.clear_memory_cache()
    scanned = count_underline_scans(monkeypatch)
    calls = [0]

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_filename.startswith(CHUNKVIZ_DIR):
            calls[0] += 1

    tokenizer = CountingTokenizer(get_tokenizer("cl100k_base"))
    fresh = Document(document.text, document.name, document.encoding, document.notes, document.format)
    sys.setprofile(profile)
    try:
        chunks = chunkviz.chunk(fresh, strategy, tokenizer=tokenizer, **params)
    finally:
        sys.setprofile(None)
    assert chunks and all(c.text == fresh.text[c.start : c.end] for c in chunks)
    return calls[0], scanned[0], tokenizer.chars


def _strategies() -> list[str]:
    return [s["name"] for s in chunkviz.strategies() if s["name"] not in NOT_MEASURED]


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("strategy", _strategies())
def test_many_short_lines_are_linear_for_every_strategy(
    strategy: str, shape: str, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    params: dict[str, Any] = {}
    if strategy == "semantic":
        params["model"] = request.getfixturevalue("fake_model")
        request.getfixturevalue("semantic_cache_dir")
    measured = []
    for n in SIZES:
        document = SHAPES[shape](n)
        calls, scanned, tokenized = work(document, strategy, params, monkeypatch)
        assert scanned <= 2 * len(document.text), f"the underline search read {scanned / len(document.text):.1f}x"
        measured.append((calls, tokenized))
    for (calls_a, tok_a), (calls_b, tok_b) in zip(measured, measured[1:]):
        assert calls_b <= MAX_RATIO * max(calls_a, 1), f"{strategy} {shape}: chunkviz calls {measured} at {SIZES}"
        assert tok_b <= MAX_RATIO * max(tok_a, 1) + 8 * SIZES[-1], f"{strategy} {shape}: tokenized {measured}"
