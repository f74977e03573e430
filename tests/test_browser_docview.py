"""The document view component in a real browser: tests/apps/docview_demo.py served by Streamlit.

Same pattern as tests/test_browser.py: a module fixture runs ``streamlit run`` on a free port,
Playwright drives Debian's Chromium (``/usr/bin/chromium``, never ``playwright install``); skipped
with the reason when Chromium or playwright is missing. Screenshots go to ``test-output/``.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.browser import ROOT_JS, animation_frames, box_rect, chunk_rect, js, open_page, streamlit_server, wait_for

from chunkviz.core.vocabulary import REASON_LABELS, Reason

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parent.parent
APP = "tests/apps/docview_demo.py"
OUTPUT = REPO / "test-output"
TIMEOUT_S = 90


@pytest.fixture(scope="module")
def server(sync_api, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The demo app served by ``streamlit run`` on a free port; yields its URL."""
    with streamlit_server(APP, tmp_path_factory.mktemp("streamlit")) as url:
        yield url


def _open(browser: Any, url: str) -> Any:
    page = open_page(browser, url)
    page.wait_for_selector(".cvd-box [data-chunk-index]")
    wait_for(lambda: page.evaluate(f"() => {ROOT_JS}.__cvd.columns.length") == 3, "three columns")
    return page


@pytest.fixture
def page(browser, server: str) -> Iterator[Any]:
    page = _open(browser, server)
    yield page
    assert page.page_errors == []
    page.close()


# ----------------------------------------------------------------------------- helpers


def shot(page: Any, name: str) -> Path:
    OUTPUT.mkdir(exist_ok=True)
    path = OUTPUT / name
    page.screenshot(path=str(path))
    return path


def chunks(page: Any, column: int) -> list[dict[str, Any]]:
    return js(
        page,
        "return [...root.querySelectorAll('.cvd-box')[arg].querySelectorAll('.cv-c[data-chunk-index]')]"
        ".map(e => ({index: +e.dataset.chunkIndex, start: +e.dataset.start, end: +e.dataset.end, reason: e.dataset.reason}));",
        column,
    )


def visible_chunks(page: Any, column: int) -> list[int]:
    """Indexes of the chunks whose first line shows inside the box."""
    box = box_rect(page, column)
    return [c["index"] for c in chunks(page, column)
            if box["top"] <= chunk_rect(page, column, c["index"])["top"] < box["bottom"] - 20]  # fmt: skip


def top_offset(page: Any, column: int) -> int:
    return int(
        js(page, "return root.__cvd.offsetAt(root.__cvd.columns[arg], root.__cvd.columns[arg].box.scrollTop);", column)
    )


def top_bracket(page: Any, column: int) -> tuple[int, int]:
    """Read from the DOM alone: the start offset of the last chunk element (band or overlap) that
    begins at or above the box's top edge, and of the first one that begins below it."""
    return tuple(js(
        page,
        "const box = root.querySelectorAll('.cvd-box')[arg]; const top = box.getBoundingClientRect().top + 4;"
        "let before = 0, after = root.__cvd.data.length;"
        "for (const e of box.querySelectorAll('.cv-c[data-start], .cv-o')) {"
        "  const rs = e.getClientRects(); if (!rs.length) continue;"
        "  if (rs[0].top <= top) before = +e.dataset.start; else { after = +e.dataset.start; break; } }"
        "return [before, after];",
        column,
    ))  # fmt: skip


def scroll_tops(page: Any) -> list[int]:
    return js(page, "return [...root.querySelectorAll('.cvd-box')].map(b => Math.round(b.scrollTop));")


def script_runs(page: Any) -> int:
    """How many times the demo app's script has run (it writes ``script runs: N`` last)."""
    text = page.get_by_text(re.compile(r"^script runs: \d+$")).inner_text()
    return int(text.split(":")[1])


def scroll_box(page: Any, column: int, top: int) -> None:
    js(page, "root.querySelectorAll('.cvd-box')[arg[0]].scrollTop = arg[1];", [column, top])


# ----------------------------------------------------------------------------- tests


def test_hover_shows_a_styled_tooltip_and_outlines_the_whole_extent(page: Any) -> None:
    bands = chunks(page, 0)
    overlapped = next(
        c
        for c in bands
        if c["index"] > 0
        and js(
            page,
            "return root.querySelectorAll('.cvd-box')[0].querySelectorAll(`[data-overlap~=\"${arg}\"]`).length;",
            c["index"],
        )
    )
    index = overlapped["index"]
    rect = chunk_rect(page, 0, index)
    page.mouse.move(rect["left"] + 4, (rect["top"] + rect["bottom"]) / 2)
    tip = page.locator(".cvd-tip")
    wait_for(lambda: tip.is_visible(), "the tooltip")
    text = tip.inner_text()
    reason = REASON_LABELS[Reason(overlapped["reason"])]
    assert f"Chunk {index}" in text
    assert f"{overlapped['start']:,}\u2013{overlapped['end']:,}" in text
    assert f"characters: {overlapped['end'] - overlapped['start']:,}" in text
    assert "tokens:" in text and reason in text and "cut falls at:" in text
    assert "_" not in text  # plain words, no internal names
    outlined = js(
        page,
        "return [...root.querySelectorAll('.cvd-hl')].map(e => e.dataset.overlap ?? e.dataset.chunkIndex ?? e.dataset.continues);",
    )
    assert str(index) in outlined and any(o and " " in o for o in outlined), outlined  # its overlap regions too
    assert js(page, "return root.querySelectorAll('.cvd-box [title]').length;") == 0, "no browser title tooltips"
    path = shot(page, "docview_hover.png")
    print(f"screenshot: {path}")


