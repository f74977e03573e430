"""How chunks are ranked for a question: the retrievers an evaluation can use.

- ``dense``: exact cosine similarity of embeddings (:func:`chunkviz.evaluation.retrieval.top_k`);
- ``bm25``: Okapi BM25 over the chunks' indexed texts (:class:`BM25Index`);
- ``hybrid``: both, fused (:func:`fuse_rrf` or :func:`fuse_weighted`).

**What BM25 indexes.** Exactly what the dense retriever embeds for a chunk,
:func:`chunkviz.evaluation.summaries.embedding_text`: its ``added_text`` (a metadata prefix, a
model-written context) and then its text; only the summary of a summary-indexed section. So
"contextual BM25" (Anthropic's contextual retrieval) is the ``hybrid`` retriever of a
``enrich="contextual"`` configuration. The query is the text the configuration embeds for the
question (the question itself, or its rewrite / HyDE passage).

**The package: bm25s** (``pip install 'chunkviz[retrieval]'``). It precomputes every
(chunk, term) score into one sparse matrix when the index is built (an "eager" index), so a
query costs one sum over its terms' columns: the 472 questions of Chroma's set against a few
thousand chunks take milliseconds, where rank-bm25 loops over every document in Python for every
query term. It needs only numpy and scipy, ships Lucene's stop-word list (no download at run
time) and lets us keep the tokenization ours. rank-bm25 stays in the test extra as an independent
reference: the tests compare our scores with it.

**Scoring.** BM25 as Lucene (and so Elasticsearch and OpenSearch) computes it, bm25s'
``method="lucene"``: ``idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))`` (never negative), a term's
score ``idf(t) * tf / (tf + k1 * (1 - b + b * |d| / avgdl))`` with ``k1 = 1.5``, ``b = 0.75``,
summed over the query's terms (a repeated query term counts again), in float64.

**Tokenization** (:func:`tokenize`, named by :data:`TOKENIZATION`): lowercase; words are runs of
two or more word characters (the regular expression ``(?u)\\b\\w\\w+\\b``, bm25s' and
scikit-learn's default); Lucene's 33 English stop words (bm25s' ``STOPWORDS_EN``) dropped; each
word stemmed with the Snowball English stemmer (Porter2, the PyStemmer package). The same for
chunks and queries.

**What is returned.** BM25 returns only chunks that share a term with the query (score > 0), as
a keyword engine does: a question whose every word is a stop word or unknown gets no chunks.
Dense retrieval returns the k most similar. Ties keep the earlier chunk first, everywhere.

**Hybrid.** Each retriever's best :data:`CANDIDATES` chunks (BM25: those with a score) are fused:

- ``rrf`` (reciprocal rank fusion, Cormack, Clarke and Büttcher 2009): ``score(c) = Σ 1 / (RRF_K +
  rank(c))`` over the lists ``c`` is in, ranks from 1, :data:`RRF_K` = 60 (the paper's constant,
  also Elasticsearch's and OpenSearch's default);
- ``weighted`` (normalised scores; Weaviate's "relative score fusion"): per query, each list's
  scores scaled to [0, 1] by min-max over its candidates (all equal: 1), then ``alpha * dense +
  (1 - alpha) * bm25``, a chunk missing from a list contributing 0 for it. ``alpha`` = 1 is dense
  alone, 0 BM25 alone.

**Indexes are cached** in one :class:`~chunkviz.core.cache.BoundedLRU` (:data:`INDEXES`) keyed by the
tokenization and a SHA-256 of the indexed texts, so a sweep that evaluates the same chunks with
``bm25`` and both ``hybrid`` fusions builds the index once (and the stems of every word once,
:data:`STEMS`).

**Rerank** (optional, any retriever): the first stage's best ``rerank_candidates`` chunks are
re-scored by a cross-encoder read from a local model folder (sentence-transformers'
``CrossEncoder``; none ships with chunkviz), on (question, indexed text) pairs, and the k best of
those are returned (ties: the first stage's order). See :func:`load_reranker`.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from chunkviz.core.cache import BoundedLRU
from chunkviz.core.errors import ChunkvizError, missing_extra

RETRIEVERS: tuple[str, ...] = ("dense", "bm25", "hybrid")
#: How ``hybrid`` fuses the dense and BM25 rankings.
FUSIONS: tuple[str, ...] = ("rrf", "weighted")
#: Reciprocal rank fusion's constant (Cormack et al. 2009; Elasticsearch's default ``rank_constant``).
RRF_K = 60
#: Candidates taken from each ranking before fusing (or all chunks, when there are fewer).
CANDIDATES = 100
#: The weight of the dense scores in the ``weighted`` fusion by default.
DEFAULT_ALPHA = 0.5
#: Candidates a cross-encoder re-scores by default.
DEFAULT_RERANK_CANDIDATES = 20
#: BM25's parameters (Lucene's defaults are 1.2 / 0.75; bm25s' and rank-bm25's 1.5 / 0.75).
K1, B = 1.5, 0.75
#: The words BM25 ignores: Lucene's English stop words (the 33 of bm25s' ``STOPWORDS_EN``).
STOP_WORDS: frozenset[str] = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their then there these "
    "they this to was will with".split()
)
_WORD = re.compile(r"(?u)\b\w\w+\b")
#: What names the tokenization in every cache key (change it when :func:`tokenize` changes).
TOKENIZATION = "lower|(?u)\\b\\w\\w+\\b|lucene-english-33|snowball-english|v1"


class RetrieverError(ChunkvizError, ValueError):
    """A retriever that cannot run here (its package is missing, a rerank folder is not a cross-encoder)."""


def check_retriever(retriever: str) -> str:
    """``retriever`` itself, or a ValueError naming the choices."""
    if retriever not in RETRIEVERS:
        raise ValueError(f"retriever must be one of {', '.join(RETRIEVERS)}, got {retriever!r}")
    return retriever


def check_fusion(fusion: str) -> str:
    """``fusion`` itself, or a ValueError naming the choices."""
    if fusion not in FUSIONS:
        raise ValueError(f"fusion must be one of {', '.join(FUSIONS)}, got {fusion!r}")
    return fusion


def check_alpha(alpha: Any) -> float:
    """``alpha`` as a float when it is a number from 0 to 1, else a ValueError saying so."""
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 <= alpha <= 1:
        raise ValueError(f"alpha (the dense weight of the weighted fusion) must be a number from 0 to 1, got {alpha!r}")
    return float(alpha)


def check_rerank_candidates(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 1000:
        raise ValueError(f"rerank_candidates must be a whole number from 1 to 1000, got {n!r}")
    return n


#: The retrieval settings' fields, in the order ``chunkviz.json`` writes them.
RETRIEVAL_FIELDS: tuple[str, ...] = ("retriever", "fusion", "alpha", "rerank", "rerank_candidates")


@dataclass(frozen=True, kw_only=True)
class RetrievalSettings:
    """How the evaluation ranks a chunking's chunks: the one type of ``chunkviz.json``'s
    ``retrieval`` (:data:`chunkviz.evaluation.config.Retrieval`) and of the evaluation's configurations
    (:class:`chunkviz.evaluation.evaluate.Configuration` extends it). Validated on creation (a
    ValueError naming the field); settings that do not apply take their defaults, so equal
    behaviour is one value: fusion is ``rrf`` unless the retriever is ``hybrid``, alpha the
    default unless the fusion is ``weighted``, ``rerank_candidates`` the default without a rerank."""

    retriever: str = "dense"
    fusion: str = "rrf"
    #: the dense weight of the "weighted" fusion, 0..1
    alpha: float = DEFAULT_ALPHA
    #: a local cross-encoder folder that re-scores the first stage's best ``rerank_candidates`` (None: no rerank)
    rerank: str | None = None
    rerank_candidates: int = DEFAULT_RERANK_CANDIDATES

    def __post_init__(self) -> None:
        check_retriever(self.retriever)
        check_fusion(self.fusion)
        check_rerank_candidates(self.rerank_candidates)
        object.__setattr__(self, "alpha", check_alpha(self.alpha))
        if self.retriever != "hybrid":
            object.__setattr__(self, "fusion", "rrf")
        if self.retriever != "hybrid" or self.fusion != "weighted":
            object.__setattr__(self, "alpha", DEFAULT_ALPHA)
        if self.rerank is None:
            object.__setattr__(self, "rerank_candidates", DEFAULT_RERANK_CANDIDATES)
        elif not isinstance(self.rerank, str) or not self.rerank.strip():
            raise ValueError(f"rerank must be a local cross-encoder folder (or None), got {self.rerank!r}")

    @classmethod
    def of(cls, settings: RetrievalSettings) -> RetrievalSettings:
        """The retrieval settings alone of ``settings`` (e.g. of an evaluation Configuration)."""
        return cls(**settings.to_dict())

    def to_dict(self) -> dict[str, Any]:
        """The five fields by name (``chunkviz.json``'s ``retrieval``; keyword arguments of a Configuration)."""
        return {name: getattr(self, name) for name in RETRIEVAL_FIELDS}


# ----------------------------------------------------------------------------- tokenization
#: Stems by word, shared by every index and query (a corpus has a few ten thousand distinct words).
STEMS: BoundedLRU[str, str] = BoundedLRU(max_entries=200_000)
_stemmer_lock = threading.Lock()
_stemmer: Any = None


def _stem_words(words: Sequence[str]) -> list[str]:
    global _stemmer
    known = STEMS.get_many(words)
    missing = list(dict.fromkeys(w for w in words if w not in known))
    if missing:
        with _stemmer_lock:
            if _stemmer is None:
                try:
                    import Stemmer  # PyStemmer
                except ImportError:
                    raise RetrieverError(missing_extra("the bm25 retriever", "retrieval", "PyStemmer")) from None
                _stemmer = Stemmer.Stemmer("english")
            stems = _stemmer.stemWords(missing)  # a PyStemmer object is not thread-safe
        fresh = dict(zip(missing, stems))
        STEMS.put_many(fresh)
        known.update(fresh)
    return [known[w] for w in words]


def tokenize(text: str) -> list[str]:
    """BM25's terms of ``text``: lowercased words of two or more word characters, stop words
    dropped, stemmed (Snowball English). ``"The Tides' turbines"`` -> ``["tide", "turbin"]``."""
    words = [w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS]
    return _stem_words(words) if words else []


# ----------------------------------------------------------------------------- BM25
class BM25Index:
    """A BM25 index over ``texts`` (bm25s' eager sparse index, float64, Lucene's formula)."""

    def __init__(self, texts: Sequence[str]) -> None:
        try:
            import bm25s
        except ImportError:
            raise RetrieverError(missing_extra("the bm25 retriever", "retrieval", "bm25s")) from None
        self.size = len(texts)
        tokens = [tokenize(t) for t in texts]
        self._engine: Any = None
        if any(tokens):
            engine = bm25s.BM25(k1=K1, b=B, method="lucene", dtype="float64")
            engine.index(tokens, show_progress=False)
            self._engine = engine

    def scores(self, query: str) -> np.ndarray:
        """The BM25 score of every indexed text for ``query`` (zeros when no term is shared)."""
        if self._engine is None:
            return np.zeros(self.size, dtype=np.float64)
        ids = self._engine.get_tokens_ids(tokenize(query))
        if not ids:
            return np.zeros(self.size, dtype=np.float64)
        return np.asarray(self._engine.get_scores_from_ids(ids), dtype=np.float64)

    @property
    def nbytes(self) -> int:
        if self._engine is None:
            return 0
        s = self._engine.scores
        return int(s["data"].nbytes + s["indices"].nbytes + s["indptr"].nbytes)


#: BM25 indexes by (tokenization, digest of the indexed texts), least recently used forgotten first.
INDEXES: BoundedLRU[tuple[str, str], BM25Index] = BoundedLRU(
    max_entries=64, max_bytes=512 * 1024 * 1024, size=lambda index: index.nbytes
)


def texts_key(texts: Sequence[str]) -> str:
    """A SHA-256 of ``texts`` in order (each length-prefixed, so no two lists collide)."""
    digest = hashlib.sha256()
    for text in texts:
        data = text.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def bm25_index(texts: Sequence[str]) -> BM25Index:
    """The BM25 index of ``texts``, built once per (tokenization, texts) and kept in :data:`INDEXES`."""
    key = (TOKENIZATION, texts_key(texts))
    index = INDEXES.get(key)
    if index is None:
        index = BM25Index(texts)
        INDEXES.put(key, index)
    return index


# ----------------------------------------------------------------------------- rankings
@dataclass(frozen=True)
class Ranked:
    """One query's ranking: positions in the searched chunks, best first, and their scores
    (cosine for dense, BM25, the fused score for hybrid, the cross-encoder's after a rerank)."""

    positions: np.ndarray  # int64
    scores: np.ndarray  # float64

    def __len__(self) -> int:
        return len(self.positions)

    def top(self, k: int) -> Ranked:
        return Ranked(self.positions[:k], self.scores[:k])


def best_first(scores: np.ndarray, k: int, *, positive: bool = False) -> Ranked:
    """The ``k`` best of one row of ``scores`` (ties: the earlier position first); with
    ``positive`` only scores above 0 count."""
    scores = np.asarray(scores, dtype=np.float64)
    candidates = np.flatnonzero(scores > 0) if positive else np.arange(len(scores))
    if len(candidates) > k:
        kth = np.partition(scores[candidates], len(candidates) - k)[len(candidates) - k]
        candidates = candidates[scores[candidates] >= kth]  # ascending positions: ties stay in order
    order = candidates[np.argsort(-scores[candidates], kind="stable")[:k]]
    return Ranked(order.astype(np.int64), scores[order])


def bm25_rankings(index: BM25Index, queries: Sequence[str], k: int) -> list[Ranked]:
    """Per query, its ``k`` best chunks by BM25 (only chunks sharing a term with it)."""
    return [best_first(index.scores(q), k, positive=True) for q in queries]


def dense_rankings(similarity_top: Any) -> list[Ranked]:
    """A :class:`chunkviz.evaluation.retrieval.Ranking` as one :class:`Ranked` per query."""
    return [
        Ranked(np.asarray(i, dtype=np.int64), np.asarray(s, dtype=np.float64))
        for i, s in zip(similarity_top.indices, similarity_top.scores)
    ]


def _fused(total: dict[int, float], k: int) -> Ranked:
    if not total:
        return Ranked(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64))
    positions = np.fromiter(sorted(total), dtype=np.int64, count=len(total))
    return best_first_positions(positions, np.array([total[int(p)] for p in positions]), k)


