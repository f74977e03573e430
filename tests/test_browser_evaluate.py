"""End-to-end: the Evaluate view in a real (headless) Chromium at 1500x1100.

Runs the evaluation on the default sample with its questions, clicks a question and checks
the document view: the reference highlighted (a CSS highlight) and rank badges in every
column, each column scrolled to its best hit. A size sweep draws its line charts. Screenshots
go to ``test-output/`` (git-ignored): evaluate_results.png, evaluate_question.png,
evaluate_questions_table.png, evaluate_sweep.png.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from support.browser import animation_frames, box_rect, js, wait_for

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parent.parent
OUTPUT = REPO / "test-output"
#: A cold run loads the model and embeds every configuration's chunks.
RUN_TIMEOUT_S = 300


# ----------------------------------------------------------------------------- helpers
def shot(page: Any, name: str, full_page: bool = False) -> Path:
    OUTPUT.mkdir(exist_ok=True)
    path = OUTPUT / name
    page.mouse.move(1, 1)
    page.screenshot(path=str(path), full_page=full_page)
    print(f"screenshot: {path}")
    return path


def idle(page: Any) -> None:
    wait_for(
        lambda: page.locator('[data-testid="stStatusWidget"]').count() == 0, "the script run to finish", RUN_TIMEOUT_S
    )


def open_evaluate(page: Any) -> None:
    page.locator('[data-testid="stButtonGroup"] button').filter(has_text="Evaluate retrieval").click()
    page.get_by_role("button", name=re.compile("Run the evaluation")).wait_for()


def run_evaluation(page: Any) -> None:
    page.get_by_role("button", name=re.compile("Run the evaluation")).click()
    wait_for(lambda: page.locator(".js-plotly-plot").count() == 2, "the recall@k and IoU charts", RUN_TIMEOUT_S)
    idle(page)


def click_question(page: Any, row: int) -> None:
    """Tick a row of the per-question table (the page's second dataframe, a glide canvas: 35 px
    rows under a 35 px header, the row's selection cell first)."""
    table = page.locator('[data-testid="stDataFrame"]').nth(1)
    table.scroll_into_view_if_needed()
    box = table.bounding_box()
    page.mouse.click(box["x"] + 15, box["y"] + 35 + 35 * row + 17)


def badges(page: Any) -> list[list[str]]:
    """Per column, the rank badges drawn, in document order."""
    return js(page, "return [...root.querySelectorAll('.cvd-box')].map(b => [...b.querySelectorAll('[data-cvd-badge]')]"
                    ".map(e => e.getAttribute('data-cvd-badge')));")  # fmt: skip


def visible_badge(page: Any, column: int, prefix: str) -> bool:
    """Whether a badge starting with ``prefix`` lies inside column ``column``'s box."""
    box = box_rect(page, column)
    return js(page, """
        const [c, prefix, top, bottom] = arg;
        return [...root.querySelectorAll('.cvd-box')[c].querySelectorAll('[data-cvd-badge]')]
            .filter(e => e.getAttribute('data-cvd-badge').startsWith(prefix))
            .some(e => { const r = e.getBoundingClientRect(); return r.top >= top && r.bottom <= bottom; });
    """, [column, prefix, box["top"], box["bottom"]])  # fmt: skip


# ----------------------------------------------------------------------------- tests
def test_evaluate_the_columns_then_see_a_questions_reference_and_top_k(page: Any) -> None:
    open_evaluate(page)
    run_evaluation(page)
    table = page.locator('[data-testid="stDataFrame"]').first
    assert table.bounding_box()["width"] > 1000, "the results table uses the page's width"
    shot(page, "evaluate_results.png", full_page=True)

    click_question(page, 6)  # two reference spans
    page.wait_for_selector('[data-testid="stBidiComponentIsolated"]')
    wait_for(
        lambda: all(len(b) == 5 for b in badges(page)) and len(badges(page)) == 3, "five rank badges in each column"
    )
    for column, found in enumerate(badges(page)):
        ranks = sorted(int(re.match(r"#(\d+) · \d\.\d\d", b).group(1)) for b in found)
        assert ranks == [1, 2, 3, 4, 5], (column, found)
        assert wait_for(lambda c=column: visible_badge(page, c, "#1 "), f"column {column}'s best hit in view")
    ranges = page.evaluate("() => { const h = CSS.highlights.get('cvd-ref'); return h ? h.size : 0; }")
    assert ranges >= 3, "the references are highlighted in every column"
    page.locator('[data-testid="stBidiComponentIsolated"]').scroll_into_view_if_needed()
    animation_frames(page)
    shot(page, "evaluate_question.png")
    page.get_by_role("heading", name="Per question").scroll_into_view_if_needed()
    page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollBy(0, -20)")
    animation_frames(page)
    shot(page, "evaluate_questions_table.png")


def test_a_size_sweep_draws_a_line_per_strategy(page: Any, server: str) -> None:
    """On a short sample with its questions (api_guide.md, a quarter of the default one): twelve
    configurations embed their chunks, and the charts do not depend on the document."""
    page.goto(server + "/?doc=api_guide.md")
    page.wait_for_selector("[data-chunk-index]")
    open_evaluate(page)
    page.locator('[role="radiogroup"] label').filter(has_text="A size sweep").click()
    page.get_by_label(re.compile("^Sizes")).wait_for()
    run_evaluation(page)
    legends = page.locator(".js-plotly-plot .legendtext").all_text_contents()
    assert legends == ["1. fixed_tokens", "2. recursive", "3. paragraphs"] * 2
    ticks = page.locator(".js-plotly-plot").first.locator(".xtick text").all_text_contents()
    assert ticks == ["128", "256", "512", "1024"]
    page.locator(".js-plotly-plot").first.scroll_into_view_if_needed()
    shot(page, "evaluate_sweep.png", full_page=True)
