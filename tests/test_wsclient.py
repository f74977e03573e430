"""The websocket client (chunkviz.ui.wsclient) against real Streamlit servers on loopback: the demo
page tests/apps/wsclient_demo.py (a widget of each kind, a fragment, an error box, a button that
raises, a run that hangs) and the app itself (app.py: its default page, a chunk size change).

The server tests are marked ``browser`` like the other tests that start a Streamlit server (they
need no Chromium); tests/conftest.py keeps this module on one xdist worker, so each server starts once.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Awaitable, Iterator, TypeVar

import pytest
from support.browser import run_bounded, streamlit_server

from chunkviz import chunk, read_path
from chunkviz.ui.wsclient import RunResult, Session, WsClientError, stream_url, warm_up

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "tests" / "apps" / "wsclient_demo.py"
SAMPLE = REPO / "chunkviz/sample_docs" / "field_station_handbook.md"  # the app's default sample
TIMEOUT_S = 120
T = TypeVar("T")
server_test = pytest.mark.browser


def run(coroutine: Awaitable[T]) -> T:
    return run_bounded(coroutine, TIMEOUT_S)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with streamlit_server(DEMO, tmp_path_factory.mktemp("streamlit-demo")) as url:
        yield url


@pytest.fixture(scope="module")
def app(app_server: str) -> str:
    """The app (app.py) on the session's server, which the browser tests share (tests/support/browser_fixtures.py)."""
    return app_server


def echoed(session: Session) -> str:
    """The demo's line of values (``values: size=10 ratio=0.5 ...``)."""
    (line,) = [text for text in session.texts() if text.startswith("values: ")]
    return line


# ----------------------------------------------------------------------------- addresses (no server)
@pytest.mark.parametrize(
    "url, stream",
    [
        ("http://127.0.0.1:8501", "ws://127.0.0.1:8501/_stcore/stream"),
        ("http://localhost:8501/?doc=a.md", "ws://localhost:8501/_stcore/stream"),
        ("http://[::1]:9000/base/", "ws://[::1]:9000/base/_stcore/stream"),
        ("https://127.0.0.1/", "wss://127.0.0.1/_stcore/stream"),
    ],
)
def test_stream_url_of_a_loopback_app(url: str, stream: str) -> None:
    assert stream_url(url) == stream


@pytest.mark.parametrize(
    "url", ["http://example.com:8501", "http://10.0.0.7:8501", "http://127.0.0.1.example.com/", "ftp://127.0.0.1/"]
)
def test_anything_but_loopback_is_refused(url: str) -> None:
    with pytest.raises(WsClientError, match="loopback|http://"):
        stream_url(url)


# ----------------------------------------------------------------------------- the demo page
@server_test
def test_a_new_visitor_receives_every_widget_with_its_value(demo: str) -> None:
    async def visit() -> tuple[RunResult, dict[str, Any], dict[str, str], list[str]]:
        async with Session.open(demo + "/?greet=hi") as session:
            result = await session.run()
            values = {w.key or w.label: session.value(w.key or w.label) for w in session.widgets()}
            kinds = {w.key or w.label: w.kind for w in session.widgets()}
            sidebar = [w.key or w.label for w in session.widgets() if w.in_sidebar]
            assert session.texts()[0] == "greeting: hi"  # the URL's query string reached the script
            assert session.texts("heading") == ["wsclient demo"]
            assert echoed(session).startswith("values: size=10 ratio=0.5 colour='red' level=30 name='ada' flag=False ")
            return result, values, kinds, sidebar

    result, values, kinds, sidebar = run(visit())
    assert (result.status, result.exceptions, result.errors, result.raised) == ("finished", (), (), False)
    assert result.messages > 0 and result.received_bytes > 0
    assert values == {
        "size": 10, "ratio": 0.5, "colour": "red", "level": 30.0, "name": "ada", "flag": False, "mode": ["one"],
        "shape": "square", "details": False, "step": 1, "boom": None, "note": "", "Unkeyed number": 7,
        "release": None, "hang": False,
    }  # fmt: skip
    assert kinds["mode"] == "button_group" and kinds["level"] == "slider" and kinds["boom"] == "button"
    assert kinds["details"] == "expander"
    assert sidebar == ["note", "Unkeyed number", "release", "hang"]


