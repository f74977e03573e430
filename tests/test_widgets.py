"""The generated controls: forgiving about invalid combinations, a per-column size unit."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from chunkviz.strategies.base import get_strategy
from chunkviz.ui.widgets import CHARS_PER_TOKEN, ColumnChoice

DEMO = str(Path(__file__).parent / "apps" / "widgets_demo.py")


def demo(**state: object) -> AppTest:
    at = AppTest.from_file(DEMO, default_timeout=60)
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def number(at: AppTest, key: str):
    (widget,) = [w for w in at.sidebar.number_input if w.key == key]
    return widget


def sidebar_order(at: AppTest) -> list[str]:
    """The sidebar's elements in order: widget keys, and warnings as ``warning: text``."""
    out = []
    for node in at.sidebar:
        if node.type == "warning":
            out.append(f"warning: {node.value}")
        elif getattr(node, "key", None):
            out.append(node.key)
    return out


def test_overlap_typed_above_size_keeps_the_last_good_params_and_says_why_under_the_control() -> None:
    at = demo()
    assert at.session_state["choice"] == ColumnChoice({}, None, None)
    number(at, "demo.fixed_tokens.chunk_size").set_value(300).run()
    number(at, "demo.fixed_tokens.overlap").set_value(100).run()
    assert at.session_state["choice"].params == {"chunk_size": 300, "overlap": 100}
    number(at, "demo.fixed_tokens.chunk_size").set_value(50).run()  # typing "50" on the way to "500"
    choice = at.session_state["choice"]
    assert choice.params == {"chunk_size": 300, "overlap": 100}  # the last good params
    assert (
        choice.problem
        == "overlap must be smaller than chunk_size (50), got 100 — the column keeps its last valid settings."
    )
    assert [w.value for w in at.sidebar.warning] == [choice.problem]
    order = sidebar_order(at)
    assert order.index(f"warning: {choice.problem}") == order.index("demo.fixed_tokens.overlap") + 1
    assert not at.exception
    number(at, "demo.fixed_tokens.chunk_size").set_value(500).run()
    assert at.session_state["choice"] == ColumnChoice({"chunk_size": 500, "overlap": 100}, None, None)
    assert not at.sidebar.warning


def test_an_invalid_first_combination_falls_back_to_the_defaults() -> None:
    at = demo(demo_strategy="paragraphs", demo_given={"min_tokens": 90, "max_tokens": 60})
    choice = at.session_state["choice"]
    assert choice.params == {} and "min tokens must be at most max_tokens (60), got 90" in choice.problem
    get_strategy("paragraphs").make_params(choice.params)  # what the column runs is valid


def test_token_sized_strategies_offer_characters_and_rescale_their_sizes() -> None:
    at = demo(demo_strategy="recursive")
    (unit,) = at.sidebar.radio
    assert unit.key == "demo.recursive.size_in" and list(unit.options) == ["tokens (cl100k_base)", "characters"]
    unit.set_value("chars").run()
    choice = at.session_state["choice"]
    assert choice.tokenizer == "chars"
    assert choice.params == {"chunk_size": 128 * CHARS_PER_TOKEN, "overlap": 16 * CHARS_PER_TOKEN}
    at.sidebar.radio[0].set_value("tokens").run()
    assert at.session_state["choice"] == ColumnChoice({}, None, None)  # back to the defaults


@pytest.mark.parametrize(
    ("strategy", "tokenizer"), [("fixed_chars", "cl100k_base"), ("semantic", "cl100k_base"), ("recursive", "chars")]
)
def test_no_unit_choice_where_it_means_nothing(strategy: str, tokenizer: str) -> None:
    at = demo(demo_strategy=strategy, demo_tokenizer=tokenizer)
    assert not at.sidebar.radio and at.session_state["choice"].tokenizer is None


def test_a_shared_unit_seeds_the_choice() -> None:
    at = demo(demo_strategy="recursive", demo_given={"chunk_size": 300}, demo_given_tokenizer="chars")
    assert at.session_state["choice"] == ColumnChoice({"chunk_size": 300}, "chars", None)
