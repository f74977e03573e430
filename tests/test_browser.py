"""End-to-end: the real Streamlit server driven by a real (headless) Chromium.

A module fixture starts ``python -m streamlit run app.py`` on a free port and stops it after the
tests; Playwright drives Debian's Chromium (``/usr/bin/chromium``; ``playwright install`` is
never needed). The tests are skipped, with the reason, when Chromium or the playwright package
is missing. Screenshots go to ``test-output/`` (git-ignored).
"""

from __future__ import annotations

import ast
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

import chunkviz
from chunkviz.document.read import read_bytes

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parent.parent
OUTPUT = REPO / "test-output"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
VIEWPORT = {"width": 1600, "height": 1100}
TIMEOUT_S = 90

#: Known text for the upload test: several fixed_tokens chunks, a distinctive sentence, unicode.
DISTINCTIVE = "The heron counted seventeen lanterns on the quay at Uppsala."
UPLOAD_TEXT = "".join(
    f"## Part {k}\n\nParagraph {k} talks about chunk boundaries, token windows and overlap. "
    f"It mentions caf\u00e9 {k}, na\u00efve sets and an emoji \U0001f44d. "
    + (DISTINCTIVE + " " if k == 7 else "")
    + "Sentences end here; others continue after a comma, like this one.\n\n"
    for k in range(40)
)

HOSTILE_TEXT = (
    "Hostile document, shown as text only.\n\n"
    "<script>window.__pwned=1</script>\n"
    '<img src=x onerror="window.__pwned=2">\n'
    "</div></div>\n"
    '<a href="javascript:window.__pwned=3">click</a>\n'
    "<!-- comment -->\n"
    "<style>body{display:none}</style>\n"
    '<svg onload="window.__pwned=4"></svg> <iframe src="javascript:window.parent.__pwned=5"></iframe>\n\n'
    + "A closing paragraph with ordinary words so that there is more than one chunk of text. " * 30
)


# ----------------------------------------------------------------------------- fixtures


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def sync_api():  # noqa: ANN201 - the playwright.sync_api module
    if not CHROMIUM.exists():
        pytest.skip(f"Chromium not found at {CHROMIUM} (Debian package 'chromium'; see .ci/run)")
    try:
        from playwright import sync_api
    except ImportError:
        pytest.skip("the playwright Python package is not installed")
    return sync_api


@pytest.fixture(scope="module")
def server(sync_api, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:  # noqa: ANN001
    """The app served by ``streamlit run`` on a free port; yields its URL."""
    port = _free_port()
    log_path = tmp_path_factory.mktemp("streamlit") / "server.log"
    env = dict(os.environ)
    env.update(
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        CHUNKVIZ_CACHE_DIR=str(tmp_path_factory.mktemp("chunkviz-cache")),
    )
    env.pop("CHUNKVIZ_ALLOW_DOWNLOAD", None)
    command = [
        sys.executable, "-m", "streamlit", "run", "app.py",
        "--server.headless", "true",
        "--server.port", str(port),
        "--server.address", "127.0.0.1",
        "--browser.gatherUsageStats", "false",
        # no watcher over the repository (and .venv): fewer inotify events, no reload prompts
        "--server.fileWatcherType", "none",
    ]  # fmt: skip
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                pytest.fail(f"streamlit exited with {process.returncode}:\n{log_path.read_text(errors='replace')}")
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                    if response.read().strip() == b"ok":
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"streamlit did not become healthy in 60 s:\n{log_path.read_text(errors='replace')}")
            time.sleep(0.3)
        yield url
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=5)


@pytest.fixture(scope="module")
def browser(sync_api) -> Iterator[Any]:  # noqa: ANN001
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, server: str) -> Iterator[Any]:  # noqa: ANN001
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_S * 1000)
    page.dialogs = []  # type: ignore[attr-defined]
    page.page_errors = []  # type: ignore[attr-defined]
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: page.page_errors.append(str(e)))
    page.goto(server)
    page.wait_for_selector("[data-chunk-index]")
    yield page
    context.close()


# ----------------------------------------------------------------------------- helpers


def chunk_spans(page: Any, column: int) -> list[tuple[int, int]]:
    return [
        tuple(x)
        for x in page.eval_on_selector_all(
            f'[data-strategy="col{column}"][data-chunk-index]',
            "els => els.map(e => [Number(e.dataset.start), Number(e.dataset.end)])",
        )
    ]


