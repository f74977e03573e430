"""HTML to Markdown (chunkviz.document.readers.html, markdownify): the converted text is what
spans index, and its headings, pipe tables and fenced code are found by the Markdown parser."""

from __future__ import annotations

import pytest
from support.files import large_html
from test_read import check_blocks, headings, span

from chunkviz.core.errors import DocumentError
from chunkviz.document import Document
from chunkviz.document.read import looks_like_html, read_bytes
from chunkviz.document.readers import html as html_reader

pytest.importorskip("markdownify")
html_to_markdown = html_reader.html_to_markdown

HTML = """<!DOCTYPE html>
<html>
<head>
  <title>Page title</title>
  <style>body { color: red; }</style>
  <script>var secret = "SCRIPT TEXT <p>not a paragraph</p>";</script>
</head>
<body>
<!-- COMMENT TEXT -->
<h1>Field   Guide &amp; Notes</h1>
<p>Birds   are
   <b>warm-blooded</b> &mdash; mostly &lt;always&gt;.</p>
<div>First line<br>Second line</div>
<h2>Counts</h2>
<table>
  <tr><th>Species</th><th>Count</th></tr>
  <tr><td>Wren</td><td>3</td></tr>
  <tr><td>Tit | Blue</td><td>12</td></tr>
</table>
<ul><li>one</li><li>two <a href="x">links</a></li></ul>
<ol><li>first<li>second</ol>
<pre><code class="language-python">
# not a heading
def f():
    return "&lt;b&gt;"
</code></pre>
<noscript>NOSCRIPT TEXT</noscript>
<template><p>TEMPLATE TEXT</p></template>
<script>document.write("MORE SCRIPT")</script>
<h3>End</h3>
<p>Last.</p>
</body>
</html>
"""

# markdownify keeps inline Markdown (**bold**, [links](x)) and writes a <br> as a hard break
# (two spaces before the line break); the hand-written converter dropped both.
HTML_TEXT = (
    "# Field Guide & Notes\n"
    "\n"
    "Birds are **warm-blooded** \u2014 mostly <always>.\n"
    "\n"
    "First line  \n"
    "Second line\n"
    "\n"
    "## Counts\n"
    "\n"
    "| Species | Count |\n"
    "| --- | --- |\n"
    "| Wren | 3 |\n"
    "| Tit \\| Blue | 12 |\n"
    "\n"
    "- one\n"
    "- two [links](x)\n"
    "\n"
    "1. first\n"
    "2. second\n"
    "\n"
    "```python\n"
    "# not a heading\n"
    "def f():\n"
    '    return "<b>"\n'
    "```\n"
    "\n"
    "### End\n"
    "\n"
    "Last.\n"
)


def test_html_is_converted_to_markdown() -> None:
    doc = read_bytes(HTML.encode("utf-8"), "guide.html")
    assert doc.text == HTML_TEXT
    assert doc.format == "html"
    assert html_reader.HTML_NOTE in doc.notes
    for dropped in ("SCRIPT", "COMMENT", "NOSCRIPT", "TEMPLATE", "Page title", "color: red", "not a paragraph"):
        assert dropped not in doc.text
    assert headings(doc) == [(1, "Field Guide & Notes"), (2, "Counts"), (3, "End")]
    check_blocks(doc)


def test_html_table_is_a_table_with_every_row() -> None:
    doc = read_bytes(HTML.encode("utf-8"), "guide.html")
    (table,) = doc.structure.tables
    rows = [doc.text[s:e] for s, e in table.rows]
    assert rows == ["| Species | Count |", "| --- | --- |", "| Wren | 3 |", "| Tit \\| Blue | 12 |"]
    assert span(doc, table) == "\n".join(rows)


def test_html_code_is_fenced_code_with_its_language() -> None:
    doc = read_bytes(HTML.encode("utf-8"), "guide.html")
    (code,) = doc.structure.of_kind("code")
    assert span(doc, code).startswith("```python\n# not a heading")
    assert span(doc, code).endswith('return "<b>"\n```')
    items = [span(doc, b) for b in doc.structure.of_kind("list_item")]
    assert items == ["- one", "- two [links](x)", "1. first", "2. second"]


