"""The hygiene flags in Chromium: a report of the planted document (tests/support/hygiene_doc.py), opened
offline; hovering a flagged chunk shows why in the tooltip, in plain words, and the drawn text shows a
key masked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.browser import wait_for
from support.hygiene_doc import FAKE_AWS_KEY, FAKE_OPENAI_KEY, planted_document
from test_browser_report import js, open_offline

from chunkviz.diagnostics.compare import ColumnConfig
from chunkviz.document.read import read_bytes
from chunkviz.views.build import build_view
from chunkviz.views.page import write_report

pytestmark = [pytest.mark.browser]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    document = read_bytes(planted_document().text.encode(), name="pump.md")
    view = build_view(document, [ColumnConfig("headings")], doc_name="pump.md")
    return write_report(view, tmp_path_factory.mktemp("hygiene") / "report.html")


def _tooltip(page: Any, index: int) -> str:
    page.mouse.move(1, 1)
    page.locator(f".cv-doc[data-strategy='col0'] [data-chunk-index='{index}']").first.hover()
    shown = "const t = root.querySelector('.cvd-tip'); return t.hidden ? '' : t.innerText;"
    wait_for(lambda: f"Chunk {index}" in js(page, shown), f"chunk {index}'s tooltip")
    return str(js(page, shown))


def test_the_tooltip_says_why_and_no_key_is_drawn(browser: Any, report: Path) -> None:
    page = open_offline(browser, report, ".cv-doc[data-strategy='col0'] [data-chunk-index]")
    copy = _tooltip(page, 9)
    assert "flags: duplicate of another chunk" in copy and "duplicate of another chunk: same text as chunk 1" in copy
    secret = _tooltip(page, 7)
    assert "secret-like string: OpenAI-style API key (sk-) at characters" in secret
    assert "_" not in copy + secret  # plain words
    drawn = js(page, "return root.querySelector(\".cv-doc[data-strategy='col0']\").textContent;")
    assert "sk-\u2022\u2022\u2022" in drawn and "AKIA\u2022\u2022\u2022" in drawn
    assert FAKE_OPENAI_KEY[3:15] not in drawn and FAKE_AWS_KEY[4:16] not in drawn
    assert page.requests == [] and page.page_errors == []
