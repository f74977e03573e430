"""The ``cluster`` strategy (Chroma's ClusterSemanticChunker): exact cuts, reasons, limits, its
explanation and the Tune view. The stand-in embedder (support/semantic.py) keeps it fast; one test
reads a few hundred characters with the real MiniLM."""

from __future__ import annotations

import importlib
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.chunking import assert_valid_chunking
from support.semantic import ASTRONOMY, COOKING
from support.texts import SETTINGS, examples, prose_text

from chunkviz import InvalidParamError, chunk
from chunkviz.core.vocabulary import Meta, Reason
from chunkviz.semantic import ENCODE_CALLS
from chunkviz.strategies import get_strategy
from chunkviz.strategies.cluster import PIECES, ClusterParams, block_ranges, cluster_chunking, cluster_pieces
from chunkviz.text.tokenizers import get_tokenizer

cluster_module = importlib.import_module("chunkviz.strategies.cluster")

pytestmark = pytest.mark.usefixtures("semantic_cache_dir")

#: Two topics of two paragraphs each; with 8-word pieces every paragraph is one piece.
FRUIT_AND_SEA = (
    "Apples and pears grow in the orchard.\n\n"
    "The orchard apples and pears are ripe.\n\n"
    "Rivers flow into the sea at dawn.\n\n"
    "The sea and rivers meet at dawn.\n"
)


def cut(text: str, model: str, **params: object) -> list:
    return chunk(text, "cluster", tokenizer="words", model=model, **params)


def test_exact_cuts_on_a_hand_made_case(fake_model: str) -> None:
    """Pieces 0-1 share their words, pieces 2-3 theirs: the best clustering is the two pairs
    (tests/test_semantic_cluster.py works the same DP out by hand on a 4 × 4 matrix)."""
    chunks = cut(FRUIT_AND_SEA, fake_model, min_tokens=8, max_tokens=100)
    assert [c.text for c in chunks] == [
        "Apples and pears grow in the orchard.\n\nThe orchard apples and pears are ripe.",
        "Rivers flow into the sea at dawn.\n\nThe sea and rivers meet at dawn.",
    ]
    assert [c.reason for c in chunks] == [Reason.SEMANTIC_BREAKPOINT, Reason.UNIT_END]
    assert [c.metadata[PIECES] for c in chunks] == [(0, 2), (2, 4)]
    assert "only whitespace follows" in chunks[-1].metadata[Meta.NOTE]
    assert_valid_chunking(FRUIT_AND_SEA, chunks, tokenizer="words")


def test_a_chunk_that_cannot_take_the_next_piece_says_size_limit(fake_model: str) -> None:
    # two paragraphs and the blank line between them are more than 15 words-tokens
    chunks = cut(FRUIT_AND_SEA, fake_model, min_tokens=8, max_tokens=15)
    assert [c.metadata[PIECES] for c in chunks] == [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert [c.reason for c in chunks] == [Reason.SIZE_LIMIT] * 3 + [Reason.UNIT_END]
    # by Chroma's count alone: max_tokens // min_tokens = 1 piece per chunk
    chunks = cut(FRUIT_AND_SEA, fake_model, min_tokens=8, max_tokens=8)
    assert [c.reason for c in chunks] == [Reason.SIZE_LIMIT] * 3 + [Reason.UNIT_END]


def test_max_pieces_is_chromas_max_cluster() -> None:
    assert ClusterParams(max_tokens=250, min_tokens=50).max_pieces == 5
    assert ClusterParams(max_tokens=200, min_tokens=50).max_pieces == 4
    assert ClusterParams().max_pieces == 400 // 50


def test_params_are_validated_like_every_strategys() -> None:
    with pytest.raises(InvalidParamError, match="min_tokens.*at most max_tokens"):
        ClusterParams(max_tokens=40, min_tokens=50)
    with pytest.raises(InvalidParamError, match="max_tokens"):
        get_strategy("cluster").make_params({"max_tokens": 0})
    spec = get_strategy("cluster")
    assert spec.size_param() is not None and spec.size_param().name == "max_tokens"
    assert spec.explain is not None and spec.prepare is not None and not spec.calls_model


def test_pieces_are_chromas_recursive_splits() -> None:
    """RecursiveTokenChunker(chunk_size=50, separators=[\\n\\n, \\n, ., ?, !, space, '']): the
    separator starts the next split, pieces are stripped."""
    text = "One two three. Four five six.\n\nSeven eight."
    pieces = cluster_pieces(text, 4, get_tokenizer("words"))
    assert [text[a:b] for a, b in pieces] == ["One two three", ". Four five six", ".", "Seven eight."]


@settings(max_examples=examples(25), **SETTINGS)
@given(text=prose_text(40), low=st.integers(1, 30), high=st.integers(1, 200))
def test_chunks_respect_both_limits_and_every_cut_has_its_reason(low: int, high: int, text: str) -> None:
    """Spans exact and in order; at most max_tokens // min_tokens pieces and max_tokens tokens
    (one piece alone may be over, flagged); a semantic cut could have taken the next piece."""
    from support.semantic import FAKE_MODEL, HashedBagOfWords

    import chunkviz.semantic.embeddings as embeddings

    low, high = min(low, high), max(low, high)
    fake = HashedBagOfWords(FAKE_MODEL, None, get_tokenizer("minilm"), 256)
    real = embeddings.load_model
    embeddings.load_model = lambda name="": fake  # type: ignore[assignment]  # hypothesis: no function fixture
    try:
        params = ClusterParams(max_tokens=high, min_tokens=low, model=FAKE_MODEL)
        tok = get_tokenizer("words")
        result = cluster_chunking(text, params, tok)
    finally:
        embeddings.load_model = real  # type: ignore[assignment]
    chunks = list(result.chunks)
    if not text.strip():
        assert chunks == []
        return
    assert_valid_chunking(text, chunks, tokenizer="words")
    ranges = [c.metadata[PIECES] for c in chunks]
    assert ranges[0][0] == 0 and ranges[-1][1] == len(result.pieces)
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:])), "the chunks tile the pieces"
    for c, (a, b) in zip(chunks, ranges):
        assert c.start == result.pieces[a][0] and c.end == result.pieces[b - 1][1]
        assert b - a <= params.max_pieces
        over = tok.count(c.text) > high
        assert not over or (b - a == 1 and c.metadata.get(Meta.OVER_SIZE_LIMIT)), c
    for c, (a, b) in zip(chunks[:-1], ranges[:-1]):
        grown = tok.count(text[result.pieces[a][0] : result.pieces[b][1]])
        could_grow = b - a + 1 <= params.max_pieces and grown <= high
        assert c.reason == (Reason.SEMANTIC_BREAKPOINT if could_grow else Reason.SIZE_LIMIT)
    assert chunks[-1].reason in (Reason.END_OF_DOCUMENT, Reason.UNIT_END)