def test_html_sniffed_from_content_and_crlf_normalized() -> None:
    source = "<!-- saved page -->\r\n<html><body><h2>Title</h2>\r\n<p>one\r\ntwo</p></body></html>\r\n"
    assert looks_like_html(source)
    doc = read_bytes(source.encode("utf-8"), "page")
    assert doc.format == "html"
    assert doc.text == "## Title\n\none two\n"
    assert not any(note.startswith("line endings") for note in doc.notes)
    assert not looks_like_html("# Markdown\n\n<p>inline html</p>\n")
    assert read_bytes(b"<html><p>x</p></html>", "notes.txt").format == "text"  # the extension decides


def test_html_details() -> None:
    # <br><br> is a blank (whitespace-only) line: a paragraph break, as before
    assert html_to_markdown("<p>a&nbsp;b</p><p></p><p>  </p><p>c<br><br>d</p>") == "a\u00a0b\n\nc  \n  \nd\n"
    # a short row stays short: the Markdown parser fills the missing cell
    assert html_to_markdown("<table><tr><td>x</td><td>y</td></tr><tr><td>1</td></tr></table>") == (
        "| x | y |\n| --- | --- |\n| 1 |\n"
    )
    assert html_to_markdown("<pre>a ```b``` c</pre>") == "````\na ```b``` c\n````\n"
    assert html_to_markdown("<ol start=3><li>c</li><li>d<ul><li>e</li></ul></li></ol>") == "3. c\n4. d\n   - e\n"
    assert html_to_markdown("<head><title>x</title><body><p>shown</p>") == "shown\n"  # unclosed head
    assert html_to_markdown("") == ""


def test_caption_colspan_and_headerless_tables_still_parse_as_tables() -> None:
    source = (
        "<table><caption>Totals</caption><tr><td colspan=2>wide</td></tr>"
        "<tr><td>a<br>b</td><td><p>p1</p><p>p2</p></td></tr></table>"
    )
    text = html_to_markdown(source)
    assert text.startswith("Totals\n\n| wide | |\n| --- | --- |\n")
    doc = Document(text, format="html")
    (table,) = doc.structure.tables
    assert len(table.rows) == 3 and "a b" in doc.text[table.rows[2][0] : table.rows[2][1]]


def test_embedded_images_keep_only_their_alt_text() -> None:
    source = '<p>See <img alt="the chart" src="data:image/png;base64,AAAA"> and <img src="b.png" alt="B"></p>'
    assert html_to_markdown(source) == "See the chart and ![B](b.png)\n"


def test_whitespace_only_html_notes_no_text() -> None:
    doc = read_bytes(b"<html><body><script>x()</script></body></html>", "empty.html")
    assert doc.text == ""
    assert "no text found in the HTML" in doc.notes


def test_html_needs_the_formats_extra(monkeypatch) -> None:
    monkeypatch.setattr(html_reader, "HAVE_MARKDOWNIFY", False)
    with pytest.raises(DocumentError) as info:
        read_bytes(HTML.encode(), "guide.html")
    assert str(info.value) == "reading HTML needs the formats extra: pip install 'chunkviz[formats]'"


def test_large_page_keeps_every_heading_table_and_code_block() -> None:
    sections = 300
    source = large_html(sections)
    doc = read_bytes(source.encode(), "large.html")  # bench/bench_readers.py times this
    structure = doc.structure
    assert len(structure.headings) == sections
    assert len(structure.tables) == sections and all(len(t.rows) == 7 for t in structure.tables)
    assert len(structure.of_kind("code")) == sections


# ----------------------------------------------------------------------------- issue 36 item 15

