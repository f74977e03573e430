"""The query playground in the app's *Compare* view: a query, k and an expected answer above
the document view; each column's top-k hits drawn in it and scored in a table.

The row is :func:`playground_row`; :func:`playground_hits` searches each column's chunks with the
retriever chosen in the row (dense: the app's retrieval model, MiniLM unless chosen in the sidebar; bm25: keywords, nothing
embedded; hybrid: both fused, as the Evaluate view's retrievers; only with a query), :func:`playground_scores` scores the hits
against the expected answer and :func:`playground_table` shows both. The expected answer is a
passage selected with the mouse in the document view or pasted; "Add to question set" keeps
(query, answer) in ``st.session_state[PLAYGROUND_QUESTIONS]``, which the Evaluate view offers.
The engine side is :mod:`chunkviz.evaluation.playground`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, Sequence

import pandas as pd
import streamlit as st

from chunkviz.core.errors import ChunkvizError
from chunkviz.diagnostics.compare import ColumnConfig, StrategyRun
from chunkviz.document import Document
from chunkviz.evaluation.metrics import Scores
from chunkviz.evaluation.playground import (
    AnswerNotFound,
    Hit,
    answer_scores,
    embed_query,
    locate_answer,
    make_question,
    query_variants,
    questions_file,
    score_row,
    search,
    search_variants,
    trim_span,
)
from chunkviz.evaluation.questions import Question
from chunkviz.evaluation.retrievers import DEFAULT_ALPHA
from chunkviz.llm.client import LLMSettings
from chunkviz.llm.queries import QUERY_MODE_LABELS, QUERY_MODES
from chunkviz.strategies.base import get_strategy
from chunkviz.ui import markdown_literal
from chunkviz.ui.docview import answer_from_state
from chunkviz.ui.embedmodel import retrieval_model
from chunkviz.ui.llm import llm_session, not_configured_help
from chunkviz.ui.techniques import RETRIEVER_CHOICES, RETRIEVER_HELP


class PlaygroundColumn(Protocol):
    """What the playground needs of an app column: its position, label, config and run (None: it failed)."""

    i: int
    label: str
    config: ColumnConfig
    run: StrategyRun | None


#: the playground's saved questions (a list of chunkviz.evaluation.questions.Question); the
#: Evaluate view offers them too
PLAYGROUND_QUESTIONS = "playground.questions"
#: the largest k the query row offers
MAX_K = 20
#: The chunks each column shows for a query until the visitor picks another number.
DEFAULT_K = 5
#: the query row's retriever (a label of RETRIEVER_CHOICES)
RETRIEVER_KEY = "playground.retriever"
#: the query row is compact (smaller inputs, less space under it): the first screen still shows
#: three chunk ends in every column
QUERY_ROW_CSS = (
    "<style>.st-key-playground-row [data-testid=stTextInputRootElement],"
    ".st-key-playground-row .react-aria-ComboBox>div{height:2rem}.st-key-playground-row .react-aria-ComboBox input{height:calc(2rem - 2px)}"
    ".st-key-playground-row{margin:-0.35rem 0 -0.55rem;min-height:2rem}</style>"
)


def playground_row(
    document: Document, doc_name: str, docview_key: str, *, drawn: bool = True
) -> tuple[str, int, tuple[int, int] | None]:
    """The Query row above the document view: a query, k, and the expected answer (selected with
    the mouse in the document view whose component key is ``docview_key``, or pasted). Returns
    (query, k, answer span or None). ``drawn=False`` (a first screen): the row's place only, no
    query and no answer."""
    text = document.text
    st.html(QUERY_ROW_CSS)
    left, middle, pick, right = st.container(key="playground.row").columns(
        [6, 1, 1.5, 4.5], vertical_alignment="bottom"
    )
    if not drawn:
        return "", DEFAULT_K, None
    take_selected_answer(text, docview_key)
    query = left.text_input(
        "Query", key="playground.query", label_visibility="collapsed",
        placeholder="Query: type a question, and each column shows the chunks it would retrieve",
    ).strip()  # fmt: skip
    st.session_state.setdefault("playground.k", DEFAULT_K)
    k = int(
        middle.selectbox(
            "k", range(1, MAX_K + 1), key="playground.k", label_visibility="collapsed", format_func=lambda n: f"top {n}"
        )
    )
    st.session_state.setdefault(RETRIEVER_KEY, "dense")
    pick.selectbox(
        "Retriever", list(RETRIEVER_CHOICES), key=RETRIEVER_KEY, label_visibility="collapsed",
        help=RETRIEVER_HELP + f" Here the weighted fusion uses alpha = {DEFAULT_ALPHA}.",
    )  # fmt: skip
    right.text_input(
        "Expected answer", key="playground.paste", label_visibility="collapsed", on_change=take_pasted_answer, args=(text,),
        placeholder="Expected answer: select it in the document, or paste it here",
    )  # fmt: skip
    answer = current_answer(text)
    answer_line(text, query, answer, Path(doc_name).name or "document.txt")
    return query, k, answer


def _fingerprint(text: str) -> str:
    """Which document an answer was set on (an answer of another document is not shown)."""
    return f"{hash(text)}:{len(text)}"


def current_answer(text: str) -> tuple[int, int] | None:
    """The expected answer, if it was set on this document."""
    answer = st.session_state.get("playground.answer")
    if answer is None or answer[0] != _fingerprint(text):
        return None
    return answer[1]


def set_answer(text: str, span: tuple[int, int] | None, error: str | None = None) -> None:
    """Keep the expected answer of ``text`` (None: no answer, with ``error`` shown if given)."""
    st.session_state["playground.answer"] = None if span is None else (_fingerprint(text), span)
    st.session_state["playground.error"] = error


def take_selected_answer(text: str, docview_key: str) -> None:
    """A passage selected in the document view becomes the expected answer (once per selection)."""
    selection = answer_from_state(st.session_state.get(docview_key))
    if selection is None or selection.nonce == st.session_state.get("_playground.nonce"):
        return
    st.session_state["_playground.nonce"] = selection.nonce
    if selection.end <= len(text):
        set_answer(text, trim_span(text, selection.start, selection.end))
        st.session_state["playground.paste"] = ""  # the box showed another answer


def take_pasted_answer(text: str) -> None:
    """Callback of the paste box: locate the pasted passage (exactly once) in the document."""
    pasted = st.session_state.get("playground.paste", "")
    if not pasted.strip():
        return
    try:
        set_answer(text, locate_answer(text, pasted))
    except AnswerNotFound as exc:
        set_answer(text, None, f"Expected answer: {exc}.")


def clear_answer() -> None:
    """Callback of Clear: no expected answer, no error, an empty paste box."""
    st.session_state["playground.answer"] = None
    st.session_state["playground.error"] = None
    st.session_state["playground.paste"] = ""


def add_question(query: str, answer: tuple[int, int], document: str) -> None:
    """Callback: keep (query, answer) in the playground's question set (once)."""
    question = make_question(query, answer, document)
    questions = st.session_state.setdefault(PLAYGROUND_QUESTIONS, [])
    if question not in questions:
        questions.append(question)


