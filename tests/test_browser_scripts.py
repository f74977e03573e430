"""Right-to-left and wide text in a real browser (issue 37): the Arabic and the Japanese samples in
the app's Compare and Tune views, served by Streamlit and drawn by Debian's Chromium (skipped with
the reason without it). Arabic lines read right to left, Japanese lines break between characters,
and what the reader sees sits on the right characters: each chunk's end marker just after (for
Arabic: to the left of) its chunk's last letter, a point over a letter belongs to the chunk that
holds it, a mouse selection gives the offsets of the letters dragged over. Screenshots go to
``test-output/`` (looked at: the fonts come from fonts-noto-core and fonts-noto-cjk, which
``./dev`` installs with Chromium)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.browser import animation_frames, js, open_page, wait_for, wait_for_whole_page

from chunkviz.document.read import read_bytes

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parent.parent
OUTPUT = REPO / "test-output"
ARABIC, JAPANESE = "magazine_ar.txt", "household_guide_ja.txt"
#: Compare: three columns; the first cuts inside sentences (fixed windows), the second at sentence ends.
COLUMNS = "n=3&s0=fixed_tokens&s1=sentences&s2=semantic&p2=%7B%22model%22%3A%22multilingual-e5-small%22%7D"


def sample_text(name: str) -> str:
    return read_bytes((REPO / "chunkviz/sample_docs" / name).read_bytes(), name).text


def shot(page: Any, name: str) -> Path:
    OUTPUT.mkdir(exist_ok=True)
    path = OUTPUT / name
    page.screenshot(path=str(path))
    return path


def open_sample(browser: Any, server: str, name: str) -> Any:
    page = open_page(browser, f"{server}/?doc={name}&{COLUMNS}")
    wait_for(lambda: js(page, "return root.querySelectorAll('.cvd-box').length;") == 3, "three columns")
    page.wait_for_selector("[data-chunk-index]")
    wait_for_whole_page(page)
    wait_for(lambda: page.locator('[data-testid="stStatusWidget"]').count() == 0, "the script run to finish")
    return page


def column_direction(page: Any, column: int) -> dict[str, Any]:
    """The column's .cv-doc: its dir attribute, computed direction and unicode-bidi."""
    return js(
        page,
        "const d = root.querySelectorAll('.cvd-box')[arg].querySelector('.cv-doc'); const s = getComputedStyle(d);"
        "return {dir: d.getAttribute('dir'), direction: s.direction, bidi: s.unicodeBidi};",
        column,
    )


#: For each drawn end marker of a column: its chunk's last non-space character's box and the marker's box.
MARKERS_JS = """
const col = root.__cvd.columns[arg];
const out = [];
for (const mark of col.box.querySelectorAll('i.cv-e[data-end-of]')) {
  const info = root.__cvd.infoOf(col, Number(mark.dataset.endOf));
  if (!info) continue;
  const start = Number(info.start), end = Number(info.end);
  const probe = root.__cvd.rangeOf(col, start, end);
  const text = probe.toString().replace(/\\s+$/, '');
  if (!text) continue;
  const last = start + text.length;  // after the chunk's last non-space character
  const range = root.__cvd.rangeOf(col, last - 1, last);
  const rects = [...range.getClientRects()].filter(r => r.width > 0);
  const m = mark.getBoundingClientRect();
  if (!rects.length || m.width === 0) continue;
  const c = rects[rects.length - 1];
  out.push({index: mark.dataset.endOf, char: range.toString(), cl: c.left, cr: c.right, ct: c.top, cb: c.bottom,
            ml: m.left, mr: m.right, mt: m.top, mb: m.bottom});
  if (out.length >= 12) break;
}
return out;
"""


def assert_markers_beside_last_letters(page: Any, column: int, rtl: bool) -> int:
    """Each drawn end marker is on its chunk's last letter's line and just after it in reading
    order: to its left in a right-to-left line, to its right otherwise. The markers checked."""
    marks = js(page, MARKERS_JS, column)
    assert marks, "no end marker drawn"
    for m in marks:
        same_line = m["mt"] < m["cb"] and m["ct"] < m["mb"]
        after = m["mr"] <= m["cl"] + 2 if rtl else m["ml"] >= m["cr"] - 2
        near = (m["cl"] - m["mr"] if rtl else m["ml"] - m["cr"]) < 12
        assert same_line and after and near, m
    return len(marks)


#: The chunk element under the middle of the character at offset ``arg[1]`` of column ``arg[0]``.
POINT_JS = """
const [c, offset] = arg;
const col = root.__cvd.columns[c];
const r = [...root.__cvd.rangeOf(col, offset, offset + 1).getClientRects()].filter(x => x.width > 0)[0];
const hit = root.getRootNode().elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
const band = hit && hit.closest('[data-chunk-index]');
return band ? [Number(band.dataset.start), Number(band.dataset.end)] : null;
"""


def assert_points_hit_their_chunks(page: Any, column: int, text: str) -> None:
    """A point over a letter is over the chunk (its band) that holds the letter: the first letter
    after each of the first chunk ends, scrolled into view."""
    ends = js(page, "return [...root.querySelectorAll('.cvd-box')[arg].querySelectorAll('.cv-c[data-end]')]"
                    ".map(e => Number(e.dataset.end)).slice(0, 6);", column)  # fmt: skip
    for end in ends:
        offset = next((k for k in range(end, len(text)) if text[k].isalpha()), None)
        if offset is None:
            continue
        js(page, "root.__cvd.scrollAllTo(arg);", max(0, offset - 40))
        animation_frames(page)
        span = js(page, POINT_JS, [column, offset])
        assert span is not None and span[0] <= offset < span[1], (offset, span)


