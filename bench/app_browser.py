"""What a person waits for in the app, in Debian's headless Chromium at 1500x1100 (``bench_app.py --browser``).

Each figure is measured against a bare Streamlit page (one ``st.title``) in the same browser and
the same run, so the ratios hold on a loaded machine better than the seconds do:

  cold start        from starting the server (the app as ``./dev app`` starts it, warming up its
                    pages; the bare page with ``streamlit run``) to the first chunk (bare page:
                    its title) in a browser that opens the page as soon as the server is healthy
  new visitor       a warm server, a new browser context (empty cache, new session): from
                    ``goto`` to the first chunk drawn in the document view; median of N, the
                    app's and the bare page's visits interleaved
  parameter change  column 1's chunk size typed in the sidebar, Enter: until the page is idle
                    (Streamlit's running indicator gone) and column 1 shows the new cut
                    (another chunk count or first end); median of M
  50,000 words      the same first-chunk and parameter-change figures on a 50,000-word document
                    (``make_document``) given as the app's file argument, three default columns

Targets (issue 20): a new visitor within 1.5x the bare page, a cold start within 3x, a
parameter change <= 0.5 s on the default sample and <= 1 s at 50,000 words.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
for _path in (REPO, REPO / "tests", REPO / "bench"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from support.browser import WHOLE_PAGE_JS, chromium, streamlit_server  # noqa: E402

APP = REPO / "app.py"
VIEWPORT = {"width": 1500, "height": 1100}
BARE_TITLE = "A bare Streamlit page"
TARGET_VISIT_RATIO = 1.5
TARGET_COLD_RATIO = 3.0
TARGET_CHANGE_S = 0.5
TARGET_CHANGE_BIG_S = 1.0
#: The document view's first chunk (its root is in the component's shadow root).
FIRST_CHUNK_JS = """() => { const h = document.querySelector('[data-testid=stBidiComponentIsolated]');
  return !!(h && h.shadowRoot && h.shadowRoot.querySelector('.cv-doc [data-chunk-index]')); }"""
BARE_JS = f"() => document.body.innerText.includes({BARE_TITLE!r})"
#: Column 1's cut, as a string (chunk count and first end), and whether a script run is going on.
CUT_JS = """() => { const h = document.querySelector('[data-testid=stBidiComponentIsolated]');
  const c = h && h.shadowRoot && h.shadowRoot.querySelectorAll('.cv-doc[data-strategy="col0"] [data-chunk-index]');
  return c && c.length ? c.length + ':' + c[0].dataset.end : ''; }"""
SETTLED_JS = f"""(before) => {{ const cut = ({CUT_JS})();
  return cut !== '' && cut !== before && !document.querySelector('[data-testid="stStatusWidget"]'); }}"""
WAIT_MS = 180_000


def visit(browser: Any, url: str, shown_js: str) -> float:
    """Seconds from ``goto`` in a new context (a new visitor) until ``shown_js`` holds."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        began = time.perf_counter()
        page.goto(url)
        page.wait_for_function(shown_js, timeout=WAIT_MS, polling="raf")
        return time.perf_counter() - began
    finally:
        context.close()


def cold_start(browser: Any, script: Path, shown_js: str, log_dir: Path, warm: bool = False) -> float:
    """Seconds from starting the server process to ``shown_js`` in the first visit (``warm``:
    started as ``./dev app`` starts it, warming its pages up while the visitor waits)."""
    began = time.perf_counter()
    with streamlit_server(script, log_dir, warm=warm) as url:
        visit(browser, url, shown_js)
        return time.perf_counter() - began


