"""chunkviz.drawing.paging: a rendered column cut into pages at line ends, exactly (text, offsets, elements)."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.texts import any_text, examples

import chunkviz
from chunkviz.drawing.paging import BARE_ROOT, Page, continuation, cut_pages, doc_chars, safe_cut
from chunkviz.drawing.render import RenderOptions, render_html

ROOT = '<div class="cv-doc" data-strategy="x" data-length="9" style="--h:210" data-tokenizer="chars">'
BAND = '<span id="cv-x-0" class="cv-c cv-k0" data-chunk-index="0" data-start="0" data-end="9">'


class PageReader(HTMLParser):
    """A page's document text (outside ``<ins>`` added text, references unescaped) and whether its
    elements are balanced (every element opened in the page is closed in it, none closed unopened)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.stack: list[str] = []
        self.balanced = True

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack.pop() != tag:
            self.balanced = False

    def handle_data(self, data: str) -> None:
        if "ins" not in self.stack:
            self.text.append(data)


def read(page_html: str) -> tuple[str, bool]:
    reader = PageReader()
    reader.feed(page_html)
    reader.close()
    return "".join(reader.text), reader.balanced and not reader.stack


# ----------------------------------------------------------------------------- exact outputs


def test_a_band_cut_at_a_line_end_is_closed_and_continued() -> None:
    html = ROOT + BAND + "ab\ncd\nef\n</span></div>"
    pages = cut_pages(html, page_chars=3)
    assert pages.root == ROOT
    assert pages.pages == (
        Page(0, 6, 2, BAND + "ab\ncd\n</span>", ()),
        Page(6, 9, 1, '<span class="cv-c cv-k0" data-continues="0">ef\n</span>', (0,)),
    )
    assert pages.chunk_page == {0: 0}
    assert pages.tag(0) == BAND and pages.parent_of(0) is None


def test_references_and_added_text_count_as_the_document_does() -> None:
    """``&amp;`` is one character of the document; ``<ins>`` added text is none of it."""
    html = ROOT + '<ins class="cv-add" data-added-to="0">head\n\n\n</ins>' + BAND + "a&amp;b\nc&lt;d\n</span></div>"
    pages = cut_pages(html, page_chars=2)
    assert [(p.start, p.end) for p in pages.pages] == [(0, 4), (4, 8)]
    assert pages.pages[0].html == '<ins class="cv-add" data-added-to="0">head\n\n\n</ins>' + BAND + "a&amp;b\n</span>"
    assert [read(p.html)[0] for p in pages.pages] == ["a&b\n", "c<d\n"]


def test_a_line_without_line_end_is_cut_mid_line_after_a_space_never_inside_a_reference() -> None:
    assert safe_cut("aaaa bbbb", 2) == 5  # after the next space
    assert safe_cut("aa&amp;bb", 4) == 7  # not inside &amp;
    assert safe_cut("ab\r\ncd", 3) == 4  # not between CR and LF
    assert safe_cut("ab\ncd ef", 1) == 1  # not past a line end to reach a space
    html = ROOT + BAND + "x" * 10 + "</span></div>"
    pages = cut_pages(html, page_chars=3)
    assert [(p.start, p.end) for p in pages.pages] == [(0, 6), (6, 10)]  # at twice the page size


def test_parents_are_continued_and_their_chunks_listed() -> None:
    parent = '<span id="cv-x-0" class="cv-p" data-chunk-index="0" data-parent-index="0" data-start="0" data-end="8">'
    child = '<span id="cv-x-1" class="cv-c cv-k0" data-chunk-index="1" data-start="0" data-end="8" data-parent="0">'
    html = ROOT + parent + child + "ab\ncd\nef</span></span></div>"
    pages = cut_pages(html, page_chars=2)
    assert [p.html for p in pages.pages] == [
        parent + child + "ab\n</span></span>",
        '<span class="cv-p" data-continues="0"><span class="cv-c cv-k0" data-continues="1">cd\n</span></span>',
        '<span class="cv-p" data-continues="0"><span class="cv-c cv-k0" data-continues="1">ef</span></span>',
    ]
    assert [p.continued for p in pages.pages] == [(), (0, 1), (0, 1)]
    assert pages.parent_of(1) == 0 and pages.chunk_page == {0: 0, 1: 0}


