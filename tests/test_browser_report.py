"""The static report in Chromium (chunkviz report; chunkviz.views.page): opened from file:// with every
request routed, counted and refused, it asks for nothing; hovering a chunk shows its tooltip; a ribbon
click scrolls every column; a click shows the chunk's details; the semantic slider re-cuts to exactly
the spans chunkviz makes at that percentile, with the app's caption; the hostile fixture stays text.

One report of the default sample with three columns (one semantic) is built per module (the model
embeds the sample once); the pictures go to test-output/ (docs/report.png is report.png)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.browser import animation_frames, wait_for
from test_browser import HOSTILE_TEXT, pwned

import chunkviz
from chunkviz.diagnostics.compare import ColumnConfig
from chunkviz.semantic import semantic_chunking
from chunkviz.views.build import build_view
from chunkviz.views.page import write_report

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "chunkviz" / "sample_docs" / "field_station_handbook.md"
OUTPUT = ROOT / "test-output"
VIEW_JS = "document.querySelector('.cvr-view').shadowRoot.querySelector('.cvd-root')"


def js(page: Any, body: str, arg: Any = None) -> Any:
    return page.evaluate(f"(arg) => {{ const root = {VIEW_JS}; {body} }}", arg)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    columns = [ColumnConfig("fixed_tokens"), ColumnConfig("recursive"), ColumnConfig("semantic")]
    view = build_view(chunkviz.read_path(SAMPLE), columns, doc_name="chunkviz/sample_docs/field_station_handbook.md")
    return write_report(view, tmp_path_factory.mktemp("report") / "report.html")


def open_offline(browser: Any, path: Path, ready: str = ".cv-doc[data-strategy='col2'] [data-chunk-index]") -> Any:
    """The file in a new page; every request but the file itself is counted and refused."""
    page = browser.new_context(viewport={"width": 1500, "height": 1100}).new_page()
    page.requests, page.page_errors, page.dialogs = [], [], []
    page.on("pageerror", lambda e: page.page_errors.append(str(e)))
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))

    def route(r: Any) -> None:
        if r.request.url == path.as_uri():
            r.continue_()
        else:
            page.requests.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.goto(path.as_uri())
    page.wait_for_selector(ready)
    return page


def spans_shown(page: Any, column: int) -> list[tuple[int, int]]:
    found = js(
        page,
        "return [...root.querySelectorAll(`.cv-doc[data-strategy='col${arg}'] [data-chunk-index]`)]"
        ".map((e) => [+e.dataset.chunkIndex, +e.dataset.start, +e.dataset.end]);",
        column,
    )
    return [(a, b) for _, a, b in sorted(found)]


def test_the_report_asks_no_host_and_works_offline(browser: Any, report: Path) -> None:
    page = open_offline(browser, report)
    text = SAMPLE.read_text(encoding="utf-8")
    for column, strategy in enumerate(["fixed_tokens", "recursive", "semantic"]):
        assert spans_shown(page, column) == [(c.start, c.end) for c in chunkviz.chunk(text, strategy)]
    # hover: the chunk's tooltip
    band = page.locator(".cv-doc[data-strategy='col1'] [data-chunk-index='2']").first
    band.hover()
    wait_for(lambda: js(page, "return !root.querySelector('.cvd-tip').hidden;"), "the tooltip")
    tip = js(page, "return root.querySelector('.cvd-tip').innerText;")
    assert "Chunk 2" in tip and "ends because" in tip
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / "report.png"))  # docs/report.png is this picture
    # a click: the chunk's details below the view
    band.click()
    focus = page.locator(".cvr-focus")
    wait_for(lambda: "chunk 2" in focus.inner_text(), "the selected chunk's details")
    chunk = chunkviz.chunk(text, "recursive")[2]
    assert page.locator(".cvr-focus pre.cvr-text").inner_text() == chunk.text.replace("\r", "")
    assert f"characters {chunk.start:,}–{chunk.end:,}" in focus.inner_text()
    # a ribbon click scrolls every column there
    page.mouse.move(1, 1)
    track = js(
        page,
        "const r = root.querySelectorAll('.cvd-track')[0].getBoundingClientRect(); return [r.left, r.top, r.width, r.height];",
    )
    page.mouse.click(track[0] + track[2] * 0.6, track[1] + track[3] / 2)
    for column in range(3):
        wait_for(
            lambda c=column: js(page, "return root.querySelectorAll('.cvd-box')[arg].scrollTop;", c) > 200,
            f"column {column} to scroll",
        )
    animation_frames(page)
    assert page.requests == [], page.requests
    assert page.page_errors == [] and page.dialogs == []


def test_the_slider_recuts_exactly_as_chunkviz(browser: Any, report: Path) -> None:
    page = open_offline(browser, report)
    text = SAMPLE.read_text(encoding="utf-8")
    slider = page.locator("input.cvr-range")
    assert slider.count() == 1 and slider.input_value() == "95"
    for p in (80, 60, 99, 0, 100, 95):
        slider.fill(str(p))
        expected = [(c.start, c.end) for c in chunkviz.chunk(text, "semantic", percentile=p)]
        wait_for(lambda e=expected: spans_shown(page, 2) == e, f"the semantic column's spans at percentile {p}")
        explanation = semantic_chunking(text, amount=p)
        assert page.locator(".cvr-caption").inner_text() == explanation.threshold_caption()
        line = float(page.locator("line.cvr-threshold").get_attribute("data-value"))
        assert abs(line - explanation.threshold.value) < 1e-3
        assert page.locator("circle.cvr-cut").count() == len(explanation.threshold.breakpoints)
        ribbon = js(
            page,
            "return [...root.querySelectorAll('.cvd-track')[2].querySelectorAll('.cvd-tick')].map((t) => +t.dataset.offset);",
        )
        assert sorted(ribbon) == [b for _, b in expected]
        if p == 60:
            page.locator(".cvr-semantic").scroll_into_view_if_needed()
            page.screenshot(path=str(OUTPUT / "report_slider.png"), full_page=True)
    # a point of the plot selects the chunk that ends after its first sentence
    explanation = semantic_chunking(text, amount=95)
    pair = explanation.threshold.breakpoints[0]
    target = next(c for c in explanation.chunks if c.metadata["sentences"][1] == pair + 1)
    page.locator(f"circle.cvr-pt[data-pair='{pair}']").click()
    wait_for(lambda: f"chunk {target.index}" in page.locator(".cvr-focus").inner_text(), "the point's chunk selected")
    assert js(page, "return root.querySelectorAll('.cvd-box')[2].querySelectorAll('.cvd-sel').length;") > 0
    # the other columns never changed
    assert spans_shown(page, 0) == [(c.start, c.end) for c in chunkviz.chunk(text, "fixed_tokens")]
    assert page.requests == [] and page.page_errors == []


def test_the_hostile_fixture_shows_as_text_and_runs_nothing(browser: Any, tmp_path: Path) -> None:
    view = build_view(
        HOSTILE_TEXT,
        [ColumnConfig("fixed_tokens"), ColumnConfig("recursive")],
        doc_name="<img src=x onerror=alert(1)>.md",
    )
    path = write_report(view, tmp_path / "hostile.html")
    page = open_offline(browser, path, ".cv-doc[data-strategy='col1'] [data-chunk-index]")
    assert pwned(page) == [None, None]
    shown = js(page, "return root.querySelector(\".cv-doc[data-strategy='col0']\").textContent;")
    assert shown == HOSTILE_TEXT
    assert (
        js(
            page,
            "return root.querySelectorAll('.cv-doc script, .cv-doc img, .cv-doc a, .cv-doc style, .cv-doc svg, .cv-doc iframe').length;",
        )
        == 0
    )
    assert page.locator("h2").inner_text() == "chunkviz · <img src=x onerror=alert(1)>.md"
    for literal in ("<script>window.__pwned=1</script>", '<img src=x onerror="window.__pwned=2">'):
        assert literal in js(page, "return root.querySelector(\".cv-doc[data-strategy='col1']\").innerText;")
    page.locator(".cv-doc[data-strategy='col0'] [data-chunk-index]").first.click()
    wait_for(lambda: page.locator(".cvr-focus pre.cvr-text").count() == 1, "the chunk's details")
    page.mouse.move(1, 1)
    page.locator(".cv-doc[data-strategy='col1']").get_by_text("javascript:window.__pwned=3", exact=False).first.click()
    animation_frames(page)
    assert pwned(page) == [None, None]
    assert page.requests == [] and page.page_errors == [] and page.dialogs == []
    page.screenshot(path=str(OUTPUT / "report_hostile.png"))


def test_the_page_reads_the_document_back_whole(browser: Any, tmp_path: Path) -> None:
    """The text is in the file once (inside the columns): the page reads it back exactly, CRLF, CR,
    NUL and characters beyond the BMP included, and a click shows a chunk's exact text."""
    text = "Caf\u00e9 \U0001f600 one.\r\n\r\nTwo\rthree\x00four.\r\n\r\n" + HOSTILE_TEXT
    view = build_view(
        text, [ColumnConfig("paragraphs"), ColumnConfig("fixed_tokens", {"chunk_size": 16, "overlap": 4})]
    )
    page = open_offline(
        browser, write_report(view, tmp_path / "text.html"), ".cv-doc[data-strategy='col1'] [data-chunk-index]"
    )
    assert page.evaluate("() => document.querySelector('.cvr').__cvr.text") == text
    assert pwned(page) == [None, None] and page.requests == [] and page.page_errors == []


def test_the_report_from_a_static_host_asks_for_nothing_else(browser: Any, report: Path) -> None:
    """Served as a plain file by a static web server (on 127.0.0.1), the page works and asks for nothing more."""
    import functools  # noqa: PLC0415
    import http.server  # noqa: PLC0415
    import threading  # noqa: PLC0415

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(report.parent))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/{report.name}"
        page = browser.new_context(viewport={"width": 1500, "height": 1100}).new_page()
        asked: list[str] = []
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: asked.append(r.url))
        page.goto(url)
        page.wait_for_selector(".cv-doc[data-strategy='col2'] [data-chunk-index]")
        page.locator("input.cvr-range").fill("70")
        wait_for(
            lambda: "percentile 70" in js(page, "return root.querySelectorAll('.cvd-summary')[2].textContent;"),
            "the re-cut",
        )
        assert asked == [url] and errors == []
        page.context.close()
    finally:
        server.shutdown()
        server.server_close()