@server_test
@pytest.mark.parametrize(
    "name, value, shown",
    [
        ("size", 42, "size=42"),
        ("ratio", 0.7, "ratio=0.7"),
        ("colour", "green", "colour='green'"),
        ("level", 77, "level=77"),
        ("name", "bob", "name='bob'"),
        ("flag", True, "flag=True"),
        ("mode", "three", "mode='three'"),
        ("shape", "circle", "shape='circle'"),
        ("note", "hello", "note='hello'"),
        ("Unkeyed number", 9, "unkeyed=9"),  # by its label: it has no key
    ],
)
def test_setting_a_widget_reruns_the_script_with_its_new_value(demo: str, name: str, value: Any, shown: str) -> None:
    async def change() -> tuple[RunResult, str, str]:
        async with Session.open(demo) as session:
            await session.run()
            before = echoed(session)
            result = await session.set(name, value)
            return result, before, echoed(session)

    result, before, after = run(change())
    assert (result.status, result.raised) == ("finished", False)
    assert shown not in before and shown in after
    assert "full_runs=2" in after  # the same session: its second run


@server_test
def test_values_persist_across_changes_and_every_value_is_sent_each_run(demo: str) -> None:
    async def changes() -> str:
        async with Session.open(demo) as session:
            await session.run()
            await session.set("size", 3)
            await session.set("colour", "green")
            await session.set("mode", ["two"])
            return echoed(session)

    assert run(changes()).startswith(
        "values: size=3 ratio=0.5 colour='green' level=30 name='ada' flag=False mode='two' "
    )


@server_test
def test_an_expander_with_state_opens_and_closes_and_its_content_follows(demo: str) -> None:
    async def toggle() -> list[Any]:
        async with Session.open(demo) as session:
            await session.run()
            seen = ["details: shown while open" in session.texts()]
            opened = await session.set("details", True)
            seen += [opened.status, session.value("details"), "details: shown while open" in session.texts()]
            await session.set("size", 11)  # the state is sent with every later run
            seen += [session.value("details"), "details: shown while open" in session.texts()]
            await session.set("details", False)
            return [*seen, session.value("details"), "details: shown while open" in session.texts()]

    assert run(toggle()) == [False, "finished", True, True, True, True, False, False]


@server_test
def test_a_widget_in_a_fragment_reruns_only_its_fragment(demo: str) -> None:
    async def change() -> tuple[RunResult, list[str]]:
        async with Session.open(demo) as session:
            await session.run()
            result = await session.set("step", 5)
            return result, session.texts()

    result, texts = run(change())
    assert result.status == "fragment finished" and not result.raised
    assert "fragment: step=5 fragment_runs=2" in texts
    assert any(t.startswith("values: ") and t.endswith("full_runs=1") for t in texts)  # the page did not rerun


@server_test
def test_an_error_box_is_reported_and_goes_when_the_script_no_longer_draws_it(demo: str) -> None:
    async def change() -> tuple[RunResult, list[str], RunResult, list[str]]:
        async with Session.open(demo) as session:
            await session.run()
            blue = await session.set("colour", "blue")
            boxes = session.error_boxes()
            red = await session.set("colour", "red")
            return blue, boxes, red, session.error_boxes()

    blue, boxes, red, after = run(change())
    assert (blue.errors, blue.raised, boxes) == (("blue is not allowed",), False, ["blue is not allowed"])
    assert (red.errors, after) == ((), [])