def answer_line(text: str, query: str, answer: tuple[int, int] | None, document: str) -> None:
    """Under the query row: the expected answer, Clear, Add to question set, the download."""
    error = st.session_state.get("playground.error")
    if error:
        st.warning(error)
    questions: list[Question] = st.session_state.get(PLAYGROUND_QUESTIONS) or []
    if answer is None and not questions:
        if query:
            st.caption(
                "Select the expected answer in the document below (or paste it) to score every column against it."
            )
        return
    info, clear, add, download = st.columns([6, 1, 2, 2], vertical_alignment="center")
    if answer is None and query:
        info.caption("Select the expected answer in the document below (or paste it) to score every column against it.")
    if answer is not None:
        passage = text[answer[0] : answer[1]]
        shown = passage if len(passage) <= 90 else passage[:60] + " … " + passage[-25:]
        info.caption(f"Expected answer: characters {answer[0]:,}–{answer[1]:,} · “{markdown_literal(shown)}”")
        clear.button("Clear", key="playground.clear", on_click=clear_answer)
        add.button(
            "Add to question set", key="playground.add", on_click=add_question, args=(query, answer, document), disabled=not query,
            help="Keep this query and its expected answer (the Evaluate view can score them all)",
        )  # fmt: skip
    if questions:
        stem = Path(document).stem or "document"
        download.download_button(
            f"Download {len(questions)} question{'s' if len(questions) != 1 else ''}", questions_file(questions, {document: text}),
            file_name=f"{stem}.questions.jsonl", mime="application/jsonl", key="playground.download",
            help=f"A question file: chunkviz eval {document} --questions {stem}.questions.jsonl",
        )  # fmt: skip


def chosen_retriever() -> tuple[str, str]:
    """The (retriever, fusion) chosen in the query row (dense before the row is drawn)."""
    return RETRIEVER_CHOICES.get(st.session_state.get(RETRIEVER_KEY) or "dense", ("dense", "rrf"))


def playground_hits(columns: Sequence[PlaygroundColumn], query: str, k: int) -> dict[int, list[Hit]]:
    """Each run column's top-k hits for the query by the row's retriever, embedded with the
    app's retrieval model (chunks cached per text; bm25 embeds nothing); nothing is searched
    without a query. A model that cannot load leaves a message and no hits."""
    if not query:
        return {}
    model = retrieval_model()
    retriever, fusion = chosen_retriever()
    encode = None  # the model's own encoders: queries as queries, chunks as passages
    slot = st.empty()
    out: dict[int, list[Hit]] = {}
    try:
        vector = None
        if retriever != "bm25":
            with slot.container(), st.spinner("Embedding the query…"):
                vector = embed_query(query, model, encode)
        for column, run in [(c, c.run) for c in columns if c.run is not None]:

            def progress(done: int, total: int, label: str = column.label) -> None:
                if total:
                    slot.progress(done / total, text=f"Embedding the chunks of {label}: {done:,}/{total:,}")

            returns_parents = get_strategy(column.config.strategy).returns_parents
            out[column.i] = search(
                run.chunks, returns_parents, vector, k, model, encode, progress, query=query,
                retriever=retriever, fusion=fusion,
            )  # fmt: skip
    except (ChunkvizError, OSError) as exc:
        slot.empty()
        st.warning(f"The query cannot be searched: {exc} The rest of the page works without it.")
        return {}
    slot.empty()
    return out