def test_click_selects_and_python_gets_it(page: Any) -> None:
    index = visible_chunks(page, 1)[1]
    rect = chunk_rect(page, 1, index)
    page.mouse.click(rect["left"] + 4, (rect["top"] + rect["bottom"]) / 2)
    page.get_by_text(f"selected: column 1 chunk {index}").wait_for()
    selected = js(page, "return [...root.querySelectorAll('.cvd-box')[1].querySelectorAll('.cvd-sel')]"
                        ".map(e => e.dataset.chunkIndex ?? e.dataset.continues ?? e.dataset.overlap);")  # fmt: skip
    assert str(index) in selected
    assert scroll_tops(page) == [0, 0, 0]  # Python's echo of the click scrolls nothing
    shot(page, "docview_click.png")


def test_selection_from_python_scrolls_inside_its_box(page: Any) -> None:
    target = chunks(page, 2)[-4]["index"]
    assert chunk_rect(page, 2, target)["top"] > box_rect(page, 2)["bottom"]  # starts out of view
    page.get_by_label("select from Python (column:index)").fill(f"2:{target}")
    page.keyboard.press("Enter")

    def inside() -> bool:
        box, rect = box_rect(page, 2), chunk_rect(page, 2, target)
        return box["top"] <= rect["top"] and rect["bottom"] <= box["bottom"]

    page_top = box_rect(page, 2)["top"]
    wait_for(inside, "the selected chunk to scroll into its box")
    assert box_rect(page, 2)["top"] == page_top  # the box scrolled, not the page
    assert js(page, "return root.querySelectorAll('.cvd-box')[2].querySelectorAll('.cvd-sel').length;") >= 1
    shot(page, "docview_python_selection.png")


def test_scroll_sync_by_character_offset_and_its_toggle(page: Any) -> None:
    scroll_box(page, 0, 2500)
    wait_for(lambda: abs(top_offset(page, 1) - top_offset(page, 0)) < 120, "column 1 to follow column 0")
    wait_for(lambda: abs(top_offset(page, 2) - top_offset(page, 0)) < 120, "column 2 to follow column 0")
    offset = top_offset(page, 0)
    assert offset > 2000
    for column in (0, 1, 2):  # checked independently in the DOM: the chunk at the top edge holds that offset
        before, after = top_bracket(page, column)
        assert before - 120 <= offset <= after + 120, (column, before, after, offset)
    shot(page, "docview_sync.png")

    tops = scroll_tops(page)
    page.get_by_label("select from Python (column:index)").fill("no selection, just a rerun")
    runs = script_runs(page)
    page.keyboard.press("Enter")
    wait_for(lambda: script_runs(page) > runs, "the rerun")
    wait_for(lambda: page.locator('[data-testid="stStatusWidget"]').count() == 0, "the rerun to finish")
    assert scroll_tops(page) == tops  # same HTML: the DOM and its scroll positions are kept

    page.locator(".cvd-sync input").uncheck()
    before = top_offset(page, 1)
    scroll_box(page, 0, 200)
    wait_for(lambda: top_offset(page, 0) < offset, "column 0 to scroll")
    animation_frames(page)  # a sync would run in the frame after the scroll event
    assert abs(top_offset(page, 1) - before) < 5


def test_ribbon_ticks_match_chunk_ends_and_a_click_scrolls_every_column(page: Any) -> None:
    length = js(page, "return root.__cvd.data.length;")
    for column in range(3):
        ends = sorted(c["end"] for c in chunks(page, column))
        ticks = js(
            page,
            "const t = root.querySelectorAll('.cvd-track')[arg]; const r = t.getBoundingClientRect();"
            "return {left: r.left, width: r.width, ticks: [...t.querySelectorAll('.cvd-tick')].map(e => {"
            " const b = e.getBoundingClientRect(); return [+e.dataset.offset, b.left + b.width / 2, e.style.background]; })};",
            column,
        )
        assert [t[0] for t in ticks["ticks"]] == ends
        for end, x, colour in ticks["ticks"]:
            assert abs(x - (ticks["left"] + ticks["width"] * end / length)) < 1.5
            assert colour
    track = js(
        page,
        "const r = root.querySelectorAll('.cvd-track')[1].getBoundingClientRect(); return [r.left, r.top, r.width, r.height];",
    )
    page.mouse.click(track[0] + track[2] * 0.5, track[1] + track[3] / 2)
    for column in range(3):
        wait_for(
            lambda c=column: abs(top_offset(page, c) - length / 2) < 200, f"column {column} to scroll to the middle"
        )
    shot(page, "docview_ribbon_click.png")


def test_no_flag_glyph_or_flag_outline_in_the_document_text(page: Any) -> None:
    text = js(page, "return [...root.querySelectorAll('.cvd-box')].map(b => b.textContent).join('');")
    assert "\u26a0" not in text and "\u00b7" not in text
    glyphs = js(
        page,
        "return [...root.querySelectorAll('.cvd-box .cv-c, .cvd-box .cv-o')].map(e => getComputedStyle(e, '::before').content)"
        ".filter(c => c && c !== 'none' && c !== 'normal');",
    )
    assert glyphs == []


