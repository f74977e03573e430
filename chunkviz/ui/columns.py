"""The app's columns and running them: each column's configuration, its cached run under a time
limit (a run stopped by the limit is remembered, not run again), the confirmation before a column
calls a language model, and a strategy's preparation with a progress bar."""

from __future__ import annotations

import dataclasses
import math
import os
import time
from typing import Any

import streamlit as st

from chunkviz.api import chunk as chunkviz_chunk
from chunkviz.core.deadline import RunTimeLimitExceeded, time_limit
from chunkviz.core.errors import ChunkvizError
from chunkviz.diagnostics.compare import ColumnConfig, StrategyRun
from chunkviz.document import Document, is_blank
from chunkviz.drawing.palette import column_hue
from chunkviz.evaluation.evaluate import uses_llm
from chunkviz.evaluation.retrieval import searchable
from chunkviz.llm.client import CallEstimate, LLMSettings
from chunkviz.llm.contextual import estimate_contexts
from chunkviz.strategies.base import get_strategy
from chunkviz.ui.cached import cached_run, load_tokenizer
from chunkviz.ui.keys import Chunking, ColumnSettings, Enrichment, RunKey, document_digest
from chunkviz.ui.llm import calls_caption, confirmed, endpoint_key, llm_session, safe_estimate

#: Seconds one column's run may take before it is stopped with a message (the CLI has no limit);
#: a slow or shared server raises it with the environment variable :data:`RUN_TIME_LIMIT_ENV`.
RUN_TIME_LIMIT_S = 60
RUN_TIME_LIMIT_ENV = "CHUNKVIZ_RUN_TIME_LIMIT_S"
#: A column that calls a language model waits for its answers: it gets this many times longer.
LLM_TIME_FACTOR = 10
#: A strategy's preparation (embedding every sentence, asking the model), shown with a progress
#: bar and cached, has its own limit, this many times the run's: on a busy server embedding a
#: long document takes minutes, and stopping it would throw that work away.
PREPARE_TIME_FACTOR = 10


def run_time_limit_s() -> float:
    """The seconds a run may take: ``$CHUNKVIZ_RUN_TIME_LIMIT_S`` when set to a positive number,
    else :data:`RUN_TIME_LIMIT_S` (read at each run, so a test or a server sets it any time)."""
    given = os.environ.get(RUN_TIME_LIMIT_ENV, "").strip()
    if not given:
        return RUN_TIME_LIMIT_S
    try:
        seconds = float(given)
    except ValueError:
        seconds = 0.0
    if not math.isfinite(seconds) or seconds <= 0:
        raise ChunkvizError(f"{RUN_TIME_LIMIT_ENV}={given!r} is not a number of seconds above 0; unset it for 60 s")
    return seconds


class Column:
    """One configured column, the key of its cached run, and what running it gave (its run, or
    the error to show)."""

    def __init__(
        self,
        i: int,
        config: ColumnConfig,
        tokenizer: str,
        settings: ColumnSettings,
        llm: LLMSettings | None = None,
        enrichment: Enrichment | None = None,
    ) -> None:
        self.i = i
        self.config = config
        self.label = f"{i + 1}. {config.strategy}"
        self.key = f"col{i}"
        self.hue = column_hue(i)
        self.chunking = Chunking.of(config.strategy, config.params, tokenizer)
        self.contextual = enrichment is not None and enrichment.contextual  # the model writes each chunk's context
        self.uses_llm = uses_llm(config.strategy, enrich="contextual" if self.contextual else None)
        self.llm = llm if self.uses_llm else None
        endpoint = endpoint_key(llm) if self.uses_llm and llm is not None else ()
        own = dataclasses.replace(settings, column_tokenizer=config.tokenizer, endpoint=endpoint)
        self.run_key = RunKey(self.chunking, own, enrichment)
        self.run: StrategyRun | None = None
        self.error: str | None = None
        self.llm_note: str | None = None