def select_with_mouse(page: Any, column: int, start: int, end: int, rtl: bool) -> dict[str, int]:
    """Drag over the letters [start, end) of a one-line span from its first letter to its last (in
    a right-to-left line, from the first letter's right edge leftwards); the offsets the view reads
    from the selection (as it reads an expected answer)."""
    js(page, "root.__cvd.scrollAllTo(arg);", max(0, start - 40))
    animation_frames(page)
    rects = js(page, "const [c, a, b] = arg; const r = root.__cvd.rangeOf(root.__cvd.columns[c], a, b);"
                     "return [...r.getClientRects()].filter(x => x.width > 0).map(x => [x.left, x.right, (x.top + x.bottom) / 2]);",
               [column, start, end])  # fmt: skip
    first, last = rects[0], rects[-1]
    page.mouse.move(first[1] - 1 if rtl else first[0] + 1, first[2])
    page.mouse.down()
    page.mouse.move(last[0] + 1 if rtl else last[1] - 1, last[2], steps=10)
    page.mouse.up()
    return js(
        page,
        "const r = root.__cvd.selectionRange(); const col = root.__cvd.columns[arg];"
        "return r && {start: root.__cvd.docOffset(col, r.startContainer, r.startOffset),"
        "end: root.__cvd.docOffset(col, r.endContainer, r.endOffset)};",
        column,
    )


@pytest.mark.parametrize(("name", "rtl"), [(ARABIC, True), (JAPANESE, False)])
def test_compare_lays_out_the_script_and_keeps_marks_on_their_letters(
    browser: Any, server: str, name: str, rtl: bool
) -> None:
    page = open_sample(browser, server, name)
    text = sample_text(name)
    for column in range(3):
        assert column_direction(page, column) == {
            "dir": "auto",
            "direction": "rtl" if rtl else "ltr",
            "bidi": "plaintext",
        }
    # a line of the text: right-aligned in Arabic (its first letter at the box's right edge)
    first_line = js(page, "const col = root.__cvd.columns[1]; const box = col.box.getBoundingClientRect();"
                          "const r = root.__cvd.rangeOf(col, 0, 1).getClientRects()[0];"
                          "return {left: r.left - box.left, right: box.right - r.right};")  # fmt: skip
    assert (first_line["right"] < first_line["left"]) is rtl, first_line
    checked = sum(assert_markers_beside_last_letters(page, column, rtl) for column in range(2))
    assert checked >= 6
    assert_points_hit_their_chunks(page, 0, text)
    # Japanese wraps between characters: no line of the first column is wider than its box
    overflow = js(page, "const b = root.querySelectorAll('.cvd-box')[0]; return b.scrollWidth - b.clientWidth;")
    assert overflow <= 0
    # a sentence dragged over with the mouse is read as its exact offsets
    sentence = text.splitlines()[2].split("。")[0] if not rtl else text.splitlines()[2].split("،")[0]
    start = text.index(sentence)
    js(page, "root.__cvd.scrollAllTo(0);")
    shot(page, f"scripts_compare_{name.split('.')[0]}.png")
    answer = select_with_mouse(page, 1, start, start + 12, rtl)
    assert (answer["start"], answer["end"]) == (start, start + 12), (answer, text[start : start + 12])
    page.close()


@pytest.mark.parametrize(("name", "rtl"), [(ARABIC, True), (JAPANESE, False)])
def test_tune_lays_out_the_script_and_keeps_marks_on_their_letters(
    browser: Any, server: str, name: str, rtl: bool
) -> None:
    page = open_page(
        browser, f"{server}/?doc={name}&n=1&s0=semantic&p0=%7B%22model%22%3A%22multilingual-e5-small%22%7D"
    )
    page.wait_for_selector("[data-chunk-index]")
    wait_for_whole_page(page)
    page.get_by_text("Tune semantic").first.click()
    page.wait_for_selector('[data-testid="cvt-panel"][data-state="settled"]', timeout=240_000)
    doc = page.locator(".cvt-text .cv-doc").first
    assert doc.get_attribute("dir") == "auto"
    style = doc.evaluate("d => [getComputedStyle(d).direction, getComputedStyle(d).unicodeBidi]")
    assert style == ["rtl" if rtl else "ltr", "plaintext"]
    marks = page.evaluate(
        """() => [...[...document.querySelectorAll('[data-testid=stBidiComponentIsolated]')]
            .map(h => h.shadowRoot).find(r => r && r.querySelector('.cvt-text'))
            .querySelectorAll('.cvt-text i.cv-e')].slice(0, 8).map(mark => {
            const walker = document.createTreeWalker(mark.closest('.cv-doc'), NodeFilter.SHOW_TEXT);
            let last = null, node;  // the text right before the marker
            while ((node = walker.nextNode())) {
                if (!(node.compareDocumentPosition(mark) & Node.DOCUMENT_POSITION_FOLLOWING)) break;
                if (node.data.trim() && !node.parentElement.closest('ins.cv-add')) last = node;
            }
            const i = last.data.replace(/\\s+$/, '').length;
            const range = document.createRange(); range.setStart(last, i - 1); range.setEnd(last, i);
            const c = [...range.getClientRects()].pop(), m = mark.getBoundingClientRect();
            return {cl: c.left, cr: c.right, ct: c.top, cb: c.bottom, ml: m.left, mr: m.right, mt: m.top, mb: m.bottom};
        })"""
    )
    assert marks
    for m in marks:
        assert m["mt"] < m["cb"] and m["ct"] < m["mb"], m
        assert (m["mr"] <= m["cl"] + 2) if rtl else (m["ml"] >= m["cr"] - 2), m
    page.locator(".cvt-text").first.scroll_into_view_if_needed()
    animation_frames(page)
    shot(page, f"scripts_tune_{name.split('.')[0]}.png")
    assert page.page_errors == []
    page.close()
