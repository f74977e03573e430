"""The app's *Evaluate* view: which cut retrieves best, on the current document and its questions.

Questions come from the sample's question file, an uploaded JSONL or Chroma CSV file, or the
query playground (``st.session_state["playground.questions"]``). Configurations are the
sidebar's columns, or a size sweep of each column's strategy (a parameter that no longer fits a
size, such as an overlap, is scaled with it). A run (only on the Run button:
embedding is the slow part) scores every configuration with
:func:`chunkviz.evaluation.evaluate.evaluate` and is kept in session state under a key of
everything it depends on, so switching views or selecting a question never runs it again. The
results are a table (best per metric marked) and plotly charts; a question picked in the
per-question table shows its reference and each configuration's top-k chunks in the document
view (rank badges, scores, the reference highlighted).
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import pandas as pd
import streamlit as st

from chunkviz.core.errors import ChunkvizError
from chunkviz.diagnostics.compare import ColumnConfig
from chunkviz.document.model import Document
from chunkviz.drawing.charts import configuration_bars_figure, sweep_figure
from chunkviz.drawing.palette import strategy_colour
from chunkviz.evaluation.evaluate import Configuration, Result, evaluate
from chunkviz.evaluation.playground import Hit
from chunkviz.evaluation.questions import Question, QuestionFileError, Reference, load_questions, sample_questions_path
from chunkviz.evaluation.report import (
    DEFAULT_SIZES,
    MAX_K,
    TITLES,
    Adjustment,
    SweepError,
    adjustment_note,
    check_k,
    fit_to_size,
    parse_sizes,
    plain_twins,
    question_rows,
    summary_rows,
    sweep_label,
    swept_param,
    twin_question_rows,
)
from chunkviz.llm.answers import AnswerQuality
from chunkviz.llm.client import LLMSettings
from chunkviz.semantic.embeddings import DEFAULT_MODEL
from chunkviz.ui import markdown_literal
from chunkviz.ui.cached import cached_column_html
from chunkviz.ui.docview import ColumnView, document_view
from chunkviz.ui.embedmodel import model_label, retrieval_model
from chunkviz.ui.findbest import show_find_best
from chunkviz.ui.keys import Chunking
from chunkviz.ui.llm import llm_session
from chunkviz.ui.playground import PLAYGROUND_QUESTIONS
from chunkviz.ui.techniques import (
    Techniques,
    choose_techniques,
    expand,
    generated_questions,
    run_answers,
    show_answers,
    show_costs,
    variant_suffix,
    with_answer_cells,
)

SAMPLE, UPLOAD, PLAYGROUND, MODEL = (
    "The sample's questions",
    "A question file",
    "The playground's questions",
    "Written by the model (LLM)",
)
COLUMNS, SWEEP = "The current columns", "A size sweep"
#: What a sweep is called on the command line; each strategy maps it to its own size parameter.
SWEEP_NAME = "chunk_size"
#: Results of this many runs are kept per session (each is small: scores and ranks).
KEPT_RUNS = 8
MAX_SHOWN = 4
VIEW_HEIGHT_PX = 600
DOCVIEW_KEY = "eval.docview"
BEST_CELL = "background-color: #d3f9d8; font-weight: 600"


@dataclass(frozen=True)
class EvalColumn:
    """A sidebar column as the view needs it: its label and hue, strategy, params and tokenizer."""

    label: str
    hue: int
    strategy: str
    params: Mapping[str, Any] = field(hash=False)
    tokenizer: str

    @classmethod
    def of(cls, label: str, hue: int, config: ColumnConfig, page_tokenizer: str) -> EvalColumn:
        return cls(label, hue, config.strategy, dict(config.params), config.tokenizer or page_tokenizer)


@dataclass(frozen=True)
class Planned:
    """One configuration to evaluate: its row label, the column it comes from and the swept size."""

    label: str
    column: EvalColumn
    configuration: Configuration
    size: int | None = None


@dataclass(frozen=True)
class EvalRun:
    """What a run gave: the configurations that ran with their results, the ones that failed, its time."""

    planned: tuple[Planned, ...]
    results: tuple[Result, ...]
    failed: tuple[tuple[str, str], ...]  # (label, message)
    seconds: float
    swept: bool
    answers: tuple[AnswerQuality, ...] | None = None  # answer quality per result, when asked for
    model: str = DEFAULT_MODEL  # the embedding model that embedded the questions and the chunks


# ----------------------------------------------------------------------------- persistent widgets
def _remember(key: str, default: Any) -> None:
    """Keep a widget's value while its view is not shown (Streamlit drops the state of widgets
    that a run does not draw): restore it from a shadow key before the widget is drawn."""
    shadow = f"_{key}"
    if key not in st.session_state:
        st.session_state[key] = st.session_state.get(shadow, default)
    st.session_state[shadow] = st.session_state[key]


# ----------------------------------------------------------------------------- questions
def choose_questions(
    document: Document, doc_key: str, sample_path: Path | None, settings: LLMSettings | None = None
) -> list[Question] | None:
    """The questions to evaluate (None: none usable, with the reason on the page)."""
    sources = []
    sample_file = sample_questions_path(sample_path) if sample_path is not None else None
    if sample_file is not None:
        sources.append(SAMPLE)
    sources.append(UPLOAD)
    playground = st.session_state.get(PLAYGROUND_QUESTIONS) or []
    if playground:
        sources.append(PLAYGROUND)
    sources.append(MODEL)
    if st.session_state.get("_eval.source") not in sources:
        st.session_state.pop("_eval.source", None)
        st.session_state.pop("eval.source", None)
    _remember("eval.source", sources[0])
    source = st.radio(
        "Questions", sources, key="eval.source", horizontal=True,
        format_func=lambda s: f"{s} ({len(playground)})" if s == PLAYGROUND else s,
    )  # fmt: skip
    corpus = {doc_key: document.text}
    try:
        if source == SAMPLE and sample_file is not None:
            questions, origin = load_questions(sample_file, corpus, name=sample_file.name), sample_file.name
        elif source == UPLOAD:
            found = uploaded_questions(corpus)
            if found is None:
                return None
            questions, origin = found
        elif source == MODEL:
            written = generated_questions(document, doc_key, settings or LLMSettings.from_env())
            if written is None:
                return None
            questions, origin = written
        else:
            questions, origin = playground_questions(playground, doc_key, len(document.text)), "the playground"
    except QuestionFileError as exc:
        st.error(f"The questions could not be read: {exc}")
        return None
    if not questions:
        st.warning("There are no questions for this document: write some in the playground, or upload a question file.")
        return None
    references = sum(len(q.references) for q in questions)
    st.caption(f"{len(questions)} questions · {references} reference spans · from {origin} · answers in {doc_key}")
    return questions


def uploaded_questions(corpus: Mapping[str, str]) -> tuple[list[Question], str] | None:
    """Questions of the uploaded file (kept while the view is hidden; the uploader itself is not)."""
    st.file_uploader(
        "Question file: JSONL (question, references as spans or excerpts) or Chroma's CSV (question, references, corpus_id)",
        type=["jsonl", "ndjson", "json", "csv"], key="eval.upload", on_change=_keep_upload,
    )  # fmt: skip
    kept = st.session_state.get("_eval.upload")
    if kept is None:
        st.info(
            f"Upload a question file whose references point at this document ({', '.join(corpus)}), or write "
            "questions in the Compare view: type a query, select its answer in the document, and press "
            "“Add to question set”; they appear here."
        )
        return None
    name, data = kept
    return load_questions(data, corpus, name=name), name


def _keep_upload() -> None:
    upload = st.session_state.get("eval.upload")
    st.session_state["_eval.upload"] = None if upload is None else (upload.name, upload.getvalue())


def playground_questions(questions: Sequence[Question], doc_key: str, length: int) -> list[Question]:
    """The playground's saved questions whose references lie in this document (named as it is
    here); the others are left out with a note."""
    kept, left_out = [], 0
    for question in questions:
        refs = [r for r in question.references if _same_document(r.document, doc_key) and r.end <= length]
        if len(refs) == len(question.references) and refs:
            kept.append(Question(question.question, tuple(Reference(doc_key, r.start, r.end) for r in refs)))
        else:
            left_out += 1
    if left_out:
        st.caption(f"{left_out} of the playground's questions answer from another document and are left out.")
    return kept


def _same_document(name: str, doc_key: str) -> bool:
    return name == doc_key or Path(name).name == doc_key or Path(name).stem == Path(doc_key).stem


# ----------------------------------------------------------------------------- configurations
def choose_configurations(columns: Sequence[EvalColumn]) -> tuple[list[Planned], bool] | None:
    """The configurations to evaluate and whether they are a sweep (None: a message says why not)."""
    _remember("eval.configs", COLUMNS)
    mode = st.radio("Configurations", [COLUMNS, SWEEP], key="eval.configs", horizontal=True)
    if mode == COLUMNS:
        return [Planned(c.label, c, Configuration(c.strategy, dict(c.params), c.tokenizer)) for c in columns], False
    _remember("eval.sizes", ", ".join(map(str, DEFAULT_SIZES)))
    text = st.text_input(
        "Sizes (each strategy's size setting, in its own unit)", key="eval.sizes",
        help="Applied to each column's strategy: chunk_size where it has one, else its declared size (paragraphs: max_tokens).",
    )  # fmt: skip
    try:
        sizes = parse_sizes(text)
    except SweepError as exc:
        st.error(f"Sizes: {exc}")
        return None
    planned = []
    for column in columns:
        try:
            name = swept_param(column.strategy, SWEEP_NAME)
        except SweepError:
            st.caption(f"{column.label} has no size setting to sweep: left out of the sweep.")
            continue
        planned.extend(sweep_column(column, name, sizes))
    if not planned:
        st.error(
            "No column's strategy has a size setting to sweep: choose strategies such as recursive or fixed_tokens."
        )
        return None
    return planned, True


def sweep_column(column: EvalColumn, name: str, sizes: Sequence[int]) -> list[Planned]:
    """A column's configuration per size; a parameter that would not fit a size is scaled with
    it (a caption says so) and the label shows the params that run."""
    planned: list[Planned] = []
    adjusted: list[Adjustment] = []
    for size in sizes:
        params, adjustments = fit_to_size(column.strategy, column.params, name, size)
        configuration = Configuration(column.strategy, params, column.tokenizer)
        planned.append(Planned(sweep_label(column.label, name, size, adjustments), column, configuration, size))
        adjusted.extend(adjustments)
    if adjusted:
        st.caption(f"{column.label}: {adjustment_note(adjusted)}, where the column's value would not fit.")
    return planned


def with_techniques(planned: Sequence[Planned], techniques: Techniques) -> list[Planned]:
    """Each planned configuration followed by its twins with the chosen techniques."""
    out = []
    for plan in planned:
        for config in expand([plan.configuration], techniques):
            out.append(Planned(plan.label + variant_suffix(config), plan.column, config, plan.size))
    return out


def choose_k() -> int | None:
    _remember("eval.k", 5)
    k = st.number_input(
        f"k: chunks retrieved per question (1–{MAX_K})", min_value=0, max_value=100, step=1, key="eval.k"
    )
    try:
        return check_k(k)
    except SweepError as exc:
        st.error(str(exc))
        return None


# ----------------------------------------------------------------------------- running
def run_key(text: str, questions: Sequence[Question], planned: Sequence[Planned], k: int, extra: Any = None) -> str:
    """A fingerprint of everything a run depends on."""
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass"))
    parts = {
        "questions": [[q.question, [[r.document, r.start, r.end] for r in q.references]] for q in questions],
        "configs": [
            [
                p.label,
                p.configuration.strategy,
                p.configuration.params,
                p.configuration.tokenizer,
                p.configuration.label(),
            ]
            for p in planned
        ],
        "k": k,
        "extra": extra,
    }
    digest.update(json.dumps(parts, sort_keys=True, default=str).encode())
    return digest.hexdigest()


def run_evaluation(
    document: Document,
    doc_key: str,
    questions: Sequence[Question],
    planned: Sequence[Planned],
    k: int,
    swept: bool,
    techniques: Techniques | None = None,
    settings: LLMSettings | None = None,
    model: str = DEFAULT_MODEL,
) -> EvalRun:
    """Evaluate each configuration on its own (one that fails leaves the others), embedded with
    ``model``, with a progress bar."""
    began = time.perf_counter()
    bar = st.progress(0.0, text="Loading the embedding model…")
    ok: list[Planned] = []
    results: list[Result] = []
    failed: list[tuple[str, str]] = []
    for i, plan in enumerate(planned):
        bar.progress(i / len(planned), text=f"{i + 1}/{len(planned)} · {plan.label}: chunking…")
        try:
            with llm_session(
                settings or LLMSettings.from_env(), progress=_llm_reporter(bar, i, len(planned), plan.label)
            ):
                (result,) = evaluate(
                    {doc_key: document},
                    questions,
                    [plan.configuration],
                    k=k,
                    model=model,
                    progress=_reporter(bar, i, len(planned), plan.label),
                )
        except (ChunkvizError, ValueError) as exc:
            failed.append((plan.label, str(exc)))
            continue
        ok.append(plan)
        results.append(result)
    answers = None
    if techniques is not None and techniques.answers and results:
        bar.progress(1.0, text="The model answers the questions from each configuration's chunks…")
        answers, error = run_answers(
            results,
            [p.label for p in ok],
            questions,
            {doc_key: document},
            k,
            techniques,
            settings or LLMSettings.from_env(),
        )
        if error:
            failed.append(("answer quality", error))
    bar.empty()
    return EvalRun(tuple(ok), tuple(results), tuple(failed), time.perf_counter() - began, swept, answers, model)


def _llm_reporter(bar: Any, i: int, n: int, label: str) -> Callable[[int, int], None]:
    def progress(done: int, total: int) -> None:
        if total:
            bar.progress(
                min((i + done / total) / n, 1.0), text=f"{i + 1}/{n} · {label}: the model's answers {done:,}/{total:,}"
            )

    return progress


def _reporter(bar: Any, i: int, n: int, label: str) -> Callable[[str, int, int], None]:
    def progress(what: str, done: int, total: int) -> None:
        part = done / total if total else 1.0
        kind = "the questions" if what == "questions" else "chunks"
        counted = f"embedding {kind} {done:,}/{total:,}" if total else f"{kind} already embedded"
        bar.progress(min((i + part) / n, 1.0), text=f"{i + 1}/{n} · {label}: {counted}")

    return progress


def stored_run(key: str) -> EvalRun | None:
    return st.session_state.get("_eval.runs", {}).get(key)


def store_run(key: str, run: EvalRun) -> None:
    runs = dict(st.session_state.get("_eval.runs", {}))
    runs.pop(key, None)
    runs[key] = run
    st.session_state["_eval.runs"] = dict(list(runs.items())[-KEPT_RUNS:])


# ----------------------------------------------------------------------------- results
def colour_of(plan: Planned) -> str:
    return strategy_colour(plan.column.hue)


def show_results(run: EvalRun, k: int) -> None:
    """The table (best per metric marked) and the recall@k and IoU charts."""
    for label, message in run.failed:
        st.warning(f"{label} did not run: {message}")
    if not run.results:
        st.error("No configuration could be evaluated; change the settings named above.")
        return
    labels = [p.label for p in run.planned]
    st.caption(
        f"{len(run.results)} configurations · k = {k} · {model_label(run.model)} embeddings, exact cosine"
        f"{retrieval_note(run)} · "
        f"{run.seconds:.1f} s · scores are mean ± standard deviation over the questions, in %; ★ the best of each column"
    )
    frame = pd.DataFrame(with_answer_cells(summary_rows(run.results, labels), run.answers)).rename(
        columns={TITLES[m]: TITLES[m].replace("@k", f"@{k}") for m in ("recall_at_k", "ndcg_at_k")}
    )
    metric_columns = list(frame.columns[3:])
    styled = frame.style.map(
        lambda v: BEST_CELL if isinstance(v, str) and v.endswith("★") else "", subset=metric_columns
    )
    st.dataframe(styled, hide_index=True, key="eval.table", width="stretch", height=table_height(len(frame), 16))
    left, right = st.columns(2)
    for container, metric in ((left, "recall_at_k"), (right, "iou")):
        title = TITLES[metric].replace("@k", f"@{k}")
        with container:
            st.plotly_chart(metric_figure(run, metric, title), key=f"eval.chart.{metric}")


def retrieval_note(run: EvalRun) -> str:
    """``; also bm25, hybrid: rrf`` when some row does not retrieve by dense cosine alone."""
    tags = list(dict.fromkeys(t for p in run.planned for t in p.configuration.retrieval_tags()))
    return f"; also {', '.join(tags)}" if tags else ""


def table_height(rows: int, most: int) -> int:
    """Pixels that show ``rows`` rows of a dataframe (35 px each under a 35 px header), at most ``most``."""
    return 35 * (min(rows, most) + 1) + 3


def metric_figure(run: EvalRun, metric: str, title: str) -> Any:
    """Lines against the swept size per column (a sweep), else a bar per configuration."""
    if run.swept:
        series: dict[str, list[tuple[float, float, float]]] = {}
        colours: dict[str, str] = {}
        for plan, result in zip(run.planned, run.results):
            mean, std = result.summary()[metric]
            if plan.size is None:  # a swept plan always has its size
                continue
            name = plan.column.label + variant_suffix(plan.configuration)  # a technique's twin is its own line
            series.setdefault(name, []).append((plan.size, mean, std))
            colours[name] = colour_of(plan)
        return sweep_figure(series, title, colours, size_title="size setting (log scale)")
    values = {p.label: r.summary()[metric] for p, r in zip(run.planned, run.results)}
    return configuration_bars_figure(values, title, {p.label: colour_of(p) for p in run.planned})


# ----------------------------------------------------------------------------- per question
def show_questions(run: EvalRun, questions: Sequence[Question], document: Document) -> None:
    """Per-question scores of one configuration; a picked question shows its reference and the
    chunks each configuration retrieved for it in the document view."""
    st.subheader("Per question")
    labels = [p.label for p in run.planned]
    _remember("eval.config", labels[0])
    if st.session_state["eval.config"] not in labels:
        st.session_state["eval.config"] = labels[0]
    chosen = st.selectbox("Scores of", labels, key="eval.config")
    result = run.results[labels.index(chosen)]
    show_answers(run.answers, chosen)
    show_twin(run, labels.index(chosen), questions)
    rows = question_rows(result, questions)
    st.caption("Click a row to see the question's reference and the chunks each configuration retrieved for it.")
    frame = pd.DataFrame(rows).rename(
        columns={TITLES[m]: TITLES[m].replace("@k", f"@{result.k}") for m in ("recall_at_k", "ndcg_at_k")}
    )
    frame["first hit"] = [f"#{row['first hit']}" if row["first hit"] is not None else "–" for row in rows]
    # pixel widths: the numbers stay narrow, the question gets the room (the full text shows on a click)
    narrow = {
        name: st.column_config.Column(width=40 if name == "#" else 76) for name in frame.columns if name != "question"
    }
    narrow["first hit"] = st.column_config.TextColumn(
        width=70, help="rank of the first retrieved chunk that overlaps a reference (–: none in the top k)"
    )
    table = st.dataframe(
        frame, key="eval.questions", on_select="rerun", selection_mode="single-row", hide_index=True,
        height=table_height(len(rows), 10), width="stretch",
        column_config={**narrow, "question": st.column_config.TextColumn(width=480)},
    )  # fmt: skip
    picked = [
        r for r in (table.selection.rows if table is not None and hasattr(table, "selection") else []) if r < len(rows)
    ]
    if not picked:
        return
    show_question(run, questions, picked[0], document, chosen)


def show_twin(run: EvalRun, c: int, questions: Sequence[Question]) -> None:
    """For a technique's row: per question, what it changed against the same chunks without it
    (broadest questions first: do they hit now?)."""
    twin = plain_twins(run.results)[c]
    if twin is None:
        return
    with st.expander(
        f"What {variant_suffix(run.planned[c].configuration).lstrip(' ·')} changed, per question (broadest first)"
    ):
        frame = pd.DataFrame(twin_question_rows(run.results[twin], run.results[c], questions))
        st.dataframe(frame, hide_index=True, width="stretch", height=table_height(len(frame), 10))


def show_question(run: EvalRun, questions: Sequence[Question], q: int, document: Document, chosen: str) -> None:
    question = questions[q]
    st.markdown(f"**Question {q + 1}:** {markdown_literal(question.question)}")
    for n, ref in enumerate(question.references, start=1):
        st.caption(f"Reference {n} · characters {ref.start:,}–{ref.end:,}")
        st.code(document.text[ref.start : ref.end], language=None, wrap_lines=True)
    labels = [p.label for p in run.planned]
    default = [chosen] + [label for label in labels if label != chosen][: MAX_SHOWN - 1]
    if len(labels) > MAX_SHOWN:
        shown = st.multiselect(
            f"Configurations in the document view (up to {MAX_SHOWN})", labels, default=default,
            max_selections=MAX_SHOWN, key="eval.shown",
        )  # fmt: skip
    else:
        shown = labels
    views = [question_view(run, labels.index(label), q, document, i) for i, label in enumerate(shown)]
    if views:
        refs = [(r.start, r.end) for r in question.references]
        document_view(views, length=len(document.text), key=DOCVIEW_KEY, height_px=VIEW_HEIGHT_PX, references=refs)


def question_view(run: EvalRun, c: int, q: int, document: Document, position: int) -> ColumnView:
    """One configuration's column: its chunks, its top-k hits for question ``q`` and their scores."""
    plan, result = run.planned[c], run.results[c]
    config = plan.configuration
    chunking = Chunking.of(config.strategy, config.params, config.tokenizer)
    html, cuts = cached_column_html(document, chunking, f"eval{position}", plan.column.hue)
    hits = [Hit(r.chunk_index, r.rank, r.score, r.matched) for r in result.retrieved[q]]
    scores = result.scores[q]
    summary = f"recall@{result.k} {100 * scores.recall_at_k:.0f}% · IoU {100 * scores.iou:.1f}% · first hit " + (
        f"#{round(1 / scores.reciprocal_rank)}" if scores.reciprocal_rank else "none"
    )
    return ColumnView(plan.label, html, plan.column.hue, summary, cuts, None, hits)


