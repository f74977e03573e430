"""The inline renderer: escaped, one element per chunk, facts as data attributes, no marks in the text."""

from __future__ import annotations

import re
from collections.abc import Callable
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.texts import SETTINGS, examples

from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import BOUNDARY_LABELS, REASON_LABELS, Boundary, Flag, Reason
from chunkviz.drawing.palette import BAND_SHADES, COLUMN_HUES, OVERLAP_STRIPES, css_colour
from chunkviz.drawing.render import (
    BAND_COLOURS,
    MARKS,
    N_COLOURS,
    ChunkAnnotation,
    RenderOptions,
    cut_text,
    end_marker_offset,
    legend_html,
    marks_present,
    render_html,
    stylesheet,
    stylesheet_rules,
)

TEXT = "First <b>para</b>.\n\nSecond para & more."


def _chunks() -> list[Chunk]:
    return [
        Chunk.from_span(TEXT, 0, 0, 18, Reason.UNIT_END, boundary=Boundary.PARAGRAPH),
        Chunk.from_span(TEXT, 1, 20, len(TEXT), Reason.END_OF_DOCUMENT, boundary=Boundary.DOCUMENT_END),
    ]


class _Parsed(HTMLParser):
    """Tags, the shown document text (inserted text apart) and the element of every chunk."""

    def __init__(self, markup: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.added: list[str] = []
        self._ins = 0
        self.feed(markup)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._ins += tag == "ins"

    def handle_endtag(self, tag: str) -> None:
        self._ins -= tag == "ins"

    def handle_data(self, data: str) -> None:
        (self.added if self._ins else self.text).append(data)

    def with_attr(self, name: str) -> list[dict[str, str | None]]:
        return [a for _, a in self.tags if name in a]


def test_text_is_escaped_and_every_chunk_has_one_band() -> None:
    html = render_html(TEXT, _chunks(), RenderOptions("s"))
    assert "<b>" not in html and "&lt;b&gt;" in html and "&amp; more" in html
    assert html.count('data-chunk-index="0"') == 1 and html.count('data-chunk-index="1"') == 1


def test_cut_text_names_reason_and_boundary() -> None:
    assert cut_text(_chunks()[0]) == f"{REASON_LABELS[Reason.UNIT_END]}; cut at: {BOUNDARY_LABELS[Boundary.PARAGRAPH]}"


def test_facts_are_data_attributes_with_vocabulary_values_and_no_title() -> None:
    notes = {
        0: ChunkAnnotation(tokens=5, embedding_tokens=7, flags=(Flag.OVER_MODEL_LIMIT, Flag.MID_WORD)),
        1: ChunkAnnotation(tokens=3, flags=(Flag.OVER_SIZE_LIMIT, Flag.TINY)),
    }
    parsed = _Parsed(render_html(TEXT, _chunks(), RenderOptions("s", annotations=notes)))
    first, second = parsed.with_attr("data-chunk-index")
    assert first["data-reason"] == "unit_end" and first["data-boundary"] == "paragraph"
    assert (first["data-tokens"], first["data-mtokens"], first["data-flags"]) == ("5", "7", "over_model_limit mid_word")
    assert "data-mtokens" not in second and second["data-flags"] == "over_size_limit tiny"
    assert "data-level" not in first, "level 0 is left out (compact)"
    assert not parsed.with_attr("title"), "facts are for the tooltip, not the browser's title"


def test_no_flag_glyphs_or_outlines_inside_the_text() -> None:
    notes = {
        0: ChunkAnnotation(flags=(Flag.OVER_MODEL_LIMIT, Flag.TINY)),
        1: ChunkAnnotation(flags=(Flag.OVER_SIZE_LIMIT,)),
    }
    html = render_html(TEXT, _chunks(), RenderOptions("s", annotations=notes))
    css = stylesheet()
    for glyph in ("\u26a0", "\u00b7", "\\26A0", "\\00B7", "::before", "::after"):
        assert glyph not in html and glyph not in css
    assert "cv-over" not in html + css and "cv-tiny" not in html + css


def test_end_marker_sits_after_the_last_non_whitespace_character() -> None:
    """A chunk ending in blank lines keeps its marker on its own line, not at the next chunk's start."""
    text = "One para.\n\nTwo para.\n"
    chunks = [
        Chunk.from_span(text, 0, 0, 11, Reason.UNIT_END, boundary=Boundary.PARAGRAPH),
        Chunk.from_span(text, 1, 11, len(text), Reason.END_OF_DOCUMENT, boundary=Boundary.DOCUMENT_END),
    ]
    assert [end_marker_offset(text, c) for c in chunks] == [9, 20]
    assert render_html(text, chunks, RenderOptions("m")) == (
        '<div class="cv-doc" data-strategy="m" data-length="21" style="--h:245" data-tokenizer="tokens" dir="auto">'
        '<span id="cv-m-0" class="cv-c cv-k0" data-chunk-index="0" data-start="0" data-end="11" data-reason="unit_end" '
        'data-boundary="paragraph">One para.<i class="cv-e" data-end-of="0"></i>\n\n</span>'
        '<span id="cv-m-1" class="cv-c cv-k1" data-chunk-index="1" data-start="11" data-end="21" data-reason="end_of_document" '
        'data-boundary="document_end">Two para.<i class="cv-e" data-end-of="1"></i>\n</span></div>'
    )


def test_an_all_whitespace_chunk_has_its_marker_at_its_end() -> None:
    text = "ab\n\n\ncd"
    chunks = [
        Chunk.from_span(text, 0, 0, 2, Reason.UNIT_END, boundary=Boundary.PARAGRAPH),
        Chunk.from_span(text, 1, 2, 5, Reason.UNIT_END, boundary=Boundary.PARAGRAPH),
        Chunk.from_span(text, 2, 5, 7, Reason.END_OF_DOCUMENT, boundary=Boundary.DOCUMENT_END),
    ]
    assert end_marker_offset(text, chunks[1]) == 5
    assert '">\n\n\n</span><i class="cv-e" data-end-of="1"></i>' in render_html(text, chunks, RenderOptions("w"))


def test_an_empty_chunk_in_the_middle_is_drawn_once() -> None:
    text = "abcdef"
    chunks = [
        Chunk.from_span(text, 0, 0, 3, Reason.SIZE_LIMIT, boundary=Boundary.INSIDE_WORD),
        Chunk.from_span(text, 1, 3, 3, Reason.MIN_SIZE, boundary=Boundary.INSIDE_WORD),
        Chunk.from_span(text, 2, 3, 6, Reason.END_OF_DOCUMENT, boundary=Boundary.DOCUMENT_END),
    ]
    html = render_html(text, chunks, RenderOptions("e"))
    assert html.count('data-chunk-index="1"') == 1 and html.count('data-end-of="1"') == 1
    assert html.index('data-end-of="0"') < html.index('data-chunk-index="1"') < html.index('data-chunk-index="2"')


def test_the_root_carries_length_and_the_column_hue_and_the_css_reads_it() -> None:
    html = render_html(TEXT, _chunks(), RenderOptions("s", hue=150))
    assert html.startswith(f'<div class="cv-doc" data-strategy="s" data-length="{len(TEXT)}" style="--h:150"')
    css = stylesheet()
    for k in range(3):
        assert f".cv-k{k}{{background:{css_colour(BAND_SHADES[k])}}}" in css
        assert all(css_colour(s) in css for s in OVERLAP_STRIPES[k])
    assert "var(--h," in css and ".cv-k3" not in css


def test_neighbouring_bands_differ_even_when_their_indexes_are_not_consecutive() -> None:
    """Leaves of a tree are numbered apart (2 and 5 would share ``i % 3``); shades follow the document."""
    text = "aaaa bbbb cccc"
    chunks = [
        Chunk.from_span(text, 0, 0, 14, Reason.END_OF_DOCUMENT, boundary=Boundary.DOCUMENT_END),
        Chunk.from_span(text, 1, 5, 14, Reason.PARENT_END, boundary=Boundary.DOCUMENT_END, parent=0, level=1),
        Chunk.from_span(text, 2, 0, 5, Reason.UNIT_END, boundary=Boundary.WORD, parent=0, level=1),
        Chunk.from_span(text, 3, 5, 10, Reason.UNIT_END, boundary=Boundary.WORD, parent=1, level=2),
        Chunk.from_span(text, 4, 10, 14, Reason.PARENT_END, boundary=Boundary.DOCUMENT_END, parent=1, level=2),
    ]
    classes = [a["class"] for a in _Parsed(render_html(text, chunks, RenderOptions("t"))).with_attr("data-chunk-index")]
    bands = [c.split()[1] for c in classes if c.startswith("cv-c")]
    assert bands == ["cv-k0", "cv-k1", "cv-k2"]


def test_overlap_regions_name_their_chunks_and_are_striped() -> None:
    text, chunks, options = _overlapping_case()
    overlaps = _Parsed(render_html(text, chunks, options)).with_attr("data-overlap")
    assert [(o["class"], o["data-overlap"], o["data-start"], o["data-end"]) for o in overlaps] == [
        ("cv-o cv-o0", "0 1", "4", "5"),
        ("cv-o cv-o0", "0 1 2", "5", "6"),
    ]
    assert ".cv-o0{background:repeating-linear-gradient(" in stylesheet()


@pytest.mark.parametrize(
    "hostile",
    [
        '"><script>alert(1)</script>',
        "' onmouseover='x",
        "<!-- --><img src=x onerror=alert(1)>",
        "&amp; &lt; \u202e\u0000",
    ],
)
def test_hostile_text_labels_and_added_text_stay_text(hostile: str) -> None:
    text = f"a {hostile} b\n\n{hostile}"
    cut = text.index("\n\n")
    chunks = [
        Chunk.from_span(text, 0, 0, cut + 2, Reason.UNIT_END, boundary=Boundary.PARAGRAPH),
        Chunk.from_span(
            text, 1, cut + 2, len(text), Reason.END_OF_DOCUMENT, boundary=Boundary.DOCUMENT_END, added_text=hostile
        ),
    ]
    html = render_html(text, chunks, RenderOptions(hostile, tokenizer=hostile, selected=1))
    parsed = _Parsed(html)
    assert {tag for tag, _ in parsed.tags} <= {"div", "span", "i", "ins"}
    assert "".join(parsed.text) == text and "".join(parsed.added) == hostile
    assert parsed.tags[0][1]["data-strategy"] == hostile
    for k, (_, attrs) in enumerate(parsed.tags):
        for name in attrs:
            assert (
                name in {"class", "id", "title", "dir"} or name.startswith("data-") or (k == 0 and name == "style")
            ), name
    assert parsed.tags[0][1]["style"] == "--h:245"


_TEXTS = st.text(alphabet="ab <&>\"'\n ", min_size=1, max_size=40)


@st.composite
def _chunkings(draw: st.DrawFn) -> tuple[str, list[Chunk]]:
    """A text and a flat chunking with overlaps, gaps and empty chunks."""
    text = draw(_TEXTS)
    bounds = sorted(
        draw(st.lists(st.tuples(st.integers(0, len(text)), st.integers(0, len(text))), min_size=1, max_size=6))
    )
    chunks = [
        Chunk.from_span(text, i, min(a, b), max(a, b), Reason.SIZE_LIMIT, boundary=Boundary.WORD)
        for i, (a, b) in enumerate(sorted((min(a, b), max(a, b)) for a, b in bounds))
    ]
    return text, chunks


@settings(max_examples=examples(150), **SETTINGS)
@given(_chunkings())
def test_any_flat_chunking_shows_the_whole_text_one_element_and_one_marker_per_chunk(
    case: tuple[str, list[Chunk]],
) -> None:
    text, chunks = case
    parsed = _Parsed(render_html(text, chunks, RenderOptions("p")))
    assert "".join(parsed.text) == text
    assert sorted(int(a["data-chunk-index"] or -1) for a in parsed.with_attr("data-chunk-index")) == [
        c.index for c in chunks
    ]
    assert sorted(int(a["data-end-of"] or -1) for a in parsed.with_attr("data-end-of")) == [c.index for c in chunks]


#: Attributes whose value render.py takes from a chunk's index (or its parent's).
_INDEX_ATTRIBUTES = ("data-chunk-index", "data-parent-index", "data-continues", "data-end-of", "data-added-to")


@pytest.mark.parametrize(
    "hostile",
    ['"><img src=x onerror="alert(7)">', "' onmouseover='alert(7)", "<!-- --><script>alert(7)</script>", "7%s"],
)
def test_chunk_numbers_of_the_wrong_type_stay_attribute_values(hostile: str) -> None:
    """Issue 36 item 5: an index, parent or level that is a string (a chunk made elsewhere) is one
    attribute's value, escaped: no element or attribute of its own, whatever the renderer does with it."""
    text = "0123456789abcdefghij"
    ids = [f"{hostile}{k}" for k in range(5)]
    chunks = [  # the crossing case: outlines closed and reopened, a child continued across them
        Chunk.from_span(text, ids[0], 0, 10, Reason.SIZE_LIMIT, boundary=Boundary.WORD, level=hostile),
        Chunk.from_span(text, ids[1], 5, 15, Reason.SIZE_LIMIT, boundary=Boundary.WORD, level=1),
        Chunk.from_span(text, ids[2], 0, 5, Reason.UNIT_END, boundary=Boundary.WORD, parent=ids[0], level=hostile),
        Chunk.from_span(
            text, ids[3], 5, 12, Reason.UNIT_END, boundary=Boundary.WORD, parent=ids[1], added_text=hostile
        ),
        Chunk.from_span(text, ids[4], 10, 15, Reason.PARENT_END, boundary=Boundary.WORD, parent=ids[1]),
    ]
    notes = {ids[3]: ChunkAnnotation(tokens=hostile, flags=(hostile, Flag.MID_WORD))}
    html = render_html(text, chunks, RenderOptions(hostile, tokenizer=hostile, selected=ids[3], annotations=notes))
    parsed = _Parsed(html)
    assert {tag for tag, _ in parsed.tags} == {"div", "span", "i", "ins"}
    for k, (_, attrs) in enumerate(parsed.tags):
        for name in attrs:
            assert (
                name in {"class", "id", "title", "dir"} or name.startswith("data-") or (k == 0 and name == "style")
            ), name
    assert "".join(parsed.text) == text and "".join(parsed.added) == hostile
    values = {a[name] for name in _INDEX_ATTRIBUTES for a in parsed.with_attr(name)}
    assert values == set(ids)
    assert {a["data-parent"] for a in parsed.with_attr("data-parent")} == {ids[0], ids[1]}
    assert sorted(a["data-level"] or "" for a in parsed.with_attr("data-level")) == sorted([hostile, "1", hostile])
    assert {a["data-overlap"] for a in parsed.with_attr("data-overlap")} == {f"{ids[3]} {ids[4]}"}
    (noted,) = [a for a in parsed.with_attr("data-tokens")]
    assert noted["data-chunk-index"] == ids[3] and noted["data-tokens"] == hostile
    assert noted["data-flags"] == f"{hostile} mid_word" and noted["id"] == f"cv-{hostile}-{ids[3]}"


def test_lone_surrogates_are_drawn_as_replacement_characters_one_for_one() -> None:
    """Issue 36 item 3: a lone surrogate (not UTF-8) in the text, added text or a name is drawn as
    U+FFFD, one character for one: the page encodes as UTF-8 and every offset stays the text's."""
    text = "a\ud800b <c> & d\n\n\udfffe \ud83d\ude00 é."
    cut = text.index("\n\n") + 2
    chunks = [
        Chunk.from_span(text, 0, 0, cut, Reason.UNIT_END, boundary=Boundary.PARAGRAPH),
        Chunk.from_span(text, 1, cut, len(text), Reason.END_OF_DOCUMENT, added_text="x\udc80y"),
    ]
    shown = "a\ufffdb <c> & d\n\n\ufffde \ufffd\ufffd é."
    for drawn in (chunks, []):
        html = render_html(text, drawn, RenderOptions("col\ud800", tokenizer="t\udfff"))
        parsed = _Parsed(html.encode("utf-8").decode("utf-8"))
        assert "".join(parsed.text) == shown and len(shown) == len(text)
        assert parsed.tags[0][1]["data-strategy"] == "col\ufffd" and parsed.tags[0][1]["data-tokenizer"] == "t\ufffd"
    parsed = _Parsed(render_html(text, chunks, RenderOptions("s")))
    assert "".join(parsed.added) == "x\ufffdy"
    spans = [(a["data-start"], a["data-end"]) for a in parsed.with_attr("data-chunk-index")]
    assert spans == [("0", str(cut)), (str(cut), str(len(text)))]


# ---- legend


def test_legend_shows_only_the_marks_present() -> None:
    plain = legend_html({"chunk", "end"})
    assert "cv-k0" in plain and "cv-e" in plain
    for mark in ("cv-o", "cv-gap", "cv-add", "cv-p", "cv-midsent", "cv-midword"):
        assert mark not in plain
    full = legend_html().replace("&#x27;", "'")
    assert all(m in full for m in ("cv-o0", "cv-gap", "cv-add", "cv-p", "cv-midsent", "cv-midword"))
    assert "cut mid-sentence" in full and "cut mid-word" in full
    assert legend_html({"chunk", "end"}, hue=330).startswith('<div class="cv-legend" style="--h:330">')


def test_marks_present_reads_overlaps_flags_gaps_added_text_and_parents() -> None:
    assert marks_present(_chunks(), {}, []) == {"chunk", "end"}
    text, chunks, options = _flat_case()
    assert marks_present(chunks, options.annotations, options.content_gaps) == {"chunk", "end", "midsent", "gap"}
    text, chunks, options = _overlapping_case()
    assert marks_present(chunks, options.annotations, ()) == {"chunk", "end", "midword", "overlap"}
    text, chunks, options = _multilevel_case()
    assert marks_present(chunks, {}, ()) == {"chunk", "end", "added", "parent"}
    assert set(MARKS) >= marks_present(chunks, {}, ())


def test_old_colour_names_stay_importable() -> None:
    assert N_COLOURS == 3 and len(BAND_COLOURS) == 3 and all(re.fullmatch(r"#[0-9a-f]{6}", c) for c in BAND_COLOURS)
    assert RenderOptions("x").hue == COLUMN_HUES[0]


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
    return text, chunks, RenderOptions('s"<x>', tokenizer="words", annotations=notes, content_gaps=[(a, a + 9)], hue=55)


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
        Chunk.from_span(
            text, 4, 5, 23, Reason.PARENT_END, boundary=Boundary.LINE, parent=1, level=2, added_text="Ctx <h1> & "
        ),
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
    '<div class="cv-doc" data-strategy="s&quot;&lt;x&gt;" data-length="59" style="--h:55" data-tokenizer="words" dir="auto">'
    '<span id="cv-s&quot;&lt;x&gt;-0" class="cv-c cv-k0" data-chunk-index="0" data-start="0" data-end="35" data-reason="unit_end" data-boundary="paragraph" data-tokens="9" data-mtokens="11" data-flags="over_size_limit">'
    "Say &lt;script&gt;alert(1)&lt;/script&gt; &amp; go.</span>"
    '<i class="cv-e" data-end-of="0"></i>\n\n'
    '<span class="cv-gap" data-gap-start="37" data-gap-end="46" title="not in any chunk">Gap here.</span>\n\n'
    '<span id="cv-s&quot;&lt;x&gt;-1" class="cv-c cv-k1" data-chunk-index="1" data-start="48" data-end="59" data-reason="end_of_document" data-boundary="document_end" data-flags="tiny mid_sentence">'
    "Last &amp; end.</span>"
    '<i class="cv-e cv-midsent" data-end-of="1"></i></div>'
)

