"""The Evaluate view's "Find the best" (chunkviz/ui/findbest.py) through AppTest: the search on a
small sample with the real offline MiniLM (two chunkings), the frontier plot, the chosen
configuration, and loading a point into the Compare columns."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest
from support.apptest import app_test

from chunkviz.evaluation.tunefigure import point_config
from chunkviz.ui import header
from chunkviz.ui.findbest import COMPARE_VIEW, PLOT_KEY, clicked

REPO = Path(__file__).resolve().parent.parent
APP = REPO / "app.py"
SAMPLE = "topic_shifts.txt"


@pytest.fixture(autouse=True)
def _plain_argv(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.argv", [str(APP)])


def run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, "the app raised: " + "\n".join(str(e.message) for e in at.exception)
    return at


def test_the_compare_view_is_named_as_the_app_names_it() -> None:
    """Find the best opens the view switch's first choice, the Compare view a new visitor sees."""
    assert COMPARE_VIEW == header.VIEWS[0] == header.COMPARE


def test_a_click_is_read_from_the_points_customdata() -> None:
    assert clicked({"selection": {"points": [{"curve_number": 1, "customdata": 3}]}}) == 3
    assert clicked({"selection": {"points": [{"customdata": [2]}]}}) == 2
    assert clicked({"selection": {"points": [{"x": 1}]}}) is None  # a published marker: no configuration
    assert clicked({"selection": {"points": []}}) is None
    assert clicked(None) is None


def test_find_the_best_then_load_it_into_the_compare_columns() -> None:
    at = run(app_test(APP, 300))
    at.selectbox(key="sample").set_value(SAMPLE)
    run(at)
    at.segmented_control(key="view").set_value("Evaluate retrieval")
    at.session_state["findbest.open"] = True
    run(at)
    at.multiselect(key="findbest.strategies").set_value(["recursive"])
    at.multiselect(key="findbest.retrievers").set_value(["dense", "hybrid"])
    at.multiselect(key="findbest.fusions").set_value(["rrf", "weighted"])
    at.number_input(key="findbest.budget").set_value(2)
    run(at)
    at.slider(key="findbest.recall").set_value(0) if any(s.key == "findbest.recall" for s in at.slider) else None
    at.button(key="findbest.run").click()
    run(at)
    (plot,) = [c for c in at.get("plotly_chart") if c.key == PLOT_KEY]
    spec: dict[str, Any] = json.loads(plot.proto.spec)
    names = [trace["name"] for trace in spec["data"]]
    assert names[:4] == ["dense: tried", "dense: frontier", "hybrid: tried", "hybrid: frontier"]
    tried = [t for t in spec["data"] if t["name"].endswith(": tried")]
    # 2 chunkings × (dense, hybrid rrf, hybrid weighted at alpha 0.3, 0.5 and 0.7): the fusion is an axis
    assert sum(len(t["x"]) for t in tried) == 10
    assert "Chroma" not in " ".join(names)  # not Chroma's corpus: no published markers
    study = next(iter(at.session_state["_findbest.studies"].values()))
    assert study.chunkings == 2 and len(study.points) == 10
    assert {
        (p.configuration.fusion, p.configuration.alpha) for p in study.points if p.configuration.retriever == "hybrid"
    } == {("rrf", 0.5), ("weighted", 0.3), ("weighted", 0.5), ("weighted", 0.7)}
    # the chosen configuration, with its command
    at.slider(key="findbest.recall").set_value(0)
    run(at)
    text = " ".join(m.value for m in at.markdown)
    assert "Best IoU at recall ≥ 0%:" in text
    assert any(c.value.startswith(f"chunkviz eval {SAMPLE} --questions") for c in at.code)
    chosen = max(study.points, key=lambda p: (p.value("iou"), p.value("recall"), -p.value("tokens")))
    # its chunkviz.json, with the retrieval in it, to download
    assert [d for d in at.get("download_button") if d.proto.label == "Download chunkviz.json (chunking and retrieval)"]
    saved = point_config(chosen, "all-MiniLM-L6-v2")
    assert saved["retrieval"]["retriever"] == chosen.configuration.retriever
    assert saved["retrieval"]["alpha"] == chosen.configuration.alpha
    # loading it: column 1 gets its strategy and parameters (through the shared-URL path), the view is Compare
    at.button(key="findbest.load").click()
    run(at)
    assert at.segmented_control(key="view").value == COMPARE_VIEW
    assert at.session_state["col0.strategy"] == chosen.configuration.strategy
    for name, value in chosen.configuration.params.items():
        assert at.session_state[f"col0.{chosen.configuration.strategy}.{name}"] == value
    assert at.session_state["n_columns"] == 3  # the other columns kept
    assert at.session_state["col1.strategy"] == "recursive"
