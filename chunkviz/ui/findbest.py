"""The Evaluate view's "Find the best": :func:`chunkviz.evaluation.tune.tune` on the document and
its questions within a budget the visitor sets (chunkings embedded, with a progress bar that says
what is left and how long), then the frontier plot: every configuration tried as a point, each
retriever's frontier as a line, Chroma's published MiniLM rows as reference markers when the
document is one of Chroma's corpora. Clicking a point loads its configuration into the first
Compare column, through the same path a shared URL takes (:func:`chunkviz.ui.sidebar.load_shared`),
and opens the Compare view."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Sequence

import pandas as pd
import streamlit as st

from chunkviz.core.errors import ChunkvizError
from chunkviz.diagnostics.compare import ColumnConfig, config_to_query
from chunkviz.document.model import Document
from chunkviz.evaluation.config import config_json
from chunkviz.evaluation.published import MINILM_ROWS, is_chroma
from chunkviz.evaluation.questions import Question
from chunkviz.evaluation.retrievers import RETRIEVERS
from chunkviz.evaluation.tune import (
    DEFAULT_SIZES,
    DEFAULT_STRATEGIES,
    METHOD,
    Constraint,
    Point,
    RetrievalGrid,
    Study,
    TuneProgress,
    best,
    eval_command,
    frontier_figure,
    tune,
)
from chunkviz.evaluation.tunefigure import point_config
from chunkviz.semantic.embeddings import DEFAULT_MODEL
from chunkviz.strategies.base import registered
from chunkviz.text.models import DEFAULT_EMBEDDING_MODEL
from chunkviz.text.tokenizers import DEFAULT_TOKENIZER
from chunkviz.ui.embedmodel import model_label, retrieval_model
from chunkviz.ui.header import COMPARE
from chunkviz.ui.lazy import opened_section
from chunkviz.ui.reruns import rerun_page
from chunkviz.ui.sidebar import load_shared

#: The Compare view's name in the view switch.
COMPARE_VIEW = COMPARE
OPEN_KEY = "findbest.open"
PLOT_KEY = "findbest.plot"
RUN_KEY = "findbest.run"
STUDIES = "_findbest.studies"
LOADED = "_findbest.loaded"
#: The most chunkings one run may embed: a person waits for it (a few seconds each on a sample).
MAX_BUDGET = 16
DEFAULT_BUDGET = 6
KEPT_STUDIES = 4
IOU, TOKENS = "IoU", "tokens retrieved per question"


def tunable_strategies() -> list[str]:
    """Strategies the search can take: a size parameter and no model calls."""
    return [s.name for s in registered() if not s.calls_model and s.size_param() is not None]


def show_find_best(
    document: Document, doc_key: str, questions: Sequence[Question] | None, k: int | None, columns: Sequence[Any]
) -> None:
    """The "Find the best" section (drawn only while open; nothing without questions or k)."""
    if not questions or k is None:
        return
    section = opened_section("Find the best configuration: search strategies × sizes × overlaps × retrievers", OPEN_KEY)
    if section is None:
        return
    with section:
        find_best(document, doc_key, questions, k, columns)


def study_key(text: str, questions: Sequence[Question], k: int, model: str = DEFAULT_MODEL) -> str:
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass"))
    digest.update(json.dumps([[q.question, [[r.start, r.end] for r in q.references]] for q in questions]).encode())
    digest.update(f"{k}\0{model}".encode())
    return digest.hexdigest()


def find_best(document: Document, doc_key: str, questions: Sequence[Question], k: int, columns: Sequence[Any]) -> None:
    loaded = st.session_state.pop(LOADED, None)
    if loaded:
        st.success(loaded)
    names = tunable_strategies()
    from_columns = [c.strategy for c in columns if c.strategy in names]
    st.session_state.setdefault(
        "findbest.strategies", list(dict.fromkeys(from_columns)) or [s for s in DEFAULT_STRATEGIES if s in names]
    )
    st.session_state.setdefault("findbest.retrievers", list(RETRIEVERS))
    st.session_state.setdefault("findbest.budget", DEFAULT_BUDGET)
    st.session_state.setdefault("findbest.fusions", ["rrf", "weighted"])
    left, middle, right = st.columns([2, 2, 1])
    strategies = left.multiselect("Strategies to search", names, key="findbest.strategies")
    retrievers = middle.multiselect(
        "Retrievers to search", list(RETRIEVERS), key="findbest.retrievers",
        help="dense: embeddings; bm25: keywords; hybrid: both, fused by rank. A chunking's retrievers share its "
        "embeddings, so each one more costs little.",
    )  # fmt: skip
    fusions = middle.multiselect(
        "Hybrid fusions to search", ["rrf", "weighted"], key="findbest.fusions",
        help="rrf: by rank; weighted: alpha × dense + (1 − alpha) × bm25, at alpha 0.3, 0.5 and 0.7. The rerank of "
        "the retrieval techniques, when one is set, is searched too.",
    )  # fmt: skip
    budget = right.number_input(
        f"Budget (chunkings, 1–{MAX_BUDGET})", min_value=1, max_value=MAX_BUDGET, step=1, key="findbest.budget",
        help="How many chunkings are embedded (the slow part); each is scored with every retriever.",
    )  # fmt: skip
    st.caption(
        f"Method: {METHOD}. Sizes of the coarse grid: {', '.join(map(str, DEFAULT_SIZES))} (each strategy's size "
        f"setting); about {len(document.text):,} characters to embed per chunking."
    )
    model = retrieval_model()
    key = study_key(document.text, questions, k, model)
    if st.button(
        f"Find the best ({int(budget)} chunkings × {len(retrievers)} retrievers × {len(questions)} questions)",
        key=RUN_KEY, type="primary", disabled=not strategies or not retrievers,
    ):  # fmt: skip
        rerank = (st.session_state.get("eval.rerank") or "").strip() or None
        grid = RetrievalGrid(tuple(retrievers), tuple(fusions or ["rrf"]), rerank=rerank)
        study = run_search(document, doc_key, questions, k, strategies, grid, int(budget), model)
        if study is not None:
            studies = dict(st.session_state.get(STUDIES, {}))
            studies.pop(key, None)
            studies[key] = study
            st.session_state[STUDIES] = dict(list(studies.items())[-KEPT_STUDIES:])
    study = st.session_state.get(STUDIES, {}).get(key)
    if study is None:
        return
    show_study(study, document, doc_key, k, columns)


def run_search(
    document: Document,
    doc_key: str,
    questions: Sequence[Question],
    k: int,
    strategies: Sequence[str],
    retrieval: RetrievalGrid,
    budget: int,
    model: str = DEFAULT_MODEL,
) -> Study | None:
    bar = st.progress(0.0, text=f"Loading the embedding model ({model_label(model)})…")

    def progress(step: TuneProgress) -> None:
        part = (step.done + (step.embedded / step.to_embed if step.to_embed else 0)) / max(1, step.budget)
        bar.progress(min(part, 1.0), text=step.line())

    try:
        study = tune(
            {doc_key: document},
            questions,
            strategies=strategies,
            retrieval=retrieval,
            budget=budget,
            k=k,
            tokenizer=st.session_state.get("tokenizer", DEFAULT_TOKENIZER),
            constraints=[Constraint("recall", ">=", _min_recall())],
            model=model,
            progress=progress,
        )
    except (ChunkvizError, ValueError) as exc:  # TuneError, a reranker folder that cannot be read
        bar.empty()
        st.error(f"The search could not run: {exc}")
        return None
    bar.empty()
    return study


def _min_recall() -> float:
    return float(st.session_state.get("findbest.recall", 80)) / 100


def show_study(study: Study, document: Document, doc_key: str, k: int, columns: Sequence[Any]) -> None:
    """The frontier plot (click a point to load it), the chosen configuration and the frontier table."""
    for label, why in study.skipped:
        st.caption(f"{label} did not run: {why}")
    if not study.points:
        st.error("No configuration could be evaluated.")
        return
    model = retrieval_model()  # the study's: studies are kept per model
    published = MINILM_ROWS if is_chroma({doc_key: document.text}) and k == 5 and model == DEFAULT_MODEL else ()
    left, right = st.columns([1, 1])
    st.session_state.setdefault("findbest.recall", 80)
    axis = left.radio("Recall against", [IOU, TOKENS], key="findbest.x", horizontal=True)
    min_recall = right.slider("Recall at least (%)", 0, 100, step=1, key="findbest.recall")
    x = "iou" if axis == IOU else "tokens"
    chosen = best(study.points, "iou", [Constraint("recall", ">=", min_recall / 100)])
    figure = frontier_figure(study, x, "recall", published, chosen)
    st.caption(
        f"{len(study.points)} configurations ({study.chunkings} chunkings × {'; '.join(study.retrieval)}) in "
        f"{study.seconds:.0f} s · k = {k} · {model_label(model)} embeddings · every point is a configuration tried, the lines each retriever's frontier"
        + (" · grey diamonds: Chroma's published MiniLM rows (all five corpora)" if published else "")
        + ". Click a point to load it into column 1 of the Compare view."
    )
    st.plotly_chart(
        figure, key=PLOT_KEY, on_select=_loader(study, columns), selection_mode="points", width="stretch"
    )  # the callback loads the clicked point
    if chosen is None:
        st.warning(f"No configuration tried reaches recall ≥ {min_recall}%: lower it, or search with a larger budget.")
    else:
        st.markdown(
            f"**Best IoU at recall ≥ {min_recall}%:** `{_name(chosen)}` with **{chosen.retrieval()}** "
            f"retrieval · recall {100 * chosen.value('recall'):.1f}% · IoU {100 * chosen.value('iou'):.1f}% · "
            f"{chosen.value('tokens'):,.0f} tokens per question"
        )
        st.code(eval_command(chosen, [doc_key], "questions.jsonl", k, model), language="bash")
        load, download = st.columns(2)
        load.button(
            "Load it into column 1", key="findbest.load", on_click=load_point, args=(chosen, columns), type="secondary"
        )
        download.download_button(
            "Download chunkviz.json (chunking and retrieval)", config_json(point_config(chosen, model)),
            file_name="chunkviz.json", mime="application/json", key="findbest.download",
            help="Run exactly this configuration again with: chunkviz eval DOCUMENT --questions FILE --config chunkviz.json",
        )  # fmt: skip
    frontier = study.frontier(x, "recall")
    st.dataframe(
        pd.DataFrame([point_row(p, k) for p in reversed(frontier)]),
        hide_index=True,
        width="stretch",
        key="findbest.table",
    )


def point_row(p: Point, k: int) -> dict[str, Any]:
    return {
        "configuration": _name(p),
        "retrieval": p.retrieval(),
        "recall %": round(100 * p.value("recall"), 1),
        "IoU %": round(100 * p.value("iou"), 1),
        f"recall@{k} %": round(100 * p.value("recall_at_k"), 1),
        f"NDCG@{k} %": round(100 * p.value("ndcg"), 1),
        "MAP %": round(100 * p.value("map"), 1),
        "tokens/question": round(p.value("tokens")),
        "chunks": p.chunks,
    }


def _name(p: Point) -> str:
    c = p.configuration
    params = ", ".join(f"{name}={value}" for name, value in sorted(c.params.items()))
    return f"{c.strategy}({params})"


def clicked(state: Any) -> int | None:
    """The position in the study of the point a plot selection holds (its ``customdata``), or None."""
    try:
        points = state["selection"]["points"]
    except (KeyError, TypeError):
        return None
    for point in points or []:
        data = point.get("customdata") if isinstance(point, dict) else None
        if isinstance(data, list):
            data = data[0] if data else None
        if isinstance(data, (int, float)) and not isinstance(data, bool):
            return int(data)
    return None


def _loader(study: Study, columns: Sequence[Any]) -> Any:
    def load() -> None:
        position = clicked(st.session_state.get(PLOT_KEY))
        if position is not None and 0 <= position < len(study.points):
            load_point(study.points[position], columns)

    return load


def load_point(point: Point, columns: Sequence[Any]) -> None:
    """Put ``point``'s chunking into column 1 (the other columns kept) as a shared URL would, and
    open the Compare view (a callback: the page reruns)."""
    page_tokenizer = st.session_state.get("tokenizer", DEFAULT_TOKENIZER)
    c = point.configuration

    def own(tokenizer: str) -> str | None:
        return tokenizer if tokenizer != page_tokenizer else None

    first = ColumnConfig(c.strategy, dict(c.params), own(c.tokenizer))
    rest = [ColumnConfig(col.strategy, dict(col.params), own(col.tokenizer)) for col in columns[1:]]
    query = config_to_query(
        None,
        page_tokenizer,
        [first, *rest],
        shareable=False,
        embedding_model=st.session_state.get("embedding_model", DEFAULT_EMBEDDING_MODEL),
    )
    load_shared(query)
    st.session_state["view"] = COMPARE_VIEW
    message = (
        f"Column 1 now runs {_name(point)} (found with {point.retrieval()} retrieval: recall "
        f"{100 * point.value('recall'):.1f}%, IoU {100 * point.value('iou'):.1f}%)."
    )
    st.session_state[LOADED] = message
    st.toast(message)
    rerun_page()
