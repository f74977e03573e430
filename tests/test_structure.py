"""The document structure: paragraphs, blocks (markdown-it-py, rst), sections, sentences, boundaries."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.paths import REALDOCS, read_realdoc

from chunkviz import chunk
from chunkviz.core.vocabulary import Boundary
from chunkviz.document import Document, as_document
from chunkviz.document.structure import (
    LINE_BREAK,
    PARAGRAPH_BREAK,
    Structure,
    markup_for,
    paragraph_spans,
)

MARKDOWN = """# Guide

Intro paragraph
on two lines.

## Install

| a | b |
|---|---|
| 1 | 2 |

```python
# not a heading
print("hi")
```

- item one
- item two

> a quote
"""


def test_paragraph_break_is_one_definition_with_crlf_and_blank_lines_of_spaces() -> None:
    assert [m.group() for m in PARAGRAPH_BREAK.finditer("a\n\nb\r\n\r\nc\n   \n  d\u2029e")] == [
        "\n\n",
        "\r\n\r\n",
        "\n   \n  ",
        "\u2029",
    ]
    assert [m.group() for m in LINE_BREAK.finditer("a\r\nb\rc\nd\u2028e")] == ["\r\n", "\r", "\n", "\u2028"]
    assert PARAGRAPH_BREAK.search("a\r\nb") is None  # one CRLF is one line break, not two


def test_paragraph_spans_are_trimmed_and_skip_blank_stretches() -> None:
    text = "  one\ntwo  \n\n\n   \nthree\n\n"
    assert [text[a:b] for a, b in paragraph_spans(text)] == ["one\ntwo", "three"]


def test_markdown_blocks_from_markdown_it_with_exact_spans() -> None:
    s = Structure(MARKDOWN, "markdown")
    kinds = [(b.kind, MARKDOWN[b.start : b.end]) for b in s.blocks]
    assert kinds == [
        ("heading", "# Guide"),
        ("paragraph", "Intro paragraph\non two lines."),
        ("heading", "## Install"),
        ("table", "| a | b |\n|---|---|\n| 1 | 2 |"),
        ("code", '```python\n# not a heading\nprint("hi")\n```'),
        ("list_item", "- item one"),
        ("list_item", "- item two"),
        ("blockquote", "> a quote"),
    ]
    assert [(h.level, h.title) for h in s.headings] == [(1, "Guide"), (2, "Install")]
    (table,) = s.tables
    assert [MARKDOWN[a:b] for a, b in table.rows] == ["| a | b |", "|---|---|", "| 1 | 2 |"]


def test_sections_and_heading_paths() -> None:
    s = Structure(MARKDOWN, "markdown")
    assert [sec.path for sec in s.sections] == [("Guide",), ("Guide", "Install")]
    assert s.sections[0].end == len(MARKDOWN) and s.sections[1].parent == 0
    assert s.heading_path_at(MARKDOWN.index("Intro")) == ("Guide",)
    assert s.heading_path_at(MARKDOWN.index("item one")) == ("Guide", "Install")
    leaves = s.leaf_sections()
    assert [(leaf.start, leaf.path) for leaf in leaves] == [
        (0, ("Guide",)),
        (MARKDOWN.index("## Install"), ("Guide", "Install")),
    ]
    assert leaves[-1].end == len(MARKDOWN)


def test_setext_headings_and_crlf_offsets() -> None:
    text = "Title\r\n=====\r\n\r\nBody text.\r\n\r\nSub\r\n---\r\nMore.\r\n"
    s = Structure(text, "markdown")
    assert [(h.level, h.title, text[h.start : h.end]) for h in s.headings] == [
        (1, "Title", "Title\r\n====="),
        (2, "Sub", "Sub\r\n---"),
    ]


def test_rst_hash_line_is_not_a_heading_anywhere() -> None:
    text = "Title\n=====\n\nSome text.\n\n# not a heading in rst\n\nMore text.\n"
    document = Document(text, format="rst")
    assert [h.title for h in document.structure.headings] == ["Title"]
    # the strategies read the same structure: one heading, one section
    assert len(chunk(document, "headings")) == 1
    assert [c.metadata["heading_path"] for c in chunk(document, "hierarchical")] == [["Title"]]
    # read as Markdown, the "#" line is a heading
    assert len(Document(text, format="markdown").structure.headings) == 2


def test_markup_of_each_format() -> None:
    assert markup_for("markdown", "") == "markdown"
    assert markup_for("rst", "") == "rst"
    assert markup_for("html", "") == "markdown"
    assert markup_for("python", "# comment") == "none"
    assert markup_for("text", ".. note::\n\n   body\n") == "rst"
    assert markup_for("text", "# Title\n") == "markdown"
    assert markup_for("text", "Use std::vector and a::b here.\n") == "markdown"
    assert markup_for("text", "Example:::\n\n    code\n") == "rst"  # the last two colons make the literal block
    assert markup_for("text", "text\r\n.. code-block:: python\r\n") == "rst"
    assert markup_for("text", "not .. a directive:: here") == "markdown"
    assert Structure("def f():\n    # x\n    pass\n", "none").headings == ()


@pytest.mark.parametrize(
    ("text", "pos", "expected"),
    [
        ("one two", 3, Boundary.WORD),
        ("one two", 4, Boundary.WORD),  # anywhere in the whitespace run
        ("one two", 2, Boundary.INSIDE_WORD),
        ("one\ntwo", 4, Boundary.LINE),
        ("one.\n   \ntwo", 9, Boundary.PARAGRAPH),  # the issue's case: a blank line of spaces
        ("one.\n   \ntwo", 5, Boundary.PARAGRAPH),
        ("one\r\n\r\ntwo", 7, Boundary.PARAGRAPH),
        ("one\r\ntwo", 5, Boundary.LINE),
        ("intro\n\n# Head\nbody", 7, Boundary.SECTION),
        ("intro\n\n# Head\nbody", 6, Boundary.SECTION),
        ("text   ", 5, Boundary.DOCUMENT_END),
        ("text", 4, Boundary.DOCUMENT_END),
        ("日本語", 1, Boundary.INSIDE_SENTENCE),  # no spaces in Japanese: where a word ends is not known (issue 37)
        ("東京は日本の首都です。人口は約1400万人です。", 11, Boundary.SENTENCE),  # no space needed after 。
        ("東京は日本の首都です。人口は約1400万人です。", 15, Boundary.INSIDE_SENTENCE),  # 約|1400
        ("東京は、日本", 3, Boundary.WORD),  # は|、 before punctuation: a word's edge
        ("ภาษาไทย", 4, Boundary.INSIDE_SENTENCE),  # Thai writes no spaces between words either
        ("día", 1, Boundary.INSIDE_WORD),
        ("a\u2028b", 2, Boundary.LINE),
        ("a\u2029b", 2, Boundary.PARAGRAPH),
    ],
)
def test_boundary_at(text: str, pos: int, expected: Boundary) -> None:
    assert as_document(text).structure.boundary_at(pos) == expected


def test_boundary_at_a_sentence_end_uses_the_documents_sentences() -> None:
    text = "The cat sat on the mat. The dog barked at the cat."
    s = as_document(text).structure
    assert s.boundary_at(text.index(" The dog") + 1) == Boundary.SENTENCE
    assert s.boundary_at(text.index(" sat")) == Boundary.WORD
    # computed per paragraph on demand, or from the whole document's sentences: the same answer
    assert text.index("The dog") in s.sentence_starts


def test_the_issue_case_recursive_and_paragraphs_report_the_same_boundary() -> None:
    text = "Paragraph one.\n   \nParagraph two is here.\n"
    a = chunk(text, "recursive", tokenizer="words", chunk_size=3, overlap=0)
    b = chunk(text, "paragraphs", tokenizer="words", min_tokens=0, max_tokens=3)
    assert [(c.end, c.boundary) for c in a][0] == [(c.end, c.boundary) for c in b][0] == (19, Boundary.PARAGRAPH)


def test_sentences_never_span_a_blank_line_and_tile_the_text() -> None:
    text = "A heading without a period\n\nThe body starts here. It ends here.\n"
    s = as_document(text).structure
    assert [text[a:b] for a, b in s.trimmed_sentences] == [
        "A heading without a period",
        "The body starts here.",
        "It ends here.",
    ]
    spans = s.sentences
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))


def test_crlf_text_segments_like_lf() -> None:
    lf = "the. on.\nthe rest of it. And more here.\n\nNext paragraph. Two sentences."
    crlf = lf.replace("\n", "\r\n")
    a = as_document(lf).structure.trimmed_sentences
    b = as_document(crlf).structure.trimmed_sentences
    assert [lf[x:y] for x, y in a] == [crlf[x:y].replace("\r\n", "\n") for x, y in b]


def test_documents_are_shared_per_text_and_format() -> None:
    text = "shared text for the structure cache"
    assert as_document(text) is as_document(text)
    assert as_document(text, "markdown") is not as_document(text, "rst")
    document = Document(text)
    assert as_document(document) is document


def test_plain_prose_needs_no_markdown_parse() -> None:
    s = Structure("Just prose.\n\nMore prose here.", "markdown")
    assert s.headings == ()
    assert "blocks" not in s.__dict__  # no parse was needed to know there are no headings


@pytest.mark.skipif(not REALDOCS.is_dir(), reason="shared realdocs folder not found")
def test_real_documents_structure() -> None:
    rst = Document(read_realdoc(REALDOCS / "pep-0008.rst"), format="rst").structure
    assert len(rst.headings) > 20 and rst.headings[0].title
    md = Document(read_realdoc(REALDOCS / "ripgrep_README.md"), format="markdown").structure
    assert len(md.tables) == 6
    assert len(md.of_kind("code")) == 31
    for block in md.blocks:
        assert md.text[block.start : block.end].strip() == md.text[block.start : block.end].strip()
        assert not md.text[block.end - 1].isspace()


def _documents_for_sentence_check() -> list[Document]:
    from chunkviz.document.read import read_path

    samples = Path(__file__).resolve().parent.parent / "chunkviz/sample_docs"
    paths = [p for p in sorted(samples.iterdir()) if p.is_file() and p.name != "README.md"]
    if REALDOCS.is_dir():
        paths += [REALDOCS / "alice29.txt", REALDOCS / "pep-0008.rst", REALDOCS / "mercury_redstone4_air_to_ground.txt"]
    return [read_path(p) for p in paths]


@pytest.mark.slow
@pytest.mark.parametrize("document", _documents_for_sentence_check(), ids=lambda d: d.name)
def test_windowed_sentence_checks_agree_with_the_whole_document(document: Document) -> None:
    """boundary_at segments only a window around a cut; the answer must be the whole document's."""
    text = document.text
    candidates = [m.end() for m in re.finditer(r"[.!?…][\"')\]”’]*[ \t]+(?=\S)", text)]
    windowed = Structure(text, document.structure.markup)
    whole = Structure(text, document.structure.markup)
    assert whole.sentence_starts  # segment the whole document first: boundary_at then reads it
    assert [windowed.boundary_at(p) for p in candidates] == [whole.boundary_at(p) for p in candidates]
    assert "sentence_starts" not in windowed.__dict__