def test_the_heat_maps_blocks_are_the_chunks(fake_model: str) -> None:
    text = " ".join(COOKING[:4] + ASTRONOMY[:4]) + "\n"
    params = ClusterParams(max_tokens=60, min_tokens=12, model=fake_model)
    result = get_strategy("cluster").explain(text, params, get_tokenizer("cl100k_base"))
    (figure,) = result.figures()
    spec = json.loads(figure.figure.to_json())
    blocks = [(s["x0"] + 0.5, s["x1"] + 0.5) for s in spec["layout"]["shapes"]]
    assert blocks == [c.metadata[PIECES] for c in result.chunks]
    assert all(s["y0"] == s["x0"] and s["y1"] == s["x1"] for s in spec["layout"]["shapes"]), "on the diagonal"
    (heat,) = spec["data"]
    n = len(result.pieces)
    assert len(heat["z"]) == n and all(heat["z"][i][i] == 0 for i in range(n))
    assert "outlined block" in figure.caption and "mean" in result.summary()
    data = result.to_dict()
    json.dumps(data)
    assert data["chunks"] == [list(c.metadata[PIECES]) for c in result.chunks]
    assert result.chunk_at("similarity_matrix", {"x": n - 1, "y": 0}) == len(result.chunks) - 1


def test_a_long_document_draws_a_window_of_its_first_pieces(fake_model: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cluster_module, "MAX_DRAWN_PIECES", 5)
    text = " ".join(COOKING + ASTRONOMY) + "\n"
    result = cluster_chunking(
        text, ClusterParams(max_tokens=60, min_tokens=12, model=fake_model), get_tokenizer("cl100k_base")
    )
    assert len(result.pieces) > 5 and result.window.shape == (5, 5)
    (figure,) = result.figures()
    assert "Pieces 0–4" in figure.caption
    assert block_ranges(result.chunks, 5) == [
        (a, min(b, 5)) for a, b in (c.metadata[PIECES] for c in result.chunks) if a < 5
    ]
    # the window is the full matrix's corner: the document's mean subtracted, as the DP sums it
    assert np.allclose(np.diag(result.window), 0)


def test_prepare_embeds_once_and_chunking_embeds_nothing_more(fake_model: str) -> None:
    spec = get_strategy("cluster")
    text = " ".join(COOKING[::2]) + "\n"
    params = spec.make_params({"model": fake_model, "min_tokens": 10, "max_tokens": 40})
    spec.prepare(text, params, get_tokenizer("cl100k_base"), lambda done, total: None)
    before = ENCODE_CALLS["count"]
    chunk(text, "cluster", model=fake_model, min_tokens=10, max_tokens=40)
    assert ENCODE_CALLS["count"] == before, "the pieces' vectors come from the embedding cache"


