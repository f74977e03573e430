"""The published all-MiniLM-L6-v2 rows of Chroma's "Evaluating Chunking Strategies for Retrieval"
(research.trychroma.com/evaluating-chunking; its data: github.com/brandonstarxel/chunking_evaluation,
``general_evaluation_data``: 5 corpora, 472 questions, k = 5), kept as data so that a frontier
drawn on the same corpus can show them as reference markers, and how to recognise that corpus.

The study reports mean ± std in percent over the 472 questions; its sizes are in tokens, the
mean actual size (``~``) where it gave one. "Tokens retrieved per question" is not published:
:attr:`PublishedRow.tokens` estimates it as k × the mean chunk size.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath

#: Chroma's corpora: file stem -> length in characters (code points), as in its general evaluation data.
CHROMA_CORPORA: dict[str, int] = {
    "chatlogs": 40_000,
    "finance": 737_905,
    "pubmed": 500_000,
    "state_of_the_union": 48_051,
    "wikitexts": 118_372,
}
#: The study's k (chunks retrieved per question).
CHROMA_K = 5


@dataclass(frozen=True)
class PublishedRow:
    """One published row: the chunker, its size setting, mean chunk size (tokens), overlap and
    the mean scores as fractions."""

    chunker: str
    size: int
    mean_tokens: int
    overlap: int
    recall: float
    precision: float
    precision_omega: float
    iou: float

    @property
    def label(self) -> str:
        return f"Chroma {self.chunker} {self.size}/{self.overlap} (~{self.mean_tokens})"

    @property
    def tokens(self) -> float:
        """Tokens retrieved per question, estimated: k × the mean chunk size."""
        return float(CHROMA_K * self.mean_tokens)

    def value(self, metric: str) -> float | None:
        """The row's value of a tune metric (None: not published)."""
        return {
            "recall": self.recall,
            "precision": self.precision,
            "precision_omega": self.precision_omega,
            "iou": self.iou,
            "tokens": self.tokens,
        }.get(metric)


#: The all-MiniLM-L6-v2 table (../shared/eval/chroma/NOTES.md), in the study's order.
MINILM_ROWS: tuple[PublishedRow, ...] = (
    PublishedRow("Recursive", 250, 180, 125, 0.787, 0.049, 0.219, 0.049),
    PublishedRow("TokenText", 250, 250, 125, 0.824, 0.036, 0.114, 0.035),
    PublishedRow("Recursive", 250, 162, 0, 0.785, 0.054, 0.267, 0.054),
    PublishedRow("TokenText", 250, 250, 0, 0.771, 0.033, 0.164, 0.033),
    PublishedRow("Recursive", 200, 128, 0, 0.757, 0.065, 0.312, 0.065),
    PublishedRow("TokenText", 200, 200, 0, 0.766, 0.041, 0.191, 0.041),
    PublishedRow("Cluster", 250, 168, 0, 0.773, 0.061, 0.286, 0.060),
    PublishedRow("Cluster", 200, 102, 0, 0.752, 0.072, 0.336, 0.072),
)


def chroma_corpus_name(name: str, length: int) -> str | None:
    """The Chroma corpus a document is (its file stem and its length in characters), or None."""
    stem = PurePath(name).stem
    return stem if CHROMA_CORPORA.get(stem) == length else None


def is_chroma(corpus: Mapping[str, str]) -> bool:
    """Whether every document of ``corpus`` (name -> text) is one of Chroma's corpora: the
    published rows are then a reference for its frontier."""
    return bool(corpus) and all(chroma_corpus_name(name, len(text)) is not None for name, text in corpus.items())