def test_scroll_sync_is_cheap_on_a_300k_character_document(browser: Any, server: str) -> None:
    page = _open(browser, server + "/?big=1")
    try:
        length = js(page, "return root.__cvd.data.length;")
        assert length >= 300_000
        box = box_rect(page, 0)
        page.mouse.move((box["left"] + box["right"]) / 2, (box["top"] + box["bottom"]) / 2)
        js(page, "root.__cvd.stats.syncMs.length = 0; root.__cvd.stats.anchorMs.length = 0;")
        for _ in range(40):
            page.mouse.wheel(0, 900)
            animation_frames(page, 1)  # each wheel event gets its frame
        wait_for(lambda: abs(top_offset(page, 2) - top_offset(page, 0)) < 300, "column 2 to follow")
        stats = js(page, "return root.__cvd.stats;")
        sync = sorted(stats["syncMs"])
        print(f"300k chars: update {stats['updateMs']} ms, anchors {stats['anchorMs']} ms, "
              f"sync per frame median {statistics.median(sync):.2f} ms, max {sync[-1]:.2f} ms over {len(sync)} frames")  # fmt: skip
        assert len(sync) >= 5
        # cheap by construction: each column's geometry is read once (the first frame builds its anchors)
        # and again only when pages are drawn (a long column is drawn by pages), never per frame; the
        # milliseconds above are printed, not asserted (a shared machine's numbers)
        assert len(stats["anchorMs"]) <= 3 + 2 * stats["pagesDrawn"], (stats["anchorMs"], stats["pagesDrawn"])
        assert len(stats["anchorMs"]) < len(sync), "anchors are not rebuilt every frame"
        shot(page, "docview_big.png")
        assert page.page_errors == []
    finally:
        page.close()


# ----------------------------------------------------------------------------- retrieval overlay
#: what tests/apps/docview_demo.py shows with ?overlay=1
REFERENCE = "a pressure transducer in a stilling well, or a radar sensor on a bracket over the water, for river level"
SAMPLE_TEXT = (REPO / "chunkviz/sample_docs" / "field_station_handbook.md").read_text(encoding="utf-8")


@pytest.fixture
def overlay_page(browser, server: str) -> Iterator[Any]:
    page = _open(browser, server + "/?overlay=1")
    wait_for(
        lambda: js(page, "return root.querySelectorAll('[data-cvd-badge]').length;") == 9, "three badges per column"
    )
    yield page
    assert page.page_errors == []
    page.close()


def test_overlay_badges_outlines_parent_and_child(overlay_page: Any) -> None:
    page = overlay_page
    start = SAMPLE_TEXT.index(REFERENCE)
    for column in range(3):
        badges = js(page, "return [...root.querySelectorAll('.cvd-box')[arg].querySelectorAll('[data-cvd-badge]')]"
                          ".map(e => [e.getAttribute('data-cvd-badge'), getComputedStyle(e, '::before').content]);", column)  # fmt: skip
        assert [b[0] for b in badges] == ["#1 \u00b7 0.62", "#2 \u00b7 0.48", "#3 \u00b7 0.41"]
        assert all(content == f'"{label}"' for label, content in badges)  # drawn by CSS, not in the text
        assert "#1" not in js(page, "return root.querySelectorAll('.cvd-box')[arg].textContent;", column)
        assert js(page, "return root.querySelectorAll('.cvd-box')[arg].classList.contains('cvd-quiet');", column)
        # the first hit holds the reference's start; the hit is outlined, the other chunks quiet
        spans = js(page, "return [...root.querySelectorAll('.cvd-box')[arg].querySelectorAll('.cvd-hit[data-chunk-index]')]"
                         ".map(e => [+e.dataset.start, +e.dataset.end]);", column)  # fmt: skip
        assert any(a <= start < b for a, b in spans), spans
        styles = js(page, "const box = root.querySelectorAll('.cvd-box')[arg];"
                          "const hit = getComputedStyle(box.querySelector('.cvd-hit')).outlineStyle;"
                          "const quiet = getComputedStyle(box.querySelector('.cv-c:not(.cvd-hit):not(.cvd-hitp .cv-c)')).backgroundColor;"
                          "return [hit, quiet];", column)  # fmt: skip
        assert styles == ["solid", "rgb(241, 243, 245)"]
    # parent_child (column 2): the returned parent outlined (dashed) around its matched child
    parent_child = js(
        page,
        "const box = root.querySelectorAll('.cvd-box')[2];"
        "const parent = box.querySelector('.cv-p.cvd-hitp[data-cvd-badge]');"
        "const child = parent.querySelector('.cv-c.cvd-hit[data-chunk-index]');"
        "return {parent: +parent.dataset.chunkIndex, child: +child.dataset.chunkIndex, childParent: +child.dataset.parent,"
        " childStart: +child.dataset.start, childEnd: +child.dataset.end, outline: getComputedStyle(parent).outlineStyle,"
        " others: parent.querySelectorAll('.cv-c:not(.cvd-hit)').length};",
    )
    assert parent_child["childParent"] == parent_child["parent"] and parent_child["outline"] == "dashed"
    assert parent_child["childStart"] <= start < parent_child["childEnd"] and parent_child["others"] > 0


