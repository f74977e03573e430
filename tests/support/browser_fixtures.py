"""The browser tests' fixtures: Playwright's sync API (skipped without Chromium), one Chromium per
module, one app server per test session (per xdist worker) that every module on the app shares,
and a page on the app that must end without JavaScript errors.

Chromium stays per module: a live sync Playwright marks the worker's thread as running an event
loop, so a session-long one would break every later ``asyncio.run`` (tests/test_wsclient.py, the
warm-up of chunkviz.ui.serve)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

APP = Path(__file__).resolve().parents[2] / "app.py"


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


@pytest.fixture(scope="session")
def app_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app (app.py) served by ``streamlit run`` on a free port for the whole session, with a
    disk cache of its own that shares the run's vectors (tests/support/caches.py). The modules that
    visit the app (tests/conftest.py ``APP_SERVER_MODULES``) share it and run on one worker, so the
    server starts, loads its models and runs the default page once. Yields its URL."""
    from support.browser import streamlit_server
    from support.caches import cache_root_sharing_vectors

    env = {"CHUNKVIZ_CACHE_DIR": str(cache_root_sharing_vectors(tmp_path_factory))}
    with streamlit_server(APP, tmp_path_factory.mktemp("streamlit"), env) as url:
        yield url


@pytest.fixture(scope="module")
def server(sync_api, app_server: str) -> str:  # noqa: ANN001 - the playwright.sync_api module
    """The URL of the session's app server (:func:`app_server`), for the modules that drive it in
    Chromium (skipped, as they are, without it). Modules that serve a demo app define their own ``server``."""
    return app_server


@pytest.fixture
def page(browser, server: str):  # noqa: ANN001, ANN201 - a playwright Page
    """A 1500x1100 page on the app once the document view shows chunks and the whole page is drawn
    (after a new visitor's first screen); it must end without page errors."""
    from support.browser import open_page, wait_for_whole_page

    page = open_page(browser, server)
    page.wait_for_selector("[data-chunk-index]")
    wait_for_whole_page(page)
    yield page
    errors = list(page.page_errors)
    page.close()
    assert errors == [], f"page errors: {errors}"