def best_first_positions(positions: np.ndarray, scores: np.ndarray, k: int) -> Ranked:
    """The ``k`` best of (position, score) pairs given in ascending position (ties: the earlier position)."""
    order = np.argsort(-scores, kind="stable")[:k]
    return Ranked(positions[order], scores[order].astype(np.float64))


def fuse_rrf(rankings: Sequence[Ranked], k: int, constant: int = RRF_K) -> Ranked:
    """Reciprocal rank fusion of ``rankings`` (each best first): ``Σ 1 / (constant + rank)``, ranks from 1."""
    total: dict[int, float] = {}
    for ranking in rankings:
        for rank, position in enumerate(ranking.positions.tolist(), start=1):
            total[position] = total.get(position, 0.0) + 1.0 / (constant + rank)
    return _fused(total, k)


def min_max(scores: np.ndarray) -> np.ndarray:
    """``scores`` scaled to [0, 1] (all equal: all 1)."""
    scores = np.asarray(scores, dtype=np.float64)
    if len(scores) == 0:
        return scores
    low, high = float(scores.min()), float(scores.max())
    if high == low:
        return np.ones_like(scores)
    return (scores - low) / (high - low)


def fuse_weighted(dense: Ranked, sparse: Ranked, alpha: float, k: int) -> Ranked:
    """``alpha * dense + (1 - alpha) * bm25`` of the min-max normalised scores of each list's
    candidates (a chunk missing from a list: 0 for it)."""
    total: dict[int, float] = {}
    for ranking, weight in ((dense, alpha), (sparse, 1.0 - alpha)):
        for position, value in zip(ranking.positions.tolist(), min_max(ranking.scores).tolist()):
            total[position] = total.get(position, 0.0) + weight * value
    return _fused(total, k)