def test_overlay_reference_highlight_ribbon_marks_and_tooltip(overlay_page: Any) -> None:
    page = overlay_page
    ranges = js(page, "const h = CSS.highlights.get('cvd-ref'); return [...h].map(r => "
                      "[r.toString(), [...root.querySelectorAll('.cvd-box')].findIndex(b => b.contains(r.startContainer))]);")  # fmt: skip
    assert sorted(ranges) == [[REFERENCE, 0], [REFERENCE, 1], [REFERENCE, 2]]
    for column in range(3):
        marks = js(page, "const t = root.querySelectorAll('.cvd-track')[arg];"
                         "return [[...t.querySelectorAll('.cvd-hitmark')].map(m => m.textContent).sort(), t.querySelectorAll('.cvd-refmark').length];", column)  # fmt: skip
        assert marks == [["1", "2", "3"], 1]
    # each column scrolled its best hit into view
    for column in range(3):
        first = js(page, "const b = root.querySelectorAll('.cvd-box')[arg]; const e = b.querySelector('[data-cvd-badge]');"
                         "const r = e.getBoundingClientRect(), q = b.getBoundingClientRect(); return [r.top, q.top, q.bottom];", column)  # fmt: skip
        assert first[1] <= first[0] < first[2], (column, first)
    rect = js(page, "const r = root.querySelectorAll('.cvd-box')[1].querySelector('.cvd-hit[data-cvd-badge]').getClientRects()[0];"
                    "return [r.right - 6, (r.top + r.bottom) / 2];")  # fmt: skip
    page.mouse.move(*rect)
    tip = page.locator(".cvd-tip")
    wait_for(lambda: tip.is_visible(), "the tooltip")
    assert "retrieved: rank #1 \u00b7 score 0.62" in tip.inner_text()
    print(f"screenshot: {shot(page, 'docview_overlay.png')}")
    mark = js(page, "const r = root.querySelectorAll('.cvd-track')[0].querySelector('.cvd-hitmark[data-rank=\"2\"]').getBoundingClientRect();"
                    "return [r.left + 3, r.top + 3];")  # fmt: skip
    page.mouse.move(*mark)
    wait_for(lambda: "col0: rank #2 \u00b7 score 0.48" in tip.inner_text(), "the ribbon's tooltip of a hit mark")
    child = js(page, "const e = root.querySelectorAll('.cvd-box')[2].querySelector('.cv-c.cvd-hit'); const r = e.getClientRects()[0];"
                     "return [r.left + 30, (r.top + r.bottom) / 2];")  # fmt: skip
    page.mouse.move(*child)
    wait_for(lambda: "matched the query" in tip.inner_text(), "the matched child's tooltip")
    assert "is returned at rank #1" in tip.inner_text()


def test_a_mouse_selection_comes_back_as_document_offsets(overlay_page: Any) -> None:
    page = overlay_page
    line = js(page, "const e = root.querySelectorAll('.cvd-box')[1].querySelector('.cvd-hit[data-cvd-badge]');"
                    "const r = [...e.getClientRects()].sort((x, y) => y.width - x.width)[0]; return [r.left, r.right, (r.top + r.bottom) / 2];")  # fmt: skip
    page.mouse.move(line[0] + 12, line[2])
    page.mouse.down()
    page.mouse.move(line[1] - 12, line[2], steps=8)
    page.mouse.up()
    selected = js(page, "const s = document.getSelection().getComposedRanges({shadowRoots: [root.getRootNode()]})[0];"
                        "const r = document.createRange(); r.setStart(s.startContainer, s.startOffset); r.setEnd(s.endContainer, s.endOffset);"
                        "return r.toString();")  # fmt: skip
    assert len(selected) > 5
    answer = page.get_by_text("answer: ", exact=False)
    wait_for(lambda: answer.inner_text() != "answer: none", "the selection in Python")
    start, end = (int(x) for x in answer.inner_text().removeprefix("answer: ").split("-"))
    assert SAMPLE_TEXT[start:end] == selected
    assert page.get_by_text("selected: none").count() == 1  # the selection is not a click on a chunk
    shot(page, "docview_overlay_selection.png")


def test_offsets_stay_the_documents_with_cr_lf_and_characters_beyond_the_bmp(browser: Any, server: str) -> None:
    """The HTML parser turns CR LF into LF and JS counts an emoji as two units: the highlight and
    a selection must still map to the document's (code point) offsets."""
    page = _open(browser, server + "/?crlf=1")
    try:
        text = ("\U0001f327\ufe0f " + SAMPLE_TEXT).replace("\n", "\r\n")
        highlighted = "const h = CSS.highlights.get('cvd-ref'); return h ? [...h].map(r => r.toString()) : [];"
        wait_for(lambda: js(page, highlighted) == [REFERENCE] * 3, "the reference highlighted in every column")
        assert js(page, "return root.__cvd.textIndexOf(root.__cvd.columns[0]).crlf;") is True
        # a selection over two lines of the first hit in column 1
        rects = js(page, "const e = root.querySelectorAll('.cvd-box')[1].querySelector('.cvd-hit[data-cvd-badge]');"
                         "return [...e.getClientRects()].filter(r => r.width > 120).map(r => [r.left, r.right, (r.top + r.bottom) / 2]);")  # fmt: skip
        page.mouse.move(rects[0][0] + 40, rects[0][2])
        page.mouse.down()
        page.mouse.move(rects[2][0] + 60, rects[2][2], steps=10)
        page.mouse.up()
        selected = js(page, "const s = document.getSelection().getComposedRanges({shadowRoots: [root.getRootNode()]})[0];"
                            "const r = document.createRange(); r.setStart(s.startContainer, s.startOffset); r.setEnd(s.endContainer, s.endOffset);"
                            "return r.toString();")  # fmt: skip
        assert "\n" in selected
        answer = page.get_by_text("answer: ", exact=False)
        wait_for(lambda: answer.inner_text() != "answer: none", "the selection in Python")
        start, end = (int(x) for x in answer.inner_text().removeprefix("answer: ").split("-"))
        assert text[start:end] == selected.replace("\n", "\r\n")
        assert page.page_errors == []
    finally:
        page.close()