def wait_for(condition: Callable[[], Any], what: str, timeout: float = TIMEOUT_S) -> Any:
    """Poll until ``condition()`` is truthy (the page re-renders asynchronously after each input)."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = condition()
        except Exception as exc:  # noqa: BLE001 - elements are replaced while Streamlit re-renders
            last = exc
        if last and not isinstance(last, Exception):
            return last
        time.sleep(0.25)
    raise AssertionError(f"timed out waiting for {what}; last value: {last!r}")


def wait_for_spans(page: Any, column: int, expected: list[tuple[int, int]]) -> None:
    def same() -> bool:
        return chunk_spans(page, column) == expected

    try:
        wait_for(same, f"column {column} to show the engine's spans")
    except AssertionError:
        assert chunk_spans(page, column) == expected  # shows the difference


def wait_until_idle(page: Any) -> None:
    """Until Streamlit's "running" indicator is gone."""
    wait_for(lambda: page.locator('[data-testid="stStatusWidget"]').count() == 0, "the script run to finish")


def choose_source(page: Any, source: str) -> None:
    page.locator('[data-testid="stSidebar"] [role="radiogroup"] label').filter(has_text=source).first.click()


def spans_of(chunks: list[chunkviz.Chunk]) -> list[tuple[int, int]]:
    return [(c.start, c.end) for c in chunks]


def pwned(page: Any) -> Any:
    return page.evaluate("() => [window.__pwned, window.parent && window.parent.__pwned]")


def screenshot_columns(page: Any, path: Path) -> None:
    """Screenshot the chunk views side by side, each scrolled to its first chunk boundary.

    The main area is scrolled so the column headings sit just below Streamlit's toolbar, and each
    view (a scroll box of 70% of the viewport) is scrolled so its first overlap region, or else
    its first end marker, is in the upper third: colour bands, stripes and markers are in view.
    """
    OUTPUT.mkdir(exist_ok=True)
    page.mouse.move(1, 1)  # no hover outline in the picture
    page.evaluate(
        """() => {
            const view = document.querySelector('.cv-doc[data-strategy="col0"]');
            const column = view.closest('[data-testid="stColumn"]');
            const heading = (column && column.querySelector('h3')) || view;
            heading.scrollIntoView({block: 'start'});
            const main = document.querySelector('[data-testid="stMain"]') || document.scrollingElement;
            main.scrollBy(0, -70);
            for (const doc of document.querySelectorAll('.cv-doc')) {
                const mark = doc.querySelector('[data-overlap]') || doc.querySelector('i.cv-e');
                if (!mark) continue;
                const offset = mark.getBoundingClientRect().top - doc.getBoundingClientRect().top + doc.scrollTop;
                doc.scrollTop = Math.max(0, offset - doc.clientHeight / 3);
            }
        }"""
    )
    page.wait_for_timeout(500)
    page.screenshot(path=str(path))


def sample_text(name: str) -> str:
    return read_bytes((REPO / "sample_docs" / name).read_bytes(), name).text


