"""chunkviz.ui.serve: the launcher of ``./dev app`` that warms the server up before the first visitor."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.browser import REPO, streamlit_server, wait_for

from chunkviz.ui import serve

DEMO = REPO / "tests" / "apps" / "wsclient_demo.py"


def test_parse_splits_its_own_options_from_streamlits() -> None:
    app, pages, rest = serve.parse(["app.py", "--warm", "doc=a.md", "--", "--server.port", "9000", "--", "doc.md"])
    assert (app, pages, rest) == ("app.py", ["doc=a.md"], ["--server.port", "9000", "--", "doc.md"])


def test_the_default_pages_and_none() -> None:
    assert serve.parse(["app.py"]) == ("app.py", list(serve.WARM_PAGES), [])
    assert serve.parse(["app.py", "--no-warm", "--", "--server.port=8600"]) == ("app.py", [], ["--server.port=8600"])


def test_the_demo_page_is_the_tune_buttons_target() -> None:
    """The warmed semantic page is the one the Tune view's button opens from the default page."""
    from chunkviz.ui import app as page

    columns = "&".join(f"s{i}={name}" for i, name in enumerate(page.DEFAULT_COLUMNS))
    n = len(page.DEFAULT_COLUMNS) + 1
    assert serve.WARM_PAGES[1] == f"doc={page.TUNE_DEMO_SAMPLE}&n={n}&{columns}&s{n - 1}=semantic"


@pytest.mark.parametrize(
    ("options", "url"),
    [
        ([], "http://127.0.0.1:8501"),
        (["--server.address", "0.0.0.0", "--server.port", "8600"], "http://127.0.0.1:8600"),
    ],
)
def test_the_warm_up_reaches_the_server_on_loopback(options: list[str], url: str) -> None:
    assert serve.loopback_url(options) == url


@pytest.mark.browser
def test_the_launcher_serves_the_app_and_warms_its_pages(tmp_path: Path) -> None:
    with streamlit_server(DEMO, tmp_path, warm=True):
        log = tmp_path / "server.log"
        wait_for(lambda: log.read_text().count("chunkviz: warmed up") == len(serve.WARM_PAGES), "the warm-up")
        lines = [line for line in log.read_text().splitlines() if line.startswith("chunkviz:")]
    assert len(lines) == 2 and all(line.endswith("(ready)") for line in lines), lines
    assert lines[0].startswith("chunkviz: warmed up the default page in ")