EXPECTED_OVERLAPPING = (
    '<div class="cv-doc" data-strategy="ov" data-length="10" style="--h:245" data-tokenizer="tokens" dir="auto">'
    '<span id="cv-ov-0" class="cv-c cv-k0" data-chunk-index="0" data-start="0" data-end="6" data-reason="size_limit" data-boundary="inside_word" data-tokens="2" data-flags="mid_word">abcd</span>'
    '<span class="cv-o cv-o0" data-overlap="0 1" data-start="4" data-end="5">e</span>'
    '<span class="cv-o cv-o0" data-overlap="0 1 2" data-start="5" data-end="6">f</span>'
    '<i class="cv-e cv-midword" data-end-of="0"></i>'
    '<span id="cv-ov-2" class="cv-c cv-k2" data-chunk-index="2" data-start="5" data-end="6" data-reason="size_limit" data-boundary="inside_word"></span>'
    '<i class="cv-e" data-end-of="2"></i>'
    '<span id="cv-ov-1" class="cv-c cv-k1 cv-sel" data-chunk-index="1" data-start="4" data-end="10" data-reason="end_of_document" data-boundary="document_end">ghij</span>'
    '<i class="cv-e" data-end-of="1"></i>'
    '<span id="cv-ov-3" class="cv-c cv-k0" data-chunk-index="3" data-start="10" data-end="10" data-reason="min_size" data-boundary="document_end"></span>'
    '<i class="cv-e" data-end-of="3"></i></div>'
)

