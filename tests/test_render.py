"""The inline renderer: escaped, one element per chunk, reason and boundary on every end marker."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from chunkviz.render import (
    ChunkAnnotation,
    RenderOptions,
    cut_text,
    legend_html,
    render_html,
    stylesheet,
)
from chunkviz.types import Chunk
from chunkviz.vocabulary import (
    BOUNDARY_LABELS,
    FLAG_LABELS,
    REASON_LABELS,
    Boundary,
    Flag,
    Reason,
)

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


# ---- exact HTML, pinned: a refactoring of render_html must not change a byte of it. When you
# change the output on purpose, regenerate these strings from render_html and review the diff.


def _flat_case() -> tuple[str, list[Chunk], RenderOptions]:
    """Two chunks, text needing escaping (also in the strategy name), annotations and a content gap."""
    text = "Say <script>alert(1)</script> & go.\n\nGap here.\n\nLast & end."
    a, b = text.index("Gap"), text.index("Last")
    chunks = [
        Chunk.from_span(text, 0, 0, a - 2, Reason.UNIT_END, boundary=Boundary.PARAGRAPH),
        Chunk.from_span(text, 1, b, len(text), Reason.END_OF_DOCUMENT, boundary=Boundary.DOCUMENT_END),
    ]
    notes = {
        0: ChunkAnnotation(tokens=9, embedding_tokens=11, flags=(Flag.OVER_SIZE_LIMIT,)),
        1: ChunkAnnotation(flags=(Flag.TINY, Flag.MID_SENTENCE)),
    }
    return text, chunks, RenderOptions('s"<x>', tokenizer="words", annotations=notes, content_gaps=[(a, a + 9)])


def _overlapping_case() -> tuple[str, list[Chunk], RenderOptions]:
    """Overlaps, a chunk lying inside an overlap, an empty chunk at the end, a selected chunk."""
    text = "abcdefghij"
    chunks = [
        Chunk.from_span(text, 0, 0, 6, Reason.SIZE_LIMIT, boundary=Boundary.INSIDE_WORD),
        Chunk.from_span(text, 1, 4, 10, Reason.END_OF_DOCUMENT, boundary=Boundary.DOCUMENT_END),
        Chunk.from_span(text, 2, 5, 6, Reason.SIZE_LIMIT, boundary=Boundary.INSIDE_WORD),  # entirely inside the overlap
        Chunk.from_span(text, 3, 10, 10, Reason.MIN_SIZE, boundary=Boundary.DOCUMENT_END),  # empty, at the end
    ]
    notes = {0: ChunkAnnotation(tokens=2, flags=(Flag.MID_WORD,))}
    return text, chunks, RenderOptions("ov", selected=1, annotations=notes)


def _multilevel_case() -> tuple[str, list[Chunk], RenderOptions]:
    """Three levels: parents as nested outlines, a selected leaf marking its ancestors, added text."""
    text = "One. Two.\nThree & four.\nFive."
    chunks = [
        Chunk.from_span(text, 0, 0, len(text), Reason.END_OF_DOCUMENT, boundary=Boundary.DOCUMENT_END, level=0),
        Chunk.from_span(text, 1, 0, 23, Reason.UNIT_END, boundary=Boundary.LINE, parent=0, level=1),
        Chunk.from_span(text, 2, 24, len(text), Reason.PARENT_END, boundary=Boundary.DOCUMENT_END, parent=0, level=1),
        Chunk.from_span(text, 3, 0, 4, Reason.UNIT_END, boundary=Boundary.SENTENCE, parent=1, level=2),
        Chunk.from_span(text, 4, 5, 23, Reason.PARENT_END, boundary=Boundary.LINE, parent=1, level=2, added_text="Ctx <h1> & "),
        Chunk.from_span(text, 5, 24, len(text), Reason.PARENT_END, boundary=Boundary.DOCUMENT_END, parent=2, level=2),
    ]
    return text, chunks, RenderOptions("tree", selected=4)


def _crossing_case() -> tuple[str, list[Chunk], RenderOptions]:
    """Parents that do not nest: one is closed and reopened, a child continues across the cut."""
    text = "0123456789abcdefghij"
    chunks = [
        Chunk.from_span(text, 0, 0, 10, Reason.SIZE_LIMIT, boundary=Boundary.WORD, level=0),
        Chunk.from_span(text, 1, 5, 15, Reason.SIZE_LIMIT, boundary=Boundary.WORD, level=1),
        Chunk.from_span(text, 2, 0, 5, Reason.UNIT_END, boundary=Boundary.WORD, parent=0, level=2),
        Chunk.from_span(text, 3, 5, 12, Reason.UNIT_END, boundary=Boundary.WORD, parent=1, level=2),
        Chunk.from_span(text, 4, 12, 15, Reason.PARENT_END, boundary=Boundary.WORD, parent=1, level=2),
    ]
    return text, chunks, RenderOptions("x", selected=1)


EXPECTED_FLAT = (
    '<div class="cv-doc" data-strategy="s&quot;&lt;x&gt;">'
    '<span id="cv-s&quot;&lt;x&gt;-0" class="cv-c cv-k0 cv-over" data-strategy="s&quot;&lt;x&gt;" data-chunk-index="0" data-start="0" data-end="35" data-level="0" title="chunk 0 · chars 0–35 (35) · 9 words tokens · 11 embedding-model tokens · ends: structural unit ended; cut at: paragraph break · flags: over the strategy&#x27;s size limit">Say &lt;script&gt;alert(1)&lt;/script&gt; &amp; go.</span>'
    '<i class="cv-e" data-end-of="0" title="end of chunk 0: structural unit ended; cut at: paragraph break"></i>\n\n'
    '<span class="cv-gap" data-gap-start="37" data-gap-end="46" title="not in any chunk">Gap here.</span>\n\n'
    '<span id="cv-s&quot;&lt;x&gt;-1" class="cv-c cv-k1 cv-tiny" data-strategy="s&quot;&lt;x&gt;" data-chunk-index="1" data-start="48" data-end="59" data-level="0" title="chunk 1 · chars 48–59 (11) · ends: end of the document; cut at: end of the document · flags: tiny, cuts a sentence">Last &amp; end.</span>'
    '<i class="cv-e cv-midsent" data-end-of="1" title="end of chunk 1: end of the document; cut at: end of the document — cuts a sentence"></i></div>'
)

EXPECTED_OVERLAPPING = (
    '<div class="cv-doc" data-strategy="ov">'
    '<span id="cv-ov-0" class="cv-c cv-k0" data-strategy="ov" data-chunk-index="0" data-start="0" data-end="6" data-level="0" title="chunk 0 · chars 0–6 (6) · 2 tokens tokens · ends: size limit reached (the next piece would not fit); cut at: inside a word · flags: cuts a word">abcd</span>'
    '<span class="cv-o cv-o0" data-strategy="ov" data-overlap="0 1" data-start="4" data-end="5" title="overlap of chunks 0, 1: 1 characters">e</span>'
    '<span class="cv-o cv-o0" data-strategy="ov" data-overlap="0 1 2" data-start="5" data-end="6" title="overlap of chunks 0, 1, 2: 1 characters">f</span>'
    '<i class="cv-e cv-midword" data-end-of="0" title="end of chunk 0: size limit reached (the next piece would not fit); cut at: inside a word — cuts a word"></i>'
    '<span id="cv-ov-2" class="cv-c cv-k2" data-strategy="ov" data-chunk-index="2" data-start="5" data-end="6" data-level="0" title="chunk 2 · chars 5–6 (1) · ends: size limit reached (the next piece would not fit); cut at: inside a word"></span>'
    '<i class="cv-e" data-end-of="2" title="end of chunk 2: size limit reached (the next piece would not fit); cut at: inside a word"></i>'
    '<span id="cv-ov-1" class="cv-c cv-k1 cv-sel" data-strategy="ov" data-chunk-index="1" data-start="4" data-end="10" data-level="0" title="chunk 1 · chars 4–10 (6) · ends: end of the document; cut at: end of the document">ghij</span>'
    '<i class="cv-e" data-end-of="1" title="end of chunk 1: end of the document; cut at: end of the document"></i>'
    '<span id="cv-ov-3" class="cv-c cv-k3" data-strategy="ov" data-chunk-index="3" data-start="10" data-end="10" data-level="0" title="chunk 3 · chars 10–10 (0) · ends: minimum size reached; cut at: end of the document"></span>'
    '<i class="cv-e" data-end-of="3" title="end of chunk 3: minimum size reached; cut at: end of the document"></i></div>'
)

EXPECTED_MULTILEVEL = (
    '<div class="cv-doc" data-strategy="tree">'
    '<span id="cv-tree-0" class="cv-p cv-psel" data-strategy="tree" data-chunk-index="0" data-parent-index="0" data-start="0" data-end="29" data-level="0" title="chunk 0 · chars 0–29 (29) · ends: end of the document; cut at: end of the document">'
    '<span id="cv-tree-1" class="cv-p cv-podd cv-psel" data-strategy="tree" data-chunk-index="1" data-parent-index="1" data-start="0" data-end="23" data-level="1" title="chunk 1 · chars 0–23 (23) · ends: structural unit ended; cut at: line break · parent 0">'
    '<span id="cv-tree-3" class="cv-c cv-k3" data-strategy="tree" data-chunk-index="3" data-start="0" data-end="4" data-level="2" title="chunk 3 · chars 0–4 (4) · ends: structural unit ended; cut at: end of a sentence · parent 1">One.</span>'
    '<i class="cv-e" data-end-of="3" title="end of chunk 3: structural unit ended; cut at: end of a sentence"></i> '
    '<ins class="cv-add" data-added-to="4" title="added by the strategy, not in the source">Ctx &lt;h1&gt; &amp; </ins>'
    '<span id="cv-tree-4" class="cv-c cv-k4 cv-sel" data-strategy="tree" data-chunk-index="4" data-start="5" data-end="23" data-level="2" title="chunk 4 · chars 5–23 (18) · ends: parent chunk ends here; cut at: line break · parent 1">Two.\nThree &amp; four.</span>'
    '<i class="cv-e" data-end-of="4" title="end of chunk 4: parent chunk ends here; cut at: line break"></i></span>\n'
    '<span id="cv-tree-2" class="cv-p" data-strategy="tree" data-chunk-index="2" data-parent-index="2" data-start="24" data-end="29" data-level="1" title="chunk 2 · chars 24–29 (5) · ends: parent chunk ends here; cut at: end of the document · parent 0">'
    '<span id="cv-tree-5" class="cv-c cv-k5" data-strategy="tree" data-chunk-index="5" data-start="24" data-end="29" data-level="2" title="chunk 5 · chars 24–29 (5) · ends: parent chunk ends here; cut at: end of the document · parent 2">Five.</span>'
    '<i class="cv-e" data-end-of="5" title="end of chunk 5: parent chunk ends here; cut at: end of the document"></i></span></span></div>'
)

EXPECTED_CROSSING = (
    '<div class="cv-doc" data-strategy="x">'
    '<span id="cv-x-0" class="cv-p" data-strategy="x" data-chunk-index="0" data-parent-index="0" data-start="0" data-end="10" data-level="0" title="chunk 0 · chars 0–10 (10) · ends: size limit reached (the next piece would not fit); cut at: between words (at a space or punctuation)">'
    '<span id="cv-x-2" class="cv-c cv-k2" data-strategy="x" data-chunk-index="2" data-start="0" data-end="5" data-level="2" title="chunk 2 · chars 0–5 (5) · ends: structural unit ended; cut at: between words (at a space or punctuation) · parent 0">01234</span>'
    '<i class="cv-e" data-end-of="2" title="end of chunk 2: structural unit ended; cut at: between words (at a space or punctuation)"></i>'
    '<span id="cv-x-1" class="cv-p cv-podd cv-psel" data-strategy="x" data-chunk-index="1" data-parent-index="1" data-start="5" data-end="15" data-level="1" title="chunk 1 · chars 5–15 (10) · ends: size limit reached (the next piece would not fit); cut at: between words (at a space or punctuation)">'
    '<span id="cv-x-3" class="cv-c cv-k3" data-strategy="x" data-chunk-index="3" data-start="5" data-end="12" data-level="2" title="chunk 3 · chars 5–12 (7) · ends: structural unit ended; cut at: between words (at a space or punctuation) · parent 1">56789</span></span></span>'
    '<span class="cv-p cv-podd cv-psel" data-continues="1">'
    '<span class="cv-c cv-k3" data-continues="3">ab</span>'
    '<i class="cv-e" data-end-of="3" title="end of chunk 3: structural unit ended; cut at: between words (at a space or punctuation)"></i>'
    '<span id="cv-x-4" class="cv-c cv-k4" data-strategy="x" data-chunk-index="4" data-start="12" data-end="15" data-level="2" title="chunk 4 · chars 12–15 (3) · ends: parent chunk ends here; cut at: between words (at a space or punctuation) · parent 1">cde</span>'
    '<i class="cv-e" data-end-of="4" title="end of chunk 4: parent chunk ends here; cut at: between words (at a space or punctuation)"></i></span>fghij</div>'
)


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        (_flat_case, EXPECTED_FLAT),
        (_overlapping_case, EXPECTED_OVERLAPPING),
        (_multilevel_case, EXPECTED_MULTILEVEL),
        (_crossing_case, EXPECTED_CROSSING),
    ],
    ids=["flat", "overlapping", "multilevel", "crossing"],
)
def test_exact_html(case: Callable[[], tuple[str, list[Chunk], RenderOptions]], expected: tuple[str, ...]) -> None:
    assert render_html(*case()) == "".join(expected)


def test_exact_html_without_chunks() -> None:
    assert render_html("a<&>", [], RenderOptions('e"')) == '<div class="cv-doc" data-strategy="e&quot;">a&lt;&amp;&gt;</div>'


def test_a_chunk_over_a_limit_and_tiny_keeps_its_warning_sign() -> None:
    """Both marks draw with ``::before``; the rule for both classes together keeps the warning sign."""
    css = stylesheet()
    combined = css[css.index(".cv-over.cv-tiny::before") :].split("}", 1)[0]
    assert "\\26A0" in combined and "\\00B7" in combined
    assert css.index(".cv-over.cv-tiny::before") > css.index(".cv-tiny::before")  # later rule wins
