"""The Evaluate view's retrieval techniques: the retrievers (dense, BM25, hybrid, a rerank),
enrichment, query rewriting and HyDE, summary indexing, answer quality, and questions written by
the model (issue 11 in the app).

Each technique is compared with the same chunks without it: a configuration is followed by its
twins (:func:`chunkviz.evaluation.evaluate.with_variants`). The ones marked (LLM) call the
endpoint of the sidebar; before a run the page says how many calls and input tokens they take.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import pandas as pd
import streamlit as st

from chunkviz.core.errors import ChunkvizError
from chunkviz.document.model import Document
from chunkviz.evaluation.costs import answer_calls_upper_bound, technique_costs, total
from chunkviz.evaluation.evaluate import Configuration, Result, with_variants
from chunkviz.evaluation.questiongen import generate_questions
from chunkviz.evaluation.questions import Question, questions_to_jsonl
from chunkviz.evaluation.retrievers import CANDIDATES, DEFAULT_ALPHA, DEFAULT_RERANK_CANDIDATES, RRF_K
from chunkviz.llm.answers import (
    ANSWER_PROMPT,
    JUDGE_PROMPT,
    AnswerQuality,
    answer_cells,
    answer_quality,
    answer_rows,
    prompt_text,
)
from chunkviz.llm.client import LLMSettings
from chunkviz.ui.llm import estimate_words, llm_session, not_configured_help

#: label -> (Configuration field, value, calls the model)
TECHNIQUES: dict[str, tuple[str, str, bool]] = {
    "metadata prefix": ("enrich", "metadata", False),
    "contextual retrieval (LLM)": ("enrich", "contextual", True),
    "rewritten query (LLM)": ("query", "rewrite", True),
    "HyDE passage (LLM)": ("query", "hyde", True),
    "extractive summaries": ("summaries", "extractive", False),
    "LLM summaries": ("summaries", "llm", True),
}
SHORT = {
    "metadata": "metadata prefix",
    "contextual": "contextual",
    "rewrite": "rewritten query",
    "hyde": "HyDE",
    "extractive": "extractive summaries",
    "llm": "LLM summaries",
}
GENERATED = "_eval.generated"  # questions the model wrote, per document
#: label -> (retriever, fusion) of the Retrievers control
RETRIEVER_CHOICES: dict[str, tuple[str, str]] = {
    "dense": ("dense", "rrf"),
    "bm25": ("bm25", "rrf"),
    "hybrid (RRF)": ("hybrid", "rrf"),
    "hybrid (weighted)": ("hybrid", "weighted"),
}
RETRIEVER_HELP = (
    "dense: exact cosine of the MiniLM embeddings. bm25: keywords (lowercase, Lucene's English stop words, "
    "Snowball stems) over exactly the text that is embedded, added text included. hybrid: the best "
    f"{CANDIDATES} of each, fused by reciprocal rank (constant {RRF_K}) or by min-max normalised scores "
    "weighted alpha · dense + (1 − alpha) · bm25. Each retriever is a row on the same chunks."
)


@dataclass(frozen=True)
class Techniques:
    """What the user asked to compare, and whether the model answers and is judged."""

    variants: Mapping[str, tuple[Any, ...]]  # with_variants keyword arguments
    answers: bool = False
    judge: bool = False
    #: Configuration fields set on every row (alpha, rerank, rerank_candidates)
    retrieval: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def calls_model(self) -> bool:
        return self.answers or any(
            v not in (None, "raw", "metadata", "extractive")
            for name, values in self.variants.items()
            if name in ("enrich", "query", "summaries")
            for v in values
        )

    def key(self) -> list[Any]:
        variants = sorted((k, list(map(str, v))) for k, v in self.variants.items())
        return [variants, self.answers, self.judge, sorted(self.retrieval.items())]


def choose_techniques(settings: LLMSettings) -> Techniques | None:
    """The techniques controls; None when an LLM technique is chosen without an endpoint (the
    page says what to set)."""
    chosen = st.multiselect(
        "Also compare, on the same chunks", list(TECHNIQUES), key="eval.techniques",
        help="Each configuration is followed by its twin with the technique, so every row pair differs only by it. "
        "(LLM) ones call the endpoint set in the sidebar.",
    )  # fmt: skip
    answers = st.checkbox(
        "Answer quality (LLM): the model answers each question from the top-k chunks, scored by token F1",
        key="eval.answers",
    )
    judge = answers and st.checkbox("…and an LLM judge grades each answer against the reference", key="eval.judge")
    if answers:
        with st.expander("The prompts the model gets"):
            st.code(prompt_text(ANSWER_PROMPT), language=None, wrap_lines=True)
            if judge:
                st.code(prompt_text(JUDGE_PROMPT), language=None, wrap_lines=True)
    variants: dict[str, list[Any]] = {"enrich": [None], "query": ["raw"], "summaries": [None]}
    for label in chosen:
        field_name, value, _ = TECHNIQUES[label]
        variants[field_name].append(value)
    retrieval = choose_retrievers()
    if retrieval is None:
        return None
    retrievers, fields = retrieval
    variants["retriever"] = list(dict.fromkeys(r for r, _ in retrievers))
    variants["fusion"] = list(dict.fromkeys(f for r, f in retrievers if r == "hybrid")) or ["rrf"]
    techniques = Techniques({k: tuple(v) for k, v in variants.items()}, answers, bool(judge), fields)
    if techniques.calls_model and not settings.configured:
        st.warning(not_configured_help())
        return None
    return techniques


def choose_retrievers() -> tuple[list[tuple[str, str]], dict[str, Any]] | None:
    """The Retrievers control (several: a row each on the same chunks), the weighted fusion's
    alpha and an optional cross-encoder folder. Returns the chosen (retriever, fusion) pairs and
    the Configuration fields every row gets; None (with a message) when none is chosen."""
    left, middle, right = st.columns([3, 1, 2])
    chosen = left.multiselect(
        "Retrievers", list(RETRIEVER_CHOICES), default=["dense"], key="eval.retrievers", help=RETRIEVER_HELP
    )
    alpha = DEFAULT_ALPHA
    if "hybrid (weighted)" in chosen:
        alpha = float(
            middle.number_input(
                "alpha (dense weight)", min_value=0.0, max_value=1.0, value=DEFAULT_ALPHA, step=0.1, key="eval.alpha",
                help="weighted fusion: alpha · dense + (1 − alpha) · bm25 of the min-max normalised scores",
            )
        )  # fmt: skip
    rerank = right.text_input(
        "Rerank with a cross-encoder (optional)", key="eval.rerank",
        placeholder="a local cross-encoder model folder; none ships with chunkviz",
        help=f"Re-score each retriever's best {DEFAULT_RERANK_CANDIDATES} chunks with a sentence-transformers "
        "CrossEncoder read from this folder (nothing is downloaded), then keep the top k.",
    ).strip()  # fmt: skip
    if not chosen:
        st.error("Choose at least one retriever (dense is the plain one).")
        return None
    fields = {"alpha": alpha, "rerank": rerank or None}
    return [RETRIEVER_CHOICES[label] for label in chosen], fields


def expand(configurations: Sequence[Configuration], techniques: Techniques) -> list[Configuration]:
    """Each configuration, then its twins with the chosen techniques and retrievers."""
    twins = with_variants(configurations, **techniques.variants)
    return [dataclasses.replace(c, **techniques.retrieval) for c in twins] if techniques.retrieval else twins


def variant_suffix(config: Configuration) -> str:
    """`` · contextual · HyDE · hybrid: rrf`` for the techniques and retrieval a twin adds ("" for the plain one)."""
    parts = [SHORT[v] for v in (config.summaries, config.enrich) if v] + (
        [SHORT[config.query]] if config.query != "raw" else []
    )
    return "".join(f" · {p}" for p in parts + config.retrieval_tags())


def show_costs(
    document: Document,
    questions: Sequence[Question],
    configurations: Sequence[Configuration],
    techniques: Techniques,
    settings: LLMSettings,
) -> bool:
    """Before a run that calls the model: what it will cost (False: it cannot be estimated; the reason is shown)."""
    if not techniques.calls_model:
        return True
    llm_configs = [c for c in configurations if c.uses_llm]
    try:
        with llm_session(settings) as session:
            costs = technique_costs(document, questions, llm_configs, session.client()) if llm_configs else []
    except ChunkvizError as exc:
        st.error(f"The model's cost could not be estimated: {exc}")
        return False
    lines = [f"- {c.what}: {c.estimate.summary()}" for c in costs]
    if techniques.answers:
        bound = answer_calls_upper_bound(len(configurations), len(questions), techniques.judge)
        lines.append(
            f"- answers{' and judge' if techniques.judge else ''}: at most {bound:,} calls (cached answers are not asked again)"
        )
    st.info(f"Run calls {estimate_words(total(costs), settings)} for the techniques, then the answers below:\n" + "\n".join(lines)
            if techniques.answers else f"Run calls {estimate_words(total(costs), settings)}:\n" + "\n".join(lines))  # fmt: skip
    return True


def run_answers(
    results: Sequence[Result],
    labels: Sequence[str],
    questions: Sequence[Question],
    corpus: Mapping[str, Document],
    k: int,
    techniques: Techniques,
    settings: LLMSettings,
) -> tuple[tuple[AnswerQuality, ...] | None, str | None]:
    """Answer quality of every result (None and the reason when it failed)."""
    if not techniques.answers or not results:
        return None, None
    try:
        with llm_session(settings):
            qualities = answer_quality(results, questions, corpus, k=k, judge=techniques.judge)
    except ChunkvizError as exc:
        return None, str(exc)
    return tuple(dataclasses.replace(q, label=label) for q, label in zip(qualities, labels)), None


def with_answer_cells(rows: list[dict[str, Any]], qualities: Sequence[AnswerQuality] | None) -> list[dict[str, Any]]:
    """The results table's rows with the answer F1 (and judge) cells on the right."""
    if not qualities:
        return rows
    return [{**row, **answer_cells(q)} for row, q in zip(rows, qualities)]


