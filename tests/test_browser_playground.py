"""The query playground in a real browser: app.py served by Streamlit, driven by Chromium at
1500x1100. Type a query -> rank badges in every column; select the expected answer with the mouse
-> it is highlighted in every column and each column's header shows its recall and IoU.
Screenshots go to ``test-output/``; query latencies are printed (never asserted)."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from support.browser import animation_frames, js, wait_for

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parent.parent
OUTPUT = REPO / "test-output"
TEXT = (REPO / "chunkviz/sample_docs" / "field_station_handbook.md").read_text(encoding="utf-8")
QUERY = "How do the readings get from a station to the server?"
SECOND_QUERY = "Who repairs and calibrates the instruments?"
EXCERPT = "a cellular modem that sends the readings to our server every ten minutes."


def shot(page: Any, name: str) -> Path:
    OUTPUT.mkdir(exist_ok=True)
    path = OUTPUT / name
    page.screenshot(path=str(path))
    return path


def badges(page: Any) -> list[list[str]]:
    return js(page, "return [...root.querySelectorAll('.cvd-box')].map(b => [...b.querySelectorAll('[data-cvd-badge]')]"
                    ".map(e => e.getAttribute('data-cvd-badge')));")  # fmt: skip


def wait_until_idle(page: Any) -> None:
    wait_for(lambda: page.locator('[data-testid="stStatusWidget"]').count() == 0, "the script run to finish")


def ask(page: Any, query: str) -> float:
    """Type ``query`` and wait until every column shows its five badges; the seconds it took."""
    before = badges(page)
    field = page.get_by_placeholder("Query: type a question", exact=False)
    field.fill(query)
    began = time.perf_counter()
    field.press("Enter")
    wait_for(
        lambda: (b := badges(page)) != before and all(len(c) == 5 for c in b),
        "five badges in every column",
        timeout=240,
    )
    return time.perf_counter() - began


def select_with_mouse(page: Any, column: int, start: int, end: int) -> None:
    """Scroll every column to ``start``, then drag over the span's text in ``column``."""
    js(page, "root.__cvd.scrollAllTo(arg);", start - 200)
    animation_frames(page)
    # polled: a page not held yet is drawn when the window request brings it (later on a busy machine)
    rects = wait_for(lambda: js(page, "const [c, a, b] = arg; const r = root.__cvd.rangeOf(root.__cvd.columns[c], a, b);"
                     "return [...r.getClientRects()].filter(x => x.width > 0).map(x => [x.left, x.right, (x.top + x.bottom) / 2]);",
               [column, start, end]), f"the span {start}-{end} drawn in column {column}")  # fmt: skip
    first, last = rects[0], rects[-1]
    page.mouse.move(first[0] + 1, first[2])
    page.mouse.down()
    page.mouse.move(last[1] - 1, last[2], steps=10)
    page.mouse.up()


def test_query_badges_then_a_selected_answer_scores_every_column(page: Any) -> None:
    first = ask(page, QUERY)
    ranks = badges(page)
    assert all(sorted(b.split(" \u00b7 ")[0] for b in column) == ["#1", "#2", "#3", "#4", "#5"] for column in ranks), (
        ranks
    )
    assert all(re.fullmatch(r"#\d \u00b7 [01]\.\d\d", b) for column in ranks for b in column)
    hint = page.get_by_text("Select the expected answer in the document below", exact=False)
    assert hint.count() == 1
    wait_until_idle(page)
    print(f"screenshot: {shot(page, 'playground_query.png')}")

    start = TEXT.index(EXCERPT)
    select_with_mouse(page, 1, start, start + len(EXCERPT))
    caption = page.get_by_text(f"Expected answer: characters {start:,}–{start + len(EXCERPT):,}", exact=False)
    wait_for(lambda: caption.count() == 1, "the selected answer under the query row")
    highlighted = "const h = CSS.highlights.get('cvd-ref'); return h ? [...h].map(r => r.toString()) : [];"
    wait_for(lambda: js(page, highlighted) == [EXCERPT] * 3, "the answer highlighted in every column")
    summaries = js(page, "return [...root.querySelectorAll('.cvd-summary')].map(e => e.textContent);")
    assert all(re.match(r"answer: recall \d+% · IoU \d+\.\d%", s) for s in summaries), summaries
    wait_until_idle(page)
    print(f"screenshot: {shot(page, 'playground_answer.png')}")

    table = page.locator('[data-testid="stDataFrame"]').first
    table.scroll_into_view_if_needed()
    print(f"screenshot: {shot(page, 'playground_table.png')}")

    again = ask(page, SECOND_QUERY)  # the model is loaded and the chunks are embedded: only the query is new
    print(f"first query (model load + chunks embedded) {first:.2f} s; a new query afterwards {again:.2f} s")
    assert caption.count() == 1  # the expected answer stays
