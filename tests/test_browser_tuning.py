"""End-to-end: the semantic tuning panel in a real Streamlit server and a headless Chromium.

Serves ``tests/apps/tuning_demo.py`` (semantic chunking of the topic-shift sample with the real
offline MiniLM model) and drives Debian's Chromium with Playwright (never ``playwright install``);
skipped with the reason when Chromium or playwright is missing. Screenshots go to ``test-output/``.
Playwright's CSS selectors reach into the component's shadow root.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest
from support.browser import open_page, streamlit_server, wait_for
from support.caches import cache_root_sharing_vectors

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parent.parent
OUTPUT = REPO / "test-output"
TIMEOUT_S = 120
SAMPLE = REPO / "chunkviz/sample_docs" / "topic_shifts.txt"
PANEL = '[data-testid="cvt-panel"]'


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One semantic disk cache for the server and this process (the test embeds nothing twice)."""
    path = cache_root_sharing_vectors(tmp_path_factory)  # the run's vectors, shared (tests/support/caches.py)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CHUNKVIZ_CACHE_DIR", str(path))
        yield path


@pytest.fixture(scope="module")
def server(sync_api, cache_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:  # noqa: ANN001
    # CHUNKVIZ_DEMO_TEXT_HEIGHT: the sample overflows the text box, so scrolling is tested
    env = {"CHUNKVIZ_CACHE_DIR": str(cache_dir), "CHUNKVIZ_DEMO_DOC": str(SAMPLE), "CHUNKVIZ_DEMO_TEXT_HEIGHT": "300"}
    with streamlit_server(REPO / "tests" / "apps" / "tuning_demo.py", tmp_path_factory.mktemp("streamlit"), env) as url:
        yield url


@pytest.fixture
def page(browser, server: str) -> Iterator[Any]:  # noqa: ANN001
    page = open_page(browser, server, TIMEOUT_S)
    page.wait_for_selector(f'{PANEL}[data-state="settled"]')
    yield page
    assert page.page_errors == []
    page.close()


# ----------------------------------------------------------------------------- helpers


def attr(page: Any, selector: str, name: str) -> str | None:
    return page.get_attribute(selector, name)


def settled_at(page: Any, amount: float) -> None:
    page.wait_for_selector(f'{PANEL}[data-state="settled"][data-amount="{amount:g}"]')


def text_spans(page: Any) -> list[tuple[int, int]]:
    return [
        tuple(x)
        for x in page.eval_on_selector_all(
            ".cvt-text [data-chunk-index]:not([data-parent-index])",
            "els => els.map(e => [Number(e.dataset.start), Number(e.dataset.end)])",
        )
    ]


def plot_state(page: Any) -> dict[str, Any]:
    marks = attr(page, ".cvt-break", "data-pairs") if page.locator(".cvt-break").count() else ""
    return {
        "threshold": float(attr(page, '[data-testid="cvt-threshold"]', "data-value")),
        "y": float(attr(page, '[data-testid="cvt-threshold"]', "y1")),
        "breakpoints": [int(i) for i in (marks or "").split()],
        "bands": page.locator(".cvt-band").count(),
    }


def python_truth(amount: float):  # noqa: ANN201 - the SemanticExplanation the server computed
    from chunkviz.semantic.explanation import semantic_chunking

    return semantic_chunking(SAMPLE.read_text(encoding="utf-8"), amount=amount)


# ----------------------------------------------------------------------------- tests


def test_default_view_shows_both_topic_shifts_as_breakpoints(page: Any) -> None:
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / "tuning_panel_default.png"))
    truth = python_truth(95)
    assert list(truth.threshold.breakpoints) == [9, 19] and truth.size_splits == ()
    plot = plot_state(page)
    assert plot["breakpoints"] == [9, 19] and plot["bands"] == 3
    assert text_spans(page) == [(c.start, c.end) for c in truth.chunks]
    caption = page.locator(".cvt-caption").inner_text()
    assert caption.startswith(
        f"similarity threshold {truth.threshold.value:.3f} = 5th percentile of 27 pairs · 2 breakpoints"
    )
    assert page.locator(".cvt-range").get_attribute("aria-label").startswith("percentile p")


