"""What reruns when (chunkviz/ui/reruns.py), seen over the app's websocket as a browser sees it
(chunkviz.ui.wsclient): a column's setting reruns the columns fragment, a click in the view only
the view, the Tune panel's control sets the sidebar's control (which keeps the value through the
page's later runs), and what every part depends on reruns the page.

An element the server did not send again in a run keeps the run id it came with: that tells what
a run redrew. Marked ``browser`` like the other tests that start a Streamlit server (no Chromium).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Awaitable, TypeVar

import pytest
from support.browser import run_bounded

from chunkviz import chunk, read_path
from chunkviz.ui.wsclient import Element, RunResult, Session

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "chunkviz/sample_docs"
TIMEOUT_S = 240
T = TypeVar("T")
pytestmark = pytest.mark.browser
TITLE = "**chunkviz** ·"
TUNE = "Tune semantic"


def run(coroutine: Awaitable[T]) -> T:
    return run_bounded(coroutine, TIMEOUT_S)


@pytest.fixture(scope="module")
def app(app_server: str) -> str:
    """The app (app.py) on the session's server, which the browser tests share (tests/support/browser_fixtures.py)."""
    return app_server


def title(session: Session) -> Element:
    (line,) = [e for e in session.elements if e.kind == "markdown" and e.text.startswith(TITLE)]
    return line


def docview(session: Session) -> Element:
    (view,) = session.components("chunkviz_docview")
    return view


def cut_ends(session: Session, column: int) -> list[int]:
    return [end for end, _ in json.loads(docview(session).payload)["columns"][column]["cuts"]]


def ran(session: Session, before: dict[str, str]) -> dict[str, bool]:
    """Which of the elements recorded in ``before`` (name -> run id) the last run sent again."""
    now = run_ids(session, *before)
    return {name: now[name] != before[name] for name in before}


def run_ids(session: Session, *names: str) -> dict[str, str]:
    """The run id each named element came with: a widget key, ``title`` or ``docview``."""
    ids = {}
    for name in names:
        element = title(session) if name == "title" else docview(session) if name == "docview" else session.widget(name)
        ids[name] = element.run_id
    return ids


def test_a_new_visitors_first_screen_asks_for_the_whole_page_once_drawn(app: str) -> None:
    """The first run draws no widget and the document view with ``first_paint``; the view's
    ``painted`` (sent as its fragment's rerun, as the browser does) reruns the whole page, which
    has the controls and the same columns; a visitor's first ``run()`` answers it by itself."""

    async def visit() -> tuple[Any, ...]:
        async with Session.open(app, timeout_s=TIMEOUT_S) as session:
            first = await session.run(answer_first_paint=False)
            shown = (session.widgets(), json.loads(docview(session).payload), docview(session).fragment_id)
            before = run_ids(session, "title", "docview")
            whole = await session.set_state("docview", {"painted": True})
            after = (json.loads(docview(session).payload), ran(session, before), session.value("n_columns"))
        async with Session.open(app, timeout_s=TIMEOUT_S) as visitor:
            answered = await visitor.run()
            kept = (json.loads(docview(visitor).payload)["first_paint"], visitor.value("col0.strategy"))
        return first, shown, whole, after, answered, kept

    first, (widgets, payload, fragment), whole, (payload2, sent, columns), answered, kept = run(visit())
    assert (first.status, first.exceptions, widgets) == ("finished", (), [])
    assert payload["first_paint"] is True and fragment  # the view sits in its fragment, as on the whole page
    assert (whole.status, whole.exceptions, whole.errors) == ("finished", (), ())  # the page's run, not the fragment's
    assert sent == {"title": True, "docview": True} and columns == 3
    assert payload2["first_paint"] is False
    assert [(c["label"], c["id"]) for c in payload2["columns"]] == [(c["label"], c["id"]) for c in payload["columns"]]
    assert answered.status == "finished" and kept == (False, "fixed_tokens")


def test_a_click_in_the_first_screens_view_also_brings_the_whole_page(app: str) -> None:
    """A fragment that reruns with the first screen's arguments (here the view's, for a click that
    came before its ``painted``) reruns the whole page instead of drawing the first screen again."""

    async def click_first() -> tuple[RunResult, int, bool, Any]:
        async with Session.open(app, timeout_s=TIMEOUT_S) as session:
            await session.run(answer_first_paint=False)
            click = {"selection": {"column": 1, "index": 2, "nonce": 7}}
            clicked = await session.set_state("docview", click, answer_first_paint=False)
            payload = json.loads(docview(session).payload)
            return clicked, session.value("n_columns"), payload["first_paint"], payload["columns"][1].get("selected")

    clicked, columns, first_paint, selected = run(click_first())
    assert (clicked.status, clicked.exceptions, clicked.errors) == ("finished", (), ())  # the page's run
    assert (columns, first_paint, selected) == (3, False, 2)  # the whole page, with the click applied


