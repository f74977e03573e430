"""The inline renderer: escaped, one element per chunk, reason and boundary on every end marker."""

from __future__ import annotations

from chunkviz.render import ChunkAnnotation, RenderOptions, cut_text, legend_html, render_html
from chunkviz.types import Chunk
from chunkviz.vocabulary import BOUNDARY_LABELS, FLAG_LABELS, REASON_LABELS, Boundary, Flag, Reason

TEXT = "First <b>para</b>.\n\nSecond para & more."


def _chunks() -> list[Chunk]:
    return [
        Chunk.from_span(TEXT, 0, 0, 18, Reason.UNIT_END, boundary=Boundary.PARAGRAPH),
        Chunk.from_span(TEXT, 1, 20, len(TEXT), Reason.END_OF_DOCUMENT, boundary=Boundary.DOCUMENT_END),
    ]


def test_text_is_escaped_and_every_chunk_has_one_band() -> None:
    html = render_html(TEXT, _chunks(), RenderOptions("s"))
    assert "<b>" not in html and "&lt;b&gt;" in html and "&amp; more" in html
    assert html.count('data-chunk-index="0"') == 1 and html.count('data-chunk-index="1"') == 1


def test_end_markers_and_tooltips_show_reason_and_boundary_labels() -> None:
    html = render_html(TEXT, _chunks(), RenderOptions("s"))
    assert REASON_LABELS[Reason.UNIT_END] in html and BOUNDARY_LABELS[Boundary.PARAGRAPH] in html
    assert cut_text(_chunks()[0]) == f"{REASON_LABELS[Reason.UNIT_END]}; cut at: {BOUNDARY_LABELS[Boundary.PARAGRAPH]}"


def test_flags_use_the_vocabulary_labels_and_classes() -> None:
    notes = {
        0: ChunkAnnotation(tokens=5, flags=(Flag.OVER_MODEL_LIMIT, Flag.MID_WORD)),
        1: ChunkAnnotation(tokens=3, flags=(Flag.OVER_SIZE_LIMIT, Flag.TINY)),
    }
    html = render_html(TEXT, _chunks(), RenderOptions("s", annotations=notes))
    assert html.count("cv-over") == 2  # either size limit outlines the chunk
    assert "cv-tiny" in html and "cv-midword" in html
    assert FLAG_LABELS[Flag.OVER_MODEL_LIMIT] in html.replace("&#x27;", "'")
    assert "over_limit" not in html


def test_legend_names_both_limits() -> None:
    legend = legend_html().replace("&#x27;", "'")
    assert FLAG_LABELS[Flag.OVER_MODEL_LIMIT] in legend and FLAG_LABELS[Flag.OVER_SIZE_LIMIT] in legend