def app_constant(name: str) -> Any:
    for node in ast.parse((REPO / "app.py").read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == name:
            return ast.literal_eval(node.value)
    raise AssertionError(f"{name} not found in app.py")


def default_sample() -> str:
    return app_constant("DEFAULT_SAMPLE")


def default_columns() -> tuple[str, ...]:
    columns = tuple(app_constant("DEFAULT_COLUMNS"))
    assert columns[0] == "fixed_tokens", f"these tests type into column 1's fixed_tokens 'chunk size'; defaults are now {columns}"
    return columns


def click_table_row(page: Any, column: int, row: int) -> None:
    """Click the selection cell of a (visible) row of a column's chunk table.

    The table is a canvas (glide data grid): rows are 35 px high under a 35 px header and the
    first cell of each row is its selection checkbox.
    """
    holder = page.locator('[data-testid="stColumn"]').filter(has=page.locator(f'.cv-doc[data-strategy="col{column}"]'))
    table = holder.locator('[data-testid="stDataFrame"]').first
    table.scroll_into_view_if_needed()
    box = table.bounding_box()
    page.mouse.click(box["x"] + 15, box["y"] + 35 + 35 * row + 17)


def set_chunk_size(page: Any, value: int) -> None:
    column1 = page.locator('[data-testid="stSidebar"] [data-testid="stExpander"]').filter(has_text="Column 1")
    field = column1.get_by_role("spinbutton", name="chunk size", exact=True)
    field.fill(str(value))
    field.press("Enter")


# ----------------------------------------------------------------------------- tests


def test_upload_shows_the_engine_spans_and_follows_a_parameter_change(page: Any) -> None:
    choose_source(page, "Upload")
    file_input = page.locator('[data-testid="stSidebar"] input[type="file"]')
    file_input.wait_for(state="attached")
    file_input.set_input_files({"name": "upload_test.md", "mimeType": "text/markdown", "buffer": UPLOAD_TEXT.encode("utf-8")})

    default_columns()
    expected = spans_of(chunkviz.chunk(UPLOAD_TEXT, "fixed_tokens"))
    assert len(expected) > 2
    wait_for_spans(page, 0, expected)
    # the view shows the uploaded text exactly (fixed_tokens adds no text)
    view = page.locator('.cv-doc[data-strategy="col0"]')
    assert view.evaluate("el => el.textContent") == UPLOAD_TEXT
    assert DISTINCTIVE in view.inner_text()
    assert page.get_by_text("upload_test.md").count() >= 1  # the uploader lists the file
    # the "chunks" metric agrees
    metric = page.locator('[data-testid="stMetric"]').filter(has_text="chunks").first
    assert metric.locator('[data-testid="stMetricValue"]').inner_text().strip() == str(len(expected))

    # change column 1's chunk size: type into its number input and press Enter
    set_chunk_size(page, 150)
    expected_150 = spans_of(chunkviz.chunk(UPLOAD_TEXT, "fixed_tokens", chunk_size=150))
    assert expected_150 != expected
    wait_for_spans(page, 0, expected_150)
    wait_until_idle(page)
    wait_for_spans(page, 0, expected_150)
    # the other columns still show the engine's default spans for the uploaded text
    for column, strategy in enumerate(default_columns()[1:], start=1):
        wait_for_spans(page, column, spans_of(chunkviz.chunk(UPLOAD_TEXT, strategy)))
    assert page.page_errors == []


def test_hostile_html_is_inert_text(page: Any) -> None:
    choose_source(page, "Paste")
    area = page.locator('[data-testid="stSidebar"] textarea')
    area.fill(HOSTILE_TEXT)
    area.press("Control+Enter")
    expected = spans_of(chunkviz.chunk(HOSTILE_TEXT, "fixed_tokens"))
    wait_for_spans(page, 0, expected)
    wait_until_idle(page)

    assert pwned(page) == [None, None]
    view = page.locator('.cv-doc[data-strategy="col0"]')
    text = view.inner_text()
    for literal in (
        "<script>window.__pwned=1</script>",
        '<img src=x onerror="window.__pwned=2">',
        '<a href="javascript:window.__pwned=3">click</a>',
        "<!-- comment -->",
        "<style>body{display:none}</style>",
    ):
        assert literal in text, literal
    assert view.evaluate("el => el.textContent") == HOSTILE_TEXT
    # no element was created from the document's markup
    assert page.locator(".cv-doc script, .cv-doc img, .cv-doc a, .cv-doc style, .cv-doc svg, .cv-doc iframe").count() == 0
    # "</div></div>" did not close the view early: every chunk is still inside its view
    for column, strategy in enumerate(default_columns()):
        wait_for_spans(page, column, spans_of(chunkviz.chunk(HOSTILE_TEXT, strategy)))
        inside = page.locator(f'.cv-doc[data-strategy="col{column}"] [data-chunk-index]').count()
        assert inside == len(chunkviz.chunk(HOSTILE_TEXT, strategy))
    # the page is still visible (the <style> did not apply) and clicking the link text does nothing
    # (Streamlit's <body> has zero height by design; its app root is what is shown)
    assert page.evaluate("() => getComputedStyle(document.body).display") != "none"
    assert page.locator('[data-testid="stApp"]').is_visible() and view.is_visible()
    view.get_by_text("click", exact=False).first.click()
    page.wait_for_timeout(500)
    assert pwned(page) == [None, None]
    assert page.dialogs == []
    assert page.page_errors == []
    screenshot_columns(page, OUTPUT / "hostile.png")


def test_main_view_screenshot(page: Any) -> None:
    wait_until_idle(page)
    for column in range(3):
        assert page.locator(f'[data-strategy="col{column}"][data-chunk-index]').count() > 0
    # overlap stripes and end markers are drawn (the default columns overlap)
    assert page.locator('[data-strategy="col0"][data-overlap]').count() > 0
    assert page.locator('.cv-doc[data-strategy="col0"] i.cv-e').count() == page.locator('[data-strategy="col0"][data-chunk-index]').count()
    band = page.locator('[data-strategy="col0"][data-chunk-index="0"]')
    colour = band.evaluate("el => getComputedStyle(el).backgroundColor")
    assert colour not in ("rgba(0, 0, 0, 0)", "transparent"), "chunk bands are coloured"
    stripes = page.locator('[data-strategy="col0"][data-overlap]').first.evaluate("el => getComputedStyle(el).backgroundImage")
    assert "linear-gradient" in stripes, "overlaps are striped"
    screenshot_columns(page, OUTPUT / "main_view.png")
    assert (OUTPUT / "main_view.png").stat().st_size > 10_000
    assert page.page_errors == []


def test_clicking_a_table_row_selects_the_chunk(page: Any) -> None:
    default_columns()
    text = sample_text(default_sample())
    chunks = chunkviz.chunk(text, "fixed_tokens")
    wait_until_idle(page)
    click_table_row(page, 0, 2)
    selected = page.locator('.cv-sel[data-strategy="col0"]')
    wait_for(lambda: selected.count() == 1 and selected.get_attribute("data-chunk-index") == "2", "chunk 2 to be selected")
    wait_until_idle(page)
    codes = page.locator('[data-testid="stCode"]').evaluate_all("els => els.map(e => e.textContent)")
    assert any(chunks[2].text.strip()[:300] in code for code in codes), "the focus panel shows the chunk's text"
    assert page.locator(".cv-sel").count() == 1
    page.mouse.move(1, 1)
    OUTPUT.mkdir(exist_ok=True)
    selected.scroll_into_view_if_needed()
    page.screenshot(path=str(OUTPUT / "selected.png"))


def test_selection_then_fewer_chunks_does_not_crash(page: Any) -> None:
    text = sample_text(default_sample())
    wait_until_idle(page)
    click_table_row(page, 0, 2)
    wait_for(lambda: page.locator('.cv-sel[data-strategy="col0"]').count() == 1, "a selected chunk")
    wait_until_idle(page)
    set_chunk_size(page, 5000)
    page.wait_for_timeout(1000)
    wait_until_idle(page)
    assert page.locator('[data-testid="stException"]').all_inner_texts() == []
    wait_for_spans(page, 0, spans_of(chunkviz.chunk(text, "fixed_tokens", chunk_size=5000)))


def test_semantic_plot_nested_bands_and_added_text(page: Any, server: str) -> None:
    """Semantic column with its similarity plot and threshold line, parent/child nested bands,
    and table row groups whose repeated header is drawn as added text."""
    import json
    import urllib.parse

    query = {
        "doc": "api_guide.md",
        "n": "3",
        "s0": "semantic",
        "s1": "parent_child",
        "p1": json.dumps({"parent_size": 300, "child_size": 80, "child_overlap": 10}),
        "s2": "tables",
        "p2": json.dumps({"rows_per_chunk": 3}),
    }
    page.goto(server + "/?" + urllib.parse.urlencode(query))
    wait_for(lambda: page.locator('[data-strategy="col2"][data-chunk-index]').count() > 0, "the tables column")
    wait_for(lambda: page.locator(".js-plotly-plot").count() >= 2, "the similarity plots")
    wait_until_idle(page)
    # the similarity plot draws its threshold as a dashed line with a label
    wait_for(lambda: page.locator(".js-plotly-plot .annotation-text", has_text="threshold").count() >= 1, "the threshold label")
    plot = page.locator(".js-plotly-plot", has=page.locator(".annotation-text", has_text="threshold")).first
    assert plot.locator("g.scatterlayer .trace").count() >= 1, "the similarity curve is drawn"
    assert plot.locator("g.shapelayer path").count() >= 1, "the threshold line is drawn"
    # parent bands contain their children in the DOM
    nested = page.eval_on_selector_all(
        '[data-strategy="col1"][data-parent-index]',
        "els => els.map(e => e.querySelectorAll('[data-chunk-index]').length)",
    )
    assert nested and all(n > 0 for n in nested), nested
    # repeated table headers are inserted text, outside the source spans
    added = page.eval_on_selector_all('.cv-doc[data-strategy="col2"] ins.cv-add', "els => els.map(e => e.textContent)")
    assert added and all(a.startswith("| Method") for a in added)
    OUTPUT.mkdir(exist_ok=True)
    page.mouse.move(1, 1)
    page.evaluate(
        """() => {
            const view = document.querySelector('.cv-doc[data-strategy="col0"]');
            const column = view.closest('[data-testid="stColumn"]');
            (column.querySelector('h3') || view).scrollIntoView({block: 'start'});
            (document.querySelector('[data-testid="stMain"]') || document.scrollingElement).scrollBy(0, -70);
            const tables = document.querySelector('.cv-doc[data-strategy="col2"]');
            const mark = tables.querySelector('ins.cv-add');
            if (mark) tables.scrollTop = mark.offsetTop - tables.offsetTop - 40;
        }"""
    )
    page.wait_for_timeout(500)
    page.screenshot(path=str(OUTPUT / "semantic_nested_added.png"))
    assert page.page_errors == []