@server_test
def test_a_button_that_raises_sends_an_exception_once(demo: str) -> None:
    async def click() -> tuple[RunResult, list[str], RunResult, list[str]]:
        async with Session.open(demo) as session:
            await session.run()
            raised = await session.click("boom")
            boxes = session.error_boxes()
            again = await session.run()  # a trigger is sent once: this run does not click
            return raised, boxes, again, session.error_boxes()

    raised, boxes, again, after = run(click())
    assert raised.status == "finished" and raised.raised
    assert raised.exceptions == ("RuntimeError: the demo button raises",)
    assert boxes == ["RuntimeError: the demo button raises"]
    assert (again.raised, after) == (False, [])


@server_test
def test_values_the_widget_cannot_take_and_unknown_widgets_are_refused(demo: str) -> None:
    async def attempts() -> list[str]:
        messages = []
        async with Session.open(demo) as session:
            await session.run()
            for name, value in (
                ("colour", "purple"), ("size", 5000), ("size", 2.5), ("level", "high"), ("mode", "four"), ("nope", 1),
            ):  # fmt: skip
                with pytest.raises(WsClientError) as caught:
                    await session.set(name, value)
                messages.append(str(caught.value))
            with pytest.raises(WsClientError, match="not a button"):
                await session.click("size")
        return messages

    colour, size, fraction, level, mode, nope = run(attempts())
    assert "no option 'purple'" in colour and "['red', 'green', 'blue']" in colour
    assert "takes 1 to 1000, not 5000" in size
    assert "takes whole numbers, not 2.5" in fraction
    assert "takes numbers" in level
    assert "no option ['four']" in mode
    assert "no widget with key or label 'nope'" in nope and "'size'" in nope


@server_test
def test_a_run_that_does_not_finish_ends_the_wait_at_the_timeout(demo: str) -> None:
    async def hang() -> str:
        async with Session.open(demo, timeout_s=TIMEOUT_S) as session:
            await session.run()
            session.timeout_s = 0.5
            with pytest.raises(WsClientError) as caught:
                await session.set("hang", True)
        async with Session.open(demo) as other:  # let the hung run go
            await other.run()
            await other.click("release")
        return str(caught.value)

    assert "no script_finished within 0.5 s" in run(hang())


@server_test
def test_warm_up_runs_the_page_once_from_plain_code_and_from_inside_an_event_loop(demo: str) -> None:
    async def inside_a_loop() -> RunResult:
        return warm_up(demo + "/?greet=warm", timeout_s=TIMEOUT_S)

    plain = warm_up(demo, timeout_s=TIMEOUT_S)
    nested = run(inside_a_loop())
    assert (plain.status, plain.raised, nested.status, nested.raised) == ("finished", False, "finished", False)


# ----------------------------------------------------------------------------- the app
def docview(session: Session) -> dict[str, Any]:
    (view,) = session.components("chunkviz_docview")
    payload: dict[str, Any] = json.loads(view.payload)
    return payload


@server_test
def test_the_apps_default_page_sends_the_document_view_and_a_chunk_size_change_reruns_it(app: str) -> None:
    async def visit() -> tuple[RunResult, dict[str, Any], RunResult, dict[str, Any], Any]:
        async with Session.open(app) as session:
            first = await session.run()
            before = docview(session)
            changed = await session.set("col0.fixed_tokens.chunk_size", 200)
            return first, before, changed, docview(session), session.value("col0.fixed_tokens.chunk_size")

    first, before, changed, after, held = run(visit())
    document = read_path(SAMPLE)
    assert (first.status, first.exceptions, first.errors) == ("finished", (), ())
    assert before["length"] == len(document.text)
    assert [c["label"].split(". ", 1)[-1] for c in before["columns"]][:3] == ["fixed_tokens", "recursive", "paragraphs"]
    # a column's setting reruns the columns fragment (tests/test_reruns.py), not the page
    assert (changed.status, changed.exceptions, changed.errors, held) == ("fragment finished", (), (), 200)
    expected = [c.end for c in chunk(document, "fixed_tokens", chunk_size=200, overlap=16)]
    assert [end for end, _ in after["columns"][0]["cuts"]] == expected
    assert after["columns"][0]["cuts"] != before["columns"][0]["cuts"]
    assert after["columns"][1:] == before["columns"][1:]  # the other columns are drawn as they were
