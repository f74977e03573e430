"""The document view's pure parts: ribbon cuts, the component payload, escaping rules."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from chunkviz.core.types import Chunk
from chunkviz.core.vocabulary import BOUNDARY_LABELS, FLAG_LABELS, REASON_LABELS, Reason
from chunkviz.ui import component, docview
from chunkviz.ui.docview import (
    AnswerSelection,
    ColumnView,
    DocViewEvent,
    Hit,
    answer_from_state,
    event_from_state,
    ribbon_cuts,
    view_payload,
)
from chunkviz.views.page import DOCVIEW_FILES, docview_js

TEXT = "alpha beta. gamma delta. epsilon"


def _chunk(i: int, start: int, end: int, reason: Reason, parent: int | None = None, level: int = 0) -> Chunk:
    return Chunk(i, start, end, TEXT[start:end], reason, parent=parent, level=level)


def _column(label: str = "col0", html: str = '<div class="cv-doc"></div>', **kw) -> ColumnView:
    values = {
        "hue": 210,
        "summary": "3 chunks",
        "cuts": [(11, "size_limit"), (32, "end_of_document")],
        "selected": None,
    }
    values.update(kw)
    return ColumnView(label, html, **values)


def test_ribbon_cuts_are_leaf_chunk_ends_with_reasons() -> None:
    chunks = [
        _chunk(0, 0, 11, Reason.SIZE_LIMIT),
        _chunk(1, 6, 24, Reason.UNIT_END),  # overlaps chunk 0
        _chunk(2, 18, 32, Reason.END_OF_DOCUMENT),
    ]
    assert ribbon_cuts(chunks) == [(11, "size_limit"), (24, "unit_end"), (32, "end_of_document")]


def test_ribbon_cuts_skip_parents_and_sort_by_end() -> None:
    chunks = [
        _chunk(0, 0, 32, Reason.END_OF_DOCUMENT, level=0),  # parent of 1 and 2
        _chunk(2, 12, 32, Reason.PARENT_END, parent=0, level=1),
        _chunk(1, 0, 12, Reason.SIZE_LIMIT, parent=0, level=1),
    ]
    assert ribbon_cuts(chunks) == [(12, "size_limit"), (32, "parent_end")]
    assert ribbon_cuts([]) == []


def test_payload_shape() -> None:
    columns = [_column("col0", selected=4), _column("col1", hue=25, summary="2 flagged")]
    payload = view_payload(columns, length=32, sync=False, height_px=400, legend="<div class='cv-legend'></div>")
    assert set(payload) == {
        "length",
        "sync",
        "height",
        "legend",
        "labels",
        "reason_colours",
        "columns",
        "references",
        "answer_selection",
        "first_paint",
    }
    assert payload["references"] == [] and payload["answer_selection"] is False and payload["first_paint"] is False
    assert view_payload(columns, length=32, first_paint=True)["first_paint"] is True
    assert (payload["length"], payload["sync"], payload["height"]) == (32, False, 400)
    assert [c["label"] for c in payload["columns"]] == ["col0", "col1"]
    first = payload["columns"][0]
    assert set(first) == {
        "label",
        "id",
        "root",
        "pages",
        "page_html",
        "tags",
        "colour",
        "hue",
        "summary",
        "cuts",
        "selected",
        "hits",
    }
    assert first["hits"] == []
    assert first["cuts"] == [[11, "size_limit"], [32, "end_of_document"]]
    assert first["selected"] == 4 and payload["columns"][1]["selected"] is None
    assert first["colour"] != payload["columns"][1]["colour"]
    assert payload["labels"]["reasons"] == {r.value: label for r, label in REASON_LABELS.items()}
    assert payload["labels"]["boundaries"] == {b.value: label for b, label in BOUNDARY_LABELS.items()}
    assert payload["labels"]["flags"] == {f.value: label for f, label in FLAG_LABELS.items()}
    assert set(payload["reason_colours"]) >= {r.value for r in Reason}
    json.dumps(payload)  # JSON-ready


def test_html_passes_through_and_text_fields_are_not_escaped_twice() -> None:
    """The HTML is render.py's (already escaped) and goes as is; labels and summary are plain
    text that the browser sets with textContent, so they are sent unescaped."""
    html = '<div class="cv-doc" data-strategy="col0">&lt;script&gt;x&lt;/script&gt; &amp; more</div>'
    hostile = '<img src=x onerror="alert(1)"> & co'
    payload = view_payload([_column(hostile, html, summary=hostile)], length=32)
    column = payload["columns"][0]
    assert column["pages"] == [
        [0, 25, 0]
    ]  # one page (25 characters of text): root + page + </div> is the HTML as rendered
    assert column["root"] + column["page_html"][0][1] + "</div>" == html and column["page_html"][0][0] == 0
    assert column["label"] == hostile and column["summary"] == hostile


def test_the_view_script_is_files_under_500_lines_joined_in_one_payload() -> None:
    """docview.js's one class is a chain of classes, a file each (the base first, the entry last): the
    app's component, the report and the notebook all get the files joined in that one order."""
    ui = Path(docview.__file__).parent
    assert sorted(DOCVIEW_FILES) == sorted(path.name for path in ui.glob("docview*.js"))
    texts = [(ui / name).read_text(encoding="utf-8") for name in DOCVIEW_FILES]
    assert max(text.count("\n") for text in texts) <= 500
    assert DOCVIEW_FILES[-1] == "docview.js" and "export default" in texts[-1]
    assert not [name for name, text in zip(DOCVIEW_FILES[:-1], texts) if re.search(r"^(import|export) ", text, re.M)]
    classes = [re.findall(r"^class (\w+)(?: extends (\w+))? \{", text, re.M) for text in texts[:-1]]
    assert [c for (c,) in classes] == [
        ("DocViewBase", ""),
        ("DocViewPaging", "DocViewBase"),
        ("DocViewScroll", "DocViewPaging"),
        ("DocViewHits", "DocViewScroll"),
        ("DocView", "DocViewHits"),
    ]
    assert docview_js() == "\n".join(texts) == component.component_js("docview")
    assert max(path.read_text(encoding="utf-8").count("\n") for path in ui.glob("*.js")) <= 600


