"""The ``semantic`` strategy: cut where adjacent sentence embeddings drift apart (seed 000 §13.6).

Reasons: ``semantic_breakpoint`` (adjacent sentences least similar), ``size_limit`` (a cut forced
by ``max_tokens``, or inside a sentence split at words: ``split_unit``), ``end_of_document``; a
piece that cannot be cut further is ``over_size_limit`` and ``indivisible``. Needs the
``semantic`` extra (torch, sentence-transformers, the packaged model).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from chunkviz.core.cache import BoundedLRU
from chunkviz.core.errors import InvalidParamError
from chunkviz.core.types import Chunk
from chunkviz.document.model import Document, as_document
from chunkviz.semantic import (
    DEFAULT_MODEL,
    THRESHOLD_TYPES,
    SemanticExplanation,
    semantic_chunking,
    sentence_similarities,
)
from chunkviz.semantic.embeddings import (
    DEFAULT_MODEL_LIMIT,
    MODEL_HELP,
    ModelUnavailable,
    canonical_model,
    require_model_extra,
    size_tokenizer,
)
from chunkviz.semantic.tuning import CONTROLS, tuning_data
from chunkviz.strategies.base import TuningAnalysis, param, register
from chunkviz.text.tokenizers import Tokenizer


@dataclass(frozen=True)
class SemanticParams:
    threshold_type: str = param("percentile", "how the breakpoint threshold is set", choices=THRESHOLD_TYPES)
    percentile: float = param(
        95.0,
        "percentile: cut the (100 - p)% least similar sentence pairs; gradient: percentile of the distance gradient",
        minimum=0.0,
        maximum=100.0,
        applies_when={"threshold_type": ("percentile", "gradient")},
    )
    std_multiplier: float = param(
        3.0,
        "cut where similarity < mean - k * standard deviation",
        minimum=0.0,
        maximum=10.0,
        applies_when={"threshold_type": ("standard_deviation",)},
    )
    iqr_multiplier: float = param(
        1.5,
        "cut where similarity < mean - k * interquartile range",
        minimum=0.0,
        maximum=10.0,
        applies_when={"threshold_type": ("interquartile",)},
    )
    similarity: float = param(
        0.5,
        "cut where the similarity of adjacent sentences is below this value",
        minimum=-1.0,
        maximum=1.0,
        applies_when={"threshold_type": ("absolute",)},
    )
    buffer_size: int = param(
        0, "embed each sentence together with this many neighbours on each side", minimum=0, maximum=5
    )
    max_tokens: int = param(
        0, "largest chunk in the embedding model's tokens (0 = the model's limit)", minimum=0, maximum=100_000
    )
    min_tokens: int = param(
        0, "merge chunks smaller than this into their more similar neighbour (0 = off)", minimum=0, maximum=100_000
    )
    model: str = param(
        DEFAULT_MODEL,
        MODEL_HELP,
    )

    def __post_init__(self) -> None:
        if 0 < self.max_tokens <= 2:
            raise InvalidParamError(
                "semantic",
                "max_tokens",
                f"must be 0 (the model's limit) or at least 3 (the model adds 2 special tokens), got {self.max_tokens}",
            )
        # min_tokens <= max_tokens is the registry's check of every min_X / max_X pair; with
        # max_tokens=0 the maximum is the model's limit, known here for the packaged model (a
        # model from a folder is checked when it is loaded: check_min_tokens)
        try:
            canonical = canonical_model(self.model)
        except ModelUnavailable as exc:  # a name no provider serves, or not a string
            raise InvalidParamError("semantic", "model", f"is not usable: {exc}") from None
        if self.max_tokens == 0 and canonical == DEFAULT_MODEL:
            check_min_tokens(self.min_tokens, DEFAULT_MODEL_LIMIT, self.model)

    def amount(self) -> float:
        return {
            "percentile": self.percentile,
            "gradient": self.percentile,
            "standard_deviation": self.std_multiplier,
            "interquartile": self.iqr_multiplier,
            "absolute": self.similarity,
        }[self.threshold_type]


#: Explanations kept in memory per (document, params), least recently used forgotten first: the app
#: asks for a column's chunks and for their explanation with the same settings.
MEMORY_MAX_EXPLANATIONS = 4
EXPLANATIONS: BoundedLRU[tuple[Document, SemanticParams], SemanticExplanation] = BoundedLRU(
    max_entries=MEMORY_MAX_EXPLANATIONS
)


def explain_semantic(document: Document | str, params: SemanticParams, tokenizer: Tokenizer) -> SemanticExplanation:
    """The full analysis: sentences, similarities, threshold, breakpoints and chunks (an
    :class:`~chunkviz.core.explain.Explanation`), remembered in :data:`EXPLANATIONS` (the tokenizer
    plays no part)."""
    require_model_extra(params.model)
    document = as_document(document)
    return EXPLANATIONS.get_or_make((document, params), lambda: _explained(document, params))


def check_min_tokens(min_tokens: int, model_limit: int, model: str) -> None:
    """``min_tokens`` within the largest chunk when ``max_tokens=0`` (the model's limit)."""
    if min_tokens > model_limit:
        raise InvalidParamError(
            "semantic",
            "min_tokens",
            f"must be at most the largest chunk, {model_limit:,} tokens (max_tokens=0: the limit of the model "
            f"{model!r}), got {min_tokens:,}; lower min_tokens",
        )


def _explained(document: Document, params: SemanticParams) -> SemanticExplanation:
    if params.max_tokens == 0 and params.min_tokens:
        check_min_tokens(params.min_tokens, size_tokenizer(params.model).model_limit, params.model)
    return semantic_chunking(
        document,
        model=params.model,
        buffer_size=params.buffer_size,
        threshold_type=params.threshold_type,
        amount=params.amount(),
        max_tokens=params.max_tokens or None,
        min_tokens=params.min_tokens,
    )


def prepare_semantic(
    document: Document | str, params: SemanticParams, tokenizer: Tokenizer, progress: Callable[[int, int], None]
) -> None:
    """Segment and embed once (cached), reporting progress in sentences."""
    require_model_extra(params.model)
    sentence_similarities(as_document(document), params.model, params.buffer_size, progress)


def tuned_parameter(params: SemanticParams) -> str:
    """The parameter the Tune panel's control sets: the amount of the chosen threshold type."""
    return CONTROLS[params.threshold_type].param


#: The Tune view: the threshold beside the similarity of every adjacent sentence pair.
TUNING = TuningAnalysis(tuning_data, tuned_parameter, what="threshold")


@register(
    "semantic",
    "Embed each sentence and cut where the similarity of neighbours drops below a threshold; never over the model's limit.",
    SemanticParams,
    explain=explain_semantic,
    prepare=prepare_semantic,
    tuning=TUNING,
)
def semantic(document: Document, params: SemanticParams, tokenizer: Tokenizer) -> list[Chunk]:
    return list(explain_semantic(document, params, tokenizer).chunks)