VARIANTS_KEY = "playground.variants"
DRAWN_KEY = "playground.drawn"


def playground_variant_hits(
    columns: Sequence[PlaygroundColumn], query: str, k: int, settings: LLMSettings
) -> tuple[dict[str, dict[int, list[Hit]]], dict[str, str]]:
    """With "compare query forms" on: per query form ("raw", "rewrite", "hyde"), each column's
    top-k hits, and the text each form embedded; off (or no query): ({}, {})."""
    if not query or not st.session_state.get(VARIANTS_KEY):
        return {}, {}
    if not settings.configured:
        st.warning(not_configured_help())
        return {}, {}
    model = retrieval_model()
    encode = None  # the model's own encoders: queries as queries, chunks as passages
    try:
        with (
            st.spinner("Asking the model to rewrite the query and write a hypothetical passage…"),
            llm_session(settings) as session,
        ):
            variants = query_variants(query, QUERY_MODES, model, encode, session.client())
        out: dict[str, dict[int, list[Hit]]] = {v.mode: {} for v in variants}
        for column, run in [(c, c.run) for c in columns if c.run is not None]:
            returns_parents = get_strategy(column.config.strategy).returns_parents
            found = search_variants(run.chunks, returns_parents, variants, k, model, encode, *chosen_retriever())
            for mode, hits in found.items():
                out[mode][column.i] = hits
    except (ChunkvizError, OSError) as exc:
        st.warning(f"The query forms cannot be compared: {exc}")
        return {}, {}
    return out, {v.mode: v.text for v in variants}


def query_forms_control(query: str) -> str:
    """The "compare query forms" switch (2 model calls per new query) and which form's hits the
    document view draws; returns that form ("raw" when off)."""
    on = st.checkbox(
        "Compare query forms (LLM): also search with a rewritten query and a hypothetical passage (HyDE) — 2 calls per new query, cached",
        key=VARIANTS_KEY, disabled=not query,
    )  # fmt: skip
    if not on or not query:
        return "raw"
    st.session_state.setdefault(DRAWN_KEY, "raw")
    drawn = st.segmented_control(
        "Hits drawn in the document", list(QUERY_MODES), key=DRAWN_KEY, format_func=lambda m: QUERY_MODE_LABELS[m],
    )  # fmt: skip
    return drawn or "raw"


def show_query_forms(
    columns: Sequence[PlaygroundColumn],
    by_mode: dict[str, dict[int, list[Hit]]],
    texts: dict[str, str],
    answer: tuple[int, int] | None,
    k: int,
) -> None:
    """The query forms side by side: the text each embedded, and each column's hits and scores."""
    if not by_mode:
        return
    panes = st.columns(len(by_mode))
    for pane, (mode, hits) in zip(panes, by_mode.items()):
        with pane:
            st.markdown(f"**{QUERY_MODE_LABELS[mode]}**")
            st.caption(markdown_literal(texts[mode]))
            scores = playground_scores(columns, hits, answer)
            rows = [score_row(c.label, hits[c.i], scores.get(c.i)) for c in columns if c.i in hits]
            st.dataframe(pd.DataFrame(rows), hide_index=True, key=f"playground.table.{mode}")


def playground_scores(
    columns: Sequence[PlaygroundColumn], hits: dict[int, list[Hit]], answer: tuple[int, int] | None
) -> dict[int, Scores]:
    """Each searched column's scores against the expected answer (none without one)."""
    if answer is None:
        return {}
    return {
        c.i: answer_scores(c.run.chunks, get_strategy(c.config.strategy).returns_parents, hits[c.i], answer)
        for c in columns if c.run is not None and c.i in hits
    }  # fmt: skip


def playground_table(
    columns: Sequence[PlaygroundColumn], hits: dict[int, list[Hit]], scores: dict[int, Scores], k: int
) -> None:
    """Per column: its hits (rank, chunk, score) and, with an expected answer, the scores."""
    rows = [score_row(c.label, hits[c.i], scores.get(c.i)) for c in columns if c.i in hits]
    st.dataframe(pd.DataFrame(rows), hide_index=True, key="playground.table")
    if scores:
        st.caption(f"Scores of the top {k} against the expected answer: recall, IoU and precision in characters; "
                   "recall@k: is the answer touched at all; RR: 1 / rank of the first chunk that touches it.")  # fmt: skip