# ----------------------------------------------------------------------------- rerank
#: ``score(query, texts) -> one relevance per text`` (higher is better): a cross-encoder, or a test's stand-in.
Reranker = Callable[[str, Sequence[str]], Sequence[float]]
_RERANKERS: BoundedLRU[str, Reranker] = BoundedLRU(max_entries=2)


def rerank(ranked: Ranked, query: str, texts: Sequence[str], score: Reranker, k: int) -> Ranked:
    """The ``k`` best of ``ranked``'s chunks (``texts``: the indexed text of every searched chunk)
    by ``score(query, their texts)``; equal scores keep the first stage's order."""
    if len(ranked) == 0:
        return ranked
    values = np.asarray(score(query, [texts[int(p)] for p in ranked.positions]), dtype=np.float64)
    if values.shape != (len(ranked),):
        raise RetrieverError(f"the reranker gave {values.shape} scores for {len(ranked)} candidates")
    order = np.argsort(-values, kind="stable")[:k]
    return Ranked(ranked.positions[order], values[order])


def load_reranker(path: str) -> Reranker:
    """A cross-encoder read from the local folder ``path`` (loaded once, kept for the next call),
    or a :class:`RetrieverError` saying why not: a missing folder, or one that holds no
    sequence-classification model (a bi-encoder such as all-MiniLM-L6-v2 is not a cross-encoder)."""
    folder = Path(path).expanduser()
    key = str(folder.resolve()) if folder.exists() else str(folder)
    found = _RERANKERS.get(key)
    if found is not None:
        return found
    if not folder.is_dir():
        raise RetrieverError(
            f"--rerank {path}: no such folder; give a local cross-encoder model folder (e.g. a downloaded "
            "cross-encoder/ms-marco-MiniLM-L-6-v2): chunkviz ships none and downloads nothing"
        )
    config = folder / "config.json"
    architectures: list[str] = []
    if config.is_file():
        import json

        try:
            architectures = list(json.loads(config.read_text(encoding="utf-8")).get("architectures") or [])
        except (OSError, ValueError, AttributeError):
            architectures = []
    if not any("SequenceClassification" in a for a in architectures):
        raise RetrieverError(
            f"--rerank {path}: not a cross-encoder (its config.json names "
            f"{', '.join(architectures) or 'no model architecture'}; a cross-encoder is a "
            "...ForSequenceClassification model that scores (query, passage) pairs)"
        )
    try:
        from sentence_transformers import CrossEncoder
    except ImportError:
        raise RetrieverError(missing_extra("reranking", "semantic", "sentence-transformers")) from None
    try:
        model = CrossEncoder(str(folder), device="cpu", local_files_only=True)
    except Exception as exc:  # noqa: BLE001 - a broken folder: one clear line
        raise RetrieverError(f"--rerank {path}: the cross-encoder could not be loaded: {exc}") from None

    def score(query: str, texts: Sequence[str]) -> Sequence[float]:
        return [float(s) for s in model.predict([(query, t) for t in texts], show_progress_bar=False)]

    _RERANKERS.put(key, score)
    return score


