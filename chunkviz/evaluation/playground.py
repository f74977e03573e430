"""The query playground: one typed query against each column's chunks, scored live (no Streamlit).

What the Compare view's "Query" row needs, as pure functions over a column's chunks:

- :func:`search` embeds the query and the chunks a retriever searches (cached per text by
  :func:`chunkviz.semantic.embedcache.embed_texts`, shared with ``chunkviz eval``), ranks them
  by exact cosine (:func:`chunkviz.evaluation.retrieval.top_k`), or by BM25 over the same texts,
  or both fused (``retriever``: :func:`chunkviz.evaluation.retrievers.retrieve`, the same call
  ``evaluate`` makes; BM25 alone embeds nothing) and returns :class:`Hit` s for the
  document view: the k best searchable chunks, each mapped to what the strategy returns (a
  parent for ``returns_parents``; a parent is returned once, at its best child's rank), exactly as
  :func:`chunkviz.evaluation.evaluate.evaluate` ranks them.
- :func:`answer_scores` scores those hits against an expected-answer span with
  :func:`chunkviz.evaluation.metrics.question_scores` (recall, precision, IoU, recall@k, RR).
- :func:`locate_answer` finds a pasted answer in the document (exactly once, or a clear error),
  :func:`trim_span` drops the whitespace a mouse selection catches at its ends.
- :func:`make_question` and :func:`questions_file` turn (query, answer) into a question file that
  ``chunkviz eval DOC --questions FILE`` reads.
- :func:`query_variants` gives the raw query, its rewrite and a hypothetical passage (HyDE; the
  LLM calls cached), each embedded; :func:`search_variants` ranks a column's chunks for each with
  its own top k, so the three are shown side by side (:func:`variant_label` names them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from chunkviz.core.errors import ChunkvizError
from chunkviz.core.types import Chunk, Progress
from chunkviz.evaluation.metrics import DocumentSpan, Scores, question_scores
from chunkviz.evaluation.questions import Question, Reference, questions_to_jsonl
from chunkviz.evaluation.retrieval import returned, searchable, top_k
from chunkviz.evaluation.retrievers import DEFAULT_ALPHA, retrieve
from chunkviz.evaluation.summaries import embedding_text
from chunkviz.llm.queries import QUERY_MODE_LABELS, check_query_mode, query_texts
from chunkviz.semantic.embedcache import embed_texts
from chunkviz.semantic.embeddings import Encoder, default_encoder

if TYPE_CHECKING:
    from chunkviz.llm.client import LLMClient

#: the metrics the playground shows, in order, with their column titles
SHOWN_METRICS: tuple[tuple[str, str], ...] = (
    ("recall", "recall %"),
    ("iou", "IoU %"),
    ("precision", "precision %"),
    ("recall_at_k", "recall@k %"),
    ("reciprocal_rank", "RR"),
)
#: the table column of the hits
HITS_COLUMN = "top k: rank, chunk, score"
#: the document name of the spans scored here (one document: any fixed name)
_DOCUMENT = "document"


@dataclass(frozen=True)
class Hit:
    """One chunk a query retrieved in a column (the document view draws its rank badge)."""

    index: int  # the returned chunk's index in the column's chunks (a parent for parent_child / small_to_big)
    rank: int  # 1 = best
    score: float  # the retriever's score of the matched chunk (cosine; BM25; the fused score)
    matched: int | None = None  # the child chunk that matched, when the returned chunk is its parent


class AnswerNotFound(ChunkvizError, ValueError):
    """A pasted expected answer that is not in the document exactly once (the message says why)."""


def chunk_texts(chunks: Sequence[Chunk]) -> list[str]:
    """What is embedded for each searchable chunk: its added text, then its text (only the added
    text of an LLM summary; as in evaluate)."""
    return [embedding_text(c) for c in searchable(chunks)]


def column_hits(
    chunks: Sequence[Chunk], returns_parents: bool, positions: Sequence[int], scores: Sequence[float]
) -> list[Hit]:
    """Hits from a ranking over ``searchable(chunks)`` (positions in that list, best first, with
    their cosine scores): each matched chunk mapped to the chunk returned for it, once, ranked
    1, 2, ... in order of its best match."""
    leaves = searchable(chunks)
    hits: list[Hit] = []
    seen: set[int] = set()
    for position, score in zip(positions, scores):
        matched = leaves[int(position)]
        unit = returned(chunks, [matched], returns_parents)[0]
        if unit.index in seen:  # a parent already returned for a better child
            continue
        seen.add(unit.index)
        hits.append(
            Hit(unit.index, len(hits) + 1, float(score), None if unit.index == matched.index else matched.index)
        )
    return hits


def embed_query(query: str, model: str, encode: Encoder | None = None) -> np.ndarray:
    """The query's vector, shape (1, d) (cached per text like the chunks), embedded as a query
    (``encode``: an encoder for every role, else the model's own for queries)."""
    if not query.strip():
        raise ValueError("the query is empty: type a question to search the chunks with")
    return embed_texts([query], model, encode or default_encoder(model, "query"), role="query")


def search(
    chunks: Sequence[Chunk],
    returns_parents: bool,
    query_vector: np.ndarray | None,
    k: int,
    model: str,
    encode: Encoder | None = None,
    progress: Progress | None = None,
    *,
    query: str = "",
    retriever: str = "dense",
    fusion: str = "rrf",
    alpha: float = DEFAULT_ALPHA,
) -> list[Hit]:
    """The top ``k`` searchable chunks for the query (see :func:`column_hits`) by ``retriever``
    (``query``: the text BM25 searches with; ``query_vector`` the one dense retrieval does, None
    for bm25); chunks embedded as passages once per (model, text) (``encode``: an encoder for
    every role, else the model's own for passages), ``progress(done, total)`` counting the ones
    embedded now."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    texts = chunk_texts(chunks)
    if not texts:
        return []

    def dense(n: int) -> Any:
        if query_vector is None:
            raise ValueError(f"the {retriever} retriever needs the query's vector")
        vectors = embed_texts(texts, model, encode or default_encoder(model, "passage"), progress)
        return top_k(query_vector, vectors, n)

    (ranked,) = retrieve(retriever, texts, [query], k, dense=dense, fusion=fusion, alpha=alpha)
    return column_hits(chunks, returns_parents, ranked.positions.tolist(), ranked.scores.tolist())


def answer_scores(
    chunks: Sequence[Chunk], returns_parents: bool, hits: Sequence[Hit], answer: tuple[int, int]
) -> Scores:
    """The scores of the hits (in rank order) against the expected answer span ``[start, end)``."""
    start, end = answer
    if not 0 <= start < end:
        raise ValueError(f"the expected answer needs 0 <= start < end, got {start}..{end}")
    by_index = {c.index: c for c in chunks}
    retrieved = [_span(by_index[h.index]) for h in sorted(hits, key=lambda h: h.rank)]
    leaves = searchable(chunks)
    units = returned(chunks, leaves, returns_parents) if returns_parents else leaves
    return question_scores([DocumentSpan(_DOCUMENT, start, end)], retrieved, [_span(c) for c in units])


def _span(c: Chunk) -> DocumentSpan:
    return DocumentSpan(_DOCUMENT, c.start, c.end)


def score_row(label: str, hits: Sequence[Hit], scores: Scores | None) -> dict[str, Any]:
    """One row of the playground table: the column, its hits (``#1 chunk 4: 0.51``; a returned
    parent ``#1 chunk 0 via 3: 0.62``, 3 the child that matched) in rank order,
    and, with an expected answer, the metrics in percent (RR as a fraction)."""
    row: dict[str, Any] = {
        "column": label,
        HITS_COLUMN: ", ".join(_hit_text(h) for h in sorted(hits, key=lambda h: h.rank)),
    }
    if scores is not None:
        for name, title in SHOWN_METRICS:
            value = getattr(scores, name)
            row[title] = round(value, 2) if name == "reciprocal_rank" else round(100 * value, 1)
    return row


def _hit_text(hit: Hit) -> str:
    via = f" via {hit.matched}" if hit.matched is not None else ""
    return f"#{hit.rank} chunk {hit.index}{via}: {hit.score:.2f}"


def trim_span(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` clamped to the text and without whitespace at either end (unchanged when
    all of it is whitespace)."""
    start, end = max(0, start), min(len(text), end)
    a, b = start, end
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return (a, b) if a < b else (start, end)


def locate_answer(text: str, excerpt: str) -> tuple[int, int]:
    """The span of ``excerpt`` (surrounding whitespace ignored) in ``text``: it must occur exactly once."""
    wanted = excerpt.strip()
    if not wanted:
        raise AnswerNotFound("the expected answer is empty: paste a passage of the document")
    first = text.find(wanted)
    if first < 0:
        raise AnswerNotFound(
            "the pasted answer is not in the document (it must match exactly, with the same spaces and line breaks); "
            "copy it from the document again, or select it with the mouse"
        )
    again = text.find(wanted, first + 1)
    if again >= 0:
        raise AnswerNotFound(
            f"the pasted answer occurs more than once in the document (at characters {first} and {again}); "
            "paste a longer passage that occurs once, or select it with the mouse"
        )
    return first, first + len(wanted)


def make_question(query: str, answer: tuple[int, int], document: str) -> Question:
    """A question for the question file: the query and its expected answer in ``document`` (the
    corpus name ``chunkviz eval`` gives it: its file name)."""
    if not query.strip():
        raise ValueError("the query is empty: type a question before adding it to the question set")
    return Question(query.strip(), (Reference(document, answer[0], answer[1]),))


def questions_file(questions: Sequence[Question], corpus: Mapping[str, str]) -> str:
    """The questions as a JSONL question file (spans, with each reference's excerpt when its
    document is in ``corpus``) that ``chunkviz eval DOC --questions FILE`` reads back."""
    known = all(r.document in corpus and r.end <= len(corpus[r.document]) for q in questions for r in q.references)
    return questions_to_jsonl(questions, corpus if known else None)


# ----------------------------------------------------------------------------- query modes (HyDE, rewriting)
@dataclass(frozen=True)
class QueryVariant:
    """One way to search with a query: ``mode`` ("raw", "rewrite", "hyde"), the ``text`` that is
    embedded (the query, its rewrite, a hypothetical passage) and its vector, shape (1, d)."""

    mode: str
    text: str
    vector: np.ndarray


def variant_label(mode: str) -> str:
    """``raw query``, ``rewritten query``, ``hypothetical passage (HyDE)``."""
    return QUERY_MODE_LABELS[check_query_mode(mode)]


def query_variants(
    query: str,
    modes: Sequence[str],
    model: str,
    encode: Encoder | None = None,
    client: LLMClient | None = None,
) -> list[QueryVariant]:
    """The query in each of ``modes`` (in that order, each once), embedded. ``rewrite`` and
    ``hyde`` ask ``client``'s model (one cached call each: asking again costs nothing); ``raw``
    needs no client. Raises LLMNotConfigured-style errors from the client as they come."""
    if not query.strip():
        raise ValueError("the query is empty: type a question to search the chunks with")
    out = []
    for mode in dict.fromkeys(modes):
        text = query_texts(client, [query], mode)[0]
        out.append(QueryVariant(mode, text, embed_query(text, model, encode)))
    return out


def search_variants(
    chunks: Sequence[Chunk],
    returns_parents: bool,
    variants: Sequence[QueryVariant],
    k: int,
    model: str,
    encode: Encoder | None = None,
    retriever: str = "dense",
    fusion: str = "rrf",
    alpha: float = DEFAULT_ALPHA,
) -> dict[str, list[Hit]]:
    """Per variant's mode, its own top ``k`` hits over the column's chunks by ``retriever`` (see
    :func:`search`; the chunks are embedded once for all variants)."""
    return {
        v.mode: search(
            chunks, returns_parents, v.vector, k, model, encode, query=v.text, retriever=retriever, fusion=fusion,
            alpha=alpha,
        )
        for v in variants
    }  # fmt: skip


#: the column of the text a query variant embeds
QUERY_TEXT_COLUMN = "searched with"


def variant_rows(
    label: str,
    variants: Sequence[QueryVariant],
    hits: Mapping[str, Sequence[Hit]],
    scores: Mapping[str, Scores] | None = None,
) -> list[dict[str, Any]]:
    """Playground table rows of one column, one per query variant (in the variants' order): the
    column and the variant (``2. recursive · hypothetical passage (HyDE)``), the text embedded,
    its hits and, with an expected answer, its metrics (see :func:`score_row`)."""
    rows = []
    for v in variants:
        row = score_row(
            f"{label} · {variant_label(v.mode)}", hits[v.mode], scores[v.mode] if scores is not None else None
        )
        rows.append({"column": row.pop("column"), QUERY_TEXT_COLUMN: v.text, **row})
    return rows
