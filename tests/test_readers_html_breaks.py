"""HTML with many ``<br>`` (issue 23 item 5) and the element limit.

``"x<br>" * 1_000_000`` (5 MB) took 88 s of CPU and 1.3 GB: two tree nodes per ``<br>``, each
converted by markdownify in Python. A page with more than ``BR_AS_TEXT_FROM`` breaks has each
``<br>`` in its flow read as one private-use character, which the converter writes exactly as
markdownify writes a ``<br>``; any other page of more than ``MAX_ELEMENTS`` elements is refused
before parsing. No clock is read: the work is the nodes markdownify converts, counted at three
sizes, and the memory traced while reading.
"""

from __future__ import annotations

import random
import tracemalloc
from typing import Any, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkviz.core.errors import DocumentError
from chunkviz.document.read import read_bytes
from chunkviz.document.readers import html as html_reader

pytest.importorskip("markdownify")

SIZES = (2_000, 8_000, 32_000)  # breaks
BREAKS = ("<br>", "<br/>", "<BR class='x'>", "<br />", "<Br\tid=b>")

#: Pages of many breaks, in other shapes than the issue's: breaks in a paragraph, in list items,
#: in table cells (where markdownify writes a space), inside <pre>, runs of several, mixed spellings.
SHAPES: dict[str, Callable[[int], str]] = {
    "text_and_breaks": lambda n: "y<BR>" * n,
    "paragraph_of_lines": lambda n: "<p>" + "".join(f"line {k}{BREAKS[k % 5]}\n" for k in range(n)) + "</p>",
    "runs_of_breaks": lambda n: "<div>" + "word<br/><br/><br/>" * (n // 3) + "</div>",
    "pre_lines": lambda n: "<pre>" + "a = 1<br>" * n + "</pre>",
    "list_of_items": lambda n: "<ul>" + ("<li>" + "a<br>" * 8 + "b</li>") * (n // 8) + "</ul>",
    "cells": lambda n: (
        "<table><tr><th>h</th></tr>" + ("<tr><td>" + "a<br>" * 16 + "b</td></tr>") * (n // 16) + "</table>"
    ),
}


def converted_nodes(html: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    """(nodes markdownify converted, the Markdown) for ``html``."""
    calls = [0]
    process = html_reader.MarkdownConverter.process_element

    def counting(self: Any, node: Any, parent_tags: Any = None) -> str:
        calls[0] += 1
        return process(self, node, parent_tags)

    monkeypatch.setattr(html_reader.MarkdownConverter, "process_element", counting)
    markdown, _ = html_reader.convert_html(html)
    monkeypatch.setattr(html_reader.MarkdownConverter, "process_element", process)
    return calls[0], markdown


@pytest.mark.parametrize("shape", list(SHAPES))
def test_breaks_add_no_nodes(shape: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The nodes converted grow with the other elements only; a page of breaks and text is a
    handful of nodes whatever its length."""
    make = SHAPES[shape]
    measured = []
    for n in SIZES:
        html = make(n)
        nodes, markdown = converted_nodes(html, monkeypatch)
        others = html.count("<") - html.lower().count("<br")
        assert nodes <= 2 * others + 10, f"{shape}: {nodes} nodes for {others} tags that are not breaks"
        assert markdown.count("\n") >= (n // 2 if shape != "cells" else n // 16)
        measured.append(nodes)
    for small, large in zip(measured, measured[1:]):
        assert large <= 6 * max(small, 1), f"{shape}: nodes converted at {SIZES}: {measured}"


def test_the_node_count_sees_breaks_as_elements(monkeypatch: pytest.MonkeyPatch) -> None:
    """Below the threshold each <br> is a node again: the measure counts what it says."""
    nodes, _ = converted_nodes("y<br>" * 500, monkeypatch)
    assert nodes >= 1_000


def test_memory_per_character_is_bounded() -> None:
    """Traced memory while reading a page of breaks stays within a few times its size (the
    tree of two nodes per break was about 260 bytes per character)."""
    html = ("q<br>" * 20_000).encode()
    tracemalloc.start()
    try:
        document = read_bytes(html, "breaks.html")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert document.text.startswith("q  \nq  \n") and document.text.count("\n") == 20_000
    assert peak <= 40 * len(html), f"{peak / len(html):.0f} bytes per character"  # 13 here; 225 as elements


def _well_formed(rng: random.Random, depth: int = 0) -> str:
    """A well-formed HTML block with breaks in every context: text, inline elements, headings,
    lists, quotes, table cells, <pre>, plus breaks markdownify must not see (in a comment, an
    attribute value, a script)."""

    def inline(d: int) -> str:
        k = rng.random()
        if k < 0.3:
            return rng.choice(BREAKS)
        if k < 0.5:
            return rng.choice(["x", " y ", "a b", "*", "&amp;", "\n", "  ", "é"])
        if k < 0.6 and d < 3:
            tag = rng.choice(["b", "i", "code", "a"])
            return f"<{tag}>" + "".join(inline(d + 1) for _ in range(rng.randint(0, 3))) + f"</{tag}>"
        if k < 0.65:
            return "<img alt='a<br>b' src='x.png'>"
        if k < 0.7:
            return rng.choice(["<!-- <br> -->", "<script>if (a<br) {}</script>", "<span title='<br>'>t</span>"])
        return rng.choice(["w", "z."])

    def text() -> str:
        return "".join(inline(0) for _ in range(rng.randint(0, 5)))

    k = rng.random()
    if k < 0.25:
        return f"<p>{text()}</p>"
    if k < 0.35:
        return f"<h2>{text()}</h2>"
    if k < 0.45 and depth < 3:
        items = "".join(
            f"<li>{text()}{''.join(_well_formed(rng, depth + 1) for _ in range(rng.randint(0, 2)))}</li>"
            for _ in range(rng.randint(1, 3))
        )
        return f"<ul>{items}</ul>"
    if k < 0.55 and depth < 3:
        return f"<blockquote>{''.join(_well_formed(rng, depth + 1) for _ in range(rng.randint(1, 3)))}</blockquote>"
    if k < 0.65:
        return f"<table><tr><td>{text()}</td><td>{text()}</td></tr><tr><td>{text()}</td><td>q</td></tr></table>"
    if k < 0.75:
        return f"<pre>{text()}</pre>"
    if k < 0.85 and depth < 3:
        return f"<div>{text()}{_well_formed(rng, depth + 1)}{text()}</div>"
    return text()


def _convert(html: str, breaks_as_text_from: int) -> tuple[str, list[str]]:
    saved = html_reader.BR_AS_TEXT_FROM
    html_reader.BR_AS_TEXT_FROM = breaks_as_text_from
    try:
        return html_reader.convert_html(html)
    finally:
        html_reader.BR_AS_TEXT_FROM = saved


@settings(max_examples=150, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(1, 4))
def test_breaks_read_as_text_convert_exactly_as_elements(rng: random.Random, blocks: int) -> None:
    html = "".join(_well_formed(rng) for _ in range(blocks))
    assert _convert(html, -1) == _convert(html, 10**9)


def test_breaks_in_comments_attributes_and_scripts_stay_as_they_are() -> None:
    html = "<p>a<br>b</p><!-- c<br>d --><img alt='e<br>f' src='i.png'><script>g<br>h</script>"
    marked = html_reader._breaks_as(html, "\ue000")
    assert marked == html.replace("a<br>b", "a\ue000b", 1)
    unclosed = "<p>a<br>b<img alt='never closed <br> c<br>"
    assert html_reader._breaks_as(unclosed, "\ue000") == unclosed.replace("a<br>b", "a\ue000b", 1)


def test_a_page_of_too_many_elements_is_refused_before_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(html_reader, "MAX_ELEMENTS", 1_000)
    with pytest.raises(DocumentError, match=r"big\.html has about 1,200 HTML elements; the limit is 1,000"):
        read_bytes(("<span>s</span>" * 1_200).encode(), "big.html")
    breaks = read_bytes(("<span>s</span><br>" * 900).encode(), "breaks.html")  # breaks do not count
    assert breaks.text.count("s  \n") == 899


def test_a_table_inside_a_row_is_moved_before_its_table() -> None:
    """Found by the comparison above: a table that is itself stray content of another table's row
    was moved with no parent to insert into ('NoneType' object has no attribute 'contents')."""
    markdown, notes = html_reader.convert_html("<table><tr>a<table><tr>b<td>c</td></tr></table><td>d</td></tr></table>")
    assert markdown == "a\n\nb\n\n| c |\n| --- |\n\n| d |\n| --- |\n"
    assert notes == ["3 pieces of text inside a table but outside its cells moved before the table"]
