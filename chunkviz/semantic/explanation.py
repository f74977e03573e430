"""The semantic chunking of one document with everything its plots and captions show."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any, Mapping, Sequence

from chunkviz.core.explain import Explanation, ExplanationFigure, finite
from chunkviz.core.types import Chunk, Progress
from chunkviz.document.model import Document, as_document
from chunkviz.drawing.charts import chunk_count_figure, similarity_figure
from chunkviz.semantic.assembly import assemble, final_chunk_counts
from chunkviz.semantic.cache import SentenceSimilarities, sentence_similarities
from chunkviz.semantic.embeddings import DEFAULT_MODEL
from chunkviz.semantic.thresholds import Threshold, compute_threshold

CURVE_CAPTION = "Chunks for every percentile, after the size limits (flat where max_tokens decides):"


@dataclass(frozen=True)
class SemanticExplanation(Explanation):
    """Sentences, similarities, threshold, breakpoints and chunks of one semantic chunking.

    Holds the text (not the Document) so that it pickles (Streamlit caches it).
    """

    text: str
    analysis: SentenceSimilarities
    threshold: Threshold
    chunks: tuple[Chunk, ...]
    max_tokens: int  # the limit used, special tokens included
    model_tokenizer: str
    size_splits: tuple[int, ...]  # sentence indices i where a cut after i was forced by max_tokens
    min_tokens: int = 0
    language: str | None = None  # the document's given language (None: detected from the text)

    # ---- Explanation ---------------------------------------------------------------------------
    def summary(self) -> str:
        """e.g. ``22 sentences · segmenter … · model … · similarity threshold 0.023 = 5th
        percentile of 21 pairs · 1 breakpoint · 1 pair at the threshold (not cut) · 1 cut forced
        by max_tokens (256 model tokens)``."""
        analysis = self.analysis
        parts = [f"{len(analysis.sentences):,} sentences", f"segmenter {analysis.segmenter}", f"model {analysis.model}"]
        if len(analysis.similarities) == 0:
            return " · ".join([*parts, "fewer than two sentences: nothing to compare"])
        return " · ".join([*parts, self.threshold_caption()])

    def threshold_caption(self) -> str:
        """The threshold, where it comes from and what it cut, e.g. ``similarity threshold 0.023
        = 5th percentile of 21 pairs · 1 breakpoint · 1 cut forced by max_tokens (256 model tokens)``;
        pairs exactly at the threshold (not cut) are named when there are any."""
        threshold = self.threshold
        if len(self.analysis.similarities) == 0:
            return threshold.describe()
        n, ties, cuts = len(threshold.breakpoints), len(threshold.at_threshold), len(self.size_splits)
        parts = [threshold.describe(), f"{n:,} breakpoint{'' if n == 1 else 's'}"]
        if ties:
            parts.append(f"{ties:,} pair{' is' if ties == 1 else 's are'} exactly at the threshold (not cut)")
        parts.append(f"{cuts:,} cut{'' if cuts == 1 else 's'} forced by max_tokens ({self.max_tokens} model tokens)")
        return " · ".join(parts)

    def figures(self, chunks: Sequence[Chunk] | None = None) -> list[ExplanationFigure]:
        """The similarity plot (click a point to select its chunk) and, for the percentile
        threshold, the chunk count of every percentile."""
        if len(self.analysis.similarities) == 0:
            return []
        chunks = self.chunks if chunks is None else chunks
        threshold = self.threshold
        similarity = similarity_figure(
            self.text,
            self.analysis.sentences,
            list(threshold.metric_values),
            threshold.metric,
            threshold.value,
            threshold.breakpoints,
            self.size_splits,
            chunk_sentence_ranges(chunks),
            threshold.at_threshold,
        )
        out = [ExplanationFigure("similarity", similarity, selectable=True)]
        if threshold.threshold_type == "percentile":
            out.append(
                ExplanationFigure("curve", chunk_count_figure(self.count_curve, threshold.amount), CURVE_CAPTION)
            )
        return out

    def chunk_at(self, figure: str, point: Mapping[str, Any], chunks: Sequence[Chunk] | None = None) -> int | None:
        """A point of the similarity plot (pair i at x = i + 0.5) selects the chunk that ends
        after sentence i."""
        if figure != "similarity" or "x" not in point:
            return None
        pair = int(round(float(point["x"]) - 0.5))
        chunks = self.chunks if chunks is None else chunks
        return next((c.index for c in chunks if c.metadata.get("sentences", (0, 0))[1] == pair + 1), None)

    def to_dict(self) -> dict[str, Any]:
        analysis, threshold = self.analysis, self.threshold
        return {
            "model": analysis.model,
            "segmenter": analysis.segmenter,
            "buffer_size": analysis.buffer_size,
            "threshold_type": threshold.threshold_type,
            "amount": finite(threshold.amount),
            "metric": threshold.metric,
            "threshold": finite(threshold.value) if len(analysis.similarities) else None,
            "max_tokens": self.max_tokens,
            "min_tokens": self.min_tokens,
            "model_tokenizer": self.model_tokenizer,
            "sentences": [{"start": a, "end": b} for a, b in analysis.sentences],
            "similarities": [float(v) for v in analysis.similarities],
            "metric_values": [float(v) for v in threshold.metric_values],
            "breakpoints": list(threshold.breakpoints),
            "size_splits": list(self.size_splits),
            "summary": self.summary(),
        }

    # ---- semantic specifics ----------------------------------------------------------------------
    @cached_property
    def count_curve(self) -> list[tuple[float, int]]:
        """(percentile, chunks after the size limits) for percentiles 0..100: independent of the
        threshold, so computed once per document and limits (a moved percentile reuses it)."""
        return list(
            _count_curve(
                self.text,
                self.language,
                self.analysis.model,
                self.analysis.buffer_size,
                self.max_tokens,
                self.min_tokens,
            )
        )


@lru_cache(maxsize=8)
def _count_curve(
    text: str, language: str | None, model: str, buffer_size: int, max_tokens: int, min_tokens: int
) -> tuple[tuple[float, int], ...]:
    document = as_document(text, language=language)  # the sentences the chunking had
    return tuple(
        final_chunk_counts(document, model=model, buffer_size=buffer_size, max_tokens=max_tokens, min_tokens=min_tokens)
    )


def chunk_sentence_ranges(chunks: Sequence[Chunk]) -> list[tuple[int, int]]:
    """Sentence ranges of consecutive chunks (the pieces of one split sentence become one range)."""
    merged: list[tuple[int, int]] = []
    for chunk in chunks:
        a, b = chunk.metadata.get("sentences", (0, 0))
        if not merged or merged[-1] != (a, b):
            merged.append((a, b))
    return merged


def semantic_chunking(
    document: Document | str,
    *,
    model: str = DEFAULT_MODEL,
    buffer_size: int = 0,
    threshold_type: str = "percentile",
    amount: float = 95.0,
    max_tokens: int | None = None,
    min_tokens: int = 0,
    progress: Progress | None = None,
) -> SemanticExplanation:
    """Sentences, similarities, threshold, breakpoints and the chunks, in one result."""
    document = as_document(document)
    analysis = sentence_similarities(document, model, buffer_size, progress)
    threshold = compute_threshold(analysis.similarities, threshold_type, amount)
    built = assemble(document, analysis, threshold, max_tokens, min_tokens)
    return SemanticExplanation(
        document.text,
        analysis,
        threshold,
        built.chunks,
        built.max_tokens,
        built.model_tokenizer,
        built.size_splits,
        min_tokens,
        document.given_language,
    )