NESTED_NOTE = "1 table inside another table's cell kept as text in that cell (cells separated by '/', rows by ';')"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (  # in a body row: the outer cell held the inner rows as escaped pipes
            "<table><tr><th>Kit</th><th>Parts</th></tr><tr><td>A</td>"
            "<td><table><tr><th>Part</th><th>n</th></tr><tr><td>Bolt</td><td>4</td></tr></table></td></tr></table>",
            "| Kit | Parts |\n| --- | --- |\n| A | Part / n; Bolt / 4 |\n",
        ),
        (  # in the header row: the delimiter row got the inner columns and the table was a paragraph
            "<table><tr><th><table><tr><td>1</td><td>2</td></tr></table></th><th>B</th></tr>"
            "<tr><td>x</td><td>y</td></tr></table>",
            "| 1 / 2 | B |\n| --- | --- |\n| x | y |\n",
        ),
        (  # text around it and a caption stay in the cell, in order
            "<table><tr><td>a</td></tr><tr><td>before <table><caption>Inner</caption><tr><td>1</td></tr>"
            "<tr><td>2</td></tr></table> after</td></tr></table>",
            "| a |\n| --- |\n| before Inner: 1; 2 after |\n",
        ),
    ],
)
def test_a_nested_table_is_text_in_its_cell_with_a_note(source: str, expected: str) -> None:
    doc = read_bytes(f"<html><body>{source}</body></html>".encode(), "nested.html")
    assert doc.text == expected
    assert NESTED_NOTE in doc.notes
    (table,) = doc.structure.tables
    assert len(table.rows) == expected.count("\n")
    check_blocks(doc)


def test_tables_nested_two_deep_are_text_innermost_first() -> None:
    source = (
        "<table><tr><td><table><tr><td><table><tr><td>deep</td><td>er</td></tr></table></td>"
        "<td>x</td></tr></table></td><td>y</td></tr></table>"
    )
    text, notes = html_reader.convert_html(source)
    assert text == "| deep / er / x | y |\n| --- | --- |\n"
    assert notes == [
        "2 tables inside another table's cell kept as text in that cell (cells separated by '/', rows by ';')"
    ]


def test_side_by_side_tables_are_not_nested() -> None:
    text, notes = html_reader.convert_html("<table><tr><td>a</td></tr></table><table><tr><td>b</td></tr></table>")
    assert text == "| a |\n| --- |\n\n| b |\n| --- |\n" and notes == []


@pytest.mark.parametrize("tag", ["<wbr>", "<wbr/>", "<WBR />", "<wbr></wbr>"])
def test_wbr_inserts_nothing(tag: str) -> None:
    word = tag.join(["super", "cali", "fragi", "listic"])
    assert html_to_markdown(f"<p>{word} and <b>bo{tag}ld</b></p>") == "supercalifragilistic and **bold**\n"


def test_many_wbr_keep_the_word_whole_without_a_nesting_note() -> None:
    """lxml nested the rest of the text in each <wbr>: past 48 of them the word was flattened
    as deep nesting, one line per piece (a space in the word when read)."""
    text, notes = html_reader.convert_html("<p>" + "ab<wbr>" * 200 + "end</p><h2>Next</h2>")
    assert text == "ab" * 200 + "end\n\n## Next\n" and notes == []


def test_wbr_in_an_attribute_or_a_script_is_left_alone() -> None:
    text, _ = html_reader.convert_html("<p>a<wbr>b <img alt='x<wbr>y' src='s.png'></p><script>'<wbr>'</script>")
    assert text == "ab ![x<wbr>y](s.png)\n"


def test_tables_nested_past_the_nesting_limit_keep_all_their_text() -> None:
    """Past :data:`MAX_NESTING` the rest is text lines, which may sit in a row outside its cells:
    the nested table around them keeps them as text too."""
    text, notes = html_reader.convert_html("<table><tr><td>x" * 200)
    assert text.count("x") == 200
    assert text.startswith("| x x x") and text.endswith("|\n| --- |\n")
    assert len(notes) == 2 and notes[1].startswith("15 tables inside another table's cell")