def test_a_short_column_is_one_page_of_its_whole_body() -> None:
    html = ROOT + BAND + "ab\ncd\nef\n</span></div>"
    (page,) = cut_pages(html).pages
    assert ROOT + page.html + "</div>" == html and (page.start, page.end) == (0, 9)


def test_window_pages_overlap_the_span_plus_a_margin_and_are_bounded() -> None:
    pages = cut_pages(ROOT + "".join(f"line {i:03}\n" for i in range(100)) + "</div>", page_chars=9)
    assert len(pages.pages) == 50 and pages.pages[1].start == 18
    assert list(pages.window(0, 1)) == [0, 1]
    assert list(pages.window(40, 50, margin=1)) == [1, 2, 3]
    assert list(pages.window(40, 50, margin=0)) == [2]
    assert list(pages.window(10**9, 10**9 + 5)) == [48, 49]  # past the end: the last pages
    assert list(pages.window(0, 10**9, most=4)) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="at least one page"):
        pages.window(0, 1, most=0)


def test_helpers_and_bad_input() -> None:
    assert doc_chars("a&amp;&lt;&gt;&quot;&#x27;b") == 7
    assert continuation('<span class="cv-o cv-o1" data-overlap="1 2" data-start="3">') == (
        '<span class="cv-o cv-o1" data-overlap="1 2" data-start="3">'
    )
    assert continuation(BAND) == '<span class="cv-c cv-k0" data-continues="0">'
    fragment = cut_pages('<span data-chunk-index="0">a&amp;b</span>')  # no root: drawn inside a bare one
    assert fragment.root == BARE_ROOT and [(p.start, p.end) for p in fragment.pages] == [(0, 3)]
    with pytest.raises(ValueError, match="page_chars"):
        cut_pages(ROOT + "</div>", page_chars=0)


# ----------------------------------------------------------------------------- properties

STRATEGIES = [
    ("fixed_tokens", {"chunk_size": 8, "overlap": 3}),
    ("recursive", {"chunk_size": 12, "overlap": 0}),
    ("parent_child", {"parent_size": 30, "child_size": 8, "child_overlap": 2}),
]


@settings(max_examples=examples(150), deadline=None)
@given(text=any_text(), which=st.sampled_from(range(len(STRATEGIES))), page_chars=st.integers(1, 40))
def test_pages_of_a_rendered_chunking_are_the_text_exactly(text: str, which: int, page_chars: int) -> None:
    strategy, params = STRATEGIES[which]
    chunks = chunkviz.chunk(text, strategy, tokenizer="chars", **params)
    html = render_html(text, chunks, RenderOptions("x", "chars"))
    column = cut_pages(html, page_chars)
    pages = column.pages
    assert pages[0].start == 0 and pages[-1].end == len(text)
    assert all(a.end == b.start for a, b in zip(pages, pages[1:])), "contiguous"
    for k, page in enumerate(pages):
        shown, balanced = read(page.html)
        assert shown == text[page.start : page.end], (k, page)
        assert balanced, (k, page.html)
        if k < len(pages) - 1:
            assert page.end > page.start
            # a cut falls right after a line end unless the page had none past its first page_chars
            assert text[page.end - 1] == "\n" or "\n" not in text[page.start + page_chars : page.end], (k, page)
    for mark in (" data-chunk-index=", " data-end-of=", " data-added-to=", " data-overlap=", "<i ", "<ins "):
        own = sum(p.html.count(mark) for p in pages)
        assert own == html.count(mark) or (mark == " data-overlap=" and own >= html.count(mark)), mark  # none lost
    for index, k in column.chunk_page.items():
        assert f' data-chunk-index="{index}"' in pages[k].html
        assert column.tag(index).startswith("<span") and f'data-chunk-index="{index}"' in column.tag(index)
    assert {c.index for c in chunks} == set(column.chunk_page)
    if len(pages) == 1:
        assert column.root + pages[0].html + "</div>" == html
