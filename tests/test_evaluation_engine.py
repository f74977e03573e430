"""chunkviz.evaluation.evaluate and .embedcache: the engine end to end, with a stand-in encoder
(bag of words: exact, fast, no model) and once with the real offline MiniLM."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import pytest

from chunkviz.evaluation import embedcache
from chunkviz.evaluation.evaluate import Configuration, evaluate, results_json
from chunkviz.evaluation.metrics import Span

VOCABULARY = ["coffee", "roast", "beans", "tide", "turbine", "barrage", "binding", "quire", "leather"]
TEXT = (
    "Coffee roast notes. The beans crack when the roast is done.\n\n"
    "Tide power uses a turbine. A barrage holds the tide back.\n\n"
    "Book binding starts with a quire. The binding is covered in leather.\n"
)


@dataclass(frozen=True)
class Q:
    question: str
    references: tuple[Span, ...]


def encode_words(texts: Sequence[str], progress=None) -> np.ndarray:  # noqa: ANN001
    """A bag-of-words vector over VOCABULARY (plus a constant so no vector is zero)."""
    calls.append(list(texts))
    rows = []
    for text in texts:
        words = re.findall(r"[a-z]+", text.lower())
        rows.append([words.count(w) for w in VOCABULARY] + [0.01])
    if progress is not None:
        progress(len(texts), len(texts))
    return np.asarray(rows, dtype=np.float32)


calls: list[list[str]] = []


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path / "cache"))
    embedcache.clear_memory()
    calls.clear()


def span_of(excerpt: str) -> Span:
    start = TEXT.index(excerpt)
    return Span("doc", start, start + len(excerpt))


QUESTIONS = [
    Q("when is the coffee roast done", (span_of("The beans crack when the roast is done."),)),
    Q("what holds the tide back", (span_of("A barrage holds the tide back."),)),
    Q("what covers the binding", (span_of("The binding is covered in leather."),)),
]


def test_paragraph_chunks_retrieve_their_own_topic_first() -> None:
    (result,) = evaluate({"doc": TEXT}, QUESTIONS, [Configuration("paragraphs", {"min_tokens": 1, "max_tokens": 100})], k=1, model="words", encode=encode_words)
    assert result.chunks == 3
    # each question's top chunk is the paragraph holding its answer: recall 1, recall@1 1, MRR 1
    assert [s.recall for s in result.scores] == [1.0, 1.0, 1.0]
    assert [s.reciprocal_rank for s in result.scores] == [1.0, 1.0, 1.0]
    first = result.retrieved[0][0]
    paragraph_end = TEXT.index("Tide")  # a paragraph chunk runs to the next paragraph
    assert (first.rank, first.span.start, first.span.end) == (1, 0, paragraph_end)
    # precision: the answer's characters over the paragraph's
    answer = QUESTIONS[0].references[0]
    assert result.scores[0].precision == pytest.approx((answer.end - answer.start) / paragraph_end)
    mean, std = result.summary()["recall"]
    assert (mean, std) == (1.0, 0.0)


def test_k_larger_than_the_chunks_returns_every_chunk_ranked() -> None:
    (result,) = evaluate({"doc": TEXT}, QUESTIONS[:1], [Configuration("paragraphs", {"min_tokens": 1, "max_tokens": 100})], k=10, model="words", encode=encode_words)
    assert [h.rank for h in result.retrieved[0]] == [1, 2, 3]
    scores = [h.score for h in result.retrieved[0]]
    assert scores == sorted(scores, reverse=True)


def test_parent_child_retrieves_children_and_returns_their_parents() -> None:
    config = Configuration("parent_child", {"parent_size": 40, "child_size": 8, "child_overlap": 0})
    (result,) = evaluate({"doc": TEXT}, QUESTIONS, [config], k=3, model="words", encode=encode_words)
    from chunkviz import chunk

    chunks = chunk(TEXT, "parent_child", parent_size=40, child_size=8, child_overlap=0)
    parents = {(c.start, c.end) for c in chunks if c.parent is None}
    for hits in result.retrieved:
        assert hits and all((h.span.start, h.span.end) in parents for h in hits)
        assert len({(h.span.start, h.span.end) for h in hits}) == len(hits)  # each parent once
    assert result.chunks == sum(1 for c in chunks if c.parent is not None)  # children are what is searched


def test_embeddings_are_cached_per_text_across_configurations_and_runs() -> None:
    configs = [Configuration("paragraphs", {"min_tokens": 1, "max_tokens": 100}), Configuration("paragraphs", {"min_tokens": 1, "max_tokens": 200})]
    evaluate({"doc": TEXT}, QUESTIONS, configs, k=2, model="words", encode=encode_words)
    embedded = [t for batch in calls for t in batch]
    assert len(embedded) == len(set(embedded)) == 3 + 3  # the questions and the three paragraphs, once each
    embedcache.clear_memory()  # a new process: the disk cache answers
    calls.clear()
    again = evaluate({"doc": TEXT}, QUESTIONS, configs, k=2, model="words", encode=encode_words)
    assert calls == []
    assert [r.summary() for r in again] == [r.summary() for r in evaluate({"doc": TEXT}, QUESTIONS, configs, k=2, model="words", encode=encode_words)]


def test_results_serialize_to_json() -> None:
    import json

    results = evaluate({"doc": TEXT}, QUESTIONS, [Configuration("fixed_tokens", {"chunk_size": 12, "overlap": 2})], k=2, model="words", encode=encode_words)
    data = json.loads(results_json(results))
    assert data[0]["label"] == "fixed_tokens(chunk_size=12, overlap=2)"
    assert set(data[0]["summary"]) == {"recall", "precision", "iou", "precision_omega", "recall_at_k", "reciprocal_rank"}
    assert len(data[0]["questions"]) == 3 and data[0]["questions"][0]["retrieved"][0]["rank"] == 1


@pytest.mark.slow
def test_the_offline_minilm_finds_the_topic_of_each_question() -> None:
    (result,) = evaluate({"doc": TEXT}, QUESTIONS, [Configuration("paragraphs", {"min_tokens": 1, "max_tokens": 100})], k=1)
    assert [s.recall_at_k for s in result.scores] == [1.0, 1.0, 1.0]