# ----------------------------------------------------------------------------- one configuration's rankings
def retrieve(
    retriever: str,
    texts: Sequence[str],
    queries: Sequence[str],
    k: int,
    *,
    dense: Callable[[int], Any] | None = None,
    fusion: str = "rrf",
    alpha: float = DEFAULT_ALPHA,
    reranker: Reranker | None = None,
    rerank_queries: Sequence[str] | None = None,
    rerank_candidates: int = DEFAULT_RERANK_CANDIDATES,
) -> list[Ranked]:
    """Per query, the best ``k`` of the searched chunks (``texts``: what is indexed for each)
    by ``retriever``. ``dense(n)`` gives the top-``n`` cosine :class:`~chunkviz.evaluation.retrieval.Ranking`
    of every query (called only by ``dense`` and ``hybrid``, so BM25 alone embeds nothing);
    ``queries`` are the texts BM25 searches with. With a ``reranker``, the first stage keeps
    ``max(k, rerank_candidates)`` and the reranker orders them by (``rerank_queries``, default
    ``queries``; text) pairs."""
    check_retriever(retriever)
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    first = max(k, rerank_candidates) if reranker is not None else k
    if not texts:
        return [Ranked(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)) for _ in queries]
    if retriever != "bm25" and dense is None:
        raise ValueError(f"the {retriever} retriever needs the dense ranking (dense=...)")
    if retriever == "dense":
        assert dense is not None
        out = dense_rankings(dense(first))
    elif retriever == "bm25":
        out = bm25_rankings(bm25_index(texts), queries, first)
    else:
        assert dense is not None
        n = min(max(CANDIDATES, first), len(texts))
        dense_lists = dense_rankings(dense(n))
        sparse_lists = bm25_rankings(bm25_index(texts), queries, n)
        if check_fusion(fusion) == "rrf":
            out = [fuse_rrf([d, s], first) for d, s in zip(dense_lists, sparse_lists)]
        else:
            out = [fuse_weighted(d, s, alpha, first) for d, s in zip(dense_lists, sparse_lists)]
    if reranker is None:
        return out
    asked = list(rerank_queries) if rerank_queries is not None else list(queries)
    return [rerank(r, q, texts, reranker, k) for r, q in zip(out, asked)]


__all__ = [
    "B",
    "CANDIDATES",
    "DEFAULT_ALPHA",
    "DEFAULT_RERANK_CANDIDATES",
    "FUSIONS",
    "INDEXES",
    "K1",
    "RETRIEVERS",
    "RRF_K",
    "STOP_WORDS",
    "TOKENIZATION",
    "BM25Index",
    "Ranked",
    "Reranker",
    "RetrieverError",
    "best_first",
    "bm25_index",
    "bm25_rankings",
    "check_alpha",
    "check_fusion",
    "check_retriever",
    "dense_rankings",
    "fuse_rrf",
    "fuse_weighted",
    "load_reranker",
    "rerank",
    "retrieve",
    "tokenize",
]