@pytest.mark.slow
def test_with_minilm_a_topic_shift_is_a_cut() -> None:
    """The real model on ~400 characters: the one cut falls where cooking turns to astronomy (just
    before the period that ends the last cooking sentence: Chroma's pieces start with their separator)."""
    text = " ".join(COOKING[:3] + ASTRONOMY[:3]) + "\n"
    chunks = chunk(text, "cluster", min_tokens=16, max_tokens=100)
    assert_valid_chunking(text, chunks)
    shift = text.index(ASTRONOMY[0])
    assert [c.end for c in chunks[:-1]] == [shift - 2] and text[shift - 2 : shift] == ". "


@pytest.mark.slow
def test_the_tune_view_shows_the_heat_map_of_a_cluster_column() -> None:
    """A strategy that explains itself without a tuning analysis: its figures in the Tune view, the
    chunks' blocks on the diagonal, its chunks below (AppTest, the real MiniLM on the sample)."""
    from test_app import TUNE, errors, new_app, sample_text, set_widget

    at = new_app({"doc": "topic_shifts.txt", "n": "2", "s0": "fixed_tokens", "s1": "cluster"})
    set_widget(at, "view", TUNE)
    assert not errors(at), errors(at)
    (chart,) = [c for c in at.get("plotly_chart") if c.key == "tune.col1.similarity_matrix"]
    spec = json.loads(chart.proto.spec)
    expected = chunk(sample_text("topic_shifts.txt"), "cluster")
    assert [(s["x0"] + 0.5, s["x1"] + 0.5) for s in spec["layout"]["shapes"]] == [c.metadata[PIECES] for c in expected]
    assert any("outlined block" in c.value for c in at.caption), [c.value for c in at.caption]


def test_too_many_pieces_are_refused_before_embedding(fake_model: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from chunkviz.core import limits
    from chunkviz.strategies.cluster import EXPLANATIONS

    monkeypatch.setattr(limits, "MAX_CHUNKS", 3)
    EXPLANATIONS.clear()  # an earlier test's chunks of the same text are remembered
    before = ENCODE_CALLS["count"]
    with pytest.raises(
        limits.TooManyChunksError, match="4 pieces to embed; a run may embed at most 3. Raise min_tokens"
    ):
        cut(FRUIT_AND_SEA, fake_model, min_tokens=8, max_tokens=100)
    spec = get_strategy("cluster")
    params = spec.make_params({"model": fake_model, "min_tokens": 8, "max_tokens": 100})
    with pytest.raises(limits.TooManyChunksError):  # the app's prepare step refuses too, before embedding
        spec.prepare(FRUIT_AND_SEA, params, get_tokenizer("cl100k_base"), lambda done, total: None)
    assert ENCODE_CALLS["count"] == before


def test_memory_and_counting_follow_the_document_not_max_tokens(
    fake_model: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 36 item 8: at ``max_tokens=100000 min_tokens=1`` (100,000 pieces a chunk by Chroma's count)
    a 7.5 kB document took 3.5 GB: a band of pieces × 100,000 similarities, and every length from every
    piece counted. The DP holds a window no longer than the longest chunk the text allows, and the
    token limits are found with a sliding window: a few counted spans per piece, and the peak of
    traced memory a few MB for 500 pieces (it was pieces × 100,000 × 8 bytes, 400 MB, per table),
    whatever max_tokens is."""
    import tracemalloc

    from chunkviz.text.spancount import SpanCounter

    text = " ".join(f"w{k}" for k in range(200)) + "\n"  # pieces of one token: "w", "0", "w", "1" ...
    counted = []
    real_count = SpanCounter.count
    monkeypatch.setattr(SpanCounter, "count", lambda self, a, b: counted.append((a, b)) or real_count(self, a, b))
    tok = get_tokenizer("words")
    cluster_chunking(text, ClusterParams(max_tokens=2, min_tokens=1, model=fake_model), tok)  # embeds the pieces once
    for max_tokens in (2, 50, 100_000):
        counted.clear()
        tracemalloc.start()
        try:
            result = cluster_chunking(text, ClusterParams(max_tokens=max_tokens, min_tokens=1, model=fake_model), tok)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        pieces = len(result.pieces)
        assert pieces > 500
        assert len(counted) <= 4 * pieces, (max_tokens, len(counted))
        assert peak < 20_000_000, (max_tokens, peak)
        assert_valid_chunking(text, list(result.chunks), tokenizer="words", limit=max_tokens)
        assert all(b - a <= max_tokens for a, b in (c.metadata[PIECES] for c in result.chunks))