def test_a_columns_setting_reruns_the_columns_fragment_not_the_page(app: str) -> None:
    async def change() -> tuple[RunResult, dict[str, bool], list[int]]:
        async with Session.open(app, timeout_s=TIMEOUT_S) as session:
            await session.run()
            before = run_ids(session, "title", "tokenizer", "sample", "col0.fixed_tokens.chunk_size", "docview")
            changed = await session.set("col0.fixed_tokens.chunk_size", 200)
            return changed, ran(session, before), cut_ends(session, 0)

    changed, sent, ends = run(change())
    assert (changed.status, changed.exceptions, changed.errors) == ("fragment finished", (), ())
    assert sent == {
        "title": False,
        "tokenizer": False,
        "sample": False,
        "col0.fixed_tokens.chunk_size": True,  # the column controls are the columns fragment's
        "docview": True,
    }
    document = read_path(SAMPLES / "field_station_handbook.md")
    assert ends == [c.end for c in chunk(document, "fixed_tokens", chunk_size=200, overlap=16)]


def test_a_click_in_the_document_view_reruns_only_the_view(app: str) -> None:
    async def click() -> tuple[RunResult, dict[str, bool], Any]:
        async with Session.open(app, timeout_s=TIMEOUT_S) as session:
            await session.run()
            before = run_ids(session, "title", "col0.fixed_tokens.chunk_size", "docview")
            click = {"selection": {"column": 1, "index": 2, "nonce": 7}}
            clicked = await session.set_state("docview", click, answer_first_paint=False)
            selected = json.loads(docview(session).payload)["columns"][1]["selected"]
            return clicked, ran(session, before), selected

    clicked, sent, selected = run(click())
    assert (clicked.status, clicked.exceptions, clicked.errors) == ("fragment finished", (), ())
    assert sent == {"title": False, "col0.fixed_tokens.chunk_size": False, "docview": True}
    assert selected == 2


def test_what_every_part_depends_on_reruns_the_page(app: str) -> None:
    async def change() -> tuple[RunResult, dict[str, bool]]:
        async with Session.open(app, timeout_s=TIMEOUT_S) as session:
            await session.run()
            before = run_ids(session, "title", "col0.fixed_tokens.chunk_size", "docview")
            changed = await session.set("tiny_on", False)
            return changed, ran(session, before)

    changed, sent = run(change())
    assert (changed.status, changed.exceptions) == ("finished", ())
    assert sent == {"title": True, "col0.fixed_tokens.chunk_size": True, "docview": True}


@pytest.mark.slow
def test_the_tune_panel_sets_the_sidebar_control_which_keeps_it_through_later_page_runs(app: str) -> None:
    """The Tune panel's threshold is the column's percentile: the sidebar control shows the value
    (the browser holds it, so the next run of the page does not undo it) and the column is cut with it."""
    query = "?doc=topic_shifts.txt&n=2&s0=fixed_tokens&s1=semantic"
    control = "col1.semantic.percentile"

    async def tune() -> list[Any]:
        async with Session.open(app + "/" + query, timeout_s=TIMEOUT_S) as session:
            await session.run()
            await session.set("col1.open", True)  # the sidebar draws a column's controls while it is open
            await session.set("view", [TUNE])
            before = run_ids(session, "title", control)
            tuned = await session.set_state("tune.col1", {"amount": 70.0})
            sent = ran(session, before)
            held = session.value(control)
            panel = json.loads(session.component("tune.col1").payload)["tuning"]
            later = await session.set("tiny_on", False)
            panel_later = json.loads(session.component("tune.col1").payload)["tuning"]
            return [tuned.status, tuned.exceptions, sent, held, panel["amount"], panel["chunks"], later.status,
                    session.value(control), panel_later["amount"]]  # fmt: skip

    status, exceptions, sent, held, amount, chunks, later, held_later, amount_later = run(tune())
    assert (status, exceptions) == ("fragment finished", ())
    assert sent == {"title": False, control: True}
    assert held == 70.0 and amount == 70.0
    text = read_path(SAMPLES / "topic_shifts.txt")
    assert chunks == [[c.start, c.end] for c in chunk(text, "semantic", percentile=70.0)]
    assert later == "finished" and held_later == 70.0 and amount_later == 70.0


@pytest.mark.slow
def test_the_tune_panel_tunes_a_closed_column_which_shows_the_value_when_opened(app: str) -> None:
    """A closed column draws no control: the Tune panel's value is kept for it through later page
    runs, cuts the column, and is what its control shows once the column is opened."""
    query = "?doc=topic_shifts.txt&n=2&s0=fixed_tokens&s1=semantic"

    async def tune() -> list[Any]:
        async with Session.open(app + "/" + query, timeout_s=TIMEOUT_S) as session:
            await session.run()
            await session.set("view", [TUNE])
            tuned = await session.set_state("tune.col1", {"amount": 70.0})
            await session.set("tiny_on", False)  # a run of the whole page
            panel = json.loads(session.component("tune.col1").payload)["tuning"]
            await session.set("col1.open", True)
            return [tuned.status, panel["amount"], panel["chunks"], session.value("col1.semantic.percentile")]

    status, amount, chunks, shown = run(tune())
    assert status == "fragment finished" and amount == 70.0 and shown == 70.0
    text = read_path(SAMPLES / "topic_shifts.txt")
    assert chunks == [[c.start, c.end] for c in chunk(text, "semantic", percentile=70.0)]