# ----------------------------------------------------------------------------- the view
def show_evaluate(
    document: Document,
    doc_name: str,
    columns: Sequence[EvalColumn],
    sample_path: Path | None,
    settings: LLMSettings | None = None,
) -> None:
    """The Evaluate view (``doc_name``: the document's name; ``sample_path``: the sample file it
    was read from, whose question file is offered, or None)."""
    doc_key = Path(doc_name).name or "document.txt"
    st.caption(
        "Which cut retrieves best: each configuration's chunks are embedded, every question retrieves its top k "
        "chunks, and the retrieved text is scored against the question's reference spans."
    )
    settings = settings or LLMSettings.from_env()
    questions = choose_questions(document, doc_key, sample_path, settings)
    left, right = st.columns([3, 1])
    with left:
        configured = choose_configurations(columns)
    with right:
        k = choose_k()
    techniques = choose_techniques(settings)
    show_find_best(document, doc_key, questions, k, columns)
    if questions is None or configured is None or k is None or techniques is None:
        return
    planned, swept = configured
    planned = with_techniques(planned, techniques)
    model = retrieval_model()
    key = run_key(
        document.text,
        questions,
        planned,
        k,
        [techniques.key(), settings.public() if techniques.calls_model else None, model],
    )
    if not show_costs(document, questions, [p.configuration for p in planned], techniques, settings):
        return
    if st.button(
        f"Run the evaluation ({len(planned)} configurations × {len(questions)} questions)",
        type="primary",
        key="eval.run",
    ):
        store_run(key, run_evaluation(document, doc_key, questions, planned, k, swept, techniques, settings, model))
    run = stored_run(key)
    if run is None:
        st.info("Press Run to embed the chunks and score each configuration (the first run loads the model; "
                "embeddings are cached, so later runs are quick).")  # fmt: skip
        return
    show_results(run, k)
    if run.results:
        show_questions(run, questions, document)
