"""End-to-end in Chromium: the Evaluate view's "Find the best" with hybrid retrieval on a small
sample (two chunkings), then a click on a frontier point loads that configuration into column 1
of the Compare view. Screenshots: test-output/findbest_frontier.png, findbest_loaded.png."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from support.browser import animation_frames, wait_for

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parent.parent
OUTPUT = REPO / "test-output"
RUN_TIMEOUT_S = 300


def shot(page: Any, name: str) -> None:
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / name), full_page=True)
    print(f"screenshot: {OUTPUT / name}")


def idle(page: Any) -> None:
    wait_for(
        lambda: page.locator('[data-testid="stStatusWidget"]').count() == 0, "the script run to finish", RUN_TIMEOUT_S
    )


def test_find_the_best_with_hybrid_then_click_a_frontier_point(page: Any, server: str) -> None:
    page.goto(server + "/?doc=topic_shifts.txt")
    page.wait_for_selector("[data-chunk-index]")
    page.locator('[data-testid="stButtonGroup"] button').filter(has_text="Evaluate retrieval").click()
    page.get_by_text("Find the best configuration").click()
    section = page.locator('[data-testid="stExpander"]').filter(has_text="Find the best configuration")
    retrievers = section.locator('[data-testid="stMultiSelect"]').filter(has_text="Retrievers to search")
    retrievers.wait_for()
    idle(page)
    # the retriever choice: hybrid only
    box = retrievers.locator("input")
    box.click()
    for _ in range(3):
        box.press("Backspace")
    box.type("hybrid")
    box.press("Enter")
    page.keyboard.press("Escape")
    idle(page)
    assert retrievers.locator(".react-aria-ComboBox [data-tag]").all_text_contents() == ["hybrid"]
    budget = page.get_by_label(re.compile(r"^Budget \(chunkings"))
    budget.fill("2")
    budget.press("Enter")
    idle(page)
    page.get_by_role("button", name=re.compile(r"Find the best \(2 chunkings × 1 retrievers")).click()
    chart = page.locator(".js-plotly-plot")
    wait_for(lambda: chart.count() == 1, "the frontier plot", RUN_TIMEOUT_S)
    idle(page)
    legend = chart.locator(".legendtext").all_text_contents()
    assert legend[:2] == ["hybrid: tried", "hybrid: frontier"]
    chart.scroll_into_view_if_needed()
    animation_frames(page)
    shot(page, "findbest_frontier.png")
    # click the frontier line's best-recall point (the last one drawn on the line)
    points = chart.locator(".scatterlayer .trace").nth(1).locator("path.point")
    wait_for(lambda: points.count() >= 1, "the frontier's points")
    points.last.click(force=True)
    # the page switches to Compare with column 1 running the point's chunking: size 128, no overlap
    page.get_by_placeholder(re.compile("^Query: type a question")).wait_for(timeout=RUN_TIMEOUT_S * 1000)
    page.wait_for_selector("[data-chunk-index]")
    idle(page)
    sidebar = page.locator('[data-testid="stSidebar"]')
    column = sidebar.locator('[data-testid="stExpander"]').filter(has_text="Column 1")
    assert column.get_by_label("overlap", exact=True).input_value() == "0"
    assert column.get_by_label("chunk size", exact=True).input_value() == "128"
    shot(page, "findbest_loaded.png")