def test_js_sets_inner_html_only_from_render_output() -> None:
    js = docview_js()
    assignments = re.findall(r"(\S+)\.innerHTML\s*=\s*([^;]+);", js)
    # a one-page column whole, or one page of a long column (chunkviz/paging.py: pieces of the same HTML)
    assert sorted(target for target, _ in assignments) == ["col.box", "page.node", "this.legend"], assignments
    assert all(value.strip() in {"html", 'data.legend || ""'} for _, value in assignments), assignments
    assert "title" not in re.findall(r"setAttribute\(\"(\w+)\"", js)
    assert "insertAdjacentHTML" not in js and "outerHTML" not in js


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"length": -1}, "length"),
        ({"length": 32, "height_px": 10}, "height_px"),
        ({"length": 5}, "outside the document"),
    ],
)
def test_payload_rejects_bad_input_with_a_reason(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        view_payload([_column()], **kwargs)


def test_component_css_includes_the_render_stylesheet() -> None:
    css = docview.component_css()
    assert ".cv-doc{" in css and ".cvd-box" in css and "<style>" not in css


def test_event_from_state() -> None:
    assert event_from_state(None) is None
    assert event_from_state({"selection": None}) is None
    assert event_from_state({"selection": {"column": 1}}) is None
    assert event_from_state({"selection": {"column": 1, "index": 7, "nonce": 99}}) == DocViewEvent(1, 7, 99)


# ----------------------------------------------------------------------------- retrieval overlay

OVERLAY_HTML = (
    '<div class="cv-doc"><span class="cv-p" data-chunk-index="0" data-parent-index="0" data-start="0" data-end="32">'
    '<span class="cv-c" data-chunk-index="1" data-start="0" data-end="11" data-parent="0">alpha beta.</span>'
    '<span class="cv-c" data-chunk-index="2" data-start="11" data-end="32" data-parent="0"> gamma delta. epsilon</span>'
    "</span></div>"
)


def test_hits_and_references_go_to_the_payload_sorted_by_rank() -> None:
    hits = (Hit(2, 2, 0.41), Hit(0, 1, 0.625, matched=1), Hit(1, 3, 0.3, matched=1))
    payload = view_payload(
        [_column(html=OVERLAY_HTML, hits=hits)], length=32, references=[(12, 17), (0, 5)], answer_selection=True
    )
    assert payload["columns"][0]["hits"] == [
        {"index": 0, "rank": 1, "score": 0.625, "matched": 1},
        {"index": 2, "rank": 2, "score": 0.41, "matched": None},
        {"index": 1, "rank": 3, "score": 0.3, "matched": None},  # matched == index: the chunk itself
    ]
    assert payload["references"] == [[0, 5], [12, 17]]
    assert payload["answer_selection"] is True
    json.dumps(payload)


def test_existing_callers_get_an_unchanged_payload_without_hits() -> None:
    """ColumnView's positional fields are as before; no hits and no references add nothing to draw."""
    view = ColumnView("col0", OVERLAY_HTML, 210, "s", [(11, "size_limit")], 1)
    column = view_payload([view], length=32)["columns"][0]
    assert column["selected"] == 1 and column["hits"] == []


@pytest.mark.parametrize(
    "hits, references, message",
    [
        ((Hit(1, 0, 0.5),), (), "rank 0 must be 1 or more"),
        ((Hit(1, 1, 0.5), Hit(2, 1, 0.4)), (), "rank 1 must be 1 or more .*not repeat"),
        ((Hit(1, 1, 0.5), Hit(1, 2, 0.4)), (), "listed twice"),
        ((Hit(7, 1, 0.5),), (), "chunk 7 is not in this column"),
        ((Hit(0, 1, 0.5, matched=9),), (), "chunk 9 is not in this column"),
        ((Hit(1, 1, float("nan")),), (), "finite"),
        ((), [(5, 5)], r"reference span 5\.\.5 does not lie inside"),
        ((), [(-1, 4)], "does not lie inside"),
        ((), [(30, 33)], r"0 <= start < end <= 32"),
    ],
)
def test_overlay_rejects_bad_input_with_a_reason(hits: tuple, references: list, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        view_payload([_column(html=OVERLAY_HTML, hits=hits)], length=32, references=references)


def test_answer_from_state() -> None:
    assert answer_from_state(None) is None
    assert answer_from_state({"answer": None}) is None
    assert answer_from_state({"answer": {"start": 4}}) is None
    assert answer_from_state({"answer": {"start": 9, "end": 4, "nonce": 1}}) is None  # empty or reversed
    assert answer_from_state({"answer": {"start": "x", "end": 4}}) is None
    assert answer_from_state({"answer": {"start": 4, "end": 9, "nonce": 3}}) == AnswerSelection(4, 9, 3)
    assert answer_from_state(
        {"selection": {"column": 0, "index": 1}, "answer": {"start": 0, "end": 2}}
    ) == AnswerSelection(0, 2, 0)


def test_js_draws_badges_without_touching_the_document_text() -> None:
    """The rank badge is a CSS ::before over a data attribute (not text in the DOM, so document
    offsets and copied text stay the document's), and the expected answer is a CSS highlight."""
    js = docview_js()
    css = docview.component_css()
    assert 'setAttribute("data-cvd-badge"' in js and "content: attr(data-cvd-badge)" in css
    assert "CSS.highlights" in js and "::highlight(cvd-ref)" in css


def test_markdown_literal_shows_untrusted_text_as_written() -> None:
    from chunkviz.ui import markdown_literal

    shown = markdown_literal("a **b** [x](javascript:alert(1))\n<img src=x> `c`")
    assert shown == "a \\*\\*b\\*\\* \\[x\\]\\(javascript\\:alert\\(1\\)\\) \\<img src=x\\> \\`c\\`"
    assert markdown_literal("plain words") == "plain words"


# ----------------------------------------------------------------------------- pages sent: bounded by the window

PAGE_TEXT = "".join(f"Line {i} of a long document, with a few words on it.\n" for i in range(100_000))  # ~5 MB


def long_column(text: str, size: int = 1000, **kw) -> ColumnView:
    """A column of ``size``-character chunks over ``text`` (built by arithmetic: no tokenizer), rendered."""
    from chunkviz.drawing.render import RenderOptions, render_html

    chunks = [
        Chunk(i, a, min(a + size, len(text)), text[a : a + size], Reason.SIZE_LIMIT)
        for i, a in enumerate(range(0, len(text), size))
    ]
    html = render_html(text, chunks, RenderOptions("col0", "chars"))
    return ColumnView("col0", html, 210, f"{len(chunks)} chunks", ribbon_cuts(chunks), **kw)


@pytest.fixture(scope="module")
def five_mb() -> ColumnView:
    return long_column(PAGE_TEXT)


def _bytes_without_cuts(column: dict) -> int:
    return len(json.dumps({k: v for k, v in column.items() if k != "cuts"}).encode("utf-8"))


def test_a_long_columns_payload_is_bounded_by_the_window_not_the_document(five_mb: ColumnView) -> None:
    """A 5 MB column sends its page table and the pages near the window: under 300 kB besides the
    ribbon's cuts (one pair per chunk, sent whole), as at a tenth of the size."""
    assert len(PAGE_TEXT) > 5_000_000 and len(five_mb.html) > 6_000_000
    small_text = PAGE_TEXT[:500_000]
    for text, view in ((PAGE_TEXT, five_mb), (small_text, long_column(small_text))):
        for window in ((0, 1), (len(text) // 2, len(text) // 2 + 3000), (len(text) - 10, len(text))):
            column = view_payload([view], length=len(text), windows=[window])["columns"][0]
            assert _bytes_without_cuts(column) < 300_000, (len(text), window)
            assert 2 <= len(column["page_html"]) <= 4, [k for k, _ in column["page_html"]]
    assert len(json.dumps(view_payload([five_mb], length=len(PAGE_TEXT))).encode()) < len(five_mb.html) / 20


def test_window_requests_select_the_pages_they_overlap_plus_one_either_side(five_mb: ColumnView) -> None:
    length = len(PAGE_TEXT)
    column = view_payload([five_mb], length=length)["columns"][0]
    table = column["pages"]
    assert table[0][0] == 0 and table[-1][1] == length and all(a[1] == b[0] for a, b in zip(table, table[1:]))
    assert [k for k, _ in column["page_html"]] == [0, 1]  # before any request: the document's start
    middle = table[100][0] + 10
    sent = view_payload([five_mb], length=length, windows=[(middle, middle + 100)])["columns"][0]["page_html"]
    assert [k for k, _ in sent] == [99, 100, 101]
    across = view_payload([five_mb], length=length, windows=[(table[40][1] - 5, table[41][0] + 5)])["columns"][0]
    assert [k for k, _ in across["page_html"]] == [39, 40, 41, 42]
    end = view_payload([five_mb], length=length, windows=[(length - 1, length)])["columns"][0]["page_html"]
    assert [k for k, _ in end] == [len(table) - 2, len(table) - 1]
    huge = view_payload([five_mb], length=length, windows=[(0, length)])["columns"][0]["page_html"]
    assert len(huge) == docview.MAX_WINDOW_PAGES  # a window of the whole document is not the whole document
    # the pages sent are the pages of the cut, as they are
    _, pages = docview.column_pages(five_mb.html)
    assert all(html == pages.pages[k].html for k, html in sent)


def test_the_selected_chunk_and_the_hits_pages_come_along_with_their_facts(five_mb: ColumnView) -> None:
    length = len(PAGE_TEXT)
    n = len(five_mb.cuts)
    view = ColumnView(*[getattr(five_mb, f) for f in ("label", "html", "hue", "summary", "cuts")],
                      selected=n - 2, hits=(Hit(n // 2, 1, 0.5), Hit(7, 2, 0.4)))  # fmt: skip
    column = view_payload([view], length=length)["columns"][0]
    _, pages = docview.column_pages(view.html)
    expected = {0, 1, pages.chunk_page[n - 2], pages.chunk_page[n // 2], pages.chunk_page[7]}
    assert {k for k, _ in column["page_html"]} == expected
    tags = dict(column["tags"])
    assert {n - 2, n // 2, 7} <= set(tags)
    assert f'data-chunk-index="{n - 2}"' in tags[n - 2] and tags[n - 2].startswith("<span")
    # a page that starts inside a chunk carries that chunk's facts (its tooltip on a continuation)
    continued = {i for k, _ in column["page_html"] for i in pages.pages[k].continued}
    assert continued and continued <= set(tags)


def test_parents_of_the_selected_chunk_come_with_its_facts() -> None:
    text = "a" * 50 + "\n" + "b" * 50 + "\n"
    chunks = [
        Chunk(0, 0, 102, text, Reason.END_OF_DOCUMENT),
        Chunk(1, 0, 51, text[:51], Reason.SIZE_LIMIT, parent=0, level=1),
        Chunk(2, 51, 102, text[51:], Reason.PARENT_END, parent=0, level=1),
    ]
    from chunkviz.drawing.render import RenderOptions, render_html

    view = ColumnView(
        "col0", render_html(text, chunks, RenderOptions("col0", "chars")), 210, "", ribbon_cuts(chunks), 2
    )
    assert [i for i, _ in view_payload([view], length=len(text))["columns"][0]["tags"]] == [0, 2]


def test_windows_from_state() -> None:
    from chunkviz.ui.docview import FIRST_WINDOW, windows_from_state

    assert windows_from_state(None, 2) == [FIRST_WINDOW] * 2
    assert windows_from_state({"window": {"spans": [[10, 20]], "nonce": 1}}, 2) == [(10, 20), FIRST_WINDOW]
    assert windows_from_state({"window": {"spans": [[20, 10], "x", [5, 9]]}}, 3) == [FIRST_WINDOW, FIRST_WINDOW, (5, 9)]
    assert windows_from_state({"window": "junk"}, 1) == [FIRST_WINDOW]


def test_pages_are_cut_once_per_column_html(five_mb: ColumnView) -> None:
    first = docview.column_pages(five_mb.html)
    assert docview.column_pages(five_mb.html) is first
    assert docview.cached_column_html(first[0]) == five_mb.html
    assert docview.cached_column_html("no such id") is None
