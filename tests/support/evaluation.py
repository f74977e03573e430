"""A three-topic corpus and a bag-of-words stand-in encoder for the evaluation engine's tests
(exact, fast, no model): tests/test_evaluation_engine.py and tests/test_evaluation_retrievers.py."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from chunkviz.evaluation.metrics import DocumentSpan

VOCABULARY = ["coffee", "roast", "beans", "tide", "turbine", "barrage", "binding", "quire", "leather"]
TEXT = (
    "Coffee roast notes. The beans crack when the roast is done.\n\n"
    "Tide power uses a turbine. A barrage holds the tide back.\n\n"
    "Book binding starts with a quire. The binding is covered in leather.\n"
)


@dataclass(frozen=True)
class Q:
    question: str
    references: tuple[DocumentSpan, ...]


def bag_of_words(texts: Sequence[str]) -> np.ndarray:
    """A vector of VOCABULARY counts per text (plus a constant so no vector is zero)."""
    rows = [[re.findall(r"[a-z]+", t.lower()).count(w) for w in VOCABULARY] + [0.01] for t in texts]
    return np.asarray(rows, dtype=np.float32)


def span_of(excerpt: str) -> DocumentSpan:
    """The span of ``excerpt`` in :data:`TEXT` (document "doc")."""
    start = TEXT.index(excerpt)
    return DocumentSpan("doc", start, start + len(excerpt))


QUESTIONS = [
    Q("when is the coffee roast done", (span_of("The beans crack when the roast is done."),)),
    Q("what holds the tide back", (span_of("A barrage holds the tide back."),)),
    Q("what covers the binding", (span_of("The binding is covered in leather."),)),
]
