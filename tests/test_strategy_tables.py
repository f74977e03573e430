"""The ``tables`` strategy (seed 000 §13.5.3).

Expected outputs are derived from the strategy's definition: tables (the document structure's)
are never cut mid-row, row groups after the first repeat the header and delimiter rows as
``added_text``, the text around tables is chunked recursively.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.chunking import assert_valid_chunking
from support.texts import SETTINGS

from chunkviz import chunk
from chunkviz.core.types import Chunk
from chunkviz.document.model import as_document
from chunkviz.splitting import PRESETS, RecursiveSplitter
from chunkviz.strategies.tables import find_tables
from chunkviz.text.tokenizers import get_tokenizer

REPO = Path(__file__).resolve().parent.parent


# ============================================================================ helpers


def table_text(n_rows: int, newline: str = "\n") -> tuple[str, str]:
    """A pipe table with ``n_rows`` data rows, and its header + delimiter text."""
    header = f"| id | name | quantity |{newline}|---:|:-----|:--------:|{newline}"
    rows = "".join(f"| {i} | item {i} é | {i * 7} |{newline}" for i in range(1, n_rows + 1))
    return header + rows, header


def row_spans(text: str) -> list[tuple[int, int]]:
    """(line start, line end without break) of every line of every table of the structure."""
    return [row for table in as_document(text).structure.tables for row in table.rows]


def assert_no_cut_inside_a_row(text: str, chunks: Sequence[Chunk]) -> None:
    rows = row_spans(text)
    for c in chunks:
        for b in (c.start, c.end):
            for s, e in rows:
                assert not s < b < e, f"chunk {c.index} boundary {b} cuts the table row {text[s:e]!r}"


# ============================================================================ exact outputs


def test_thirty_rows_in_groups_of_ten_repeat_the_header() -> None:
    table, header = table_text(30)
    text = "Intro paragraph.\n\n" + table + "\nAfter the table.\n"
    chunks = chunk(text, "tables", rows_per_chunk=10, max_tokens=500)  # room for ten rows
    assert_valid_chunking(text, chunks, allow_added_text=True)
    groups = [c for c in chunks if c.metadata.get("kind") == "table"]
    assert len(groups) == 3
    assert [g.metadata["rows"] for g in groups] == [[1, 10], [11, 20], [21, 30]]
    # vocabulary: a full row group is "size_limit" (was row_group), the table's end "unit_end" (was table_end)
    assert [g.reason for g in groups] == ["size_limit", "size_limit", "unit_end"]
    first, second, third = groups
    assert first.added_text == "" and first.text.startswith(header)
    for g in (second, third):
        assert g.added_text == header  # header row + delimiter row + line break, as in the source
        assert not g.text.startswith("| id ")
        # added text + span reads as a table with the same header
        (element,) = as_document(g.added_text + g.text).structure.tables
        assert element.start == 0
    # every group starts at a row start and ends at a row end (after its line break)
    table_start = text.index(table)
    row_starts = {table_start + m.start() for m in re.finditer(r"^\|", table, re.MULTILINE)}
    for g in groups:
        assert g.start in row_starts
        assert g.text.rstrip("\n").endswith("|")
        assert len(g.text.strip().splitlines()) == (12 if g is first else 10)
    assert_no_cut_inside_a_row(text, chunks)
    assert [c.metadata["kind"] for c in chunks] == ["text", "table", "table", "table", "text"]
    assert chunks[0].text == "Intro paragraph.\n\n"
    assert chunks[-1].text == "After the table.\n" and chunks[-1].reason == "end_of_document"


def test_repeat_header_false_adds_nothing() -> None:
    table, _ = table_text(30)
    chunks = chunk(table, "tables", rows_per_chunk=10, repeat_header=False, max_tokens=500)
    assert [c.added_text for c in chunks] == ["", "", ""]
    assert_valid_chunking(table, chunks)


def test_crlf_table_groups_repeat_the_crlf_header() -> None:
    table, header = table_text(7, "\r\n")
    text = "Before.\r\n\r\n" + table
    chunks = chunk(text, "tables", rows_per_chunk=3)
    groups = [c for c in chunks if c.metadata.get("kind") == "table"]
    assert [g.metadata["rows"] for g in groups] == [[1, 3], [4, 6], [7, 7]]
    assert [g.added_text for g in groups] == ["", header, header]
    assert groups[-1].reason == "end_of_document" and groups[-1].end == len(text)
    assert_no_cut_inside_a_row(text, chunks)


def test_whole_table_is_atomic_and_flagged_when_over_the_limit() -> None:
    table, _ = table_text(30)
    text = "Some text before.\n\n" + table + "\nSome text after.\n"
    start = text.index(table)
    small = chunk(text, "tables", max_tokens=50, tokenizer="words")
    tables = [c for c in small if c.metadata.get("kind") == "table"]
    assert len(tables) == 1
    (t,) = tables
    # the table and the blank line after it: one chunk, never split although it is too large
    assert (t.start, t.end) == (start, start + len(table) + 1)
    assert t.metadata["over_size_limit"] is True and t.metadata["whole_table"] is True
    assert "never split" in t.metadata["note"]
    assert t.metadata["rows"] == [1, 30] and t.reason == "unit_end"
    assert t.added_text == ""
    big = chunk(text, "tables", max_tokens=500, tokenizer="words")
    (t,) = [c for c in big if c.metadata.get("kind") == "table"]
    assert "over_size_limit" not in t.metadata and "note" not in t.metadata
    assert_valid_chunking(text, small)
    assert_valid_chunking(text, big)


def test_row_groups_shrink_to_fit_max_tokens() -> None:
    table, header = table_text(12)
    tok = get_tokenizer("words")
    limit = tok.count(header) + 3 * tok.count("| 10 | item 10 é | 70 |\n")  # header + 3 rows
    chunks = chunk(table, "tables", rows_per_chunk=10, max_tokens=limit, tokenizer="words")
    assert [c.metadata["rows"] for c in chunks] == [[1, 3], [4, 6], [7, 9], [10, 12]]
    for c in chunks:
        assert tok.count(c.added_text + c.text) <= limit
        assert "over_size_limit" not in c.metadata
    assert all(c.metadata.get("fewer_rows") for c in chunks[:-1])
    # one row with the header is still too big: one row per group, flagged
    tiny = chunk(table, "tables", rows_per_chunk=10, max_tokens=3, tokenizer="words")
    assert [c.metadata["rows"] for c in tiny] == [[i, i] for i in range(1, 13)]
    assert all(c.metadata["over_size_limit"] for c in tiny)
    assert_no_cut_inside_a_row(table, tiny)


def test_text_around_tables_is_chunked_recursively() -> None:
    words = " ".join(f"word{i}" for i in range(60))
    prose = f"# Heading\n\n{words}\n\nA second paragraph here.\n\n"
    table, _ = table_text(3)
    text = prose + table + "\n" + prose
    chunks = chunk(text, "tables", max_tokens=20, tokenizer="words")
    assert_valid_chunking(text, chunks, limit=20, tokenizer="words")
    splitter = RecursiveSplitter(text, get_tokenizer("words"), 20, 0, list(PRESETS["markdown"]))
    t = text.index(table)
    expected = [(p.start, p.end) for p in splitter.split_span(0, t)] + [(t, t + len(table) + 1)]
    expected += [(p.start, p.end) for p in splitter.split_span(t + len(table) + 1, len(text))]
    assert [(c.start, c.end) for c in chunks] == expected
    kinds = [c.metadata["kind"] for c in chunks]
    assert kinds.count("table") == 1 and kinds.count("text") == len(chunks) - 1
    before = [c for c in chunks if c.end <= t]
    # the text ends because the table starts ("unit_end"); the cut is at a blank line (boundary)
    assert before[-1].reason == "unit_end" and before[-1].boundary == "paragraph"
    # the same text as the recursive strategy gives on the part before the table alone
    alone = chunk(text[:t], "recursive", chunk_size=20, overlap=0, separators="markdown", tokenizer="words")
    assert [(c.start, c.end) for c in alone] == [(c.start, c.end) for c in before]


def test_text_overlap_applies_to_text_only_and_is_validated() -> None:
    words = " ".join(f"w{i}" for i in range(40))
    table, _ = table_text(2)
    text = words + "\n\n" + table
    chunks = chunk(text, "tables", max_tokens=10, text_overlap=3, tokenizer="words")
    texts_ = [c for c in chunks if c.metadata["kind"] == "text"]
    assert any(b.start < a.end for a, b in zip(texts_, texts_[1:]))
    assert_valid_chunking(text, chunks, tokenizer="words", overlap_tokens=3)
    from chunkviz import InvalidParamError

    with pytest.raises(InvalidParamError, match="text_overlap"):
        chunk(text, "tables", max_tokens=10, text_overlap=10)


def test_tables_from_converted_html_and_docx_style_pipe_tables() -> None:
    # converters write pipe tables with or without outer pipes, alignment colons, empty cells
    text = (
        "Report\n\n"
        "Name | Role | Notes\n--- | :---: | ---\nAda | lead | \nBob | | on leave\n\n"
        "|| PARTY 1 | PARTY 2 |\n|:--- | :----: | :----: |\n| Name | A | B |\n| Date | 1 | 2 |\n"
    )
    chunks = chunk(text, "tables", rows_per_chunk=1)
    groups = [c for c in chunks if c.metadata.get("kind") == "table"]
    assert [(g.metadata["table"], g.metadata["rows"]) for g in groups] == [
        (0, [1, 1]),
        (0, [2, 2]),
        (1, [1, 1]),
        (1, [2, 2]),
    ]
    assert groups[1].added_text == "Name | Role | Notes\n--- | :---: | ---\n"
    assert groups[3].added_text == "|| PARTY 1 | PARTY 2 |\n|:--- | :----: | :----: |\n"
    assert_no_cut_inside_a_row(text, chunks)
    assert_valid_chunking(text, chunks, allow_added_text=True)


def test_tables_of_an_html_document_converted_by_the_reader() -> None:
    html_reader = pytest.importorskip(
        "chunkviz.document.readers.html", reason="the HTML reader needs the formats extra"
    )
    html_to_text = html_reader.html_to_markdown
    rows = "".join(f"<tr><td>{i}</td><td>item<br>{i} | x</td></tr>" for i in range(7))
    text = html_to_text(
        f"<h1>Stock</h1><p>Intro.</p><table><tr><th>SKU</th><th>Name</th></tr>{rows}</table><p>After.</p>"
    )
    chunks = chunk(text, "tables", rows_per_chunk=3)
    groups = [c for c in chunks if c.metadata.get("kind") == "table"]
    assert [g.metadata["rows"] for g in groups] == [[1, 3], [4, 6], [7, 7]]
    assert groups[1].added_text == groups[2].added_text != ""
    assert groups[0].text.startswith(groups[1].added_text)
    assert_no_cut_inside_a_row(text, chunks)
    assert_valid_chunking(text, chunks, allow_added_text=True)


def test_table_without_data_rows_and_no_tables_at_all() -> None:
    text = "| a | b |\n|---|---|\n"
    for rows in (0, 2):
        (c,) = chunk(text, "tables", rows_per_chunk=rows)
        assert (c.start, c.end, c.added_text) == (0, len(text), "")
    plain = "Just prose.\n\nNo tables here."
    assert [(c.start, c.end) for c in chunk(plain, "tables")] == [(0, len(plain))]
    assert chunk("  \n\t", "tables") == []


def test_find_tables_row_spans() -> None:
    table, header = table_text(3)
    text = "x\n\n" + table + "\n\ny"
    (t,) = find_tables(text)
    assert text[t.start : t.rows_start] == header
    assert [text[s:e] for s, e in t.rows] == [f"| {i} | item {i} é | {i * 7} |\n" for i in (1, 2, 3)]
    assert text[t.end :] == "y"


def test_sample_markdown_documents_keep_their_tables_whole() -> None:
    for name in ("api_guide.md", "field_station_handbook.md"):
        text = (REPO / "chunkviz/sample_docs" / name).read_text(encoding="utf-8")
        for rows in (0, 3):
            chunks = chunk(text, "tables", max_tokens=120, rows_per_chunk=rows)
            assert_valid_chunking(text, chunks, allow_added_text=rows > 0)
            assert_no_cut_inside_a_row(text, chunks)
            assert any(c.metadata.get("kind") == "table" for c in chunks)


# ----------------------------------------------------------------------------- tables: property


@st.composite
def markdown_with_tables(draw: st.DrawFn) -> str:
    word = st.sampled_from(["alpha", "beta", "gamma", "δέλτα", "日本語", "😀", "x|y", "a-b", "3.5"])
    cell = st.lists(word, min_size=0, max_size=3).map(" ".join)

    def table() -> str:
        cols = draw(st.integers(1, 4))
        outer = draw(st.booleans())

        def row(cells: list[str]) -> str:
            body = " | ".join(c.replace("|", "/") for c in cells)
            return f"| {body} |" if outer or cols == 1 else body

        lines = [row([draw(cell) or "h" for _ in range(cols)])]
        lines.append(row([draw(st.sampled_from(["---", ":--", "--:", ":-:"])) for _ in range(cols)]))
        for _ in range(draw(st.integers(0, 12))):
            lines.append(row([draw(cell) for _ in range(cols)]))
        return "\n".join(lines)

    def paragraph() -> str:
        return " ".join(draw(st.lists(word.filter(lambda w: "|" not in w), min_size=1, max_size=30)))

    blocks = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["table", "table", "paragraph", "heading", "code"]))
        if kind == "table":
            blocks.append(table())
        elif kind == "paragraph":
            blocks.append(paragraph())
        elif kind == "heading":
            blocks.append("#" * draw(st.integers(1, 3)) + " " + paragraph())
        else:
            blocks.append("```\n| not | a table |\n|---|---|\n```")
    text = "\n\n".join(blocks) + draw(st.sampled_from(["", "\n", "\n\n  "]))
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return text


@settings(max_examples=150, **SETTINGS)
@given(
    text=markdown_with_tables(),
    rows=st.integers(0, 5),
    max_tokens=st.integers(1, 80),
    repeat=st.booleans(),
    tokenizer=st.sampled_from(["words", "cl100k_base"]),
)
def test_property_no_chunk_boundary_inside_a_table_row(
    text: str, rows: int, max_tokens: int, repeat: bool, tokenizer: str
) -> None:
    chunks = chunk(
        text, "tables", rows_per_chunk=rows, max_tokens=max_tokens, repeat_header=repeat, tokenizer=tokenizer
    )
    assert_valid_chunking(text, chunks, tokenizer=tokenizer, allow_added_text=True, strictly_advancing=True)
    assert_no_cut_inside_a_row(text, chunks)
    tables = find_tables(text)
    tok = get_tokenizer(tokenizer)
    for c in chunks:
        if c.metadata.get("kind") != "table":
            # text chunks lie outside every table
            assert all(c.end <= t.start or c.start >= t.end for t in tables)
            continue
        t = tables[c.metadata["table"]]
        assert t.start <= c.start and c.end <= t.end
        assert c.start == t.start or c.start in {s for s, _ in t.rows}
        if c.start == t.start or not repeat:
            assert c.added_text == ""
        else:
            assert c.added_text == text[t.start : t.rows_start]
        if rows and not c.metadata.get("over_size_limit"):
            assert tok.count(c.added_text + c.text) <= max_tokens
        if c.metadata.get("over_size_limit") and rows and c.metadata["table_rows"]:
            first, last = c.metadata["rows"]
            assert first == last, "only a single row (with the header) may exceed max_tokens"
    if rows == 0:
        assert len([c for c in chunks if c.metadata.get("kind") == "table"]) == len(tables)
