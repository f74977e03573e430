"""A new visitor's first screen (chunkviz/ui/firstpaint.py), through AppTest: the first run of a
session with nothing in its URL draws no control, only the page's header and the default page's
document view, which asks for the whole page once drawn (state ``painted``, answered by its
callback as the browser's component answers); the whole page then holds the same cut.

The same over the websocket is in test_reruns.py, and in Chromium in test_browser.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest
from test_app import (  # noqa: F401 - _isolated_caches and _plain_argv are autouse fixtures
    APP,
    DOCVIEW,
    PAGE_TITLE,
    _isolated_caches,
    _plain_argv,
    send_component_state,
    view_payload,
)

from chunkviz.diagnostics.compare import ColumnConfig
from chunkviz.ui import app as page_module
from chunkviz.ui import header
from chunkviz.ui.firstpaint import (
    FIRST_RUN_DONE,
    LOADING_CONTROLS,
    default_configs,
    first_paint_document,
    first_paint_due,
)
from chunkviz.ui.sidebar import Page

TIMEOUT_S = 120


def first_visit(query: dict[str, str] | None = None) -> AppTest:
    """A new visitor's first run (no state, the URL's ``query``)."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT_S)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def widgets(at: AppTest) -> list[Any]:
    """Every widget the last run drew (main area and sidebar)."""
    kinds = ("button", "checkbox", "multiselect", "number_input", "radio", "selectbox", "slider")
    found = [w for kind in kinds for w in getattr(at, kind)]
    return [*found, *at.text_input, *at.text_area, *at.get("button_group"), *at.get("file_uploader")]


def columns_shown(at: AppTest) -> list[tuple[str, str]]:
    """(label, content id) of each column of the document view."""
    payload = view_payload(at)
    assert payload is not None
    return [(c["label"], c["id"]) for c in payload["columns"]]


def test_a_new_visitors_first_run_draws_the_document_view_and_no_control() -> None:
    at = first_visit()
    assert widgets(at) == []
    assert [m.value for m in at.sidebar.caption] == [LOADING_CONTROLS]
    assert any(m.value.startswith(PAGE_TITLE) for m in at.markdown)
    assert any("field_station_handbook.md · 16,296 characters" in c.value for c in at.caption)
    payload = view_payload(at)
    assert payload is not None and payload["first_paint"] is True
    assert [label for label, _ in columns_shown(at)] == [
        f"{i + 1}. {name}" for i, name in enumerate(page_module.DEFAULT_COLUMNS)
    ]
    assert at.session_state[FIRST_RUN_DONE] is True


def test_the_views_answer_draws_the_whole_page_with_the_same_cut() -> None:
    at = first_visit()
    first = columns_shown(at)
    send_component_state(at, DOCVIEW, {"painted": True})  # its callback reruns the whole page
    assert at.segmented_control(key="view").value == header.COMPARE
    assert at.number_input(key="n_columns").value == len(page_module.DEFAULT_COLUMNS)
    assert [s.value for s in at.selectbox if s.key == "col0.strategy"] == [page_module.DEFAULT_COLUMNS[0]]
    payload = view_payload(at)
    assert payload is not None and payload["first_paint"] is False
    assert columns_shown(at) == first  # the same labels and the same HTML (content ids)
    assert LOADING_CONTROLS not in [m.value for m in at.sidebar.caption]


def test_every_later_run_draws_the_whole_page() -> None:
    at = first_visit()
    at.run()  # whatever reruns it next (a click in the view, a window request)
    assert not at.exception
    assert view_payload(at)["first_paint"] is False  # type: ignore[index]
    assert at.number_input(key="n_columns").value == len(page_module.DEFAULT_COLUMNS)


def test_a_shared_url_draws_the_whole_page_at_once() -> None:
    at = first_visit({"doc": "api_guide.md", "n": "2", "s0": "sentences", "s1": "recursive"})
    assert at.selectbox(key="sample").value == "api_guide.md"
    assert at.number_input(key="n_columns").value == 2
    assert view_payload(at)["first_paint"] is False  # type: ignore[index]


def test_the_first_screens_columns_are_the_whole_pages_default_configurations() -> None:
    """The run keys are equal, so the whole page's runs are the first screen's, from the cache."""
    page = page_module.PAGE
    assert default_configs(page) == [ColumnConfig(name, {}, None) for name in page_module.DEFAULT_COLUMNS]


def test_no_first_screen_for_a_document_that_cannot_be_shown(tmp_path: Path) -> None:
    """An empty or missing first document: None, and the whole page says what is wrong."""
    (tmp_path / "empty.md").write_text("  \n", encoding="utf-8")
    page = Page(tmp_path / "app.py", tmp_path, "empty.md", 1_000_000, 4, ("fixed_tokens",))
    assert first_paint_document(page) is None
    (tmp_path / "empty.md").unlink()
    (tmp_path / "other.md").write_text("# Other\n\nText.\n", encoding="utf-8")
    document, name = first_paint_document(page) or (None, "")
    assert document is not None and document.text.startswith("# Other") and name.endswith("other.md")


@pytest.mark.parametrize(("query", "due"), [({}, True), ({"doc": "api_guide.md"}, False)])
def test_first_paint_is_due_once_per_session_and_only_without_a_url_query(
    query: dict[str, str], due: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    import streamlit as st

    class Params(dict[str, str]):
        def to_dict(self) -> dict[str, str]:
            return dict(self)

    state: dict[str, Any] = {}
    monkeypatch.setattr(st, "session_state", state)
    monkeypatch.setattr(st, "query_params", Params(query))
    assert first_paint_due() is due
    assert first_paint_due() is False
    assert state[FIRST_RUN_DONE] is True
