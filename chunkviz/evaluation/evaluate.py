"""Evaluate chunking configurations on a corpus and its questions.

For each configuration: chunk every document, embed the chunks a retriever searches (cached per
text), rank them for every question by exact cosine similarity across the whole corpus, keep the
top k, map matched children to the parents a strategy returns, and score the returned spans
against the question's references (:mod:`chunkviz.evaluation.metrics`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from chunkviz.api import chunk
from chunkviz.document.model import Document, as_document
from chunkviz.evaluation.embedcache import Encoder, Progress, embed_texts
from chunkviz.evaluation.metrics import (
    Scores,
    Span,
    question_scores,
    scores_dict,
    summarize,
)
from chunkviz.evaluation.placement import check_placement, place
from chunkviz.evaluation.retrieval import returned, searchable, top_k
from chunkviz.strategies.base import get_strategy
from chunkviz.types import Chunk


@dataclass(frozen=True)
class Configuration:
    """One chunking to evaluate: a strategy, its parameters and the tokenizer its sizes count."""

    strategy: str
    params: Mapping[str, Any] = field(default_factory=dict, hash=False)
    tokenizer: str = "cl100k_base"
    #: where chunks are placed for scoring: "exact" spans, or Chroma's "first_find" of their text
    placement: str = "exact"

    def __post_init__(self) -> None:
        check_placement(self.placement)

    def label(self) -> str:
        params = ", ".join(f"{k}={v}" for k, v in sorted(self.params.items()))
        name = f"{self.strategy}({params})" if params else self.strategy
        return name if self.placement == "exact" else f"{name} [{self.placement}]"


@dataclass(frozen=True)
class Retrieved:
    """One returned span of one question: its rank (1 = best), score and place; ``matched``
    is the searched child whose score this is when the returned chunk is its parent."""

    rank: int
    score: float
    span: Span
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

    def summary(self) -> dict[str, tuple[float, float]]:
        return summarize(self.scores)

    def to_dict(self) -> dict[str, Any]:
        return {
            "strategy": self.configuration.strategy,
            "params": dict(self.configuration.params),
            "tokenizer": self.configuration.tokenizer,
            "placement": self.configuration.placement,
            "label": self.configuration.label(),
            "k": self.k,
            "chunks": self.chunks,
            "mean_chunk_chars": self.mean_chunk_chars,
            "summary": {name: {"mean": mean, "std": std} for name, (mean, std) in self.summary().items()},
            "questions": [
                {"scores": scores_dict(s),
                 "retrieved": [{"rank": r.rank, "score": r.score, "document": r.span.document, "start": r.span.start, "end": r.span.end} for r in hits]}
                for s, hits in zip(self.scores, self.retrieved)
            ],
        }  # fmt: skip


#: The model's batch size when embedding chunks for an evaluation.
EVALUATION_BATCH_SIZE = 16


def default_encoder(model: str) -> Encoder:
    """The sentence-transformers encoder of ``model`` (the offline MiniLM by default)."""
    from chunkviz.semantic.embeddings import load_model

    def encode(texts: Sequence[str], progress: Progress | None) -> np.ndarray:
        # chunks of a few hundred tokens: batches of 16 embed ~15% faster than 64 on 2 CPU cores
        # (same vectors to 1e-7, same scores); see bench/bench_chroma.py
        return load_model(model).encode(texts, progress, batch_size=EVALUATION_BATCH_SIZE)

    return encode


def evaluate(
    corpus: Mapping[str, Document | str],
    questions: Sequence[Any],
    configurations: Sequence[Configuration],
    *,
    k: int = 5,
    model: str | None = None,
    encode: Encoder | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> list[Result]:
    """Score every configuration on ``corpus`` (name -> document) and ``questions`` (each with
    ``question`` and ``references``: spans with ``document``, ``start``, ``end``).

    ``encode`` replaces the embedding model (tests); ``progress(what, done, total)`` reports
    embedding progress.
    """
    from chunkviz.semantic.embeddings import DEFAULT_MODEL, canonical_model

    # hub names of the default model are aliases of the packaged offline copy (one cache for all)
    model = canonical_model(model or DEFAULT_MODEL)
    encode = encode or default_encoder(model)
    documents = {name: as_document(doc) for name, doc in corpus.items()}
    query_vectors = embed_texts([q.question for q in questions], model, encode, _step(progress, "questions"))
    return [_evaluate_one(documents, questions, query_vectors, config, k, model, encode, progress) for config in configurations]


def _step(progress: Callable[[str, int, int], None] | None, what: str) -> Progress | None:
    return None if progress is None else (lambda done, total: progress(what, done, total))


def _evaluate_one(
    documents: Mapping[str, Document], questions: Sequence[Any], query_vectors: np.ndarray, config: Configuration,
    k: int, model: str, encode: Encoder, progress: Callable[[str, int, int], None] | None,
) -> Result:
    returns_parents = get_strategy(config.strategy).returns_parents
    chunked = {name: chunk(doc, config.strategy, tokenizer=config.tokenizer, **dict(config.params)) for name, doc in documents.items()}
    # scored where the placement puts them; embedded as the splitter wrote them (as Chroma did)
    per_document = {name: place(documents[name].text, chunks, config.placement) for name, chunks in chunked.items()}
    search: list[tuple[str, Chunk]] = [(name, c) for name, chunks in per_document.items() for c in searchable(chunks)]
    embedded = [c.added_text + c.text for chunks in chunked.values() for c in searchable(chunks)]
    units = {name: [_span(name, c) for c in _units(chunks, returns_parents)] for name, chunks in per_document.items()}
    vectors = embed_texts(embedded, model, encode, _step(progress, config.label()))
    ranking = top_k(query_vectors, vectors, k) if search else None
    scores, hits_all = [], []
    for q, question in enumerate(questions):
        hits = _hits(per_document, search, ranking, q, returns_parents)
        hits_all.append(tuple(hits))
        references = list(question.references)
        # only chunks of the references' documents can reach them (precision_Ω)
        reachable = [u for name in dict.fromkeys(r.document for r in references) for u in units.get(name, ())]
        scores.append(question_scores(references, [h.span for h in hits], reachable))
    lengths = [c.end - c.start for _, c in search]
    return Result(config, k, tuple(scores), tuple(hits_all), len(search), float(np.mean(lengths)) if lengths else 0.0)


def _units(chunks: Sequence[Chunk], returns_parents: bool) -> list[Chunk]:
    """The spans a retriever can return: parents of searchable chunks, or those chunks."""
    leaves = searchable(chunks)
    return returned(chunks, leaves, returns_parents) if returns_parents else leaves


def _hits(
    per_document: Mapping[str, Sequence[Chunk]], search: Sequence[tuple[str, Chunk]], ranking: Any, q: int, returns_parents: bool
) -> list[Retrieved]:
    if ranking is None:
        return []
    out: list[Retrieved] = []
    seen: set[tuple[str, int]] = set()
    for position, score in zip(ranking.indices[q], ranking.scores[q]):
        name, matched = search[int(position)]
        unit = returned(per_document[name], [matched], returns_parents)[0]
        if (name, unit.index) in seen:  # a parent already returned for a better child
            continue
        seen.add((name, unit.index))
        child = matched.index if unit.index != matched.index else None
        out.append(Retrieved(len(out) + 1, float(score), _span(name, unit), unit.index, child))
    return out


def _span(document: str, c: Chunk) -> Span:
    return Span(document, c.start, c.end)


def results_json(results: Sequence[Result]) -> str:
    return json.dumps([r.to_dict() for r in results], indent=2)
