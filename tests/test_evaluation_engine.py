"""chunkviz.evaluation.evaluate and chunkviz.semantic.embedcache: the engine end to end, with a stand-in encoder
(bag of words: exact, fast, no model) and once with the real offline MiniLM."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np
import pytest
from support.evaluation import QUESTIONS, TEXT, Q, bag_of_words, span_of

from chunkviz.evaluation.evaluate import Configuration, evaluate, results_json
from chunkviz.semantic import embedcache


def encode_words(texts: Sequence[str], progress=None) -> np.ndarray:  # noqa: ANN001
    """The bag-of-words stand-in, recording what it is asked to embed."""
    calls.append(list(texts))
    if progress is not None:
        progress(len(texts), len(texts))
    return bag_of_words(texts)


calls: list[list[str]] = []


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path / "cache"))
    embedcache.clear_memory()
    calls.clear()


def test_paragraph_chunks_retrieve_their_own_topic_first() -> None:
    (result,) = evaluate(
        {"doc": TEXT},
        QUESTIONS,
        [Configuration("paragraphs", {"min_tokens": 1, "max_tokens": 100})],
        k=1,
        model="words",
        encode=encode_words,
    )
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
    (result,) = evaluate(
        {"doc": TEXT},
        QUESTIONS[:1],
        [Configuration("paragraphs", {"min_tokens": 1, "max_tokens": 100})],
        k=10,
        model="words",
        encode=encode_words,
    )
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
    configs = [
        Configuration("paragraphs", {"min_tokens": 1, "max_tokens": 100}),
        Configuration("paragraphs", {"min_tokens": 1, "max_tokens": 200}),
    ]
    evaluate({"doc": TEXT}, QUESTIONS, configs, k=2, model="words", encode=encode_words)
    embedded = [t for batch in calls for t in batch]
    assert len(embedded) == len(set(embedded)) == 3 + 3  # the questions and the three paragraphs, once each
    embedcache.clear_memory()  # a new process: the disk cache answers
    calls.clear()
    again = evaluate({"doc": TEXT}, QUESTIONS, configs, k=2, model="words", encode=encode_words)
    assert calls == []
    assert [r.summary() for r in again] == [
        r.summary() for r in evaluate({"doc": TEXT}, QUESTIONS, configs, k=2, model="words", encode=encode_words)
    ]


def test_vectors_in_memory_stay_under_the_limit_and_the_oldest_go_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", "")  # memory only: a forgotten vector is embedded again
    embedcache.clear_memory()
    one = encode_words(["probe"]).nbytes
    monkeypatch.setattr(embedcache.VECTORS, "max_bytes", 3 * one)
    calls.clear()
    embedcache.embed_texts(["alpha", "beta", "gamma"], "words", encode_words)
    embedcache.embed_texts(["alpha"], "words", encode_words)  # used again: now the newest
    embedcache.embed_texts(["delta"], "words", encode_words)  # over the limit: "beta" goes
    assert embedcache.memory_bytes() == 3 * one
    calls.clear()
    embedcache.embed_texts(["alpha", "gamma", "delta"], "words", encode_words)
    assert calls == []
    embedcache.embed_texts(["beta"], "words", encode_words)
    assert calls == [["beta"]]
    embedcache.clear_memory()
    assert embedcache.memory_bytes() == 0


def test_results_serialize_to_json() -> None:
    import json

    results = evaluate(
        {"doc": TEXT},
        QUESTIONS,
        [Configuration("fixed_tokens", {"chunk_size": 12, "overlap": 2})],
        k=2,
        model="words",
        encode=encode_words,
    )
    data = json.loads(results_json(results))
    assert data[0]["label"] == "fixed_tokens(chunk_size=12, overlap=2)"
    assert set(data[0]["summary"]) == {
        "recall",
        "precision",
        "iou",
        "precision_omega",
        "recall_at_k",
        "reciprocal_rank",
        "ndcg_at_k",
        "average_precision",
        "recall@1",
        "recall@2",
    }
    assert len(data[0]["questions"]) == 3 and data[0]["questions"][0]["retrieved"][0]["rank"] == 1


@pytest.mark.slow
def test_the_offline_minilm_finds_the_topic_of_each_question() -> None:
    (result,) = evaluate(
        {"doc": TEXT}, QUESTIONS, [Configuration("paragraphs", {"min_tokens": 1, "max_tokens": 100})], k=1
    )
    assert [s.recall_at_k for s in result.scores] == [1.0, 1.0, 1.0]


# ----------------------------------------------------------------------------- techniques (issue 11 items 3-5)
from support.llm import LoopbackLLM, Reply, fast_settings  # noqa: E402

from chunkviz.evaluation.evaluate import ENRICHMENTS, configured_chunks, returns_parents, with_variants  # noqa: E402
from chunkviz.evaluation.report import SweepError, parse_choices, variant_options  # noqa: E402
from chunkviz.evaluation.summaries import SummaryIndexError  # noqa: E402
from chunkviz.llm import LLMNotConfigured, LLMSettings, use_llm  # noqa: E402
from chunkviz.llm.cache import clear_memory as clear_answers  # noqa: E402

PARAGRAPHS = Configuration("paragraphs", {"min_tokens": 1, "max_tokens": 100})


def test_labels_name_each_technique_and_variants_sit_next_to_their_plain_row() -> None:
    configs = with_variants(
        [PARAGRAPHS, Configuration("recursive")], enrich=[None, "contextual"], query=["raw", "hyde"]
    )
    assert [c.label() for c in configs] == [
        "paragraphs(max_tokens=100, min_tokens=1)",
        "paragraphs(max_tokens=100, min_tokens=1) [query: hyde]",
        "paragraphs(max_tokens=100, min_tokens=1) [enrich: contextual]",
        "paragraphs(max_tokens=100, min_tokens=1) [enrich: contextual] [query: hyde]",
        "recursive",
        "recursive [query: hyde]",
        "recursive [enrich: contextual]",
        "recursive [enrich: contextual] [query: hyde]",
    ]
    assert [c.uses_llm for c in configs[:4]] == [False, True, True, True]
    full = Configuration("headings", placement="first_find", enrich="metadata", query="rewrite", summaries="extractive")
    assert full.label() == "headings [first_find] [summaries: extractive] [enrich: metadata] [query: rewrite]"
    assert full.uses_llm and not Configuration("headings", enrich="metadata", summaries="extractive").uses_llm
    assert returns_parents(Configuration("headings", summaries="extractive")) and not returns_parents(
        Configuration("headings")
    )
    assert ENRICHMENTS == ("metadata", "contextual")
    with pytest.raises(ValueError, match="enrich must be one of metadata, contextual"):
        Configuration("paragraphs", enrich="llm")
    with pytest.raises(SummaryIndexError, match="summaries must be one of extractive, llm"):
        Configuration("paragraphs", summaries="abstractive")


def test_variant_options_from_the_command_line_keep_the_plain_setting_first() -> None:
    plain_retrieval = {"retriever": ["dense"], "fusion": ["rrf"]}
    assert variant_options() == {"enrich": [None], "query": ["raw"], "summaries": [None], **plain_retrieval}
    assert variant_options("contextual,metadata", "hyde, rewrite,hyde", "extractive") == {
        "enrich": [None, "contextual", "metadata"],
        "query": ["raw", "hyde", "rewrite"],
        "summaries": [None, "extractive"],
        **plain_retrieval,
    }
    assert parse_choices("raw,hyde", ("raw", "rewrite", "hyde"), "--query") == ["raw", "hyde"]
    with pytest.raises(SweepError, match=r"--enrich ',': no value; choose from metadata, contextual"):
        variant_options(enrich=",")
    with pytest.raises(
        SweepError, match="--summaries 'abstract': unknown value 'abstract'; choose from extractive, llm"
    ):
        variant_options(summaries="abstract")


def test_metadata_enrichment_embeds_the_prefix_and_scores_the_same_spans() -> None:
    text = "# Roasting\n\n" + TEXT
    plain, enriched = evaluate(
        {"doc.md": text},
        QUESTIONS[:1],
        with_variants([PARAGRAPHS], enrich=[None, "metadata"]),
        k=1,
        model="words",
        encode=encode_words,
    )
    embedded = [t for batch in calls for t in batch]
    assert (
        "Document: Roasting\nSection: Roasting\n\nTide power uses a turbine. A barrage holds the tide back.\n\n"
        in embedded
    )
    assert [(h.span.start, h.span.end) for h in plain.retrieved[0]] == [
        (h.span.start, h.span.end) for h in enriched.retrieved[0]
    ]
    assert enriched.chunks == plain.chunks == 4
    shown = configured_chunks(
        text, Configuration("paragraphs", {"min_tokens": 1, "max_tokens": 100}, enrich="metadata"), name="doc.md"
    )
    assert [c.added_text for c in shown][:2] == ["Document: Roasting\nSection: Roasting\n\n"] * 2


def _context(request: dict) -> Reply:
    user = request["messages"][-1]["content"]
    piece = user.split("<chunk>\n", 1)[1]
    return Reply("Context: about leather binding." if "quire" in piece else "Context: about other things.")


def test_contextual_enrichment_in_the_evaluation_calls_once_per_chunk(llm_server: LoopbackLLM, tmp_path: Path) -> None:
    llm_server.reset(_context)
    clear_answers()
    question = Q("what is leather used for", (span_of("Book binding starts with a quire."),))
    configs = with_variants([PARAGRAPHS], enrich=[None, "contextual"])
    announced: list[str] = []
    with use_llm(
        fast_settings(llm_server),
        cache_dir=tmp_path / "llm",
        on_estimate=lambda what, e: announced.append(f"{what}: {e.summary()}"),
    ):
        plain, enriched = evaluate({"doc": TEXT}, [question], configs, k=1, model="words", encode=encode_words)
    # both find the binding paragraph; the context adds "leather binding", so it matches better
    assert (plain.retrieved[0][0].chunk_index, enriched.retrieved[0][0].chunk_index) == (2, 2)
    assert enriched.retrieved[0][0].score > plain.retrieved[0][0].score
    embedded = [t for batch in calls for t in batch]
    assert (
        "about leather binding.\n\nBook binding starts with a quire. The binding is covered in leather.\n" in embedded
    )
    assert llm_server.calls == 3 and len(announced) == 1
    assert announced[0].startswith(
        "contextual retrieval for paragraphs(max_tokens=100, min_tokens=1) [enrich: contextual] of doc: 3 calls"
    )
    clear_answers()
    embedcache.clear_memory()
    with use_llm(fast_settings(llm_server), cache_dir=tmp_path / "llm") as session:
        again = evaluate({"doc": TEXT}, [question], configs, k=1, model="words", encode=encode_words)
    assert llm_server.calls == 3 and (session.stats.made, session.stats.cached) == (0, 3)
    assert [r.summary() for r in again] == [plain.summary(), enriched.summary()]


def test_llm_techniques_without_endpoint_fail_before_anything_is_embedded() -> None:
    for config in (Configuration("paragraphs", enrich="contextual"), Configuration("headings", summaries="llm")):
        calls.clear()
        with use_llm(LLMSettings()), pytest.raises(LLMNotConfigured, match="CHUNKVIZ_LLM_MODEL"):
            evaluate({"doc": TEXT}, QUESTIONS, [PARAGRAPHS, config], k=1, model="words", encode=encode_words)
        assert calls == []
    # the techniques without a model work with no endpoint
    with use_llm(LLMSettings()):
        results = evaluate(
            {"doc": TEXT},
            QUESTIONS,
            [Configuration("paragraphs", enrich="metadata", summaries="extractive")],
            k=1,
            model="words",
            encode=encode_words,
        )
    assert len(results) == 1


def test_summaries_on_a_multilevel_chunking_say_what_to_choose() -> None:
    config = Configuration(
        "parent_child", {"parent_size": 40, "child_size": 8, "child_overlap": 0}, summaries="extractive"
    )
    with pytest.raises(SummaryIndexError, match="choose headings, paragraphs, recursive"):
        evaluate({"doc": TEXT}, QUESTIONS, [config], k=1, model="words", encode=encode_words)
