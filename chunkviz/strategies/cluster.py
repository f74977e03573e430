"""The ``cluster`` strategy: Chroma's ClusterSemanticChunker, placed exactly.

How Chroma's code reads (github.com/brandonstarxel/chunking_evaluation,
``chunking/cluster_semantic_chunker.py``) and what this strategy does with each step:

1. **Pieces.** ``RecursiveTokenChunker(chunk_size=min_chunk_size (50), chunk_overlap=0,
   separators=["\\n\\n", "\\n", ".", "?", "!", " ", ""])`` with the cl100k (``openai_token_count``)
   length function, whatever length function the chunker is given; it is LangChain's recursive
   splitter (separator kept at the start of a split, pieces stripped). Here: the same algorithm on
   offsets (:class:`~chunkviz.splitting.langchain.LangChainSplitter`) with :data:`SEPARATORS`,
   ``chunk_size=min_tokens`` counted by the strategy's tokenizer (cl100k_base by default, as Chroma).
2. **Embeddings.** Each piece alone, with the strategy's model (the offline all-MiniLM-L6-v2 by
   default, the model of the study's MiniLM rows), unit vectors, cached per piece text
   (:mod:`chunkviz.semantic.embedcache`, the route evaluation uses).
3. **Similarity.** ``S = E · Eᵀ`` (cosine: the vectors are unit length); the mean of the strict
   upper triangle (all off-diagonal pairs) is subtracted from every entry and the diagonal set to
   0. Here: the same numbers without the ``n × n`` matrix (:mod:`chunkviz.semantic.cluster`).
4. **Reward and DP.** A chunk of pieces ``a..b`` scores the sum of its square submatrix (each
   pair twice, the diagonal 0). ``max_cluster = max_chunk_size // min_chunk_size`` pieces at most
   (400 // 50 = 8 by default; 250 // 50 = 5 and 200 // 50 = 4 in the study's rows).
   ``dp[i] = max over sizes 1..max_cluster of reward(i - size + 1, i) + dp[i - size]``, sizes in
   increasing order, a larger one taken only when strictly better; back-tracking from the last
   piece. Here: the same recurrence and tie rule, piece by piece, over the sizes the limits allow
   (never more pieces than the document has): memory follows the document, not
   ``max_tokens // min_tokens`` (100,000 at ``max_tokens=100000 min_tokens=1``).
5. **Text.** Chroma returns ``" ".join(pieces)`` (stripped pieces joined by one space), which is
   not a substring of the document wherever pieces were separated by a line break or by nothing
   (a split after "." or inside a word), and its evaluation finds it again by a whitespace-blind
   search. Here: exact spans, from the first piece's start to the last piece's end, so the
   whitespace between pieces stays as written and the whitespace between chunks is in no chunk
   (as Chroma's stripped chunks).

Deliberate differences: (a) exact spans (5); (b) Chroma starts every ``dp[i]`` at 0 with a
back-pointer of 0, so where every option is negative its chunk silently runs from piece 0 and can
exceed ``max_cluster``; here ``dp`` starts at ``-inf`` and the size limit always holds (the two
agree whenever some option is positive, which adjacent pieces make the rule); (c) besides the piece
count, a chunk also never exceeds ``max_tokens`` tokens of the strategy's tokenizer (Chroma's
limit is only the piece count: five 50-token pieces and the whitespace between them may count a
token or two more than 250); a single piece over ``max_tokens`` (a piece of a tiny
``max_tokens``) is its own chunk, flagged over the size limit.

Reasons: ``size_limit`` when the chunk could not take the next piece (``max_tokens //
min_tokens`` pieces, or the tokens of the span with the next piece over ``max_tokens``);
``semantic_breakpoint`` when it could, but the DP found a cut there better; the last chunk ends
the text (``end_of_document``, or ``unit_end`` when only whitespace follows it). Needs the
``semantic`` extra (torch, sentence-transformers, the packaged model).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from chunkviz.core import limits
from chunkviz.core.cache import BoundedLRU
from chunkviz.core.explain import Explanation, ExplanationFigure, finite, go, require_plotly
from chunkviz.core.types import Chunk, Progress
from chunkviz.core.vocabulary import Meta, Reason
from chunkviz.document.model import Document, as_document, is_blank
from chunkviz.drawing.charts import hover_text
from chunkviz.semantic import embeddings
from chunkviz.semantic.cluster import offdiagonal_mean, optimal_segmentation, rewards_ending_at
from chunkviz.semantic.embedcache import embed_texts
from chunkviz.semantic.embeddings import (
    DEFAULT_MODEL,
    ENCODE_CALLS,
    MODEL_HELP,
    canonical_model,
    require_model_extra,
)
from chunkviz.splitting import PRESETS, Piece, to_chunks
from chunkviz.splitting.langchain import LangChainSplitter
from chunkviz.strategies.base import param, register
from chunkviz.text.spancount import shared_counter
from chunkviz.text.tokenizers import Tokenizer

NAME = "cluster"
#: Chroma's piece separators (RecursiveTokenChunker inside ClusterSemanticChunker).
SEPARATORS = PRESETS["chroma"]
#: Most pieces the heat map draws: a longer document shows its first pieces (a window, not a
#: downsampling: the blocks on the diagonal stay the chunks' exact piece ranges).
MAX_DRAWN_PIECES = 160
#: Chunk metadata: the chunk's pieces ``(first, last + 1)`` and its reward.
PIECES = "pieces"
REWARD = "cluster_reward"


@dataclass(frozen=True)
class ClusterParams:
    max_tokens: int = param(
        400,
        "largest chunk in tokens (Chroma's max_chunk_size): at most max_tokens // min_tokens pieces, and never "
        "more tokens than this",
        minimum=1,
        maximum=100_000,
        unit="tokens",
        size_target=True,
    )
    min_tokens: int = param(
        50,
        "size of the small pieces that are embedded and clustered (Chroma's min_chunk_size), in tokens",
        minimum=1,
        maximum=100_000,
        unit="tokens",
    )
    model: str = param(
        DEFAULT_MODEL,
        MODEL_HELP,
    )

    @property
    def max_pieces(self) -> int:
        """Chroma's ``max_cluster``: ``max_chunk_size // min_chunk_size`` (min_tokens <= max_tokens, so >= 1)."""
        return max(1, self.max_tokens // self.min_tokens)


@dataclass(frozen=True)
class ClusterExplanation(Explanation):
    """Pieces, the normalised similarity of a window of them and the chosen chunks.

    Holds the text, not the Document (it pickles: the app caches it).
    """

    text: str
    pieces: tuple[tuple[int, int], ...]
    chunks: tuple[Chunk, ...]
    model: str
    tokenizer: str
    min_tokens: int
    max_tokens: int
    max_pieces: int
    mean: float  # the mean off-diagonal similarity that was subtracted
    adjacent: np.ndarray = field(compare=False)  # similarity of pieces i and i + 1
    window: np.ndarray = field(compare=False)  # the normalised matrix of the first pieces
    total_reward: float = 0.0

    def summary(self) -> str:
        n = len(self.pieces)
        cuts = len(self.chunks) - 1
        forced = sum(1 for c in self.chunks[:-1] if c.reason == Reason.SIZE_LIMIT)
        parts = [
            f"{n:,} piece{'' if n == 1 else 's'} of at most {self.min_tokens} tokens ({self.tokenizer})",
            f"model {self.model}",
        ]
        if n < 2:
            return " · ".join([*parts, "fewer than two pieces: nothing to cluster"])
        return " · ".join(
            [
                *parts,
                f"mean off-diagonal similarity {self.mean:.3f} subtracted",
                f"chunks of at most {self.max_pieces} pieces and {self.max_tokens} tokens",
                f"{cuts - forced:,} semantic cut{'' if cuts - forced == 1 else 's'}",
                f"{forced:,} at the size limit",
                f"total reward {self.total_reward:.2f}",
            ]
        )

    def figures(self, chunks: Sequence[Chunk] | None = None) -> list[ExplanationFigure]:
        """The heat map of the pieces' normalised similarity with the chunks as blocks on its diagonal."""
        if len(self.pieces) < 2:
            return []
        chunks = self.chunks if chunks is None else chunks
        drawn = len(self.window)
        caption = (
            "Similarity of every pair of pieces minus the mean of all pairs (the diagonal is 0); each outlined "
            "block on the diagonal is a chunk: the cuts maximise the summed similarity inside the blocks."
        )
        if drawn < len(self.pieces):
            caption += f" Pieces 0–{drawn - 1} of {len(self.pieces):,} are drawn (a window of the first {drawn})."
        return [ExplanationFigure("similarity_matrix", matrix_figure(self, chunks), caption)]

    def chunk_at(self, figure: str, point: Mapping[str, Any], chunks: Sequence[Chunk] | None = None) -> int | None:
        """A cell (x = piece) selects the chunk that holds that piece."""
        if figure != "similarity_matrix" or "x" not in point:
            return None
        piece = int(round(float(point["x"])))
        chunks = self.chunks if chunks is None else chunks
        return next(
            (c.index for c in chunks if c.metadata.get(PIECES, (0, 0))[0] <= piece < c.metadata[PIECES][1]), None
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "tokenizer": self.tokenizer,
            "min_tokens": self.min_tokens,
            "max_tokens": self.max_tokens,
            "max_pieces": self.max_pieces,
            "mean_similarity": finite(self.mean),
            "pieces": [{"start": a, "end": b} for a, b in self.pieces],
            "adjacent_similarities": [float(v) for v in self.adjacent],
            "chunks": [list(c.metadata.get(PIECES, (0, 0))) for c in self.chunks],
            "total_reward": finite(self.total_reward),
            "drawn_pieces": len(self.window),
            "summary": self.summary(),
        }


def block_ranges(chunks: Sequence[Chunk], drawn: int) -> list[tuple[int, int]]:
    """The chunks' piece ranges ``(first, last + 1)`` that start inside the first ``drawn`` pieces
    (clipped to them): the blocks the heat map outlines."""
    out = []
    for chunk in chunks:
        a, b = chunk.metadata.get(PIECES, (0, 0))
        if a < drawn:
            out.append((a, min(b, drawn)))
    return out


def matrix_figure(explanation: ClusterExplanation, chunks: Sequence[Chunk]) -> Any:
    """A plotly heat map of ``explanation.window``; one outlined square per chunk (block_ranges)."""
    require_plotly()
    window = explanation.window
    drawn = len(window)
    text, pieces = explanation.text, explanation.pieces
    labels = [hover_text(text[a:b], 80, wrap=None) for a, b in pieces[:drawn]]
    hover = [
        [f"pieces {i} × {j}: {window[j, i]:+.3f}<br>{labels[i]}<br>{labels[j]}" for i in range(drawn)]
        for j in range(drawn)
    ]
    limit = float(np.abs(window).max()) or 1.0
    fig = go.Figure(
        go.Heatmap(
            z=window.tolist(),
            x=list(range(drawn)),
            y=list(range(drawn)),
            colorscale="RdBu",
            reversescale=True,
            zmid=0.0,
            zmin=-limit,
            zmax=limit,
            hovertext=hover,
            hoverinfo="text",
            colorbar={"title": "similarity − mean"},
        )
    )
    for a, b in block_ranges(chunks, drawn):
        fig.add_shape(
            type="rect", x0=a - 0.5, x1=b - 0.5, y0=a - 0.5, y1=b - 0.5, line={"color": "#212529", "width": 2}
        )
    fig.update_layout(
        xaxis={"title": {"text": "piece"}, "range": [-0.5, drawn - 0.5], "constrain": "domain"},
        yaxis={"title": {"text": "piece"}, "range": [drawn - 0.5, -0.5], "scaleanchor": "x", "constrain": "domain"},
        height=460,
        margin={"l": 40, "r": 10, "t": 30, "b": 40},
        template="plotly_white",
    )
    return fig


def cluster_pieces(text: str, min_tokens: int, tokenizer: Tokenizer) -> list[tuple[int, int]]:
    """Chroma's pieces as spans: LangChain's recursive splitter with :data:`SEPARATORS`, pieces of at
    most ``min_tokens`` tokens, no overlap, the separator kept at a piece's start, pieces stripped."""
    splitter = LangChainSplitter(text, SEPARATORS, min_tokens, 0, tokenizer.count, "start")
    return [(c.start, c.end) for c in splitter.split()]


def piece_vectors(
    text: str, pieces: Sequence[tuple[int, int]], model: str, progress: Progress | None = None
) -> np.ndarray:
    """Unit vectors of the pieces, embedded once per (model, piece text) (the embedding cache)."""
    name = canonical_model(model)

    def encode(texts: Sequence[str], report: Progress | None) -> np.ndarray:
        ENCODE_CALLS["count"] += 1
        return embeddings.load_model(name).encode(texts, report, role="symmetric")

    return embed_texts([text[a:b] for a, b in pieces], name, encode, progress, role="symmetric")


def check_piece_count(pieces: int, params: ClusterParams) -> None:
    """Refuse, before embedding, more pieces than :data:`~chunkviz.core.limits.MAX_CHUNKS` (each is a
    vector in memory, as a chunk is a Chunk); the chunks, never more than the pieces, are then
    within the limit too (the limit read when called: tests lower it)."""
    if pieces > limits.MAX_CHUNKS:
        raise limits.TooManyChunksError(
            f"{NAME}: pieces of {params.min_tokens} tokens cut this document into {pieces:,} pieces to embed; "
            f"a run may embed at most {limits.MAX_CHUNKS:,}. Raise min_tokens (now {params.min_tokens}), "
            "or chunk a smaller document"
        )


def longest_chunks(pieces: Sequence[tuple[int, int]], counter: Any, max_tokens: int, max_pieces: int) -> list[int]:
    """``longest[b]``: the most pieces (at most ``max_pieces``) a chunk ending at piece ``b`` may hold
    within ``max_tokens`` tokens (at least 1: a piece is never split further).

    A sliding window: a span that takes one more piece never has fewer tokens, so the first piece
    of the longest chunk only moves forward as ``b`` does, and the whole pass counts ``O(n)`` spans
    (a scan of every length from each piece counted ``n · max_pieces``: minutes at ``min_tokens=1``).
    """
    out = []
    first = 0
    for b in range(len(pieces)):
        first = max(first, b - max_pieces + 1)
        while first < b and counter.count(pieces[first][0], pieces[b][1]) > max_tokens:
            first += 1
        out.append(b - first + 1)
    return out


def could_grow(pieces: Sequence[tuple[int, int]], counter: Any, params: ClusterParams, a: int, b: int) -> bool:
    """Could the chunk of pieces ``a..b`` have taken piece ``b + 1`` within both size limits?"""
    return b - a + 2 <= params.max_pieces and counter.count(pieces[a][0], pieces[b + 1][1]) <= params.max_tokens


def cluster_chunking(
    document: Document | str, params: ClusterParams, tokenizer: Tokenizer, progress: Progress | None = None
) -> ClusterExplanation:
    """Pieces, their embeddings, the DP's chunks and what the heat map draws."""
    document = as_document(document)
    text = document.text
    model = canonical_model(params.model)
    empty = np.zeros(0, dtype=np.float64)
    pieces = cluster_pieces(text, params.min_tokens, tokenizer) if text.strip() else []
    if not pieces:
        return ClusterExplanation(
            text, (), (), model, tokenizer.name, params.min_tokens, params.max_tokens, params.max_pieces, 0.0,
            empty, np.zeros((0, 0)),
        )  # fmt: skip
    check_piece_count(len(pieces), params)
    vectors = piece_vectors(text, pieces, model, progress)
    max_pieces = params.max_pieces
    mean = offdiagonal_mean(vectors)
    counter = shared_counter(text, tokenizer)
    # the longest chunk any piece allows bounds the DP's memory: never more pieces than the document has
    longest = longest_chunks(pieces, counter, params.max_tokens, max_pieces)
    segments = optimal_segmentation(rewards_ending_at(vectors, mean, max(longest)), longest)
    chosen = []
    for k, (a, b, reward) in enumerate(segments):
        start, end = pieces[a][0], pieces[b][1]
        metadata: dict[str, object] = {PIECES: (a, b + 1), REWARD: reward}
        if k + 1 < len(segments):
            # could this chunk have taken the next piece? (the DP chose not to: a semantic cut)
            grows = could_grow(pieces, counter, params, a, b)
            reason = Reason.SEMANTIC_BREAKPOINT if grows else Reason.SIZE_LIMIT
        else:
            reason = Reason.UNIT_END
            if end < len(text):
                metadata[Meta.NOTE] = "the text ends here: only whitespace follows (pieces are stripped)"
        over = counter.count(start, end) > params.max_tokens
        chosen.append(Piece(start, end, reason, over_limit=over, metadata=metadata))
    drawn = min(len(pieces), MAX_DRAWN_PIECES)
    head = np.asarray(vectors[:drawn], dtype=np.float64)
    window = head @ head.T - mean  # what the DP sums: the whole document's mean subtracted
    np.fill_diagonal(window, 0.0)
    total = float(sum(segment.reward for segment in segments))
    return ClusterExplanation(
        text,
        tuple(pieces),
        tuple(to_chunks(document, chosen)),
        model,
        tokenizer.name,
        params.min_tokens,
        params.max_tokens,
        max_pieces,
        mean,
        np.einsum("ij,ij->i", vectors[:-1], vectors[1:]).astype(np.float64),
        window.astype(np.float32),
        total,
    )


#: Explanations kept in memory per (document, params, tokenizer): the app asks for a column's chunks
#: and for their explanation with the same settings.
EXPLANATIONS: BoundedLRU[tuple[Document, ClusterParams, Tokenizer], ClusterExplanation] = BoundedLRU(max_entries=4)


def explain_cluster(document: Document | str, params: ClusterParams, tokenizer: Tokenizer) -> ClusterExplanation:
    """The chunking with its analysis (remembered in :data:`EXPLANATIONS`)."""
    require_model_extra(params.model)
    document = as_document(document)
    return EXPLANATIONS.get_or_make(
        (document, params, tokenizer), lambda: cluster_chunking(document, params, tokenizer)
    )


def prepare_cluster(
    document: Document | str, params: ClusterParams, tokenizer: Tokenizer, progress: Callable[[int, int], None]
) -> None:
    """Split and embed the pieces once (cached), reporting progress in pieces."""
    require_model_extra(params.model)
    text = as_document(document).text
    if not is_blank(text):
        pieces = cluster_pieces(text, params.min_tokens, tokenizer)
        check_piece_count(len(pieces), params)  # refused before anything is embedded, as the run itself does
        piece_vectors(text, pieces, params.model, progress)


@register(
    NAME,
    "Chroma's ClusterSemanticChunker: embed ~50-token pieces and choose the cuts by dynamic programming that "
    "maximise the similarity inside each chunk, under a maximum size.",
    ClusterParams,
    explain=explain_cluster,
    prepare=prepare_cluster,
)
def cluster(document: Document, params: ClusterParams, tokenizer: Tokenizer) -> list[Chunk]:
    return list(explain_cluster(document, params, tokenizer).chunks)


__all__ = ["SEPARATORS", "ClusterExplanation", "ClusterParams", "cluster", "cluster_chunking", "explain_cluster"]