def parameter_changes(browser: Any, url: str, rounds: int) -> list[float]:
    """Seconds per change of column 1's chunk size (alternating two values) until settled."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.goto(url)
        page.wait_for_function(FIRST_CHUNK_JS, timeout=WAIT_MS, polling=100)
        page.wait_for_function(WHOLE_PAGE_JS, timeout=WAIT_MS, polling=100)  # after a new visitor's first screen
        column1 = page.locator('[data-testid="stSidebar"] [data-testid="stExpander"]').filter(has_text="Column 1")
        field = column1.get_by_role("spinbutton", name="chunk size", exact=True)
        original = int(field.input_value())
        times = []
        for i in range(rounds):
            before = page.evaluate(CUT_JS)
            field.fill(str(original + 37 if i % 2 == 0 else original))
            began = time.perf_counter()
            field.press("Enter")
            page.wait_for_function(SETTLED_JS, arg=before, timeout=WAIT_MS, polling="raf")
            times.append(time.perf_counter() - began)
        return times
    finally:
        context.close()


def spread(values: list[float]) -> str:
    return f"median {statistics.median(values):.2f} s (min {min(values):.2f}, max {max(values):.2f}, n={len(values)})"


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def interleaved_visits(browser: Any, urls: dict[str, tuple[str, str]], n: int) -> dict[str, list[float]]:
    """``n`` new visitors on each server, in turn (name -> (url, shown_js))."""
    times: dict[str, list[float]] = {name: [] for name in urls}
    for _ in range(n):
        for name, (url, shown) in urls.items():
            times[name].append(visit(browser, url, shown))
    return times


def run(visits: int = 5, changes: int = 10, words: int = 50_000) -> dict[str, Any]:
    """Every figure of the module docstring; prints them and returns them."""
    from bench_engine import make_document
    from playwright import sync_api

    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp, chromium(sync_api) as browser:
        folder = Path(tmp)
        bare = folder / "bare.py"
        bare.write_text(f"import streamlit as st\n\nst.title({BARE_TITLE!r})\n", encoding="utf-8")
        big = folder / "big.md"
        big.write_text(make_document(words)[0], encoding="utf-8")
        logs = {name: folder / name for name in ("bare", "app", "big")}
        for path in logs.values():
            path.mkdir()

        cold = {
            "bare": cold_start(browser, bare, BARE_JS, logs["bare"]),
            "app": cold_start(browser, APP, FIRST_CHUNK_JS, logs["app"], warm=True),
        }
        ratio = cold["app"] / cold["bare"]
        print(f"cold start to first content: app {cold['app']:.2f} s, bare page {cold['bare']:.2f} s")
        print(f"  ratio {ratio:.2f}x   target <= {TARGET_COLD_RATIO:g}x: {verdict(ratio <= TARGET_COLD_RATIO)}")
        results["cold_s"] = cold

        app_server = streamlit_server(APP, logs["app"], warm=True)
        with streamlit_server(bare, logs["bare"]) as bare_url, app_server as app_url:
            visit(browser, app_url, FIRST_CHUNK_JS)  # the server warms up: models, tokenizers, the sample's runs
            visit(browser, bare_url, BARE_JS)
            times = interleaved_visits(browser, {"app": (app_url, FIRST_CHUNK_JS), "bare": (bare_url, BARE_JS)}, visits)
            ratios = [a / b for a, b in zip(times["app"], times["bare"])]
            median_ratio = statistics.median(times["app"]) / statistics.median(times["bare"])
            print(f"new visitor on a warm server, default sample: app {spread(times['app'])}")
            print(f"  bare page {spread(times['bare'])}")
            print(f"  per-pair ratios {', '.join(f'{r:.2f}' for r in ratios)}; ratio of medians {median_ratio:.2f}x")
            print(f"  target <= {TARGET_VISIT_RATIO:g}x: {verdict(median_ratio <= TARGET_VISIT_RATIO)}")
            results["visit_s"] = times
            change = parameter_changes(browser, app_url, changes)
            print(f"parameter change (column 1 chunk size), default sample: {spread(change)}")
            ok = statistics.median(change) <= TARGET_CHANGE_S
            print(f"  target <= {TARGET_CHANGE_S:g} s: {verdict(ok)}")
            results["change_s"] = change

        with streamlit_server(APP, logs["big"], args=(str(big),)) as big_url:
            first = visit(browser, big_url, FIRST_CHUNK_JS)
            again = [visit(browser, big_url, FIRST_CHUNK_JS) for _ in range(max(1, visits // 2))]
            print(f"{words:,} words x 3 columns: first visit {first:.2f} s; new visitors {spread(again)}")
            change = parameter_changes(browser, big_url, changes)
            ok = statistics.median(change) <= TARGET_CHANGE_BIG_S
            print(f"  parameter change {spread(change)}   target <= {TARGET_CHANGE_BIG_S:g} s: {verdict(ok)}")
            results["big"] = {"first_s": first, "visit_s": again, "change_s": change}
    return results
