"""The browser tests' fixtures: Playwright's sync API (skipped without Chromium), one Chromium and
one app server per module, and a page on the app that must end without JavaScript errors."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def sync_api():  # noqa: ANN201 - the playwright.sync_api module
    """Playwright's sync API; the browser tests are skipped, with the reason, without Chromium or playwright."""
    from support.browser import CHROMIUM

    if not CHROMIUM.exists():
        pytest.skip(f"Chromium not found at {CHROMIUM} (Debian package 'chromium'; see .ci/run)")
    try:
        from playwright import sync_api
    except ImportError:
        pytest.skip("the playwright Python package is not installed")
    return sync_api


@pytest.fixture(scope="module")
def browser(sync_api):  # noqa: ANN001, ANN201 - a playwright Browser
    from support.browser import chromium

    with chromium(sync_api) as launched:
        yield launched


@pytest.fixture(scope="module")
def server(sync_api, tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN001, ANN201 - the app's URL
    """The app (app.py) served by ``streamlit run`` on a free port, with its own embedding cache;
    yields its URL. Modules that serve a demo app define their own ``server``."""
    from support.browser import streamlit_server

    env = {"CHUNKVIZ_CACHE_DIR": str(tmp_path_factory.mktemp("chunkviz-cache"))}
    with streamlit_server(
        Path(__file__).resolve().parents[2] / "app.py", tmp_path_factory.mktemp("streamlit"), env
    ) as url:
        yield url


@pytest.fixture
def page(browser, server: str):  # noqa: ANN001, ANN201 - a playwright Page
    """A 1500x1100 page on the app once the document view shows chunks; it must end without
    page errors."""
    from support.browser import open_page

    page = open_page(browser, server)
    page.wait_for_selector("[data-chunk-index]")
    yield page
    errors = list(page.page_errors)
    page.context.close()
    assert errors == [], f"page errors: {errors}"