def test_moving_the_percentile_moves_the_threshold_line_and_the_text_boundaries_together(page: Any) -> None:
    before_plot, before_spans = plot_state(page), text_spans(page)
    sends = int(attr(page, PANEL, "data-sends") or 0)
    page.locator(".cvt-range").focus()
    for _ in range(10):
        page.keyboard.press("ArrowLeft")
    truth = python_truth(85)
    # the line moves from the step table (drawn on a later frame; the ten presses may take several
    # frames on a loaded machine, so wait for the last step's line, not the first one that moved)
    at_85 = lambda p: p if p["threshold"] == pytest.approx(truth.threshold.value, abs=5e-5) else None  # noqa: E731
    preview = wait_for(lambda: at_85(plot_state(page)), "the preview line at 85")
    assert preview["y"] < before_plot["y"]
    settled_at(page, 85)
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / "tuning_panel_p85.png"))
    after = plot_state(page)
    assert (
        after["threshold"]
        == pytest.approx(truth.threshold.value, abs=5e-5)
        == pytest.approx(preview["threshold"], abs=5e-5)
    )
    assert after["breakpoints"] == list(truth.threshold.breakpoints) and len(after["breakpoints"]) > 2
    spans = text_spans(page)
    assert spans == [(c.start, c.end) for c in truth.chunks] != before_spans
    assert after["bands"] == len(spans)
    # every breakpoint of the plot is a chunk end in the text (in the gap after its sentence)
    sentences = truth.analysis.sentences
    ends = {b for _, b in spans}
    for i in after["breakpoints"]:
        assert any(sentences[i][1] <= e <= sentences[i + 1][0] for e in ends), i
    # at least one update (one when the presses come faster than the debounce; a slow machine may
    # space them wider: the one-update rule is checked exactly in the burst test below)
    assert int(attr(page, PANEL, "data-sends")) >= sends + 1
    assert (
        page.locator(".cvt-caption")
        .inner_text()
        .startswith(f"similarity threshold {truth.threshold.value:.3f} = 15th percentile")
    )


def test_a_burst_of_20_steps_is_one_update(page: Any) -> None:
    """20 steps of the range inside the debounce window (dispatched in one task, so machine load
    cannot space them out) reach Python as one update."""
    sends, renders = int(attr(page, PANEL, "data-sends") or 0), int(attr(page, PANEL, "data-renders"))
    page.locator(".cvt-range").evaluate(
        "r => { for (let i = 0; i < 20; i++) { r.value = String(Number(r.value) - 1); r.dispatchEvent(new Event('input', {bubbles: true})); } }"
    )
    settled_at(page, 75)
    assert attr(page, PANEL, "data-pending") == "0", "no send is scheduled: nothing else can arrive"
    assert int(attr(page, PANEL, "data-sends")) == sends + 1
    assert int(attr(page, PANEL, "data-renders")) == renders + 1
    assert plot_state(page)["breakpoints"] == list(python_truth(75).threshold.breakpoints)


def test_typing_a_number_updates_and_the_text_keeps_its_scroll_position(page: Any) -> None:
    box = page.locator(".cvt-text")
    top = box.evaluate("b => { b.scrollTop = Math.round((b.scrollHeight - b.clientHeight) / 2); return b.scrollTop; }")
    assert top > 10, "the sample's text overflows its box"
    number = page.locator(".cvt-number")
    number.fill("90")
    settled_at(page, 90)
    assert box.evaluate("b => b.scrollTop") == pytest.approx(top, abs=2)
    assert page.locator(".cvt-range").input_value() == "90"
    assert plot_state(page)["breakpoints"] == list(python_truth(90).threshold.breakpoints)


def test_hovering_a_point_shows_the_two_sentences(page: Any) -> None:
    truth = python_truth(95)
    text = truth.text
    a, b = truth.analysis.sentences[9], truth.analysis.sentences[10]
    point = page.locator('.cvt-dot[data-pair="9"]').bounding_box()
    page.mouse.move(point["x"] + point["width"] / 2, point["y"] + point["height"] / 2)
    tip = page.locator(".cvt-tip")
    tip.wait_for(state="visible")
    content = tip.inner_text()
    assert "pair 9 (sentences 9 and 10)" in content and "breakpoint" in content
    assert text[a[1] - 30 : a[1]].strip() in " ".join(content.split())
    assert " ".join(text[b[0] : b[0] + 30].split()) in " ".join(content.split())
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / "tuning_panel_hover.png"))
