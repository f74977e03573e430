"""The comparison views: runs on the Document (its format), flags, chunk table, outline, query params."""

from __future__ import annotations

import chunkviz
from chunkviz import compare
from chunkviz.compare import (
    SHOWN_FLAGS,
    ColumnConfig,
    chunk_flags,
    chunk_table,
    config_from_query,
    config_to_query,
    flag_counts,
    outline_html,
    run_strategy,
    stats_row,
)
from chunkviz.document import Document
from chunkviz.vocabulary import BOUNDARY_LABELS, FLAG_LABELS, REASON_LABELS, Flag

RST = "Title\n=====\n\nIntro text here.\n\nPart one\n--------\n\nBody of part one.\n"
TABLE = "Intro.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n| 5 | 6 |\n\nAfter the table.\n"


def test_run_strategy_passes_the_document_with_its_format(monkeypatch) -> None:
    seen = []

    def spy(document, strategy, **kwargs):  # noqa: ANN001, ANN202, ANN003
        seen.append(document)
        return chunkviz.chunk(document, strategy, **kwargs)

    monkeypatch.setattr(compare, "chunk", spy)
    document = Document(RST, name="guide.rst", format="rst")
    run = run_strategy(document, "paragraphs", {}, "words")
    assert seen == [document] and seen[0].format == "rst"
    assert run.diagnostics is not None and run.diagnostics.summary.chunks == len(run.chunks)


def test_outline_comes_from_the_structure_sections() -> None:
    document = Document(RST, format="rst")
    html = outline_html(document)
    titles = [s.heading.title for s in document.structure.sections]
    assert titles == ["Title", "Part one"]
    assert all(t in html for t in titles)
    assert outline_html(Document("no headings here", format="text")) == ""


def test_chunk_table_shows_reason_and_boundary_labels() -> None:
    run = run_strategy("One two three. Four five six.\n\nSeven eight.", "fixed_chars", {"chunk_size": 12, "overlap": 0}, "words")
    rows = chunk_table(run)
    assert [r["reason"] for r in rows] == [REASON_LABELS[c.reason] for c in run.chunks]
    assert [r["boundary"] for r in rows] == [BOUNDARY_LABELS[c.boundary] for c in run.chunks]
    assert any(FLAG_LABELS[Flag.MID_WORD] in r["flags"] for r in rows)


def test_split_table_flag_comes_from_the_document_structure() -> None:
    document = Document(TABLE, format="markdown")
    cut = TABLE.index("| 3 |")
    run = run_strategy(document, "fixed_chars", {"chunk_size": cut, "overlap": 0}, "words")
    flags = chunk_flags(run)
    assert Flag.SPLIT_TABLE in flags[0]
    assert flag_counts(run)[Flag.SPLIT_TABLE] >= 1
    assert stats_row("1", run)[FLAG_LABELS[Flag.SPLIT_TABLE]] >= 1
    assert set(flag_counts(run)) == set(SHOWN_FLAGS)


def test_config_round_trips_through_query_params() -> None:
    columns = [ColumnConfig("recursive", {"chunk_size": 200, "separators": ["\n", " "]}), ColumnConfig("paragraphs")]
    doc, tokenizer, parsed = config_from_query(config_to_query("a.md", "words", columns))
    assert (doc, tokenizer, parsed) == ("a.md", "words", columns)
    assert config_from_query({"n": "1", "s0": "no_such_strategy"})[2] == []