def show_answers(qualities: Sequence[AnswerQuality] | None, chosen: str) -> None:
    """The model's answers for the configuration picked in the per-question table."""
    if not qualities:
        return
    quality = next((q for q in qualities if q.label == chosen), None)
    if quality is None:
        return
    with st.expander(f"The model's answers ({quality.model}) for {chosen}"):
        st.dataframe(pd.DataFrame(answer_rows(quality)), hide_index=True, width="stretch")


# ----------------------------------------------------------------------------- questions by the model
def generated_questions(document: Document, doc_key: str, settings: LLMSettings) -> tuple[list[Question], str] | None:
    """Questions the model writes for this document (kept per document), with a download."""
    if not settings.configured:
        st.warning(not_configured_help())
        return None
    kept: dict[str, tuple[list[Question], str]] = st.session_state.setdefault(GENERATED, {})
    n = st.number_input("Questions to write", min_value=1, max_value=200, value=20, step=5, key="eval.gen_n")
    if st.button(f"Write {int(n)} questions with {settings.model}", key="eval.generate"):
        with st.spinner("The model is writing questions…"):
            try:
                with llm_session(settings) as session:
                    generated = generate_questions(document, int(n), name=doc_key)
                kept[doc_key] = (list(generated.questions), generated.summary() + f" · {session.stats.summary()}")
            except ChunkvizError as exc:
                st.error(str(exc))
    if doc_key not in kept:
        st.info("The model reads the document in windows and writes questions, each with exact excerpts that answer it; "
                "excerpts not found verbatim (or found twice) and duplicates are dropped and counted.")  # fmt: skip
        return None
    questions, summary = kept[doc_key]
    st.caption(summary)
    st.download_button("Download these questions (JSONL, for chunkviz eval)", questions_to_jsonl(questions, {doc_key: document.text}),
                       file_name=f"{doc_key}.questions.jsonl", key="eval.gen_download")  # fmt: skip
    return questions, "the model"


__all__ = [
    "TECHNIQUES",
    "Techniques",
    "choose_techniques",
    "expand",
    "generated_questions",
    "run_answers",
    "show_answers",
    "show_costs",
    "variant_suffix",
    "with_answer_cells",
]