EXPECTED_MULTILEVEL = (
    '<div class="cv-doc" data-strategy="tree" data-length="29" style="--h:245" data-tokenizer="tokens" dir="auto">'
    '<span id="cv-tree-0" class="cv-p cv-psel" data-chunk-index="0" data-parent-index="0" data-start="0" data-end="29" data-reason="end_of_document" data-boundary="document_end">'
    '<span id="cv-tree-1" class="cv-p cv-podd cv-psel" data-chunk-index="1" data-parent-index="1" data-start="0" data-end="23" data-level="1" data-reason="unit_end" data-boundary="line" data-parent="0">'
    '<span id="cv-tree-3" class="cv-c cv-k0" data-chunk-index="3" data-start="0" data-end="4" data-level="2" data-reason="unit_end" data-boundary="sentence" data-parent="1">One.</span>'
    '<i class="cv-e" data-end-of="3"></i> '
    '<ins class="cv-add" data-added-to="4" title="added by the strategy" dir="auto">Ctx &lt;h1&gt; &amp; </ins>'
    '<span id="cv-tree-4" class="cv-c cv-k1 cv-sel" data-chunk-index="4" data-start="5" data-end="23" data-level="2" data-reason="parent_end" data-boundary="line" data-parent="1">Two.\nThree &amp; four.</span>'
    '<i class="cv-e" data-end-of="4"></i></span>\n'
    '<span id="cv-tree-2" class="cv-p" data-chunk-index="2" data-parent-index="2" data-start="24" data-end="29" data-level="1" data-reason="parent_end" data-boundary="document_end" data-parent="0">'
    '<span id="cv-tree-5" class="cv-c cv-k2" data-chunk-index="5" data-start="24" data-end="29" data-level="2" data-reason="parent_end" data-boundary="document_end" data-parent="2">Five.</span>'
    '<i class="cv-e" data-end-of="5"></i></span></span></div>'
)

