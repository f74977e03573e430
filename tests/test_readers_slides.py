"""PPTX (python-pptx -> HTML -> the HTML reader's Markdown): one section per slide with its
title, bullets nested by level, tables with their header, speaker notes when asked for. The
presentations are made by the tests with python-pptx."""

from __future__ import annotations

import io
import zipfile

import pytest
from support.files import docx_bytes

from chunkviz.core.errors import DocumentError
from chunkviz.document.read import read_bytes
from chunkviz.document.readers import slides

pptx = pytest.importorskip("pptx")
pytest.importorskip("markdownify")
from pptx.util import Inches  # noqa: E402 - after the skip: python-pptx may be missing


def deck_bytes() -> bytes:
    deck = pptx.Presentation()
    first = deck.slides.add_slide(deck.slide_layouts[1])  # title and content
    first.shapes.title.text = "Why chunk by slide"
    body = first.placeholders[1].text_frame
    body.text = "Slides are units"
    for level, text in [(1, "A title names each"), (2, "even a deep point"), (0, "Windows cut across them")]:
        paragraph = body.add_paragraph()
        paragraph.text, paragraph.level = text, level
    first.notes_slide.notes_text_frame.text = "Say this first.\nThen this."
    second = deck.slides.add_slide(deck.slide_layouts[5])  # title only
    second.shapes.title.text = "Results | Q1"
    table = second.shapes.add_table(3, 2, Inches(1), Inches(1.5), Inches(6), Inches(1.5)).table
    for r, row in enumerate([["Strategy", "Recall"], ["fixed", "0.61"], ["headings", "0.83"]]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    box = second.shapes.add_textbox(Inches(1), Inches(4), Inches(6), Inches(1))
    box.text_frame.text = "Measured on 40 questions."
    group = second.shapes.add_group_shape()
    inner = group.shapes.add_textbox(Inches(1), Inches(5), Inches(2), Inches(1))
    inner.text_frame.text = "Grouped caption"
    deck.slides.add_slide(deck.slide_layouts[6])  # blank: no title, no text
    buffer = io.BytesIO()
    deck.save(buffer)
    return buffer.getvalue()


DECK_TEXT = (
    "# Slide 1: Why chunk by slide\n\n"
    "- Slides are units\n"
    "  - A title names each\n"
    "    - even a deep point\n"
    "- Windows cut across them\n\n"
    "# Slide 2: Results | Q1\n\n"
    "| Strategy | Recall |\n"
    "| --- | --- |\n"
    "| fixed | 0.61 |\n"
    "| headings | 0.83 |\n\n"
    "Measured on 40 questions.\n\n"
    "Grouped caption\n\n"
    "# Slide 3\n"
)


def test_a_deck_is_one_section_per_slide_with_its_title() -> None:
    document = read_bytes(deck_bytes(), "talk.pptx")
    assert document.format == "pptx"
    assert document.text == DECK_TEXT
    assert document.notes == (
        slides.PPTX_NOTE,
        "speaker notes not read (read them with slide_notes=True, or --slide-notes)",
    )
    structure = document.structure
    assert [(h.level, h.title) for h in structure.headings] == [
        (1, "Slide 1: Why chunk by slide"),
        (1, "Slide 2: Results | Q1"),
        (1, "Slide 3"),
    ]
    (table,) = structure.tables
    assert len(table.rows) == 4
    assert [b.kind for b in structure.blocks].count("list_item") == 2  # the outermost items, the nested ones inside


def test_speaker_notes_follow_the_slide_when_asked_for() -> None:
    document = read_bytes(deck_bytes(), "talk.pptx", slide_notes=True)
    assert document.text == DECK_TEXT.replace(
        "- Windows cut across them\n\n", "- Windows cut across them\n\nNotes: Say this first.\n\nThen this.\n\n"
    )
    assert document.notes == (slides.PPTX_NOTE,)


def test_groups_nested_too_deep_are_left_out_with_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(slides, "MAX_GROUP_DEPTH", 0)
    document = read_bytes(deck_bytes(), "talk.pptx")
    assert "Grouped caption" not in document.text
    assert "1 group nested deeper than 0 levels left out" in document.notes


def test_a_word_document_named_pptx_is_read_as_one_with_a_note() -> None:
    document = read_bytes(docx_bytes(["Just a memo."]), "deck.pptx")
    assert document.format == "docx" and document.text == "Just a memo.\n"
    assert document.notes[0] == (
        "deck.pptx is named .pptx but is a Word document (DOCX), not a PowerPoint presentation (PPTX): "
        "read as a Word document (DOCX)"
    )


def test_a_presentation_named_docx_is_read_as_one_with_a_note() -> None:
    document = read_bytes(deck_bytes(), "memo.docx")
    assert document.format == "pptx" and document.text == DECK_TEXT
    assert document.notes[0].startswith("memo.docx is named .docx but is a PowerPoint presentation (PPTX)")


def test_a_damaged_presentation_says_so_in_one_line() -> None:
    data = deck_bytes()
    with pytest.raises(DocumentError) as info:
        read_bytes(data[: len(data) // 2], "cut.pptx")
    assert str(info.value).startswith("cut.pptx could not be read as a PowerPoint presentation (PPTX): ")
    assert "\n" not in str(info.value)


def test_a_presentation_bomb_is_refused_before_it_is_inflated() -> None:
    """A slide part that declares 25 MB of XML (written in pieces, so the test stays small in memory)."""
    source = zipfile.ZipFile(io.BytesIO(deck_bytes()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            archive.writestr(info, source.read(info))
        with archive.open("ppt/slides/padding.xml", "w", force_zip64=True) as padding:
            for _ in range(25):
                padding.write(b" " * 1_000_000)
    with pytest.raises(DocumentError) as info:
        read_bytes(out.getvalue(), "bomb.pptx")
    assert str(info.value).startswith("bomb.pptx is too large once unpacked: its XML inflates to 25")
    assert "the limit is 20 MB" in str(info.value)


def test_without_python_pptx_the_message_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(slides, "HAVE_PPTX", False)
    with pytest.raises(DocumentError) as info:
        read_bytes(deck_bytes(), "talk.pptx")
    assert str(info.value) == "reading PPTX needs the formats extra: pip install 'chunkviz[formats]'"


def test_list_html_nests_by_level_and_never_skips_one() -> None:
    assert slides.list_html([(0, "a"), (3, "b"), (1, "c"), (0, "d")]) == (
        "<ul><li>a<ul><li>b</li><li>c</li></ul></li><li>d</li></ul>"
    )