def run_columns(columns: list[Column], document: Document) -> None:
    """Run every column (cached); a column's error is kept for display, the others still run."""
    status = st.empty()
    for column in columns:
        stopped = timed_out(column, document)
        if stopped:  # an exception is not cached: without this every rerun would spend the limit again
            column.error = stopped
            continue
        try:
            if column.uses_llm and not llm_confirmed(column, document):
                column.error = "waiting for you to allow the calls to the model (the button above)"
                continue
            limit = run_time_limit_s() * (LLM_TIME_FACTOR if column.uses_llm else 1)
            what = f"column {column.i + 1} ({column.config.strategy})"
            with llm_session(column.llm or LLMSettings.from_env()) as session:
                with time_limit(
                    run_time_limit_s() * PREPARE_TIME_FACTOR, f"{what}: preparing (embedding or asking the model)"
                ):
                    prepare_with_progress(column.config, document, column.chunking.tokenizer, status)
                with time_limit(limit, what), status.container():
                    with st.spinner(f"Chunking with {column.config.strategy}…"):
                        column.run = cached_run(document, column.run_key, column.llm)
            column.llm_note = remembered_note(column, calls_caption(session))
        except RunTimeLimitExceeded as exc:
            remember_time_out(column, document, str(exc))
            column.error = str(exc)
        except ChunkvizError as exc:
            column.error = str(exc)
    status.empty()


TIMED_OUT = "_timed_out"  # runs stopped by the time limit, by configuration: not run again this session


def _run_identity(column: Column, document: Document) -> tuple[str, RunKey]:
    return document_digest(document), column.run_key


def timed_out(column: Column, document: Document) -> str | None:
    """The message of this exact run if it was stopped by the time limit before in this session."""
    return st.session_state.get(TIMED_OUT, {}).get(_run_identity(column, document))


def remember_time_out(column: Column, document: Document, message: str) -> None:
    stopped = dict(st.session_state.get(TIMED_OUT, {}))
    stopped[_run_identity(column, document)] = message + " (Change a setting to try again.)"
    st.session_state[TIMED_OUT] = dict(list(stopped.items())[-32:])


def remembered_note(column: Column, note: str | None) -> str | None:
    """The column's last "calls made vs cached" line, kept while its configuration stays the same
    (the reruns that follow a run serve it from the cache and have nothing to report)."""
    key = f"{column.key}.llm_note"
    if note is not None:
        st.session_state[key] = (column.run_key, note)
        return note
    kept = st.session_state.get(key)
    return kept[1] if kept and kept[0] == column.run_key else None


def llm_confirmed(column: Column, document: Document) -> bool:
    """Whether an LLM column may run: every answer is cached, or the user allowed the calls
    (shown with their number and input tokens). No endpoint: True, and the run says what to set."""
    settings = column.llm or LLMSettings.from_env()
    if not settings.configured or is_blank(document.text):
        return True
    with llm_session(settings) as session:
        estimate, error = safe_estimate(lambda: column_estimate(column, document, session))
    if estimate is None:
        column.error = error
        return True
    what = " and ".join(
        w
        for w, on in (
            (f"{column.config.strategy} chunking", get_strategy(column.config.strategy).calls_model),
            ("contextual retrieval", column.contextual),
        )
        if on
    )
    return confirmed(f"Column {column.label} ({what})", estimate, settings, column.key)


def column_estimate(column: Column, document: Document, session: Any) -> CallEstimate:
    """The calls a column's LLM work will make: its strategy's own estimate (one that calls a
    model), else each chunk's context (a model strategy's contexts are counted once its chunks exist)."""
    spec, tokenizer = get_strategy(column.config.strategy), column.chunking.tokenizer
    if spec.estimate is not None:
        return spec.estimate(document, spec.make_params(column.config.params), load_tokenizer(tokenizer))
    chunks = chunkviz_chunk(
        document, column.config.strategy, tokenizer=column.config.tokenizer or tokenizer, **dict(column.config.params)
    )
    return estimate_contexts(session.client(), document, searchable(chunks))


def prepare_with_progress(config: ColumnConfig, document: Document, tokenizer: str, slot: Any) -> None:
    """Run a strategy's expensive precomputation (e.g. embeddings) with a progress bar that is
    on screen from the first moment (loading a model can take seconds before any progress)."""
    spec = get_strategy(config.strategy)
    if spec.prepare is None or is_blank(document.text):
        return
    params = spec.make_params(config.params)
    began = time.perf_counter()
    bar = slot.progress(0.0, text=f"Preparing {config.strategy}: loading the model and splitting sentences…")

    def progress(done: int, total: int) -> None:
        rate = done / max(time.perf_counter() - began, 1e-6)
        label = f"Preparing {config.strategy}: {done:,}/{total:,}" + (f" ({rate:,.0f}/s)" if done else "")
        bar.progress(done / max(total, 1), text=label)

    spec.prepare(document, params, load_tokenizer(tokenizer), progress)