EXPECTED_CROSSING = (
    '<div class="cv-doc" data-strategy="x" data-length="20" style="--h:245" data-tokenizer="tokens" dir="auto">'
    '<span id="cv-x-0" class="cv-p" data-chunk-index="0" data-parent-index="0" data-start="0" data-end="10" data-reason="size_limit" data-boundary="word">'
    '<span id="cv-x-2" class="cv-c cv-k0" data-chunk-index="2" data-start="0" data-end="5" data-level="2" data-reason="unit_end" data-boundary="word" data-parent="0">01234</span>'
    '<i class="cv-e" data-end-of="2"></i>'
    '<span id="cv-x-1" class="cv-p cv-podd cv-psel" data-chunk-index="1" data-parent-index="1" data-start="5" data-end="15" data-level="1" data-reason="size_limit" data-boundary="word">'
    '<span id="cv-x-3" class="cv-c cv-k1" data-chunk-index="3" data-start="5" data-end="12" data-level="2" data-reason="unit_end" data-boundary="word" data-parent="1">56789</span></span></span>'
    '<span class="cv-p cv-podd cv-psel" data-continues="1">'
    '<span class="cv-c cv-k1" data-continues="3">ab</span>'
    '<i class="cv-e" data-end-of="3"></i>'
    '<span id="cv-x-4" class="cv-c cv-k2" data-chunk-index="4" data-start="12" data-end="15" data-level="2" data-reason="parent_end" data-boundary="word" data-parent="1">cde</span>'
    '<i class="cv-e" data-end-of="4"></i></span>fghij</div>'
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
def test_exact_html(case: Callable[[], tuple[str, list[Chunk], RenderOptions]], expected: str) -> None:
    assert render_html(*case()) == expected


def test_exact_html_without_chunks() -> None:
    assert render_html("a<&>", [], RenderOptions('e"', hue=150)) == (
        '<div class="cv-doc" data-strategy="e&quot;" data-length="4" style="--h:150" data-tokenizer="tokens" dir="auto">a&lt;&amp;&gt;</div>'
    )


ARABIC = "تقع القاهرة على ضفاف نهر النيل. هل زرت الأهرامات من قبل؟\n\nنعم، زرتها في الصيف الماضي!"


def test_text_blocks_read_their_direction_and_added_text_is_isolated() -> None:
    """Issue 37: each line of a column takes the direction of its first letter (an Arabic line
    reads right to left), the root says dir="auto", and text a strategy adds (an English prefix)
    is isolated, so it neither turns the line's direction nor reorders the letters around it."""
    chunks = [
        Chunk.from_span(ARABIC, 0, 0, 31, Reason.UNIT_END, boundary=Boundary.SENTENCE, added_text="Document: x\n"),
        Chunk.from_span(ARABIC, 1, 31, len(ARABIC), Reason.END_OF_DOCUMENT, boundary=Boundary.DOCUMENT_END),
    ]
    html = render_html(ARABIC, chunks, RenderOptions(strategy="s"))
    assert re.match(r'<div class="cv-doc" [^>]* dir="auto">', html)
    assert '<ins class="cv-add" data-added-to="0" title="added by the strategy" dir="auto">Document: x\n</ins>' in html
    rules = stylesheet_rules()
    assert re.search(r"\.cv-doc\{[^}]*unicode-bidi:plaintext", rules) and re.search(
        r"\.cv-add\{unicode-bidi:isolate", rules
    )
