"""Evaluate chunking configurations on a corpus and its questions.

For each configuration: chunk every document, embed the chunks a retriever searches (cached per
text), rank them for every question across the whole corpus by the configuration's retriever
(exact cosine, BM25 over the same texts, or both fused, optionally reranked:
:mod:`chunkviz.evaluation.retrievers`), keep the top k, map matched children to the parents a
strategy returns, and score the returned spans against the question's references
(:mod:`chunkviz.evaluation.metrics`).

A configuration may also name the techniques of seed 000 §13.7 and §13.9.3, so that the same
chunks are scored with and without them (:func:`with_variants` pairs each configuration with
its twins):

- ``summaries`` ("extractive" or "llm"): a summary per chunk (the chunks are the sections), searched
  instead of the sections, which are returned (:mod:`chunkviz.evaluation.summaries`);
- ``enrich`` ("metadata" or "contextual"): text put in front of every embedded chunk, the
  metadata prefix (:func:`chunkviz.document.enrich.enrich`) or a model-written context
  (:mod:`chunkviz.llm.contextual`); spans, and so scores' units, are unchanged;
- ``query`` ("raw", "rewrite" or "hyde"): what is embedded for each question (:mod:`chunkviz.llm.queries`).

The LLM techniques call the model of the active :func:`chunkviz.llm.use_llm` session (else the
environment's endpoint); without one they raise ``LLMNotConfigured`` before anything is embedded.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from chunkviz.api import chunk
from chunkviz.core.types import Chunk, Progress
from chunkviz.document.enrich import enrich as enrich_metadata
from chunkviz.document.model import Document, as_document
from chunkviz.evaluation.metrics import (
    DocumentSpan,
    Scores,
    document_scores,
    question_scores,
    scores_dict,
    summarize,
)
from chunkviz.evaluation.placement import check_placement, place
from chunkviz.evaluation.retrieval import returned, searchable, top_k
from chunkviz.evaluation.retrievers import (
    Ranked,
    Reranker,
    RetrievalSettings,
    load_reranker,
    retrieve,
)
from chunkviz.evaluation.summaries import (
    DEFAULT_SUMMARY_SENTENCES,
    check_summary_mode,
    embedding_text,
    estimate_summaries,
    summary_index,
)
from chunkviz.llm.client import CallEstimate
from chunkviz.llm.contextual import (
    DEFAULT_CONTEXT_TOKENS,
    contextualize,
    estimate_contexts,
)
from chunkviz.llm.queries import check_query_mode, estimate_queries, query_texts
from chunkviz.llm.session import LLMSession, active_session
from chunkviz.semantic.embedcache import embed_texts
from chunkviz.semantic.embeddings import Encoder, default_encoder
from chunkviz.strategies.base import get_strategy


@dataclass(frozen=True)
class Configuration(RetrievalSettings):
    """One chunking to evaluate: a strategy, its parameters and the tokenizer its sizes count, and
    how its chunks are ranked (the :class:`~chunkviz.evaluation.retrievers.RetrievalSettings`)."""

    strategy: str
    params: Mapping[str, Any] = field(default_factory=dict, hash=False)
    tokenizer: str = "cl100k_base"
    #: where chunks are placed for scoring: "exact" spans, or Chroma's "first_find" of their text
    placement: str = "exact"
    #: text put in front of each embedded chunk: None, "metadata" or "contextual" (LLM)
    enrich: str | None = None
    #: what is embedded for a question: "raw", "rewrite" or "hyde" (LLM)
    query: str = "raw"
    #: a summary per chunk searched instead of it (the chunk returned): None, "extractive" or "llm"
    summaries: str | None = None
    # how chunks are ranked for a question: retriever, fusion, alpha, rerank, rerank_candidates
    # (keyword-only, from :class:`~chunkviz.evaluation.retrievers.RetrievalSettings`)

    def __post_init__(self) -> None:
        check_placement(self.placement)
        super().__post_init__()  # the retrieval settings, validated and normalized
        check_enrichment(self.enrich)
        check_query_mode(self.query)
        if self.summaries is not None:
            check_summary_mode(self.summaries)

    def label(self) -> str:
        """``recursive(chunk_size=256) [first_find] [summaries: extractive] [enrich: contextual] [query: hyde]``
        (only what differs from the plain configuration)."""
        params = ", ".join(f"{k}={v}" for k, v in sorted(self.params.items()))
        name = f"{self.strategy}({params})" if params else self.strategy
        return name + "".join(f" [{tag}]" for tag in self.tags())

    def tags(self) -> list[str]:
        """What this configuration adds to plain retrieval, e.g. ``["enrich: contextual"]``."""
        tags = [] if self.placement == "exact" else [self.placement]
        tags += self.retrieval_tags()
        if self.summaries:
            tags.append(f"summaries: {self.summaries}")
        if self.enrich:
            tags.append(f"enrich: {self.enrich}")
        if self.query != "raw":
            tags.append(f"query: {self.query}")
        return tags

    def retrieval_tags(self) -> list[str]:
        """How this configuration retrieves, when not plain dense: ``["hybrid: weighted alpha=0.3",
        "rerank: ms-marco top 20"]``."""
        tags = []
        if self.retriever == "hybrid":
            tags.append("hybrid: rrf" if self.fusion == "rrf" else f"hybrid: weighted alpha={self.alpha:g}")
        elif self.retriever != "dense":
            tags.append(self.retriever)
        if self.rerank is not None:
            tags.append(f"rerank: {Path(self.rerank).name or self.rerank} top {self.rerank_candidates}")
        return tags

    def retrieval_dict(self) -> dict[str, Any]:
        """The retrieval settings as JSON: retriever, fusion and alpha (None unless hybrid / weighted), rerank."""
        hybrid = self.retriever == "hybrid"
        return {
            "retriever": self.retriever,
            "fusion": self.fusion if hybrid else None,
            "alpha": self.alpha if hybrid and self.fusion == "weighted" else None,
            "rerank": self.rerank,
            "rerank_candidates": self.rerank_candidates if self.rerank is not None else None,
        }

    @property
    def uses_llm(self) -> bool:
        """Whether evaluating this configuration calls the model (:func:`uses_llm`)."""
        return uses_llm(self.strategy, enrich=self.enrich, query=self.query, summaries=self.summaries)


def uses_llm(strategy: str, *, enrich: str | None = None, query: str = "raw", summaries: str | None = None) -> bool:
    """The one rule for whether a run calls a language model: its strategy declares that it does
    (the registry: :attr:`~chunkviz.strategies.base.Strategy.calls_model`), or a technique does
    (contextual enrichment, a rewritten or HyDE query, LLM summaries)."""
    return get_strategy(strategy).calls_model or enrich == "contextual" or query != "raw" or summaries == "llm"


ENRICHMENTS: tuple[str, ...] = ("metadata", "contextual")


def check_enrichment(enrich: str | None) -> str | None:
    """``enrich`` itself (None, "metadata" or "contextual"), or a ValueError naming the choices."""
    if enrich is not None and enrich not in ENRICHMENTS:
        raise ValueError(f"enrich must be one of {', '.join(ENRICHMENTS)} (or none), got {enrich!r}")
    return enrich


def with_variants(
    configurations: Sequence[Configuration],
    *,
    enrich: Sequence[str | None] = (None,),
    query: Sequence[str] = ("raw",),
    summaries: Sequence[str | None] = (None,),
    retriever: Sequence[str] | None = None,
    fusion: Sequence[str] | None = None,
) -> list[Configuration]:
    """Each configuration followed by its twins: every combination of ``summaries``, ``enrich``,
    ``query`` and ``retriever`` on the same chunking (the plain one first when the lists start
    with None / "raw" / "dense"), so a table compares them row by row; ``fusion`` lists the
    fusions of each ``hybrid`` twin. Without ``retriever`` / ``fusion`` each configuration keeps
    its own. Repeated values are taken once, and so are twins that come out equal."""
    out: list[Configuration] = []
    for config in configurations:
        twins: list[Configuration] = []
        retrievers = dict.fromkeys(retriever) if retriever is not None else [config.retriever]
        for s in dict.fromkeys(summaries):
            for e in dict.fromkeys(enrich):
                for q in dict.fromkeys(query):
                    for r in retrievers:
                        fusions = dict.fromkeys(fusion) if fusion is not None and r == "hybrid" else [config.fusion]
                        for f in fusions:
                            twin = replace(config, summaries=s, enrich=e, query=q, retriever=r, fusion=f)
                            if twin not in twins:
                                twins.append(twin)
        out.extend(twins)
    return out


@dataclass(frozen=True)
class Retrieved:
    """One returned span of one question: its rank (1 = best), score and place; ``matched``
    is the searched child whose score this is when the returned chunk is its parent."""

    rank: int
    score: float
    span: DocumentSpan
    chunk_index: int
    matched: int | None = None


@dataclass(frozen=True)
class Result:
    """The evaluation of one configuration."""

    configuration: Configuration
    k: int
    scores: tuple[Scores, ...]  # per question, in question order
    retrieved: tuple[tuple[Retrieved, ...], ...]  # per question
    chunks: int  # searchable chunks over the corpus
    mean_chunk_chars: float
    #: what was embedded for each question (the rewrites or passages of an LLM query mode; else the questions)
    query_texts: tuple[str, ...] = ()

    def summary(self) -> dict[str, tuple[float, float]]:
        return summarize(self.scores)

    def to_dict(self) -> dict[str, Any]:
        return {
            "strategy": self.configuration.strategy,
            "params": dict(self.configuration.params),
            "tokenizer": self.configuration.tokenizer,
            "placement": self.configuration.placement,
            "enrich": self.configuration.enrich,
            "query": self.configuration.query,
            "summaries": self.configuration.summaries,
            **self.configuration.retrieval_dict(),
            "label": self.configuration.label(),
            "k": self.k,
            "chunks": self.chunks,
            "mean_chunk_chars": self.mean_chunk_chars,
            "summary": {name: {"mean": _json_number(mean), "std": _json_number(std)} for name, (mean, std) in self.summary().items()},
            "questions": [
                {"scores": scores_dict(s),
                 **({"query_text": self.query_texts[i]} if self.configuration.query != "raw" and i < len(self.query_texts) else {}),
                 "retrieved": [{"rank": r.rank, "score": r.score, "document": r.span.document, "start": r.span.start, "end": r.span.end} for r in hits]}
                for i, (s, hits) in enumerate(zip(self.scores, self.retrieved))
            ],
        }  # fmt: skip


def _json_number(value: float) -> float | None:
    """``value``, or None for NaN (a score that does not apply: JSON has no NaN)."""
    return None if math.isnan(value) else value


def evaluate(
    corpus: Mapping[str, Document | str],
    questions: Sequence[Any],
    configurations: Sequence[Configuration],
    *,
    k: int = 5,
    model: str | None = None,
    encode: Encoder | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    context_tokens: int = DEFAULT_CONTEXT_TOKENS,
    summary_sentences: int = DEFAULT_SUMMARY_SENTENCES,
    reranker: Reranker | None = None,
) -> list[Result]:
    """Score every configuration on ``corpus`` (name -> document) and ``questions`` (each with
    ``question`` and ``references``: spans with ``document``, ``start``, ``end``).

    ``encode`` replaces the embedding model in every role (tests); ``reranker`` the cross-encoder of every
    configuration with a ``rerank`` folder (tests: a scoring function instead of a model);
    ``progress(what, done, total)`` reports embedding progress. ``context_tokens`` is the model context the LLM techniques plan their
    prompts for (contextual retrieval windows the document into it); ``summary_sentences`` the
    sentences of an extractive summary. LLM calls report through the active session (estimate
    before, progress during).
    """
    from chunkviz.semantic.embeddings import DEFAULT_MODEL, canonical_model

    # hub names of the default model are aliases of the packaged offline copy (one cache for all)
    model = canonical_model(model or DEFAULT_MODEL)
    documents = {name: as_document(doc) for name, doc in corpus.items()}
    session = active_session()
    if any(c.uses_llm for c in configurations):
        session.client()  # no endpoint: LLMNotConfigured now, before anything is embedded
    rerankers = {c.rerank: reranker or load_reranker(c.rerank) for c in configurations if c.rerank is not None}
    queries = _Queries(questions, model, encode or default_encoder(model, "query"), session, progress)
    settings = _Settings(k, model, encode, progress, context_tokens, summary_sentences, session, rerankers)
    return [_evaluate_one(documents, questions, queries, config, settings) for config in configurations]


@dataclass(frozen=True)
class _Settings:
    k: int
    model: str
    encode: Encoder | None  # every role's encoder (tests), else the model's own per role
    progress: Callable[[str, int, int], None] | None
    context_tokens: int
    summary_sentences: int
    session: LLMSession
    rerankers: Mapping[str, Reranker]


class _Queries:
    """What is embedded for the questions in each query mode, and its vectors (each mode once)."""

    def __init__(
        self, questions: Sequence[Any], model: str, encode: Encoder, session: LLMSession, progress: Any
    ) -> None:
        self.questions = [q.question for q in questions]
        self.model, self.encode, self.session, self.progress = model, encode, session, progress
        self._texts: dict[str, tuple[str, ...]] = {}
        self._vectors: dict[str, np.ndarray] = {}

    def vectors(self, mode: str) -> np.ndarray:
        """The vectors of :meth:`texts` (embedded once per mode)."""
        if mode not in self._vectors:
            what = "questions" if mode == "raw" else f"questions ({mode})"
            texts = list(self.texts(mode))
            self._vectors[mode] = embed_texts(texts, self.model, self.encode, _step(self.progress, what), role="query")
        return self._vectors[mode]

    def texts(self, mode: str) -> tuple[str, ...]:
        """What is searched with for each question in query ``mode`` (the model asked once per mode)."""
        if mode not in self._texts:
            client = None
            if mode != "raw":
                client = self.session.client()
                _announce(
                    self.session,
                    f"query {mode} of {len(self.questions)} questions",
                    estimate_queries(client, self.questions, mode),
                )
            self._texts[mode] = tuple(query_texts(client, self.questions, mode, self.session.progress))
        return self._texts[mode]


def _announce(session: LLMSession, what: str, estimate: CallEstimate) -> None:
    if estimate.calls:
        session.announce(what, estimate)


def configured_chunks(
    document: Document | str,
    config: Configuration,
    *,
    name: str = "",
    model: str | None = None,
    encode: Encoder | None = None,
    session: LLMSession | None = None,
    context_tokens: int = DEFAULT_CONTEXT_TOKENS,
    summary_sentences: int = DEFAULT_SUMMARY_SENTENCES,
) -> list[Chunk]:
    """The chunks ``config`` evaluates for one document (``name``: its corpus name): the
    strategy's chunks, with the summary level and the enrichment the configuration names
    (spans as the strategy cut them; the placement is applied when scoring). ``model`` /
    ``encode`` embed extractive summaries; ``session`` (default: the active one) gives the LLM."""
    document = as_document(document)
    session = session if session is not None else active_session()
    chunks = chunk(document, config.strategy, tokenizer=config.tokenizer, **dict(config.params))
    what = f"{config.label()} of {name or document.name}"
    if config.summaries is not None:
        client = None
        if config.summaries == "llm":
            client = session.client()
            _announce(session, f"summaries for {what}", estimate_summaries(client, document, chunks, context_tokens))
        chunks = summary_index(
            document,
            chunks,
            mode=config.summaries,
            sentences=summary_sentences,
            model=model,
            encode=encode,
            client=client,
            context_tokens=context_tokens,
            tokenizer=config.tokenizer,
            progress=session.progress if client else None,
        )
    if config.enrich == "metadata":
        chunks = enrich_metadata(document, chunks, source=name or document.name, tokenizer=config.tokenizer)
    elif config.enrich == "contextual":
        client = session.client()
        _announce(
            session, f"contextual retrieval for {what}", estimate_contexts(client, document, chunks, context_tokens)
        )
        chunks = contextualize(
            client,
            document,
            chunks,
            context_tokens=context_tokens,
            tokenizer=config.tokenizer,
            progress=session.progress,
        )
    return chunks


def returns_parents(config: Configuration) -> bool:
    """Whether retrieval with ``config`` returns the parents of the chunks it matches (a
    parent_child-like strategy, or summaries that stand for their sections)."""
    return get_strategy(config.strategy).returns_parents or config.summaries is not None


def _step(progress: Callable[[str, int, int], None] | None, what: str) -> Progress | None:
    return None if progress is None else (lambda done, total: progress(what, done, total))


def _evaluate_one(
    documents: Mapping[str, Document],
    questions: Sequence[Any],
    queries: _Queries,
    config: Configuration,
    settings: _Settings,
) -> Result:
    parents = returns_parents(config)
    chunked = {
        name: configured_chunks(
            doc,
            config,
            name=name,
            model=settings.model,
            encode=settings.encode or default_encoder(settings.model, "symmetric"),  # summaries' sentences
            session=settings.session,
            context_tokens=settings.context_tokens,
            summary_sentences=settings.summary_sentences,
        )
        for name, doc in documents.items()
    }
    # scored where the placement puts them; embedded as the splitter wrote them (as Chroma did)
    per_document = {name: place(documents[name].text, chunks, config.placement) for name, chunks in chunked.items()}
    search: list[tuple[str, Chunk]] = [(name, c) for name, chunks in per_document.items() for c in searchable(chunks)]
    embedded = [embedding_text(c) for chunks in chunked.values() for c in searchable(chunks)]
    units = {name: [_span(name, c) for c in _units(chunks, parents)] for name, chunks in per_document.items()}
    query_texts_ = queries.texts(config.query)

    def dense(n: int) -> Any:  # embedded only when the retriever reads it (not for bm25 alone)
        encode = settings.encode or default_encoder(settings.model, "passage")
        vectors = embed_texts(embedded, settings.model, encode, _step(settings.progress, config.label()))
        return top_k(queries.vectors(config.query), vectors, n)

    ranking = retrieve(
        config.retriever, embedded, query_texts_, settings.k, dense=dense, fusion=config.fusion, alpha=config.alpha,
        reranker=settings.rerankers.get(config.rerank) if config.rerank is not None else None,
        rerank_queries=queries.texts("raw"), rerank_candidates=config.rerank_candidates,
    ) if search else None  # fmt: skip
    scores, hits_all = [], []
    for q, question in enumerate(questions):
        hits = _hits(per_document, search, ranking, q, parents)
        hits_all.append(tuple(hits))
        references = list(question.references)
        if not references:  # labelled by documents only: ranking scores at document level
            scores.append(document_scores(getattr(question, "documents", ()), [h.span for h in hits], settings.k))
            continue
        # only chunks of the references' documents can reach them (precision_Ω, the relevant spans)
        reachable = [u for name in dict.fromkeys(r.document for r in references) for u in units.get(name, ())]
        scores.append(question_scores(references, [h.span for h in hits], reachable, settings.k))
    lengths = [c.end - c.start for _, c in search]
    return Result(
        config,
        settings.k,
        tuple(scores),
        tuple(hits_all),
        len(search),
        float(np.mean(lengths)) if lengths else 0.0,
        query_texts_,
    )


def _units(chunks: Sequence[Chunk], returns_parents: bool) -> list[Chunk]:
    """The spans a retriever can return: parents of searchable chunks, or those chunks."""
    leaves = searchable(chunks)
    return returned(chunks, leaves, returns_parents) if returns_parents else leaves


def _hits(
    per_document: Mapping[str, Sequence[Chunk]],
    search: Sequence[tuple[str, Chunk]],
    ranking: Sequence[Ranked] | None,
    q: int,
    returns_parents: bool,
) -> list[Retrieved]:
    if ranking is None:
        return []
    out: list[Retrieved] = []
    seen: set[tuple[str, int]] = set()
    for position, score in zip(ranking[q].positions, ranking[q].scores):
        name, matched = search[int(position)]
        unit = returned(per_document[name], [matched], returns_parents)[0]
        if (name, unit.index) in seen:  # a parent already returned for a better child
            continue
        seen.add((name, unit.index))
        child = matched.index if unit.index != matched.index else None
        out.append(Retrieved(len(out) + 1, float(score), _span(name, unit), unit.index, child))
    return out


def _span(document: str, c: Chunk) -> DocumentSpan:
    return DocumentSpan(document, c.start, c.end)


def results_json(results: Sequence[Result]) -> str:
    return json.dumps([r.to_dict() for r in results], indent=2)