# ----------------------------------------------------------------------------- far into a long document
# ?big=1 is 300,000+ characters: each column is cut into pages by Python (chunkviz/drawing/paging.py), which
# sends only the pages near the window the view asks for (state "window"); only the pages in and
# around the visible window are in the DOM.


@pytest.fixture
def big_page(browser, server: str) -> Iterator[Any]:
    page = _open(browser, server + "/?big=1")
    yield page
    assert page.page_errors == []
    page.close()


def drawn_pages(page: Any) -> list[list[int]]:
    """Per column: [pages drawn, pages]."""
    return js(page, "return root.__cvd.columns.map(c => [c.pages.filter(p => p.drawn).length, c.pages.length]);")


def demo_column_html(text: str, column: int) -> str:
    """Column ``column`` of tests/apps/docview_demo.py (no overlay) rendered here, as the demo renders it."""
    from chunkviz.diagnostics.compare import chunk_annotations, run_strategy
    from chunkviz.drawing.palette import column_hue
    from chunkviz.drawing.render import RenderOptions, render_html

    strategy, params = DEMO_COLUMNS[column]
    result = run_strategy(text, strategy, params, "cl100k_base")
    options = RenderOptions(f"col{column}", "cl100k_base", None, chunk_annotations(result), hue=column_hue(column))
    return render_html(text, result.chunks, options)