def test_the_headings_only_parse_finds_the_same_headings() -> None:
    from chunkviz.document.markdown import markdown_blocks

    samples = Path(__file__).resolve().parent.parent / "chunkviz/sample_docs"
    texts = [MARKDOWN, *(p.read_text(encoding="utf-8") for p in sorted(samples.glob("*.md")))]
    if REALDOCS.is_dir():
        texts.append(read_realdoc(REALDOCS / "ripgrep_README.md"))
    for text in texts:
        full = [b for b in markdown_blocks(text) if b.kind == "heading"]
        assert markdown_blocks(text, headings_only=True) == full
        assert Structure(text, "markdown").headings == tuple(full)


def test_lone_surrogates_are_segmented_with_exact_offsets() -> None:
    text = "A lone \ud800 surrogate. And more text here. Then \udfff one more."
    s = as_document(text).structure
    assert [text[a:b] for a, b in s.trimmed_sentences][-1].endswith("one more.")
    assert s.boundary_at(text.index("And")) == Boundary.SENTENCE
    chunks = chunk(text, "sentences", tokenizer="chars", max_tokens=30, overlap_sentences=0)
    assert "".join(c.text for c in chunks) == text


@pytest.mark.parametrize(
    ("text", "pos", "expected"),
    [
        ("foo, bar", 3, Boundary.WORD),  # before punctuation: a word's edge, not inside one
        ("e\u0301x", 1, Boundary.INSIDE_WORD),  # between a letter and its combining accent
        ("👍🏽 ok", 1, Boundary.INSIDE_WORD),  # between an emoji and its skin-tone modifier
        ("👍a", 1, Boundary.WORD),
    ],
)
def test_inside_word_is_the_diagnostics_definition(text: str, pos: int, expected: Boundary) -> None:
    from chunkviz.document.words import cuts_mid_word

    assert as_document(text).structure.boundary_at(pos) == expected
    assert (expected == Boundary.INSIDE_WORD) == cuts_mid_word(text, pos)