#: tests/apps/docview_demo.py's COLUMNS and ?big=1 document
DEMO_COLUMNS = (("fixed_tokens", {"chunk_size": 120, "overlap": 20}), ("recursive", {"chunk_size": 150, "overlap": 0}))
BIG_TEXT = (SAMPLE_TEXT + "\n\n") * (300_000 // (len(SAMPLE_TEXT) + 2) + 1)


def settled(page: Any) -> bool:
    """No window request waiting and no script run going on."""
    return (
        js(page, "return root.__cvd.requestTimer === 0;")
        and page.locator('[data-testid="stStatusWidget"]').count() == 0
    )


def last_chunk(page: Any, column: int) -> dict[str, Any]:
    """The chunk that ends last in ``column`` (drawn: the column is scrolled to its end)."""
    return max(chunks(page, column), key=lambda c: (c["end"], c["index"]))


def scroll_to_end(page: Any, column: int) -> None:
    """Scroll ``column`` to its very end, as a user dragging the scrollbar down would (again until
    it stays there: drawing the last pages may change the column's height)."""

    def at_end() -> bool:
        scroll_box(page, column, 10**9)
        animation_frames(page, 3)
        return js(page, "const b = root.querySelectorAll('.cvd-box')[arg]; return b.scrollTop + b.clientHeight >= b.scrollHeight - 1;", column)  # fmt: skip

    wait_for(at_end, f"column {column} to stay at its end")


def test_a_long_document_is_drawn_by_pages_that_lay_out_as_the_whole(big_page: Any) -> None:
    from chunkviz.drawing.paging import cut_pages

    page = big_page
    pages = drawn_pages(page)
    assert all(total >= 10 and 1 <= drawn <= 4 for drawn, total in pages), pages
    html = demo_column_html(BIG_TEXT, 0)
    cut = cut_pages(html)
    # the view's page table is Python's cut, and it holds the HTML of a few pages only
    table = js(page, "return root.__cvd.columns[0].data.pages;")
    assert table == [[p.start, p.end, p.lines] for p in cut.pages]
    sent = js(page, "return root.__cvd.columns[0].data.page_html;")
    assert 2 <= len(sent) <= 4 and all(h == cut.pages[k].html for k, h in sent), [k for k, _ in sent]
    payload = js(page, "return root.__cvd.columns.map(c => new TextEncoder().encode(JSON.stringify(c.data)).length);")
    assert max(payload) < 300_000 < len(html), (payload, len(html))
    in_box = js(page, "return root.querySelectorAll('.cvd-box')[0].querySelectorAll('*').length;")
    assert in_box < len(re.findall("<[a-z]", html)) / 3, in_box
    # drawn together, the pages give the same text and the same height as the column's whole HTML
    same = js(page, """
        const [whole, root0, pages] = arg; const c = root.__cvd.columns[0];
        const box = (inner) => { const b = document.createElement('div'); b.className = 'cvd-box cvd-paged';
          b.style.height = 'auto'; c.cell.appendChild(b); b.innerHTML = inner; return b; };
        const a = box(whole), b = box(root0 + '</div>');
        for (const p of pages) { const n = document.createElement('div'); n.className = 'cvd-page'; n.innerHTML = p;
          b.firstElementChild.appendChild(n); }
        const out = [a.firstElementChild.offsetHeight === b.firstElementChild.offsetHeight, a.textContent === b.textContent];
        a.remove(); b.remove(); return out;""", [html, cut.root, [p.html for p in cut.pages]])  # fmt: skip
    assert same == [True, True]


def test_at_the_end_of_a_long_document_hover_click_and_linked_scroll_work(big_page: Any) -> None:
    page = big_page
    length = js(page, "return root.__cvd.data.length;")
    scroll_to_end(page, 0)
    wait_for(lambda: top_offset(page, 0) > length * 0.95, "column 0 near the end")
    last_end = js(page, "return Math.max(...root.__cvd.columns[0].cutEnds);")
    # the last pages arrive from Python (a window request) and are drawn where the box is
    wait_for(lambda: chunks(page, 0) and last_chunk(page, 0)["end"] == last_end, "the last chunk drawn")
    scroll_to_end(page, 0)
    for column in (1, 2):
        wait_for(lambda c=column: abs(top_offset(page, c) - top_offset(page, 0)) < 300, f"column {column} to follow")
    offset = top_offset(page, 0)
    for column in (0, 1, 2):  # aligned, read from the DOM alone (once their pages have arrived)
        wait_for(lambda c=column: (lambda b: b[0] - 300 <= offset <= b[1] + 300)(top_bracket(page, c)),
                 f"column {column}'s chunks at the top edge")  # fmt: skip
    assert all(drawn <= 4 for drawn, _ in drawn_pages(page)), drawn_pages(page)
    held = js(page, "return root.__cvd.store.size;")
    assert held <= 3 * 8, held  # the pages received: the first ones and the last ones, not the document
    shot(page, "docview_big_end.png")

    last = last_chunk(page, 0)
    assert last["end"] == last_end  # the column's last chunk
    rect = js(page, "const e = root.querySelectorAll('.cvd-box')[0].querySelector(`.cv-c[data-chunk-index=\"${arg}\"]`);"
                    "const r = [...e.getClientRects()].sort((x, y) => y.width - x.width)[0];"
                    "return {top: r.top, bottom: r.bottom, left: r.left};", last["index"])  # fmt: skip
    box = box_rect(page, 0)
    assert box["top"] <= rect["top"] < box["bottom"], (rect, box)
    page.mouse.move(rect["left"] + 4, (rect["top"] + rect["bottom"]) / 2)
    tip = page.locator(".cvd-tip")
    wait_for(lambda: tip.is_visible() and f"Chunk {last['index']}" in tip.inner_text(), "the last chunk's tooltip")
    assert f"{last['start']:,}\u2013{last['end']:,}" in tip.inner_text()
    shot(page, "docview_big_end_hover.png")
    page.mouse.click(rect["left"] + 4, (rect["top"] + rect["bottom"]) / 2)
    page.get_by_text(f"selected: column 0 chunk {last['index']}").wait_for()
    selected = js(page, "return [...root.querySelectorAll('.cvd-box')[0].querySelectorAll('.cvd-sel')]"
                        ".map(e => e.dataset.chunkIndex ?? e.dataset.continues ?? e.dataset.overlap);")  # fmt: skip
    assert str(last["index"]) in selected
    # the rerun that echoes the click keeps the columns where they were
    assert abs(top_offset(page, 0) - offset) < 300


def test_a_ribbon_click_near_the_end_scrolls_every_column_there(big_page: Any) -> None:
    page = big_page
    length = js(page, "return root.__cvd.data.length;")
    track = js(page, "const r = root.querySelectorAll('.cvd-track')[2].getBoundingClientRect(); return [r.left, r.top, r.width, r.height];")  # fmt: skip
    page.mouse.click(track[0] + track[2] * 0.97, track[1] + track[3] / 2)
    target = length * 0.97
    for column in range(3):
        wait_for(lambda c=column: abs(top_offset(page, c) - target) < 400, f"column {column} to scroll near the end")
        # its pages arrive (a window request) and a chunk holding the target is drawn inside the box
        wait_for(
            lambda c=column: any(x["start"] <= target < x["end"] for x in chunks(page, c)), f"column {column}'s pages"
        )
        wait_for(lambda c=column: abs(top_offset(page, c) - target) < 400, f"column {column} to stay there")
        before, after = top_bracket(page, column)
        assert before - 400 <= target <= after + 400, (column, before, after, target)
    shot(page, "docview_big_ribbon.png")
    # settled: nothing more is asked for (a rerun that brings the pages asks for nothing again)
    wait_for(lambda: settled(page), "the view to settle")
    runs, requests = script_runs(page), js(page, "return root.__cvd.stats.requests;")
    animation_frames(page, 20)
    wait_for(lambda: settled(page), "the view to stay settled")
    assert (script_runs(page), js(page, "return root.__cvd.stats.requests;")) == (runs, requests)
    # back to the start: the first pages are still held, drawn without a request
    scroll_box(page, 0, 0)
    wait_for(lambda: top_offset(page, 2) < 2000, "column 2 to follow back to the start")
    wait_for(lambda: settled(page), "the view to settle at the start")
    assert js(page, "return root.__cvd.stats.requests;") == requests


def test_python_selects_a_chunk_on_a_page_not_drawn(big_page: Any) -> None:
    page = big_page
    total = js(page, "return root.__cvd.columns[2].cutEnds.length;")
    target = total - 3
    assert (
        js(page, "return root.querySelectorAll('.cvd-box')[2].querySelector(`[data-chunk-index=\"${arg}\"]`);", target)
        is None
    )
    page.get_by_label("select from Python (column:index)").fill(f"2:{target}")
    page.keyboard.press("Enter")

    def inside() -> bool:
        box, rect = box_rect(page, 2), chunk_rect(page, 2, target)
        return box["top"] <= rect["top"] and rect["bottom"] <= box["bottom"]

    wait_for(inside, "the selected chunk to be drawn and scrolled into its box")
    assert js(page, "return root.querySelectorAll('.cvd-box')[2].querySelectorAll('.cvd-sel').length;") >= 1
    wait_for(lambda: abs(top_offset(page, 0) - top_offset(page, 2)) < 300, "column 0 to follow")


def test_hit_badges_far_into_a_long_document_scroll_into_view(browser: Any, server: str) -> None:
    """The hits lie near the end (?far=1): their pages come with the first payload, each column
    scrolls its best hit into view, and the expected answer is highlighted there."""
    page = _open(browser, server + "/?big=1&overlay=1&far=1")
    try:
        start = BIG_TEXT.rindex(REFERENCE)
        assert start > len(BIG_TEXT) * 0.9
        first = "return [...root.querySelectorAll('.cvd-box')].map(b => { const e = b.querySelector('[data-cvd-badge^=\"#1 \"]');"
        first += " if (!e) return null; const r = e.getBoundingClientRect(), q = b.getBoundingClientRect();"
        first += " return [r.top >= q.top && r.top < q.bottom, +(e.dataset.start ?? -1)]; });"
        wait_for(lambda: all(x and x[0] for x in js(page, first)), "each column's best hit drawn in its box")
        for column in range(3):
            assert abs(top_offset(page, column) - start) < 3000, (column, top_offset(page, column), start)
        ranges = "const h = CSS.highlights.get('cvd-ref'); return h ? [...h].map(r => r.toString()) : [];"
        wait_for(lambda: js(page, ranges) == [REFERENCE] * 3, "the reference highlighted in every column")
        rect = js(page, "const r = root.querySelectorAll('.cvd-box')[1].querySelector('.cvd-hit[data-cvd-badge]').getClientRects()[0];"
                        "return [r.right - 6, (r.top + r.bottom) / 2];")  # fmt: skip
        page.mouse.move(*rect)
        tip = page.locator(".cvd-tip")
        wait_for(lambda: tip.is_visible() and "retrieved: rank #1" in tip.inner_text(), "the hit's tooltip")
        marks = js(page, "return [...root.querySelectorAll('.cvd-track')[0].querySelectorAll('.cvd-hitmark')].map(m => m.textContent).sort();")  # fmt: skip
        assert marks == ["1", "2", "3"]
        shot(page, "docview_big_far_hit.png")
        assert page.page_errors == []
    finally:
        page.close()


def test_hits_are_painted_again_when_their_page_is_drawn_again(browser: Any, server: str) -> None:
    page = _open(browser, server + "/?big=1&overlay=1")
    try:
        badges = "return root.querySelectorAll('[data-cvd-badge]').length;"
        wait_for(lambda: js(page, badges) == 9, "three badges per column")
        scroll_to_end(page, 0)
        wait_for(lambda: js(page, badges) == 0, "the hits' pages emptied at the end")
        assert js(page, "return root.__cvd.columns.map(c => c.hitSpans.length);") == [3, 3, 3]
        scroll_box(page, 0, 0)
        wait_for(lambda: js(page, badges) == 9, "the badges back with their pages")
        ranges = "const h = CSS.highlights.get('cvd-ref'); return h ? [...h].map(r => r.toString()) : [];"
        wait_for(lambda: js(page, ranges) == [REFERENCE] * 3, "the reference highlighted again")
        assert page.page_errors == []
    finally:
        page.close()


def test_a_window_drawn_before_the_scroll_event_is_drawn_where_the_box_is(browser: Any, server: str) -> None:
    """A redraw that runs between a scroll and its event (pages arriving from Python, a resize:
    the event comes with the next frame, late on a busy machine) draws the pages where the box is
    and leaves it there. It drew where the last event said, and the pages arriving at the end
    scrolled the column back there: the hits' badges never came back (a flaky test under load)."""
    page = _open(browser, server + "/?big=1&overlay=1")
    try:
        badges = "return root.querySelectorAll('.cvd-box')[0].querySelectorAll('[data-cvd-badge]').length;"
        wait_for(lambda: js(page, badges) == 3, "three badges in column 0")
        scroll_to_end(page, 0)
        wait_for(lambda: js(page, badges) == 0, "the hits' pages emptied at the end")
        drawn = js(page, """const v = root.__cvd, col = v.columns[0];
            col.box.scrollTop = 0; v.ensureWindow(col);  // in one task: before the scroll event is dispatched
            return [col.pages[0].drawn, col.box.scrollTop < 100, col.box.querySelectorAll('[data-cvd-badge]').length];""")  # fmt: skip
        assert drawn == [True, True, 3]  # the top's pages drawn, the box still at the top, the badges painted
        wait_for(lambda: js(page, "return root.querySelectorAll('[data-cvd-badge]').length;") == 9, "every column back")
        assert page.page_errors == []
    finally:
        page.close()


def test_pages_keep_every_character_of_hostile_text_and_its_offsets(page: Any) -> None:
    """The page cut (chunkviz/drawing/paging.py) on untrusted text, parsed by the browser: markup-like text,
    character references, characters beyond the BMP, CR LF, and 60,000 characters without a line end
    (cut mid-line, never inside a reference): the pages' text is the text, and their offsets are the document's.
    (Fourteen pages show it; the browser page only parses them.)"""
    from chunkviz.diagnostics.compare import chunk_annotations, run_strategy
    from chunkviz.drawing.paging import cut_pages
    from chunkviz.drawing.render import RenderOptions, render_html

    line = "<script>alert('x')</script> & \"q\" \U0001f327\ufe0f caf\u00e9 &amp; "
    text = (line * 40 + "\r\n") * 120 + line * 1300 + "\n" + "tail \U0001f327"
    assert len(line * 1300) > 60_000
    result = run_strategy(text, "fixed_tokens", {"chunk_size": 120, "overlap": 20}, "cl100k_base")
    html = render_html(text, result.chunks, RenderOptions("col0", "cl100k_base", None, chunk_annotations(result)))
    cut = [[p.start, p.end, p.html] for p in cut_pages(html).pages]
    pages = js(page, """
        const parse = (h) => { const t = document.createElement('template'); t.innerHTML = h; return t.content; };
        return arg.map(([start, end, h]) => { const c = parse(h);
          return [start, end, c.textContent, c.querySelectorAll('script').length, c.querySelectorAll('*').length]; });""", cut)  # fmt: skip
    assert page.page_errors == []
    assert len(pages) > 5
    assert pages[0][0] == 0 and pages[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in zip(pages, pages[1:])), "contiguous"
    assert any(not text[a:b].endswith("\n") for a, b, *_ in pages[:-1]), "the long line is cut mid-line"
    for start, end, shown, scripts, _ in pages:
        # the HTML parser turns CR LF into LF (so does the whole column's HTML); nothing else changes
        assert shown == text[start:end].replace("\r\n", "\n"), (start, end)
        assert scripts == 0
    whole_elements = html.count("<span") + html.count("<i ")
    assert sum(p[4] for p in pages) >= whole_elements  # every element drawn (continued ones twice)


def test_a_page_on_its_way_says_loading_then_is_drawn_in_place(big_page: Any) -> None:
    """A jump to the middle: the spacers there say "loading…" (CSS, not document text) until the
    window request brings their pages, which are then drawn where the box is."""
    page = big_page
    length = js(page, "return root.__cvd.data.length;")
    missing = js(page, """const v = root.__cvd; v.scrollAllTo(arg);
        return v.columns.map(c => { const e = c.box.querySelector('.cvd-page.cvd-missing');
          return e ? [getComputedStyle(e, '::before').content, e.textContent] : null; });""", length // 2)  # fmt: skip
    assert missing == [['"loading\u2026"', ""]] * 3, missing
    for column in range(3):
        wait_for(
            lambda c=column: any(x["start"] <= length // 2 < x["end"] for x in chunks(page, c)),
            f"column {column}'s pages",
        )
        wait_for(lambda c=column: abs(top_offset(page, c) - length // 2) < 400, f"column {column} to stay there")
    assert js(page, "return root.__cvd.columns.map(c => c.pages.filter(p => p.drawn && p.node.classList.contains('cvd-missing')).length);") == [0, 0, 0]  # fmt: skip


def test_a_chunk_cut_by_a_page_end_is_one_chunk_to_hover(big_page: Any) -> None:
    """A chunk that runs over the end of a page: hovering its part on the next page outlines its
    whole extent on both pages and the tooltip tells the whole chunk."""
    page = big_page
    top = js(page, "return root.__cvd.columns[1].pages[1].node.offsetTop;")
    scroll_box(page, 1, top - 120)  # the end of page 0 and the start of page 1 in view (the others follow)
    wait_for(
        lambda: js(page, "return root.__cvd.columns.every(c => c.pages[1].drawn && c.pages[0].drawn);"),
        "pages 0 and 1 drawn",
    )
    found = js(page, """for (const c of root.__cvd.columns) {
          const own = (e) => c.pages[0].node.querySelector(`[data-chunk-index="${e.dataset.continues}"]`);
          const e = [...c.pages[1].node.querySelectorAll('.cv-c[data-continues]')].find(x => x.textContent.trim() && own(x));
          if (!e) continue;
          const o = own(e);
          return {column: c.i, index: +e.dataset.continues, start: +o.dataset.start, end: +o.dataset.end}; }
        return null;""")  # fmt: skip
    assert found, "no chunk runs from page 0 into page 1 in any column"
    widest = ("const c = root.__cvd.columns[arg]; const e = c.pages[1].node.querySelector(`.cv-c[data-continues=\"${c.hovered}\"]`);"
              "const r = [...e.getClientRects()].sort((x, y) => y.width - x.width)[0]; const b = c.box.getBoundingClientRect();"
              "return {x: r.left + 3, y: (r.top + r.bottom) / 2, inside: b.top <= r.top && r.bottom <= b.bottom};")  # fmt: skip
    js(page, "root.__cvd.columns[arg[0]].hovered = arg[1];", [found["column"], found["index"]])
    where = js(page, widest, found["column"])
    if not where["inside"]:  # bring the chunk's part on page 1 into view (as a user would scroll)
        js(page, "const c = root.__cvd.columns[arg[0]]; c.box.scrollTop += arg[1] - c.box.getBoundingClientRect().top - 60;",
           [found["column"], where["y"]])  # fmt: skip
        animation_frames(page, 3)
        where = wait_for(
            lambda: (lambda w: w if w["inside"] else None)(js(page, widest, found["column"])), "the part in view"
        )
    page.mouse.move(where["x"], where["y"])
    tip = page.locator(".cvd-tip")
    wait_for(lambda: tip.is_visible() and f"Chunk {found['index']}" in tip.inner_text(), "the chunk's tooltip")
    assert f"{found['start']:,}\u2013{found['end']:,}" in tip.inner_text()
    pages_outlined = js(page, "const c = root.__cvd.columns[arg]; return [...c.box.querySelectorAll('.cvd-hl')]"
                              ".map(e => c.pages.findIndex(p => p.node.contains(e)));", found["column"])  # fmt: skip
    assert 0 in pages_outlined and 1 in pages_outlined, pages_outlined
